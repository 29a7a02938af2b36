#pragma once
// Which OpenBLAS ember's matmul calls (Note [One thread pool] in blas_matmul.cpp).

namespace ember::detail {

/// openblas_get_parallel() of the library ember's GEMMs run on (0 serial, 1 pthreads,
/// 2 OpenMP), after loading its own OpenMP build when the process had loaded another one
/// first; -1 when ember was built without OpenBLAS's OpenMP build.
int blas_library_parallel_mode();

}  // namespace ember::detail
