#pragma once
// Placement: which device an op runs on (API.md section 5 rules 1-4) and the thread's
// DeviceScope stack. See Note [Placement rules] in placement.cpp.

#include <atomic>
#include <string>

#include "ember/device_api.h"
#include "ember/registry.h"
#include "ember/tensor.h"
#include "placement/device_table.h"

namespace ember::detail {

/// The innermost scope's device on this thread; false outside any scope.
bool scope_device(Device* out);

/// Fills a missing index: cpu:0 for the CPU (Note [CPU device index]); for other types the
/// innermost scope of that type, else the default device of that type, else index 0.
Device resolve_index(Device device);

/// The entry of the device an explicitly requested device maps to: the device itself
/// when it exists, else (soft placement on) the best existing device, else the
/// InvalidArgument "Could not satisfy explicit device specification ...".
DeviceEntry& require_device(Device requested, Op op, ScalarType dtype);

/// The device a creation op runs on: explicit options, else the scope, else the default.
DeviceEntry& place_creation(const TensorOptions& options, Op op);
/// NotImplemented unless the options' layout is kStrided; place_creation calls it.
void check_strided_layout(const TensorOptions& options);

/// The device an op with tensor inputs runs on (scope, policy, inputs). Inputs that
/// live elsewhere are replaced in `inputs` by copies on that device (logged).
DeviceEntry& place_op(Op op, Tensor* inputs, int n, ScalarType dtype);
/// As above, logging the op (and its copies) as `log_name`: add_n logs "AddN".
DeviceEntry& place_op(Op op, Tensor* inputs, int n, ScalarType dtype, const char* log_name);

/// The accelerator PreferAccelerator sends `op` to: gpu:0, else device 0 of a registered
/// PrivateUse1 backend; nullptr when neither exists or has a kernel for (op, dtype).
DeviceEntry* preferred_accelerator(Op op, ScalarType dtype);

/// While alive, ops on this thread write no placement log lines: an op built from other
/// ops (add_n) logs itself once instead of once per inner op.
class QuietPlacementLog {
 public:
  QuietPlacementLog();
  ~QuietPlacementLog();
  QuietPlacementLog(const QuietPlacementLog&) = delete;
  QuietPlacementLog& operator=(const QuietPlacementLog&) = delete;
};

/// "/job:localhost/replica:0/task:0/device:CPU:0, ...": every device, for error messages.
std::string available_devices();

extern std::atomic<bool> g_log_placement;
void log_op(Op op, const DeviceEntry& entry);
void log_op(const char* op_name, const DeviceEntry& entry);

}  // namespace ember::detail
