#pragma once
/// The kernel registry (API.md section 8): a flat table of function pointers indexed
/// by (Op, DeviceType). Add a kernel for an existing op on a device type, or a whole
/// backend under DeviceType::PrivateUse1, with register_kernel / register_backend.
///
/// Kernel signatures, one per op family (the argument blocks are in kernel_args.h):
///   elementwise  void(const ElementwiseArgs&)  unary, binary, ternary, fill, arange, random
///   reduce       void(const ReduceArgs&)       sum .. logsumexp
///   dim          void(const DimArgs&)          softmax, log_softmax, cumsum
///   matmul       void(const MatmulArgs&)       every matmul-family op
///   select       void(const SelectArgs&)       gather, scatter (and scatter_add)
///   sort         void(const SortArgs&)         sort (argsort, topk)
///   index        void(const IndexArgs&)        index_select, index_copy_, index_add_, nonzero
///   optim        void(const OptimArgs&)        the fused optimizer updates (SGD, Adam / AdamW,
///                                              RMSprop, Adagrad)
///                                              and GradScaler's unscale with its inf check
///   conv         void(const ConvArgs&)         convolution and its backward, where a vendor
///                                              library provides them (Note [Library kernels]):
///                                              optional; without one, the op front-end composes
///                                              the portable im2col + GEMM form
///   pool         void(const PoolArgs&)         max pooling with indices, adaptive average
///                                              pooling, their gradients (direct loops)
///   norm         void(const ChannelStatsArgs&) batch norm's per-channel sums
/// A kernel switches on the dtype itself; the registry records which dtypes it takes.
/// Register before the first op runs on that device type (registration takes no lock).

#include <cstdint>
#include <initializer_list>
#include <string>

#include "ember/device.h"
#include "ember/device_api.h"
#include "ember/export.h"
#include "ember/kernel_args.h"
#include "ember/tensor_impl.h"

