// multinomial: libtorch 1.13's CPU algorithm, so that a seed gives libtorch's samples
// (Note [Random generators] in random_ops.cpp).
//  - With replacement: each row's cumulative distribution, summed in order in the input's
//    dtype (float for bfloat16) and divided by its total, then one float64 uniform per
//    sample, row by row, and a binary search for the first bucket not below it
//    (MultinomialKernel.cpp).
//  - Without replacement: the exponential trick (Distributions.cpp): q ~ Exp(1) drawn
//    like empty_like(self).exponential_(1), then the largest entries of self / q, chosen by
//    argmax for one sample and by libtorch's topk selection (same std algorithms, so the
//    same order among ties) for more.
// The draws are serial on the CPU generator; another device's input is sampled on the CPU
// with a generator seeded from that device's counters (randperm's fallback) and moved back.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/check.h"
#include "core/dtype_dispatch.h"
#include "core/torch_dtype_name.h"
#include "dispatch/random_ops.h"
#include "ember/autograd.h"
#include "ember/device_api.h"
#include "ember/ops.h"

namespace ember {

namespace {

constexpr int64_t kMaxCategories = int64_t(1) << 24;  // libtorch: the float32 index limit

void check_args(const Tensor& self, int64_t n_sample, bool replacement) {
  EMBER_CHECK_ARG(self.defined(), "multinomial: the probability tensor is undefined");
  EMBER_CHECK_ARG(self.dim() > 0 && self.dim() <= 2,
                  "multinomial: prob_dist must be 1 or 2 dim, but got {} dims", self.dim());
  EMBER_CHECK_ARG(is_floating_point(self.dtype()),
                  "multinomial only supports floating-point dtypes for input, got: {}",
                  detail::torch_name(self.dtype()));
  EMBER_CHECK_ARG(n_sample > 0, "multinomial: cannot sample n_sample <= 0 samples, got num_samples = {}",
                  n_sample);
  const int64_t n_categories = self.size(-1);
  EMBER_CHECK_ARG(replacement || n_sample <= n_categories,
                  "multinomial: cannot sample n_sample > prob_dist.size(-1) samples without replacement, got "
                  "num_samples = {} for {} categories",
                  n_sample, n_categories);
  EMBER_CHECK_ARG(n_categories <= kMaxCategories,
                  "multinomial: number of categories cannot exceed 2^24, got {}", n_categories);
}

// libtorch's empty_like keeps a dense input's strides, so q is drawn in self's memory
// order: a transposed matrix column by column.
Tensor empty_like_layout(const Tensor& self) {
  if (self.dim() == 2 && !self.is_contiguous() && self.t().is_contiguous()) return empty_like(self.t()).t();
  return empty_like(self);
}

// Without replacement, libtorch checks every entry at once: finite and not negative, then
// no row of zeros.
template <class T>
void check_no_replacement_rows(const T* p, int64_t n_dist, int64_t n_cat) {
  using Acc = detail::opmath_t<T>;
  for (int64_t i = 0; i < n_dist; ++i) {
    bool all_zero = true;
    for (int64_t j = 0; j < n_cat; ++j) {
      const Acc v = Acc(p[i * n_cat + j]);
      EMBER_CHECK_ARG(
          v >= 0 && v < std::numeric_limits<Acc>::infinity(),
          "multinomial: probability tensor contains either `inf`, `nan` or element < 0 (got {} at "
          "category {} of distribution {})",
          v, j, i);
      all_zero = all_zero && v == 0;
    }
    EMBER_CHECK_ARG(
        !all_zero,
        "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in distribution {}", i);
  }
}

// libtorch's topk_impl_loop for largest, sorted: partial_sort when k is small against the
// row, else nth_element and a sort of the first k - 1. NaN counts as the largest.
void top_k_rows(const double* v, int64_t n_dist, int64_t n_cat, int64_t k, int64_t* out) {
  using Elem = std::pair<double, int64_t>;
  auto larger = [](const Elem& x, const Elem& y) {
    return (std::isnan(x.first) && !std::isnan(y.first)) || x.first > y.first;
  };
  std::vector<Elem> queue(static_cast<size_t>(n_cat));
  for (int64_t i = 0; i < n_dist; ++i) {
    for (int64_t j = 0; j < n_cat; ++j) queue[size_t(j)] = {v[i * n_cat + j], j};
    if (k * 64 <= n_cat) {
      std::partial_sort(queue.begin(), queue.begin() + k, queue.end(), larger);
    } else {
      std::nth_element(queue.begin(), queue.begin() + k - 1, queue.end(), larger);
      std::sort(queue.begin(), queue.begin() + k - 1, larger);
    }
    for (int64_t j = 0; j < k; ++j) out[i * k + j] = queue[size_t(j)].second;
  }
}

Tensor sample_without_replacement(const Tensor& self, int64_t n_sample, const std::optional<Generator>& gen) {
  const int64_t n_cat = self.size(-1), n_dist = self.dim() == 2 ? self.size(0) : 1;
  const Tensor p = self.contiguous();
  detail::dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    check_no_replacement_rows(p.data_ptr<T>(), n_dist, n_cat);
  });
  // p / q, q ~ Exp(1): argmax of the ratio is a sample (the Gumbel-max trick), its top k
  // a sample of k without replacement.
  const Tensor ratio = self / empty_like_layout(self).exponential_(1, gen);
  if (n_sample == 1) return ratio.argmax(-1, true);
  const Tensor values = ratio.to(kDouble).contiguous();  // exact: only their order matters
  Tensor out =
      empty(self.dim() == 2 ? std::vector<int64_t>{n_dist, n_sample} : std::vector<int64_t>{n_sample},
            TensorOptions(kLong).device(self.device()));
  top_k_rows(values.data_ptr<double>(), n_dist, n_cat, n_sample, out.data_ptr<int64_t>());
  return out;
}

