// Conv1d / 2d / 3d and ConvTranspose1d / 2d / 3d modules: libtorch's parameter
// shapes, initialisation order (weight, then bias, from the default generator), padding
// modes through F::pad, the transposed output_size rule, and printing.
#include <fmt/ranges.h>

#include <cmath>
#include <ostream>
#include <vector>

#include "core/check.h"
#include "ember/nn/conv.h"
#include "ember/nn/conv_transpose.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn {

namespace {

template <class Options>
void check_channels(const Options& o) {
  EMBER_CHECK_ARG(o.groups() > 0, "non-positive groups is not supported");
  EMBER_CHECK_ARG(o.in_channels() % o.groups() == 0, "in_channels must be divisible by groups");
  EMBER_CHECK_ARG(o.out_channels() % o.groups() == 0, "out_channels must be divisible by groups");
}

// libtorch's Conv and ConvTranspose modules keep their options as detail::ConvNdOptions,
// transposed for the latter.
template <size_t D>
detail::ConvNdOptions<D> nd_options(const ConvOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(false)
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

template <size_t D>
detail::ConvNdOptions<D> nd_options(const ConvTransposeOptions<D>& o) {
  return detail::ConvNdOptions<D>(o.in_channels(), o.out_channels(), o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .dilation(o.dilation())
      .transposed(true)
      .output_padding(o.output_padding())
      .groups(o.groups())
      .bias(o.bias())
      .padding_mode(o.padding_mode());
}

template <size_t D>
void check_options(const detail::ConvNdOptions<D>& o) {
  check_channels(o);
  const PaddingMode mode = o.padding_mode();
  EMBER_CHECK_ARG(mode == kZeros || mode == kReflect || mode == kReplicate || mode == kCircular,
                  "padding_mode must be kZeros, kReflect, kReplicate or kCircular, got {}",
                  padding_mode_name(mode));
  if (o.padding().kind() == kSame)
    for (int64_t s : *o.stride())
      EMBER_CHECK_ARG(s == 1, "padding='same' is not supported for strided convolutions");
}

// Registers weight (C_out, C_in / groups, kernel...), or (C_in, C_out / groups, kernel...)
// when transposed, and bias.
template <class Options>
void reset_conv(Module& m, const Options& o, Tensor& weight, Tensor& bias, bool transposed = false) {
  check_options(o);
  std::vector<int64_t> shape = transposed
                                   ? std::vector<int64_t>{o.in_channels(), o.out_channels() / o.groups()}
                                   : std::vector<int64_t>{o.out_channels(), o.in_channels() / o.groups()};
  shape.insert(shape.end(), o.kernel_size()->begin(), o.kernel_size()->end());
  weight = m.register_parameter("weight", ember::empty(shape));
  bias = o.bias() ? m.register_parameter("bias", ember::empty({o.out_channels()}))
                  : m.register_parameter("bias", Tensor(), false);
}

void init_conv(Tensor& weight, Tensor& bias) {
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (!bias.defined()) return;
  double fan_in = double(weight.size(1));
  for (int64_t d = 2; d < weight.dim(); ++d) fan_in *= double(weight.size(d));
  const double bound = 1 / std::sqrt(fan_in);
  init::uniform_(bias, -bound, bound);
}

// F::pad's sizes for a padding_mode other than zeros: last dim first, (left, right) each.
template <size_t D>
std::vector<int64_t> border_padding(const detail::ConvNdOptions<D>& o) {
  std::vector<int64_t> pad;
  for (size_t i = D; i-- > 0;) {
    int64_t left = (*o.padding().sizes())[i], right = left;
    if (auto kind = o.padding().kind()) {
      const int64_t total = kind == kSame ? (*o.dilation())[i] * ((*o.kernel_size())[i] - 1) : 0;
      left = total / 2;
      right = total - left;
    }
    pad.push_back(left);
    pad.push_back(right);
  }
  return pad;
}

template <size_t D, class Conv>
Tensor forward_conv(const detail::ConvNdOptions<D>& o, const Tensor& input, const Tensor& weight,
                    const Tensor& bias, Conv conv) {
  functional::ConvFuncOptions<D> f;
  f.bias(bias).stride(o.stride()).dilation(o.dilation()).groups(o.groups());
  if (o.padding_mode() == kZeros) return conv(input, weight, f.padding(o.padding()));
  const Tensor padded =
      functional::pad(input, functional::PadFuncOptions(border_padding(o)).mode(o.padding_mode()));
  return conv(padded, weight, f.padding(0));
}

template <size_t D>
void print_conv(std::ostream& stream, const detail::ConvNdOptions<D>& o) {
  stream << module_namespace() << "Conv" << D << "d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (auto kind = o.padding().kind())
    stream << (kind == kSame ? ", padding='same'" : ", padding='valid'");
  else if (*o.padding().sizes() != *ExpandingArray<D>(0))
    stream << ", padding=" << o.padding().sizes();
  if (*o.dilation() != *ExpandingArray<D>(1)) stream << ", dilation=" << o.dilation();
  if (*o.output_padding() != *ExpandingArray<D>(0)) stream << ", output_padding=" << o.output_padding();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  if (o.padding_mode() != kZeros) stream << ", padding_mode=" << padding_mode_name(o.padding_mode());
  stream << ")";
}

// libtorch's _output_padding: the given one, or the one that makes the output output_size
// (its spatial sizes, or with N and C in front).
template <size_t D>
std::vector<int64_t> transposed_output_padding(const detail::ConvNdOptions<D>& o, const Tensor& input,
                                               const std::optional<IntArrayRef>& output_size) {
  if (!output_size) return std::vector<int64_t>(o.output_padding()->begin(), o.output_padding()->end());
  const int64_t k = input.dim() - 2;
  IntArrayRef sizes = *output_size;
  if (int64_t(sizes.size()) == k + 2) sizes = IntArrayRef(sizes.data() + 2, size_t(k));
  EMBER_CHECK_ARG(int64_t(sizes.size()) == k, "output_size must have {} or {} elements (got {})", k, k + 2,
                  output_size->size());
  std::vector<int64_t> min_sizes, max_sizes, padding;
  for (int64_t d = 0; d < k; ++d) {
    const size_t i = size_t(d);
    const int64_t min = (input.size(d + 2) - 1) * (*o.stride())[i] - 2 * (*o.padding().sizes())[i] +
                        (*o.dilation())[i] * ((*o.kernel_size())[i] - 1) + 1;
    min_sizes.push_back(min);
    max_sizes.push_back(min + (*o.stride())[i] - 1);
  }
  bool fits = true;
  for (size_t i = 0; i < size_t(k); ++i) fits = fits && sizes[i] >= min_sizes[i] && sizes[i] <= max_sizes[i];
  using ember::detail::shape_str;
  EMBER_CHECK_ARG(fits,
                  "requested an output size of {}, but valid sizes range from {} to {} (for an input of {})",
                  shape_str(sizes), fmt::join(min_sizes, " "), fmt::join(max_sizes, " "),
                  shape_str(IntArrayRef(input.sizes().data() + 2, size_t(k))));
  for (size_t i = 0; i < size_t(k); ++i) padding.push_back(sizes[i] - min_sizes[i]);
  return padding;
}

template <size_t D, class Conv>
Tensor forward_conv_transpose(const detail::ConvNdOptions<D>& o, const char* name, const Tensor& input,
                              const Tensor& weight, const Tensor& bias,
                              const std::optional<IntArrayRef>& output_size, Conv conv) {
  EMBER_CHECK_ARG(o.padding_mode() == kZeros, "Only `zeros` padding mode is supported for {}", name);
  EMBER_CHECK_ARG(input.defined(), "{}: the input is an undefined tensor", name);
  const std::vector<int64_t> output_padding = transposed_output_padding(o, input, output_size);
  return conv(input, weight, bias, *o.stride(), *o.padding().sizes(), output_padding, o.groups(),
              *o.dilation());
}

template <size_t D>
void print_conv_transpose(std::ostream& stream, const detail::ConvNdOptions<D>& o) {
  stream << module_namespace() << "ConvTranspose" << D << "d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (*o.padding().sizes() != *ExpandingArray<D>(0)) stream << ", padding=" << o.padding().sizes();
  if (*o.dilation() != *ExpandingArray<D>(1)) stream << ", dilation=" << o.dilation();
  if (*o.output_padding() != *ExpandingArray<D>(0)) stream << ", output_padding=" << o.output_padding();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  if (o.padding_mode() != kZeros) stream << ", padding_mode=" << padding_mode_name(o.padding_mode());
  stream << ")";
}

}  // namespace

Conv1dImpl::Conv1dImpl(Conv1dOptions options_) : options(nd_options(options_)) { reset(); }

void Conv1dImpl::reset() {
  reset_conv(*this, options, weight, bias, options.transposed());
  reset_parameters();
}

void Conv1dImpl::reset_parameters() { init_conv(weight, bias); }

Tensor Conv1dImpl::forward(const Tensor& input) {
  return forward_conv(options, input, weight, bias,
                      [](const Tensor& x, const Tensor& w, const functional::Conv1dFuncOptions& f) {
                        return functional::conv1d(x, w, f);
                      });
}

void Conv1dImpl::pretty_print(std::ostream& stream) const { print_conv(stream, options); }

Conv2dImpl::Conv2dImpl(Conv2dOptions options_) : options(nd_options(options_)) { reset(); }

void Conv2dImpl::reset() {
  reset_conv(*this, options, weight, bias, options.transposed());
  reset_parameters();
}

void Conv2dImpl::reset_parameters() { init_conv(weight, bias); }

Tensor Conv2dImpl::forward(const Tensor& input) {
  return forward_conv(options, input, weight, bias,
                      [](const Tensor& x, const Tensor& w, const functional::Conv2dFuncOptions& f) {
                        return functional::conv2d(x, w, f);
                      });
}

void Conv2dImpl::pretty_print(std::ostream& stream) const { print_conv(stream, options); }

Conv3dImpl::Conv3dImpl(Conv3dOptions options_) : options(nd_options(options_)) { reset(); }

void Conv3dImpl::reset() {
  reset_conv(*this, options, weight, bias, options.transposed());
  reset_parameters();
}

void Conv3dImpl::reset_parameters() { init_conv(weight, bias); }

Tensor Conv3dImpl::forward(const Tensor& input) {
  return forward_conv(options, input, weight, bias,
                      [](const Tensor& x, const Tensor& w, const functional::Conv3dFuncOptions& f) {
                        return functional::conv3d(x, w, f);
                      });
}

void Conv3dImpl::pretty_print(std::ostream& stream) const { print_conv(stream, options); }

ConvTranspose1dImpl::ConvTranspose1dImpl(ConvTranspose1dOptions options_) : options(nd_options(options_)) {
  reset();
}

void ConvTranspose1dImpl::reset() {
  reset_conv(*this, options, weight, bias, options.transposed());
  reset_parameters();
}

void ConvTranspose1dImpl::reset_parameters() { init_conv(weight, bias); }

Tensor ConvTranspose1dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  return forward_conv_transpose(options, "ConvTranspose1d", input, weight, bias, output_size,
                                [](auto&&... args) { return ember::conv_transpose1d(args...); });
}

void ConvTranspose1dImpl::pretty_print(std::ostream& stream) const { print_conv_transpose(stream, options); }

ConvTranspose2dImpl::ConvTranspose2dImpl(ConvTranspose2dOptions options_) : options(nd_options(options_)) {
  reset();
}

void ConvTranspose2dImpl::reset() {
  reset_conv(*this, options, weight, bias, options.transposed());
  reset_parameters();
}

void ConvTranspose2dImpl::reset_parameters() { init_conv(weight, bias); }

Tensor ConvTranspose2dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  return forward_conv_transpose(options, "ConvTranspose2d", input, weight, bias, output_size,
                                [](auto&&... args) { return ember::conv_transpose2d(args...); });
}

void ConvTranspose2dImpl::pretty_print(std::ostream& stream) const { print_conv_transpose(stream, options); }

ConvTranspose3dImpl::ConvTranspose3dImpl(ConvTranspose3dOptions options_) : options(nd_options(options_)) {
  reset();
}

void ConvTranspose3dImpl::reset() {
  reset_conv(*this, options, weight, bias, options.transposed());
  reset_parameters();
}

void ConvTranspose3dImpl::reset_parameters() { init_conv(weight, bias); }

Tensor ConvTranspose3dImpl::forward(const Tensor& input, const std::optional<IntArrayRef>& output_size) {
  return forward_conv_transpose(options, "ConvTranspose3d", input, weight, bias, output_size,
                                [](auto&&... args) { return ember::conv_transpose3d(args...); });
}

void ConvTranspose3dImpl::pretty_print(std::ostream& stream) const { print_conv_transpose(stream, options); }

}  // namespace ember::nn
