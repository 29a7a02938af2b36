// Embedding and EmbeddingBag: values on hand-checkable tables (libtorch 1.13's numbers for the
// same calls), float64 gradcheck of weight and per_sample_weights (double backward too),
// padding, max_norm's in-place renorm, scale_grad_by_freq, from_pretrained, empty bags,
// printing and errors by type and text.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <functional>
#include <vector>

#include "fake_accelerator.h"
#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
namespace F = ember::nn::functional;

namespace {

using nn_test::check;
using nn_test::expect_error;
using nn_test::printed;

Tensor leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 2 - 1).requires_grad_(); }
// rows (-5, -4), (-3, -2), (-1, 0), (1, 2), (3, 4), (5, 6)
Tensor table() { return arange(12, kDouble).reshape({6, 2}) - 5; }
std::vector<double> ivalues(const Tensor& t) { return dvalues(t.to(kDouble)); }

}  // namespace

TEST_CASE("nn embedding: lookup values, int32 indices of any shape, padding and frequency gradients") {
  Tensor w = table().requires_grad_();
  Tensor y = ember::embedding(w, tensor({{1, 2}, {1, 4}}, kInt32), 2, true);
  CHECK(y.sizes() == IntArrayRef{2, 2, 2});
  CHECK(dvalues(y) == std::vector<double>{-3, -2, -1, 0, -3, -2, 3, 4});  // the padding row is still read
  y.backward(ones_like(y));
  // row 1 is used twice (scaled by 1/2), row 2 is padding
  CHECK(dvalues(w.grad()) == std::vector<double>{0, 0, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0});
  CHECK(F::embedding(tensor(int64_t(3)), table()).sizes() == IntArrayRef{2});
  CHECK(F::embedding(zeros({0, 3}, kInt64), table()).sizes() == IntArrayRef{0, 3, 2});

  Tensor idx = tensor({{1, 0}, {1, 3}});
  CHECK(check([&](const variable_list& v) { return F::embedding(idx, v[0]); }, {leaf({4, 2})}));
  // the gradient itself, differentiated again (with respect to the upstream factor)
  Tensor c = leaf({2, 2, 2});
  Tensor wt = leaf({4, 2});
  CHECK(check(
      [&](const variable_list& v) {
        Tensor out = F::embedding(idx, wt, F::EmbeddingFuncOptions().scale_grad_by_freq(true).padding_idx(0));
        return autograd::grad({(out * v[0]).sum()}, {wt}, {}, true, true)[0];
      },
      {c}));
  // F::embedding normalises a negative padding_idx
  Tensor w2 = table().requires_grad_();
  F::embedding(tensor({5, 4}), w2, F::EmbeddingFuncOptions().padding_idx(-1)).sum().backward();
  CHECK(dvalues(w2.grad()) == std::vector<double>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0});
}

TEST_CASE("nn embedding: max_norm renormalises the looked-up rows of the weight in place") {
  Tensor w = tensor({{3.0f, 4.0f}, {0.1f, 0.2f}, {1.0f, 1.0f}});
  Tensor y = F::embedding(tensor({0, 0, 2}), w, F::EmbeddingFuncOptions().max_norm(0.3));
  // libtorch 1.13's numbers: rows scaled by max_norm / (norm + 1e-7), unused row 1 untouched
  const std::vector<double> got = dvalues(w);
  CHECK(got[0] == Approx(0.18000000715255737).epsilon(1e-7));
  CHECK(got[1] == Approx(0.24000000953674316).epsilon(1e-7));
  CHECK(got[2] == 0.1f);
  CHECK(got[3] == 0.2f);
  CHECK(got[4] == Approx(0.2121320366859436).epsilon(1e-7));
  CHECK(dvalues(y)[0] == got[0]);
  // norm_type 1 and a row under max_norm stays as it is
  Tensor w1 = tensor({{1.0, 2.0}, {0.1, 0.1}}, kDouble);
  ember::embedding_renorm_(w1, tensor({1, 0}), 1.5, 1);
  CHECK(dvalues(w1)[0] == Approx(1.5 / (3 + 1e-7)));
  CHECK(dvalues(w1)[2] == 0.1);
  // the module renorms its own weight, without recording it
  nn::Embedding e(nn::EmbeddingOptions(3, 2).max_norm(1.0));
  e(tensor({0, 1, 2}));
  CHECK(e->weight.norm(2, {1}).max().item<double>() <= 1.0 + 1e-6);
  CHECK(e->weight.is_leaf());
}

