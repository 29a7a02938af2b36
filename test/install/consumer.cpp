// Built against the installed package. Calls every inline function and template of the
// public headers that reaches into libember.so (formatters, operator<<, item<T>,
// data_ptr<T>, tensor<T>, Scalar, TensorOptions, indexing, devices, memory, registry,
// cuda::), so a symbol the headers need but the library hides fails to link here.
#include <ember/ember.h>
#include <ember/allocator.h>
#include <ember/distributed.h>
#include <ember/nn.h>
#include <ember/registry.h>
#include <fmt/core.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

namespace {
int failures = 0;
void expect(bool ok, const char* what) {
  if (!ok) {
    std::cerr << "consumer: FAILED " << what << "\n";
    ++failures;
  }
}

template <class T>
void round_trip(ember::ScalarType st, T value) {
  ember::Tensor t = ember::full({1}, value, st);
  expect(t.item<T>() == value, "item<T>");
  expect(*t.data_ptr<T>() == value, "data_ptr<T>");
}

// A user backend: only its base classes' vtables and typeinfo come from libember.so.
class HeapAllocator : public ember::RawAllocator {
 public:
  void* allocate(size_t bytes) override { return std::malloc(bytes); }
  void deallocate(void* p, size_t) override { std::free(p); }
};
class UserBackend : public ember::Backend {
 public:
  int device_count() override { return 1; }
  ember::DeviceInfo device_info(int index) override {
    ember::DeviceInfo info;
    info.device = ember::Device(ember::kPrivateUse1, index);
    info.name = "user backend";
    return info;
  }
  ember::RawAllocator* raw_allocator(int) override { return &alloc_; }
  void copy_bytes(void* dst, ember::Device, const void* src, ember::Device, size_t n, bool) override {
    std::memcpy(dst, src, n);
  }

 private:
  HeapAllocator alloc_;
};
void noop_kernel(const ember::ElementwiseArgs&) {}
}  // namespace

