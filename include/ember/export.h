#pragma once
/// Export and portability macros shared by every public header.

#if defined(EMBER_STATIC_DEFINE)
#define EMBER_API
#elif defined(_WIN32)
#ifdef EMBER_BUILDING_LIBRARY
#define EMBER_API __declspec(dllexport)
#else
#define EMBER_API __declspec(dllimport)
#endif
#else
#define EMBER_API __attribute__((visibility("default")))
#endif

// Code shared by the CPU and CUDA backends (offset calculators, dtype casts) is marked
// with this so nvcc compiles it for the device too; plain C++ sees nothing.
#if defined(__CUDACC__)
#define EMBER_HOST_DEVICE __host__ __device__
#define EMBER_FORCE_INLINE __forceinline__
#else
#define EMBER_HOST_DEVICE
#define EMBER_FORCE_INLINE inline __attribute__((always_inline))
#endif