TEST_CASE("nn embedding: module init, padding_idx, printing, from_pretrained") {
  manual_seed(0);
  nn::Embedding e(nn::EmbeddingOptions(4, 2).padding_idx(-1));
  CHECK(*e->options.padding_idx() == 3);
  CHECK(dvalues(e->weight.select(0, 3)) == std::vector<double>{0, 0});
  CHECK(dvalues(e->weight)[0] == Approx(1.5410).margin(1e-4));  // libtorch's N(0, 1) stream after seed 0
  e(tensor({3, 0})).sum().backward();
  CHECK(dvalues(e->weight.grad()) == std::vector<double>{1, 1, 0, 0, 0, 0, 0, 0});
  CHECK(printed(*e) == "ember::nn::Embedding(num_embeddings=4, embedding_dim=2, padding_idx=3)");
  CHECK(
      printed(*nn::Embedding(
          nn::EmbeddingOptions(10, 3).padding_idx(0).max_norm(0.5).norm_type(3).scale_grad_by_freq(true))) ==
      "ember::nn::Embedding(num_embeddings=10, embedding_dim=3, padding_idx=0, max_norm=0.5, norm_type=3, "
      "scale_grad_by_freq=true)");

  Tensor pre = table();
  auto frozen = nn::Embedding::from_pretrained(pre);
  CHECK_FALSE(frozen->weight.requires_grad());
  CHECK(frozen->weight.data_ptr() == pre.data_ptr());
  CHECK(dvalues(frozen(tensor({5}))) == std::vector<double>{5, 6});
  auto trainable = nn::Embedding::from_pretrained(
      table(), nn::EmbeddingFromPretrainedOptions().freeze(false).padding_idx(0));
  CHECK(trainable->weight.requires_grad());
  CHECK(*trainable->options.padding_idx() == 0);
  CHECK(dvalues(trainable->weight.select(0, 0)) == std::vector<double>{-5, -4});  // given rows are kept

  auto bag = nn::EmbeddingBag::from_pretrained(table(), nn::EmbeddingBagFromPretrainedOptions().mode(kSum));
  CHECK_FALSE(bag->weight.requires_grad());
  CHECK(printed(*bag) == "ember::nn::EmbeddingBag(num_embeddings=6, embedding_dim=2, mode=kSum)");
  CHECK(
      printed(*nn::EmbeddingBag(
          nn::EmbeddingBagOptions(4, 2).padding_idx(1).mode(kMax).include_last_offset(true).max_norm(1.0))) ==
      "ember::nn::EmbeddingBag(num_embeddings=4, embedding_dim=2, max_norm=1, mode=kMax, "
      "include_last_offset=true, padding_idx=1)");
  CHECK(printed(*nn::EmbeddingBag(4, 2)) == "ember::nn::EmbeddingBag(num_embeddings=4, embedding_dim=2)");
  // a clone has its own weight
  auto c = std::dynamic_pointer_cast<nn::EmbeddingImpl>(e->clone());
  CHECK(c->weight.data_ptr() != e->weight.data_ptr());
  CHECK(equal(c->weight, e->weight));
}

