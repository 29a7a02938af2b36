#pragma once
/// Attention: F::scaled_dot_product_attention (PyTorch 2.x semantics, a blocked kernel with
/// online softmax whose memory grows linearly with the sequence length), and libtorch's
/// nn::MultiheadAttention with F::multi_head_attention_forward (plus PyTorch's batch_first,
/// unbatched inputs, bool or additive masks and 3-D attn_mask).

#include <cstdint>
#include <optional>
#include <ostream>
#include <tuple>

#include "ember/arg.h"
#include "ember/nn/any_module.h"
#include "ember/nn/cloneable.h"
#include "ember/nn/layers.h"
#include "ember/nn/pimpl.h"

namespace ember {

/// softmax(query key^T * scale + mask) value over (..., L, E) x (..., S, E) x (..., S, Ev) ->
/// (..., L, Ev); batch dims broadcast. attn_mask (broadcast to (..., L, S)): bool keeps where
/// true, float is added. is_causal keeps key j <= query i (not with attn_mask). scale: 1/sqrt(E)
/// when unset. dropout_p > 0 drops attention weights (see Note [SDPA dropout] in lib/nn/sdpa.cpp).
EMBER_API Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                              const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                              bool is_causal = false,
                                              std::optional<double> scale = std::nullopt);

namespace nn {

struct EMBER_API MultiheadAttentionOptions {
  MultiheadAttentionOptions(int64_t embed_dim, int64_t num_heads)
      : embed_dim_(embed_dim), num_heads_(num_heads), kdim_(embed_dim), vdim_(embed_dim) {}
  EMBER_ARG(int64_t, embed_dim);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(double, dropout) = 0.0;
  EMBER_ARG(bool, bias) = true;
  EMBER_ARG(bool, add_bias_kv) = false;
  EMBER_ARG(bool, add_zero_attn) = false;
  EMBER_ARG(int64_t, kdim);
  EMBER_ARG(int64_t, vdim);
  /// PyTorch's (not in libtorch 1.13's C++): inputs and output are (batch, seq, feature).
  EMBER_ARG(bool, batch_first) = false;
};

namespace functional {

struct EMBER_API MultiheadAttentionForwardFuncOptions {
  MultiheadAttentionForwardFuncOptions(int64_t embed_dim_to_check, int64_t num_heads, Tensor in_proj_weight,
                                       Tensor in_proj_bias, Tensor bias_k, Tensor bias_v, bool add_zero_attn,
                                       double dropout_p, Tensor out_proj_weight, Tensor out_proj_bias)
      : embed_dim_to_check_(embed_dim_to_check),
        num_heads_(num_heads),
        in_proj_weight_(std::move(in_proj_weight)),
        in_proj_bias_(std::move(in_proj_bias)),
        bias_k_(std::move(bias_k)),
        bias_v_(std::move(bias_v)),
        add_zero_attn_(add_zero_attn),
        dropout_p_(dropout_p),
        out_proj_weight_(std::move(out_proj_weight)),
        out_proj_bias_(std::move(out_proj_bias)) {}
  EMBER_ARG(int64_t, embed_dim_to_check);
  EMBER_ARG(int64_t, num_heads);
  EMBER_ARG(Tensor, in_proj_weight);
  EMBER_ARG(Tensor, in_proj_bias);
  EMBER_ARG(Tensor, bias_k);
  EMBER_ARG(Tensor, bias_v);
  EMBER_ARG(bool, add_zero_attn);
  EMBER_ARG(double, dropout_p);
  EMBER_ARG(Tensor, out_proj_weight);
  EMBER_ARG(Tensor, out_proj_bias);
  EMBER_ARG(bool, training) = true;
  /// (N, S) or (S) unbatched: bool true = ignore that key, or float added.
  EMBER_ARG(Tensor, key_padding_mask) = {};
  EMBER_ARG(bool, need_weights) = true;
  /// (L, S) or (N * num_heads, L, S): bool true = not allowed, or float added.
  EMBER_ARG(Tensor, attn_mask) = {};
  EMBER_ARG(bool, use_separate_proj_weight) = false;
  EMBER_ARG(Tensor, q_proj_weight) = {};
  EMBER_ARG(Tensor, k_proj_weight) = {};
  EMBER_ARG(Tensor, v_proj_weight) = {};
  EMBER_ARG(Tensor, static_k) = {};
  EMBER_ARG(Tensor, static_v) = {};
  EMBER_ARG(bool, average_attn_weights) = true;
};

/// See ember::scaled_dot_product_attention.
EMBER_API Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                              const Tensor& attn_mask = {}, double dropout_p = 0.0,
                                              bool is_causal = false,
                                              std::optional<double> scale = std::nullopt);

/// query (L, N, E) or unbatched (L, E); key and value (S, N, kdim/vdim). Returns the output
/// (L, N, E) and, with need_weights, the attention weights (N, L, S) averaged over heads or
/// (N, num_heads, L, S); without, an undefined tensor (the output then comes from
/// scaled_dot_product_attention).
EMBER_API std::tuple<Tensor, Tensor> multi_head_attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value,
    const MultiheadAttentionForwardFuncOptions& options);

}  // namespace functional

namespace detail {
/// The kernel behind scaled_dot_product_attention, with the number of keys per block as an
/// argument (the tests make it small to cover several blocks).
EMBER_API Tensor scaled_dot_product_attention_blocked(const Tensor& query, const Tensor& key,
                                                      const Tensor& value, const Tensor& attn_mask,
                                                      double dropout_p, bool is_causal,
                                                      std::optional<double> scale, int64_t block_size);
}  // namespace detail

/// Attention over num_heads heads of embed_dim / num_heads features each. Parameters as
/// libtorch: in_proj_weight (3E, E) or q/k/v_proj_weight when kdim/vdim differ from
/// embed_dim, in_proj_bias (3E), out_proj (Linear), bias_k/bias_v (1, 1, E) with add_bias_kv.
class EMBER_API MultiheadAttentionImpl : public Cloneable<MultiheadAttentionImpl> {
 public:
  MultiheadAttentionImpl(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttentionImpl(MultiheadAttentionOptions(embed_dim, num_heads)) {}
  explicit MultiheadAttentionImpl(const MultiheadAttentionOptions& options);

  /// (attn_output, attn_weights); see F::multi_head_attention_forward.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);
  void reset() override;
  /// xavier_uniform_ of the input projections, zero biases, xavier_normal_ of bias_k/bias_v.
  void _reset_parameters();
  /// "MultiheadAttention" as libtorch prints it (its submodule out_proj follows).
  void pretty_print(std::ostream& stream) const override;

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({3, AnyValue(Tensor())}, {4, AnyValue(true)}, {5, AnyValue(Tensor())},
                                 {6, AnyValue(true)})

 public:
  MultiheadAttentionOptions options;
  bool _qkv_same_embed_dim = true;
  Tensor in_proj_weight;
  Tensor in_proj_bias;
  Tensor bias_k;
  Tensor bias_v;
  Linear out_proj = nullptr;
  Tensor q_proj_weight;
  Tensor k_proj_weight;
  Tensor v_proj_weight;
  int64_t head_dim = 0;
};
EMBER_MODULE(MultiheadAttention);

}  // namespace nn
}  // namespace ember
