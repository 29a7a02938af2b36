// InferenceMode (libtorch's c10::InferenceMode): the guard, inference tensors, their
// version counters and libtorch 1.13's errors outside the mode (Note [Inference tensors]).
#include <catch2/catch.hpp>

#include <ember/ember.h>

#include <string>
#include <thread>

#include "test_util.h"

using namespace ember;
using Catch::Matchers::Equals;
using ember_test::dvalues;

namespace {

// libtorch 1.13's texts, checked against the installed libtorch.
const char* const kInplace =
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
    "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.";
const char* const kViewWrite =
    "A view was created in inference mode and is being modified inplace in normal mode. Given that this use "
    "case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view "
    "and the inplace either both inside the inference_mode block (if you don't want the inplace to be "
    "tracked) or both outside (if you want the inplace to be tracked).";
const char* const kNoVersion = "Inference tensors do not track version counter.";
const char* const kSaved =
    "Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal "
    "tensor and use it in autograd.";

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}

// The storage's counter itself: _version() refuses inference tensors.
uint32_t storage_version(const Tensor& t) { return t.storage()->version_.load(); }

Tensor inference_ones(int64_t n) {
  InferenceMode guard;
  return ones({n});
}

}  // namespace

TEST_CASE("inference mode: the guard turns grad mode off, nests, and restores both modes") {
  CHECK_FALSE(InferenceMode::is_enabled());
  CHECK(GradMode::is_enabled());
  {
    InferenceMode guard;
    CHECK(InferenceMode::is_enabled());
    CHECK_FALSE(GradMode::is_enabled());
    {
      InferenceMode inner;
      CHECK(InferenceMode::is_enabled());
      {
        // As libtorch: a disabled guard inside turns grad mode back on.
        InferenceMode off(false);
        CHECK_FALSE(InferenceMode::is_enabled());
        CHECK(GradMode::is_enabled());
        CHECK_FALSE(ones({1}).is_inference());
      }
      CHECK(InferenceMode::is_enabled());
      CHECK_FALSE(GradMode::is_enabled());
    }
    bool other_thread = true;
    std::thread([&] { other_thread = InferenceMode::is_enabled() || !GradMode::is_enabled(); }).join();
    CHECK_FALSE(other_thread);
  }
  CHECK_FALSE(InferenceMode::is_enabled());
  CHECK(GradMode::is_enabled());
  {
    NoGradGuard no_grad;
    { InferenceMode guard; }
    CHECK_FALSE(GradMode::is_enabled());  // the previous grad mode comes back, not "on"
    InferenceMode off(false);
    CHECK(GradMode::is_enabled());
  }
}

TEST_CASE("inference mode: tensors made inside are inference tensors with their values, and record nothing") {
  Tensor w = tensor({1.0, 2.0, 3.0}, kFloat).requires_grad_();
  Tensor normal = tensor({4.0, 5.0, 6.0}, kFloat);
  Tensor y, r, v, vn;
  {
    InferenceMode guard;
    y = w * 2 + normal;  // an op on normal tensors makes an inference tensor
    CHECK(y.is_inference());
    CHECK_FALSE(y.requires_grad());
    CHECK(y.grad_fn() == nullptr);
    CHECK(dvalues(y) == std::vector<double>{6, 9, 12});
    // Creation options still apply: a leaf that requires grad, and an inference tensor.
    r = ones({2}, TensorOptions().requires_grad(true));
    CHECK(r.is_inference());
    CHECK(r.requires_grad());
    CHECK_FALSE((r * 2).requires_grad());
    v = y.view({3, 1});
    vn = normal.view({3, 1});  // a view is what its base is, as libtorch
    CHECK(v.is_inference());
    CHECK_FALSE(vn.is_inference());
  }
  CHECK_FALSE(normal.is_inference());
  CHECK(y.narrow(0, 1, 2).is_inference());
  CHECK(y.detach().is_inference());
  CHECK(y.to(kFloat).is_inference());  // the same tensor
  // Outside the mode, ops on inference tensors make normal ones.
  Tensor z = y * 2;
  CHECK_FALSE(z.is_inference());
  CHECK_FALSE(y.clone().is_inference());
  CHECK(dvalues(z) == std::vector<double>{12, 18, 24});
  CHECK_THROWS_AS(Tensor().is_inference(), InvalidArgument);
}

