// ParameterList and ParameterDict: registration, copies and libtorch's printed form.
#include <ostream>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/nn/parameter_dict.h"
#include "ember/nn/parameter_list.h"

namespace ember::nn {

namespace {

// A new leaf with t's values (on device when given) and requires_grad, no gradient.
Tensor copy_parameter(const Tensor& t, const std::optional<Device>& device) {
  if (!t.defined()) return t;
  NoGradGuard no_grad;
  Tensor r = device && t.device() != *device ? t.to(*device, false, true) : t.clone();
  return r.requires_grad_(t.requires_grad());
}

// "(0): Parameter containing: [Float of size [2, 3]]", one line per entry, as libtorch.
void print_parameters(std::ostream& stream, const char* name, const OrderedDict<std::string, Tensor>& params) {
  stream << module_namespace() << name << "(" << std::endl;
  for (const auto& p : params) {
    stream << "(" << p.key() << "): Parameter containing: [" << ember::detail::torch_name(p.value().dtype())
           << " of size " << p.value().sizes() << "]" << std::endl;
  }
  stream << ")";
}

}  // namespace

// ---- ParameterList

std::shared_ptr<Module> ParameterListImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterListImpl>();
  for (const auto& p : parameters_) copy->append(copy_parameter(p.value(), device));
  return copy;
}

void ParameterListImpl::pretty_print(std::ostream& stream) const {
  print_parameters(stream, "ParameterList", parameters_);
}

void ParameterListImpl::append(const Tensor& param) {
  EMBER_CHECK_ARG(param.defined(), "ParameterList::append: parameter {} is an undefined tensor", parameters_.size());
  register_parameter(std::to_string(parameters_.size()), param, param.requires_grad());
}

Tensor& ParameterListImpl::at(size_t idx) {
  if (idx >= parameters_.size()) detail::throw_index_out_of_range(idx, parameters_.size(), "parameters");
  return parameters_[idx].value();
}

// ---- ParameterDict

ParameterDictImpl::ParameterDictImpl(const OrderedDict<std::string, Tensor>& params) {
  for (const auto& p : params) insert(p.key(), p.value());
}

std::shared_ptr<Module> ParameterDictImpl::clone(const std::optional<Device>& device) const {
  auto copy = std::make_shared<ParameterDictImpl>();
  for (const auto& p : parameters_) copy->insert(p.key(), copy_parameter(p.value(), device));
  return copy;
}

void ParameterDictImpl::pretty_print(std::ostream& stream) const {
  print_parameters(stream, "ParameterDict", parameters_);
}

Tensor& ParameterDictImpl::insert(std::string key, Tensor param) {
  EMBER_CHECK_ARG(param.defined(), "ParameterDict::insert: parameter '{}' is an undefined tensor", key);
  const bool requires_grad = param.requires_grad();
  return register_parameter(std::move(key), std::move(param), requires_grad);
}

Tensor ParameterDictImpl::pop(const std::string& key) {
  Tensor v = parameters_[key];
  parameters_.erase(key);
  return v;
}

}  // namespace ember::nn
