#pragma once
/// The module containers (libtorch's nn/modules/container/): Sequential, ModuleList,
/// ModuleDict, ParameterList, ParameterDict, Functional and AnyModule.

#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/any_module.h"
#include "ember/nn/functional_module.h"
#include "ember/nn/module_dict.h"
#include "ember/nn/module_list.h"
#include "ember/nn/parameter_dict.h"
#include "ember/nn/parameter_list.h"
#include "ember/nn/pimpl.h"
#include "ember/nn/sequential.h"

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

}  // namespace ember::nn
