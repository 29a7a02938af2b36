#pragma once
/// The generators behind ember::Generator (Note [Random generators]): libtorch's CPU
/// generator and the counter-based one of accelerators. Kept apart from generator.h so
/// that <random> is not in every file that includes a tensor.

#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <utility>

#include "ember/generator.h"

namespace ember {

/// libtorch's CPU generator (at::CPUGeneratorImpl).
class EMBER_API CPUGeneratorImpl final : public GeneratorImpl {
 public:
  explicit CPUGeneratorImpl(uint64_t seed = default_rng_seed_val);
  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override { return seed_; }
  Tensor get_state() const override;
  void set_state(const Tensor& state) override;
  std::shared_ptr<GeneratorImpl> clone() const override;

  /// 32 random bits.
  uint32_t random() { return engine_(); }
  /// 64 random bits: the first draw is the high half, as libtorch.
  uint64_t random64() {
    const uint64_t hi = engine_();
    return hi << 32 | engine_();
  }
  std::optional<float> next_float_normal_sample() const { return next_float_normal_; }
  std::optional<double> next_double_normal_sample() const { return next_double_normal_; }
  void set_next_float_normal_sample(std::optional<float> v) { next_float_normal_ = v; }
  void set_next_double_normal_sample(std::optional<double> v) { next_double_normal_ = v; }

 private:
  uint64_t seed_;
  std::mt19937 engine_;
  std::optional<float> next_float_normal_;
  std::optional<double> next_double_normal_;
};

/// Counter-based generator of accelerator devices: each random op reserves a range of
/// counters, and kernels draw Philox4x32-10 blocks keyed by the seed (ember/detail_random.h).
class EMBER_API CounterGeneratorImpl final : public GeneratorImpl {
 public:
  explicit CounterGeneratorImpl(Device device, uint64_t seed = default_rng_seed_val);
  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override;
  Tensor get_state() const override;
  void set_state(const Tensor& state) override;
  std::shared_ptr<GeneratorImpl> clone() const override;
  /// The seed and the first of `count` fresh counters; takes mutex_.
  std::pair<uint64_t, uint64_t> reserve(uint64_t count);

 private:
  uint64_t seed_;
  uint64_t offset_ = 0;
};

}  // namespace ember
