// scaled_dot_product_attention: one blocked kernel of ordinary ember ops (so every device has
// it), recorded as one autograd node whose backward recomputes the scores per key block.
//
// Note [Blocked attention]
// The forward walks the keys in blocks of kBlock, keeping per query row a running max m, a
// running sum l of exp(score - m) and an accumulator of exp(score - m) @ value, each rescaled
// by exp(m_old - m_new) when the max grows (online softmax). Only one (..., L, block) tile of
// scores lives at a time, so memory grows linearly with the sequence lengths. With is_causal a
// tile holds only the query rows that can see its keys, and blocks past the last row are skipped. The node
// saves the output and each row's logsumexp; the backward (FlashAttention's) recomputes a tile's
// probabilities as exp(score - logsumexp) and uses D = rowsum(dout * out) for the softmax
// gradient. With create_graph the logsumexp is recomputed from the inputs in the graph, so
// that second derivatives see its dependence on query and key.
//
// Note [SDPA dropout]
// dropout_p > 0 draws, per key block in order, one bernoulli_(1 - dropout_p) mask of the
// tile's shape from the default generator of query's device: (batch..., L, block), or with
// is_causal (batch..., L - s0, block) for the block of keys starting at s0 (only the rows that
// can see it), blocks past the last query row drawing nothing. The backward
// replays the same draws from a copy of the generator's state taken before them. PyTorch's
// draw order differs per backend, so the masks (not the distribution) differ from PyTorch's.
#include <cmath>
#include <limits>
#include <vector>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/autograd.h"
#include "ember/generator.h"
#include "ember/nn/attention.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember {
namespace {

constexpr int64_t kBlock = 128;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The query rows a key block can change: with is_causal, rows before the block's first key
// keep none of its keys, so they are left out of the tile (halving a causal pass's work).
int64_t first_row(bool causal, int64_t s0) { return causal ? s0 : 0; }

// Rows [r0, end) of a (..., L, x) tensor.
Tensor rows_from(const Tensor& t, int64_t r0) { return r0 == 0 ? t : t.narrow(-2, r0, t.size(-2) - r0); }

// Scores of query rows [r0, L) against keys [s0, s0 + kb.size(-2)), with the mask block and
// the causal cut applied (qs: the query times scale, so that no tile needs a scaling pass).
Tensor block_scores(const Tensor& qs, const Tensor& kb, const Tensor& mask, bool causal, int64_t r0,
                    int64_t s0) {
  const int64_t n = kb.size(-2);
  Tensor s = ember::matmul(rows_from(qs, r0), kb.transpose(-2, -1));
  if (mask.defined()) {
    const Tensor mb = rows_from(mask, r0).narrow(-1, s0, n);
    s = mb.dtype() == kBool ? s.masked_fill(mb.logical_not(), -kInf) : s + mb;
  }
  if (causal) {
    const TensorOptions idx = TensorOptions().dtype(kLong).device(qs.device());
    const Tensor rows = ember::arange(r0, qs.size(-2), idx).unsqueeze(1);
    const Tensor cols = ember::arange(s0, s0 + n, idx).unsqueeze(0);
    s = s.masked_fill(cols > rows, -kInf);
  }
  return s;
}

// Keys past the last query row are all cut by is_causal: the loops stop before them.
int64_t keys_to_visit(const Tensor& q, const Tensor& k, bool causal) {
  return causal ? std::min(k.size(-2), q.size(-2)) : k.size(-2);
}

const Generator& device_generator(const Tensor& t) {
  return t.device().type() == kCPU ? detail::getDefaultCPUGenerator()
                                   : detail::getDefaultAcceleratorGenerator(t.device().type());
}

// The block's kept-and-rescaled mask (Note [SDPA dropout]).
Tensor dropout_mask(const Tensor& like, double p, const Generator& gen) {
  if (p >= 1) return ember::zeros_like(like);
  return ember::empty_like(like).bernoulli_(1 - p, gen).div_(1 - p);
}

// t (..., L - r0, x) placed in rows [r0, L) of a (..., L, x) tensor filled with `fill`.
Tensor pad_rows(const Tensor& t, int64_t r0, double fill = 0) {
  if (r0 == 0) return t;
  std::vector<int64_t> top = t.sizes().vec();
  top[top.size() - 2] = r0;
  return ember::cat({ember::full(top, fill, t.options()), t}, -2);
}

// Each row's logsumexp over all keys, block by block (recorded when grad mode is on).
Tensor blocked_logsumexp(const Tensor& q, const Tensor& k, const Tensor& mask, bool causal, double scale,
                         int64_t block) {
  std::vector<Tensor> parts;
  const Tensor qs = q * scale;
  const int64_t end = keys_to_visit(q, k, causal);
  for (int64_t s0 = 0; s0 < end; s0 += block) {
    const int64_t r0 = first_row(causal, s0);
    const Tensor kb = k.narrow(-2, s0, std::min(block, end - s0));
    parts.push_back(
        pad_rows(ember::logsumexp(block_scores(qs, kb, mask, causal, r0, s0), {-1}, true), r0, -kInf));
  }
  if (parts.empty()) {
    std::vector<int64_t> row = q.sizes().vec();
    row.back() = 1;
    return ember::full(row, -kInf, q.options());
  }
  return ember::logsumexp(ember::cat(parts, -1), {-1}, true);
}

struct ScaledDotProductAttention : autograd::Function<ScaledDotProductAttention> {
  // Runs without grad mode (Function::apply), so the running state is updated in place.
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& q, const Tensor& k, const Tensor& v,
                        const Tensor& mask, double dropout_p, bool causal, double scale, int64_t block) {
    std::vector<int64_t> row(q.sizes().begin(), q.sizes().end());
    row.back() = 1;
    std::vector<int64_t> out_shape = row;
    out_shape.back() = v.size(-1);
    Tensor m = ember::full(row, -kInf, q.options());
    Tensor l = ember::zeros(row, q.options());
    Tensor acc = ember::zeros(out_shape, q.options());
    const bool drop = dropout_p > 0;
    Tensor state;
    if (drop) {
      const Generator& gen = device_generator(q);
      std::lock_guard<std::mutex> lock(gen.mutex());
      state = gen.get_state();
    }
    const Tensor qs = q * scale;
    const int64_t end = keys_to_visit(q, k, causal);
    for (int64_t s0 = 0; s0 < end; s0 += block) {
      const int64_t n = std::min(block, end - s0), r0 = first_row(causal, s0);
      const Tensor s = block_scores(qs, k.narrow(-2, s0, n), mask, causal, r0, s0);
      const Tensor m_old = rows_from(m, r0);
      const Tensor m_new = ember::maximum(m_old, s.amax({-1}, true));
      // A row with no key kept so far has m_new = -inf: shift by 0 instead, so exp gives 0, not nan.
      const Tensor m_safe = m_new.masked_fill(m_new.isinf(), 0);
      Tensor p = ember::exp(s - m_safe);
      const Tensor alpha = ember::exp(m_old - m_safe);
      const Tensor l_r = rows_from(l, r0), acc_r = rows_from(acc, r0);
      l_r.copy_(l_r * alpha + p.sum({-1}, true));
      if (drop) p = p * dropout_mask(p, dropout_p, device_generator(q));
      acc_r.copy_(acc_r * alpha + ember::matmul(p, v.narrow(-2, s0, n)));
      m_old.copy_(m_new);
    }
    // No keys: PyTorch's softmax over an empty row then matmul gives zeros.
    Tensor out = k.size(-2) == 0 ? acc : acc / l;
    const Tensor lse = m.masked_fill(m.isinf(), 0) + ember::log(l);
    ctx->save_for_backward({q, k, v, mask, out, lse});
    ctx->saved_data["dropout_p"] = dropout_p;
    ctx->saved_data["causal"] = causal;
    ctx->saved_data["scale"] = scale;
    ctx->saved_data["block"] = block;
    if (drop) ctx->saved_data["rng_state"] = state;
    return out;
  }

