// The Transformer layers, stacks and model of libtorch's nn/modules/transformer*.h, with
// PyTorch's norm_first, batch_first and layer_norm_eps. The attention blocks ask for no
// weights, so they run on scaled_dot_product_attention (as PyTorch's layers do).
#include "ember/nn/transformer.h"

#include <limits>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/nn/functional.h"
#include "ember/ops.h"

namespace ember::nn {
namespace {

void check_activation(const activation_t& a, const char* layer) {
  if (const Nonlinearity* n = std::get_if<Nonlinearity>(&a))
    EMBER_CHECK_ARG(*n == Nonlinearity::ReLU, "{}: activation must be kReLU, kGELU or a function", layer);
  if (const auto* f = std::get_if<std::function<Tensor(const Tensor&)>>(&a))
    EMBER_CHECK_ARG(static_cast<bool>(*f), "{}: the activation function is empty", layer);
}

Tensor apply_activation(const activation_t& a, const Tensor& x) {
  if (std::holds_alternative<GELUActivation>(a)) return functional::gelu(x);
  if (const auto* f = std::get_if<std::function<Tensor(const Tensor&)>>(&a)) return (*f)(x);
  return functional::relu(x);
}

MultiheadAttention make_attention(int64_t d_model, int64_t nhead, double dropout, bool batch_first) {
  return MultiheadAttention(
      MultiheadAttentionOptions(d_model, nhead).dropout(dropout).batch_first(batch_first));
}

LayerNorm make_norm(int64_t d_model, double eps) { return LayerNorm(LayerNormOptions({d_model}).eps(eps)); }

}  // namespace

TransformerEncoderLayerImpl::TransformerEncoderLayerImpl(const TransformerEncoderLayerOptions& options_)
    : options(options_) {
  check_activation(options.activation(), "TransformerEncoderLayer");
  reset();
}

void TransformerEncoderLayerImpl::reset() {
  const int64_t d = options.d_model();
  self_attn = register_module("self_attn",
                              make_attention(d, options.nhead(), options.dropout(), options.batch_first()));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", make_norm(d, options.layer_norm_eps()));
  norm2 = register_module("norm2", make_norm(d, options.layer_norm_eps()));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
}

void TransformerEncoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm1->reset_parameters();
  norm2->reset_parameters();
}

Tensor TransformerEncoderLayerImpl::forward(const Tensor& src, const Tensor& src_mask,
                                            const Tensor& src_key_padding_mask) {
  auto sa_block = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, src_key_padding_mask, false, src_mask)));
  };
  auto ff_block = [&](const Tensor& x) {
    return dropout2(linear2(dropout(apply_activation(options.activation(), linear1(x)))));
  };
  if (options.norm_first()) {
    Tensor x = src + sa_block(norm1(src));
    return x + ff_block(norm2(x));
  }
  Tensor x = norm1(src + sa_block(src));
  return norm2(x + ff_block(x));
}

TransformerDecoderLayerImpl::TransformerDecoderLayerImpl(const TransformerDecoderLayerOptions& options_)
    : options(options_) {
  check_activation(options.activation(), "TransformerDecoderLayer");
  reset();
}

void TransformerDecoderLayerImpl::reset() {
  const int64_t d = options.d_model();
  const double eps = options.layer_norm_eps();
  // libtorch's registration order (not the members' order): attentions, feedforward, norms, dropouts.
  self_attn = register_module("self_attn",
                              make_attention(d, options.nhead(), options.dropout(), options.batch_first()));
  multihead_attn = register_module(
      "multihead_attn", make_attention(d, options.nhead(), options.dropout(), options.batch_first()));
  linear1 = register_module("linear1", Linear(d, options.dim_feedforward()));
  dropout = register_module("dropout", Dropout(options.dropout()));
  linear2 = register_module("linear2", Linear(options.dim_feedforward(), d));
  norm1 = register_module("norm1", make_norm(d, eps));
  norm2 = register_module("norm2", make_norm(d, eps));
  norm3 = register_module("norm3", make_norm(d, eps));
  dropout1 = register_module("dropout1", Dropout(options.dropout()));
  dropout2 = register_module("dropout2", Dropout(options.dropout()));
  dropout3 = register_module("dropout3", Dropout(options.dropout()));
}

