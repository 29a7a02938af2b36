#include "state_form.h"

#include <vector>

#include "core/check.h"
#include "ember/check.h"
#include "ember/optim/serialize.h"

namespace ember::optim {

namespace detail {

std::map<std::string, Tensor> group_entries(const std::vector<OptimizerParamGroup>& groups) {
  std::map<std::string, Tensor> out;
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string gp = "param_groups." + std::to_string(g) + ".";
    out[gp + "size"] = scalar_tensor(int64_t(groups[g].params().size()), kInt64);
    for (const auto& [name, value] : groups[g].options().values()) out[gp + name] = scalar_tensor(value, kDouble);
  }
  return out;
}

void warn_legacy_format(const char* optimizer, const char* lost) {
  EMBER_WARN("Your serialized ", optimizer, " optimizer is still using the old serialization format. ", lost,
             "You should re-save your ", optimizer, " optimizer to use the new serialization format.");
}

std::map<std::string, Tensor> legacy_lists_state(const std::vector<OptimizerParamGroup>& groups,
                                                 serialize::InputArchive& archive,
                                                 std::initializer_list<LegacyList> lists) {
  std::map<std::string, Tensor> out = group_entries(groups);
  for (const LegacyList& list : lists) {
    std::vector<Tensor> buffers;
    serialize(archive, list.key, buffers);
    for (size_t i = 0; i < buffers.size(); ++i)
      out["state.0." + std::to_string(i) + "." + list.field] = std::move(buffers[i]);
  }
  return out;
}

int64_t read_buffer_count(serialize::InputArchive& archive, const std::string& key) {
  Tensor size;
  archive.read(key + "/size", size);
  EMBER_CHECK_ARG(size.defined() && size.numel() == 1 && !size.is_floating_point(),
                  "optim::serialize: '{}/size' must hold one integer, got {} element(s) of dtype {}", key,
                  size.defined() ? size.numel() : 0, size.defined() ? name(size.dtype()) : "undefined");
  const int64_t n = size.item<int64_t>();
  EMBER_CHECK_ARG(n >= 0, "optim::serialize: '{}/size' is {}, expected a count of at least 0", key, n);
  return n;
}

}  // namespace detail

void serialize(serialize::OutputArchive& archive, const std::string& key, const std::vector<int64_t>& steps) {
  std::vector<Tensor> tensors;
  tensors.reserve(steps.size());
  for (int64_t step : steps) tensors.push_back(scalar_tensor(step, kInt64));
  serialize(archive, key, tensors);
}

void serialize(serialize::InputArchive& archive, const std::string& key, std::vector<int64_t>& steps) {
  std::vector<Tensor> tensors;
  serialize(archive, key, tensors);
  std::vector<int64_t> values;
  values.reserve(tensors.size());
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK_ARG(t.defined() && t.numel() == 1 && !t.is_floating_point(),
                    "optim::serialize: '{}/{}' must hold one integer step count", key, i);
    values.push_back(t.item<int64_t>());
  }
  steps = std::move(values);
}

void serialize(serialize::OutputArchive& archive, const std::string& key, const int64_t& value) {
  archive.write(key, IValue(value));
}

void serialize(serialize::InputArchive& archive, const std::string& key, int64_t& value) {
  IValue v;
  archive.read(key, v);
  EMBER_CHECK_ARG(v.isInt(), "optim::serialize: '{}' must be an Int value, got {}", key, v.tagKind());
  value = v.toInt();
}

}  // namespace ember::optim
