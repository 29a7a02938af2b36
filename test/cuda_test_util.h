#pragma once
// What the CUDA test files share: skipping without a GPU (the no-GPU behaviour is
// checked elsewhere), the devices they name.
#include <catch2/catch.hpp>

#include "ember/cuda.h"
#include "ember/ember.h"

#define EMBER_REQUIRE_GPU()            \
  do {                                 \
    if (ember::cuda::device_count() == 0) { \
      WARN("skipped: no CUDA device"); \
      return;                          \
    }                                  \
  } while (0)

namespace ember::test {
inline const Device kGpu(kCUDA, 0);
inline const Device kCpu(kCPU, 0);
}  // namespace ember::test
