// The pooling modules: forwards through nn::functional, and libtorch's printing.
#include <ostream>

#include "ember/nn/pooling.h"

namespace ember::nn {

Tensor MaxPool1dImpl::forward(const Tensor& input) { return functional::max_pool1d(input, options); }

std::tuple<Tensor, Tensor> MaxPool1dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool1d_with_indices(input, options);
}

void MaxPool1dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::MaxPool1d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor MaxPool2dImpl::forward(const Tensor& input) { return functional::max_pool2d(input, options); }

std::tuple<Tensor, Tensor> MaxPool2dImpl::forward_with_indices(const Tensor& input) {
  return functional::max_pool2d_with_indices(input, options);
}

void MaxPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << std::boolalpha << "ember::nn::MaxPool2d(kernel_size=" << options.kernel_size()
         << ", stride=" << options.stride() << ", padding=" << options.padding()
         << ", dilation=" << options.dilation() << ", ceil_mode=" << options.ceil_mode() << ")";
}

Tensor AvgPool2dImpl::forward(const Tensor& input) { return functional::avg_pool2d(input, options); }

void AvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AvgPool2d(kernel_size=" << options.kernel_size() << ", stride=" << options.stride()
         << ", padding=" << options.padding() << ")";
}

Tensor AdaptiveAvgPool2dImpl::forward(const Tensor& input) {
  return functional::adaptive_avg_pool2d(input, options);
}

void AdaptiveAvgPool2dImpl::pretty_print(std::ostream& stream) const {
  stream << "ember::nn::AdaptiveAvgPool2d(output_size=" << options.output_size() << ")";
}

}  // namespace ember::nn
