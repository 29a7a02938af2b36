// Checkpoints: nn::Module::save / load of named parameters and buffers, and
// optim::Optimizer::save / load of its state, both as safetensors files.
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
                           detail::shape_str(file.shape(name)) + " from checkpoint, the shape in current model is " +
                           detail::shape_str(t.sizes()) + ".");
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

void optim::Optimizer::save(const std::string& path) const {
  ember::save(state_tensors(), path, {{"format", "ember.optim"}});
}

void optim::Optimizer::load(const std::string& path) { load_state_tensors(ember::load(path)); }

}  // namespace ember
