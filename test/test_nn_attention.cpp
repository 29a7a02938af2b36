// scaled_dot_product_attention against softmax(q k^T * scale + mask) v over several key
// blocks (every mask form, is_causal, broadcast batch dims, dropout's documented draws),
// float64 gradcheck of query, key, value and a float mask (second derivatives too), and
// MultiheadAttention: parameters, its two paths (weights or not) agreeing, mask forms,
// unbatched and batch_first inputs, gradcheck, errors.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "fake_accelerator.h"
#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
namespace F = ember::nn::functional;
using autograd::variable_list;
using nn_test::check;
using nn_test::expect_error;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor leaf(std::vector<int64_t> sizes) { return randn(sizes, kDouble).requires_grad_(); }

Tensor naive(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& mask, bool causal, double scale,
             const Tensor& drop = {}) {
  Tensor s = matmul(q, k.transpose(-2, -1)) * scale;
  if (mask.defined()) s = mask.dtype() == kBool ? s.masked_fill(mask.logical_not(), -kInf) : s + mask;
  if (causal) {
    const Tensor i = arange(q.size(-2)).unsqueeze(1), j = arange(k.size(-2)).unsqueeze(0);
    s = s.masked_fill(j > i, -kInf);
  }
  Tensor p = softmax(s, -1);
  if (drop.defined()) p = p * drop;
  return matmul(p, v);
}

// Every row keeps at least its first key, so no row is all -inf.
Tensor keep_mask(std::vector<int64_t> sizes) {
  return (rand(sizes) > 0.4).logical_or(arange(sizes.back()) == 0);
}

Tensor sdpa(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& m = {}, bool causal = false,
            std::optional<double> scale = std::nullopt, int64_t block = 3, double p = 0) {
  return nn::detail::scaled_dot_product_attention_blocked(q, k, v, m, p, causal, scale, block);
}

}  // namespace

TEST_CASE("nn attention: sdpa equals the naive softmax attention over several key blocks") {
  manual_seed(ember_test::fresh_seed());
  const Tensor q = randn({2, 3, 5, 4}, kDouble), k = randn({2, 3, 11, 4}, kDouble),
               v = randn({2, 3, 11, 6}, kDouble);
  const double s = 0.5;
  for (int64_t block : {1, 3, 4, 11, 128}) {
    INFO("block " << block);
    CHECK(allclose(sdpa(q, k, v, {}, false, std::nullopt, block), naive(q, k, v, {}, false, 0.5), 1e-12,
                   1e-12));
    CHECK(allclose(sdpa(q, k, v, {}, false, 0.3, block), naive(q, k, v, {}, false, 0.3), 1e-12, 1e-12));
    CHECK(allclose(sdpa(q, k, v, {}, true, std::nullopt, block), naive(q, k, v, {}, true, s), 1e-12, 1e-12));
    for (std::vector<int64_t> ms :
         {std::vector<int64_t>{5, 11}, {2, 1, 5, 11}, {1, 3, 5, 11}, {2, 3, 5, 11}, {5, 1}}) {
      INFO("mask " << ms.size() << "-D");
      const Tensor bm = ms.back() == 1 ? ones(ms, kBool) : keep_mask(ms);
      CHECK(allclose(sdpa(q, k, v, bm, false, std::nullopt, block), naive(q, k, v, bm, false, s), 1e-12,
                     1e-12));
      const Tensor fm = randn(ms, kDouble);
      CHECK(allclose(sdpa(q, k, v, fm, false, std::nullopt, block), naive(q, k, v, fm, false, s), 1e-12,
                     1e-12));
    }
  }
  // The public entry (blocks of 128) over 300 keys, float32, with a -inf float mask.
  const Tensor qf = randn({2, 7, 8}), kf = randn({2, 300, 8}), vf = randn({2, 300, 3});
  Tensor fm = zeros({7, 300}).masked_fill(rand({7, 300}) > 0.7, -kInf);
  CHECK(allclose(scaled_dot_product_attention(qf, kf, vf, fm),
                 naive(qf, kf, vf, fm, false, 1 / std::sqrt(8.0)), 1e-5, 1e-6));
  CHECK(allclose(F::scaled_dot_product_attention(qf, kf, vf, {}, 0.0, true),
                 naive(qf, kf, vf, {}, true, 1 / std::sqrt(8.0)), 1e-5, 1e-6));
  // Unbatched (L, E), broadcast batch dims, one query, one key.
  CHECK(allclose(sdpa(q[0][0], k[0][0], v[0][0]), naive(q[0][0], k[0][0], v[0][0], {}, false, s), 1e-12,
                 1e-12));
  const Tensor kb = randn({3, 11, 4}, kDouble), vb = randn({1, 11, 6}, kDouble);
  CHECK(allclose(sdpa(q, kb, vb), naive(q, kb, vb, {}, false, s), 1e-12, 1e-12));
  CHECK(allclose(sdpa(q.narrow(2, 0, 1), k, v), naive(q.narrow(2, 0, 1), k, v, {}, false, s), 1e-12, 1e-12));
  CHECK(allclose(sdpa(q, k.narrow(2, 0, 1), v.narrow(2, 0, 1)), v.narrow(2, 0, 1).expand({2, 3, 5, 6}), 1e-12,
                 1e-12));
  // Causal with more queries than keys: the first rows see key 0 only.
  const Tensor q9 = randn({9, 4}, kDouble), k4 = randn({4, 4}, kDouble), v4 = randn({4, 2}, kDouble);
  CHECK(allclose(sdpa(q9, k4, v4, {}, true), naive(q9, k4, v4, {}, true, s), 1e-12, 1e-12));
  // No keys: zeros, as softmax over nothing then matmul.
  CHECK(equal(sdpa(q9, zeros({0, 4}, kDouble), zeros({0, 2}, kDouble)), zeros({9, 2}, kDouble)));
}

