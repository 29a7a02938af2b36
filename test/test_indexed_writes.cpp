// Writes at indexed positions (index_fill, masked_scatter, put, scatter_reduce): known
// values (libtorch 1.13's), float64 gradcheck with ties and zeros, in-place forms and errors.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <vector>

#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using namespace ember_test::grad;

TEST_CASE("indexed writes: index_fill, masked_scatter, put and scatter_reduce values") {
  const Tensor x = arange(12.0, kDouble).reshape({3, 4});
  CHECK(dvalues(x.index_fill(1, tensor({0, -1}), -1.0)) ==
        std::vector<double>{-1, 1, 2, -1, -1, 5, 6, -1, -1, 9, 10, -1});
  CHECK(dvalues(index_fill(x, 0, tensor(1), full({}, 7.0, kDouble))) ==
        std::vector<double>{0, 1, 2, 3, 7, 7, 7, 7, 8, 9, 10, 11});
  const Tensor mask = tensor({true, false, true});
  CHECK(dvalues(zeros({2, 3}).masked_scatter(mask, arange(4.0))) == std::vector<double>{0, 0, 1, 2, 0, 3});
  CHECK(dvalues(zeros({2, 3}).masked_scatter(tensor({{true, false, true}, {false, true, false}}),
                                             arange(6.0))) == std::vector<double>{0, 0, 1, 0, 2, 0});
  CHECK(dvalues(zeros({3}).put(tensor({0, -1, 0}), tensor({1.0f, 2.0f, 3.0f}), true)) ==
        std::vector<double>{4, 0, 2});
  CHECK(dvalues(zeros({2, 2}).put(tensor({3, 0}), tensor({1.0f, 2.0f}))) == std::vector<double>{2, 0, 0, 1});

  const Tensor s = tensor({1.0, 5.0, 2.0, 8.0, 3.0}), i = tensor({0, 1, 0, 1, 2}),
               b = tensor({4.0, 3.0, 2.0, 1.0});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "sum")) == std::vector<double>{7, 16, 5, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "sum", false)) == std::vector<double>{3, 13, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "prod")) == std::vector<double>{8, 120, 6, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "prod", false)) == std::vector<double>{2, 40, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "mean", false)) == std::vector<double>{1.5, 6.5, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amax")) == std::vector<double>{4, 8, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amax", false)) == std::vector<double>{2, 8, 3, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amin")) == std::vector<double>{1, 3, 2, 1});
  CHECK(dvalues(b.scatter_reduce(0, i, s, "amin", false)) == std::vector<double>{1, 5, 3, 1});
  const std::vector<double> mean = dvalues(b.scatter_reduce(0, i, s, "mean"));
  CHECK(mean[0] == Approx(7.0 / 3));
  CHECK(mean[1] == Approx(16.0 / 3));
  // Integer mean rounds down; NaN wins amax.
  CHECK(dvalues(tensor({4, 3, 2, 1}).scatter_reduce(0, i, tensor({1, 5, 2, 8, 3}), "mean")) ==
        std::vector<double>{2, 5, 2, 1});
  CHECK(std::isnan(dvalues(b.scatter_reduce(0, tensor({0}), tensor({NAN}), "amax"))[0]));
  // In place.
  Tensor y = b.clone();
  y.scatter_reduce_(0, i, s, "amax", false);
  CHECK(dvalues(y) == std::vector<double>{2, 8, 3, 1});
  Tensor z = x.clone();
  z.index_fill_(0, tensor({2}), 0.5)
      .masked_scatter_(tensor({false, true, false, false}), tensor({-1.0, -2.0, -3.0}, kDouble));
  CHECK(dvalues(z) == std::vector<double>{0, -1, 2, 3, 4, -2, 6, 7, 0.5, -3, 0.5, 0.5});
}

