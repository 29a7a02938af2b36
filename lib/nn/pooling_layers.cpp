// The pooling modules: forwards through nn::functional, libtorch's printing, and
// FractionalMaxPool2d's option checks.
#include <ostream>
#include <sstream>
#include <utility>

#include "core/check.h"
#include "ember/nn/pooling.h"

namespace ember::nn {

Tensor MaxPool1dImpl::forward(const Tensor& input) { return functional::max_pool1d(input, options); }

std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool1d_with_indices(input, options);
}

void MaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "MaxPool1d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor MaxPool2dImpl::forward(const Tensor& input) { return functional::max_pool2d(input, options); }

std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool2d_with_indices(input, options);
}

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << module_namespace() << "MaxPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor AvgPool1dImpl::forward(const Tensor& input) { return functional::avg_pool1d(input, options); }

Tensor AvgPool2dImpl::forward(const Tensor& input) { return functional::avg_pool2d(input, options); }

Tensor AdaptiveAvgPool1dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool1d(input, options);
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool2d(input, options);
}

Tensor AdaptiveMaxPool1dImpl::forward(const Tensor& input) {
  return functional::adaptive_max_pool1d(input, options);
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool1d_with_indices(input, options);
}

Tensor AdaptiveMaxPool2dImpl::forward(const Tensor& input) {
  return functional::adaptive_max_pool2d(input, options);
}

std::tuple<Tensor, Tensor> AdaptiveMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::adaptive_max_pool2d_with_indices(input, options);
}

namespace {

// The functional options of a MaxUnpool module's call.
template <size_t D>
functional::MaxUnpoolFuncOptions<D> unpool_call(const MaxUnpoolOptions<D>& o,
                                                const std::optional<std::vector<int64_t>>& output_size) {
  return functional::MaxUnpoolFuncOptions<D>(o.kernel_size())
      .stride(o.stride())
      .padding(o.padding())
      .output_size(output_size);
}

}  // namespace

Tensor MaxUnpool1dImpl::forward(const Tensor& input, const Tensor& indices,
                                const std::optional<std::vector<int64_t>>& output_size) {
  return functional::max_unpool1d(input, indices, unpool_call(options, output_size));
}

Tensor MaxUnpool2dImpl::forward(const Tensor& input, const Tensor& indices,
                                const std::optional<std::vector<int64_t>>& output_size) {
  return functional::max_unpool2d(input, indices, unpool_call(options, output_size));
}

Tensor LPPool1dImpl::forward(const Tensor& input) { return functional::lp_pool1d(input, options); }

Tensor LPPool2dImpl::forward(const Tensor& input) { return functional::lp_pool2d(input, options); }

FractionalMaxPool2dImpl::FractionalMaxPool2dImpl(FractionalMaxPool2dOptions options)
    : options(std::move(options)) {
  reset();  // NOLINT(clang-analyzer-optin.cplusplus.VirtualCall): as libtorch's
}

void FractionalMaxPool2dImpl::reset() {
  _random_samples = register_buffer("_random_samples", options._random_samples());
  EMBER_CHECK_ARG(options.output_size() || options.output_ratio(),
                  "FractionalMaxPool2d requires specifying either an output size, or a pooling ratio");
  EMBER_CHECK_ARG(!(options.output_size() && options.output_ratio()),
                  "only one of output_size and output_ratio may be specified");
  if (options.output_ratio()) {
    const ArrayRef<double> ratio = *options.output_ratio();
    std::ostringstream got;
    got << ratio;
    EMBER_CHECK_ARG(0 < ratio[0] && ratio[0] < 1 && 0 < ratio[1] && ratio[1] < 1,
                    "output_ratio must be between 0 and 1 (got {})", got.str());
  }
}

Tensor FractionalMaxPool2dImpl::forward(const Tensor& input) {
  return std::get<0>(forward_with_indices(input));
}

std::tuple<Tensor, Tensor> FractionalMaxPool2dImpl::forward_with_indices(const Tensor& input) {
  functional::FractionalMaxPool2dFuncOptions o = options;
  o._random_samples(_random_samples);
  return functional::fractional_max_pool2d_with_indices(input, o);
}

void FractionalMaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "FractionalMaxPool2d()";
}

}  // namespace ember::nn