TEST_CASE("nn attention: sdpa dropout draws one mask per key block in block order") {
  const Tensor q = randn({2, 5, 4}, kDouble), k = randn({2, 7, 4}, kDouble), v = randn({2, 7, 3}, kDouble);
  manual_seed(11);
  const Tensor got = sdpa(q, k, v, {}, false, std::nullopt, 3, 0.4);
  manual_seed(11);
  std::vector<Tensor> z;
  for (int64_t s0 = 0; s0 < 7; s0 += 3)
    z.push_back(empty({2, 5, std::min<int64_t>(3, 7 - s0)}, kDouble).bernoulli_(0.6).div_(0.6));
  CHECK(allclose(got, naive(q, k, v, {}, false, 0.5, cat(z, -1)), 1e-12, 1e-12));
  CHECK(equal(sdpa(q, k, v, {}, false, std::nullopt, 3, 1.0), zeros({2, 5, 3}, kDouble)));
  // is_causal: the block of keys from s0 draws for query rows s0.. only.
  manual_seed(12);
  const Tensor causal = sdpa(q, k, v, {}, true, std::nullopt, 2, 0.4);
  manual_seed(12);
  z.clear();
  for (int64_t s0 = 0; s0 < 5; s0 += 2) {
    const int64_t n = std::min<int64_t>(2, 5 - s0);
    const Tensor drawn = empty({2, 5 - s0, n}, kDouble).bernoulli_(0.6).div_(0.6);
    z.push_back(cat({zeros({2, s0, n}, kDouble), drawn}, 1));
  }
  z.push_back(zeros({2, 5, 2}, kDouble));  // keys 5 and 6: after the last query, never drawn
  CHECK(allclose(causal, naive(q, k, v, {}, true, 0.5, cat(z, -1)), 1e-12, 1e-12));
  // The backward replays the same draws: gradcheck with the seed fixed inside.
  CHECK(check(
      [](const variable_list& x) {
        manual_seed(5);
        return sdpa(x[0], x[1], x[2], {}, false, std::nullopt, 2, 0.3);
      },
      {leaf({2, 3, 2}), leaf({2, 5, 2}), leaf({2, 5, 3})}));
  CHECK(check(
      [](const variable_list& x) {
        manual_seed(6);
        return sdpa(x[0], x[1], x[2], {}, true, std::nullopt, 2, 0.3);
      },
      {leaf({2, 5, 2}), leaf({2, 7, 2}), leaf({2, 7, 3})}));
}

