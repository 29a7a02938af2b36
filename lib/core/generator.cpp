// Generators (ember/generator.h): libtorch's CPU generator, the counter-based generator
// of accelerators, their states as byte tensors, and the process-wide defaults.
#include <cstring>
#include <locale>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.h"
#include "ember/cpu_generator.h"
#include "ember/cuda.h"
#include "ember/ops.h"
#include "ember/tensor.h"

namespace ember {

namespace {

// A state tensor is a magic tag, then fixed fields, then (CPU) the engine's text form.
constexpr char kCpuMagic[8] = {'e', 'm', 'b', 'e', 'r', 'M', 'T', '1'};
constexpr char kCounterMagic[8] = {'e', 'm', 'b', 'e', 'r', 'C', 'G', '1'};

Tensor bytes_tensor(const std::vector<char>& bytes) {
  Tensor t = empty({int64_t(bytes.size())}, TensorOptions(kUInt8).device(Device(kCPU, 0)));
  if (!bytes.empty()) std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

// The state's bytes after checking that it is a CPU uint8 tensor with `magic` and at
// least `fixed` bytes.
std::vector<char> state_bytes(const Tensor& state, const char (&magic)[8], size_t fixed, const char* kind) {
  EMBER_CHECK_ARG(state.defined(), "set_state: the state is an undefined tensor");
  EMBER_CHECK_ARG(state.dtype() == kUInt8 && state.is_cpu(),
                  "set_state: expected a CPU uint8 (Byte) tensor, got {} on {}", name(state.dtype()),
                  state.device().str());
  Tensor c = state.contiguous();
  const char* p = static_cast<const char*>(c.data_ptr());
  const size_t n = size_t(c.numel());
  EMBER_CHECK_ARG(n >= sizeof(magic) + fixed && std::memcmp(p, magic, sizeof(magic)) == 0,
                  "set_state: the state ({} bytes) is not a {} generator's state from get_state()", n, kind);
  return std::vector<char>(p + sizeof(magic), p + n);
}

template <class T>
void put(std::vector<char>& out, const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}
template <class T>
T take(const std::vector<char>& in, size_t& at) {
  T v;
  std::memcpy(&v, in.data() + at, sizeof(T));
  at += sizeof(T);
  return v;
}

}  // namespace

uint64_t GeneratorImpl::seed() {
  std::random_device rd;
  const uint64_t s = (uint64_t(rd()) << 32) | rd();
  set_current_seed(s);
  return s;
}

// ---- CPU

CPUGeneratorImpl::CPUGeneratorImpl(uint64_t seed) : GeneratorImpl(Device(kCPU, 0)) { set_current_seed(seed); }

void CPUGeneratorImpl::set_current_seed(uint64_t seed) {
  // libtorch seeds its mt19937 with the low 32 bits and forgets the Box-Muller cache.
  seed_ = seed;
  engine_.seed(uint32_t(seed));
  next_float_normal_.reset();
  next_double_normal_.reset();
}

Tensor CPUGeneratorImpl::get_state() const {
  std::vector<char> out(kCpuMagic, kCpuMagic + sizeof(kCpuMagic));
  put(out, seed_);
  put(out, uint8_t(next_float_normal_.has_value()));
  put(out, next_float_normal_.value_or(0.0f));
  put(out, uint8_t(next_double_normal_.has_value()));
  put(out, next_double_normal_.value_or(0.0));
  std::ostringstream engine;
  engine.imbue(std::locale::classic());  // digits without a locale's grouping
  engine << engine_;
  const std::string text = engine.str();
  out.insert(out.end(), text.begin(), text.end());
  return bytes_tensor(out);
}

void CPUGeneratorImpl::set_state(const Tensor& state) {
  constexpr size_t fixed = sizeof(uint64_t) + 1 + sizeof(float) + 1 + sizeof(double);
  const std::vector<char> in = state_bytes(state, kCpuMagic, fixed, "CPU");
  size_t at = 0;
  const uint64_t seed = take<uint64_t>(in, at);
  const bool has_f = take<uint8_t>(in, at) != 0;
  const float f = take<float>(in, at);
  const bool has_d = take<uint8_t>(in, at) != 0;
  const double d = take<double>(in, at);
  std::istringstream text(std::string(in.begin() + long(at), in.end()));
  text.imbue(std::locale::classic());
  std::mt19937 engine;
  text >> engine;
  EMBER_CHECK_ARG(!text.fail(), "set_state: the CPU generator state's engine part is damaged");
  // Parsed in full before anything changes: a bad state leaves the generator as it was.
  seed_ = seed;
  engine_ = engine;
  next_float_normal_ = has_f ? std::optional<float>(f) : std::nullopt;
  next_double_normal_ = has_d ? std::optional<double>(d) : std::nullopt;
}

std::shared_ptr<GeneratorImpl> CPUGeneratorImpl::clone() const {
  auto copy = std::make_shared<CPUGeneratorImpl>(seed_);
  copy->engine_ = engine_;
  copy->next_float_normal_ = next_float_normal_;
  copy->next_double_normal_ = next_double_normal_;
  return copy;
}

// ---- counter-based

CounterGeneratorImpl::CounterGeneratorImpl(Device device, uint64_t seed)
    : GeneratorImpl(device), seed_(seed) {}

void CounterGeneratorImpl::set_current_seed(uint64_t seed) {
  seed_ = seed;
  offset_ = 0;
}

uint64_t CounterGeneratorImpl::current_seed() const { return seed_; }

std::pair<uint64_t, uint64_t> CounterGeneratorImpl::reserve(uint64_t count) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint64_t first = offset_;
  offset_ += count;
  return {seed_, first};
}

Tensor CounterGeneratorImpl::get_state() const {
  std::vector<char> out(kCounterMagic, kCounterMagic + sizeof(kCounterMagic));
  put(out, seed_);
  put(out, offset_);
  return bytes_tensor(out);
}

void CounterGeneratorImpl::set_state(const Tensor& state) {
  const std::vector<char> in = state_bytes(state, kCounterMagic, 2 * sizeof(uint64_t), "counter-based");
  size_t at = 0;
  const uint64_t seed = take<uint64_t>(in, at), offset = take<uint64_t>(in, at);
  seed_ = seed;
  offset_ = offset;
}

std::shared_ptr<GeneratorImpl> CounterGeneratorImpl::clone() const {
  auto copy = std::make_shared<CounterGeneratorImpl>(device(), seed_);
  copy->offset_ = offset_;
  return copy;
}

// ---- handle and defaults

GeneratorImpl* Generator::checked() const {
  EMBER_CHECK_ARG(impl_ != nullptr, "Generator: this generator is undefined (default-constructed)");
  return impl_.get();
}

// As libtorch's at::Generator, the handle's calls do not lock: a caller that shares a
// generator with other threads holds gen.mutex() around them (libtorch's Note [Acquire
// lock when using random generators]); the random ops take it while they draw.
void Generator::set_current_seed(uint64_t seed) const { checked()->set_current_seed(seed); }
uint64_t Generator::current_seed() const { return checked()->current_seed(); }
uint64_t Generator::seed() const { return checked()->seed(); }
Tensor Generator::get_state() const { return checked()->get_state(); }
void Generator::set_state(const Tensor& state) const { checked()->set_state(state); }
Generator Generator::clone() const { return Generator(checked()->clone()); }

namespace detail {

const Generator& getDefaultCPUGenerator() {
  static const Generator g = make_generator<CPUGeneratorImpl>(default_rng_seed_val);
  return g;
}

const Generator& getDefaultAcceleratorGenerator(DeviceType type) {
  EMBER_CHECK_ARG(type != kCPU,
                  "getDefaultAcceleratorGenerator: the CPU's generator is getDefaultCPUGenerator()");
  static const Generator cuda = make_generator<CounterGeneratorImpl>(Device(kCUDA, 0), default_rng_seed_val);
  static const Generator other =
      make_generator<CounterGeneratorImpl>(Device(kPrivateUse1, 0), default_rng_seed_val);
  return type == kCUDA ? cuda : other;
}

Generator createCPUGenerator(uint64_t seed_val) { return make_generator<CPUGeneratorImpl>(seed_val); }

}  // namespace detail

namespace cuda {
void manual_seed(uint64_t seed) {
  const Generator& g = detail::getDefaultAcceleratorGenerator(kCUDA);
  std::lock_guard<std::mutex> lock(g.mutex());
  g.set_current_seed(seed);
}
void manual_seed_all(uint64_t seed) { manual_seed(seed); }
}  // namespace cuda

void manual_seed(uint64_t seed) {
  for (const Generator* g :
       {&detail::getDefaultCPUGenerator(), &detail::getDefaultAcceleratorGenerator(kCUDA),
        &detail::getDefaultAcceleratorGenerator(kPrivateUse1)}) {
    std::lock_guard<std::mutex> lock(g->mutex());
    g->set_current_seed(seed);
  }
}

}  // namespace ember
