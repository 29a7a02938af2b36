// Conv1d and Conv2d modules: libtorch's parameter shapes, initialisation order (weight,
// then bias, from the default generator), padding modes through F::pad, and printing.
#include <cmath>
#include <ostream>
#include <vector>

#include "core/check.h"
#include "ember/nn/conv.h"
#include "ember/nn/init.h"
#include "ember/ops.h"

namespace ember::nn {

namespace {

template <size_t D>
void check_options(const ConvOptions<D>& o) {
  EMBER_CHECK_ARG(o.groups() > 0, "non-positive groups is not supported");
  EMBER_CHECK_ARG(o.in_channels() % o.groups() == 0, "in_channels must be divisible by groups");
  EMBER_CHECK_ARG(o.out_channels() % o.groups() == 0, "out_channels must be divisible by groups");
  if (o.padding().kind() == kSame)
    for (int64_t s : *o.stride())
      EMBER_CHECK_ARG(s == 1, "padding='same' is not supported for strided convolutions");
}

// Registers weight (C_out, C_in / groups, kernel...) and bias, then initialises them.
template <size_t D>
void reset_conv(Module& m, const ConvOptions<D>& o, Tensor& weight, Tensor& bias) {
  check_options(o);
  std::vector<int64_t> shape = {o.out_channels(), o.in_channels() / o.groups()};
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
std::vector<int64_t> border_padding(const ConvOptions<D>& o) {
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
Tensor forward_conv(const ConvOptions<D>& o, const Tensor& input, const Tensor& weight, const Tensor& bias,
                    Conv conv) {
  functional::ConvFuncOptions<D> f;
  f.bias(bias).stride(o.stride()).dilation(o.dilation()).groups(o.groups());
  if (o.padding_mode() == kZeros) return conv(input, weight, f.padding(o.padding()));
  const Tensor padded =
      functional::pad(input, functional::PadFuncOptions(border_padding(o)).mode(o.padding_mode()));
  return conv(padded, weight, f.padding(0));
}

template <size_t D>
void print_conv(std::ostream& stream, const ConvOptions<D>& o) {
  stream << "ember::nn::Conv" << D << "d(" << o.in_channels() << ", " << o.out_channels()
         << ", kernel_size=" << o.kernel_size() << ", stride=" << o.stride();
  if (auto kind = o.padding().kind())
    stream << (kind == kSame ? ", padding='same'" : ", padding='valid'");
  else if (*o.padding().sizes() != *ExpandingArray<D>(0))
    stream << ", padding=" << o.padding().sizes();
  if (*o.dilation() != *ExpandingArray<D>(1)) stream << ", dilation=" << o.dilation();
  if (o.groups() != 1) stream << ", groups=" << o.groups();
  if (!o.bias()) stream << ", bias=false";
  if (o.padding_mode() != kZeros) stream << ", padding_mode=" << padding_mode_name(o.padding_mode());
  stream << ")";
}

}  // namespace

Conv1dImpl::Conv1dImpl(Conv1dOptions options_) : options(std::move(options_)) { reset(); }

void Conv1dImpl::reset() {
  reset_conv(*this, options, weight, bias);
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

Conv2dImpl::Conv2dImpl(Conv2dOptions options_) : options(std::move(options_)) { reset(); }

void Conv2dImpl::reset() {
  reset_conv(*this, options, weight, bias);
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

}  // namespace ember::nn
