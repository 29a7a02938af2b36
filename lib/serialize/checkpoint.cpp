// Checkpoints: nn::Module::save / load of named parameters and buffers, and
// optim::Optimizer::save / load of its state, as safetensors files or through the
// archives of torch::save / torch::load.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/check.h"
#include "ember/autograd.h"
#include "ember/nn/module.h"
#include "ember/optim/optimizer.h"
#include "ember/serialize.h"
#include "ember/serialize/archive.h"
#include "tensor/tensor_factory.h"

namespace ember {

namespace {

// Parameters then buffers, under their dotted names (unique: registration forbids repeats).
std::vector<std::pair<std::string, Tensor>> module_state(const nn::Module& m) {
  std::vector<std::pair<std::string, Tensor>> r;
  for (const auto& item : m.named_parameters()) r.emplace_back(item.key(), item.value());
  for (const auto& item : m.named_buffers()) r.emplace_back(item.key(), item.value());
  return r;
}

// "\"a\", \"b\"" as PyTorch's load_state_dict lists keys.
std::string quoted_list(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "\"" : ", \"") + n + "\"";
  return s;
}

}  // namespace

void nn::Module::save(const std::string& path) const {
  std::map<std::string, Tensor> tensors;
  for (auto& [name, t] : module_state(*this)) tensors.emplace(name, t.detach());
  ember::save(tensors, path, {{"format", "pt"}});
}

void nn::Module::load(const std::string& path, bool strict) {
  const SafetensorsFile file(path);
  const auto state = module_state(*this);
  std::vector<std::string> missing, unexpected, mismatched;
  std::set<std::string> in_module;
  for (const auto& [name, t] : state) {
    in_module.insert(name);
    if (!file.contains(name)) {
      missing.push_back(name);
    } else if (file.shape(name) != t.sizes().vec()) {
      mismatched.push_back("size mismatch for " + name + ": copying a param with shape " +
                           ember::detail::shape_str(file.shape(name)) + " from checkpoint, the shape in current model is " +
                           ember::detail::shape_str(t.sizes()) + ".");
    }
  }
  for (const auto& name : file.keys())
    if (!in_module.count(name)) unexpected.push_back(name);
  std::string errors;
  if (strict && !missing.empty()) errors += "\n\tMissing key(s) in state_dict: " + quoted_list(missing) + ". ";
  if (strict && !unexpected.empty()) errors += "\n\tUnexpected key(s) in state_dict: " + quoted_list(unexpected) + ". ";
  for (const auto& m : mismatched) errors += "\n\t" + m;
  EMBER_CHECK_ARG(errors.empty(), "Error(s) in loading state_dict for {} from '{}':{}", name(), path, errors);
  // Read every tensor before copying any, so an I/O failure part-way changes nothing.
  std::vector<std::pair<Tensor, Tensor>> copies;
  for (const auto& [name, t] : state)
    if (file.contains(name)) copies.emplace_back(t, file.get(name, LoadOptions().device(t.device())));
  NoGradGuard no_grad;  // a parameter is a leaf that requires grad: the copy is not recorded
  for (auto& [dst, src] : copies) dst.copy_(src);
}

void nn::Module::save(serialize::OutputArchive& archive) const {
  for (const auto& p : named_parameters(false)) archive.write(p.key(), p.value());
  for (const auto& b : named_buffers(false)) archive.write(b.key(), b.value(), /*is_buffer=*/true);
  for (const auto& c : named_children()) {
    if (!c.value()->is_serializable()) continue;  // nn::Functional: skipped, as libtorch
    serialize::OutputArchive child;
    c.value()->save(child);
    archive.write(c.key(), child);
  }
}