TEST_CASE("nn attention: sdpa gradcheck of query, key, value and a float mask in float64") {
  manual_seed(3);
  CHECK(check([](const variable_list& x) { return sdpa(x[0], x[1], x[2], {}, false, std::nullopt, 2); },
              {leaf({2, 3, 2}), leaf({2, 5, 2}), leaf({2, 5, 3})}));
  CHECK(check([](const variable_list& x) { return sdpa(x[0], x[1], x[2], {}, true, 0.7, 2); },
              {leaf({4, 2}), leaf({5, 2}), leaf({5, 2})}));
  // More keys than queries with is_causal: the blocks past the last query get zero gradients.
  CHECK(check([](const variable_list& x) { return sdpa(x[0], x[1], x[2], {}, true, std::nullopt, 2); },
              {leaf({3, 2}), leaf({8, 2}), leaf({8, 3})}));
  const Tensor bm = keep_mask({3, 5});
  CHECK(check([&](const variable_list& x) { return sdpa(x[0], x[1], x[2], bm, false, std::nullopt, 2); },
              {leaf({1, 3, 2}), leaf({1, 5, 2}), leaf({1, 5, 2})}));
  CHECK(check([](const variable_list& x) { return sdpa(x[0], x[1], x[2], x[3], false, std::nullopt, 2); },
              {leaf({2, 3, 2}), leaf({1, 5, 2}), leaf({2, 5, 2}), leaf({3, 5})}));
  // Second derivatives (create_graph): the gradient of sum(out^2) wrt query, key and value.
  CHECK(check(
      [](const variable_list& x) {
        Tensor y = sdpa(x[0], x[1], x[2], {}, true, std::nullopt, 2);
        variable_list g = autograd::grad({(y * y).sum()}, {x[0], x[1], x[2]}, {}, true, true);
        return cat({g[0].flatten(), g[1].flatten(), g[2].flatten()});
      },
      {leaf({3, 2}), leaf({5, 2}), leaf({5, 2})}));
}

TEST_CASE("nn attention: sdpa memory grows linearly with the sequence length") {
  // 1024 queries x 1024 keys: the full float32 score matrix alone would take 4 MiB.
  const Tensor q = randn({1024, 8}), k = randn({1024, 8}), v = randn({1024, 8});
  const Device cpu(kCPU);
  memory::reset_peak_stats(cpu);
  const size_t before = memory::stats(cpu).allocated_bytes;
  const Tensor out = scaled_dot_product_attention(q, k, v, {}, 0.0, true);
  const size_t peak = memory::stats(cpu).peak_allocated_bytes - before;
  INFO("peak " << peak);
  CHECK(peak < (size_t(3) << 20));
  const Tensor ql = q.narrow(0, 0, 200), kl = k.narrow(0, 0, 300), vl = v.narrow(0, 0, 300);
  CHECK(allclose(out.narrow(0, 0, 200),
                 naive(ql, k.narrow(0, 0, 200), v.narrow(0, 0, 200), {}, true, 1 / std::sqrt(8.0)), 1e-5,
                 1e-6));
  CHECK(allclose(scaled_dot_product_attention(ql, kl, vl), naive(ql, kl, vl, {}, false, 1 / std::sqrt(8.0)),
                 1e-5, 1e-6));
}

