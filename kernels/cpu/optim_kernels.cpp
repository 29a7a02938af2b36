// CPU kernels of the optim family (OptimArgs): one pass over a contiguous parameter per
// step (SGD, Adam / AdamW, RMSprop, Adagrad), the loop body from optim_update.h (shared
// with CUDA) so the compiler vectorises it; tensors above kParallelGrain elements are
// split across OpenMP threads. AmpUnscale is GradScaler's unscale with its inf/NaN check
// in the same pass.
#include "core/dtype_dispatch.h"
#include "cpu/cpu_loops.h"
#include "cpu/register_cpu.h"
#include "ember/registry.h"
#include "optim_update.h"

namespace ember::detail::EMBER_CPU_NS {

namespace {

void sgd_step(const OptimArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const SgdScalars<M> s(a);
    T* p = reinterpret_cast<T*>(a.param);
    const T* g = reinterpret_cast<const T*>(a.grad);
    // Without momentum there is no buffer: the update reads a dummy one it never stores to.
    T* buf = reinterpret_cast<T*>(a.buf0);
    parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
      if (buf) {
        for (int64_t i = b; i < e; ++i) sgd_update<T, M>(s, p[i], g[i], buf[i]);
      } else {
        T unused{};
        for (int64_t i = b; i < e; ++i) sgd_update<T, M>(s, p[i], g[i], unused);
      }
    });
  });
}

void adam_step(const OptimArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const AdamScalars<M> s(a);
    T* p = reinterpret_cast<T*>(a.param);
    const T* g = reinterpret_cast<const T*>(a.grad);
    T* m = reinterpret_cast<T*>(a.buf0);
    T* v = reinterpret_cast<T*>(a.buf1);
    T* vmax = reinterpret_cast<T*>(a.buf2);
    parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
      if (vmax) {
        for (int64_t i = b; i < e; ++i) adam_update<T, M>(s, p[i], g[i], m[i], v[i], vmax + i);
      } else {
        for (int64_t i = b; i < e; ++i) adam_update<T, M>(s, p[i], g[i], m[i], v[i], nullptr);
      }
    });
  });
}

void rmsprop_step(const OptimArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const RmspropScalars<M> s(a);
    T* p = reinterpret_cast<T*>(a.param);
    const T* g = reinterpret_cast<const T*>(a.grad);
    T* sq = reinterpret_cast<T*>(a.buf0);
    T* mom = reinterpret_cast<T*>(a.buf1);
    T* gavg = reinterpret_cast<T*>(a.buf2);
    parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i)
        rmsprop_update<T, M>(s, p[i], g[i], sq[i], mom ? mom + i : nullptr, gavg ? gavg + i : nullptr);
    });
  });
}

void adagrad_step(const OptimArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const AdagradScalars<M> s(a);
    T* p = reinterpret_cast<T*>(a.param);
    const T* g = reinterpret_cast<const T*>(a.grad);
    T* sum = reinterpret_cast<T*>(a.buf0);
    parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) adagrad_update<T, M>(s, p[i], g[i], sum[i]);
    });
  });
}

void amp_unscale_step(const OptimArgs& a) {
  dispatch_floating(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using M = opmath_t<T>;
    const M inv_scale = M(a.lr);
    T* g = reinterpret_cast<T*>(a.param);
    int found = 0;
    // found is or-ed without branches, so the loop vectorises.
#pragma omp parallel for reduction(| : found) if (a.numel > kParallelGrain && !omp_in_parallel())
    for (int64_t i = 0; i < a.numel; ++i) found |= int(amp_unscale<T, M>(inv_scale, g[i]));
    if (found) *reinterpret_cast<float*>(a.buf0) = 1.0f;
  });
}

}  // namespace

void register_cpu_optim_kernels() {
  register_kernel(Op::SgdStep, kCPU, sgd_step, DtypeSet::floating());
  register_kernel(Op::AdamStep, kCPU, adam_step, DtypeSet::floating());
  register_kernel(Op::RmspropStep, kCPU, rmsprop_step, DtypeSet::floating());
  register_kernel(Op::AdagradStep, kCPU, adagrad_step, DtypeSet::floating());
  register_kernel(Op::AmpUnscale, kCPU, amp_unscale_step, DtypeSet::floating());
}

}  // namespace ember::detail::EMBER_CPU_NS
