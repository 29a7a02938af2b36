#pragma once
/// Index objects for Tensor::index({...}) and index_put_({...}), as torch::indexing:
/// integers, Slice, None, Ellipsis (or the string "..."), bools and tensors (int64
/// positions, bool / uint8 masks).

#include <cstdint>
#include <iosfwd>
#include <limits>
#include <optional>

#include "ember/export.h"
#include "ember/tensor.h"

namespace ember::indexing {

/// libtorch's slice bounds: an unset start is 0 (INDEX_MAX for a negative step), an unset stop
/// INDEX_MAX (INDEX_MIN), an unset step 1.
constexpr int64_t INDEX_MAX = std::numeric_limits<int64_t>::max();
constexpr int64_t INDEX_MIN = std::numeric_limits<int64_t>::min();

class EMBER_API Slice {
 public:
  Slice(std::optional<int64_t> start = {}, std::optional<int64_t> stop = {}, std::optional<int64_t> step = {})
      : step_(step.value_or(1)) {
    if (step_ == 0) throw InvalidArgument("slice step cannot be zero");
    start_ = start.value_or(step_ < 0 ? INDEX_MAX : 0);
    stop_ = stop.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX);
  }
  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t start_, stop_, step_;
};

constexpr std::nullopt_t None = std::nullopt;
struct EllipsisIndexType {};
constexpr EllipsisIndexType Ellipsis;

class EMBER_API TensorIndex {
 public:
  enum class Kind { Integer, Slice, None, Ellipsis, Boolean, Tensor };
  TensorIndex(int64_t i) : kind_(Kind::Integer), integer_(i) {}
  TensorIndex(int i) : TensorIndex(int64_t(i)) {}
  TensorIndex(bool b) : kind_(Kind::Boolean), boolean_(b) {}
  TensorIndex(Slice s) : kind_(Kind::Slice), slice_(s) {}
  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}
  /// Only "..." (the ellipsis) is accepted; anything else is InvalidArgument.
  TensorIndex(const char* s);
  TensorIndex(Tensor t);

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }
  bool is_integer() const { return kind_ == Kind::Integer; }
  bool is_slice() const { return kind_ == Kind::Slice; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_ellipsis() const { return kind_ == Kind::Ellipsis; }
  bool is_boolean() const { return kind_ == Kind::Boolean; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

/// As libtorch prints them: "1:5:2", "0:9223372036854775807:1", "None", "...", "true".
EMBER_API std::ostream& operator<<(std::ostream& os, const Slice& s);
EMBER_API std::ostream& operator<<(std::ostream& os, const TensorIndex& i);
/// libtorch's form of an index list: "(None, ..., 0, 1:3:1)".
EMBER_API std::ostream& operator<<(std::ostream& os, const std::vector<TensorIndex>& indices);

}  // namespace ember::indexing
