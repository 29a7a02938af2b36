#pragma once
// Shared by the random ops' files (Note [Random generators] in random_ops.cpp).

#include <optional>

#include "ember/generator.h"

namespace ember::detail {

/// The generator an op on `device` draws from: the given one, which must be of the
/// device's type (libtorch's check_generator), else that type's default.
GeneratorImpl* generator_for(const std::optional<Generator>& gen, Device device, const char* op);

/// A CPU generator seeded from `device`'s counter generator (or `gen`), for ops that run
/// on the CPU on behalf of another device without consuming the CPU's own stream.
Generator cpu_generator_for_device(const std::optional<Generator>& gen, Device device, const char* op);

}  // namespace ember::detail
