// Which capability's kernels fill the CPU table (Note [CPU capability]): the widest that
// the build has (EMBER_CPU_HAVE_AVX2 / _AVX512, set by CMake) and the CPU runs, or a
// lower one named by EMBER_CPU_CAPABILITY.
#include "cpu/cpu_capability.h"

#include <cstdlib>
#include <cstring>

#include "ember/check.h"
#include "ember/cpu.h"
#include "dispatch/kernel_table.h"

namespace ember {
namespace detail {

namespace {

constexpr const char* kNames[] = {"default", "avx2", "avx512"};

bool cpu_runs(CpuCapability c) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();  // these also check that the OS saves the wide registers
  // F16C (also in the AVX2 build's flags) predates AVX2 on every x86 CPU; clang 14 cannot
  // test it by name.
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  switch (c) {
    case CpuCapability::Default:
      return true;
    case CpuCapability::AVX2:
      return avx2;
    case CpuCapability::AVX512:
      return avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  }
  return false;
#else
  return c == CpuCapability::Default;
#endif
}

bool built_with(CpuCapability c) {
  switch (c) {
    case CpuCapability::Default:
      return true;
    case CpuCapability::AVX2:
#if defined(EMBER_CPU_HAVE_AVX2)
      return true;
#else
      return false;
#endif
    case CpuCapability::AVX512:
#if defined(EMBER_CPU_HAVE_AVX512)
      return true;
#else
      return false;
#endif
  }
  return false;
}

CpuCapability choose() {
  CpuCapability best = CpuCapability::Default;
  for (CpuCapability c : {CpuCapability::AVX2, CpuCapability::AVX512})
    if (built_with(c) && cpu_runs(c)) best = c;
  const char* env = std::getenv("EMBER_CPU_CAPABILITY");
  if (env == nullptr || *env == '\0') return best;
  for (int k = 0; k < 3; ++k) {
    if (std::strcmp(env, kNames[k]) != 0) continue;
    const auto wanted = CpuCapability(k);
    if (int(wanted) <= int(best)) return wanted;
    EMBER_WARN("EMBER_CPU_CAPABILITY=", env, " is ignored: this ",
               built_with(wanted) ? "CPU cannot run it" : "build has no kernels for it", "; using ",
               kNames[int(best)]);
    return best;
  }
  EMBER_WARN("EMBER_CPU_CAPABILITY=", env, " is ignored: expected one of default, avx2, avx512; using ",
             kNames[int(best)]);
  return best;
}

}  // namespace

CpuCapability selected_cpu_capability() {
  static const CpuCapability chosen = choose();
  return chosen;
}

}  // namespace detail

const char* cpu_capability() {
  detail::ensure_builtin_kernels();  // the choice is made (and any warning given) there
  return detail::kNames[int(detail::selected_cpu_capability())];
}

std::vector<std::string> available_cpu_capabilities() {
  std::vector<std::string> out;
  for (int k = 0; k < 3; ++k)
    if (detail::built_with(detail::CpuCapability(k)) && detail::cpu_runs(detail::CpuCapability(k)))
      out.push_back(detail::kNames[k]);
  return out;
}

}  // namespace ember