TEST_CASE("nn embedding_bag: sum, mean and max values, padding, empty bags and the extra outputs") {
  const Tensor idx = tensor({1, 2, 4, 5, 4, 3, 2});
  const Tensor off = tensor({0, 2, 2, 4});
  auto run = [&](int64_t mode, std::optional<int64_t> pad) {
    return ember::embedding_bag(table(), idx, off, false, mode, false, std::nullopt, false, pad);
  };
  auto [s, s_o2b, s_size, s_max] = run(0, std::nullopt);
  CHECK(dvalues(s) == std::vector<double>{-4, -2, 0, 0, 8, 10, 3, 6});
  CHECK(ivalues(s_o2b) == std::vector<double>{0, 0, 2, 2, 3, 3, 3});
  CHECK(ivalues(s_size) == std::vector<double>{0, 0, 0, 0});
  CHECK(ivalues(s_max) == std::vector<double>{0, 0, 0, 0});
  auto [m, m_o2b, m_size, m_max] = run(1, 4);
  CHECK(dvalues(m) == std::vector<double>{-2, -1, 0, 0, 5, 6, 0, 1});
  CHECK(ivalues(m_size) == std::vector<double>{2, 0, 1, 2});
  CHECK(ivalues(m_max) == std::vector<double>{2, 0, 1, 2});
  auto [x, x_o2b, x_size, x_max] = run(2, -1);  // padding -1 is row 5
  CHECK(dvalues(x) == std::vector<double>{-1, 0, 0, 0, 3, 4, 3, 4});
  CHECK(ivalues(x_size) == std::vector<double>{2, 0, 1, 3});
  CHECK(x_max.sizes() == IntArrayRef{4, 2});
  CHECK(ivalues(x_max) == std::vector<double>{2, 2, 0, 0, 4, 4, 4, 4});
  auto [xi, xi_o2b, xi_size, xi_max] =
      ember::embedding_bag(table(), idx, tensor({0, 2, 2, 4, 7}), false, 2, false, std::nullopt, true, 4);
  CHECK(dvalues(xi) == std::vector<double>{-1, 0, 0, 0, 5, 6, 1, 2});
  CHECK(ivalues(xi_max) == std::vector<double>{2, 2, 0, 0, 5, 5, 3, 3});

  // F:: forms: a 2-D input is fixed-size bags; 1-D input with offsets; include_last_offset
  CHECK(dvalues(F::embedding_bag(tensor({{1, 2}, {4, 3}}), table())) == std::vector<double>{-2, -1, 2, 3});
  CHECK(dvalues(F::embedding_bag(idx, table(),
                                 F::EmbeddingBagFuncOptions()
                                     .offsets(tensor({0, 2, 2, 4, 7}, kInt32))
                                     .include_last_offset(true)
                                     .mode(kSum))) == std::vector<double>{-4, -2, 0, 0, 8, 10, 3, 6});
  // every index padding: the bag is empty (zeros) in every mode
  for (nn::EmbeddingBagMode mode : {nn::EmbeddingBagMode(kSum), nn::EmbeddingBagMode(kMean), kMax})
    CHECK(dvalues(F::embedding_bag(tensor({{0, 0}, {1, 0}}), table(),
                                   F::EmbeddingBagFuncOptions().mode(mode).padding_idx(0))) ==
          std::vector<double>{0, 0, -3, -2});
  CHECK(F::embedding_bag(zeros({2, 0}, kInt64), table()).sizes() == IntArrayRef{2, 2});
  // per_sample_weights scale each row in sum mode
  CHECK(dvalues(F::embedding_bag(tensor({{1, 2}}), table(),
                                 F::EmbeddingBagFuncOptions().mode(kSum).per_sample_weights(
                                     tensor({{2.0, -1.0}}, kDouble)))) == std::vector<double>{-5, -4});
  // the module with offsets, max_norm renorming the rows looked up
  nn::EmbeddingBag bag(nn::EmbeddingBagOptions(3, 2).mode(kSum).max_norm(1.0)._weight(
      tensor({{3.0, 4.0}, {0.3, 0.4}, {0.0, 2.0}}, kDouble)));
  nn_test::expect_values(bag(tensor({0, 1}), tensor({0, 1})), {0.6, 0.8, 0.3, 0.4}, 1e-6);
  CHECK(dvalues(bag->weight)[5] == 2.0);
  // forward's defaults (offsets, per_sample_weights) serve AnyModule and Sequential
  nn::AnyModule any(
      nn::EmbeddingBag::from_pretrained(table(), nn::EmbeddingBagFromPretrainedOptions().mode(kSum)));
  CHECK(dvalues(any.forward(tensor({{1, 2}}))) == std::vector<double>{-4, -2});
  CHECK(dvalues(any.forward(tensor({1, 2, 5}), tensor({0, 2}))) == std::vector<double>{-4, -2, 5, 6});
  nn::Sequential seq(nn::EmbeddingBag::from_pretrained(table()));
  CHECK(dvalues(seq->forward(tensor({{1, 2}}))) == std::vector<double>{-2, -1});
}

