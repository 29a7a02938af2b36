#pragma once
// The flat kernel table behind ember/registry.h, and the lookup every op front-end
// makes: one array index and one bit test, no strings, no locks.

#include "ember/registry.h"

namespace ember::detail {

struct KernelEntry {
  void* fn = nullptr;
  uint32_t dtypes = 0;
};

extern KernelEntry g_kernel_table[kNumOps][kNumDeviceTypes];

[[noreturn]] void throw_no_kernel(Op op, DeviceType type, ScalarType dtype);

template <class Fn>
inline Fn lookup_kernel(Op op, DeviceType type, ScalarType dtype) {
  const KernelEntry& e = g_kernel_table[static_cast<int>(op)][static_cast<int>(type)];
  if (__builtin_expect(e.fn == nullptr || !(e.dtypes & (1u << static_cast<int>(dtype))), 0))
    throw_no_kernel(op, type, dtype);
  return reinterpret_cast<Fn>(e.fn);
}

/// Registers the kernels of the built-in backends once (idempotent, thread-safe).
void ensure_builtin_kernels();
/// True on the thread running the built-in registration.
bool registering_builtins();

}  // namespace ember::detail