void TransformerDecoderLayerImpl::reset_parameters() {
  self_attn->_reset_parameters();
  norm1->reset_parameters();
  multihead_attn->_reset_parameters();
  norm2->reset_parameters();
  linear1->reset_parameters();
  linear2->reset_parameters();
  norm3->reset_parameters();
}

Tensor TransformerDecoderLayerImpl::activation(const Tensor& input) {
  return apply_activation(options.activation(), input);
}

Tensor TransformerDecoderLayerImpl::forward(Tensor tgt, const Tensor& memory, const Tensor& tgt_mask,
                                            const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                            const Tensor& memory_key_padding_mask) {
  auto sa_block = [&](const Tensor& x) {
    return dropout1(std::get<0>(self_attn(x, x, x, tgt_key_padding_mask, false, tgt_mask)));
  };
  auto mha_block = [&](const Tensor& x) {
    return dropout2(
        std::get<0>(multihead_attn(x, memory, memory, memory_key_padding_mask, false, memory_mask)));
  };
  auto ff_block = [&](const Tensor& x) { return dropout3(linear2(dropout(activation(linear1(x))))); };
  if (options.norm_first()) {
    tgt = tgt + sa_block(norm1(tgt));
    tgt = tgt + mha_block(norm2(tgt));
    return tgt + ff_block(norm3(tgt));
  }
  tgt = norm1(tgt + sa_block(tgt));
  tgt = norm2(tgt + mha_block(tgt));
  return norm3(tgt + ff_block(tgt));
}

TransformerEncoderImpl::TransformerEncoderImpl(TransformerEncoderOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerEncoderImpl::reset() {
  EMBER_CHECK_ARG(!options.encoder_layer().is_empty(), "TransformerEncoder: encoder_layer is empty");
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.encoder_layer()->clone());
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

void TransformerEncoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) layers->at<TransformerEncoderLayerImpl>(i).reset_parameters();
  // The norm is any module, which may have no reset_parameters: replaced by a fresh clone (as libtorch).
  if (!norm.is_empty()) {
    unregister_module("norm");
    norm = AnyModule();
  }
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

Tensor TransformerEncoderImpl::forward(const Tensor& src, const Tensor& src_mask,
                                       const Tensor& src_key_padding_mask) {
  Tensor output = src;
  for (size_t i = 0; i < layers->size(); ++i)
    output = layers->at<TransformerEncoderLayerImpl>(i).forward(output, src_mask, src_key_padding_mask);
  if (!norm.is_empty()) output = norm.forward<Tensor>(output);
  return output;
}

TransformerDecoderImpl::TransformerDecoderImpl(TransformerDecoderOptions options_)
    : options(std::move(options_)) {
  reset();
}

