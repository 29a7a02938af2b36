// make_parallel: split, run each part in its device's scope, concatenate.
#include "core/check.h"
#include "ember/device_api.h"
#include "ember/ops.h"
#include "ember/parallel.h"

namespace ember {

Tensor make_parallel(const std::function<Tensor(const std::vector<Tensor>&)>& fn, const std::vector<Device>& devices,
                     const std::vector<Tensor>& inputs) {
  EMBER_CHECK_ARG(!devices.empty(), "make_parallel: expected at least one device");
  EMBER_CHECK_ARG(!inputs.empty(), "make_parallel: expected at least one input");
  const int64_t n = int64_t(devices.size());
  const int64_t rows = inputs[0].defined() && inputs[0].dim() > 0 ? inputs[0].size(0) : -1;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK_ARG(inputs[i].defined() && inputs[i].dim() > 0, "make_parallel: input {} must have at least one dim", i);
    EMBER_CHECK_ARG(inputs[i].size(0) == rows, "make_parallel: input {} has {} rows but input 0 has {}", i,
                    inputs[i].size(0), rows);
  }
  const Device home = current_device();
  std::vector<Tensor> results;
  int64_t start = 0;
  for (int64_t p = 0; p < n; ++p) {
    // tensor_split: the first rows % n parts get one extra row.
    const int64_t len = rows / n + (p < rows % n ? 1 : 0);
    std::vector<Tensor> parts;
    for (const Tensor& t : inputs) parts.push_back(t.narrow(0, start, len));
    start += len;
    DeviceScope scope(devices[size_t(p)]);
    results.push_back(fn(parts));
  }
  DeviceScope scope(home);
  return cat(results, 0);
}

}  // namespace ember