TEST_CASE("inference mode: in-place writes keep no version on inference tensors; normal ones still count") {
  Tensor n = zeros({3});
  Tensor a;
  {
    InferenceMode guard;
    a = zeros({3});
    const uint32_t before = storage_version(a);
    a.add_(1);
    a.mul_(3);
    a.view({3}).fill_(2);
    a.copy_(ones({3}) * 4);
    CHECK(storage_version(a) == before);
    CHECK(dvalues(a) == std::vector<double>{4, 4, 4});
    CHECK_THAT(message_of([&] { (void)a._version(); }), Equals(kNoVersion));
    // A normal tensor written inside the mode bumps its counter as usual (libtorch too).
    n.add_(1);
    CHECK(n._version() == 1);
    n.view({3}).mul_(2);
    CHECK(n._version() == 2);
  }
  CHECK(dvalues(n) == std::vector<double>{2, 2, 2});
  CHECK_THAT(message_of([&] { (void)a._version(); }), Equals(kNoVersion));
}

TEST_CASE("inference mode: an in-place write on an inference tensor outside the mode is refused, unchanged") {
  Tensor a = inference_ones(3);
  Tensor idx = tensor({int64_t(0)});
  const std::vector<std::function<void()>> writes = {
      [&] { a.add_(1); },
      [&] { a.mul_(a); },
      [&] { a.view({3}).sub_(1); },
      [&] { a.narrow(0, 1, 1).zero_(); },
      [&] { a.fill_(7); },
      [&] { a.relu_(); },
      [&] { a.clamp_(0, 0.5); },
      [&] { a.copy_(zeros({3})); },
      [&] { a.uniform_(); },
      [&] { a.normal_(); },
      [&] { a.bernoulli_(0.5); },
      [&] { a.exponential_(); },
      [&] { a.masked_fill_(tensor({true, false, true}), 5.0); },
      [&] { a.scatter_(0, idx, 9.0); },
      [&] { a.index_add_(0, idx, ones({1})); },
      [&] { a.index_put_({idx}, zeros({1})); },
      [&] { a.index_put_({indexing::Slice(0, 2)}, 3.0); },
      [&] { add_out(a, ones({3}), ones({3})); },
      [&] { matmul_out(a, ones({3, 2}), ones({2})); },
  };
  for (size_t i = 0; i < writes.size(); ++i) {
    INFO("write " << i);
    CHECK_THAT(message_of(writes[i]), Equals(kInplace));
    CHECK(dvalues(a) == std::vector<double>{1, 1, 1});
  }
  // Reading is fine, and so is writing a normal tensor from an inference one.
  Tensor n = zeros({3});
  n.copy_(a);
  n.add_(a);
  CHECK(dvalues(n) == std::vector<double>{2, 2, 2});
  // A clone is a normal tensor (libtorch's advice).
  Tensor c = a.clone();
  c.add_(1);
  CHECK(dvalues(c) == std::vector<double>{2, 2, 2});
  // Inside the mode again, the same writes are allowed.
  InferenceMode guard;
  a.add_(1);
  CHECK(dvalues(a) == std::vector<double>{2, 2, 2});
}

