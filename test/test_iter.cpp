// Elementwise iteration: how build_elementwise lays out operands, and how a vectorising
// launcher (CUDA) reads each one (plan_vector_access), for every broadcast shape.
#include <catch2/catch.hpp>

#include "ember/ember.h"
#include "iter/elementwise_iter.h"
#include "iter/transpose_plan.h"
#include "iter/vector_plan.h"

using namespace ember;
using detail::OperandAccess;

namespace {

// The ElementwiseArgs of out = f(a, b) for b broadcast to a's shape.
ElementwiseArgs binary_args(const Tensor& a, const Tensor& b) {
  const SizesVector shape = detail::broadcast_shapes(a.sizes(), b.sizes(), "test");
  const Tensor out = empty(IntArrayRef(shape.data(), shape.size()));
  const Tensor inputs[2] = {a, b};
  ElementwiseArgs args;
  detail::build_elementwise(args, out, inputs, 2);
  return args;
}

}  // namespace

TEST_CASE("iter: a full-size contiguous pair is vectorised with both operands contiguous") {
  const auto plan = detail::plan_vector_access(binary_args(rand({64}), rand({64})), 16);
  CHECK(plan.vectorised);
  CHECK(plan.access[0] == OperandAccess::Contiguous);
  CHECK(plan.access[1] == OperandAccess::Contiguous);
  CHECK(plan.access[2] == OperandAccess::Contiguous);
}

TEST_CASE("iter: a one-element or zero-dim operand is read once and repeated, on either side") {
  const Tensor a = rand({64});
  for (const Tensor& one : {rand({1}), rand({}), rand({1, 1})}) {
    INFO("broadcast operand of " << one.dim() << " dims");
    const ElementwiseArgs right = binary_args(a, one);
    REQUIRE(right.contiguous);
    CHECK(right.strides[2][0] == 0);
    const auto pr = detail::plan_vector_access(right, 16);
    CHECK(pr.vectorised);  // the broadcast operand needs no alignment
    CHECK(pr.access[1] == OperandAccess::Contiguous);
    CHECK(pr.access[2] == OperandAccess::Broadcast);

    const auto pl = detail::plan_vector_access(binary_args(one, a), 16);
    CHECK(pl.vectorised);
    CHECK(pl.access[1] == OperandAccess::Broadcast);
    CHECK(pl.access[2] == OperandAccess::Contiguous);
  }
}

TEST_CASE("iter: a broadcast element at an unaligned address still vectorises; a Contiguous one does not") {
  const Tensor base = rand({65});
  const Tensor odd = base.slice(0, 1);  // 4 bytes past a 64-byte-aligned allocation
  const auto p_one = detail::plan_vector_access(binary_args(rand({64}), odd.slice(0, 0, 1)), 16);
  CHECK(p_one.vectorised);
  CHECK(p_one.access[2] == OperandAccess::Broadcast);
  const auto p_full = detail::plan_vector_access(binary_args(rand({64}), odd), 16);
  CHECK_FALSE(p_full.vectorised);
  CHECK(p_full.access[2] == OperandAccess::Contiguous);
}

TEST_CASE("iter: a Scalar operand is passed by value") {
  const Tensor a = rand({64});
  const Tensor out = empty_like(a);
  const Tensor inputs[2] = {a, Tensor()};
  ElementwiseArgs args;
  detail::build_elementwise(args, out, inputs, 2);
  detail::set_scalar_operand(args, 2, 2.5, kFloat);
  const auto plan = detail::plan_vector_access(args, 16);
  CHECK(plan.vectorised);
  CHECK(plan.access[2] == OperandAccess::Scalar);
}

TEST_CASE("iter: rows, columns and middle dims broadcast through the strided path") {
  const Tensor a = rand({8, 16});
  for (const Tensor& b : {rand({1, 16}), rand({8, 1}), rand({16})}) {
    INFO("b of shape " << b.sizes().vec().size() << " dims, " << b.numel() << " elements");
    const auto plan = detail::plan_vector_access(binary_args(a, b), 16);
    CHECK_FALSE(plan.vectorised);
    CHECK(plan.access[0] == OperandAccess::Strided);
    CHECK(plan.access[1] == OperandAccess::Strided);
    CHECK(plan.access[2] == OperandAccess::Strided);
  }
  const auto mid = detail::plan_vector_access(binary_args(rand({4, 3, 5}), rand({4, 1, 5})), 16);
  CHECK_FALSE(mid.vectorised);
  CHECK(mid.access[2] == OperandAccess::Strided);
}