TEST_CASE("indexed writes: gradients pass float64 gradcheck, ties and zeros included") {
  const Tensor idx = randint(0, 3, {5, 4}, kInt64);
  for (const char* reduce : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      INFO(reduce << (include_self ? "" : " without self"));
      CHECK(check(
          [&](const variable_list& v) { return v[0].scatter_reduce(0, idx, v[1], reduce, include_self); },
          {input({3, 4}), input({5, 4})}));
    }
  }
  // Ties share the gradient evenly (self's 5 and both 5s of src); prod's zeros take the
  // product of the others (libtorch's values).
  const Tensor self = tensor({1.0, 5.0, 0.0, 2.0}).requires_grad_();
  const Tensor src = tensor({5.0, 5.0, 0.5, 1.0, 0.0, 3.0}).requires_grad_();
  const Tensor index = tensor({1, 1, 0, 0, 2, 2});
  self.scatter_reduce(0, index, src, "amax").backward(tensor({1.0, 3.0, 1.0, 1.0}));
  CHECK(dvalues(self.grad()) == std::vector<double>{0.5, 1, 0, 1});
  CHECK(dvalues(src.grad()) == std::vector<double>{1, 1, 0, 0.5, 0, 1});
  self.mutable_grad() = Tensor();
  src.mutable_grad() = Tensor();
  self.scatter_reduce(0, index, src, "prod").backward(ones({4}, kDouble));
  CHECK(dvalues(self.grad()) == std::vector<double>{0.5, 25, 0, 1});
  CHECK(dvalues(src.grad()) == std::vector<double>{25, 25, 1, 0.5, 0, 0});

  CHECK(check(
      [](const variable_list& v) {
        return v[0].index_fill(1, tensor({0, 2, 0}), v[1]);
      },
      {input({3, 4}), input({})}));
  CHECK(check(
      [](const variable_list& v) {
        return v[0].masked_scatter(tensor({true, false, true, true}), v[1]);
      },
      {input({3, 4}), input({10})}));
  CHECK(check(
      [](const variable_list& v) {
        return v[0].put(tensor({0, 5, -1, 5}), v[1], true);
      },
      {input({3, 4}), input({4})}));
  // A mask with no trues still gives source a (zero) gradient, as libtorch's.
  const Tensor source = input({3});
  zeros({2}, kDouble).masked_scatter(zeros({2}, kBool), source).sum().backward();
  REQUIRE(source.grad().defined());
  CHECK(dvalues(source.grad()) == std::vector<double>{0, 0, 0});
}

TEST_CASE("indexed writes: errors name what was received, inputs untouched") {
  Tensor m = arange(12.0).reshape({3, 4});
  const std::vector<double> before = dvalues(m);
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({4}), 1),
                    Catch::Contains("index 4 is out of bounds for dimension 1 with size 4"));
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({{0}}), 1), Catch::Contains("Index has to be a vector/scalar"));
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({0.0}), 1), Catch::Contains("Expected dtype int64 for index"));
  CHECK_THROWS_WITH(m.index_fill_(1, tensor({0}), ones({2})), Catch::Contains("0-dimensional value tensor"));
  CHECK_THROWS_WITH(m.put_(tensor({12}), ones({1})),
                    Catch::Contains("tried to access index 12 on a tensor of 12 elements"));
  CHECK_THROWS_WITH(m.put_(tensor({1, 2}), ones({1})),
                    Catch::Contains("source.numel() = 1, index.numel() = 2"));
  CHECK_THROWS_WITH(m.put_(tensor({1}), ones({1}, kDouble)), Catch::Contains("same dtype"));
  CHECK_THROWS_WITH(m.masked_scatter_(ones({4}), ones({4})), Catch::Contains("only supports boolean masks"));
  CHECK_THROWS_WITH(m.masked_scatter_(ones({4}, kBool), ones({4})),
                    Catch::Contains("Number of elements of source < number of ones in mask"));
  CHECK_THROWS_WITH(m.masked_scatter_(ones({2, 3, 4}, kBool), ones({24})),
                    Catch::Contains("does not broadcast"));
  CHECK_THROWS_WITH(
      m.scatter_reduce_(0, zeros({1, 4}, kLong), m.clone(), "max"),
      Catch::Contains("reduce argument must be either sum, prod, mean, amax or amin. Got max."));
  CHECK_THROWS_WITH(m.scatter_reduce_(0, full({1, 4}, 3, kLong), m.clone(), "sum"),
                    Catch::Contains("out of bounds"));
  // self as its own source is refused before anything else, as libtorch's assert_no_overlap.
  CHECK_THROWS_WITH(m.scatter_reduce_(0, zeros({1, 4}, kLong), m, "max"),
                    Catch::Contains("refer to a single memory location"));
  CHECK(dvalues(m) == before);
}

TEST_CASE("indexed writes: in place with autograd, and bool amax") {
  // scatter_reduce_ into a non-leaf, then backward (libtorch 1.13's values).
  const Tensor a = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  const Tensor src = tensor({0.5, 4.0, 2.0}, kDouble).requires_grad_();
  Tensor x = a * 1;
  x.scatter_reduce_(0, tensor({0, 0, 2}), src, "amax");
  CHECK(dvalues(x) == std::vector<double>{4, 2, 3});
  x.sum().backward();
  CHECK(dvalues(a.grad()) == std::vector<double>{0, 1, 1});
  CHECK(dvalues(src.grad()) == std::vector<double>{0, 1, 0});
  // bool amax is an or, on every device.
  const Tensor flags = tensor({true, false});
  CHECK(dvalues(flags.scatter_reduce(0, tensor({1, 1}), tensor({true, false}), "amax")) ==
        std::vector<double>{1, 1});
  CHECK(dvalues(flags.scatter_reduce(0, tensor({1, 1}), tensor({true, false}), "amax", false)) ==
        std::vector<double>{1, 1});
  CHECK(dvalues(flags.scatter_reduce(0, tensor({1, 1}), tensor({true, false}), "amin", false)) ==
        std::vector<double>{1, 0});
}

