// The Transformer layers and stacks: parameter names, each layer against its submodules
// composed by hand (post- and pre-norm, relu, gelu and a custom activation, masks),
// batch_first and unbatched forms, the stacks and their final norm, the square subsequent
// mask, float64 gradcheck and libtorch's error texts.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <vector>

#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::variable_list;
using nn_test::check;
using nn_test::expect_error;

namespace {

std::vector<std::string> names(const nn::Module& m) {
  std::vector<std::string> r;
  for (const auto& p : m.named_parameters()) r.push_back(p.key());
  return r;
}

Tensor attend(nn::MultiheadAttention& a, const Tensor& q, const Tensor& kv, const Tensor& mask = {},
              const Tensor& kpm = {}) {
  return std::get<0>(a(q, kv, kv, kpm, true, mask));
}

}  // namespace

TEST_CASE("nn transformer: parameter names, printing and the square subsequent mask") {
  nn::TransformerEncoderLayer enc(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(3));
  CHECK(names(*enc) == std::vector<std::string>{
                           "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
                           "self_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight",
                           "linear2.bias", "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias"});
  nn::Transformer t(nn::TransformerOptions(4, 2, 1, 2).dim_feedforward(3));
  const std::vector<std::string> tn = names(*t);
  CHECK(tn.size() == 14 + 2 * 18 + 2);
  CHECK(tn[12] == "encoder.norm.weight");
  CHECK(tn[18] == "decoder.layers.0.multihead_attn.in_proj_weight");
  CHECK(tn.back() == "decoder.norm.bias");
  // xavier_uniform_ of every matrix: distinct layers get distinct weights.
  CHECK(!equal(t->named_parameters()["decoder.layers.0.linear1.weight"],
               t->named_parameters()["decoder.layers.1.linear1.weight"]));
  const std::string p = nn_test::printed(enc);
  CHECK(p.rfind("ember::nn::TransformerEncoderLayerImpl(\n  (self_attn): ember::nn::MultiheadAttention(\n",
                0) == 0);
  const float inf = std::numeric_limits<float>::infinity();
  CHECK(equal(nn::TransformerImpl::generate_square_subsequent_mask(3),
              tensor({0.f, -inf, -inf, 0.f, 0.f, -inf, 0.f, 0.f, 0.f}).view({3, 3})));
  CHECK(nn::TransformerImpl::generate_square_subsequent_mask(0).sizes().vec() == std::vector<int64_t>{0, 0});
  expect_error([] { nn::TransformerImpl::generate_square_subsequent_mask(-1); },
               "Input size must be non-negative to genearte a valid square subsequent mask, but got -1");
  expect_error(
      [] { nn::TransformerEncoderLayer(nn::TransformerEncoderLayerOptions(4, 2).activation(kTanh)); },
      "TransformerEncoderLayer: activation must be kReLU, kGELU or a function");
}

TEST_CASE("nn transformer: encoder layer equals its submodules composed, post- and pre-norm") {
  manual_seed(ember_test::fresh_seed());
  const Tensor x = randn({3, 2, 4}, kDouble);
  const Tensor mask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(kDouble);
  const Tensor kpm = tensor({false, false, true, false, false, false}).view({2, 3});
  for (bool norm_first : {false, true}) {
    for (int act = 0; act < 3; ++act) {
      INFO("norm_first " << norm_first << " activation " << act);
      auto o = nn::TransformerEncoderLayerOptions(4, 2)
                   .dim_feedforward(5)
                   .norm_first(norm_first)
                   .layer_norm_eps(1e-3);
      if (act == 1) o.activation(kGELU);
      if (act == 2) o.activation([](const Tensor& t) { return t.tanh(); });
      nn::TransformerEncoderLayer l(o);
      l->to(kDouble);
      l->eval();
      auto ff = [&](const Tensor& h) {
        Tensor a = l->linear1(h);
        a = act == 0 ? F::relu(a) : act == 1 ? F::gelu(a) : a.tanh();
        return l->linear2(a);
      };
      Tensor want;
      if (norm_first) {
        const Tensor n1 = l->norm1(x);
        const Tensor h = x + attend(l->self_attn, n1, n1, mask, kpm);
        want = h + ff(l->norm2(h));
      } else {
        const Tensor h = l->norm1(x + attend(l->self_attn, x, x, mask, kpm));
        want = l->norm2(h + ff(h));
      }
      CHECK(allclose(l(x, mask, kpm), want, 1e-10, 1e-12));
      CHECK(l->norm1->options.eps() == 1e-3);
    }
  }
}

