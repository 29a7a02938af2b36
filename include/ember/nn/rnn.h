#pragma once
/// Recurrent layers (libtorch's torch/nn/modules/rnn.h): RNN (tanh / relu), LSTM (with
/// proj_size) and GRU, multi-layer, bidirectional, batch_first, with dropout between layers,
/// padded or packed input; and the single-step RNNCell, LSTMCell and GRUCell. Parameter
/// names, shapes, initialisation order, printing and error texts are libtorch's. Built from
/// ordinary ops (one matmul for the input projection of all time steps, then one per step
/// for the hidden state), so autograd and every device work.

#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/any_module.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/pimpl.h"
#include "ember/nn/rnn_options.h"
#include "ember/nn/utils/rnn.h"

namespace ember::nn {

namespace detail {

/// What RNN, LSTM and GRU share: parameter registration, checks and printing.
template <typename Derived>
class EMBER_API RNNImplBase : public Cloneable<Derived> {
 public:
  explicit RNNImplBase(const RNNOptionsBase& options_);

  /// Registers weight_ih_l{k}[_reverse], weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} and
  /// (proj_size) weight_hr_l{k} for every layer and direction, then reset_parameters().
  void reset() override;
  /// Every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), in registration order.
  void reset_parameters();

  void to(Device device, ScalarType dtype, bool non_blocking = false) override;
  void to(ScalarType dtype, bool non_blocking = false) override;
  void to(Device device, bool non_blocking = false) override;

  /// "ember::nn::LSTM(input_size=.., hidden_size=.., num_layers=.., bias=.., batch_first=..,
  /// dropout=.., bidirectional=..[, proj_size=..])".
  void pretty_print(std::ostream& stream) const override;

  /// Kept for libtorch's API; weights are used in place, so there is nothing to flatten.
  void flatten_parameters();

  /// The parameters layer by layer, direction by direction, in registration order.
  std::vector<Tensor> all_weights() const;

  RNNOptionsBase options_base;

 protected:
  /// Refreshes flat_weights_ from the registered parameters (after to(), clone() or load).
  void reset_flat_weights();

  void check_input(const Tensor& input, const Tensor& batch_sizes) const;
  std::tuple<int64_t, int64_t, int64_t> get_expected_hidden_size(const Tensor& input,
                                                                 const Tensor& batch_sizes) const;
  void check_hidden_size(const Tensor& hx, std::tuple<int64_t, int64_t, int64_t> expected_hidden_size,
                         std::string msg = "Expected hidden size {1}, got {2}") const;
  void check_forward_args(Tensor input, Tensor hidden, Tensor batch_sizes) const;
  Tensor permute_hidden(Tensor hx, const Tensor& permutation) const;

  /// Runs every layer over input (T, B, I), or over packed data (N, I) when batch_sizes is
  /// defined; hx is one state (h) or two (h, c for LSTM), each (layers * directions, B, *).
  /// Returns the output and the final states.
  std::tuple<Tensor, std::vector<Tensor>> run(const Tensor& input, const Tensor& batch_sizes,
                                              std::vector<Tensor> hx);

  std::vector<std::string> flat_weights_names_;
  std::vector<std::vector<std::string>> all_weights_;
  /// The parameters in flat_weights_names_ order (libtorch's flat_weights_).
  std::vector<Tensor> flat_weights_;
};

}  // namespace detail

/// A multi-layer Elman RNN: h' = tanh (or relu)(x W_ih^T + b_ih + h W_hh^T + b_hh).
/// forward(input (T, B, input_size) or batch_first (B, T, ..), h0 (layers * directions, B,
/// hidden_size), zeros when undefined) -> (output (T, B, directions * hidden_size), h_n).
class EMBER_API RNNImpl : public detail::RNNImplBase<RNNImpl> {
 public:
  RNNImpl(int64_t input_size, int64_t hidden_size) : RNNImpl(RNNOptions(input_size, hidden_size)) {}
  explicit RNNImpl(const RNNOptions& options_);

  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(Tensor())})

 public:
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  RNNOptions options;

 protected:
  std::tuple<Tensor, Tensor> forward_helper(const Tensor& input, const Tensor& batch_sizes,
                                            const Tensor& sorted_indices, int64_t max_batch_size, Tensor hx);
};
EMBER_MODULE(RNN);

