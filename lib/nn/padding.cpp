// F::pad and constant_pad_nd as composite ops: constant padding is a fill plus a copy into
// the inner region (recorded as ConstantPadNdBackward0, whose gradient crops), the other
// modes an index_select per padded dim whose positions say where each output element
// comes from (its backward, index_add, sums the gradient of repeated border elements).
#include "ember/nn/padding.h"

#include <algorithm>
#include <sstream>
#include <string>

#include "autograd/node.h"
#include "core/check.h"
#include "ember/autograd.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;

const char* padding_mode_name(PaddingMode mode) {
  switch (mode) {
    case kZeros:
      return "kZeros";
    case kConstant:
      return "kConstant";
    case kReflect:
      return "kReflect";
    case kReplicate:
      return "kReplicate";
    case kCircular:
      return "kCircular";
    case kBorder:
      return "kBorder";
    case kReflection:
      return "kReflection";
  }
  return "?";
}

namespace {

Tensor pad_constant_no_grad(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  // libtorch's order of narrows and checks, so that its messages come out for bad pads.
  const int64_t l_inp = self.dim(), l_pad = int64_t(pad.size()) / 2, l_diff = l_inp - l_pad;
  Tensor c_input = self;
  bool all_non_positive = true;
  for (int64_t i = l_diff; i < l_inp; ++i) {
    const size_t p = size_t(2 * (l_inp - i - 1));
    if (pad[p] < 0) {
      const int64_t size = c_input.size(i);
      EMBER_CHECK_ARG(-pad[p] <= size,
                      "Dimension out of range (expected to be in range of [{}, {}], but got {})", -size,
                      size - 1, -pad[p]);
      c_input = c_input.narrow(i, -pad[p], c_input.size(i) + pad[p]);
    } else if (pad[p] != 0) {
      all_non_positive = false;
    }
    if (pad[p + 1] < 0) {
      EMBER_CHECK_ARG(c_input.size(i) + pad[p + 1] >= 0,
                      "start (0) + length ({}) exceeds dimension size ({}).", c_input.size(i) + pad[p + 1],
                      c_input.size(i));
      c_input = c_input.narrow(i, 0, c_input.size(i) + pad[p + 1]);
    } else if (pad[p + 1] != 0) {
      all_non_positive = false;
    }
  }
  if (all_non_positive) return c_input.clone();
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + l_diff);
  for (int64_t i = 0; i < l_pad; ++i) {
    const size_t p = pad.size() - size_t((i + 1) * 2);
    const int64_t in = self.size(l_diff + i), n = in + pad[p] + pad[p + 1];
    EMBER_CHECK_ARG(
        n > 0,
        "The input size {}, plus negative padding {} and {} resulted in a negative output size, which "
        "is invalid. Check dimension {} of your input.",
        in, pad[p], pad[p + 1], l_diff + i);
    shape.push_back(n);
  }
  Tensor out = full(shape, value, self.options());
  Tensor region = out;
  for (int64_t i = l_diff; i < l_inp; ++i) {
    const size_t p = size_t(2 * (l_inp - i - 1));
    if (pad[p] > 0) region = region.narrow(i, pad[p], region.size(i) - pad[p]);
    if (pad[p + 1] > 0) region = region.narrow(i, 0, region.size(i) - pad[p + 1]);
  }
  region.copy_(c_input);
  return out;
}

// Where output element j of a padded dim reads from (size: the input's size there).
std::vector<int64_t> source_positions(PaddingMode mode, int64_t size, int64_t l, int64_t r) {
  const int64_t n = std::max<int64_t>(size + l + r, 0);
  std::vector<int64_t> pos(size_t(n), 0);
  // Circular wraps around the cropped input, as libtorch's copies do.
  const int64_t lo = std::max<int64_t>(-l, 0), inner = size - lo - std::max<int64_t>(-r, 0);
  for (int64_t j = 0; j < n; ++j) {
    const int64_t s = j - l;
    int64_t& p = pos[size_t(j)];
    if (mode == kReflect) {
      p = s < 0 ? -s : (s >= size ? 2 * (size - 1) - s : s);
    } else if (mode == kReplicate) {
      p = std::clamp<int64_t>(s, 0, size - 1);
    } else {
      const int64_t k = (j - std::max<int64_t>(l, 0)) % inner;
      p = lo + (k < 0 ? k + inner : k);
    }
  }
  return pos;
}