TEST_CASE("nn attention: sdpa and MultiheadAttention run on another device type with the CPU's results") {
  // The PrivateUse1 test backend ("npu"): the kernel is ordinary ops, so it runs there as on the CPU.
  ember::testing::ensure_fake_accelerator();
  const Device npu(kPrivateUse1, 0);
  variable_list cpu{leaf({2, 5, 3}), leaf({2, 7, 3}), leaf({2, 7, 2}), leaf({5, 7})}, dev;
  for (const Tensor& t : cpu) dev.push_back(t.detach().to(npu).requires_grad_());
  const Tensor y = sdpa(cpu[0], cpu[1], cpu[2], cpu[3]), yd = sdpa(dev[0], dev[1], dev[2], dev[3]);
  CHECK(yd.device() == npu);
  CHECK(allclose(yd.to(kCPU), y, 1e-12, 1e-12));
  const Tensor g = randn(y.sizes(), kDouble);
  y.backward(g);
  yd.backward(g.to(npu));
  for (size_t i = 0; i < cpu.size(); ++i)
    CHECK(allclose(dev[i].grad().to(kCPU), cpu[i].grad(), 1e-12, 1e-12));
  // Dropout on that device draws from its generator and the backward replays the draws.
  CHECK(check(
      [&](const variable_list& x) {
        manual_seed(9);
        return sdpa(x[0].to(npu), x[1].to(npu), x[2].to(npu), {}, false, std::nullopt, 2, 0.5).to(kCPU);
      },
      {leaf({2, 3, 2}), leaf({2, 5, 2}), leaf({2, 5, 2})}));
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  const Tensor x = randn({3, 2, 4});
  const Tensor want = std::get<0>(mha(x, x, x, Tensor(), false));
  mha->to(npu);
  const Tensor xd = x.to(npu);
  CHECK(allclose(std::get<0>(mha(xd, xd, xd, Tensor(), false)).to(kCPU), want, 1e-5, 1e-6));
}

TEST_CASE("nn attention: MultiheadAttention dropout only while training") {
  manual_seed(ember_test::fresh_seed());
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).dropout(0.5));
  nn::MultiheadAttention plain(nn::MultiheadAttentionOptions(4, 2));
  for (auto& p : plain->named_parameters()) p.value().data().copy_(mha->named_parameters()[p.key()]);
  const Tensor x = randn({3, 2, 4});
  for (bool need_weights : {true, false}) {
    mha->eval();
    CHECK(
        allclose(std::get<0>(mha(x, x, x, Tensor(), need_weights)), std::get<0>(plain(x, x, x)), 1e-6, 1e-6));
    mha->train();
    manual_seed(3);
    const Tensor a = std::get<0>(mha(x, x, x, Tensor(), need_weights));
    manual_seed(3);
    CHECK(equal(std::get<0>(mha(x, x, x, Tensor(), need_weights)), a));
    CHECK(!allclose(a, std::get<0>(plain(x, x, x)), 1e-3, 1e-3));
  }
}

TEST_CASE("nn attention: sdpa errors") {
  const Tensor q = randn({2, 3, 4}), k = randn({2, 5, 4}), v = randn({2, 5, 4});
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({3, 5}, kBool), 0.0, true);
      },
      "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True", q);
  expect_error([&] { scaled_dot_product_attention(q, k.to(kDouble), v); },
               "scaled_dot_product_attention: Expected query, key, and value to have the same dtype, but got "
               "query.dtype: Float key.dtype: Double and value.dtype: Float instead.");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({3, 5}, kLong));
      },
      "scaled_dot_product_attention: Expected attn_mask dtype to be bool or to match query dtype, but "
      "got attn_mask.dtype: Long and  query.dtype: Float instead.");
  expect_error(
      [&] { scaled_dot_product_attention(q, k, v.narrow(1, 0, 4)); },
      "scaled_dot_product_attention: Expected key and value to have the same sequence length, got 5 and 4");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, k, v, ones({4, 5}, kBool));
      },
      "scaled_dot_product_attention: attn_mask of shape [4, 5] does not broadcast to the attention shape "
      "[2, 3, 5]");
  expect_error(
      [&] {
        scaled_dot_product_attention(q, randn({3, 5, 4}), randn({3, 5, 4}));
      },
      "scaled_dot_product_attention: the batch dims of query, key and value must broadcast, got [3]");
}

