// nn::MultiheadAttention and F::multi_head_attention_forward: libtorch's parameters and
// initialisation, PyTorch's input forms (unbatched, batch_first) and masks (bool or additive,
// 2-D or 3-D attn_mask), composed of ember ops.
#include "ember/nn/attention.h"

#include <cmath>
#include <limits>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using ember::detail::shape_str;

// A bool mask (true = not allowed) as -inf where true, a float one as it is, in dtype.
Tensor additive_mask(const Tensor& mask, ScalarType dtype) {
  if (mask.dtype() == kBool)
    return ember::zeros(mask.sizes(), mask.options().dtype(dtype)).masked_fill(mask, -kInf);
  return mask.to(dtype);
}

// PyTorch's checks of the input ranks; whether query is batched.
bool mha_shape_check(const Tensor& query, const Tensor& key, const Tensor& value,
                     const Tensor& key_padding_mask, const Tensor& attn_mask, int64_t num_heads) {
  if (query.dim() == 3) {
    EMBER_CHECK_ARG(key.dim() == 3 && value.dim() == 3,
                    "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found {}-D and {}-D "
                    "tensors respectively",
                    key.dim(), value.dim());
    if (key_padding_mask.defined())
      EMBER_CHECK_ARG(
          key_padding_mask.dim() == 2,
          "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found {}-D "
          "tensor instead",
          key_padding_mask.dim());
    if (attn_mask.defined())
      EMBER_CHECK_ARG(
          attn_mask.dim() == 2 || attn_mask.dim() == 3,
          "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D "
          "tensor instead",
          attn_mask.dim());
    return true;
  }
  EMBER_CHECK_ARG(query.dim() == 2,
                  "query should be unbatched 2D or batched 3D tensor but received {}-D query tensor",
                  query.dim());
  EMBER_CHECK_ARG(key.dim() == 2 && value.dim() == 2,
                  "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found {}-D and {}-D "
                  "tensors respectively",
                  key.dim(), value.dim());
  if (key_padding_mask.defined())
    EMBER_CHECK_ARG(
        key_padding_mask.dim() == 1,
        "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found {}-D "
        "tensor instead",
        key_padding_mask.dim());
  if (attn_mask.defined()) {
    EMBER_CHECK_ARG(
        attn_mask.dim() == 2 || attn_mask.dim() == 3,
        "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found {}-D "
        "tensor instead",
        attn_mask.dim());
    if (attn_mask.dim() == 3) {
      const std::vector<int64_t> expected{num_heads, query.size(0), key.size(0)};
      EMBER_CHECK_ARG(attn_mask.sizes().vec() == expected, "Expected `attn_mask` shape to be {} but got {}",
                      shape_str(expected), shape_str(attn_mask.sizes()));
    }
  }
  return false;
}

Tensor slice_rows(const Tensor& t, int64_t start, int64_t end) {
  return t.defined() ? t.slice(0, start, end) : Tensor();
}

// PyTorch's dtypes: bool or float; uint8 is taken as bool with its deprecation warning.
Tensor checked_mask(const Tensor& mask, const char* name) {
  if (mask.dtype() == kUInt8) {
    EMBER_WARN_FMT("Byte tensor for {} in nn.MultiheadAttention is deprecated. Use bool tensor instead.",
                   name);
    return mask.to(kBool);
  }
  EMBER_CHECK_ARG(mask.dtype() == kBool || is_floating_point(mask.dtype()),
                  "Only float, byte, and bool types are supported for {}, not {}", name,
                  ember::detail::torch_name(mask.dtype()));
  return mask;
}

}  // namespace