TEST_CASE("nn embedding_bag: gradcheck of weight and per_sample_weights, frequency scaling") {
  const Tensor idx = tensor({1, 2, 0, 3, 3, 1});
  const Tensor off = tensor({0, 2, 2, 3});
  for (auto mode : {nn::EmbeddingBagMode(kSum), nn::EmbeddingBagMode(kMean), kMax}) {
    INFO(mode.name());
    CHECK(check(
        [&](const variable_list& v) {
          return F::embedding_bag(idx, v[0],
                                  F::EmbeddingBagFuncOptions().offsets(off).mode(mode).padding_idx(2));
        },
        {leaf({4, 3})}));
    CHECK(check(
        [&](const variable_list& v) {
          return F::embedding_bag(tensor({{0, 1}, {3, 3}}), v[0], F::EmbeddingBagFuncOptions().mode(mode));
        },
        {leaf({4, 3})}));
  }
  Tensor psw = leaf({6});
  CHECK(check(
      [&](const variable_list& v) {
        return F::embedding_bag(
            idx, v[0], F::EmbeddingBagFuncOptions().offsets(off).mode(kSum).per_sample_weights(v[1]));
      },
      {leaf({4, 3}), psw}));
  // double backward: the weight's gradient as a function of per_sample_weights
  Tensor wb = leaf({4, 3});
  CHECK(check(
      [&](const variable_list& v) {
        Tensor w = wb;
        Tensor out = F::embedding_bag(
            idx, w, F::EmbeddingBagFuncOptions().offsets(off).mode(kSum).per_sample_weights(v[0]));
        return autograd::grad({(out * out).sum()}, {w}, {}, true, true)[0];
      },
      {psw}));
  // scale_grad_by_freq: each row's gradient divided by its count in the batch (mean: then by bag size)
  Tensor w = table().requires_grad_();
  F::embedding_bag(tensor({{1, 1}, {1, 2}}), w,
                   F::EmbeddingBagFuncOptions().mode(kSum).scale_grad_by_freq(true))
      .sum()
      .backward();
  CHECK(dvalues(w.grad()) == std::vector<double>{0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0});
}