  // Ordinary ops only (no in-place), so that create_graph records a differentiable backward.
  static autograd::variable_list backward(autograd::AutogradContext* ctx, autograd::variable_list grads) {
    const autograd::variable_list saved = ctx->get_saved_variables();
    const Tensor &q = saved[0], &k = saved[1], &v = saved[2], &mask = saved[3], &out = saved[4];
    const double dropout_p = ctx->saved_data["dropout_p"].toDouble();
    const bool causal = ctx->saved_data["causal"].toBool();
    const double scale = ctx->saved_data["scale"].toDouble();
    const int64_t block = ctx->saved_data["block"].toInt();
    const Tensor& dout = grads[0];
    const Tensor lse =
        GradMode::is_enabled() ? blocked_logsumexp(q, k, mask, causal, scale, block) : saved[5];
    const Tensor d = (dout * out).sum({-1}, true);
    const bool drop = dropout_p > 0;
    Generator gen;
    if (drop) {
      gen = device_generator(q).clone();
      gen.set_state(ctx->saved_data["rng_state"].toTensor());
    }
    const bool mask_grad = mask.defined() && ctx->needs_input_grad(3);
    const Tensor qs = q * scale;
    Tensor dq = ember::zeros_like(q);
    std::vector<Tensor> dk, dv, dmask;
    const int64_t end = keys_to_visit(q, k, causal);
    for (int64_t s0 = 0; s0 < end; s0 += block) {
      const int64_t n = std::min(block, end - s0), r0 = first_row(causal, s0);
      const Tensor kb = k.narrow(-2, s0, n), dout_r = rows_from(dout, r0);
      const Tensor p = ember::exp(block_scores(qs, kb, mask, causal, r0, s0) - rows_from(lse, r0));
      Tensor dp = ember::matmul(dout_r, v.narrow(-2, s0, n).transpose(-2, -1));
      Tensor pd = p;
      if (drop) {
        const Tensor z = dropout_mask(p, dropout_p, gen);
        pd = p * z;
        dp = dp * z;
      }
      dv.push_back(ember::matmul(pd.transpose(-2, -1), dout_r));
      // ds: the gradient of the scores (and of a float mask); the scale goes on dq once at the end.
      const Tensor ds = p * (dp - rows_from(d, r0));
      if (mask_grad) dmask.push_back(ds);  // a mask excludes is_causal, so r0 == 0 here
      dq = dq + pad_rows(ember::matmul(ds, kb), r0);
      dk.push_back(ember::matmul(ds.transpose(-2, -1), rows_from(qs, r0)));
    }
    dq = dq * scale;
    if (end < k.size(-2)) {  // keys no query attends to: zero gradients
      dk.push_back(ember::zeros_like(k.narrow(-2, end, k.size(-2) - end)));
      dv.push_back(ember::zeros_like(v.narrow(-2, end, k.size(-2) - end)));
    }
    if (dk.empty())
      return {dq,
              ember::zeros_like(k),
              ember::zeros_like(v),
              mask_grad ? ember::zeros_like(mask) : Tensor(),
              {},
              {},
              {},
              {}};
    return {
        dq, ember::cat(dk, -2), ember::cat(dv, -2), mask_grad ? ember::cat(dmask, -1) : Tensor(), {}, {}, {},
        {}};
  }
};

