#pragma once
// Large float32 binary ops whose output does not fit in cache: SSE loads and
// non-temporal stores, so writing the output skips the read-for-ownership of its
// cache lines (12 bytes of traffic per element instead of 16 for c = a op b).

#include <cstdint>

#include "cpu/cpu_loops.h"
#include "ember/kernel_args.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace ember::detail::EMBER_CPU_NS {

/// Outputs at least this large (bytes) are written with streaming stores. Below it, the
/// operands of c = a op b (3x the output) mostly fit a server's L3 (32 MiB here), where
/// ordinary stores win: with 4 MiB outputs streamed, a 1M-element add ran 2x slower.
/// Sizes between 4 and 16 MiB were not measured; 64 MiB gains from streaming.
constexpr int64_t kStreamingBytes = int64_t(16) << 20;

/// Runs out[i] = f(x[i], y[i]) (vf on 4-float vectors) with streaming stores when the
/// args are a dense float32 binary op over a large output. Returns false otherwise.
template <class VecFn, class ScalarFn>
bool try_streaming_binary_f32(const ElementwiseArgs& a, VecFn vf, ScalarFn f) {
#if defined(__SSE2__)
  if (!a.contiguous || a.ninputs != 2 || a.strides[1][0] != 1 || a.strides[2][0] != 1 ||
      a.numel * int64_t(sizeof(float)) < kStreamingBytes)
    return false;
  float* out = reinterpret_cast<float*>(a.data[0]);
  const float* x = reinterpret_cast<const float*>(a.data[1]);
  const float* y = reinterpret_cast<const float*>(a.data[2]);
  parallel_for(a.numel, kParallelGrain, [&](int64_t b, int64_t e) {
    int64_t i = b;
    for (; i < e && (reinterpret_cast<uintptr_t>(out + i) & 15); ++i) out[i] = f(x[i], y[i]);
    for (; i + 16 <= e; i += 16) {
      __m128 r0 = vf(_mm_loadu_ps(x + i), _mm_loadu_ps(y + i));
      __m128 r1 = vf(_mm_loadu_ps(x + i + 4), _mm_loadu_ps(y + i + 4));
      __m128 r2 = vf(_mm_loadu_ps(x + i + 8), _mm_loadu_ps(y + i + 8));
      __m128 r3 = vf(_mm_loadu_ps(x + i + 12), _mm_loadu_ps(y + i + 12));
      _mm_stream_ps(out + i, r0);
      _mm_stream_ps(out + i + 4, r1);
      _mm_stream_ps(out + i + 8, r2);
      _mm_stream_ps(out + i + 12, r3);
    }
    for (; i < e; ++i) out[i] = f(x[i], y[i]);
    _mm_sfence();  // streaming stores are weakly ordered: publish before the join
  });
  return true;
#else
  (void)a, (void)vf, (void)f;
  return false;
#endif
}

}  // namespace ember::detail::EMBER_CPU_NS
