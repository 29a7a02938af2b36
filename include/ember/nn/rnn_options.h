#pragma once
/// Options of the recurrent layers and cells (libtorch's torch/nn/options/rnn.h): RNNOptions,
/// LSTMOptions, GRUOptions, RNNCellOptions, LSTMCellOptions, GRUCellOptions and the shared
/// detail::RNNOptionsBase / detail::RNNCellOptionsBase.

#include <cstdint>

#include "ember/arg.h"
#include "ember/export.h"
#include "ember/nn/init.h"

namespace ember {

/// The recurrence of an RNNImplBase (libtorch's enumtype::kLSTM, kGRU, kRNN_TANH, kRNN_RELU).
enum class RNNMode { LSTM, GRU, RNN_TANH, RNN_RELU };
constexpr RNNMode kLSTM = RNNMode::LSTM;
constexpr RNNMode kGRU = RNNMode::GRU;
constexpr RNNMode kRNN_TANH = RNNMode::RNN_TANH;
constexpr RNNMode kRNN_RELU = RNNMode::RNN_RELU;

namespace nn {

namespace detail {

/// Common options of RNN, LSTM and GRU.
struct EMBER_API RNNOptionsBase {
  typedef RNNMode rnn_options_base_mode_t;
  RNNOptionsBase(rnn_options_base_mode_t mode, int64_t input_size, int64_t hidden_size)
      : mode_(mode), input_size_(input_size), hidden_size_(hidden_size) {}

  EMBER_ARG(rnn_options_base_mode_t, mode);
  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  /// Output projection size of an LSTM's hidden state (0: none).
  EMBER_ARG(int64_t, proj_size) = 0;
};

/// Common options of RNNCell, LSTMCell and GRUCell; num_chunks is the number of gates.
struct EMBER_API RNNCellOptionsBase {
  RNNCellOptionsBase(int64_t input_size, int64_t hidden_size, bool bias, int64_t num_chunks)
      : input_size_(input_size), hidden_size_(hidden_size), bias_(bias), num_chunks_(num_chunks) {}
  virtual ~RNNCellOptionsBase() = default;

  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias);
  EMBER_ARG(int64_t, num_chunks);
};

}  // namespace detail

/// RNNOptions(input_size, hidden_size): an Elman RNN with kTanh (default) or kReLU.
struct EMBER_API RNNOptions {
  typedef Nonlinearity nonlinearity_t;
  RNNOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}

  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  /// kTanh or kReLU.
  EMBER_ARG(nonlinearity_t, nonlinearity) = kTanh;
  EMBER_ARG(bool, bias) = true;
  /// Input and output as (batch, seq, feature) instead of (seq, batch, feature).
  EMBER_ARG(bool, batch_first) = false;
  /// Dropout on the outputs of every layer but the last, while training.
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

/// LSTMOptions(input_size, hidden_size).
struct EMBER_API LSTMOptions {
  LSTMOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}

  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
  /// When > 0, h is projected to proj_size features by weight_hr (0: no projection).
  EMBER_ARG(int64_t, proj_size) = 0;
};

/// GRUOptions(input_size, hidden_size).
struct EMBER_API GRUOptions {
  GRUOptions(int64_t input_size, int64_t hidden_size) : input_size_(input_size), hidden_size_(hidden_size) {}

  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(int64_t, num_layers) = 1;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bidirectional) = false;
};

/// RNNCellOptions(input_size, hidden_size).
struct EMBER_API RNNCellOptions {
  typedef Nonlinearity nonlinearity_t;
  RNNCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}

  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
  /// kTanh or kReLU.
  EMBER_ARG(nonlinearity_t, nonlinearity) = kTanh;
};

/// LSTMCellOptions(input_size, hidden_size).
struct EMBER_API LSTMCellOptions {
  LSTMCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}

  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

/// GRUCellOptions(input_size, hidden_size).
struct EMBER_API GRUCellOptions {
  GRUCellOptions(int64_t input_size, int64_t hidden_size)
      : input_size_(input_size), hidden_size_(hidden_size) {}

  EMBER_ARG(int64_t, input_size);
  EMBER_ARG(int64_t, hidden_size);
  EMBER_ARG(bool, bias) = true;
};

}  // namespace nn
}  // namespace ember