TEST_CASE("nn attention: MultiheadAttention parameters, initialisation and printing") {
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  std::vector<std::string> names;
  for (const auto& p : mha->named_parameters()) names.push_back(p.key());
  CHECK(names ==
        std::vector<std::string>{"in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"});
  CHECK(mha->in_proj_weight.sizes().vec() == std::vector<int64_t>{12, 4});
  CHECK(equal(mha->in_proj_bias, zeros({12})));
  CHECK(equal(mha->out_proj->bias, zeros({4})));
  CHECK(mha->head_dim == 2);
  CHECK(mha->in_proj_weight.abs().max().item<double>() <= std::sqrt(6.0 / 16));
  nn::MultiheadAttention sep(
      nn::MultiheadAttentionOptions(4, 1).kdim(3).vdim(5).bias(false).add_bias_kv(true));
  names.clear();
  for (const auto& p : sep->named_parameters()) names.push_back(p.key());
  CHECK(names == std::vector<std::string>{"q_proj_weight", "k_proj_weight", "v_proj_weight", "bias_k",
                                          "bias_v", "out_proj.weight"});
  CHECK(sep->k_proj_weight.sizes().vec() == std::vector<int64_t>{4, 3});
  CHECK(sep->v_proj_weight.sizes().vec() == std::vector<int64_t>{4, 5});
  CHECK(sep->bias_k.sizes().vec() == std::vector<int64_t>{1, 1, 4});
  CHECK(!sep->in_proj_weight.defined());
  CHECK(nn_test::printed(mha) ==
        "ember::nn::MultiheadAttention(\n  (out_proj): ember::nn::Linear(in_features=4, out_features=4, "
        "bias=true)\n)");
  expect_error([] { nn::MultiheadAttention(nn::MultiheadAttentionOptions(5, 2)); },
               "embed_dim must be divisible by num_heads");
}

TEST_CASE("nn attention: MultiheadAttention with and without weights agree, over every mask form") {
  manual_seed(ember_test::fresh_seed());
  for (bool add_bias_kv : {false, true}) {
    for (bool add_zero_attn : {false, true}) {
      nn::MultiheadAttention mha(
          nn::MultiheadAttentionOptions(6, 3).add_bias_kv(add_bias_kv).add_zero_attn(add_zero_attn));
      mha->to(kDouble);
      const Tensor q = randn({4, 2, 6}, kDouble), kv = randn({5, 2, 6}, kDouble);
      const Tensor am_bool = keep_mask({4, 5}).logical_not();
      const Tensor kpm_bool = (rand({2, 5}) > 0.7).logical_and(arange(5) != 0);
      const Tensor am_float = zeros({4, 5}, kDouble).masked_fill(am_bool, -kInf);
      const Tensor kpm_float = zeros({2, 5}, kDouble).masked_fill(kpm_bool, -kInf);
      const Tensor am3 = randn({6, 4, 5}, kDouble);
      for (int form = 0; form < 4; ++form) {
        INFO("add_bias_kv " << add_bias_kv << " add_zero_attn " << add_zero_attn << " form " << form);
        const Tensor am = form == 0 ? am_bool : form == 1 ? am_float : form == 2 ? am3 : Tensor();
        const Tensor kpm = form == 0 ? kpm_float : form == 1 ? kpm_bool : Tensor();
        auto [o1, w1] = mha(q, kv, kv, kpm, true, am);
        auto [o2, w2] = mha(q, kv, kv, kpm, false, am);
        CHECK(!w2.defined());
        CHECK(allclose(o1, o2, 1e-10, 1e-12));
        CHECK(w1.sizes().vec() == std::vector<int64_t>{2, 4, 5 + add_bias_kv + add_zero_attn});
        CHECK(allclose(w1.sum({-1}), ones({2, 4}, kDouble), 1e-12, 1e-12));
        if (form <= 1) {
          // bool and float forms of the same masks give the same result.
          auto [o3, w3] =
              mha(q, kv, kv, form == 0 ? kpm_bool : kpm_float, true, form == 0 ? am_float : am_bool);
          CHECK(allclose(o1, o3, 1e-12, 1e-12));
          CHECK(allclose(w1, w3, 1e-12, 1e-12));
        }
        auto [o4, w4] = mha(q, kv, kv, kpm, true, am, false);
        CHECK(w4.sizes().vec() == std::vector<int64_t>{2, 3, 4, 5 + add_bias_kv + add_zero_attn});
        CHECK(allclose(w4.mean({1}), w1, 1e-12, 1e-12));
      }
    }
  }
}

