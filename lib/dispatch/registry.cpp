#include <mutex>
#include <string>

#include "core/check.h"
#include "dispatch/kernel_table.h"
#include "kernels_registration.h"

namespace ember {

namespace detail {

KernelEntry g_kernel_table[kNumOps][kNumDeviceTypes];

namespace {
std::string dtype_list(uint32_t bits) {
  std::string s;
  for (int t = 0; t < kNumScalarTypes; ++t)
    if (bits & (1u << t)) s += std::string(s.empty() ? "" : ", ") + name(static_cast<ScalarType>(t));
  return s;
}
}  // namespace

void throw_no_kernel(Op op, DeviceType type, ScalarType dtype) {
  std::string where;
  for (int t = 0; t < kNumDeviceTypes; ++t) {
    const KernelEntry& e = g_kernel_table[static_cast<int>(op)][t];
    if (!e.fn) continue;
    where += fmt::format("{}{} ({})", where.empty() ? "" : "; ",
                         device_type_name(static_cast<DeviceType>(t)), dtype_list(e.dtypes));
  }
  EMBER_THROW(NotImplemented, "{}: no kernel for device type {} and dtype {}; the op is available on: {}",
              op_name(op), device_type_name(type), name(dtype), where.empty() ? "none" : where);
}

namespace {
// Set while the built-in backends register, so their register_kernel calls do not
// re-enter ensure_builtin_kernels (call_once would deadlock).
thread_local bool t_registering_builtins = false;
}  // namespace

void ensure_builtin_kernels() {
  static std::once_flag once;
  std::call_once(once, [] {
    t_registering_builtins = true;
    register_cpu_kernels();
    register_cuda_kernels();
    t_registering_builtins = false;
  });
}

bool registering_builtins() { return t_registering_builtins; }

}  // namespace detail

const char* op_name(Op op) {
  static constexpr const char* names[] = {
#define EMBER_OP_NAME(name) #name,
      EMBER_FORALL_OPS(EMBER_OP_NAME)
#undef EMBER_OP_NAME
  };
  return names[static_cast<int>(op)];
}

namespace {
const char* family_kernel_name(OpFamily f) {
  switch (f) {
    case OpFamily::Elementwise: return "ElementwiseKernel";
    case OpFamily::Reduce: return "ReduceKernel";
    case OpFamily::Dim: return "DimKernel";
    case OpFamily::Matmul: return "MatmulKernel";
    case OpFamily::Select: return "SelectKernel";
    case OpFamily::Sort: return "SortKernel";
    case OpFamily::Index: return "IndexKernel";
    case OpFamily::Optim: return "OptimKernel";
    case OpFamily::Conv: return "ConvKernel";
    case OpFamily::Pool: return "PoolKernel";
    case OpFamily::Norm: return "NormKernel";
  }
  return "?";
}

void put(Op op, DeviceType type, void* fn, DtypeSet dtypes, OpFamily family) {
  EMBER_CHECK_ARG(op < Op::kNumOps, "register_kernel: op {} is out of range", static_cast<int>(op));
  EMBER_CHECK_ARG(op_family(op) == family, "register_kernel: {} takes a kernel of type {}, but one of type {} was given", op_name(op),
                  family_kernel_name(op_family(op)), family_kernel_name(family));
  EMBER_CHECK_ARG(fn != nullptr, "register_kernel: null kernel for {}", op_name(op));
  // A user's kernel registered before the first op must not be overwritten by the
  // built-in ones registering later: make them register first.
  if (!detail::registering_builtins()) detail::ensure_builtin_kernels();
  detail::g_kernel_table[static_cast<int>(op)][static_cast<int>(type)] = {fn, dtypes.bits()};
}
}  // namespace

void register_kernel(Op op, DeviceType type, ElementwiseKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Elementwise);
}
void register_kernel(Op op, DeviceType type, ReduceKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Reduce);
}
void register_kernel(Op op, DeviceType type, DimKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Dim);
}
void register_kernel(Op op, DeviceType type, MatmulKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Matmul);
}

void register_kernel(Op op, DeviceType type, SelectKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Select);
}
void register_kernel(Op op, DeviceType type, SortKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Sort);
}
void register_kernel(Op op, DeviceType type, IndexKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Index);
}
void register_kernel(Op op, DeviceType type, OptimKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Optim);
}
void register_kernel(Op op, DeviceType type, ConvKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Conv);
}
void register_kernel(Op op, DeviceType type, PoolKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Pool);
}
void register_kernel(Op op, DeviceType type, NormKernel fn, DtypeSet dtypes) {
  put(op, type, reinterpret_cast<void*>(fn), dtypes, OpFamily::Norm);
}

bool has_kernel(Op op, DeviceType type, ScalarType dtype) {
  detail::ensure_builtin_kernels();
  const detail::KernelEntry& e = detail::g_kernel_table[static_cast<int>(op)][static_cast<int>(type)];
  return e.fn != nullptr && (e.dtypes & (1u << static_cast<int>(dtype)));
}

}  // namespace ember
