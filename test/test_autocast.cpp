// Mixed precision: AutocastScope's casts (matmul family low, float32 list), nesting,
// threads, gradients through the casts, and errors.
#include <catch2/catch.hpp>

#include <ember/ember.h>

#include <thread>

using namespace ember;
using Catch::Matchers::Contains;

namespace {
// Max |a - b| over |b|'s max, in double.
double rel_err(const Tensor& a, const Tensor& b) {
  const Tensor ad = a.to(kDouble), bd = b.to(kDouble);
  return (ad - bd).abs().max().item<double>() / bd.abs().max().item<double>();
}
}  // namespace

TEST_CASE("autocast: the matmul family runs in the low type, double stays double") {
  manual_seed(1201);
  Tensor a = rand({8, 16}) - 0.5, b = rand({16, 4}) - 0.5, v = rand({16}) - 0.5, c = rand({4}) - 0.5;
  Tensor a3 = rand({2, 8, 16}) - 0.5, b3 = rand({2, 16, 4}) - 0.5;
  const Tensor want = mm(a, b);
  for (ScalarType low : {kBFloat16, kHalf}) {
    AutocastScope scope(low);
    CHECK(is_autocast_enabled());
    CHECK(get_autocast_dtype() == low);
    const double tol = low == kBFloat16 ? 2e-2 : 4e-3;
    Tensor y = mm(a, b);
    CHECK(y.dtype() == low);
    CHECK(rel_err(y, want) < tol);
    CHECK(rel_err(y, mm(a.to(low), b.to(low))) == 0);  // exactly the low-type product
    CHECK(matmul(a, b).dtype() == low);
    CHECK(matmul(a3, b3).dtype() == low);
    CHECK(bmm(a3, b3).dtype() == low);
    CHECK(mv(a, v).dtype() == low);
    CHECK(dot(v, v).dtype() == low);
    Tensor lin = linear(a, b.t(), c);
    CHECK(lin.dtype() == low);
    CHECK(rel_err(lin, want + c) < tol);
    Tensor am = addmm(c, a, b);
    CHECK(am.dtype() == low);
    CHECK(rel_err(am, want + c) < tol);
    // Mixed float and low inputs meet in the low type instead of failing on the dtypes.
    CHECK(mm(a.to(low), b).dtype() == low);
    // Double is left alone, as torch's autocast does; integers are not floating.
    CHECK(mm(a.to(kDouble), b.to(kDouble)).dtype() == kDouble);
    CHECK(mm(ones({2, 2}, kInt64), ones({2, 2}, kInt64)).dtype() == kInt64);
    // Elementwise ops are on neither list.
    CHECK((a + a).dtype() == kFloat);
  }
  CHECK_FALSE(is_autocast_enabled());
  CHECK(get_autocast_dtype() == kFloat);
  CHECK(mm(a, b).dtype() == kFloat);
}

TEST_CASE("autocast: reductions, softmax and norms compute low inputs in float32") {
  manual_seed(1202);
  Tensor x = (rand({6, 40}) * 4 - 2).to(kBFloat16);
  const Tensor xf = x.to(kFloat);
  AutocastScope scope(kBFloat16);
  struct Case {
    const char* name;
    Tensor got, want;
  };
  const Case cases[] = {
      {"sum", x.sum(), xf.sum()},
      {"sum(1)", x.sum({1}), xf.sum({1})},
      {"mean", x.mean(), xf.mean()},
      {"prod(1)", (x / 2 + 1).prod(1), (x / 2 + 1).to(kFloat).prod(1)},
      {"softmax", softmax(x, 1), softmax(xf, 1)},
      {"log_softmax", log_softmax(x, 1), log_softmax(xf, 1)},
      {"logsumexp", logsumexp(x, {1}), logsumexp(xf, {1})},
      {"cumsum", cumsum(x, 1), cumsum(xf, 1)},
      {"norm", norm(x), norm(xf)},
      {"var", var(x, {1}), var(xf, {1})},
      {"std", x.std(), xf.std()},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    CHECK(c.got.dtype() == kFloat);
    CHECK(allclose(c.got, c.want, 1e-6, 1e-6));
  }
  // An explicit dtype wins over the float32 list.
  CHECK(x.sum(kBFloat16).dtype() == kBFloat16);
  // Float and double inputs are untouched.
  CHECK(xf.sum().dtype() == kFloat);
  CHECK(xf.to(kDouble).sum().dtype() == kDouble);
}

