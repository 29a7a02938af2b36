#pragma once
// Placement: which device an op runs on (API.md section 5 rules 1-4) and the thread's
// DeviceScope stack. See Note [Placement rules] in placement.cpp.

#include <atomic>

#include "ember/device_api.h"
#include "ember/registry.h"
#include "ember/tensor.h"
#include "placement/device_table.h"

namespace ember::detail {

/// The innermost scope's device on this thread; false outside any scope.
bool scope_device(Device* out);

/// Fills a missing index with the current device of that type.
Device resolve_index(Device device);

/// The entry of the device an explicitly requested device maps to: the device itself
/// when it exists, else (soft placement on) the best existing device, else the
/// InvalidArgument "Could not satisfy explicit device specification ...".
DeviceEntry& require_device(Device requested, Op op, ScalarType dtype);

/// The device a creation op runs on: explicit options, else the scope, else the default.
DeviceEntry& place_creation(const TensorOptions& options, Op op);

/// The device an op with tensor inputs runs on (scope, policy, inputs). Inputs that
/// live elsewhere are replaced in `inputs` by copies on that device (logged).
DeviceEntry& place_op(Op op, Tensor* inputs, int n, ScalarType dtype);

extern std::atomic<bool> g_log_placement;
void log_op(Op op, const DeviceEntry& entry);

}  // namespace ember::detail
