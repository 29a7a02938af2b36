// ModuleList and Sequential.
#include "ember/nn/container.h"

#include "core/check.h"

namespace ember::nn {

void ModuleListImpl::append(std::shared_ptr<Module> module) {
  register_module(std::to_string(modules_.size()), module);
  modules_.push_back(std::move(module));
}

std::shared_ptr<Module> ModuleListImpl::ptr(size_t index) const {
  EMBER_CHECK_ARG(index < modules_.size(), "Index out of range: {} for a container of {} modules", index,
                  modules_.size());
  return modules_[index];
}

void ModuleListImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::ModuleList"; }

Tensor SequentialImpl::forward(const Tensor& input) {
  EMBER_CHECK_ARG(!forwards_.empty(), "Cannot call forward() on an empty Sequential");
  Tensor x = forwards_.front()(input);
  for (size_t i = 1; i < forwards_.size(); ++i) x = forwards_[i](x);
  return x;
}

void SequentialImpl::pretty_print(std::ostream& stream) const { stream << "ember::nn::Sequential"; }

}  // namespace ember::nn