TEST_CASE("nn transformer: decoder layer equals its submodules composed") {
  manual_seed(ember_test::fresh_seed());
  const Tensor tgt = randn({3, 2, 4}, kDouble), mem = randn({5, 2, 4}, kDouble);
  const Tensor tmask = nn::TransformerImpl::generate_square_subsequent_mask(3).to(kDouble);
  const Tensor mkpm =
      tensor({false, true, false, false, true, false, false, false, false, false}).view({2, 5});
  for (bool norm_first : {false, true}) {
    nn::TransformerDecoderLayer l(
        nn::TransformerDecoderLayerOptions(4, 2).dim_feedforward(6).norm_first(norm_first).activation(kGELU));
    l->to(kDouble);
    l->eval();
    auto ff = [&](const Tensor& h) { return l->linear2(F::gelu(l->linear1(h))); };
    Tensor want;
    if (norm_first) {
      const Tensor n1 = l->norm1(tgt);
      Tensor h = tgt + attend(l->self_attn, n1, n1, tmask);
      h = h + attend(l->multihead_attn, l->norm2(h), mem, {}, mkpm);
      want = h + ff(l->norm3(h));
    } else {
      Tensor h = l->norm1(tgt + attend(l->self_attn, tgt, tgt, tmask));
      h = l->norm2(h + attend(l->multihead_attn, h, mem, {}, mkpm));
      want = l->norm3(h + ff(h));
    }
    CHECK(allclose(l(tgt, mem, tmask, Tensor(), Tensor(), mkpm), want, 1e-10, 1e-12));
  }
}

TEST_CASE("nn transformer: stacks, final norms, batch_first and unbatched inputs") {
  manual_seed(ember_test::fresh_seed());
  nn::TransformerEncoderLayer layer(nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(3).dropout(0.0));
  nn::LayerNorm norm(nn::LayerNormOptions({4}));
  nn::TransformerEncoder enc(nn::TransformerEncoderOptions(layer, 2).norm(nn::AnyModule(norm)));
  const Tensor x = randn({3, 2, 4});
  Tensor want = x;
  for (size_t i = 0; i < 2; ++i) want = enc->layers->at<nn::TransformerEncoderLayerImpl>(i).forward(want);
  CHECK(allclose(enc(x), enc->norm.forward<Tensor>(want), 1e-6, 1e-6));
  // Unbatched (S, E) equals batch 1.
  CHECK(allclose(enc(x.select(1, 0)), enc(x.narrow(1, 0, 1)).squeeze(1), 1e-6, 1e-6));

  nn::Transformer t(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3).dropout(0.0));
  nn::Transformer tb(nn::TransformerOptions(4, 2, 1, 1).dim_feedforward(3).dropout(0.0).batch_first(true));
  for (auto& p : tb->named_parameters()) p.value().data().copy_(t->named_parameters()[p.key()]);
  const Tensor src = randn({5, 2, 4}), tgt = randn({3, 2, 4});
  const Tensor tmask = nn::TransformerImpl::generate_square_subsequent_mask(3);
  const Tensor out = t(src, tgt, Tensor(), tmask);
  CHECK(out.sizes().vec() == std::vector<int64_t>{3, 2, 4});
  CHECK(allclose(tb(src.transpose(0, 1), tgt.transpose(0, 1), Tensor(), tmask), out.transpose(0, 1), 1e-5,
                 1e-6));
  // Sequence length 1 and batch 1.
  CHECK(t(src.narrow(0, 0, 1).narrow(1, 0, 1), tgt.narrow(0, 0, 1).narrow(1, 0, 1)).sizes().vec() ==
        std::vector<int64_t>{1, 1, 4});
  expect_error([&] { t(src[0], tgt); }, "src and tgt should have 3 dimensions, but got 2 and 3", src);
  expect_error([&] { t(src, tgt.narrow(1, 0, 1)); },
               "src and tgt should have equal batch size (at dim 1), but got 2 and 1");
  expect_error([&] { tb(src, tgt); }, "src and tgt should have equal batch size (at dim 0), but got 5 and 3");
  expect_error(
      [&] {
        t(src, randn({3, 2, 3}));
      },
      "src and tgt should have same feature size as d_model (at dim 2), but got 4 and 3 while d_model is 4");
}

TEST_CASE("nn transformer: gradcheck of the layers in float64") {
  manual_seed(6);
  nn::TransformerEncoderLayer enc(
      nn::TransformerEncoderLayerOptions(4, 2).dim_feedforward(3).dropout(0.0).activation(kGELU));
  enc->to(kDouble);
  const Tensor kpm = tensor({false, true, false}).view({1, 3}).expand({2, 3});
  CHECK(check([&](const variable_list& v) { return enc(v[0], Tensor(), kpm); },
              {randn({3, 2, 4}, kDouble).requires_grad_()}));
  nn::TransformerDecoderLayer dec(
      nn::TransformerDecoderLayerOptions(4, 1).dim_feedforward(3).dropout(0.0).norm_first(true));
  dec->to(kDouble);
  CHECK(check([&](const variable_list& v) { return dec(v[0], v[1]); },
              {randn({2, 1, 4}, kDouble).requires_grad_(), randn({3, 1, 4}, kDouble).requires_grad_()}));
}
