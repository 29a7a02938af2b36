// MultiheadAttention and the Transformer against libtorch 1.13 with the same weights copied in:
// outputs, attention weights and the gradients of inputs and parameters over the packed and
// separate projections, bias_k/bias_v, add_zero_attn, float attn_mask and bool
// key_padding_mask (and ember's bool attn_mask against libtorch's float equivalent), batch 1,
// sequence length 1; initialisation after manual_seed; printing and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::torch_error;

// libtorch's parameters take ember's values, name by name (the names must be the same).
void copy_params(ember::nn::Module& e, torch::nn::Module& t) {
  auto ep = e.named_parameters();
  auto tp = t.named_parameters();
  REQUIRE(ep.size() == tp.size());
  torch::NoGradGuard no_grad;
  for (auto& p : tp) {
    INFO(p.key());
    REQUIRE(ep.contains(p.key()));
    p.value().copy_(as_torch(ep[p.key()]));
  }
}

// Every parameter gradient equal to libtorch's.
void check_param_grads(ember::nn::Module& e, torch::nn::Module& t, double tol) {
  auto ep = e.named_parameters();
  for (auto& p : t.named_parameters()) {
    if (!p.value().grad().defined()) continue;
    check_close(ep[p.key()].grad(), p.value().grad(), tol, "grad of " + p.key());
  }
}

const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("libtorch attention: MultiheadAttention outputs, weights and gradients") {
  ember::manual_seed(crosscheck::fresh_seed());
  struct Case {
    int64_t E, heads, kdim, vdim;
    bool bias, bias_kv, zero_attn;
    int64_t L, S, N;
    int kind;  // 0 self-attention on one tensor, 1 key is value, 2 all different
  };
  const Case cases[] = {{4, 2, 4, 4, true, false, false, 3, 3, 2, 0},
                        {6, 3, 6, 6, true, true, false, 2, 5, 2, 1},
                        {4, 1, 3, 3, false, false, true, 3, 4, 1, 2},
                        {4, 2, 4, 4, true, true, true, 1, 1, 1, 2},
                        {4, 4, 4, 4, true, false, false, 1, 4, 3, 1}};
  // libtorch 1.13's C++ asserts key.sizes() == value.sizes(), so kdim == vdim here (test_nn_attention
  // covers kdim != vdim).
  for (const Case& c : cases) {
    for (int masks = 0; masks < 3; ++masks) {
      for (bool average : {true, false}) {
        INFO("E " << c.E << " heads " << c.heads << " kind " << c.kind << " masks " << masks << " average "
                  << average);
        auto eo = ember::nn::MultiheadAttentionOptions(c.E, c.heads)
                      .kdim(c.kdim)
                      .vdim(c.vdim)
                      .bias(c.bias)
                      .add_bias_kv(c.bias_kv)
                      .add_zero_attn(c.zero_attn);
        auto to = torch::nn::MultiheadAttentionOptions(c.E, c.heads)
                      .kdim(c.kdim)
                      .vdim(c.vdim)
                      .bias(c.bias)
                      .add_bias_kv(c.bias_kv)
                      .add_zero_attn(c.zero_attn);
        ember::nn::MultiheadAttention em(eo);
        torch::nn::MultiheadAttention tm(to);
        em->to(ember::kDouble);
        tm->to(torch::kDouble);
        copy_params(*em, *tm);
        const int64_t S = c.kind == 0 ? c.L : c.S;
        ember::Tensor q = ember::randn({c.L, c.N, c.E}, ember::kDouble).requires_grad_();
        ember::Tensor k = c.kind == 0 ? q : ember::randn({S, c.N, c.kdim}, ember::kDouble).requires_grad_();
        ember::Tensor v = c.kind <= 1 ? k : ember::randn({S, c.N, c.vdim}, ember::kDouble).requires_grad_();
        ember::Tensor am, kpm;
        if (masks >= 1) {
          am = ember::randn({c.L, S}, ember::kDouble);
          kpm = (ember::rand({c.N, S}) > 0.6).logical_and(ember::arange(S) != 0);
        }
        if (masks == 2)
          am = am.masked_fill(ember::rand({c.L, S}) > 0.7, -kInf).masked_fill(ember::arange(S) == 0, 0.0);
        const torch::Tensor tam = am.defined() ? as_torch(am) : torch::Tensor();
        const torch::Tensor tkpm = kpm.defined() ? as_torch(kpm) : torch::Tensor();
        torch::Tensor tq = as_torch(q.detach()).requires_grad_();
        torch::Tensor tk = c.kind == 0 ? tq : as_torch(k.detach()).requires_grad_();
        torch::Tensor tv = c.kind <= 1 ? tk : as_torch(v.detach()).requires_grad_();
        auto [eo_, ew] = em(q, k, v, kpm, true, am, average);
        auto [to_, tw] = tm(tq, tk, tv, tkpm, true, tam, average);
        check_close(eo_, to_, 1e-10, "output");
        check_close(ew, tw, 1e-10, "weights");
        const ember::Tensor g = ember::randn(eo_.sizes(), ember::kDouble);
        (eo_ * g).sum().add(ew.sum()).backward();
        (to_ * as_torch(g)).sum().add(tw.sum()).backward();
        check_close(q.grad(), tq.grad(), 1e-9, "grad query");
        if (c.kind >= 1) check_close(k.grad(), tk.grad(), 1e-9, "grad key");
        if (c.kind == 2) check_close(v.grad(), tv.grad(), 1e-9, "grad value");
        check_param_grads(*em, *tm, 1e-9);
        // Without weights ember takes scaled_dot_product_attention: the same output.
        auto [eo2, ew2] = em(q, k, v, kpm, false, am, average);
        CHECK(!ew2.defined());
        check_close(eo2, to_, 1e-10, "output without weights");
      }
    }
  }
}

