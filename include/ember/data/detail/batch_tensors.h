#pragma once
/// map_tensors(batch, fn): the batch with fn applied to every tensor in it, through
/// Example, std::vector, std::optional, std::pair and std::tuple; other values are kept.
/// The loader uses it to move batches to a device.

#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/data/example.h"
#include "ember/tensor.h"

namespace ember::data::detail {

// Declared first so that each overload sees the others whatever the nesting.
template <class Fn>
Tensor map_tensors(Tensor tensor, const Fn& fn);
template <class T, class Fn>
T map_tensors(T value, const Fn&);
template <class Data, class Target, class Fn>
Example<Data, Target> map_tensors(Example<Data, Target> example, const Fn& fn);
template <class T, class Fn>
std::vector<T> map_tensors(std::vector<T> values, const Fn& fn);
template <class T, class Fn>
std::optional<T> map_tensors(std::optional<T> value, const Fn& fn);
template <class A, class B, class Fn>
std::pair<A, B> map_tensors(std::pair<A, B> value, const Fn& fn);
template <class... Ts, class Fn>
std::tuple<Ts...> map_tensors(std::tuple<Ts...> value, const Fn& fn);

template <class Fn>
Tensor map_tensors(Tensor tensor, const Fn& fn) {
  return tensor.defined() ? fn(tensor) : tensor;
}
template <class T, class Fn>
T map_tensors(T value, const Fn&) {
  return value;
}
template <class Data, class Target, class Fn>
Example<Data, Target> map_tensors(Example<Data, Target> example, const Fn& fn) {
  example.data = map_tensors(std::move(example.data), fn);
  if constexpr (!std::is_void_v<Target>) example.target = map_tensors(std::move(example.target), fn);
  return example;
}
template <class T, class Fn>
std::vector<T> map_tensors(std::vector<T> values, const Fn& fn) {
  for (auto& value : values) value = map_tensors(std::move(value), fn);
  return values;
}
template <class T, class Fn>
std::optional<T> map_tensors(std::optional<T> value, const Fn& fn) {
  if (value) value = map_tensors(std::move(*value), fn);
  return value;
}
template <class A, class B, class Fn>
std::pair<A, B> map_tensors(std::pair<A, B> value, const Fn& fn) {
  return {map_tensors(std::move(value.first), fn), map_tensors(std::move(value.second), fn)};
}
template <class... Ts, class Fn>
std::tuple<Ts...> map_tensors(std::tuple<Ts...> value, const Fn& fn) {
  return std::apply([&](auto&... items) { return std::tuple<Ts...>(map_tensors(std::move(items), fn)...); }, value);
}

}  // namespace ember::data::detail
