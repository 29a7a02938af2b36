#pragma once
/// The Transformer as libtorch has it (nn/modules/transformer*.h): TransformerEncoderLayer,
/// TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and Transformer with their
/// options, plus PyTorch's norm_first, batch_first and layer_norm_eps options.

#include <cstdint>
#include <functional>
#include <variant>

#include "ember/arg.h"
#include "ember/nn/any_module.h"
#include "ember/nn/attention.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/init.h"
#include "ember/nn/layers.h"
#include "ember/nn/module_list.h"
#include "ember/nn/pimpl.h"

namespace ember {

/// libtorch's torch::kGELU as a Transformer layer's activation (torch::kReLU is ember's
/// Nonlinearity::ReLU).
enum class GELUActivation { GELU };
constexpr GELUActivation kGELU = GELUActivation::GELU;

namespace nn {

/// kReLU, kGELU or any Tensor -> Tensor function (libtorch's activation_t).
using activation_t = std::variant<Nonlinearity, GELUActivation, std::function<Tensor(const Tensor&)>>;

struct EMBER_API TransformerEncoderLayerOptions {
  TransformerEncoderLayerOptions(int64_t d_model, int64_t nhead)  // NOLINT: implicit as in libtorch
      : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = kReLU;
  /// PyTorch's (not in libtorch 1.13's C++, which uses LayerNorm's default 1e-5).
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  /// PyTorch's: inputs and output are (batch, seq, feature).
  EMBER_ARG(bool, batch_first) = false;
  /// PyTorch's: layer norm before attention and feedforward instead of after the residual sum.
  EMBER_ARG(bool, norm_first) = false;
};

struct EMBER_API TransformerDecoderLayerOptions {
  TransformerDecoderLayerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  EMBER_ARG(int64_t, d_model);
  EMBER_ARG(int64_t, nhead);
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = kReLU;
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
};

/// self-attention then feedforward, each with dropout, a residual connection and a LayerNorm.
class EMBER_API TransformerEncoderLayerImpl : public Cloneable<TransformerEncoderLayerImpl> {
 public:
  TransformerEncoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayerImpl(TransformerEncoderLayerOptions(d_model, nhead)) {}
  explicit TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options);
  /// src (S, N, E) ((N, S, E) with batch_first, or (S, E)); masks as MultiheadAttention's.
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})

 public:
  TransformerEncoderLayerOptions options;
  MultiheadAttention self_attn = nullptr;
  Linear linear1 = nullptr;
  Dropout dropout = nullptr;
  Linear linear2 = nullptr;
  LayerNorm norm1 = nullptr;
  LayerNorm norm2 = nullptr;
  Dropout dropout1 = nullptr;
  Dropout dropout2 = nullptr;
};
EMBER_MODULE(TransformerEncoderLayer);

/// self-attention, attention over the encoder's memory, then feedforward.
class EMBER_API TransformerDecoderLayerImpl : public Cloneable<TransformerDecoderLayerImpl> {
 public:
  TransformerDecoderLayerImpl(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayerImpl(TransformerDecoderLayerOptions(d_model, nhead)) {}
  explicit TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options);
  void reset() override;
  void reset_parameters();
  /// tgt (T, N, E), memory (S, N, E) ((N, *, E) with batch_first).
  Tensor forward(Tensor tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  TransformerDecoderLayerOptions options;
  MultiheadAttention self_attn{nullptr};
  Dropout dropout1{nullptr};
  LayerNorm norm1{nullptr};
  MultiheadAttention multihead_attn{nullptr};
  Dropout dropout2{nullptr};
  LayerNorm norm2{nullptr};
  Linear linear1{nullptr};
  Dropout dropout{nullptr};
  Linear linear2{nullptr};
  Dropout dropout3{nullptr};
  LayerNorm norm3{nullptr};

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(Tensor())}, {3, AnyValue(Tensor())}, {4, AnyValue(Tensor())},
                                 {5, AnyValue(Tensor())})
  Tensor activation(const Tensor& input);
};
EMBER_MODULE(TransformerDecoderLayer);

