#pragma once
/// Random number generators, as libtorch's at::Generator (Note [Random generators]); the
/// engines, CPUGeneratorImpl and CounterGeneratorImpl, are in ember/cpu_generator.h.
/// The CPU generator is libtorch's: a 32-bit Mersenne Twister seeded with the seed's low
/// 32 bits, drawn serially, with a cached second Box-Muller sample, so a program gets
/// libtorch's numbers for the same seed. Accelerators draw from a counter-based generator
/// (seed, offset): an element's value depends on its counter only, not on the launch shape.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "ember/device.h"
#include "ember/export.h"

namespace ember {

class Tensor;

/// libtorch's default seed: a program that never seeds still gets libtorch's numbers.
constexpr uint64_t default_rng_seed_val = 67280421310721ull;

/// One generator's state. Its methods do not lock: the Generator handle's calls and the
/// random ops hold mutex_ around them (reserve() takes it itself).
class EMBER_API GeneratorImpl {
 public:
  virtual ~GeneratorImpl() = default;
  GeneratorImpl(const GeneratorImpl&) = delete;
  GeneratorImpl& operator=(const GeneratorImpl&) = delete;

  virtual void set_current_seed(uint64_t seed) = 0;
  virtual uint64_t current_seed() const = 0;
  /// Seeds with a nondeterministic value and returns it (torch.seed()).
  uint64_t seed();
  /// The whole state as a CPU uint8 tensor, for set_state.
  virtual Tensor get_state() const = 0;
  /// InvalidArgument when `state` did not come from get_state of this kind of generator.
  virtual void set_state(const Tensor& state) = 0;
  virtual std::shared_ptr<GeneratorImpl> clone() const = 0;
  Device device() const { return device_; }

  std::mutex mutex_;

 protected:
  explicit GeneratorImpl(Device device) : device_(device) {}

 private:
  Device device_;
};

/// A shared handle to a generator (at::Generator): copies draw from the same state.
class EMBER_API Generator {
 public:
  Generator() = default;
  explicit Generator(std::shared_ptr<GeneratorImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return static_cast<bool>(impl_); }

  void set_current_seed(uint64_t seed) const;
  uint64_t current_seed() const;
  /// Seeds with a nondeterministic value and returns it.
  uint64_t seed() const;
  Tensor get_state() const;
  void set_state(const Tensor& state) const;
  /// An independent generator with a copy of this one's state.
  Generator clone() const;
  Device device() const { return checked()->device(); }
  std::mutex& mutex() const { return checked()->mutex_; }
  GeneratorImpl* unsafeGetGeneratorImpl() const { return impl_.get(); }
  /// The implementation as T, or nullptr when it is another kind (T complete: include
  /// ember/cpu_generator.h for the built-in ones).
  template <class T>
  T* get() const {
    return dynamic_cast<T*>(impl_.get());
  }
  bool operator==(const Generator& o) const { return impl_ == o.impl_; }
  bool operator!=(const Generator& o) const { return impl_ != o.impl_; }

 private:
  GeneratorImpl* checked() const;
  std::shared_ptr<GeneratorImpl> impl_;
};

/// at::make_generator<at::CPUGeneratorImpl>(seed).
template <class Impl, class... Args>
Generator make_generator(Args&&... args) {
  return Generator(std::make_shared<Impl>(std::forward<Args>(args)...));
}

namespace detail {
/// The process-wide CPU generator that rand, randn, randint, randperm, the in-place random
/// fills, dropout and nn::init draw from when no generator is passed.
EMBER_API const Generator& getDefaultCPUGenerator();
/// The default generator of an accelerator's device type (one per type, shared by its devices).
EMBER_API const Generator& getDefaultAcceleratorGenerator(DeviceType type = kCUDA);
EMBER_API Generator createCPUGenerator(uint64_t seed_val = default_rng_seed_val);
}  // namespace detail

/// Seeds the default generator of every device type, as torch::manual_seed.
EMBER_API void manual_seed(uint64_t seed);

}  // namespace ember
