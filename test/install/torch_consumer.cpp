// A libtorch program, unchanged, built against the installed ember::torch drop-in.
#include <torch/torch.h>
// Other libtorch header paths, answered by the drop-in's generated headers.
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <torch/nn/modules/linear.h>
#include <torch/script.h>

#include <iostream>

int main() {
  torch::manual_seed(0);
  at::Tensor a = torch::rand({2, 2});
  TORCH_CHECK(a.dim() == 2, "expected a matrix, got ", a.dim(), " dims");
  c10::optional<int64_t> none = c10::nullopt;
  int64_t total = 0;
  for (const auto i : c10::irange(4)) total += i;
  std::cout << torch::matmul(torch::ones({2, 3}), torch::ones({3, 2})) << "\n"
            << "irange " << total << " none " << none.has_value() << " first " << a[0][0].item<float>() << "\n";
}