void nn::Module::load(serialize::InputArchive& archive) {
  // libtorch loads child by child and stops at the first problem, part-way; here the whole
  // tree is read and checked, and converted where it must move, before anything changes.
  const std::optional<Device> device = archive.device();
  std::vector<std::string> missing, problems;
  std::vector<std::pair<Tensor, Tensor>> plan;
  for (const auto& [name, t] : module_state(*this)) {
    Tensor src;
    if (!archive.try_read(name, src)) {
      missing.push_back(name);
    } else if (!src.defined()) {
      problems.push_back("'" + name + "' is an undefined tensor (None) in the archive.");
    } else if (src.sizes() != t.sizes()) {
      problems.push_back("size mismatch for " + name + ": copying a param with shape " +
                         ember::detail::shape_str(src.sizes()) + " from checkpoint, the shape in current model is " +
                         ember::detail::shape_str(t.sizes()) + ".");
    } else if (t.requires_grad() && !ember::is_floating_point(src.scalar_type())) {
      problems.push_back("'" + name + "' requires grad, but the archive holds it as " +
                         ember::name(src.scalar_type()) + " (a floating-point dtype is needed).");
    } else {
      plan.emplace_back(t, src);
    }
  }
  std::string errors;
  // libtorch's words: the first level of the name that the archive lacks.
  std::vector<std::string> reported;
  for (const auto& m : missing) {
    std::string line = "No such serialized tensor '" + m + "'";
    serialize::InputArchive sub;
    for (size_t dot = m.find('.'); dot != std::string::npos; dot = m.find('.', dot + 1))
      if (!archive.try_read(m.substr(0, dot), sub)) {
        line = "No such serialized submodule: '" + m.substr(0, dot) + "'";
        break;
      }
    if (std::find(reported.begin(), reported.end(), line) != reported.end()) continue;
    reported.push_back(line);
    errors += "\n\t" + line;
  }
  for (const auto& p : problems) errors += "\n\t" + p;
  EMBER_CHECK_ARG(errors.empty(), "load: Error(s) in loading {} from an archive:{}", name(), errors);
  for (auto& [dst, src] : plan) {
    const Device dev = device ? *device : dst.device();
    if (src.dtype() != dst.dtype() || src.device() != dev || dev != dst.device())
      src = src.to(dev, /*non_blocking=*/false, /*copy=*/true);  // its own storage, not the archive's
  }
  NoGradGuard no_grad;
  for (auto& [dst, src] : plan) {
    if (src.dtype() == dst.dtype() && src.device() == dst.device()) {
      dst.copy_(src);
    } else {
      dst.set_data(src);  // libtorch's set_: the file's dtype, or the load_from device
    }
  }
}

void optim::Optimizer::save(const std::string& path) const {
  ember::save(state_tensors(), path, {{"format", "ember.optim"}});
}

void optim::Optimizer::load(const std::string& path) { load_state_tensors(ember::load(path)); }

void optim::Optimizer::save(serialize::OutputArchive& archive) const {
  for (const auto& [name, t] : state_tensors()) archive.write(name, t);
}

void optim::Optimizer::load(serialize::InputArchive& archive) {
  std::map<std::string, Tensor> tensors = archive.tensors();
  // Every archive this class writes names its groups; libtorch's pre-1.5 ones hold only
  // buffer lists (an empty archive is neither, and load_state_tensors says what it lacks).
  const bool names_groups =
      std::any_of(tensors.begin(), tensors.end(), [](const auto& kv) { return kv.first.rfind("param_groups.", 0) == 0; });
  if (!names_groups && !archive.keys().empty()) tensors = legacy_state_tensors(archive);
  load_state_tensors(tensors);
}

std::map<std::string, Tensor> optim::Optimizer::legacy_state_tensors(serialize::InputArchive& archive) const {
  std::string keys;
  for (const std::string& k : archive.keys()) keys += (keys.empty() ? "" : ", ") + k;
  EMBER_THROW(InvalidArgument,
              "load: the archive names no parameter groups ('param_groups.0.size' is missing; keys: {}), and "
              "this optimizer has no older format to read",
              keys);
}

serialize::OutputArchive& nn::operator<<(serialize::OutputArchive& archive, const std::shared_ptr<Module>& module) {
  EMBER_CHECK_ARG(module != nullptr, "save: null module");
  module->save(archive);
  return archive;
}

serialize::InputArchive& nn::operator>>(serialize::InputArchive& archive, const std::shared_ptr<Module>& module) {
  EMBER_CHECK_ARG(module != nullptr, "load: null module");
  module->load(archive);
  return archive;
}

serialize::OutputArchive& optim::operator<<(serialize::OutputArchive& archive, const Optimizer& optimizer) {
  optimizer.save(archive);
  return archive;
}

serialize::InputArchive& optim::operator>>(serialize::InputArchive& archive, Optimizer& optimizer) {
  optimizer.load(archive);
  return archive;
}

}  // namespace ember