TEST_CASE("libtorch attention: bool masks, initialisation after manual_seed, errors") {
  ember::manual_seed(crosscheck::fresh_seed());
  ember::nn::MultiheadAttention em(ember::nn::MultiheadAttentionOptions(4, 2));
  torch::nn::MultiheadAttention tm(torch::nn::MultiheadAttentionOptions(4, 2));
  copy_params(*em, *tm);
  const ember::Tensor x = ember::randn({3, 2, 4});
  const ember::Tensor bm = (ember::rand({3, 3}) > 0.5).logical_and(ember::arange(3) != 0);
  auto [eo, ew] = em(x, x, x, ember::Tensor(), true, bm);
  const torch::Tensor tam = torch::zeros({3, 3}).masked_fill(as_torch(bm), -kInf);
  auto [to, tw] = tm(as_torch(x), as_torch(x), as_torch(x), torch::Tensor(), true, tam);
  check_close(eo, to, 1e-6, "bool attn_mask output");
  check_close(ew, tw, 1e-6, "bool attn_mask weights");

  for (uint64_t seed : {1u, 77u}) {
    ember::manual_seed(seed);
    torch::manual_seed(seed);
    ember::nn::MultiheadAttention e1(ember::nn::MultiheadAttentionOptions(4, 2).add_bias_kv(true).kdim(3));
    torch::nn::MultiheadAttention t1(torch::nn::MultiheadAttentionOptions(4, 2).add_bias_kv(true).kdim(3));
    for (auto& p : t1->named_parameters())
      check_close(e1->named_parameters()[p.key()], p.value(), 1e-6, "init of " + p.key());
    ember::nn::Transformer e2(ember::nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3));
    torch::nn::Transformer t2(torch::nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3));
    for (auto& p : t2->named_parameters())
      check_close(e2->named_parameters()[p.key()], p.value(), 1e-6, "init of " + p.key());
  }
  CHECK(crosscheck::printed(em) == crosscheck::printed(tm));
  ember::nn::TransformerEncoderLayer el(ember::nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(3));
  torch::nn::TransformerEncoderLayer tl(torch::nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(3));
  CHECK(crosscheck::printed(el) == crosscheck::printed(tl));
  ember::nn::TransformerDecoderLayer edl(ember::nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(3));
  torch::nn::TransformerDecoderLayer tdl(torch::nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(3));
  CHECK(crosscheck::printed(edl) == crosscheck::printed(tdl));
  ember::nn::Transformer etp(ember::nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3));
  torch::nn::Transformer ttp(torch::nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3));
  CHECK(crosscheck::printed(etp) == crosscheck::printed(ttp));
  // With weights, dropout is F::dropout of the (N * heads, L, S) weights, drawn as libtorch draws it.
  {
    ember::nn::MultiheadAttention ed(ember::nn::MultiheadAttentionOptions(4, 2).dropout(0.3));
    torch::nn::MultiheadAttention td(torch::nn::MultiheadAttentionOptions(4, 2).dropout(0.3));
    copy_params(*ed, *td);
    const ember::Tensor y = ember::randn({3, 2, 4});
    ember::manual_seed(21);
    torch::manual_seed(21);
    auto [eo2, ew2] = ed(y, y, y);
    auto [to2, tw2] = td(as_torch(y), as_torch(y), as_torch(y));
    check_close(eo2, to2, 1e-6, "dropout output");
    check_close(ew2, tw2, 1e-6, "dropout weights");
  }
  CHECK(ember_error([] { ember::nn::MultiheadAttention(ember::nn::MultiheadAttentionOptions(5, 2)); }) ==
        torch_error([] { torch::nn::MultiheadAttention(torch::nn::MultiheadAttentionOptions(5, 2)); }));
  CHECK(ember_error([] { ember::nn::TransformerImpl::generate_square_subsequent_mask(-2); }) ==
        torch_error([] { torch::nn::TransformerImpl::generate_square_subsequent_mask(-2); }));
  check_close(ember::nn::TransformerImpl::generate_square_subsequent_mask(4).masked_fill(
                  ember::nn::TransformerImpl::generate_square_subsequent_mask(4).isinf(), -1.0),
              torch::nn::TransformerImpl::generate_square_subsequent_mask(4).masked_fill(
                  torch::nn::TransformerImpl::generate_square_subsequent_mask(4).isinf(), -1.0),
              0, "square subsequent mask");
  ember::nn::Transformer et(ember::nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3));
  torch::nn::Transformer tt(torch::nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3));
  const std::vector<std::vector<int64_t>> bad[] = {
      {{2, 4}, {2, 1, 4}}, {{2, 2, 4}, {2, 1, 4}}, {{2, 1, 4}, {2, 1, 3}}};
  for (const auto& shapes : bad) {
    const ember::Tensor s = ember::randn(shapes[0]), t = ember::randn(shapes[1]);
    CHECK(ember_error([&] { et(s, t); }) == torch_error([&] { tt(as_torch(s), as_torch(t)); }));
  }
}