namespace ember {

class RawAllocator;
class StreamEvents;

// clang-format off
#define EMBER_FORALL_OPS(_)                                                                                      \
  /* elementwise: nullary */                                                                                     \
  _(Fill) _(Arange) _(Uniform) _(Normal) _(RandInt) _(RandPerm)                                                  \
  /* elementwise: unary (Copy casts from dtype to out_dtype) */                                                  \
  _(Copy) _(Neg) _(Abs) _(Sign) _(Exp) _(Log) _(Log1p) _(Expm1) _(Sqrt) _(Rsqrt) _(Square) _(Sin) _(Cos) _(Tan)  \
  _(Tanh) _(Sigmoid) _(Relu) _(Gelu) _(Floor) _(Ceil) _(Round) _(Trunc) _(Reciprocal) _(IsNan) _(IsInf)          \
  _(LogicalNot) _(Clamp) _(Erf) _(Erfc) _(Erfinv) _(Lgamma) _(Digamma) _(Trigamma) _(BitwiseNot)                 \
  _(I0) _(I0e) _(I1) _(I1e)                                                                                      \
  /* elementwise: torch::special's Bessel family and erfcx (float and double only) */                            \
  _(AiryAi) _(BesselJ0) _(BesselJ1) _(BesselY0) _(BesselY1) _(ModifiedBesselI0) _(ModifiedBesselI1)              \
  _(ModifiedBesselK0) _(ModifiedBesselK1) _(ScaledModifiedBesselK0) _(ScaledModifiedBesselK1)                    \
  _(SphericalBesselJ0) _(Erfcx)                                                                                  \
  /* elementwise: binary */                                                                                      \
  _(Add) _(Sub) _(Mul) _(Div) _(Remainder) _(Pow) _(Maximum) _(Minimum) _(Atan2) _(Eq) _(Ne) _(Lt) _(Le) _(Gt)   \
  _(Ge) _(LogicalAnd) _(LogicalOr) _(LogicalXor) _(IsClose) _(BitwiseAnd) _(BitwiseOr) _(BitwiseXor)             \
  _(LeftShift) _(RightShift) _(Gcd) _(Lcm) _(Nextafter) _(Zeta)                                                  \
  /* elementwise: torch::special's polynomials (x, n) and the incomplete gamma (a, x) */                         \
  _(ChebyshevT) _(ChebyshevU) _(ChebyshevV) _(ChebyshevW) _(ShiftedChebyshevT) _(ShiftedChebyshevU)              \
  _(ShiftedChebyshevV) _(ShiftedChebyshevW) _(HermiteH) _(HermiteHe) _(LaguerreL) _(LegendreP) _(Igamma)         \
  _(Igammac)                                                                                                     \
  /* elementwise: ternary */                                                                                     \
  _(Where) _(Lerp) _(Addcmul) _(Addcdiv)                                                                         \
  /* reductions */                                                                                               \
  _(Sum) _(Prod) _(Max) _(Min) _(ArgMax) _(ArgMin) _(All) _(Any) _(Var) _(Norm) _(LogSumExp)                    \
  /* along one dim */                                                                                            \
  _(Softmax) _(LogSoftmax) _(Cumsum)                                                                             \
  /* linear algebra */                                                                                           \
  _(MatMul)                                                                                                      \
  /* selection: gather / scatter along a dim, sort along a dim */                                                \
  _(Gather) _(Scatter) _(Sort)                                                                                   \
  /* selection along one dim by an index list (advanced indexing stands on these) */                             \
  _(IndexSelect) _(IndexCopy) _(IndexAdd) _(Nonzero)                                                             \
  /* fused optimizer updates: one kernel per parameter tensor per step */                                        \
  _(SgdStep) _(AdamStep) _(RmspropStep) _(AdagradStep) _(AmpUnscale)                                            \
  /* library kernels: optional per device type (Note [Library kernels]) */                                       \
  _(Convolution) _(ConvolutionBackward) _(MaxPool2d) _(MaxPool2dBackward) _(AdaptiveAvgPool2d)                   \
  _(AdaptiveAvgPool2dBackward) _(BatchNormStats) _(BatchNormBackwardReduce)
// clang-format on

enum class Op : uint8_t {
#define EMBER_OP_ENUM(name) name,
  EMBER_FORALL_OPS(EMBER_OP_ENUM)
#undef EMBER_OP_ENUM
      kNumOps
};
inline constexpr int kNumOps = static_cast<int>(Op::kNumOps);

enum class OpFamily : uint8_t { Elementwise, Reduce, Dim, Matmul, Select, Sort, Index, Optim, Conv, Pool, Norm };
constexpr OpFamily op_family(Op op) {
  if (op == Op::Gather || op == Op::Scatter) return OpFamily::Select;
  if (op == Op::Sort) return OpFamily::Sort;
  if (op >= Op::BatchNormStats) return OpFamily::Norm;
  if (op >= Op::MaxPool2d) return OpFamily::Pool;
  if (op >= Op::Convolution) return OpFamily::Conv;
  if (op >= Op::SgdStep) return OpFamily::Optim;
  return op < Op::Sum ? OpFamily::Elementwise
         : op < Op::Softmax ? OpFamily::Reduce
         : op < Op::MatMul  ? OpFamily::Dim
         : op < Op::IndexSelect ? OpFamily::Matmul
                            : OpFamily::Index;
}
/// The op's name as TensorFlow's placement log spells it: "Add", "MatMul", "Exp".
EMBER_API const char* op_name(Op op);

using ElementwiseKernel = void (*)(const ElementwiseArgs&);
using ReduceKernel = void (*)(const ReduceArgs&);
using DimKernel = void (*)(const DimArgs&);
using MatmulKernel = void (*)(const MatmulArgs&);
using SelectKernel = void (*)(const SelectArgs&);
using SortKernel = void (*)(const SortArgs&);
using IndexKernel = void (*)(const IndexArgs&);
using OptimKernel = void (*)(const OptimArgs&);
using ConvKernel = void (*)(const ConvArgs&);
using PoolKernel = void (*)(const PoolArgs&);
using NormKernel = void (*)(const ChannelStatsArgs&);

/// A set of dtypes, one bit per ScalarType.
class DtypeSet {
 public:
  constexpr DtypeSet() = default;
  constexpr DtypeSet(std::initializer_list<ScalarType> types) {
    for (ScalarType t : types) bits_ |= bit(t);
  }
  static constexpr DtypeSet all() { return DtypeSet(0x3ffu); }
  static constexpr DtypeSet floating() { return {kHalf, kBFloat16, kFloat, kDouble}; }
  constexpr bool contains(ScalarType t) const { return (bits_ & bit(t)) != 0; }
  constexpr uint32_t bits() const { return bits_; }
  constexpr DtypeSet operator|(DtypeSet o) const { return DtypeSet(bits_ | o.bits_); }

