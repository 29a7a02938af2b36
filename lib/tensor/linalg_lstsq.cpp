// torch::linalg::lstsq: the least-squares (and, when A is rank deficient or wide, minimum-norm)
// solution of A X = B, with libtorch 1.13's results per driver and its errors. The solution is
// pinv(A) B, which is what libtorch's LinalgLstsqBackward0 differentiates, so the gradients are
// libtorch's; the rank counts singular values above rcond times the largest, on the host in
// float64 (Note [Host factorizations]).
#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include "autograd/node.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/linalg_ops.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

constexpr const char* kOp = "torch.linalg.lstsq";

void check_lstsq(const Tensor& a, const Tensor& b, std::string_view driver) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "{}: input and other must be defined tensors", kOp);
  EMBER_CHECK_ARG(a.dim() >= 2, "{}: input must have at least 2 dimensions.", kOp);
  EMBER_CHECK_ARG(b.dim() >= 1, "{}: other must have at least 1 dimension.", kOp);
  EMBER_CHECK_ARG(
      a.dtype() == b.dtype(),
      "{}: Expected input and other to have the same dtype, but got input's dtype {} and other's dtype {}",
      kOp, detail::torch_name(a.dtype()), detail::torch_name(b.dtype()));
  const int64_t dim_diff = a.dim() - b.dim();
  EMBER_CHECK_ARG(
      dim_diff == 0 || dim_diff == 1,
      "{}: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1", kOp);
  EMBER_CHECK_ARG(a.size(-2) == (dim_diff ? b.size(-1) : b.size(-2)),
                  dim_diff ? "{}: input.size(-2) should match other.size(-1)"
                           : "{}: input.size(-2) should match other.size(-2)",
                  kOp);
  EMBER_CHECK_ARG(
      a.device() == b.device(),
      "{}: Expected other and input to be on the same device, but found other on {} and input on {} "
      "instead.",
      kOp, b.device().str(), a.device().str());
  EMBER_CHECK_ARG(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss",
                  "{}: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)", kOp);
  EMBER_CHECK_ARG(!a.is_cuda() || driver == "gels", "{}: `driver` other than `gels` is not supported on CUDA",
                  kOp);
  EMBER_CHECK_ARG(a.dtype() == kFloat || a.dtype() == kDouble,
                  "This function doesn't handle types other than float and double");
}

}  // namespace

std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& a, const Tensor& b,
                                                        std::optional<double> rcond,
                                                        std::optional<std::string_view> driver) {
  // libtorch's default driver: gelsy on the CPU, gels (the only one it has) on CUDA; a given
  // name is read in lower case, as libtorch reads it.
  std::string drv = driver ? std::string(*driver) : (a.defined() && a.is_cuda() ? "gels" : "gelsy");
  for (char& c : drv) c = char(std::tolower(static_cast<unsigned char>(c)));
  check_lstsq(a, b, drv);
  const bool vector = a.dim() - b.dim() == 1;
  const Tensor b2 = vector ? b.unsqueeze(-1) : b;
  const int64_t m = a.size(-2), n = a.size(-1), k = b2.size(-1);
  // Batch dims broadcast, as libtorch's.
  const SizesVector common = detail::broadcast_shapes(a.sizes().slice(0, size_t(a.dim() - 2)),
                                                      b2.sizes().slice(0, size_t(b2.dim() - 2)), kOp);
  const std::vector<int64_t> batch(common.ref().begin(), common.ref().end());
  auto with = [&](std::initializer_list<int64_t> tail) {
    std::vector<int64_t> s = batch;
    s.insert(s.end(), tail);
    return s;
  };
  const Tensor A = a.expand(with({m, n})), B = b2.expand(with({m, k}));
  const double eps = a.dtype() == kDouble ? std::numeric_limits<double>::epsilon()
                                          : double(std::numeric_limits<float>::epsilon());
  // A negative rcond means machine precision, as LAPACK reads it.
  const double tol = !rcond ? eps * double(std::max(m, n)) : *rcond < 0 ? eps : *rcond;

  Tensor solution;
  if (A.numel() == 0 || B.numel() == 0) {
    solution = zeros(with({n, k}), a.options());
  } else {
    solution = matmul(linalg_pinv(A, std::optional<double>(0.0), std::optional<double>(tol)), B);
  }

  const bool wants_rank = drv != "gels";
  const bool wants_singular_values = drv == "gelsd" || drv == "gelss";
  // The rank and singular values are A's own (its batch dims, not the broadcast ones).
  Tensor rank = empty({0}, TensorOptions(kLong).device(a.device()));
  Tensor singular_values = empty({0}, a.options());
  bool full_rank = true;
  if (wants_rank) {
    NoGradGuard no_grad;
    const int64_t r = std::min(m, n);
    const IntArrayRef a_batch = a.sizes().slice(0, size_t(a.dim() - 2));
    if (r == 0) {
      rank = zeros(a_batch, TensorOptions(kLong).device(a.device()));
      std::vector<int64_t> none(a_batch.begin(), a_batch.end());
      none.push_back(0);
      singular_values = empty(none, a.options());
      full_rank = n == 0;
    } else {
      const Tensor s = linalg_svdvals(a.detach());
      rank = (s > s.narrow(-1, 0, 1) * tol).sum(-1);
      full_rank = rank.numel() == 0 || bool(rank.eq(n).all().item<bool>());
      if (wants_singular_values) singular_values = s;
    }
  }
  // The squared residual of each column: for tall systems of full rank, not from gelsy. As in
  // libtorch, only the solution is differentiable.
  Tensor residuals = empty({0}, a.options());
  if (m > n && drv != "gelsy" && full_rank) {
    NoGradGuard no_grad;
    residuals = (matmul(A, solution) - B).square().sum(-2);
  }
  if (vector) solution = solution.squeeze(-1);
  // The solution's last node takes libtorch's name; the graph under it is pinv's and matmul's.
  autograd::name_grad_fn(solution, "LinalgLstsqBackward0");
  return {solution, residuals, rank, singular_values};
}

namespace linalg {
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& a, const Tensor& b,
                                                 std::optional<double> rcond,
                                                 std::optional<std::string_view> driver) {
  return linalg_lstsq(a, b, rcond, driver);
}
}  // namespace linalg

}  // namespace ember