TEST_CASE("inference mode: a view of a normal tensor taken inside the mode refuses autograd writes outside") {
  // As libtorch 1.13 (the same cases, run there): the view is a normal tensor, so a plain
  // write later is fine, unless the base required grad or the write itself would record.
  Tensor leaf = ones({2, 3}).requires_grad_();
  Tensor base = leaf.mul(2);
  Tensor plain = ones({2, 3});
  Tensor of_grad, of_leaf, of_plain, reshaped;
  {
    InferenceMode guard;
    of_grad = base.select(0, 0);
    of_leaf = leaf.select(0, 1);
    of_plain = plain.select(0, 0);
    reshaped = base.view({6}).narrow(0, 0, 2);  // a view of a view keeps the mark
    CHECK(of_grad.is_view());
    CHECK_FALSE(of_grad.is_inference());
    // Inside the mode the same writes are allowed (and recorded nowhere).
    Tensor inner = base.select(0, 1);
    inner.mul_(2);
  }
  CHECK(dvalues(base) == std::vector<double>{2, 2, 2, 4, 4, 4});
  CHECK_THAT(message_of([&] { of_grad.mul_(2); }), Equals(kViewWrite));
  CHECK_THAT(message_of([&] { of_leaf.mul_(2); }), Equals(kViewWrite));
  CHECK_THAT(message_of([&] { reshaped.add_(1); }), Equals(kViewWrite));
  CHECK_THAT(message_of([&] { of_plain.mul_(leaf.select(0, 0)); }), Equals(kViewWrite));
  CHECK_THAT(message_of([&] { of_plain.copy_(leaf.select(0, 0)); }), Equals(kViewWrite));
  CHECK(dvalues(base) == std::vector<double>{2, 2, 2, 4, 4, 4});
  CHECK(dvalues(plain) == std::vector<double>{1, 1, 1, 1, 1, 1});
  // A write that records nothing is fine: a plain value, or grad mode off.
  of_plain.mul_(3);
  CHECK(dvalues(plain) == std::vector<double>{3, 3, 3, 1, 1, 1});
  {
    NoGradGuard no_grad;
    of_grad.add_(1);
  }
  CHECK(dvalues(base) == std::vector<double>{3, 3, 3, 4, 4, 4});
  // A view taken outside the mode, and detach() / data() inside it, carry no mark.
  base.select(0, 0).add_(leaf.select(0, 0));
  Tensor detached;
  {
    InferenceMode guard;
    detached = base.detach();
    CHECK_FALSE(detached.is_view());
  }
  detached.add_(1);
  CHECK(dvalues(detached) == std::vector<double>{5, 5, 5, 5, 5, 5});
}

TEST_CASE("inference mode: is_view as libtorch's") {
  Tensor a = ones({2, 3});
  CHECK_FALSE(a.is_view());
  CHECK(a.select(0, 0).is_view());
  CHECK(a.alias().is_view());
  CHECK(a.reshape({6}).is_view());
  CHECK_FALSE(a.t().reshape({6}).is_view());  // a copy
  Tensor g = ones({2, 3}).requires_grad_();
  CHECK(g.reshape({6}).is_view());
  CHECK_FALSE(g.t().reshape({6}).is_view());
  CHECK(a.expand({2, 2, 3}).is_view());
  CHECK(a.select(0, 0).select(0, 1).is_view());
  CHECK_FALSE(a.detach().is_view());
  CHECK_FALSE(a.data().is_view());
  CHECK_FALSE(a.contiguous().is_view());
  InferenceMode guard;
  CHECK_FALSE(ones({2, 3}).select(0, 0).is_view());  // a view of an inference tensor
  CHECK(a.select(0, 0).is_view());
}

TEST_CASE("inference mode: requires_grad_ on an inference tensor, inside and outside the mode") {
  Tensor a = inference_ones(2);
  CHECK_THAT(message_of([&] { a.requires_grad_(true); }),
             Equals("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed."));
  CHECK_FALSE(a.requires_grad());
  CHECK_NOTHROW(a.requires_grad_(false));
  {
    InferenceMode guard;
    a.requires_grad_(true);
  }
  CHECK(a.requires_grad());
  // Outside the mode, ops on inference tensors alone record nothing, even when one requires
  // grad (libtorch's inference tensors have no autograd dispatch key): a functional op gives
  // a normal tensor that does not require grad, a view an inference tensor that is no view.
  Tensor product = a * a;
  CHECK_FALSE(product.is_inference());
  CHECK_FALSE(product.requires_grad());
  CHECK(product.grad_fn() == nullptr);
  Tensor view = a.view({1, 2});
  CHECK(view.is_inference());
  CHECK_FALSE(view.requires_grad());
  CHECK_FALSE(view.is_view());
  CHECK(view.is_leaf());
}

