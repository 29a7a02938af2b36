// libFuzzer target: the archive loader of torch::load (InputArchive::load_from) on arbitrary
// bytes, read from a copy of exactly `size` bytes (ASan catches any read outside it). An
// input is refused with InvalidArgument (NotImplemented for a zip archive) or loads; then
// every key is read as a tensor, a value and a nested archive, and a fixed module and
// optimizer load it: each either succeeds or throws InvalidArgument and is left exactly as
// it was (bit for bit). Seeds in fuzz/corpus/archive are that module's and optimizer's files.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;

namespace {

struct Fixture {
  nn::Sequential model{nn::Linear(2, 3), nn::ReLU(), nn::Linear(3, 1)};
  optim::SGD opt{model->parameters(), optim::SGDOptions(0.1).momentum(0.9)};
  std::vector<Tensor> params;                  // the module's parameters as they start
  std::map<std::string, Tensor> optim_state;   // and the optimizer's state
  Fixture() {
    manual_seed(0);
    opt.zero_grad();
    model->forward(ones({4, 2})).sum().backward();
    opt.step();  // momentum buffers exist: the state is not empty
    for (const Tensor& p : model->parameters()) params.push_back(p.detach().clone());
    for (const auto& [k, t] : opt.state_tensors()) optim_state.emplace(k, t.clone());
  }
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.device() == b.device() && a.sizes() == b.sizes() &&
         std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.nbytes()) == 0;
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "%s\n", what);
  std::abort();
}

// Reads every key in every way, down to a bounded depth (each level of a dotted name is one).
void walk(const serialize::InputArchive& archive, int depth) {
  for (const std::string& key : archive.keys()) {
    Tensor t;
    IValue v;
    serialize::InputArchive nested;
    const bool has_tensor = archive.try_read(key, t);
    const bool has_value = archive.try_read(key, v);
    const bool has_nested = archive.try_read(key, nested);
    if (!has_tensor && !has_value && !has_nested) fail("a key from keys() reads as nothing");
    if (has_tensor && t.defined() && t.nbytes() != size_t(t.numel()) * element_size(t.dtype()))
      fail("a tensor's bytes do not match its shape");
    if (has_value && !(v.isNone() || v.isTensor() || v.isDouble() || v.isInt() || v.isBool() || v.isString()))
      fail("a value of no known kind");
    if (has_nested && depth < 16) walk(nested, depth + 1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Fixture& f = fixture();
  char* copy = static_cast<char*>(std::malloc(size ? size : 1));
  if (size) std::memcpy(copy, data, size);
  serialize::InputArchive archive;
  try {
    archive.load_from(copy, size);
  } catch (const InvalidArgument&) {
    std::free(copy);
    return 0;
  } catch (const NotImplemented&) {
    if (size < 4 || std::memcmp(copy, "PK\x03\x04", 4) != 0) fail("NotImplemented for an input that is no zip archive");
    std::free(copy);
    return 0;
  }
  std::free(copy);  // the archive owns copies of its tensors
  walk(archive, 0);

  bool loaded = true;
  try {
    f.model->load(archive);
  } catch (const InvalidArgument&) {
    loaded = false;
  }
  std::vector<Tensor> now = f.model->parameters();
  NoGradGuard no_grad;
  for (size_t i = 0; i < now.size(); ++i) {
    if (!loaded && !same_bits(now[i], f.params[i])) fail("a failed module load changed a parameter");
    if (loaded) now[i].set_data(f.params[i].clone());  // back to the start for the next input
  }

  loaded = true;
  try {
    f.opt.load(archive);
  } catch (const InvalidArgument&) {
    loaded = false;
  }
  if (!loaded) {
    const auto state = f.opt.state_tensors();
    if (state.size() != f.optim_state.size()) fail("a failed optimizer load changed its state's size");
    for (const auto& [k, t] : state) {
      auto it = f.optim_state.find(k);
      if (it == f.optim_state.end() || !same_bits(t, it->second)) fail("a failed optimizer load changed its state");
    }
  } else {
    std::map<std::string, Tensor> restore;
    for (const auto& [k, t] : f.optim_state) restore.emplace(k, t.clone());
    f.opt.load_state_tensors(restore);
  }
  return 0;
}
