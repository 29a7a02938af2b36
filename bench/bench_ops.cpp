// Elementwise ops, reductions, softmax and casts per dtype and size, ember beside libtorch
// in one run (interleaved, so the ratios hold on a noisy machine), CPU: add, mul, exp,
// tanh, sigmoid, sum, softmax(-1) (rows of 1000) and a cast to float32 (from float64 and
// bfloat16; from float32 to bfloat16) of 1K, 100K and 1M elements in float32, float64
// and bfloat16. The header line names ember's CPU capability (EMBER_CPU_CAPABILITY forces
// a lower one; ATEN_CPU_CAPABILITY does the same for libtorch).
// Use: ember_bench_ops [repetitions, default 5] [case name substring: only those cases];
// prints the median time of each side in microseconds.
#include <ember/ember.h>

#include "side_by_side.h"
#ifdef EMBER_BENCH_WITH_TORCH
#include <torch/torch.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using Case = ember_bench::SideBySideCase;

const char* dtype_label(ember::ScalarType t) {
  return t == ember::kFloat ? "f32" : t == ember::kDouble ? "f64" : "bf16";
}

#ifdef EMBER_BENCH_WITH_TORCH
torch::ScalarType torch_dtype(ember::ScalarType t) {
  return t == ember::kFloat ? torch::kFloat : t == ember::kDouble ? torch::kDouble : torch::kBFloat16;
}
// The same values on both sides: ember's tensor copied through float64.
torch::Tensor to_torch(const ember::Tensor& e, ember::ScalarType dt) {
  ember::Tensor d = e.to(ember::kDouble).contiguous();
  return torch::from_blob(d.data_ptr(), d.sizes().vec(), torch::kDouble).clone().to(torch_dtype(dt));
}
#endif

std::vector<Case> make_cases() {
  std::vector<Case> cases;
  for (ember::ScalarType dt : {ember::kFloat, ember::kDouble, ember::kBFloat16}) {
    for (int64_t n : {int64_t(1000), int64_t(100000), int64_t(1) << 20}) {
      const std::string suffix = std::string(" ") + dtype_label(dt) + " " +
                                 (n == 1000 ? "1K" : n == 100000 ? "100K" : "1M");
      ember::Tensor x = ember::randn({n}).to(dt), y = ember::randn({n}).to(dt);
      const int64_t cols = 1000, nrows = n / cols;
      ember::Tensor xs = x.narrow(0, 0, nrows * cols).view({nrows, cols});
#ifdef EMBER_BENCH_WITH_TORCH
      torch::Tensor tx = to_torch(x, dt), ty = to_torch(y, dt), txs = tx.narrow(0, 0, nrows * cols).view({nrows, cols});
#define EMBER_THEIRS(expr) [=] { torch::Tensor r = (expr); (void)r; }
#else
#define EMBER_THEIRS(expr) std::function<void()>()
#endif
      cases.push_back({"add" + suffix, [=] { ember::Tensor r = x + y; }, EMBER_THEIRS(tx + ty)});
      cases.push_back({"mul" + suffix, [=] { ember::Tensor r = x * y; }, EMBER_THEIRS(tx * ty)});
      cases.push_back({"exp" + suffix, [=] { ember::Tensor r = x.exp(); }, EMBER_THEIRS(tx.exp())});
      cases.push_back({"tanh" + suffix, [=] { ember::Tensor r = x.tanh(); }, EMBER_THEIRS(tx.tanh())});
      cases.push_back({"sigmoid" + suffix, [=] { ember::Tensor r = x.sigmoid(); }, EMBER_THEIRS(tx.sigmoid())});
      cases.push_back({"sum" + suffix, [=] { ember::Tensor r = x.sum(); }, EMBER_THEIRS(tx.sum())});
      cases.push_back({"softmax(-1) rows of 1000" + suffix, [=] { ember::Tensor r = xs.softmax(-1); },
                       EMBER_THEIRS(txs.softmax(-1))});
      if (dt == ember::kFloat)
        cases.push_back({"cast to bf16" + suffix, [=] { ember::Tensor r = x.to(ember::kBFloat16); },
                         EMBER_THEIRS(tx.to(torch::kBFloat16))});
      else
        cases.push_back({"cast to f32" + suffix, [=] { ember::Tensor r = x.to(ember::kFloat); },
                         EMBER_THEIRS(tx.to(torch::kFloat))});
#undef EMBER_THEIRS
    }
  }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  ember::manual_seed(0);
  const std::vector<Case> cases = make_cases();
  std::printf("== CPU ops, ember capability %s (median of %d; microseconds per call)\n", ember::cpu_capability(),
              reps);
  ember_bench::SideBySideOptions options;
  options.repetitions = reps;
  options.filter = argc > 2 ? argv[2] : nullptr;
  options.min_seconds = 0.05;
  options.max_calls = 1 << 16;
  options.unit_scale = 1e6;
  options.name_width = 40;
  ember_bench::run_side_by_side(cases, options);
  return 0;
}
