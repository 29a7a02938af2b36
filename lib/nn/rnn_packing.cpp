// nn::utils::rnn: libtorch's pack_padded_sequence / pad_packed_sequence (ATen's
// _pack_padded_sequence and _pad_packed_sequence, their checks and texts), pad_sequence and
// pack_sequence. Built from narrow / cat / stack so the gradients flow to the data.
#include <algorithm>
#include <string>
#include <vector>

#include "core/check.h"
#include "ember/nn/utils/rnn.h"
#include "ember/ops.h"

namespace ember::nn::utils::rnn {

namespace {

// libtorch's short dtype names ("Long", "Float"), as its error texts print them.
const char* short_name(ScalarType t) {
  static const char* const names[] = {"Bool", "Byte", "Char",     "Short", "Int",
                                      "Long", "Half", "BFloat16", "Float", "Double"};
  return names[static_cast<int>(t)];
}

std::vector<int64_t> int64_values(const Tensor& t) {
  const Tensor c = t.to(Device(kCPU)).to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return Tensor();
  Tensor output = empty_like(permutation).contiguous();
  output.scatter_(0, permutation,
                  arange(0, permutation.numel(), TensorOptions().dtype(kInt64).device(permutation.device())));
  return output;
}

PackedSequence::PackedSequence(Tensor data, Tensor batch_sizes, Tensor sorted_indices,
                               Tensor unsorted_indices) {
  if (!unsorted_indices.defined()) unsorted_indices = invert_permutation(sorted_indices);
  EMBER_CHECK_ARG(batch_sizes.device().type() == kCPU,
                  "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                  "manually. They should be instantiated by functions like pack_sequence and "
                  "pack_padded_sequences in nn::utils::rnn. "
                  "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence");
  data_ = std::move(data);
  batch_sizes_ = std::move(batch_sizes);
  sorted_indices_ = std::move(sorted_indices);
  unsorted_indices_ = std::move(unsorted_indices);
}

PackedSequence PackedSequence::to(const TensorOptions& options) const {
  Tensor data = data_.to(options);
  if (data.is_same(data_)) return *this;
  const auto follow = [&](const Tensor& t) { return t.defined() ? t.to(data.device()) : Tensor(); };
  return PackedSequence(data, batch_sizes_, follow(sorted_indices_), follow(unsorted_indices_));
}

PackedSequence PackedSequence::cuda() const { return to(TensorOptions().device(Device(kCUDA))); }
PackedSequence PackedSequence::cpu() const { return to(TensorOptions().device(Device(kCPU))); }

PackedSequence pack_padded_sequence(Tensor input, Tensor lengths, bool batch_first, bool enforce_sorted) {
  lengths = lengths.to(kInt64);
  Tensor sorted_indices;
  if (!enforce_sorted) {
    std::tie(lengths, sorted_indices) = sort(lengths, /*dim=*/-1, /*descending=*/true);
    sorted_indices = sorted_indices.to(input.device());
    input = input.index_select(batch_first ? 0 : 1, sorted_indices);
  }

  // ATen's _pack_padded_sequence.
  EMBER_CHECK_ARG(lengths.device().type() == kCPU && lengths.dim() == 1,
                  "'lengths' argument should be a 1D CPU int64 tensor, but got {}D {} {} tensor",
                  lengths.dim(), lengths.device().str(), short_name(lengths.dtype()));
  const Tensor padded = batch_first ? input.transpose(0, 1) : input;
  const std::vector<int64_t> len = int64_values(lengths);
  const int64_t batch_size = padded.size(1);
  EMBER_CHECK_ARG(padded.numel() > 0, "Cannot pack empty tensors.");
  EMBER_CHECK_ARG(int64_t(len.size()) == batch_size,
                  "Expected `len(lengths)` to be equal to batch_size, but got {} (batch_size={})", len.size(),
                  batch_size);
  EMBER_CHECK_ARG(len[size_t(batch_size - 1)] > 0,
                  "Length of all samples has to be greater than 0, but found an element in 'lengths' that is "
                  "<= 0");
  for (int64_t i = 0; i + 1 < batch_size; ++i)
    EMBER_CHECK_ARG(
        len[size_t(batch_size - 1 - i)] <= len[size_t(batch_size - 2 - i)],
        "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can "
        "pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this "
        "requirement if you do not need ONNX exportability.");
  // ATen's slice would clamp a longer length, giving batch_sizes that disagree with the data.
  EMBER_CHECK_ARG(
      len[0] <= padded.size(0),
      "pack_padded_sequence: lengths must be at most the padded length {}, but got a length of {}",
      padded.size(0), len[0]);

  std::vector<int64_t> step_shape = {-1};
  for (int64_t d = 2; d < padded.dim(); ++d) step_shape.push_back(padded.size(d));
  std::vector<Tensor> steps;
  std::vector<int64_t> batch_sizes;
  int64_t prev_l = 0;
  for (int64_t i = 0; i < batch_size; ++i) {
    const int64_t l = len[size_t(batch_size - 1 - i)];
    if (l > prev_l) {
      const int64_t current_batch_size = batch_size - i;
      steps.push_back(padded.slice(0, prev_l, l).slice(1, 0, current_batch_size).reshape(step_shape));
      batch_sizes.insert(batch_sizes.end(), size_t(l - prev_l), current_batch_size);
      prev_l = l;
    }
  }
  Tensor batch_sizes_t = tensor(batch_sizes, kInt64);
  return PackedSequence(cat(steps, 0), batch_sizes_t, sorted_indices, {});
}

std::tuple<Tensor, Tensor> pad_packed_sequence(PackedSequence sequence, bool batch_first,
                                               double padding_value, std::optional<int64_t> total_length) {
  const std::vector<int64_t> batch_sizes = int64_values(sequence.batch_sizes());
  int64_t max_seq_length = int64_t(batch_sizes.size());
  if (total_length.has_value()) {
    EMBER_CHECK_ARG(
        *total_length >= max_seq_length,
        "Expected total_length to be at least the length of the longest sequence in input, but got "
        "total_length={} and max sequence length being {}",
        *total_length, max_seq_length);
    max_seq_length = *total_length;
  }
  // ATen's _pad_packed_sequence, one padded time step at a time.
  const Tensor& data = sequence.data();
  const int64_t max_batch_size = batch_sizes.empty() ? 0 : batch_sizes[0];
  std::vector<int64_t> trailing(data.sizes().begin() + 1, data.sizes().end());
  const auto padding = [&](int64_t rows) {
    std::vector<int64_t> shape = {rows};
    shape.insert(shape.end(), trailing.begin(), trailing.end());
    return full(shape, padding_value, data.options());
  };
  std::vector<Tensor> steps;
  int64_t offset = 0;
  for (int64_t b : batch_sizes) {
    Tensor step = data.narrow(0, offset, b);
    offset += b;
    steps.push_back(b < max_batch_size ? cat({step, padding(max_batch_size - b)}, 0) : step);
  }
  Tensor output = stack(steps, 0);
  if (max_seq_length > int64_t(batch_sizes.size())) {
    std::vector<int64_t> shape = {max_seq_length - int64_t(batch_sizes.size()), max_batch_size};
    shape.insert(shape.end(), trailing.begin(), trailing.end());
    output = cat({output, full(shape, padding_value, data.options())}, 0);
  }
  // Sequence b runs for as many steps as have batch size > b.
  std::vector<int64_t> lengths(size_t(max_batch_size), 0);
  for (int64_t b : batch_sizes)
    for (int64_t j = 0; j < b; ++j) ++lengths[size_t(j)];
  Tensor lengths_t = tensor(lengths, kInt64);
  if (batch_first) output = output.transpose(0, 1);
  const Tensor& unsorted_indices = sequence.unsorted_indices();
  if (unsorted_indices.defined())
    return std::make_tuple(output.index_select(batch_first ? 0 : 1, unsorted_indices),
                           lengths_t.index_select(0, unsorted_indices.to(Device(kCPU))));
  return std::make_tuple(output, lengths_t);
}

Tensor pad_sequence(ArrayRef<Tensor> sequences, bool batch_first, double padding_value) {
  EMBER_CHECK_ARG(!sequences.empty(), "received an empty list of sequences");
  const IntArrayRef first = sequences[0].sizes();
  int64_t max_len = 0;
  for (const Tensor& s : sequences) max_len = std::max(max_len, s.size(0));
  std::vector<Tensor> columns;
  for (const Tensor& seq : sequences) {
    // ATen copies each sequence into out[:len_i, i], which broadcasts it against the first's
    // trailing sizes.
    std::vector<int64_t> target = {seq.size(0)};
    target.insert(target.end(), first.begin() + 1, first.end());
    Tensor s = seq;
    if (seq.sizes().vec() != target) {
      const int64_t nt = int64_t(target.size()), ns = seq.dim();
      for (int64_t k = 1; k <= std::min(nt, ns); ++k) {
        const int64_t a = target[size_t(nt - k)], b = seq.size(ns - k);
        EMBER_CHECK_ARG(a == b || b == 1,
                        "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton "
                        "dimension {}",
                        a, b, nt - k);
      }
      s = seq.expand(target);
    }
    if (s.size(0) < max_len) {
      std::vector<int64_t> pad_shape = target;
      pad_shape[0] = max_len - s.size(0);
      s = cat({s, full(pad_shape, padding_value, s.options())}, 0);
    }
    columns.push_back(s);
  }
  return stack(columns, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(ArrayRef<Tensor> sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.size(0));
  return pack_padded_sequence(pad_sequence(sequences), tensor(lengths, kInt64), /*batch_first=*/false,
                              enforce_sorted);
}

}  // namespace ember::nn::utils::rnn