TEST_CASE("nn attention: MultiheadAttention unbatched, batch_first and self-attention forms") {
  manual_seed(ember_test::fresh_seed());
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  const Tensor q = randn({3, 1, 4}), kv = randn({5, 1, 4});
  const Tensor kpm = tensor({false, true, false, false, true});
  const Tensor am3 = randn({2, 3, 5});
  auto [ob, wb] = mha(q, kv, kv, kpm.unsqueeze(0), true, am3);
  auto [ou, wu] = mha(q.squeeze(1), kv.squeeze(1), kv.squeeze(1), kpm, true, am3);
  CHECK(allclose(ob.squeeze(1), ou, 1e-6, 1e-6));
  CHECK(allclose(wb.squeeze(0), wu, 1e-6, 1e-6));
  CHECK(wu.sizes().vec() == std::vector<int64_t>{3, 5});
  // batch_first: the same weights on transposed inputs give the transposed output.
  nn::MultiheadAttention bf(nn::MultiheadAttentionOptions(4, 2).batch_first(true));
  for (auto& p : bf->named_parameters()) p.value().data().copy_(mha->named_parameters()[p.key()]);
  const Tensor x = randn({2, 3, 4});
  auto [o1, w1] = bf(x, x, x);
  auto [o2, w2] = mha(x.transpose(0, 1), x.transpose(0, 1), x.transpose(0, 1));
  CHECK(allclose(o1, o2.transpose(0, 1), 1e-6, 1e-6));
  CHECK(allclose(w1, w2, 1e-6, 1e-6));
  // Self-attention on one tensor (the packed projection) equals three equal tensors.
  auto [o3, w3] = mha(x, x, x);
  auto [o4, w4] = mha(x, x.clone(), x.clone());
  CHECK(allclose(o3, o4, 1e-6, 1e-6));
  // Sequence length 1: the output is the projected value.
  const Tensor one = randn({1, 2, 4});
  auto [o5, w5] = mha(randn({1, 2, 4}), one, one);
  const Tensor vproj = F::linear(one, mha->in_proj_weight.slice(0, 8), mha->in_proj_bias.slice(0, 8));
  CHECK(allclose(o5, mha->out_proj(vproj), 1e-6, 1e-6));
  CHECK(equal(w5, ones({2, 1, 1})));
}

TEST_CASE("nn attention: MultiheadAttention gradcheck in float64") {
  manual_seed(4);
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2).kdim(3).vdim(2).add_bias_kv(true));
  mha->to(kDouble);
  const Tensor kpm = tensor({false, true, false}).unsqueeze(0).expand({2, 3}).contiguous();
  for (bool need_weights : {true, false}) {
    CHECK(check(
        [&](const variable_list& x) { return std::get<0>(mha(x[0], x[1], x[2], kpm, need_weights, x[3])); },
        {leaf({2, 2, 4}), leaf({3, 2, 3}), leaf({3, 2, 2}), leaf({2, 3})}));
  }
  nn::MultiheadAttention packed(nn::MultiheadAttentionOptions(4, 2));
  packed->to(kDouble);
  CHECK(check(
      [&](const variable_list& x) {
        F::MultiheadAttentionForwardFuncOptions o(4, 2, x[1], x[2], {}, {}, false, 0.0,
                                                  packed->out_proj->weight, packed->out_proj->bias);
        return std::get<0>(F::multi_head_attention_forward(x[0], x[0], x[0], o.need_weights(false)));
      },
      {leaf({3, 1, 4}), leaf({12, 4}), leaf({12})}));
}

