#pragma once
/// nn::Functional: a module around a function of one Tensor, with any further arguments
/// bound (libtorch's torch::nn::Functional), so a free function can sit in a Sequential:
///   nn::Sequential s(nn::Linear(4, 3), nn::Functional(ember::relu), nn::Functional(ember::leaky_relu, 0.2));

#include <functional>
#include <ostream>
#include <type_traits>
#include <utility>

#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"

namespace ember::nn {

class EMBER_API FunctionalImpl : public Cloneable<FunctionalImpl> {
 public:
  using Function = std::function<Tensor(Tensor)>;

  explicit FunctionalImpl(Function function);
  /// Binds args after the input: forward(x) calls original_function(x, args...).
  template <class SomeFunction, class... Args, class = std::enable_if_t<(sizeof...(Args) > 0)>>
  explicit FunctionalImpl(SomeFunction original_function, Args&&... args)
      // std::bind moves the bound arguments in and copies them on each call, as libtorch's.
      : function_(std::bind(original_function, std::placeholders::_1, std::forward<Args>(args)...)) {}

  void reset() override {}
  void pretty_print(std::ostream& stream) const override;
  Tensor forward(Tensor input);
  Tensor operator()(Tensor input) { return forward(std::move(input)); }
  /// A function cannot be saved, so a parent's archive skips it.
  bool is_serializable() const override { return false; }

 private:
  Function function_;
};
EMBER_MODULE(Functional);

}  // namespace ember::nn