namespace functional {

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                                        const Tensor& value_in,
                                                        const MultiheadAttentionForwardFuncOptions& o) {
  EMBER_CHECK_ARG(query_in.defined() && key_in.defined() && value_in.defined(),
                  "multi_head_attention_forward: undefined query, key or value");
  Tensor key_padding_mask = o.key_padding_mask();
  Tensor attn_mask = o.attn_mask();
  const int64_t num_heads = o.num_heads();
  const bool batched = mha_shape_check(query_in, key_in, value_in, key_padding_mask, attn_mask, num_heads);
  Tensor query = batched ? query_in : query_in.unsqueeze(1);
  Tensor key = batched ? key_in : key_in.unsqueeze(1);
  Tensor value = batched ? value_in : value_in.unsqueeze(1);
  if (!batched && key_padding_mask.defined()) key_padding_mask = key_padding_mask.unsqueeze(0);
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  EMBER_CHECK_ARG(embed_dim == o.embed_dim_to_check(), "was expecting embedding dimension of {}, but got {}",
                  o.embed_dim_to_check(), embed_dim);
  EMBER_CHECK_ARG(num_heads > 0 && embed_dim % num_heads == 0, "embed_dim must be divisible by num_heads");
  const int64_t head_dim = embed_dim / num_heads;
  if (o.use_separate_proj_weight()) {
    EMBER_CHECK_ARG(key.size(0) == value.size(0) && key.size(1) == value.size(1),
                    "key's sequence and batch dims {} do not match value's {}",
                    shape_str(key.sizes().slice(0, 2)), shape_str(value.sizes().slice(0, 2)));
  } else {
    EMBER_CHECK_ARG(key.sizes() == value.sizes(), "key shape {} does not match value shape {}",
                    shape_str(key.sizes()), shape_str(value.sizes()));
  }

  // In-projection: one matmul when query, key and value are one tensor, as libtorch.
  const Tensor& b = o.in_proj_bias();
  const int64_t E = embed_dim;
  Tensor q, k, v;
  if (!o.use_separate_proj_weight()) {
    const Tensor& w = o.in_proj_weight();
    EMBER_CHECK_ARG(w.defined() && w.dim() == 2 && w.size(0) == 3 * E && w.size(1) == E,
                    "multi_head_attention_forward: in_proj_weight must be [{}, {}], got {}", 3 * E, E,
                    w.defined() ? shape_str(w.sizes()) : std::string("undefined"));
    if (query_in.is_same(key_in) && key_in.is_same(value_in)) {
      std::vector<Tensor> qkv = functional::linear(query, w, b).chunk(3, -1);
      q = qkv[0], k = qkv[1], v = qkv[2];
    } else if (key_in.is_same(value_in)) {
      q = functional::linear(query, w.slice(0, 0, E), slice_rows(b, 0, E));
      std::vector<Tensor> kv = functional::linear(key, w.slice(0, E), slice_rows(b, E, 3 * E)).chunk(2, -1);
      k = kv[0], v = kv[1];
    } else {
      q = functional::linear(query, w.slice(0, 0, E), slice_rows(b, 0, E));
      k = functional::linear(key, w.slice(0, E, 2 * E), slice_rows(b, E, 2 * E));
      v = functional::linear(value, w.slice(0, 2 * E), slice_rows(b, 2 * E, 3 * E));
    }
  } else {
    auto check_proj = [](const Tensor& w, int64_t rows, int64_t cols, const char* name) {
      EMBER_CHECK_ARG(w.defined() && w.dim() == 2 && w.size(0) == rows && w.size(1) == cols,
                      "multi_head_attention_forward: {} must be [{}, {}], got {}", name, rows, cols,
                      w.defined() ? shape_str(w.sizes()) : std::string("undefined"));
    };
    check_proj(o.q_proj_weight(), E, query.size(-1), "q_proj_weight");
    check_proj(o.k_proj_weight(), E, key.size(-1), "k_proj_weight");
    check_proj(o.v_proj_weight(), E, value.size(-1), "v_proj_weight");
    q = functional::linear(query, o.q_proj_weight(), slice_rows(b, 0, E));
    k = functional::linear(key, o.k_proj_weight(), slice_rows(b, E, 2 * E));
    v = functional::linear(value, o.v_proj_weight(), slice_rows(b, 2 * E, 3 * E));
  }

  if (attn_mask.defined()) {
    attn_mask = checked_mask(attn_mask, "attn_mask");
    if (attn_mask.dim() == 2) {
      const std::vector<int64_t> want{tgt_len, key.size(0)};
      EMBER_CHECK_ARG(attn_mask.sizes().vec() == want,
                      "The shape of the 2D attn_mask is {}, but should be {}.", shape_str(attn_mask.sizes()),
                      shape_str(want));
      attn_mask = attn_mask.unsqueeze(0);
    } else {
      const std::vector<int64_t> want{bsz * num_heads, tgt_len, key.size(0)};
      EMBER_CHECK_ARG(attn_mask.sizes().vec() == want,
                      "The shape of the 3D attn_mask is {}, but should be {}.", shape_str(attn_mask.sizes()),
                      shape_str(want));
    }
    attn_mask = additive_mask(attn_mask, q.dtype());
  }
  if (key_padding_mask.defined()) {
    key_padding_mask = additive_mask(checked_mask(key_padding_mask, "key_padding_mask"), q.dtype());
  }
  // A column of zeros: the key that bias_k / add_zero_attn appends is never masked.
  auto pad_column = [](const Tensor& m) {
    if (!m.defined()) return m;
    std::vector<int64_t> s = m.sizes().vec();
    s.back() = 1;
    return ember::cat({m, ember::zeros(s, m.options())}, -1);
  };

  const Tensor& bias_k = o.bias_k();
  const Tensor& bias_v = o.bias_v();
  if (bias_k.defined() && bias_v.defined()) {
    EMBER_CHECK_ARG(!o.static_k().defined(), "bias cannot be added to static key.");
    EMBER_CHECK_ARG(!o.static_v().defined(), "bias cannot be added to static value.");
    k = ember::cat({k, bias_k.repeat({1, bsz, 1})});
    v = ember::cat({v, bias_v.repeat({1, bsz, 1})});
    attn_mask = pad_column(attn_mask);
    key_padding_mask = pad_column(key_padding_mask);
  } else {
    EMBER_CHECK_ARG(
        !bias_k.defined() && !bias_v.defined(),
        "multi_head_attention_forward: bias_k and bias_v must both be given or both be undefined");
  }

  q = q.contiguous().view({tgt_len, bsz * num_heads, head_dim}).transpose(0, 1);
  auto heads = [&](const Tensor& t, const Tensor& fixed, const char* name) {
    if (!fixed.defined()) return t.contiguous().view({t.size(0), bsz * num_heads, head_dim}).transpose(0, 1);
    EMBER_CHECK_ARG(fixed.size(0) == bsz * num_heads, "expecting {}.size(0) of {}, but got {}", name,
                    bsz * num_heads, fixed.size(0));
    EMBER_CHECK_ARG(fixed.size(2) == head_dim, "expecting {}.size(2) of {}, but got {}", name, head_dim,
                    fixed.size(2));
    return fixed;
  };
  k = heads(k, o.static_k(), "static_k");
  v = heads(v, o.static_v(), "static_v");
  if (o.add_zero_attn()) {
    k = ember::cat({k, ember::zeros({bsz * num_heads, 1, head_dim}, k.options())}, 1);
    v = ember::cat({v, ember::zeros({bsz * num_heads, 1, head_dim}, v.options())}, 1);
    attn_mask = pad_column(attn_mask);
    key_padding_mask = pad_column(key_padding_mask);
  }
  const int64_t src_len = k.size(1);
  if (key_padding_mask.defined()) {
    EMBER_CHECK_ARG(key_padding_mask.size(0) == bsz && key_padding_mask.size(1) == src_len,
                    "expecting key_padding_mask shape of {}, but got {}", shape_str({bsz, src_len}),
                    shape_str(key_padding_mask.sizes()));
    const Tensor kpm = key_padding_mask.view({bsz, 1, 1, src_len})
                           .expand({bsz, num_heads, 1, src_len})
                           .reshape({bsz * num_heads, 1, src_len});
    attn_mask = attn_mask.defined() ? attn_mask + kpm : kpm;
  }
  const double dropout_p = o.training() ? o.dropout_p() : 0.0;

  Tensor attn_output, weights;
  if (o.need_weights()) {
    Tensor scores = ember::matmul(q * (1.0 / std::sqrt(double(head_dim))), k.transpose(1, 2));
    if (attn_mask.defined()) scores = scores + attn_mask;
    weights = ember::softmax(scores, -1);
    if (dropout_p > 0)
      weights = functional::dropout(weights, DropoutFuncOptions().p(dropout_p).training(true));
    attn_output = ember::bmm(weights, v);
  } else {
    attn_output = ember::scaled_dot_product_attention(q, k, v, attn_mask, dropout_p);
  }
  attn_output = attn_output.transpose(0, 1).contiguous().view({tgt_len, bsz, embed_dim});
  attn_output = functional::linear(attn_output, o.out_proj_weight(), o.out_proj_bias());
  if (weights.defined()) {
    weights = weights.view({bsz, num_heads, tgt_len, src_len});
    if (o.average_attn_weights()) weights = weights.sum({1}) / double(num_heads);
    if (!batched) weights = weights.squeeze(0);
  }
  if (!batched) attn_output = attn_output.squeeze(1);
  return {attn_output, weights};
}

}  // namespace functional