TEST_CASE("iter: a transposed output is not vectorised") {
  const Tensor a = rand({16, 8}).t();
  const auto plan = detail::plan_vector_access(binary_args(a, a), 16);
  CHECK_FALSE(plan.vectorised);
}

TEST_CASE("iter: the CPU computes every broadcast shape the plan distinguishes") {
  const Tensor a = arange(0, 12, TensorOptions(kFloat)).reshape({3, 4});
  CHECK(equal(a + tensor({10.f}), a + 10));
  CHECK(equal(a + tensor({10.f}).reshape({}), a + 10));
  CHECK(equal(a + tensor({1.f, 2.f, 3.f, 4.f}).reshape({1, 4}),
              tensor({1.f, 3.f, 5.f, 7.f, 5.f, 7.f, 9.f, 11.f, 9.f, 11.f, 13.f, 15.f}).reshape({3, 4})));
  CHECK(equal(a + tensor({100.f, 200.f, 300.f}).reshape({3, 1}),
              tensor({100.f, 101.f, 102.f, 103.f, 204.f, 205.f, 206.f, 207.f, 308.f, 309.f, 310.f, 311.f})
                  .reshape({3, 4})));
}

namespace {

ElementwiseArgs copy_args(const Tensor& dst, const Tensor& src) {
  ElementwiseArgs args;
  detail::build_elementwise(args, dst, &src, 1);
  args.dtype = src.dtype();
  args.out_dtype = dst.dtype();
  return args;
}

}  // namespace

TEST_CASE("iter: a transposing copy takes the tiled path with its sizes and strides") {
  const Tensor x = rand({40, 70});
  const Tensor out = empty({70, 40});
  const auto plan = detail::plan_transpose_copy(copy_args(out, x.t()), 32, 65535);
  REQUIRE(plan.tiled);
  CHECK(plan.n0 == 40);  // the output's unit-stride dim: x's rows
  CHECK(plan.n1 == 70);
  CHECK(plan.out_stride1 == 40);
  CHECK(plan.in_stride0 == 70);
  // Element (i0, i1) of the iteration: out[i0 + i1 * 40] = x[i0][i1] = x.data[i0 * 70 + i1].
  CHECK(equal(x.t().contiguous().reshape({-1}).slice(0, 41, 42), x.select(0, 1).slice(0, 1, 2)));
}

TEST_CASE("iter: plain, casting, broadcast and batched copies are not tiled") {
  const Tensor x = rand({40, 70});
  CHECK_FALSE(detail::plan_transpose_copy(copy_args(empty({40, 70}), x), 32, 65535).tiled);
  CHECK_FALSE(detail::plan_transpose_copy(copy_args(empty({70, 40}, kDouble), x.t()), 32, 65535).tiled);
  CHECK_FALSE(detail::plan_transpose_copy(copy_args(empty({70, 40}), x.slice(0, 0, 1).t().expand({70, 40})), 32,
                                          65535).tiled);
  CHECK_FALSE(detail::plan_transpose_copy(copy_args(empty({3, 70, 40}), rand({3, 40, 70}).transpose(1, 2)), 32,
                                          65535).tiled);
  // A dim shorter than a tile: most of each tile would idle.
  CHECK_FALSE(detail::plan_transpose_copy(copy_args(empty({2, 4096}), rand({4096, 2}).t()), 32, 65535).tiled);
  CHECK_FALSE(detail::plan_transpose_copy(copy_args(empty({4096, 2}), rand({2, 4096}).t()), 32, 65535).tiled);
  // Too many tiles along dim 1 for the grid: the element-wise kernel takes it.
  CHECK_FALSE(detail::plan_transpose_copy(copy_args(empty({70, 40}), x.t()), 32, 2).tiled);
}
