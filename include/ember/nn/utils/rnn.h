#pragma once
/// Packed sequences of variable length (libtorch's torch::nn::utils::rnn): PackedSequence,
/// pack_padded_sequence, pad_packed_sequence, pad_sequence, pack_sequence and
/// invert_permutation, with libtorch's layouts, index dtypes and error texts.

#include <optional>
#include <tuple>

#include "ember/array_ref.h"
#include "ember/tensor.h"

namespace ember::nn::utils::rnn {

/// The inverse of a permutation (int64, same device); undefined for an undefined one.
EMBER_API Tensor invert_permutation(const Tensor& permutation);

/// A batch of variable-length sequences packed time step by time step: data (sum of
/// lengths, *), batch_sizes (CPU int64, how many sequences are still running at each step),
/// and, for unsorted input, sorted_indices (which input sequence each packed column is) and
/// unsorted_indices (its inverse). Made by pack_padded_sequence / pack_sequence.
class EMBER_API PackedSequence {
 public:
  /// unsorted_indices, when not given, is the inverse of sorted_indices.
  explicit PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices = {},
                          Tensor unsorted_indices = {});

  const Tensor& data() const { return data_; }
  const Tensor& batch_sizes() const { return batch_sizes_; }
  const Tensor& sorted_indices() const { return sorted_indices_; }
  const Tensor& unsorted_indices() const { return unsorted_indices_; }

  /// data converted (dtype and/or device; the indices follow its device, batch_sizes stays
  /// on the CPU); *this when nothing changes.
  PackedSequence to(const TensorOptions& options) const;
  PackedSequence cuda() const;
  PackedSequence cpu() const;
  bool is_cuda() const { return data_.is_cuda(); }

 private:
  Tensor data_;
  Tensor batch_sizes_;
  Tensor sorted_indices_;
  Tensor unsorted_indices_;
};

/// Packs input (T, B, *) (or (B, T, *) with batch_first) whose column b holds lengths[b]
/// valid steps. enforce_sorted requires lengths in decreasing order; otherwise the columns
/// are sorted (descending) and the permutation kept in the result.
EMBER_API PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first = false,
                                              bool enforce_sorted = true);

/// The inverse of pack_padded_sequence: (T, B, *) (or (B, T, *)) filled with padding_value
/// past each sequence's end, T = total_length when given (at least the longest length),
/// and the lengths (CPU int64), in the original column order.
EMBER_API std::tuple<Tensor, Tensor> pad_packed_sequence(PackedSequence sequence, bool batch_first = false,
                                                         double padding_value = 0.0,
                                                         std::optional<int64_t> total_length = std::nullopt);

/// Stacks sequences (L_i, *) into (T, B, *) (or (B, T, *)), padded with padding_value.
EMBER_API Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first = false, double padding_value = 0);

/// pack_padded_sequence of pad_sequence(sequences) with their lengths.
EMBER_API PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted = true);

}  // namespace ember::nn::utils::rnn