MultiheadAttentionImpl::MultiheadAttentionImpl(const MultiheadAttentionOptions& options_)
    : options(options_) {
  reset();
}

void MultiheadAttentionImpl::reset() {
  const int64_t E = options.embed_dim();
  _qkv_same_embed_dim = options.kdim() == E && options.vdim() == E;
  EMBER_CHECK_ARG(options.num_heads() > 0 && E >= 0, "MultiheadAttention: num_heads must be positive, got {}",
                  options.num_heads());
  head_dim = E / options.num_heads();
  EMBER_CHECK_ARG(head_dim * options.num_heads() == E, "embed_dim must be divisible by num_heads");
  if (!_qkv_same_embed_dim) {
    q_proj_weight = register_parameter("q_proj_weight", ember::empty({E, E}));
    k_proj_weight = register_parameter("k_proj_weight", ember::empty({E, options.kdim()}));
    v_proj_weight = register_parameter("v_proj_weight", ember::empty({E, options.vdim()}));
    in_proj_weight = register_parameter("in_proj_weight", Tensor(), false);
  } else {
    in_proj_weight = register_parameter("in_proj_weight", ember::empty({3 * E, E}));
    q_proj_weight = register_parameter("q_proj_weight", Tensor(), false);
    k_proj_weight = register_parameter("k_proj_weight", Tensor(), false);
    v_proj_weight = register_parameter("v_proj_weight", Tensor(), false);
  }
  in_proj_bias = options.bias() ? register_parameter("in_proj_bias", ember::empty({3 * E}))
                                : register_parameter("in_proj_bias", Tensor(), false);
  out_proj = register_module("out_proj", Linear(LinearOptions(E, E).bias(options.bias())));
  if (options.add_bias_kv()) {
    bias_k = register_parameter("bias_k", ember::empty({1, 1, E}));
    bias_v = register_parameter("bias_v", ember::empty({1, 1, E}));
  } else {
    bias_k = Tensor();
    bias_v = Tensor();
  }
  _reset_parameters();
}