TEST_CASE("autocast: scopes nest, disable, restore and are per thread") {
  Tensor a = ones({2, 3}), b = ones({3, 2});
  {
    AutocastScope outer(kBFloat16);
    {
      AutocastScope inner(kHalf);
      CHECK(mm(a, b).dtype() == kHalf);
      {
        AutocastScope off(kBFloat16, false);
        CHECK_FALSE(is_autocast_enabled());
        CHECK(mm(a, b).dtype() == kFloat);
      }
      CHECK(mm(a, b).dtype() == kHalf);
    }
    CHECK(mm(a, b).dtype() == kBFloat16);
    ScalarType other_thread = kBool;
    std::thread([&] { other_thread = mm(a, b).dtype(); }).join();
    CHECK(other_thread == kFloat);
  }
  CHECK(mm(a, b).dtype() == kFloat);
}

TEST_CASE("autocast: gradients flow through the casts to float32 leaves") {
  manual_seed(1203);
  Tensor x = rand({5, 7}) - 0.5;
  Tensor w = (rand({7, 3}) - 0.5).requires_grad_();
  Tensor bias = (rand({3}) - 0.5).requires_grad_();
  Tensor loss;
  {
    AutocastScope scope(kBFloat16);
    Tensor y = linear(x, w.t(), bias);  // bf16
    CHECK(y.dtype() == kBFloat16);
    loss = log_softmax(y, 1).sum();     // float32 list
    CHECK(loss.dtype() == kFloat);
    loss.backward();                    // inside the scope: backward runs with autocast off
  }
  REQUIRE(w.grad().defined());
  CHECK(w.grad().dtype() == kFloat);
  CHECK(bias.grad().dtype() == kFloat);
  // The same graph in float32 gives the same gradients within bfloat16's precision.
  Tensor w2 = w.detach().clone().requires_grad_(), b2 = bias.detach().clone().requires_grad_();
  log_softmax(linear(x, w2.t(), b2), 1).sum().backward();
  CHECK(rel_err(w.grad(), w2.grad()) < 5e-2);
  CHECK(rel_err(bias.grad(), b2.grad()) < 5e-2);
}

TEST_CASE("autocast: nn::Linear takes a low-type input against float32 weights; outside it the dtypes must match") {
  manual_seed(1204);
  nn::Linear layer(4, 3);
  Tensor x = rand({2, 4});
  Tensor want = layer->forward(x);
  {
    AutocastScope scope(kBFloat16);
    Tensor h = layer->forward(x);            // bfloat16, fed to the next layer as in a Sequential
    CHECK(h.dtype() == kBFloat16);
    Tensor y = layer->forward(x.to(kBFloat16));
    CHECK(y.dtype() == kBFloat16);
    CHECK(rel_err(y, want) < 2e-2);
    y.to(kFloat).sum().backward();
  }
  CHECK(layer->weight.grad().dtype() == kFloat);
  CHECK(layer->bias.grad().dtype() == kFloat);
  CHECK_THROWS_MATCHES(layer->forward(x.to(kBFloat16)), InvalidArgument,
                       Catch::Matchers::Message("linear: expected scalar type BFloat16 but found Float (input and weight must have the "
                                                "same dtype)"));
}

TEST_CASE("autocast: the low type must be Half or BFloat16") {
  CHECK_THROWS_MATCHES(AutocastScope(kFloat), InvalidArgument,
                       Catch::Matchers::Message(
                           "AutocastScope: expected a low-precision dtype of bfloat16 or float16, but got float32"));
  CHECK_THROWS_AS(AutocastScope(kInt32), InvalidArgument);
  CHECK_FALSE(is_autocast_enabled());
}