TEST_CASE("libtorch attention: Transformer layers and model, values and gradients") {
  ember::manual_seed(crosscheck::fresh_seed());
  for (bool gelu : {false, true}) {
    INFO("gelu " << gelu);
    auto eeo = ember::nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(5).dropout(0.0);
    auto teo = torch::nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(5).dropout(0.0);
    auto edo = ember::nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(5).dropout(0.0);
    auto tdo = torch::nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(5).dropout(0.0);
    if (gelu) {
      eeo.activation(ember::kGELU);
      teo.activation(torch::kGELU);
      edo.activation(ember::kGELU);
      tdo.activation(torch::kGELU);
    }
    ember::nn::TransformerEncoder ee(ember::nn::TransformerEncoderOptions(eeo, 2).norm(
        ember::nn::AnyModule(ember::nn::LayerNorm(ember::nn::LayerNormOptions({4})))));
    torch::nn::TransformerEncoder te(torch::nn::TransformerEncoderOptions(teo, 2).norm(
        torch::nn::AnyModule(torch::nn::LayerNorm(torch::nn::LayerNormOptions({4})))));
    ember::nn::TransformerDecoder ed(ember::nn::TransformerDecoderOptions(edo, 2));
    torch::nn::TransformerDecoder td(torch::nn::TransformerDecoderOptions(tdo, 2));
    for (ember::nn::Module* m :
         {static_cast<ember::nn::Module*>(ee.get()), static_cast<ember::nn::Module*>(ed.get())})
      m->to(ember::kDouble);
    te->to(torch::kDouble);
    td->to(torch::kDouble);
    copy_params(*ee, *te);
    copy_params(*ed, *td);
    for (int64_t N : {1, 2}) {
      const int64_t S = 4, T = 3;
      ember::Tensor src = ember::randn({S, N, 4}, ember::kDouble).requires_grad_();
      ember::Tensor tgt = ember::randn({T, N, 4}, ember::kDouble).requires_grad_();
      const ember::Tensor smask = ember::randn({S, S}, ember::kDouble);
      const ember::Tensor tmask =
          ember::nn::TransformerImpl::generate_square_subsequent_mask(T).to(ember::kDouble);
      const ember::Tensor kpm = (ember::rand({N, S}) > 0.6).logical_and(ember::arange(S) != 0);
      torch::Tensor tsrc = as_torch(src.detach()).requires_grad_(),
                    ttgt = as_torch(tgt.detach()).requires_grad_();
      const torch::Tensor ttmask =
          torch::nn::TransformerImpl::generate_square_subsequent_mask(T).to(torch::kDouble);
      ember::Tensor mem = ee(src, smask, kpm);
      torch::Tensor tmem = te(tsrc, as_torch(smask), as_torch(kpm));
      check_close(mem, tmem, 1e-10, "encoder");
      ember::Tensor out = ed(tgt, mem, tmask, ember::Tensor(), ember::Tensor(), kpm);
      torch::Tensor tout = td(ttgt, tmem, ttmask, torch::Tensor(), torch::Tensor(), as_torch(kpm));
      check_close(out, tout, 1e-10, "decoder");
      const ember::Tensor g = ember::randn(out.sizes(), ember::kDouble);
      out.backward(g);
      tout.backward(as_torch(g));
      check_close(src.grad(), tsrc.grad(), 1e-9, "grad src");
      check_close(tgt.grad(), ttgt.grad(), 1e-9, "grad tgt");
      check_param_grads(*ee, *te, 1e-9);
      check_param_grads(*ed, *td, 1e-9);
      ee->zero_grad();
      ed->zero_grad();
      te->zero_grad();
      td->zero_grad();
    }
  }
  ember::nn::Transformer et(ember::nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(3));
  torch::nn::Transformer tt(torch::nn::TransformerOptions(4, 2, 2, 1).dim_feedforward(3));
  et->eval();
  tt->eval();
  copy_params(*et, *tt);
  const ember::Tensor src = ember::randn({5, 2, 4}), tgt = ember::randn({1, 2, 4});
  check_close(et(src, tgt), tt(as_torch(src), as_torch(tgt)), 1e-5, "Transformer in eval");
}