void MultiheadAttentionImpl::_reset_parameters() {
  if (_qkv_same_embed_dim) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::constant_(in_proj_bias, 0.);
    init::constant_(out_proj->bias, 0.);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttentionImpl::forward(const Tensor& query, const Tensor& key,
                                                           const Tensor& value,
                                                           const Tensor& key_padding_mask, bool need_weights,
                                                           const Tensor& attn_mask,
                                                           bool average_attn_weights) {
  const bool swap = options.batch_first() && query.defined() && query.dim() == 3;
  auto in = [&](const Tensor& t) { return swap && t.defined() ? t.transpose(0, 1) : t; };
  // Keep query, key and value one tensor when they were (the packed projection).
  const Tensor q = in(query);
  const Tensor k = key.is_same(query) ? q : in(key);
  const Tensor v = value.is_same(key) ? k : in(value);
  auto o = functional::MultiheadAttentionForwardFuncOptions(
               options.embed_dim(), options.num_heads(), in_proj_weight, in_proj_bias, bias_k, bias_v,
               options.add_zero_attn(), options.dropout(), out_proj->weight, out_proj->bias)
               .training(is_training())
               .key_padding_mask(key_padding_mask)
               .need_weights(need_weights)
               .attn_mask(attn_mask)
               .average_attn_weights(average_attn_weights);
  if (!_qkv_same_embed_dim)
    o.use_separate_proj_weight(true)
        .q_proj_weight(q_proj_weight)
        .k_proj_weight(k_proj_weight)
        .v_proj_weight(v_proj_weight);
  auto [out, weights] = functional::multi_head_attention_forward(q, k, v, o);
  return {swap ? out.transpose(0, 1) : out, weights};
}

void MultiheadAttentionImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "MultiheadAttention";
}

}  // namespace ember::nn
