#include "fake_accelerator.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <utility>

#include "dispatch/kernel_table.h"
#include "ember/allocator.h"
#include "ember/cuda.h"

namespace ember::testing {

namespace {

constexpr int kFakeDevices = 2;
constexpr size_t kFakeMemory = size_t(1) << 30;

FakeAcceleratorCounters g_counters[kFakeDevices];

// Fake streams: opaque tokens, a current one per device and thread (null: the default
// stream), and the waits asked of the backend, for the autograd stream-rule tests.
thread_local void* t_current_streams[kFakeDevices] = {};
std::mutex g_waits_mutex;
std::vector<FakeStreamWait> g_waits;

// Host memory, counted per device.
class CountingAllocator : public RawAllocator {
 public:
  explicit CountingAllocator(int index) : index_(index) {}
  void* allocate(size_t bytes) override {
    FakeAcceleratorCounters& c = g_counters[index_];
    const int k = c.fail_every.load();
    if (++c.requests % (k > 0 ? k : 1) == 0 && k > 0) {
      ++c.refused;
      return nullptr;
    }
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p) {
      ++g_counters[index_].allocs;
      g_counters[index_].bytes_in_use += int64_t(bytes);
    }
    return p;
  }
  void deallocate(void* ptr, size_t bytes) override {
    ++g_counters[index_].frees;
    g_counters[index_].bytes_in_use -= int64_t(bytes);
    std::free(ptr);
  }

 private:
  int index_;
};

class FakeBackend : public Backend {
 public:
  int device_count() override { return kFakeDevices; }
  DeviceInfo device_info(int index) override {
    DeviceInfo info;
    info.device = Device(kPrivateUse1, index);
    info.name = "ember fake accelerator (host memory)";
    info.memory_total = info.memory_limit = kFakeMemory;
    return info;
  }
  RawAllocator* raw_allocator(int index) override { return &allocators_[index]; }
  void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device, size_t nbytes,
                  bool) override {
    if (dst_device.is_cpu()) ++g_counters[src_device.index()].copies_to_host;
    else if (src_device.is_cpu()) ++g_counters[dst_device.index()].copies_from_host;
    else ++g_counters[dst_device.index()].copies_between;
    std::memcpy(dst, src, nbytes);
  }
  void* current_stream(int index) override { return t_current_streams[index]; }
  void set_current_stream(int index, void* stream) override { t_current_streams[index] = stream; }
  void wait_stream(int index, void* waiter, void* producer) override {
    std::lock_guard<std::mutex> lock(g_waits_mutex);
    g_waits.push_back({index, waiter, producer});
  }

 private:
  CountingAllocator allocators_[kFakeDevices] = {CountingAllocator(0), CountingAllocator(1)};
};

DtypeSet dtypes_of(uint32_t bits) {
  DtypeSet s;
  for (int t = 0; t < kNumScalarTypes; ++t)
    if (bits & (1u << t)) s = s | DtypeSet{static_cast<ScalarType>(t)};
  return s;
}

bool is_missing(Op op) {
  for (Op m : fake_accelerator_missing_ops())
    if (m == op) return true;
  return false;
}

void forward_cpu_kernels() {
  detail::ensure_builtin_kernels();
  for (int i = 0; i < kNumOps; ++i) {
    const Op op = static_cast<Op>(i);
    const detail::KernelEntry& cpu = detail::g_kernel_table[i][static_cast<int>(kCPU)];
    if (!cpu.fn || is_missing(op)) continue;
    DtypeSet dtypes = op == Op::MatMul ? DtypeSet{kFloat, kDouble} : dtypes_of(cpu.dtypes);
    switch (op_family(op)) {
      case OpFamily::Elementwise:
        register_kernel(op, kPrivateUse1, reinterpret_cast<ElementwiseKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Reduce:
        register_kernel(op, kPrivateUse1, reinterpret_cast<ReduceKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Dim:
        register_kernel(op, kPrivateUse1, reinterpret_cast<DimKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Matmul:
        register_kernel(op, kPrivateUse1, reinterpret_cast<MatmulKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Select:
        register_kernel(op, kPrivateUse1, reinterpret_cast<SelectKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Sort:
        register_kernel(op, kPrivateUse1, reinterpret_cast<SortKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Index:
        register_kernel(op, kPrivateUse1, reinterpret_cast<IndexKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Optim:
        register_kernel(op, kPrivateUse1, reinterpret_cast<OptimKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Conv:
        register_kernel(op, kPrivateUse1, reinterpret_cast<ConvKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Pool:
        register_kernel(op, kPrivateUse1, reinterpret_cast<PoolKernel>(cpu.fn), dtypes);
        break;
      case OpFamily::Norm:
        register_kernel(op, kPrivateUse1, reinterpret_cast<NormKernel>(cpu.fn), dtypes);
        break;
    }
  }
}

}  // namespace

void ensure_fake_accelerator() {
  static std::once_flag once;
  std::call_once(once, [] {
    static FakeBackend backend;  // outlives every tensor: never destroyed before exit
    forward_cpu_kernels();
    register_backend(kPrivateUse1, &backend, "npu");
  });
}

FakeAcceleratorCounters& fake_counters(int index) { return g_counters[index]; }

void* fake_new_stream() {
  static std::atomic<uintptr_t> next{1};
  return reinterpret_cast<void*>(next.fetch_add(1) * 16);  // never dereferenced
}

void* fake_current_stream(int index) { return t_current_streams[index]; }

FakeStreamGuard::FakeStreamGuard(int index, void* stream) : index_(index), previous_(t_current_streams[index]) {
  t_current_streams[index] = stream;
}
FakeStreamGuard::~FakeStreamGuard() { t_current_streams[index_] = previous_; }

std::vector<FakeStreamWait> fake_take_stream_waits() {
  std::lock_guard<std::mutex> lock(g_waits_mutex);
  return std::exchange(g_waits, {});
}

std::vector<Op> fake_accelerator_missing_ops() { return {Op::Cumsum, Op::LogSumExp}; }

Device expected_accelerator() {
  return cuda::device_count() > 0 ? Device(kCUDA, 0) : Device(kPrivateUse1, 0);
}

PlacementSettings::PlacementSettings(bool capture) {
  if (capture)
    set_placement_log_sink([this](const std::string& line) {
      std::lock_guard<std::mutex> lock(mutex_);
      lines_.push_back(line);
    });
}

PlacementSettings::~PlacementSettings() {
  set_log_device_placement(false);
  set_placement_log_sink(nullptr);
  set_placement(Placement::FollowInputs);
  set_soft_device_placement(false);
  set_default_device(Device(kCPU, 0));
}

std::vector<std::string> PlacementSettings::take() {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::string> out;
  out.swap(lines_);
  return out;
}

}  // namespace ember::testing