TEST_CASE("nn attention: MultiheadAttention takes uint8 masks as bool, with PyTorch's warning") {
  struct Capture : WarningHandler {
    std::vector<std::string> messages;
    void process(const Warning& w) override { messages.push_back(w.msg()); }
  } capture;
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  const Tensor x = randn({3, 2, 4});
  const Tensor am = tensor({false, true, false, false, false, true, false, false, false}).view({3, 3});
  const Tensor kpm = tensor({false, false, true, false, false, false}).view({2, 3});
  Tensor got;
  {
    WarningUtils::WarningHandlerGuard guard(&capture);
    got = std::get<0>(mha(x, x, x, kpm.to(kUInt8), true, am.to(kUInt8)));
  }
  CHECK(allclose(got, std::get<0>(mha(x, x, x, kpm, true, am)), 1e-6, 1e-6));
  CHECK(capture.messages ==
        std::vector<std::string>{
            "Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.",
            "Byte tensor for key_padding_mask in nn.MultiheadAttention is deprecated. Use bool tensor "
            "instead."});
}

TEST_CASE("nn attention: MultiheadAttention errors, inputs unchanged") {
  nn::MultiheadAttention mha(nn::MultiheadAttentionOptions(4, 2));
  const Tensor q = randn({3, 2, 4}), k = randn({5, 2, 4});
  expect_error(
      [&] { mha(q, k[0], k); },
      "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found 2-D and 3-D tensors "
      "respectively",
      q);
  expect_error(
      [&] {
        mha(q, k, k, ones({2, 5, 1}, kBool));
      },
      "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found 3-D tensor "
      "instead");
  expect_error(
      [&] { mha(q, k, k, Tensor(), true, ones({5}, kBool)); },
      "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found 1-D tensor "
      "instead");
  expect_error(
      [&] {
        mha(q[0], k[0], k[0], ones({2, 5}, kBool));
      },
      "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found 2-D tensor "
      "instead");
  expect_error(
      [&] {
        mha(q[0], k[0], k[0], Tensor(), true, ones({3, 2, 5}, kBool));
      },
      "Expected `attn_mask` shape to be [2, 2, 2] but got [3, 2, 5]");
  expect_error([&] { mha(q.unsqueeze(0), k, k); },
               "query should be unbatched 2D or batched 3D tensor but received 4-D query tensor");
  expect_error([&] { mha(randn({3, 2, 6}), k, k); }, "was expecting embedding dimension of 4, but got 6");
  expect_error([&] { mha(q, k, k.narrow(0, 0, 4)); },
               "key shape [5, 2, 4] does not match value shape [4, 2, 4]");
  expect_error(
      [&] {
        mha(q, k, k, Tensor(), true, ones({3, 4}, kBool));
      },
      "The shape of the 2D attn_mask is [3, 4], but should be [3, 5].");
  expect_error(
      [&] {
        mha(q, k, k, Tensor(), true, ones({2, 3, 5}, kBool));
      },
      "The shape of the 3D attn_mask is [2, 3, 5], but should be [4, 3, 5].");
  expect_error(
      [&] {
        mha(q, k, k, ones({2, 4}, kBool));
      },
      "expecting key_padding_mask shape of [2, 5], but got [2, 4]");
  expect_error(
      [&] {
        mha(q, k, k, Tensor(), true, ones({3, 5}, kLong));
      },
      "Only float, byte, and bool types are supported for attn_mask, not Long");
}
