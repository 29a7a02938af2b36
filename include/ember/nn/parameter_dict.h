#pragma once
/// nn::ParameterDict: tensors registered as this module's parameters under their keys, in
/// insertion order (libtorch's torch::nn::ParameterDict). A tensor keeps its requires_grad.
///   nn::ParameterDict d;  d->insert("scale", ember::ones({1}));  d["scale"];

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/ordered_dict.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ParameterDictImpl : public Cloneable<ParameterDictImpl> {
 public:
  using Iterator = OrderedDict<std::string, Tensor>::Iterator;
  using ConstIterator = OrderedDict<std::string, Tensor>::ConstIterator;

  ParameterDictImpl() = default;
  explicit ParameterDictImpl(const OrderedDict<std::string, Tensor>& params);

  /// As ParameterList's clone(): works, where libtorch 1.13's throws.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;

  /// Registers param under key (keeping its requires_grad); InvalidArgument when key exists.
  Tensor& insert(std::string key, Tensor param);
  /// Removes key and returns its tensor (InvalidArgument when missing).
  Tensor pop(const std::string& key);
  std::vector<std::string> keys() const { return parameters_.keys(); }
  std::vector<Tensor> values() const { return parameters_.values(); }
  Iterator begin() { return parameters_.begin(); }
  ConstIterator begin() const { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator end() const { return parameters_.end(); }
  size_t size() const noexcept { return parameters_.size(); }
  bool empty() const noexcept { return parameters_.is_empty(); }
  /// Rebinds the existing keys to the items' tensors. As libtorch, a key not already here
  /// is an error ("Parameter 'k' is not defined"); use insert() to add one.
  template <class Container>
  void update(const Container& container) {
    for (const auto& item : container) parameters_[item.key()];  // check every key first
    for (const auto& item : container) parameters_[item.key()] = item.value();
  }
  void clear() { parameters_.clear(); }
  bool contains(const std::string& key) const noexcept { return parameters_.contains(key); }
  const Tensor& get(const std::string& key) const { return parameters_[key]; }
  Tensor& get(const std::string& key) { return parameters_[key]; }
  Tensor& operator[](const std::string& key) { return parameters_[key]; }
  const Tensor& operator[](const std::string& key) const { return parameters_[key]; }
};
EMBER_MODULE(ParameterDict);

}  // namespace ember::nn