 private:
  constexpr explicit DtypeSet(uint32_t bits) : bits_(bits) {}
  static constexpr uint32_t bit(ScalarType t) { return 1u << static_cast<int>(t); }
  uint32_t bits_ = 0;
};

EMBER_API void register_kernel(Op op, DeviceType type, ElementwiseKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, ReduceKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, DimKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, MatmulKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, SelectKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, SortKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, IndexKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, OptimKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, ConvKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, PoolKernel fn, DtypeSet dtypes);
EMBER_API void register_kernel(Op op, DeviceType type, NormKernel fn, DtypeSet dtypes);
/// Whether `op` runs on `type` for tensors of `dtype`.
EMBER_API bool has_kernel(Op op, DeviceType type, ScalarType dtype);

/// The device services of a backend: discovery, memory and copies. Kernels are
/// registered separately. Methods take physical device indices.
class EMBER_API Backend {
 public:
  virtual ~Backend() = default;
  /// Physical devices present (0 when none, never throws for a missing driver).
  virtual int device_count() = 0;
  virtual DeviceInfo device_info(int index) = 0;
  /// The raw memory source under this device's caching allocator (owned by the backend).
  virtual RawAllocator* raw_allocator(int index) = 0;
  /// Copies nbytes between two devices of which at least one belongs to this backend
  /// (the other may be a CPU device). Contiguous bytes, no dtype change.
  virtual void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                          size_t nbytes, bool non_blocking) = 0;
  /// Waits for the device's outstanding work.
  virtual void synchronize(int index) { (void)index; }
  /// Events for the caching allocator's stream bookkeeping (nullptr: no streams).
  virtual StreamEvents* stream_events(int index) {
    (void)index;
    return nullptr;
  }
  /// Stream to tag allocations with on this device (nullptr: there are no streams).
  virtual void* current_stream(int index) {
    (void)index;
    return nullptr;
  }
  /// Makes `stream` this thread's current stream of the device (autograd runs a node's
  /// backward on its forward's stream). Backends without streams ignore it.
  virtual void set_current_stream(int index, void* stream) {
    (void)index;
    (void)stream;
  }
  /// Work queued on `waiter` from now on starts after the work already queued on `producer`.
  virtual void wait_stream(int index, void* waiter, void* producer) {
    (void)index;
    (void)waiter;
    (void)producer;
  }
  /// Page-locked host memory for copies to this backend's devices (Tensor::pin_memory):
  /// nbytes, with the deleter and context that hand them back; nullptr when the backend
  /// has no such memory or no device.
  virtual void* allocate_pinned(size_t nbytes, DataDeleter* deleter, void** context) {
    (void)nbytes;
    (void)deleter;
    (void)context;
    return nullptr;
  }
  /// Whether the host memory at `ptr` is page-locked for this backend (Tensor::is_pinned).
  virtual bool is_pinned(const void* ptr) {
    (void)ptr;
    return false;
  }
};

/// Installs the backend for a device type (PrivateUse1 for user backends; `name` is
/// how device strings spell it, e.g. "npu"). The backend must outlive every tensor on it.
EMBER_API void register_backend(DeviceType type, Backend* backend, const std::string& name = "");

}  // namespace ember