TEST_CASE("autocast: convolutions run in the low type; norms and losses compute in float32") {
  namespace F = nn::functional;
  manual_seed(3);
  const Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3}).requires_grad_(), b = randn({4}).requires_grad_();
  const Tensor x64 = x.to(kDouble), w64 = w.detach().to(kDouble);
  for (ScalarType low : {kBFloat16, kHalf}) {
    INFO(name(low));
    AutocastScope scope(low);
    // The low list: conv1d/2d/3d and the transposed ones, float operands cast (double left alone).
    const Tensor y = conv2d(x, w, b, 1, 1);
    CHECK(y.dtype() == low);
    CHECK(F::conv2d(x, w, F::Conv2dFuncOptions().padding(kSame)).dtype() == low);
    CHECK(conv1d(x.select(2, 0), w.select(3, 0)).dtype() == low);
    // (libtorch 1.13's CPU conv3d has no float16 kernel: "compute_columns3d" not implemented.)
    if (low == kBFloat16) CHECK(conv3d(x.unsqueeze(2), w.unsqueeze(2)).dtype() == low);
    CHECK(conv_transpose2d(x, w.transpose(0, 1)).dtype() == low);
    CHECK(conv2d(x64, w64).dtype() == kDouble);
    // Values within the low type's rounding of the float32 result.
    Tensor want;
    {
      AutocastScope off(low, false);
      want = conv2d(x, w, b, 1, 1);
    }
    const double tol = low == kHalf ? 1e-2 : 6e-2;
    CHECK((y.to(kFloat) - want).abs().max().item<double>() <= tol * (1 + want.abs().max().item<double>()));
    // Gradients reach the float32 leaves through the casts.
    y.to(kFloat).sum().backward();
    CHECK(w.grad().dtype() == kFloat);
    CHECK(b.grad().dtype() == kFloat);
    w.mutable_grad() = Tensor();
    b.mutable_grad() = Tensor();
    // The float32 list: low inputs are computed in float32.
    const Tensor h = y;  // low
    CHECK(F::layer_norm(h, F::LayerNormFuncOptions({8})).dtype() == kFloat);
    CHECK(group_norm(h, 2).dtype() == kFloat);
    const Tensor logits = randn({5, 7}).to(low), target = randint(0, 7, {5});
    CHECK(F::cross_entropy(logits, target).dtype() == kFloat);
    CHECK(F::nll_loss(log_softmax(logits, 1), target).dtype() == kFloat);
    CHECK(F::mse_loss(logits, logits * 2).dtype() == kFloat);
    CHECK(F::l1_loss(logits, logits * 2).dtype() == kFloat);
    CHECK(F::smooth_l1_loss(logits, logits * 2).dtype() == kFloat);
    CHECK(F::huber_loss(logits, logits * 2).dtype() == kFloat);
    CHECK(F::binary_cross_entropy_with_logits(logits, rand({5, 7}).to(low)).dtype() == kFloat);
    CHECK(F::kl_div(logits, logits.exp(), F::KLDivFuncOptions().reduction(kBatchMean)).dtype() == kFloat);
    CHECK(F::soft_margin_loss(logits, logits.sign()).dtype() == kFloat);
    CHECK(F::multi_margin_loss(logits, target).dtype() == kFloat);
    CHECK(F::triplet_margin_loss(logits, logits * 2, logits * 3).dtype() == kFloat);
    CHECK(F::cosine_similarity(logits, logits * 2).dtype() == kFloat);
    // The float32 result equals the loss of the float32 values.
    CHECK(F::mse_loss(logits, logits * 2).item<double>() ==
          Approx(F::mse_loss(logits.to(kFloat), logits.to(kFloat) * 2).item<double>()).epsilon(1e-6));
  }
  // Outside a scope nothing is cast.
  const Tensor low_in = randn({5, 7}).to(kBFloat16);
  CHECK(nn::functional::mse_loss(low_in, low_in).dtype() == kBFloat16);
  CHECK(conv2d(x.to(kBFloat16), w.detach().to(kBFloat16)).dtype() == kBFloat16);
}