TEST_CASE("nn embedding: errors by type and libtorch's text, weight unchanged") {
  using nn_test::expect_error;
  Tensor w = table();
  expect_error([&] { F::embedding(tensor({6}), w); }, "index out of range in self");
  expect_error([&] { ember::embedding(w, tensor({-1})); }, "index out of range in self");
  expect_error([&] { F::embedding(tensor({6}), w, F::EmbeddingFuncOptions().max_norm(0.1)); },
               "index out of range in self", w);
  expect_error([&] { F::embedding(tensor({1}), w, F::EmbeddingFuncOptions().padding_idx(6)); },
               "Padding_idx must be within num_embeddings");
  expect_error([&] { F::embedding(tensor({1}), w, F::EmbeddingFuncOptions().padding_idx(-7)); },
               "Padding_idx must be within num_embedding");
  expect_error(
      [&] {
        nn::Embedding(nn::EmbeddingOptions(4, 2)._weight(ones({3, 2})));
      },
      "Shape of _weight does not match num_embeddings and embedding_dim");
  expect_error(
      [&] {
        nn::EmbeddingBag(nn::EmbeddingBagOptions(4, 2)._weight(ones({3, 2})));
      },
      "Shape of weight does not match num_embeddings and embedding_dim");
  expect_error([&] { nn::Embedding::from_pretrained(ones({3})); },
               "Embeddings parameter is expected to be 2-dimensional");
  expect_error<NotImplemented>(
      [&] { F::embedding(tensor({1}), w, F::EmbeddingFuncOptions().sparse(true)); },
      "embedding: sparse=true is not supported: ember has no sparse tensors for the sparse gradient; use "
      "sparse=false (a dense gradient)");
  expect_error<NotImplemented>(
      [&] { nn::EmbeddingBag(nn::EmbeddingBagOptions(3, 2).sparse(true))(tensor({{1}})); },
      "embedding_bag: sparse=true is not supported: ember has no sparse tensors for the "
      "sparse gradient; use sparse=false (a dense gradient)");

  auto FB = [&](const Tensor& in, const F::EmbeddingBagFuncOptions& o) { return F::embedding_bag(in, w, o); };
  expect_error(
      [&] {
        FB(tensor({6, 1}), F::EmbeddingBagFuncOptions().offsets(tensor({0})));
      },
      "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be 6");
  expect_error(
      [&] {
        FB(tensor({1, -1}), F::EmbeddingBagFuncOptions().offsets(tensor({0})).max_norm(1));
      },
      "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be -1", w);
  expect_error(
      [&] {
        FB(tensor({1, 1}), F::EmbeddingBagFuncOptions().offsets(tensor({1})));
      },
      "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
      "However, got 1");
  expect_error(
      [&] {
        FB(tensor({1, 1}), F::EmbeddingBagFuncOptions().offsets(tensor({0, 3})));
      },
      "offsets[-1] can not be greater than input's length({2}), but got offsets[-1] of {3}");
  expect_error(
      [&] {
        FB(tensor({1, 1, 1}), F::EmbeddingBagFuncOptions().offsets(tensor({0, 2, 1})));
      },
      "embedding_bag: offsets have to be non-decreasing");
  expect_error(
      [&] {
        FB(tensor({1, 1}), F::EmbeddingBagFuncOptions());
      },
      "offsets has to be a 1D Tensor but got null");
  expect_error(
      [&] {
        FB(tensor({{1, 1}}), F::EmbeddingBagFuncOptions().offsets(tensor({0})));
      },
      "If input is 2D, then offsets has to be null, as input is treated is a mini-batch of fixed length "
      "sequences. However, found offsets of type Tensor");
  expect_error(
      [&] {
        FB(ones({1, 1, 1}, kInt64), F::EmbeddingBagFuncOptions());
      },
      "input has to be 1D or 2D Tensor, but got Tensor of dimension 3");
  expect_error(
      [&] {
        FB(tensor({{1, 1}}),
           F::EmbeddingBagFuncOptions().per_sample_weights(ones({1, 2}, kDouble)).max_norm(0.1));
      },
      "embedding_bag: per_sample_weights was not null. per_sample_weights is only supported for mode='kSum' "
      "(got "
      "mode='kMean').Please open a feature request on GitHub.",
      w);
  expect_error(
      [&] {
        FB(tensor({{1, 1}}), F::EmbeddingBagFuncOptions().mode(kSum).per_sample_weights(ones({2}, kDouble)));
      },
      "embedding_bag: If per_sample_weights ([2]) is not null, then it must have the same shape as the input "
      "([1, "
      "2])");
  expect_error(
      [&] {
        FB(tensor({{1, 1}}), F::EmbeddingBagFuncOptions().mode(kMax).scale_grad_by_freq(true));
      },
      "max mode does not support scaling the gradient by the frequency");
  expect_error(
      [&] {
        FB(tensor({{1.0, 1.0}}), F::EmbeddingBagFuncOptions());
      },
      "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
      "got CPUFloatType instead (while checking arguments for embedding_bag)");
  expect_error(
      [&] {
        FB(tensor({{1, 1}}), F::EmbeddingBagFuncOptions().mode(Reduction::None));
      },
      "mode has to be one of sum, mean or max");
}

TEST_CASE("nn embedding: runs on another device type with the CPU's values and gradients") {
  // The PrivateUse1 test backend ("npu") has no embedding kernels: these are ordinary ops.
  // (embedding_bag's offset2bag needs Cumsum, which that backend leaves out on purpose.)
  ember::testing::ensure_fake_accelerator();
  const Device npu(kPrivateUse1, 0);
  const Tensor idx = tensor({3, 1, 1, 0, 2, 3, 3}), off = tensor({0, 3, 3, 5});
  using Fn = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;
  const std::vector<Fn> cases = {
      [](const Tensor& w, const Tensor& i, const Tensor&) {
        return F::embedding(i, w, F::EmbeddingFuncOptions().padding_idx(1).scale_grad_by_freq(true));
      },
      [](const Tensor& w, const Tensor& i, const Tensor&) {
        return F::embedding(i.reshape({7, 1}), w, F::EmbeddingFuncOptions().max_norm(0.5));
      },
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    INFO("case " << k);
    Tensor w = leaf({4, 3}), wd = w.detach().to(npu).requires_grad_();
    Tensor y = cases[k](w, idx, off), yd = cases[k](wd, idx.to(npu), off.to(npu));
    CHECK(yd.device() == npu);
    CHECK(equal(yd.cpu(), y));
    Tensor g = rand(y.sizes(), kDouble);
    y.backward(g);
    yd.backward(g.to(npu));
    CHECK(equal(wd.grad().cpu(), w.grad()));
  }
}