int main() {
  using namespace ember;
  Tensor c = matmul(ones({2, 3}), ones({3, 2}));
  nn::Sequential net(nn::Linear(3, 4), nn::ReLU(), nn::Linear(4, 2));
  Tensor y = net->forward(ones({5, 3}));
  expect(y.size(0) == 5 && y.size(1) == 2, "nn::Sequential forward shape");
  expect(net->named_parameters().size() == 4 && net->named_parameters().contains("2.bias"), "nn names");
  std::cout << c << "\n";
  expect(c.sizes() == std::vector<int64_t>{2, 2} && c.equal(full({2, 2}, 3.0)), "matmul");

  // fmt formatters (format.h) and operator<<.
  std::ostringstream os;
  os << c;
  expect(fmt::format("{}", c) == os.str(), "fmt::formatter<Tensor>");
  expect(fmt::format("{}", Device("gpu:1")) == "cuda:1", "fmt::formatter<Device>");
  expect(fmt::format("{}", kBFloat16) == "bfloat16", "fmt::formatter<ScalarType>");
  expect(fmt::format("{}", Tensor()) == "[ Tensor (undefined) ]", "formatting an undefined tensor");

  // item<T> and data_ptr<T> for every element type.
  round_trip<bool>(kBool, true);
  round_trip<uint8_t>(kUInt8, 200);
  round_trip<int8_t>(kInt8, -7);
  round_trip<int16_t>(kInt16, -300);
  round_trip<int32_t>(kInt32, 70000);
  round_trip<int64_t>(kInt64, int64_t(1) << 40);
  round_trip<float>(kFloat, 1.5f);
  round_trip<double>(kDouble, -2.25);
  expect(float(full({1}, 0.5, kHalf).item<Half>()) == 0.5f, "item<Half>");
  expect(float(*full({1}, 0.5, kBFloat16).data_ptr<BFloat16>()) == 0.5f, "data_ptr<BFloat16>");
  expect(tensor({1.5, 2.5}).dtype() == kFloat, "tensor<double> is float32");
  expect(ones({1}).item().to<double>() == 1.0, "item() -> Scalar");

  // tensor<T>, Scalar, TensorOptions, IntArrayRef.
  expect(tensor({1, 2, 3}).dtype() == kInt64 && tensor({true, false}).dtype() == kBool, "tensor<T>");
  expect(tensor(std::vector<int16_t>{1, 2}, dtype(kInt32)).dtype() == kInt32, "tensor<T>(vector, options)");
  Scalar s = 2.5;
  expect(s.to<int>() == 2 && s.natural_type() == kFloat, "Scalar");
  TensorOptions o = TensorOptions(kDouble).device(kCPU, 0).requires_grad(false);
  expect(zeros({2}, o).dtype() == kDouble && zeros({2}, device(Device("cpu:0"))).is_cpu(), "TensorOptions");
  expect(arange(6).reshape({2, 3}).size(-1) == 3 && arange(6).stride(0) == 1, "size/stride");

  // Indexing and the dim-range error thrown from an inline accessor.
  using namespace ember::indexing;
  Tensor x = arange(12).reshape({3, 4});
  expect(x.index({Slice(1, None), Ellipsis, 2}).equal(tensor({6, 10})), "index");
  expect(x[1][2].item<int64_t>() == 6, "operator[]");
  try {
    (void)x.size(5);
    expect(false, "size(5) throws");
  } catch (const InvalidArgument& e) {
    const std::string want = "size: dimension out of range (expected to be in range of [-2, 1], but got 5)";
    expect(std::string(e.what()).find(want) != std::string::npos, "size(5) message");
  }
  try {
    (void)Device(kCPU, -2);
    expect(false, "Device(kCPU, -2) throws");
  } catch (const Error&) {
  }
  try {
    (void)Tensor().sizes();
    expect(false, "sizes() of an undefined tensor throws");
  } catch (const InvalidArgument&) {
  }

  // Devices, placement, memory.
  expect(std::hash<Device>{}(Device("cpu:0")) != std::hash<Device>{}(Device("cuda:0")), "std::hash<Device>");
  expect(!list_physical_devices(kCPU).empty() && !describe_devices().empty(), "device listing");
  {
    DeviceScope scope("/cpu:0");
    expect(current_device() == Device(kCPU, 0), "DeviceScope");
  }
  memory::MemoryStats st = memory::stats(Device(kCPU, 0));
  expect(st.allocated_bytes > 0 && st.num_allocs >= st.num_frees, "memory::stats");
  expect(!memory::summary(Device(kCPU, 0)).empty(), "memory::summary");
  expect(cuda::device_count() >= 0 && cuda::is_available() == (cuda::device_count() > 0), "cuda::");
  if (cuda::is_available()) {
    cuda::Stream stream = cuda::current_stream();
    cuda::Event start, end;
    start.record(stream);
    end.record(stream);
    end.synchronize();
    expect(start.elapsed_ms(end) >= 0, "cuda::Event");
    expect(ones({2}).cuda().cpu().equal(ones({2})), "cuda round trip");
  }

  // Registry: a user backend and kernel under PrivateUse1.
  static UserBackend backend;
  register_backend(kPrivateUse1, &backend, "userdev");
  register_kernel(Op::Neg, kPrivateUse1, noop_kernel, {kFloat});
  expect(has_kernel(Op::Neg, kPrivateUse1, kFloat) && std::string(op_name(Op::MatMul)) == "MatMul", "registry");
  expect(list_physical_devices(kPrivateUse1).size() == 1 && Device("userdev:0").is_privateuse1(),
         "user backend listed");

  // distributed: exported names; no group exists before init_process_group.
  expect(!distributed::is_initialized(), "distributed::is_initialized");
  expect(std::strcmp(distributed::name(distributed::ReduceOp::AVG), "AVG") == 0, "distributed::name");
  try {
    distributed::default_group();
    expect(false, "distributed::default_group before init");
  } catch (const InvalidArgument&) {
  }

  return failures == 0 ? 0 : 1;
}
