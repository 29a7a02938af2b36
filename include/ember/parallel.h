#pragma once
/// Multi-device helpers (API.md section 7).

#include <functional>
#include <vector>

#include "ember/device.h"
#include "ember/export.h"
#include "ember/tensor.h"

namespace ember {

/// Splits each input along dim 0 into devices.size() parts (sizes differ by at most one,
/// the first parts larger), runs fn on part i inside DeviceScope(devices[i]), and
/// concatenates the results along dim 0 on the current device.
EMBER_API Tensor make_parallel(const std::function<Tensor(const std::vector<Tensor>&)>& fn,
                               const std::vector<Device>& devices, const std::vector<Tensor>& inputs);

}  // namespace ember