void TransformerDecoderImpl::reset() {
  EMBER_CHECK_ARG(!options.decoder_layer().is_empty(), "TransformerDecoder: decoder_layer is empty");
  layers = register_module("layers", ModuleList());
  for (int64_t i = 0; i < options.num_layers(); ++i) layers->push_back(options.decoder_layer()->clone());
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

void TransformerDecoderImpl::reset_parameters() {
  for (size_t i = 0; i < layers->size(); ++i) layers->at<TransformerDecoderLayerImpl>(i).reset_parameters();
  if (!norm.is_empty()) {
    unregister_module("norm");
    norm = AnyModule();
  }
  if (!options.norm().is_empty()) {
    norm = options.norm().clone();
    register_module("norm", norm.ptr());
  }
}

Tensor TransformerDecoderImpl::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                       const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                       const Tensor& memory_key_padding_mask) {
  Tensor output = tgt;
  for (size_t i = 0; i < layers->size(); ++i)
    output = layers->at<TransformerDecoderLayerImpl>(i).forward(
        output, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
  if (!norm.is_empty()) output = norm.forward<Tensor>(output);
  return output;
}

TransformerImpl::TransformerImpl(TransformerOptions options_) : options(std::move(options_)) {
  check_activation(options.activation(), "Transformer");
  reset();
}

void TransformerImpl::reset() {
  const int64_t d = options.d_model();
  if (options.custom_encoder().is_empty()) {
    const auto layer = TransformerEncoderLayerOptions(d, options.nhead())
                           .dim_feedforward(options.dim_feedforward())
                           .dropout(options.dropout())
                           .activation(options.activation())
                           .layer_norm_eps(options.layer_norm_eps())
                           .batch_first(options.batch_first())
                           .norm_first(options.norm_first());
    LayerNorm norm = make_norm(d, options.layer_norm_eps());
    encoder = AnyModule(TransformerEncoder(
        TransformerEncoderOptions(layer, options.num_encoder_layers()).norm(AnyModule(norm))));
  } else {
    encoder = options.custom_encoder().clone();
  }
  register_module("encoder", encoder.ptr());
  if (options.custom_decoder().is_empty()) {
    const auto layer = TransformerDecoderLayerOptions(d, options.nhead())
                           .dim_feedforward(options.dim_feedforward())
                           .dropout(options.dropout())
                           .activation(options.activation())
                           .layer_norm_eps(options.layer_norm_eps())
                           .batch_first(options.batch_first())
                           .norm_first(options.norm_first());
    LayerNorm norm = make_norm(d, options.layer_norm_eps());
    decoder = AnyModule(TransformerDecoder(
        TransformerDecoderOptions(layer, options.num_decoder_layers()).norm(AnyModule(norm))));
  } else {
    decoder = options.custom_decoder().clone();
  }
  register_module("decoder", decoder.ptr());
  reset_parameters();
}

void TransformerImpl::reset_parameters() {
  for (Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
}

Tensor TransformerImpl::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask,
                                const Tensor& tgt_mask, const Tensor& memory_mask,
                                const Tensor& src_key_padding_mask, const Tensor& tgt_key_padding_mask,
                                const Tensor& memory_key_padding_mask) {
  EMBER_CHECK_ARG(src.defined() && tgt.defined(), "Transformer: undefined src or tgt");
  EMBER_CHECK_ARG(src.dim() == 3 && tgt.dim() == 3, "src and tgt should have 3 dimensions, but got {} and {}",
                  src.dim(), tgt.dim());
  const int64_t batch_dim = options.batch_first() ? 0 : 1;
  EMBER_CHECK_ARG(src.size(batch_dim) == tgt.size(batch_dim),
                  "src and tgt should have equal batch size (at dim {}), but got {} and {}", batch_dim,
                  src.size(batch_dim), tgt.size(batch_dim));
  EMBER_CHECK_ARG(src.size(2) == options.d_model() && tgt.size(2) == options.d_model(),
                  "src and tgt should have same feature size as d_model (at dim 2), but got {} and {} while "
                  "d_model is {}",
                  src.size(2), tgt.size(2), options.d_model());
  const Tensor memory = encoder.forward<Tensor>(src, src_mask, src_key_padding_mask);
  return decoder.forward<Tensor>(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                 memory_key_padding_mask);
}

Tensor TransformerImpl::generate_square_subsequent_mask(int64_t sz) {
  EMBER_CHECK_ARG(
      sz >= 0, "Input size must be non-negative to genearte a valid square subsequent mask, but got {}", sz);
  const Tensor i = ember::arange(sz, TensorOptions().dtype(kLong));
  return ember::zeros({sz, sz}).masked_fill(i.unsqueeze(0) > i.unsqueeze(1),
                                            -std::numeric_limits<float>::infinity());
}

}  // namespace ember::nn
