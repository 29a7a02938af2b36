#pragma once
/// Index objects for Tensor::index({...}), as torch::indexing.

#include <cstdint>
#include <optional>

namespace ember::indexing {

struct Slice {
  Slice(std::optional<int64_t> start = {}, std::optional<int64_t> stop = {},
        std::optional<int64_t> step = {})
      : start(start), stop(stop), step(step) {}
  std::optional<int64_t> start, stop, step;
};

constexpr std::nullopt_t None = std::nullopt;
struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis;

class TensorIndex {
 public:
  enum class Kind { Integer, Slice, None, Ellipsis };
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}
  TensorIndex(int i) : TensorIndex(int64_t(i)) {}
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}
  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  const Slice& slice() const { return slice_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
};

}  // namespace ember::indexing
