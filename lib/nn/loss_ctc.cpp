// CTC loss as ATen's ctc_loss computes it (same checks and texts, reductions, zero_infinity),
// the forward a log-space alpha recursion over time composed of ordinary ops, vectorised over
// the batch and the extended-label positions, so autograd gives the gradient on every device.
#include <cmath>
#include <limits>
#include <ostream>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/nn/loss.h"
#include "ember/ops.h"

namespace ember {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// log(sum(exp(x))) over xs, elementwise; -inf where every x is -inf, with a zero (not NaN)
// gradient there, so that unreachable positions pass nothing back.
Tensor safe_logsumexp(const std::vector<Tensor>& xs) {
  Tensor m = xs[0].detach();
  for (size_t i = 1; i < xs.size(); ++i) m = maximum(m, xs[i].detach());
  m = where(m == kNegInf, 0.0, m);
  Tensor s = exp(xs[0] - m);
  for (size_t i = 1; i < xs.size(); ++i) s = s + exp(xs[i] - m);
  const Tensor positive = s > 0.0;
  return where(positive, log(where(positive, s, 1.0)) + m, kNegInf);
}

std::string where_checked() { return " (while checking arguments for ctc_loss_cpu)"; }

}  // namespace

Tensor ctc_loss(const Tensor& log_probs_in, const Tensor& targets_in, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  EMBER_CHECK_ARG(log_probs_in.defined() && targets_in.defined(), "ctc_loss: every input must be defined");
  const bool batched = log_probs_in.dim() == 3;
  const Tensor log_probs = batched ? log_probs_in : log_probs_in.unsqueeze(1);
  EMBER_CHECK_TYPED(log_probs.dtype() == kFloat || log_probs.dtype() == kDouble, NotImplemented,
                    "\"ctc_loss_cpu\" not implemented for '{}'", detail::torch_name(log_probs.dtype()));
  EMBER_CHECK_ARG(
      log_probs.dim() == 3,
      "Expected 3-dimensional tensor, but got {}-dimensional tensor for argument #1 'log_probs'{}",
      log_probs.dim(), where_checked());
  const Tensor targets = targets_in.to(Device(kCPU), kLong).contiguous();
  EMBER_CHECK_ARG(targets.dim() >= 1 && targets.dim() <= 2,
                  "Expected 1 to 2 dimensions, but got {}-dimensional tensor for argument #2 'targets'{}",
                  targets.dim(), where_checked());
  const int64_t T = log_probs.size(0), N = log_probs.size(1), C = log_probs.size(2);
  EMBER_CHECK_ARG(0 <= blank && blank < C, "blank must be in label range");
  EMBER_CHECK_ARG(int64_t(input_lengths.size()) == N, "input_lengths must be of size batch_size");
  EMBER_CHECK_ARG(int64_t(target_lengths.size()) == N, "target_lengths must be of size batch_size");
  // Where each sample's target starts in the flat targets, and the step between its labels.
  std::vector<int64_t> offsets(size_t(N), 0);
  int64_t max_target = 0;
  for (int64_t b = 0; b < N; ++b) {
    // A negative length would shift the later samples' target offsets out of targets.
    EMBER_CHECK_ARG(target_lengths[size_t(b)] >= 0,
                    "Expected target_lengths to have value at least 0, but got value {}{}",
                    target_lengths[size_t(b)], where_checked());
    max_target = std::max(max_target, target_lengths[size_t(b)]);
  }
  if (targets.dim() == 1) {
    int64_t pos = 0;
    for (int64_t b = 0; b < N; ++b) {
      offsets[size_t(b)] = pos;
      pos += target_lengths[size_t(b)];
    }
    EMBER_CHECK_ARG(
        targets.size(0) == pos,
        "Expected tensor to have size {} at dimension 0, but got size {} for argument #2 'targets'{}", pos,
        targets.size(0), where_checked());
  } else {
    for (int64_t b = 0; b < N; ++b) offsets[size_t(b)] = b * targets.size(1);
    EMBER_CHECK_ARG(
        targets.size(0) == N,
        "Expected tensor to have size {} at dimension 0, but got size {} for argument #2 'targets'{}", N,
        targets.size(0), where_checked());
    EMBER_CHECK_ARG(targets.size(1) >= max_target,
                    "Expected tensor to have size at least {} at dimension 1, but got size {} for argument "
                    "#2 'targets'{}",
                    max_target, targets.size(1), where_checked());
  }
  for (int64_t b = 0; b < N; ++b) {
    EMBER_CHECK_ARG(input_lengths[size_t(b)] >= 0,
                    "Expected input_lengths to have value at least 0, but got value {}{}",
                    input_lengths[size_t(b)], where_checked());
    EMBER_CHECK_ARG(input_lengths[size_t(b)] <= T,
                    "Expected input_lengths to have value at most {}, but got value {}{}", T,
                    input_lengths[size_t(b)], where_checked());
  }

  // Extended labels (blank, l1, blank, l2, ..., blank), blank-padded to the longest; the
  // positions that may be reached from two back (a label unlike the one two back); the start
  // positions; and the two end positions of each sample.
  const int64_t L = 2 * max_target + 1;
  const int64_t* tg = targets.data_ptr<int64_t>();
  std::vector<int64_t> ext(size_t(N * L), blank), ends(size_t(N * 2), 0);
  std::vector<uint8_t> skip(size_t(N * L), 0), start(size_t(N * L), 0), end2(size_t(N * 2), 0),
      active(size_t(T * N), 0);
  for (int64_t b = 0; b < N; ++b) {
    const int64_t len = target_lengths[size_t(b)];
    for (int64_t t = 0; t < input_lengths[size_t(b)]; ++t) active[size_t(t * N + b)] = 1;
    for (int64_t s = 0; s < len; ++s) ext[size_t(b * L + 2 * s + 1)] = tg[offsets[size_t(b)] + s];
    for (int64_t s = 3; s < 2 * len + 1; s += 2)
      skip[size_t(b * L + s)] = ext[size_t(b * L + s)] != ext[size_t(b * L + s - 2)];
    start[size_t(b * L)] = 1;
    if (len > 0) start[size_t(b * L + 1)] = 1;
    ends[size_t(2 * b)] = 2 * len;
    ends[size_t(2 * b + 1)] = std::max<int64_t>(2 * len - 1, 0);
    end2[size_t(2 * b)] = 1;
    end2[size_t(2 * b + 1)] = len > 0;
  }
  const TensorOptions on = TensorOptions().device(log_probs.device());
  // Copies: autograd keeps the gather indices past this call.
  auto long_tensor = [&](std::vector<int64_t>& v, std::vector<int64_t> sizes) {
    return from_blob(v.data(), sizes, TensorOptions().dtype(kLong)).to(on.dtype(kLong), false, true);
  };
  auto bool_tensor = [&](std::vector<uint8_t>& v, std::vector<int64_t> sizes) {
    return from_blob(v.data(), sizes, TensorOptions().dtype(kUInt8)).to(on.dtype(kBool), false, true);
  };
  const Tensor ext_t = long_tensor(ext, {N, L});
  const Tensor skip_t = bool_tensor(skip, {N, L});
  const Tensor start_t = bool_tensor(start, {N, L});
  // Which samples are still running at each step: one copy to the device, not one per step.
  const Tensor active_t = bool_tensor(active, {T, N, 1});

  // lp[t, b, s]: the log-probability of sample b's extended label s at time t.
  const Tensor lp = log_probs.gather(2, ext_t.unsqueeze(0).expand({T, N, L}).contiguous());
  const Tensor ninf = full({N, 2}, kNegInf, log_probs.options());
  Tensor alpha = where(start_t, lp.select(0, 0), kNegInf);
  for (int64_t t = 1; t < T; ++t) {
    const Tensor a1 = cat({ninf.slice(1, 0, 1), alpha.slice(1, 0, L - 1)}, 1);
    Tensor a2 = L >= 3 ? cat({ninf, alpha.slice(1, 0, L - 2)}, 1) : ninf.slice(1, 0, L);
    a2 = where(skip_t, a2, kNegInf);
    const Tensor next = safe_logsumexp({alpha, a1, a2}) + lp.select(0, t);
    alpha = where(active_t.select(0, t), next, alpha);
  }
  const Tensor at_end = where(bool_tensor(end2, {N, 2}), alpha.gather(1, long_tensor(ends, {N, 2})), kNegInf);
  Tensor res = -safe_logsumexp({at_end.select(1, 0), at_end.select(1, 1)});
  if (zero_infinity) res = where(res == std::numeric_limits<double>::infinity(), 0.0, res);
  if (reduction == kMean) {
    std::vector<int64_t> lengths(target_lengths.begin(), target_lengths.end());
    const Tensor tl = long_tensor(lengths, {N}).to(res.dtype()).clamp_min(1);
    return (res / tl).mean();
  }
  if (reduction == kSum) return res.sum();
  return batched ? res : res.squeeze(0);
}

Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, Reduction reduction, bool zero_infinity) {
  EMBER_CHECK_ARG(input_lengths.defined() && target_lengths.defined(),
                  "ctc_loss: every input must be defined");
  EMBER_CHECK_ARG(is_integral(input_lengths.dtype(), false), "input_lengths must be integral");
  EMBER_CHECK_ARG(is_integral(target_lengths.dtype(), false), "target_lengths must be integral");
  const Tensor il = input_lengths.to(Device(kCPU), kLong).contiguous();
  const Tensor tl = target_lengths.to(Device(kCPU), kLong).contiguous();
  return ctc_loss(log_probs, targets, IntArrayRef(il.data_ptr<int64_t>(), size_t(il.numel())),
                  IntArrayRef(tl.data_ptr<int64_t>(), size_t(tl.numel())), blank, reduction, zero_infinity);
}

namespace nn {

Tensor functional::ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                            const Tensor& target_lengths, const CTCLossFuncOptions& options) {
  return ember::ctc_loss(log_probs, targets, input_lengths, target_lengths, options.blank(),
                         options.reduction(), options.zero_infinity());
}

Tensor CTCLossImpl::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                            const Tensor& target_lengths) {
  return functional::ctc_loss(log_probs, targets, input_lengths, target_lengths, options);
}

void CTCLossImpl::pretty_print(std::ostream& stream) const { stream << module_namespace() << "CTCLoss()"; }

}  // namespace nn
}  // namespace ember