struct EMBER_API TransformerEncoderOptions {
  TransformerEncoderOptions(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : encoder_layer_(std::move(encoder_layer)), num_layers_(num_layers) {}
  TransformerEncoderOptions(const TransformerEncoderLayerOptions& encoder_layer_options, int64_t num_layers)
      : encoder_layer_(TransformerEncoderLayer(encoder_layer_options)), num_layers_(num_layers) {}
  EMBER_ARG(TransformerEncoderLayer, encoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  /// Applied to the last layer's output when set (a LayerNorm in Transformer).
  EMBER_ARG(AnyModule, norm);
};

struct EMBER_API TransformerDecoderOptions {
  TransformerDecoderOptions(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : decoder_layer_(std::move(decoder_layer)), num_layers_(num_layers) {}
  TransformerDecoderOptions(const TransformerDecoderLayerOptions& decoder_layer_options, int64_t num_layers)
      : decoder_layer_(TransformerDecoderLayer(decoder_layer_options)), num_layers_(num_layers) {}
  EMBER_ARG(TransformerDecoderLayer, decoder_layer) = nullptr;
  EMBER_ARG(int64_t, num_layers);
  EMBER_ARG(AnyModule, norm);
};

/// num_layers clones of encoder_layer applied in turn, then norm.
class EMBER_API TransformerEncoderImpl : public Cloneable<TransformerEncoderImpl> {
 public:
  TransformerEncoderImpl(TransformerEncoderLayer encoder_layer, int64_t num_layers)
      : TransformerEncoderImpl(TransformerEncoderOptions(std::move(encoder_layer), num_layers)) {}
  explicit TransformerEncoderImpl(TransformerEncoderOptions options);
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  void reset() override;
  void reset_parameters();

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, AnyValue(Tensor())}, {2, AnyValue(Tensor())})

 public:
  TransformerEncoderOptions options;
  ModuleList layers = nullptr;
  AnyModule norm;
};
EMBER_MODULE(TransformerEncoder);

/// num_layers clones of decoder_layer applied in turn, then norm.
class EMBER_API TransformerDecoderImpl : public Cloneable<TransformerDecoderImpl> {
 public:
  TransformerDecoderImpl(TransformerDecoderLayer decoder_layer, int64_t num_layers)
      : TransformerDecoderImpl(TransformerDecoderOptions(std::move(decoder_layer), num_layers)) {}
  explicit TransformerDecoderImpl(TransformerDecoderOptions options);
  void reset() override;
  void reset_parameters();
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});

  TransformerDecoderOptions options;
  ModuleList layers{nullptr};
  AnyModule norm;

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(Tensor())}, {3, AnyValue(Tensor())}, {4, AnyValue(Tensor())},
                                 {5, AnyValue(Tensor())})
};
EMBER_MODULE(TransformerDecoder);

struct EMBER_API TransformerOptions {
  TransformerOptions() = default;
  TransformerOptions(int64_t d_model, int64_t nhead) : d_model_(d_model), nhead_(nhead) {}
  TransformerOptions(int64_t d_model, int64_t nhead, int64_t num_encoder_layers, int64_t num_decoder_layers)
      : d_model_(d_model),
        nhead_(nhead),
        num_encoder_layers_(num_encoder_layers),
        num_decoder_layers_(num_decoder_layers) {}
  EMBER_ARG(int64_t, d_model) = 512;
  EMBER_ARG(int64_t, nhead) = 8;
  EMBER_ARG(int64_t, num_encoder_layers) = 6;
  EMBER_ARG(int64_t, num_decoder_layers) = 6;
  EMBER_ARG(int64_t, dim_feedforward) = 2048;
  EMBER_ARG(double, dropout) = 0.1;
  EMBER_ARG(activation_t, activation) = kReLU;
  EMBER_ARG(AnyModule, custom_encoder);
  EMBER_ARG(AnyModule, custom_decoder);
  /// PyTorch's, passed to the layers and the final norms.
  EMBER_ARG(double, layer_norm_eps) = 1e-5;
  EMBER_ARG(bool, batch_first) = false;
  EMBER_ARG(bool, norm_first) = false;
};

/// An encoder (with a final LayerNorm) feeding a decoder (with a final LayerNorm); every
/// parameter with more than one dim is reinitialised with xavier_uniform_.
class EMBER_API TransformerImpl : public Cloneable<TransformerImpl> {
 public:
  explicit TransformerImpl(TransformerOptions options);
  /// src (S, N, E), tgt (T, N, E) ((N, *, E) with batch_first) -> (T, N, E).
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {},
                 const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& src_key_padding_mask = {}, const Tensor& tgt_key_padding_mask = {},
                 const Tensor& memory_key_padding_mask = {});
  void reset() override;
  void reset_parameters();
  /// (sz, sz) float: 0 on and below the diagonal, -inf above.
  static Tensor generate_square_subsequent_mask(int64_t sz);

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({2, AnyValue(Tensor())}, {3, AnyValue(Tensor())}, {4, AnyValue(Tensor())},
                                 {5, AnyValue(Tensor())}, {6, AnyValue(Tensor())}, {7, AnyValue(Tensor())})

 public:
  TransformerOptions options;
  AnyModule encoder;
  AnyModule decoder;
};
EMBER_MODULE(Transformer);

}  // namespace nn
}  // namespace ember
