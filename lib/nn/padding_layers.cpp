// The padding modules: each forward is F::pad in the module's mode; printing as libtorch's.
#include <ostream>

#include "ember/nn/padding.h"

namespace ember::nn {

namespace detail {

Tensor pad_module_forward(const Tensor& input, IntArrayRef padding, PaddingMode mode, double value) {
  return functional::pad(input, functional::PadFuncOptions(padding.vec()).mode(mode).value(value));
}

void print_pad(std::ostream& stream, const char* name, IntArrayRef padding, std::optional<double> value) {
  stream << module_namespace() << name << "(padding=" << padding;
  if (value) stream << ", value=" << *value;
  stream << ")";
}

}  // namespace detail

Tensor ZeroPad2dImpl::forward(const Tensor& input) {
  return detail::pad_module_forward(input, options.padding(), kConstant, 0);
}

void ZeroPad2dImpl::pretty_print(std::ostream& stream) const {
  detail::print_pad(stream, "ZeroPad2d", options.padding());
}

}  // namespace ember::nn
