#pragma once
/// nn::ParameterList: tensors registered as this module's parameters "0", "1", ...
/// (libtorch's torch::nn::ParameterList). A tensor keeps its requires_grad; the entries are
/// the registered parameters themselves.
///   nn::ParameterList params(ember::randn({3}, TensorOptions().requires_grad(true)));
///   params->append(ember::zeros({2}));   params[0];   for (auto& p : *params) p.value();

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/cloneable.h"
#include "ember/nn/module_list.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API ParameterListImpl : public Cloneable<ParameterListImpl> {
 public:
  using Iterator = std::vector<OrderedDict<std::string, Tensor>::Item>::iterator;
  using ConstIterator = std::vector<OrderedDict<std::string, Tensor>::Item>::const_iterator;

  ParameterListImpl() = default;
  template <class... Tensors,
            class = std::enable_if_t<(!std::is_base_of_v<ParameterListImpl, std::decay_t<Tensors>> && ...)>>
  explicit ParameterListImpl(Tensors&&... params) {
    parameters_.reserve(sizeof...(Tensors));
    (append(std::forward<Tensors>(params)), ...);
  }

  /// Copies every parameter (same values and requires_grad, no gradient), onto device when
  /// given. (libtorch 1.13's clone() of a ParameterList throws; this one works.)
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override;
  void reset() override {}
  void pretty_print(std::ostream& stream) const override;

  void append(const Tensor& param);
  void append(const OrderedDict<std::string, Tensor>::Item& pair) { append(pair.value()); }
  /// Appends every tensor (or OrderedDict item) of a container.
  template <class Container>
  void extend(const Container& container) {
    for (const auto& param : container) append(param);
  }
  template <class Container>
  ParameterListImpl& operator+=(const Container& other) {
    extend(other);
    return *this;
  }

  Iterator begin() { return parameters_.begin(); }
  ConstIterator begin() const { return parameters_.begin(); }
  Iterator end() { return parameters_.end(); }
  ConstIterator end() const { return parameters_.end(); }
  /// The idx-th parameter (InvalidArgument past the end).
  Tensor& at(size_t idx);
  const Tensor& at(size_t idx) const { return const_cast<ParameterListImpl*>(this)->at(idx); }
  Tensor& operator[](size_t idx) { return at(idx); }
  const Tensor& operator[](size_t idx) const { return at(idx); }
  size_t size() const noexcept { return parameters_.size(); }
  bool is_empty() const noexcept { return parameters_.is_empty(); }
};
EMBER_MODULE(ParameterList);

}  // namespace ember::nn