std::vector<int64_t> broadcast_batch(const std::vector<IntArrayRef>& shapes) {
  size_t n = 0;
  for (IntArrayRef s : shapes) n = std::max(n, s.size());
  std::vector<int64_t> r(n, 1);
  for (IntArrayRef s : shapes) {
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t& d = r[n - s.size() + i];
      EMBER_CHECK_ARG(d == 1 || s[i] == 1 || d == s[i],
                      "scaled_dot_product_attention: the batch dims of query, key and value must broadcast, "
                      "got {}",
                      detail::shape_str(s));
      if (s[i] != 1) d = s[i];
    }
  }
  return r;
}

}  // namespace

namespace nn::detail {

Tensor scaled_dot_product_attention_blocked(const Tensor& query, const Tensor& key, const Tensor& value,
                                            const Tensor& attn_mask, double dropout_p, bool is_causal,
                                            std::optional<double> scale, int64_t block_size) {
  constexpr const char* kOp = "scaled_dot_product_attention";
  EMBER_CHECK_ARG(query.defined() && key.defined() && value.defined(), "{}: undefined query, key or value",
                  kOp);
  EMBER_CHECK_ARG(
      query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2,
      "{}: Expected query, key, and value to all be at least 2 dimensional, but got query.dim: {}, "
      "key.dim: {} and value.dim: {} instead.",
      kOp, query.dim(), key.dim(), value.dim());
  EMBER_CHECK_ARG(
      query.dtype() == key.dtype() && query.dtype() == value.dtype(),
      "{}: Expected query, key, and value to have the same dtype, but got query.dtype: {} key.dtype: "
      "{} and value.dtype: {} instead.",
      kOp, ember::detail::torch_name(query.dtype()), ember::detail::torch_name(key.dtype()),
      ember::detail::torch_name(value.dtype()));
  EMBER_CHECK_ARG(is_floating_point(query.dtype()), "{}: Expected query to be floating point, got {}", kOp,
                  ember::detail::torch_name(query.dtype()));
  EMBER_CHECK_ARG(query.device() == key.device() && query.device() == value.device(),
                  "{}: Expected query, key, and value to be on the same device", kOp);
  const int64_t L = query.size(-2), S = key.size(-2), E = query.size(-1);
  EMBER_CHECK_ARG(key.size(-1) == E,
                  "{}: Expected query and key to have the same embedding size, got {} and {}", kOp, E,
                  key.size(-1));
  EMBER_CHECK_ARG(value.size(-2) == S,
                  "{}: Expected key and value to have the same sequence length, got {} and {}", kOp, S,
                  value.size(-2));
  EMBER_CHECK_ARG(dropout_p >= 0 && dropout_p <= 1,
                  "{}: dropout probability has to be between 0 and 1, but got {}", kOp, dropout_p);
  EMBER_CHECK_ARG(block_size > 0, "{}: block size must be positive, got {}", kOp, block_size);
  EMBER_CHECK_ARG(!(is_causal && attn_mask.defined()),
                  "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  std::vector<int64_t> batch =
      broadcast_batch({query.sizes().slice(0, query.dim() - 2), key.sizes().slice(0, key.dim() - 2),
                       value.sizes().slice(0, value.dim() - 2)});
  auto with = [&](int64_t a, int64_t b) {
    std::vector<int64_t> s = batch;
    s.push_back(a);
    s.push_back(b);
    return s;
  };
  Tensor mask;
  if (attn_mask.defined()) {
    EMBER_CHECK_ARG(
        attn_mask.dtype() == kBool || attn_mask.dtype() == query.dtype(),
        "{}: Expected attn_mask dtype to be bool or to match query dtype, but got attn_mask.dtype: "
        "{} and  query.dtype: {} instead.",
        kOp, ember::detail::torch_name(attn_mask.dtype()), ember::detail::torch_name(query.dtype()));
    const std::vector<int64_t> full = with(L, S);
    bool fits = attn_mask.dim() <= int64_t(full.size());
    for (int64_t i = 1; fits && i <= attn_mask.dim(); ++i) {
      const int64_t m = attn_mask.size(-i), f = full[full.size() - size_t(i)];
      fits = m == 1 || m == f;
    }
    EMBER_CHECK_ARG(fits, "{}: attn_mask of shape {} does not broadcast to the attention shape {}", kOp,
                    ember::detail::shape_str(attn_mask.sizes()), ember::detail::shape_str(full));
    mask = attn_mask.expand(full);
  }
  const double s = scale ? *scale : 1.0 / std::sqrt(double(E));
  return ScaledDotProductAttention::apply(query.expand(with(L, E)), key.expand(with(S, E)),
                                          value.expand(with(S, value.size(-1))), mask, dropout_p, is_causal,
                                          s, block_size);
}

}  // namespace nn::detail

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  return nn::detail::scaled_dot_product_attention_blocked(query, key, value, attn_mask, dropout_p, is_causal,
                                                          scale, kBlock);
}

namespace nn::functional {
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  return ember::scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale);
}
}  // namespace nn::functional

}  // namespace ember