TEST_CASE("inference mode: an inference tensor backward would need is refused; one it would not is fine") {
  Tensor a = inference_ones(3);
  Tensor w = tensor({1.0, 2.0, 3.0}, kFloat).requires_grad_();
  // Saved for w's gradient: refused, as libtorch (MulBackward0 saves the other operand).
  CHECK_THAT(message_of([&] { (void)(w * a); }), Equals(kSaved));
  CHECK_THAT(message_of([&] { (void)(a * w); }), Equals(kSaved));
  CHECK_THAT(message_of([&] { (void)maximum(w, a); }), Equals(kSaved));
  Tensor mask;
  {
    InferenceMode guard;
    mask = a.gt(0);
  }
  CHECK_THAT(message_of([&] { (void)where(mask, w, w); }), Equals(kSaved));  // the condition is saved
  CHECK_THAT(message_of([&] { (void)addcmul(a, w, a); }), Equals(kSaved));
  CHECK_THAT(message_of([&] { (void)mm(w.view({1, 3}), a.view({3, 1})); }), Equals(kSaved));
  // Not saved: add, sub, remainder's first operand, where's branches, lerp's end with a
  // number weight, addcmul's self. libtorch accepts these too.
  Tensor y = w + a - a * 0.5 + w % a + where(w.gt(1), w, a) + lerp(w, a, 0.25) + addcmul(w, a, a);
  CHECK_FALSE(y.is_inference());
  y.sum().backward();
  // d/dw: 1 + 1 + (w > 1) + 0.75 + 1.
  CHECK(dvalues(w.grad()) == std::vector<double>{3.75, 4.75, 4.75});
  // An in-place op whose other operand would be saved leaves its target unchanged.
  Tensor t = w * 1;
  CHECK_THAT(message_of([&] { t.mul_(a); }), Equals(kSaved));
  CHECK(dvalues(t) == std::vector<double>{1, 2, 3});
  CHECK(t._version() == 0);
  // A clone is a normal tensor that autograd may save.
  Tensor z = w * a.clone();
  z.sum().backward();
  CHECK(dvalues(w.grad()) == std::vector<double>{4.75, 5.75, 5.75});
}

TEST_CASE("inference mode: inference tensors made on another device and by every creation path") {
  InferenceMode guard;
  CHECK(arange(4).is_inference());
  CHECK(tensor({1, 2}).is_inference());
  CHECK(rand({2}).is_inference());
  CHECK(zeros_like(ones({2})).is_inference());
  float data[2] = {1, 2};
  CHECK(from_blob(data, {2}, kFloat).is_inference());
  CHECK(cat({ones({1}), ones({1})}).is_inference());
  CHECK(ones({2, 2}).t().contiguous().is_inference());
  CHECK(std::get<0>(ones({3}).max(0)).is_inference());
}

TEST_CASE(
    "inference mode: views of a grad-requiring tensor taken with grad off require grad, as libtorch's") {
  // libtorch 1.13 (checked in Python): such a view requires grad, has no grad_fn, and
  // refuses an in-place write with grad mode on; ops on it record, and its gradient goes
  // nowhere (libtorch's CreationMeta NO_GRAD_MODE / INFERENCE_MODE).
  const std::string kNoGradViewWrite =
      "A view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that "
      "this "
      "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the "
      "view "
      "and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or "
      "both "
      "outside (if you want the inplace to be tracked).";
  Tensor x = ones({2, 3}).requires_grad_();
  Tensor v, w, plain_view;
  {
    NoGradGuard no_grad;
    v = x.select(0, 0);
    plain_view = ones({2}).select(0, 0);
    ones({2, 3}).requires_grad_().select(0, 0).mul_(1);  // with grad off: allowed
  }
  {
    InferenceMode guard;
    w = x.select(0, 1);
  }
  CHECK(v.requires_grad());
  CHECK(v.is_leaf());
  CHECK(v.grad_fn() == nullptr);
  CHECK(w.requires_grad());
  CHECK_FALSE(plain_view.requires_grad());
  CHECK_THAT(message_of([&] { v.mul_(2); }), Equals(kNoGradViewWrite));
  CHECK_THAT(message_of([&] { v.mul_(x.select(0, 1)); }), Equals(kNoGradViewWrite));  // a recorded write
  Tensor u = v.narrow(0, 0, 2);  // a view of it, with grad on: the same refusal
  CHECK(u.requires_grad());
  CHECK_THAT(message_of([&] { u.add_(1); }), Equals(kNoGradViewWrite));
  CHECK(dvalues(x) == std::vector<double>{1, 1, 1, 1, 1, 1});
  // Ops on them record with grad mode on; backward reaches neither them nor their base.
  Tensor tmp = v * v + w;
  CHECK(tmp.requires_grad());
  CHECK(tmp.grad_fn() != nullptr);
  CHECK(u.view({2}).requires_grad());
  tmp.sum().backward();
  CHECK_FALSE(v.grad().defined());
  CHECK_FALSE(w.grad().defined());
  CHECK_FALSE(x.grad().defined());
  {
    NoGradGuard no_grad;
    CHECK_FALSE((v * 2).requires_grad());
  }
  // Mixed with a tensor that does get gradients, only that one does.
  Tensor y = ones({3}).requires_grad_();
  (v * y).sum().backward();
  CHECK(dvalues(y.grad()) == std::vector<double>{1, 1, 1});
  CHECK_FALSE(x.grad().defined());
  // A view taken with grad on is an ordinary recorded view.
  Tensor r = x.select(0, 0);
  CHECK(r.grad_fn() != nullptr);
  CHECK_THAT(message_of([&] { r.add_(1); }),
             Equals("a view of a leaf Variable that requires grad is being used in an in-place operation."));
  // detach() under no_grad is not a view and does not require grad.
  Tensor d;
  {
    NoGradGuard no_grad;
    d = x.detach();
  }
  CHECK_FALSE(d.requires_grad());
  d.add_(1);
  CHECK(dvalues(x) == std::vector<double>{2, 2, 2, 2, 2, 2});
}

