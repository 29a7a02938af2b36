#pragma once
/// Sequential and ModuleList (libtorch's containers). Children are named "0", "1", ...
/// Sequential chains modules whose forward takes and returns one Tensor.

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/pimpl.h"

namespace ember::nn {

namespace detail {
template <class M, class = void>
struct has_unary_forward : std::false_type {};
template <class M>
struct has_unary_forward<M, std::void_t<decltype(std::declval<Tensor&>() = std::declval<M&>().forward(
                                                     std::declval<const Tensor&>()))>> : std::true_type {};
template <class T>
struct impl_of {
  using type = T;
};
template <class T>
struct impl_of<std::shared_ptr<T>> {
  using type = T;
};
}  // namespace detail

class EMBER_API ModuleListImpl : public Module {
 public:
  ModuleListImpl() = default;
  template <class... Ms>
  explicit ModuleListImpl(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  template <class M>
  void push_back(std::shared_ptr<M> module) {
    append(std::move(module));
  }
  template <class M>
  void push_back(ModuleHolder<M> holder) {
    append(holder.ptr());
  }
  /// The i-th module (InvalidArgument past the end).
  std::shared_ptr<Module> ptr(size_t index) const;
  std::shared_ptr<Module> operator[](size_t index) const { return ptr(index); }
  template <class M>
  M& at(size_t index) const {
    auto* m = dynamic_cast<M*>(ptr(index).get());
    if (!m)
      throw InvalidArgument("ModuleList::at: the module at index " + std::to_string(index) +
                            " is not of the requested type");
    return *m;
  }
  size_t size() const noexcept { return modules_.size(); }
  bool is_empty() const noexcept { return modules_.empty(); }
  auto begin() const { return modules_.begin(); }
  auto end() const { return modules_.end(); }
  void pretty_print(std::ostream& stream) const override;

 protected:
  void append(std::shared_ptr<Module> module);
  std::vector<std::shared_ptr<Module>> modules_;
};
EMBER_MODULE(ModuleList);

class EMBER_API SequentialImpl : public ModuleListImpl {
 public:
  SequentialImpl() = default;
  template <class... Ms>
  explicit SequentialImpl(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  template <class M>
  void push_back(std::shared_ptr<M> module) {
    static_assert(detail::has_unary_forward<M>::value,
                  "Sequential holds modules with a forward(const Tensor&) that returns a Tensor");
    forwards_.push_back([m = module.get()](const Tensor& x) -> Tensor { return m->forward(x); });
    append(std::move(module));
  }
  template <class M>
  void push_back(ModuleHolder<M> holder) {
    push_back(holder.ptr());
  }
  /// Runs every module in order; InvalidArgument when empty.
  Tensor forward(const Tensor& input);
  void pretty_print(std::ostream& stream) const override;

 private:
  std::vector<std::function<Tensor(const Tensor&)>> forwards_;
};
EMBER_MODULE(Sequential);

}  // namespace ember::nn