// Row i's normalized cumulative distribution into cum, with libtorch's checks in its
// order. Acc: the input's dtype, float for bfloat16 (libtorch keeps those sums in float).
template <class T, class Acc = detail::opmath_t<T>>
void cumulative_row(const T* p, int64_t i, int64_t n_cat, Acc* cum) {
  Acc sum = 0;
  for (int64_t j = 0; j < n_cat; ++j) {
    const T val = p[i * n_cat + j];
    EMBER_CHECK_ARG(
        Acc(val) >= 0,
        "multinomial: invalid multinomial distribution (encountering probability entry < 0), got {} at "
        "category {} of distribution {}",
        Acc(val), j, i);
    EMBER_CHECK_ARG(
        std::isfinite(Acc(val)),
        "multinomial: invalid multinomial distribution (encountering probability entry = infinity or "
        "NaN), got {} at category {} of distribution {}",
        Acc(val), j, i);
    sum += Acc(val);
    cum[j] = sum;
  }
  EMBER_CHECK_ARG(
      sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in distribution {}",
      i);
  for (int64_t j = 0; j < n_cat; ++j) cum[j] /= sum;
  cum[n_cat - 1] = 1;  // the last bucket ends at 1 whatever the rounding
}

template <class T>
Tensor sample_with_replacement(const Tensor& self, int64_t n_sample, const std::optional<Generator>& gen) {
  const int64_t n_cat = self.size(-1), n_dist = self.dim() == 2 ? self.size(0) : 1;
  const Tensor p = self.contiguous();
  // Every row is checked before anything is drawn, so a refused call leaves the generator alone.
  std::vector<detail::opmath_t<T>> cum(size_t(n_dist * n_cat));
  for (int64_t i = 0; i < n_dist; ++i) cumulative_row(p.data_ptr<T>(), i, n_cat, cum.data() + i * n_cat);
  // One float64 uniform per sample, row by row: rand's stream for float64.
  const Tensor u = rand({n_dist, n_sample}, gen, TensorOptions(kDouble).device(self.device()));
  const double* up = u.data_ptr<double>();
  Tensor out =
      empty(self.dim() == 2 ? std::vector<int64_t>{n_dist, n_sample} : std::vector<int64_t>{n_sample},
            TensorOptions(kLong).device(self.device()));
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0; i < n_dist; ++i) {
    const auto* row = cum.data() + i * n_cat;
    for (int64_t s = 0; s < n_sample; ++s) {
      const double x = up[i * n_sample + s];
      int64_t lo = 0, hi = n_cat;  // the first bucket whose cumulative probability is >= x
      while (hi > lo) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (double(row[mid]) < x)
          lo = mid + 1;
        else
          hi = mid;
      }
      o[i * n_sample + s] = lo;
    }
  }
  return out;
}

Tensor multinomial_cpu(const Tensor& self, int64_t n_sample, bool replacement,
                       const std::optional<Generator>& gen) {
  const int64_t n_dist = self.dim() == 2 ? self.size(0) : 1;
  if (n_dist * n_sample == 0)
    return empty(self.dim() == 2 ? std::vector<int64_t>{n_dist, n_sample} : std::vector<int64_t>{n_sample},
                 TensorOptions(kLong).device(self.device()));
  EMBER_CHECK_TYPED(
      self.dtype() != kHalf, NotImplemented,
      "multinomial is not implemented for half on CPU (convert the probabilities to float first)");
  if (!replacement) return sample_without_replacement(self, n_sample, gen);
  return detail::dispatch_floating(self.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return sample_with_replacement<T>(self, n_sample, gen);
  });
}

}  // namespace

Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement,
                   std::optional<Generator> generator) {
  check_args(self, num_samples, replacement);
  NoGradGuard no_grad;  // integer samples: nothing to record
  const Device device = self.device();
  if (!device.is_cpu()) {
    // Half is the CPU path's gap only: another device samples its float32 copy.
    const Tensor host = self.to(Device(kCPU), self.dtype() == kHalf ? kFloat : self.dtype());
    const Generator local = detail::cpu_generator_for_device(generator, device, "multinomial");
    return multinomial(host, num_samples, replacement, local).to(device);
  }
  detail::generator_for(generator, device, "multinomial");  // a wrong generator is refused up front
  DeviceScope scope(device);  // every step runs where self lives, whatever scope encloses the call
  return multinomial_cpu(self, num_samples, replacement, generator);
}

Tensor Tensor::multinomial(int64_t num_samples, bool replacement, std::optional<Generator> generator) const {
  return ember::multinomial(*this, num_samples, replacement, std::move(generator));
}

}  // namespace ember
