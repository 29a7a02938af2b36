// safetensors against Python's `safetensors` + `numpy` packages, both directions, every
// dtype, bit for bit (safetensors_python_check.py is the Python side). The interpreter is
// the EMBER_PYTHON cache variable; the case skips with a printed reason when it is unset.
#include <catch2/catch.hpp>
#include <dirent.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

using namespace ember;

namespace {

const char* const kOrder[] = {"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U8", "BOOL"};
const ScalarType kTypes[] = {kDouble, kFloat, kHalf, kBFloat16, kInt64, kInt32, kInt16, kInt8, kUInt8, kBool};

// The same bytes as pattern() in safetensors_python_check.py.
std::vector<unsigned char> pattern_bytes(uint64_t seed, uint64_t idx, size_t n, bool boolean) {
  std::vector<unsigned char> out(n);
  const uint64_t base = seed ^ (idx * 0x9E3779B97F4A7C15ull);
  for (size_t k = 0; k < n; ++k) {
    unsigned char b = static_cast<unsigned char>((base + k * 0xBF58476D1CE4E5B9ull) >> 29);
    out[k] = boolean ? b & 1 : b;
  }
  return out;
}

Tensor from_bytes(const std::vector<unsigned char>& bytes, ScalarType t, IntArrayRef sizes) {
  Tensor out = empty(sizes, t);
  REQUIRE(out.nbytes() == bytes.size());
  std::memcpy(out.data_ptr(), bytes.data(), bytes.size());
  return out;
}

std::vector<unsigned char> bytes_of(const Tensor& t) {
  auto* p = static_cast<const unsigned char*>(t.data_ptr());
  return std::vector<unsigned char>(p, p + t.nbytes());
}

// Runs the Python side; returns its exit status, its output in `out`.
int run_python(const std::string& args, std::string& out) {
  std::string cmd = std::string("'") + EMBER_PYTHON + "' '" + EMBER_SAFETENSORS_SCRIPT + "' " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  return pclose(p);
}

}  // namespace

TEST_CASE("safetensors python: ember's files read by Python and Python's by ember, bit for bit") {
  if (std::strlen(EMBER_PYTHON) == 0) {
    WARN("skipped: EMBER_PYTHON is not set (configure with -DEMBER_PYTHON=<venv>/bin/python, the venv holding "
         "safetensors and numpy; .ci/test makes build/pyenv)");
    return;
  }
  char tmpl[] = "/tmp/ember_st_python_XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string dir = tmpl;
  const uint64_t seed = ember_test::fresh_seed() >> 12;
  INFO("seed " << seed);

  // ember -> Python
  std::map<std::string, Tensor> tensors;
  for (uint64_t i = 0; i < 10; ++i)
    tensors[std::string("t_") + kOrder[i]] =
        from_bytes(pattern_bytes(seed, i, 12 * element_size(kTypes[i]), kTypes[i] == kBool), kTypes[i], {3, 4});
  tensors["strided"] = from_bytes(pattern_bytes(seed, 99, 60, false), kFloat, {3, 5}).t();
  save(tensors, dir + "/ember.safetensors", {{"writer", "ember"}, {"seed", std::to_string(seed)}});
  std::string out;
  int rc = run_python("check '" + dir + "/ember.safetensors' " + std::to_string(seed), out);
  INFO(out);
  CHECK(rc == 0);
  CHECK_THAT(out, Catch::Contains("all bit-exact"));

  // Python -> ember: numpy's writer for nine dtypes, the raw writer for BF16.
  out.clear();
  rc = run_python("write '" + dir + "' " + std::to_string(seed), out);
  REQUIRE(rc == 0);
  SafetensorsFile numpy_file(dir + "/python_numpy.safetensors");
  CHECK(numpy_file.metadata() == std::map<std::string, std::string>{{"writer", "numpy"}, {"seed", std::to_string(seed)}});
  auto from_numpy = load(dir + "/python_numpy.safetensors");
  auto from_raw = load(dir + "/python_raw.safetensors");
  CHECK(from_numpy.size() == 9);
  for (uint64_t i = 0; i < 10; ++i) {
    const std::string key = std::string("t_") + kOrder[i];
    INFO(key);
    const Tensor& t = kTypes[i] == kBFloat16 ? from_raw.at(key) : from_numpy.at(key);
    CHECK(t.scalar_type() == kTypes[i]);
    CHECK(t.sizes().vec() == std::vector<int64_t>{3, 4});
    CHECK(bytes_of(t) == pattern_bytes(seed, i, 12 * element_size(kTypes[i]), kTypes[i] == kBool));
  }
  for (const char* f : {"ember.safetensors", "python_numpy.safetensors", "python_raw.safetensors"})
    std::remove((dir + "/" + f).c_str());
  rmdir(dir.c_str());
}

TEST_CASE("safetensors python: an archive of torch::save is a safetensors file Python reads") {
  if (std::strlen(EMBER_PYTHON) == 0) {
    WARN("skipped: EMBER_PYTHON is not set (see the case above)");
    return;
  }
  ember_test::TempDir dir;
  const int64_t seed = int64_t(ember_test::fresh_seed() >> 40);
  serialize::OutputArchive out, model, empty;
  model.write("0.weight", arange(6, kFloat).view({2, 3}));
  model.write("0.bias", tensor({-1.5, 2.25}, kDouble));
  model.write("1", empty);
  out.write("model", model);
  out.write("epoch", IValue(seed));
  out.write("lr", IValue(0.125));
  out.write("note", IValue("ember"));
  out.write("ok", IValue(true));
  out.save_to(dir / "archive.safetensors");
  std::string log;
  const int rc = run_python("archive '" + (dir / "archive.safetensors") + "' " + std::to_string(seed), log);
  INFO(log);
  CHECK(rc == 0);
  CHECK_THAT(log, Catch::Contains("python read ember's archive"));
}
