#pragma once
/// nn::Cloneable<Derived>: gives a module clone(), a deep copy (libtorch's torch::nn::Cloneable).
/// Derived must (re)create its parameters, buffers and submodules in reset(), which its
/// constructor calls: clone() copy-constructs Derived, clears what the copy registered,
/// calls reset() and then copies every tensor's data into the fresh ones.

#include <memory>
#include <optional>

#include "ember/autograd.h"
#include "ember/nn/module.h"

namespace ember::nn {

template <class Derived>
class Cloneable : public virtual Module {
 public:
  using Module::Module;

  /// (Re)creates the parameters, buffers and submodules (with fresh initial values).
  virtual void reset() = 0;

  /// A copy whose parameters and buffers are new tensors (same values, requires_grad,
  /// no gradient), onto `device` when given, and whose submodules are cloned in turn.
  std::shared_ptr<Module> clone(const std::optional<Device>& device = std::nullopt) const override {
    NoGradGuard no_grad;
    auto copy = std::make_shared<Derived>(static_cast<const Derived&>(*this));
    copy->parameters_.clear();
    copy->buffers_.clear();
    copy->children_.clear();
    copy->reset();
    copy_state_into(*copy, device);
    return copy;
  }

 private:
  void clone_(Module& other, const std::optional<Device>& device) final {
    auto clone = std::dynamic_pointer_cast<Derived>(other.clone(device));
    if (!clone)
      throw InvalidArgument(
          "Attempted to clone submodule, but it is of a different type than the submodule it was to be cloned "
          "into");
    static_cast<Derived&>(*this) = std::move(*clone);
  }
};

}  // namespace ember::nn
