// CPU matmul through CBLAS (OpenBLAS) for float32 / float64; other dtypes use the
// portable kernel. Transposed operands are passed as BLAS transposes, never copied.
#include <cblas.h>
#include <dlfcn.h>
#include <omp.h>

#include "core/check.h"
#include "cpu/blas_dims.h"
#include "cpu/blas_library.h"
#include "cpu/cpu_loops.h"
#include "cpu/matmul_generic.h"
#include "cpu/register_cpu.h"

namespace ember::detail {

namespace {

// Row-major BLAS view of a matrix with strides (row, col): NoTrans when columns are
// unit-stride, Trans when rows are.
struct BlasOperand {
  CBLAS_TRANSPOSE trans;
  int64_t ld;
};
BlasOperand blas_operand(int64_t row_stride, int64_t col_stride, int64_t cols) {
  return {col_stride == 1 ? CblasNoTrans : CblasTrans, blas_leading_dim(row_stride, col_stride, cols)};
}

// Products up to this many multiply-adds run one per thread when a batch holds enough of
// them: OpenBLAS splits a small product poorly (a 128x128x64 one ran at half the rate of
// one thread per product in the attention of a Transformer layer).
constexpr int64_t kSmallProduct = int64_t{1} << 22;

// Whether the batch's products go one per OpenMP thread (OpenBLAS then runs each on its
// calling thread, as it does inside any parallel region) rather than one after another.
bool batch_per_thread(const MatmulArgs& a, int threads) {
  if (threads < 2 || a.batch < threads || a.m * a.n * a.k > kSmallProduct) return false;
  return a.batch % threads == 0 || a.batch >= 4 * threads;  // even enough to keep every thread busy
}

template <class T, class Gemm>
void blas_batched(const MatmulArgs& a, Gemm gemm, bool per_thread) {
  const BlasOperand A = blas_operand(a.a_strides[1], a.a_strides[2], a.k);
  const BlasOperand B = blas_operand(a.b_strides[1], a.b_strides[2], a.n);
  const int ldc = int(std::max<int64_t>(a.c_strides[1], std::max<int64_t>(a.n, 1)));
  const auto one = [&](int64_t b) {
    gemm(CblasRowMajor, A.trans, B.trans, int(a.m), int(a.n), int(a.k), T(a.alpha),
         reinterpret_cast<const T*>(a.a) + b * a.a_strides[0], int(A.ld),
         reinterpret_cast<const T*>(a.b) + b * a.b_strides[0], int(B.ld), T(a.beta),
         reinterpret_cast<T*>(a.c) + b * a.c_strides[0], ldc);
  };
  if (per_thread) {
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < a.batch; ++b) one(b);
    return;
  }
  for (int64_t b = 0; b < a.batch; ++b) one(b);
}

#if defined(EMBER_OPENBLAS_OPENMP)
// Note [One thread pool], whichever OpenBLAS loaded first: ember links OpenBLAS's OpenMP
// build, but both builds are libopenblas.so.0, so in a process that loaded the pthread
// build first (libtorch, numpy, ...) ember's cblas calls bind to that one, whose threads
// then spin against ember's OpenMP team (a training step 2.6x slower). ember then loads its
// own OpenMP build privately (RTLD_LOCAL, and RTLD_DEEPBIND so that the copy's internal
// calls stay in the copy) and calls it through these pointers; the other library keeps its
// OpenBLAS. The copy's own libc then serves its allocations, which never cross into ember.
// AddressSanitizer and ThreadSanitizer refuse RTLD_DEEPBIND, so sanitizer builds only warn.
struct BlasLibrary {
  decltype(&cblas_sgemm) sgemm = cblas_sgemm;
  decltype(&cblas_dgemm) dgemm = cblas_dgemm;
  int parallel = 0;  // openblas_get_parallel() of the library called: 0 serial, 1 pthreads, 2 OpenMP
};

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define EMBER_BLAS_NO_DEEPBIND 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define EMBER_BLAS_NO_DEEPBIND 1
#endif
#endif

BlasLibrary choose_blas_library() {
  BlasLibrary linked;
  linked.parallel = openblas_get_parallel();
  if (linked.parallel == 2) return linked;
#if !defined(EMBER_BLAS_NO_DEEPBIND)
  if (void* lib = dlopen(EMBER_OPENBLAS_OPENMP_FILE, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND)) {
    auto parallel = reinterpret_cast<int (*)()>(dlsym(lib, "openblas_get_parallel"));
    auto sgemm = reinterpret_cast<decltype(&cblas_sgemm)>(dlsym(lib, "cblas_sgemm"));
    auto dgemm = reinterpret_cast<decltype(&cblas_dgemm)>(dlsym(lib, "cblas_dgemm"));
    if (parallel && sgemm && dgemm && parallel() == 2) return {sgemm, dgemm, 2};  // kept for the process
    dlclose(lib);
  }
#endif
#if defined(EMBER_BLAS_NO_DEEPBIND)
  const char* why = "a sanitizer build does not load its own";
#else
  const char* why = "ember could not load its own, " EMBER_OPENBLAS_OPENMP_FILE;
#endif
  EMBER_WARN_FMT("ember was built against OpenBLAS's OpenMP build, but this process runs another OpenBLAS "
                 "(openblas_get_parallel() = {}) and {}: its threads and ember's OpenMP threads will compete "
                 "for the cores. Load libember before other users of libopenblas.so.0, or set "
                 "OMP_WAIT_POLICY=passive.",
                 linked.parallel, why);
  return linked;
}
#else
struct BlasLibrary {
  decltype(&cblas_sgemm) sgemm = cblas_sgemm;
  decltype(&cblas_dgemm) dgemm = cblas_dgemm;
  int parallel = -1;
};
BlasLibrary choose_blas_library() { return {}; }
#endif

const BlasLibrary& blas_library() {
  static const BlasLibrary lib = choose_blas_library();
  return lib;
}

// OpenBLAS's OpenMP build sizes its team by the calling thread's omp_get_max_threads():
// one thread while another thread's team runs (ParallelRegionGuard), restored after.
class BlasThreadsGuard {
 public:
  BlasThreadsGuard() : saved_(region_.alone() ? 0 : omp_get_max_threads()) {
    if (saved_) omp_set_num_threads(1);
  }
  ~BlasThreadsGuard() {
    if (saved_) omp_set_num_threads(saved_);
  }
  /// True when this call may use a team of its own (no other thread's team runs).
  bool alone() const { return region_.alone(); }

 private:
  ParallelRegionGuard region_;
  int saved_;
};

void matmul_kernel(const MatmulArgs& a) {
  if (a.m == 0 || a.n == 0) return;
  const BlasLibrary& lib = blas_library();
  // CBLAS takes int sizes: beyond INT_MAX they would wrap, so the int64 generic kernel runs.
  if (!blas_dims_fit_int(a)) return matmul_generic(a);
  if (a.dtype != kFloat && a.dtype != kDouble) return matmul_generic(a);
  BlasThreadsGuard threads;
  // Only OpenBLAS's serial or OpenMP builds run a call on its calling thread inside a team.
  const bool per_thread = threads.alone() && lib.parallel != 1 && batch_per_thread(a, omp_get_max_threads());
  if (a.dtype == kFloat)
    blas_batched<float>(a, lib.sgemm, per_thread);
  else
    blas_batched<double>(a, lib.dgemm, per_thread);
}

}  // namespace

int blas_library_parallel_mode() { return blas_library().parallel; }

void register_cpu_matmul_kernels() {
  register_kernel(Op::MatMul, kCPU, matmul_kernel,
                  DtypeSet({kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble}));
}

}  // namespace ember::detail