/// A multi-layer LSTM; with proj_size, h is projected by weight_hr to proj_size features.
/// forward(input, optional (h0, c0)) -> (output, (h_n, c_n)).
class EMBER_API LSTMImpl : public detail::RNNImplBase<LSTMImpl> {
 public:
  LSTMImpl(int64_t input_size, int64_t hidden_size) : LSTMImpl(LSTMOptions(input_size, hidden_size)) {}
  explicit LSTMImpl(const LSTMOptions& options_);

  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward(
      const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<std::tuple<Tensor, Tensor>>())})

 public:
  std::tuple<utils::rnn::PackedSequence, std::tuple<Tensor, Tensor>> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

  LSTMOptions options;

 protected:
  void check_forward_args(const Tensor& input, std::tuple<Tensor, Tensor> hidden,
                          const Tensor& batch_sizes) const;
  std::tuple<int64_t, int64_t, int64_t> get_expected_cell_size(const Tensor& input,
                                                               const Tensor& batch_sizes) const;
  std::tuple<Tensor, Tensor> permute_hidden(std::tuple<Tensor, Tensor> hx, const Tensor& permutation) const;
  std::tuple<Tensor, std::tuple<Tensor, Tensor>> forward_helper(
      const Tensor& input, const Tensor& batch_sizes, const Tensor& sorted_indices, int64_t max_batch_size,
      std::optional<std::tuple<Tensor, Tensor>> hx_opt);
};
EMBER_MODULE(LSTM);

/// A multi-layer GRU. forward(input, h0) -> (output, h_n).
class EMBER_API GRUImpl : public detail::RNNImplBase<GRUImpl> {
 public:
  GRUImpl(int64_t input_size, int64_t hidden_size) : GRUImpl(GRUOptions(input_size, hidden_size)) {}
  explicit GRUImpl(const GRUOptions& options_);

  std::tuple<Tensor, Tensor> forward(const Tensor& input, Tensor hx = {});

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(Tensor())})

 public:
  std::tuple<utils::rnn::PackedSequence, Tensor> forward_with_packed_input(
      const utils::rnn::PackedSequence& packed_input, Tensor hx = {});

  GRUOptions options;

 protected:
  std::tuple<Tensor, Tensor> forward_helper(const Tensor& input, const Tensor& batch_sizes,
                                            const Tensor& sorted_indices, int64_t max_batch_size, Tensor hx);
};
EMBER_MODULE(GRU);

namespace detail {

/// What RNNCell, LSTMCell and GRUCell share: weight_ih (chunks * hidden, input), weight_hh
/// (chunks * hidden, hidden), bias_ih, bias_hh (undefined without bias), and printing.
template <typename Derived>
class EMBER_API RNNCellImplBase : public Cloneable<Derived> {
 public:
  explicit RNNCellImplBase(const RNNCellOptionsBase& options_);

  void reset() override;
  void reset_parameters();
  /// "ember::nn::LSTMCell(input_size, hidden_size[, bias=false][, nonlinearity=kReLU])".
  void pretty_print(std::ostream& stream) const override;

  RNNCellOptionsBase options_base;

  Tensor weight_ih;
  Tensor weight_hh;
  Tensor bias_ih;
  Tensor bias_hh;

 protected:
  void check_forward_input(const Tensor& input) const;
  void check_forward_hidden(const Tensor& input, const Tensor& hx, std::string hidden_label) const;
  virtual std::string get_nonlinearity_str() const;
};

}  // namespace detail

/// One Elman step: forward(input (B, input_size), hx (B, hidden_size), zeros when undefined).
class EMBER_API RNNCellImpl : public detail::RNNCellImplBase<RNNCellImpl> {
 public:
  RNNCellImpl(int64_t input_size, int64_t hidden_size)
      : RNNCellImpl(RNNCellOptions(input_size, hidden_size)) {}
  explicit RNNCellImpl(const RNNCellOptions& options_);

  Tensor forward(const Tensor& input, Tensor hx = {});

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(Tensor())})

 public:
  RNNCellOptions options;

 protected:
  std::string get_nonlinearity_str() const override;
};
EMBER_MODULE(RNNCell);

/// One LSTM step: forward(input, optional (h, c)) -> (h', c').
class EMBER_API LSTMCellImpl : public detail::RNNCellImplBase<LSTMCellImpl> {
 public:
  LSTMCellImpl(int64_t input_size, int64_t hidden_size)
      : LSTMCellImpl(LSTMCellOptions(input_size, hidden_size)) {}
  explicit LSTMCellImpl(const LSTMCellOptions& options_);

  std::tuple<Tensor, Tensor> forward(const Tensor& input,
                                     std::optional<std::tuple<Tensor, Tensor>> hx_opt = {});

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(std::optional<std::tuple<Tensor, Tensor>>())})

 public:
  LSTMCellOptions options;
};
EMBER_MODULE(LSTMCell);

/// One GRU step: forward(input, hx) -> h'.
class EMBER_API GRUCellImpl : public detail::RNNCellImplBase<GRUCellImpl> {
 public:
  GRUCellImpl(int64_t input_size, int64_t hidden_size)
      : GRUCellImpl(GRUCellOptions(input_size, hidden_size)) {}
  explicit GRUCellImpl(const GRUCellOptions& options_);

  Tensor forward(const Tensor& input, Tensor hx = {});

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, ::ember::nn::AnyValue(Tensor())})

 public:
  GRUCellOptions options;
};
EMBER_MODULE(GRUCell);

}  // namespace ember::nn