TEST_CASE("indexed writes: index_copy and index_reduce, values, gradients and errors") {
  // index_copy (libtorch 1.13's values): rows 4 and 1 replaced; a repeated index keeps the last row.
  const Tensor s = arange(6.0).reshape({2, 3});
  CHECK(dvalues(zeros({5, 3}).index_copy(0, tensor({4, 1}), s)) ==
        std::vector<double>{0, 0, 0, 3, 4, 5, 0, 0, 0, 0, 0, 0, 0, 1, 2});
  CHECK(dvalues(zeros({2, 3}).index_copy(1, tensor({2, 0}), ones({2, 2}))) ==
        std::vector<double>{1, 0, 1, 1, 0, 1});
  CHECK(dvalues(zeros({3}).index_copy(0, tensor({1, 1}), tensor({7.0f, 9.0f}))) ==
        std::vector<double>{0, 9, 0});
  CHECK(zeros({}).index_copy(0, tensor(0), tensor(5.0f)).item<float>() == 5.0f);
  CHECK(dvalues(zeros({3}).index_copy(0, tensor({1}), tensor(5.0f))) == std::vector<double>{0, 5, 0});
  CHECK(zeros({0, 3}).index_copy(0, empty({0}, kLong), ones({0, 3})).sizes() == std::vector<int64_t>{0, 3});
  Tensor target = zeros({5, 3});
  Tensor& same = target.index_copy_(0, tensor({0}), ones({1, 3}));
  CHECK(same.is_same(target));
  CHECK(target.sum().item<float>() == 3.0f);

  // Gradients: self's copied rows get nothing, source gets those rows of g (libtorch's values).
  const Tensor a = zeros({5, 3}, kDouble).requires_grad_(), b = ones({2, 3}, kDouble).requires_grad_();
  const Tensor y = a.index_copy(0, tensor({4, 1}), b);
  CHECK(y.grad_fn()->name() == "IndexCopyBackward0");
  (y * arange(15.0, kDouble).reshape({5, 3})).sum().backward();
  CHECK(dvalues(a.grad()) == std::vector<double>{0, 1, 2, 0, 0, 0, 6, 7, 8, 9, 10, 11, 0, 0, 0});
  CHECK(dvalues(b.grad()) == std::vector<double>{12, 13, 14, 3, 4, 5});
  CHECK(check(
      [](const variable_list& v) {
        return v[0].index_copy(1, tensor({3, 0}), v[1]);
      },
      {input({3, 4}), input({3, 2})}));

  // index_reduce (libtorch 1.13's values), both rows into row 4.
  const Tensor x = arange(1.0, 16.0).reshape({5, 3}), src = arange(6.0).reshape({2, 3}) + 2;
  auto row4 = [&](const char* reduce, bool include_self) {
    return dvalues(x.index_reduce(0, tensor({4, 4}), src, reduce, include_self).select(0, 4));
  };
  CHECK(row4("prod", true) == std::vector<double>{130, 252, 420});
  CHECK(row4("prod", false) == std::vector<double>{10, 18, 28});
  CHECK(row4("mean", false) == std::vector<double>{3.5, 4.5, 5.5});
  CHECK(row4("amax", true) == std::vector<double>{13, 14, 15});
  CHECK(row4("amax", false) == std::vector<double>{5, 6, 7});
  CHECK(row4("amin", true) == std::vector<double>{2, 3, 4});
  CHECK(std::abs(row4("mean", true)[0] - 20.0 / 3) < 1e-6);
  CHECK(dvalues(x.to(kLong).index_reduce(0, tensor({4, 4}), src.to(kLong), "mean").select(0, 4)) ==
        std::vector<double>{6, 7, 8});
  CHECK(dvalues(x.index_reduce(0, tensor({4, 1}, kInt), src, "prod").select(0, 1)) ==
        std::vector<double>{20, 30, 42});
  // A source slice of size 1 stretches over self's slice (libtorch's broadcast).
  CHECK(dvalues(zeros({3, 4}).index_reduce(0, tensor({0, 2}), ones({2, 1}) * 5, "amax")) ==
        std::vector<double>{5, 5, 5, 5, 0, 0, 0, 0, 5, 5, 5, 5});
  const Tensor xd = x.to(kDouble).requires_grad_(), sd = src.to(kDouble).requires_grad_();
  const Tensor p = xd.index_reduce(0, tensor({4, 4}), sd, "prod");
  CHECK(p.grad_fn()->name() == "IndexReduceBackward0");
  p.sum().backward();
  CHECK(dvalues(xd.grad().select(0, 4)) == std::vector<double>{10, 18, 28});
  CHECK(dvalues(sd.grad()) == std::vector<double>{65, 84, 105, 26, 42, 60});
  const Tensor idx = tensor({2, 0, 2, 1});
  for (const char* reduce : {"prod", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      INFO(reduce << (include_self ? "" : " without self"));
      CHECK(
          check([&](const variable_list& v) { return v[0].index_reduce(1, idx, v[1], reduce, include_self); },
                {input({2, 3}), input({2, 4})}));
    }
  }

  // Errors, in libtorch's words; self unchanged.
  Tensor m = zeros({5, 3});
  CHECK_THROWS_WITH(m.index_copy_(0, tensor({4, 1}, kInt), s),
                    "index_copy_(): Expected a long tensor for index, but got Int");
  CHECK_THROWS_WITH(m.index_copy_(0, tensor({5, 1}), s),
                    "index_copy_(): index 5 is out of bounds for dimension 0 with size 5");
  CHECK_THROWS_WITH(m.index_copy_(0, tensor({0, -1}), s),
                    "index_copy_(): index -1 is out of bounds for dimension 0 with size 5");
  CHECK_THROWS_WITH(m.index_copy_(0, tensor({4, 1, 2}), s),
                    "index_copy_(): Number of indices (3) should be equal to source.size(dim) (2)");
  CHECK_THROWS_WITH(m.index_copy_(0, tensor({{4, 1}}), s),
                    "index_copy_(): Index should have dimension 1 or 0 (got 2)");
  CHECK_THROWS_WITH(
      m.index_copy_(0, tensor({4, 1}), s.to(kDouble)),
      "index_copy_(): self and source expected to have the same dtype, but got (self) Float and "
      "(source) Double");
  CHECK_THROWS_WITH(m.index_copy_(0, tensor({4, 1}), ones({2, 4})),
                    "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                    "shape: 3 at dimension 0 and source slice shape: 4 at dimension 0.");
  CHECK_THROWS_WITH(
      m.index_copy_(0, tensor({4, 1}), ones({2, 3, 1})),
      "index_copy_(): When source and destination are not scalars, their dimensionality must match. "
      "Source dimensionality (3), destination dimensionality (2)");
  CHECK_THROWS_WITH(zeros({3}, kDouble).requires_grad_().index_copy_(0, tensor({1}), ones({1}, kDouble)),
                    Catch::Contains("a leaf Variable that requires grad"));
  CHECK_THROWS_WITH(m.index_reduce_(0, tensor({4, 1}), s, "sum"),
                    "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got sum.");
  CHECK_THROWS_WITH(m.index_reduce_(0, tensor({5, 1}), s, "prod"), "index out of range in self");
  CHECK_THROWS_WITH(m.index_reduce_(0, tensor({-1, 1}), s, "prod"), "index out of range in self");
  CHECK_THROWS_WITH(
      m.index_reduce_(0, tensor({4, 1, 2}), s, "prod"),
      "index_reduce_(): Number of indices (3) should be equal to source.size(dim): (2), for dim: 0");
  CHECK_THROWS_WITH(
      m.index_reduce_(0, tensor({{4, 1}}), s, "prod"),
      "index_reduce_(): Index is supposed to be a vector, but got dim: 2 with type: Long and size: "
      "[1, 2]");
  CHECK_THROWS_WITH(m.index_reduce_(0, tensor({4, 1}), s.to(kDouble), "prod"),
                    "index_reduce_(): self (Float) and source (Double) must have the same scalar type");
  CHECK_THROWS_WITH(m.index_reduce_(0, tensor({4, 1}), ones({2, 4}), "amax"),
                    Catch::Contains("does not broadcast to self [5, 3] in the dims other than 0"));
  CHECK(m.abs().sum().item<float>() == 0.0f);
}

TEST_CASE("indexed writes: index_add_ and index_copy_ move the version counter, as libtorch's") {
  // A tensor saved for backward and then written by index_add_ / index_copy_ is caught at backward.
  const Tensor x = tensor({1.0, 2.0, 3.0}, kDouble).requires_grad_();
  for (int which = 0; which < 2; ++which) {
    Tensor y = x * 1;
    const Tensor z = y * y;
    {
      NoGradGuard no_grad;
      if (which == 0)
        y.index_add_(0, tensor({0}), tensor({5.0}, kDouble));
      else
        y.index_copy_(0, tensor({0}), tensor({5.0}, kDouble));
    }
    CHECK_THROWS_WITH(z.sum().backward(), Catch::Contains("modified by an inplace operation"));
  }
}