TEST_CASE("inference mode: a grad-requiring view made with grad off is refused once its storage is written") {
  // libtorch 1.13's handle_view_on_rebase (the same cases, run there): such a view has no
  // history to bring up to date, so its grad_fn() throws. (libtorch's ops that record with
  // it throw too; ember's record, and the view's gradient goes nowhere, as before the write.)
  const std::string kInferenceRebase =
      "A view was created in inference mode and its base or another view of its base has been modified "
      "inplace in normal mode. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
      "clarify your code by moving both the view and the inplace either both inside the inference_mode block "
      "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).";
  const std::string kNoGradRebase =
      "A view was created in no_grad mode and its base or another view of its base has been modified inplace "
      "with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
      "clarify your code by moving both the view and the inplace either both inside the no_grad block (if you "
      "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).";
  for (bool requires_grad : {true, false}) {
    Tensor s = ones({1, 2, 3}).requires_grad_(requires_grad);
    Tensor a = s.clone();
    Tensor view_out;
    {
      InferenceMode guard;
      view_out = a.view_as(a);
    }
    CHECK(view_out.grad_fn() == nullptr);  // not written yet
    a.add_(1);
    if (requires_grad) {
      CHECK_THAT(message_of([&] { (void)view_out.grad_fn(); }), Equals(kInferenceRebase));
    } else {
      CHECK(view_out.grad_fn() == nullptr);
      CHECK(dvalues(view_out * 2) == std::vector<double>(6, 4.0));
    }
  }
  Tensor s = ones({2, 3}).requires_grad_();
  Tensor b = s.clone(), c = s.clone();
  Tensor through_base, written_itself, untouched;
  {
    NoGradGuard no_grad;
    through_base = b.select(0, 0);
    b.add_(1);  // both inside the block still counts, as libtorch's
    written_itself = c.select(0, 0);
    written_itself.mul_(2);
    untouched = s.select(0, 1);
  }
  CHECK_THAT(message_of([&] { (void)through_base.grad_fn(); }), Equals(kNoGradRebase));
  CHECK_THAT(message_of([&] { (void)written_itself.grad_fn(); }), Equals(kNoGradRebase));
  CHECK(dvalues(b) == std::vector<double>(6, 2.0));
  // An in-place op that reads such a view of its own storage writes it, as libtorch's.
  Tensor d = s.clone();
  Tensor row;
  {
    NoGradGuard no_grad;
    row = d.select(0, 1);
  }
  d.select(0, 0).add_(row);
  CHECK(dvalues(d) == std::vector<double>{2, 2, 2, 1, 1, 1});
  d.sum().backward();  // the view's share goes nowhere; d's own path reaches s
  CHECK(dvalues(s.grad()) == std::vector<double>(6, 1.0));
  {
    NoGradGuard no_grad;  // recording nothing, they are ordinary tensors
    CHECK(dvalues(through_base + 1) == std::vector<double>(3, 3.0));
    CHECK(dvalues(written_itself) == std::vector<double>(3, 2.0));
  }
  CHECK(untouched.grad_fn() == nullptr);
  CHECK((untouched * 2).requires_grad());
  // A view taken in the same block after the write is current.
  Tensor later;
  {
    NoGradGuard no_grad;
    later = b.select(0, 1);
  }
  CHECK(later.grad_fn() == nullptr);
  CHECK((later * 2).requires_grad());
}
