// The kernel registry (API.md section 8): has_kernel, NotImplemented naming where an op
// exists, register_kernel's family check, and a PrivateUse1 backend (the "npu" test backend).
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include "dispatch/kernel_table.h"
#include "fake_accelerator.h"

using namespace ember;
using Catch::Contains;
using ember::testing::ensure_fake_accelerator;
using ember::testing::fake_accelerator_missing_ops;

namespace {
void dummy_elementwise(const ElementwiseArgs&) {}
void dummy_reduce(const ReduceArgs&) {}
}  // namespace

TEST_CASE("registry: has_kernel answers per op, device type and dtype") {
  ensure_fake_accelerator();
  CHECK(has_kernel(Op::Add, kCPU, kFloat));
  CHECK(has_kernel(Op::MatMul, kCPU, kFloat));
  CHECK(has_kernel(Op::Add, kPrivateUse1, kFloat));
  CHECK(has_kernel(Op::Exp, kPrivateUse1, kDouble) == has_kernel(Op::Exp, kCPU, kDouble));
  // The fake backend's matmul takes float32 and float64 only; Cumsum and LogSumExp are missing.
  CHECK(has_kernel(Op::MatMul, kPrivateUse1, kFloat));
  CHECK(has_kernel(Op::MatMul, kPrivateUse1, kDouble));
  CHECK_FALSE(has_kernel(Op::MatMul, kPrivateUse1, kInt64));
  for (Op op : fake_accelerator_missing_ops()) {
    INFO(op_name(op));
    CHECK(has_kernel(op, kCPU, kFloat));
    CHECK_FALSE(has_kernel(op, kPrivateUse1, kFloat));
  }
  CHECK(std::string(op_name(Op::MatMul)) == "MatMul");
  CHECK(std::string(op_name(Op::LogSumExp)) == "LogSumExp");
}

TEST_CASE("registry: a missing kernel is NotImplemented, listing where the op is available") {
  ensure_fake_accelerator();
  Tensor x = tensor({1.0f, 2.0f, 3.0f}).to(Device("npu:0"));
  CHECK_THROWS_AS(cumsum(x, 0), NotImplemented);
  CHECK_THROWS_WITH(cumsum(x, 0), Contains("Cumsum: no kernel for device type npu and dtype float32; the op is "
                                           "available on: cpu ("));
  Tensor xi = tensor({1, 2, 3, 4}).reshape({2, 2}).to(Device("npu:1"));
  CHECK_THROWS_AS(matmul(xi, xi), NotImplemented);
  CHECK_THROWS_WITH(matmul(xi, xi), Contains("MatMul: no kernel for device type npu and dtype int64; the op is "
                                             "available on: cpu (") &&
                                        Contains("; npu (float32, float64)"));
  // The input is untouched and the float matmul still runs there.
  Tensor xf = xi.to(kFloat);
  CHECK(xf.device() == Device("npu:1"));
  Tensor r = matmul(xf, xf).cpu();
  CHECK(r.data_ptr<float>()[0] == 7.0f);
  CHECK(r.data_ptr<float>()[3] == 22.0f);
}

TEST_CASE("registry: register_kernel rejects a kernel of the wrong family and leaves the table alone") {
  ensure_fake_accelerator();
  const detail::KernelEntry before = detail::g_kernel_table[int(Op::Sum)][int(kPrivateUse1)];
  CHECK_THROWS_AS(register_kernel(Op::Sum, kPrivateUse1, &dummy_elementwise, DtypeSet{kFloat}), InvalidArgument);
  CHECK_THROWS_WITH(register_kernel(Op::Sum, kPrivateUse1, &dummy_elementwise, DtypeSet{kFloat}),
                    "register_kernel: Sum takes a kernel of type ReduceKernel, but one of type ElementwiseKernel was given");
  CHECK_THROWS_WITH(register_kernel(Op::Add, kPrivateUse1, &dummy_reduce, DtypeSet{kFloat}),
                    "register_kernel: Add takes a kernel of type ElementwiseKernel, but one of type ReduceKernel was given");
  CHECK_THROWS_WITH(register_kernel(Op::Add, kPrivateUse1, ElementwiseKernel(nullptr), DtypeSet{kFloat}),
                    "register_kernel: null kernel for Add");
  const detail::KernelEntry after = detail::g_kernel_table[int(Op::Sum)][int(kPrivateUse1)];
  CHECK(after.fn == before.fn);
  CHECK(after.dtypes == before.dtypes);
}

TEST_CASE("registry: a PrivateUse1 backend gets its own allocator and copies") {
  ensure_fake_accelerator();
  auto& c = ember::testing::fake_counters(1);
  const int64_t allocs = c.allocs, from_host = c.copies_from_host, to_host = c.copies_to_host;
  Tensor x = full({1000}, 2.5f, TensorOptions().device(Device("npu:1")));
  CHECK(x.device() == Device("npu:1"));
  CHECK(memory::stats(Device("npu:1")).allocated_bytes >= 4000);
  CHECK(c.allocs >= allocs);  // a cached block may be reused; never the CPU's allocator
  CHECK(c.bytes_in_use > 0);
  Tensor y = tensor({1.0f}).to(Device("npu:1"));
  CHECK(c.copies_from_host == from_host + 1);
  CHECK(x.sum().cpu().item<float>() == 2500.0f);
  CHECK(c.copies_to_host == to_host + 1);
}