std::string tensor_text(const Tensor& t) {
  std::ostringstream s;
  s << t;
  std::string text = s.str();
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// libtorch's checks of reflection_pad{1,2,3}d / replication_pad{1,2,3}d / _pad_circular.
void check_border_pad(const Tensor& x, IntArrayRef pad, PaddingMode mode) {
  const int64_t nd = int64_t(pad.size()) / 2, ndim = x.dim();
  const bool batched = ndim == nd + 2;
  std::vector<int64_t> in(static_cast<size_t>(nd)), out(static_cast<size_t>(nd));
  for (int64_t i = 0; i < nd; ++i) {  // i = 0: the last dim (W), 1: H, 2: D
    in[size_t(i)] = x.size(ndim - 1 - i);
    out[size_t(i)] = in[size_t(i)] + pad[size_t(2 * i)] + pad[size_t(2 * i + 1)];
  }
  if (mode == kCircular) {
    EMBER_CHECK_ARG(int64_t(pad.size()) + 4 == ndim * 2, "Invalid padding size, expected {} but got {}",
                    (ndim - 2) * 2, pad.size());
    for (int64_t i = 0; i < nd; ++i) {
      const int64_t l = pad[size_t(2 * i)], r = pad[size_t(2 * i + 1)], size = in[size_t(i)];
      EMBER_CHECK_ARG(l <= size && r <= size, "Padding value causes wrapping around more than once.");
      EMBER_CHECK_ARG(out[size_t(i)] >= 0, "Negative padding value is resulting in an empty dimension");
      const int64_t inner = size - std::max<int64_t>(-l, 0) - std::max<int64_t>(-r, 0);
      EMBER_CHECK_ARG(inner > 0 || out[size_t(i)] == 0,
                      "Padding value causes wrapping around more than once.");
    }
    return;
  }
  bool valid = true;  // a batch may be empty, no other dim
  for (int64_t d = batched ? 1 : 0; d < ndim; ++d) valid = valid && x.size(d) != 0;
  if (mode == kReflect && nd < 3) {
    // reflection_pad1d lets a 2-D input's first dim be empty; 2d checks dims 1.. only.
    bool ok = nd == 1 ? (ndim == 2 && x.size(1) != 0) || (ndim == 3 && x.size(1) != 0 && x.size(2) != 0)
                      : x.size(1) != 0 && x.size(2) != 0 && (ndim == 3 || x.size(3) != 0);
    EMBER_CHECK_ARG(ok, "{}D or {}D (batch mode) tensor expected for input, but got: {}", nd + 1, nd + 2,
                    tensor_text(x));
  } else {
    EMBER_CHECK_ARG(valid,
                    "Expected {}D or {}D (batch mode) tensor with possibly 0 batch size and other non-zero "
                    "dimensions for input, but got: {}",
                    nd + 1, nd + 2, shape_str(x.sizes()));
  }
  if (mode == kReflect) {
    for (int64_t i = 0; i < nd; ++i) {
      const int64_t l = pad[size_t(2 * i)], r = pad[size_t(2 * i + 1)];
      if (l < in[size_t(i)] && r < in[size_t(i)]) continue;
      const std::string of = nd == 2 ? std::to_string(ndim) : shape_str(x.sizes());
      EMBER_THROW(
          InvalidArgument,
          "Argument #{}: Padding size should be less than the corresponding input dimension, but got: "
          "padding ({}, {}) at dimension {} of input {}",
          4 + 2 * i, l, r, ndim - 1 - i, of);
    }
  }
  const bool any_positive = std::any_of(out.begin(), out.end(), [](int64_t o) { return o >= 1; });
  if (nd == 1)
    EMBER_CHECK_ARG(out[0] >= 1, "input (W: {}) is too small. Calculated output W: {}", in[0], out[0]);
  else if (nd == 2)
    EMBER_CHECK_ARG(any_positive, "input (H: {}, W: {}) is too small. Calculated output H: {} W: {}", in[1],
                    in[0], out[1], out[0]);
  else
    EMBER_CHECK_ARG(any_positive,
                    "input (D: {} H: {}, W: {}) is too small. Calculated output D: {} H: {} W: {}", in[2],
                    in[1], in[0], out[2], out[1], out[0]);
}

const char* mode_string(PaddingMode mode) {
  switch (mode) {
    case kReflect:
      return "reflect";
    case kReplicate:
      return "replicate";
    case kCircular:
      return "circular";
    default:
      return "constant";
  }
}

}  // namespace

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  EMBER_CHECK_ARG(self.defined(), "constant_pad_nd: undefined input tensor");
  EMBER_CHECK_ARG(pad.size() % 2 == 0, "Length of pad must be even but instead it equals {}", pad.size());
  EMBER_CHECK_ARG(
      self.dim() >= int64_t(pad.size() / 2),
      "Length of pad should be no more than twice the number of dimensions of the input. Pad length "
      "is {}while the input has {}dimensions.",
      pad.size(), self.dim());
  Tensor out;
  {
    NoGradGuard no_grad;
    out = pad_constant_no_grad(self, pad, value);
  }
  if (!(GradMode::is_enabled() && self.requires_grad())) return out;
  std::vector<int64_t> undo(pad.begin(), pad.end());
  for (int64_t& p : undo) p = -p;
  autograd::record("ConstantPadNdBackward0", {&self}, {&out},
                   [undo](autograd::FormulaNode&, autograd::variable_list& g) -> autograd::variable_list {
                     return {constant_pad_nd(g[0], undo, 0)};
                   });
  return out;
}

namespace nn::functional {

Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  EMBER_CHECK_ARG(input.defined(), "pad: undefined input tensor");
  const std::vector<int64_t>& p = options.pad();
  const PaddingMode mode = options.mode();
  EMBER_CHECK_ARG(mode == kConstant || mode == kReflect || mode == kReplicate || mode == kCircular,
                  "pad: mode must be kConstant, kReflect, kReplicate or kCircular, got {}",
                  padding_mode_name(mode));
  EMBER_CHECK_ARG(p.size() % 2 == 0, "Padding length must be divisible by 2");
  EMBER_CHECK_ARG(int64_t(p.size()) <= input.dim() * 2, "Padding length too large");
  if (mode == kConstant) return constant_pad_nd(input, p, options.value());
  EMBER_CHECK_ARG(options.value() == 0, "Padding mode \"{}\" doesn't take in value argument",
                  mode_string(mode));
  const int64_t nd = int64_t(p.size()) / 2, ndim = input.dim();
  EMBER_CHECK_TYPED(nd >= 1 && nd <= 3 && (ndim == nd + 1 || ndim == nd + 2), NotImplemented,
                    "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now");
  check_border_pad(input, p, mode);
  Tensor out = input;
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t dim = ndim - 1 - i;
    const std::vector<int64_t> pos =
        source_positions(mode, input.size(dim), p[size_t(2 * i)], p[size_t(2 * i + 1)]);
    out = out.index_select(dim, tensor(pos).to(input.device()));
  }
  return out;
}

}  // namespace nn::functional
}  // namespace ember
