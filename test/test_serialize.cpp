// safetensors: round trips of every dtype (bit for bit), strided and device inputs,
// metadata, mmap views, atomic save, and each malformed-file case with its error.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ember/ember.h"
#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;

namespace {

const std::vector<ScalarType> kAllDtypes = {kDouble, kFloat, kHalf, kBFloat16, kInt64,
                                            kInt32,  kInt16, kInt8, kUInt8,    kBool};

using ember_test::TempDir;

// A tensor of `dtype` filled with random bytes (bool: 0 or 1), so round trips compare bits.
Tensor random_bits(ScalarType dtype, IntArrayRef sizes, std::mt19937_64& rng) {
  Tensor t = empty(sizes, TensorOptions(dtype));
  auto* p = static_cast<unsigned char*>(t.data_ptr());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = dtype == kBool ? rng() & 1 : static_cast<unsigned char>(rng());
  return t;
}

std::vector<unsigned char> bytes_of(const Tensor& t) {
  Tensor c = t.to(Device(kCPU, 0)).contiguous();
  auto* p = static_cast<const unsigned char*>(c.data_ptr());
  return std::vector<unsigned char>(p, p + c.nbytes());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

// A safetensors file from a header text and `data_bytes` data bytes (no padding added).
std::string raw_file(const std::string& header, size_t data_bytes, uint64_t declared = UINT64_MAX) {
  uint64_t n = declared == UINT64_MAX ? header.size() : declared;
  std::string out(reinterpret_cast<const char*>(&n), 8);
  return out + header + std::string(data_bytes, '\x01');
}

template <class E, class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    FAIL("wrong exception type: " << e.what());
  }
  FAIL("no exception thrown");
  return {};
}

}  // namespace

TEST_CASE("serialize: every dtype round-trips bit for bit, with shapes and names") {
  TempDir dir;
  uint64_t seed = ember_test::fresh_seed();
  INFO("seed " << seed);
  std::mt19937_64 rng(seed);
  std::map<std::string, Tensor> in;
  for (ScalarType t : kAllDtypes) in[std::string("t_") + name(t)] = random_bits(t, {3, 5, 7}, rng);
  in["scalar"] = random_bits(kFloat, {}, rng);
  in["empty"] = random_bits(kInt32, {4, 0}, rng);
  save(in, dir / "a.safetensors");
  auto out = load(dir / "a.safetensors");
  REQUIRE(out.size() == in.size());
  for (const auto& [k, v] : in) {
    INFO(k);
    const Tensor& r = out.at(k);
    CHECK(r.scalar_type() == v.scalar_type());
    CHECK(r.sizes().vec() == v.sizes().vec());
    CHECK(r.device() == Device(kCPU, 0));
    CHECK(bytes_of(r) == bytes_of(v));
  }
}

TEST_CASE("serialize: strided, offset and transposed inputs are written C-contiguous") {
  TempDir dir;
  Tensor base = arange(60, kFloat).view({3, 4, 5});
  std::map<std::string, Tensor> in = {{"transposed", base.transpose(0, 2)},
                                      {"sliced", base.narrow(1, 1, 2).select(2, 3)},
                                      {"expanded", arange(3, kInt64).view({3, 1}).expand({3, 4})}};
  save(in, dir / "s.safetensors");
  auto out = load(dir / "s.safetensors");
  for (const auto& [k, v] : in) {
    INFO(k);
    CHECK(out.at(k).is_contiguous());
    CHECK(out.at(k).sizes().vec() == v.sizes().vec());
    CHECK(ember_test::dvalues(out.at(k)) == ember_test::dvalues(v));
  }
  CHECK(ember_test::dvalues(out.at("sliced")) == std::vector<double>{8, 13, 28, 33, 48, 53});
}

TEST_CASE("serialize: the file layout is the format's (padded header, aligned data, metadata)") {
  TempDir dir;
  save({{"b", full({2}, 1.5, kDouble)}, {"a", ones({3}, kUInt8)}}, dir / "l.safetensors", {{"format", "pt"}});
  std::ifstream f(dir / "l.safetensors", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  CHECK(n % 8 == 0);
  CHECK(bytes.size() == 8 + n + 16 + 3);
  std::string header = bytes.substr(8, n);
  CHECK(header.find("\"__metadata__\":{\"format\":\"pt\"}") != std::string::npos);
  // Wider elements first: the float64 tensor starts the data, the bytes follow it.
  CHECK(header.find("\"b\":{\"data_offsets\":[0,16],\"dtype\":\"F64\",\"shape\":[2]}") != std::string::npos);
  CHECK(header.find("\"a\":{\"data_offsets\":[16,19],\"dtype\":\"U8\",\"shape\":[3]}") != std::string::npos);
  CHECK((header.back() == ' ' || n == header.find_last_of('}') + 1));
  double first = 0;
  std::memcpy(&first, bytes.data() + 8 + n, 8);
  CHECK(first == 1.5);
}

TEST_CASE("serialize: SafetensorsFile reads metadata, names, dtypes and shapes") {
  TempDir dir;
  save({{"w", zeros({2, 3}, kBFloat16)}, {"step", scalar_tensor(7, kInt64)}}, dir / "m.safetensors",
       {{"epoch", "3"}, {"note", "trained \"x\" \xc3\xa9"}});
  SafetensorsFile f(dir / "m.safetensors");
  CHECK(f.metadata() == std::map<std::string, std::string>{{"epoch", "3"}, {"note", "trained \"x\" \xc3\xa9"}});
  CHECK(f.keys() == std::vector<std::string>{"step", "w"});
  CHECK(f.contains("w"));
  CHECK_FALSE(f.contains("v"));
  CHECK(f.dtype("w") == kBFloat16);
  CHECK(f.shape("w") == std::vector<int64_t>{2, 3});
  CHECK(f.shape("step").empty());
  CHECK(f.get("step").item<int64_t>() == 7);
  auto msg = error_of<InvalidArgument>([&] { f.get("v"); });
  CHECK_THAT(msg, Catch::Contains("load: '" + (dir / "m.safetensors") + "' holds no tensor named 'v'"));
  // No metadata written: none read.
  save({{"x", ones({1})}}, dir / "n.safetensors");
  CHECK(SafetensorsFile(dir / "n.safetensors").metadata().empty());
}

TEST_CASE("serialize: mmap loads view the mapping, which outlives the file and the reader") {
  TempDir dir;
  Tensor src = arange(1000, kFloat);
  save({{"x", src}, {"y", arange(5, kInt64)}}, dir / "z.safetensors");
  Tensor x;
  {
    SafetensorsFile f(dir / "z.safetensors");
    x = f.get("x", LoadOptions().mmap(true));
    // Two mmap gets share the bytes (views of one mapping); a plain get copies.
    CHECK(f.get("x", LoadOptions().mmap(true)).data_ptr() == x.data_ptr());
    CHECK(f.get("x").data_ptr() != x.data_ptr());
    CHECK(ember_test::dvalues(load(dir / "z.safetensors", LoadOptions().mmap(true)).at("y")) == std::vector<double>{0, 1, 2, 3, 4});
  }
  std::remove((dir / "z.safetensors").c_str());
  CHECK(ember_test::dvalues(x) == ember_test::dvalues(src));
  // The mapping is private: writing a view never changes the file.
  save({{"x", src}}, dir / "w.safetensors");
  {
    Tensor v = load(dir / "w.safetensors", LoadOptions().mmap(true)).at("x");
    v.fill_(-1);
    CHECK(v.sum().item<double>() == -1000);
  }
  CHECK(ember_test::dvalues(load(dir / "w.safetensors").at("x")) == ember_test::dvalues(src));
}

TEST_CASE("serialize: mmap of data not aligned to its element size copies instead") {
  TempDir dir;
  // U8[3] at [0, 3) puts the F32 tensor at data byte 3 (header of 8 + 104 bytes).
  std::string header =
      R"({"a":{"dtype":"U8","shape":[3],"data_offsets":[0,3]},"b":{"dtype":"F32","shape":[1],"data_offsets":[3,7]}})";
  header.append((8 - header.size() % 8) % 8, ' ');
  float v = 2.5f;
  std::string file = raw_file(header, 0) + std::string("\x01\x02\x03", 3) + std::string(reinterpret_cast<char*>(&v), 4);
  write_file(dir / "u.safetensors", file);
  auto out = load(dir / "u.safetensors", LoadOptions().mmap(true));
  CHECK(reinterpret_cast<uintptr_t>(out.at("b").data_ptr()) % 4 == 0);
  CHECK(out.at("b").item<float>() == 2.5f);
  CHECK(ember_test::dvalues(out.at("a")) == std::vector<double>{1, 2, 3});
}

TEST_CASE("serialize: save and load another device's tensors") {
  testing::ensure_fake_accelerator();
  TempDir dir;
  Tensor a = arange(12, kFloat).view({3, 4}).to(Device("npu:1"));
  save({{"a", a.t()}}, dir / "d.safetensors");
  auto out = load(dir / "d.safetensors", Device("npu:0"));
  CHECK(out.at("a").device() == Device("npu:0"));
  CHECK(ember_test::dvalues(out.at("a")) == ember_test::dvalues(a.t()));
  auto msg = error_of<InvalidArgument>([&] { load(dir / "d.safetensors", Device("npu:7")); });
  CHECK_THAT(msg, Catch::Contains("load: device"));
  CHECK_THAT(msg, Catch::Contains("does not exist"));
}

TEST_CASE("serialize: save replaces a file atomically and leaves no temporary behind") {
  TempDir dir;
  const std::string p = dir / "c.safetensors";
  save({{"x", ones({2})}}, p);
  save({{"x", full({3}, 4.0)}}, p);
  CHECK(ember_test::dvalues(load(p).at("x")) == std::vector<double>{4, 4, 4});
  CHECK(dir.files() == std::vector<std::string>{"c.safetensors"});
  // A save that fails validation writes nothing; the old file is intact.
  auto msg = error_of<InvalidArgument>([&] { save({{"x", ones({1})}, {"u", Tensor()}}, p); });
  CHECK(msg == "save: tensor 'u' is undefined");
  msg = error_of<InvalidArgument>([&] { save({{"__metadata__", ones({1})}}, p); });
  CHECK_THAT(msg, Catch::Contains("save: '__metadata__' is reserved"));
  CHECK(dir.files() == std::vector<std::string>{"c.safetensors"});
  CHECK(ember_test::dvalues(load(p).at("x")) == std::vector<double>{4, 4, 4});
  msg = error_of<InvalidArgument>([&] { save({{"bad\xff", ones({1})}}, p); });
  CHECK_THAT(msg, Catch::Contains("save: tensor names and metadata must be valid UTF-8"));
  msg = error_of<InvalidArgument>([&] { save({{"x", ones({1})}}, p, {{"k", "\xc3"}}); });
  CHECK_THAT(msg, Catch::Contains("save: tensor names and metadata must be valid UTF-8"));
  CHECK(dir.files() == std::vector<std::string>{"c.safetensors"});
  msg = error_of<IOError>([&] { save({{"x", ones({1})}}, dir / "missing/x.safetensors"); });
  CHECK_THAT(msg, Catch::Contains("save: could not create a temporary file beside '" + (dir / "missing/x.safetensors") +
                                  "': No such file or directory"));
}

TEST_CASE("serialize: files that cannot be opened are IOError") {
  auto msg = error_of<IOError>([&] { load("/nonexistent/dir/x.safetensors"); });
  CHECK(msg == "load: could not open '/nonexistent/dir/x.safetensors': No such file or directory");
  msg = error_of<InvalidArgument>([&] { load("/tmp"); });
  CHECK(msg == "load: '/tmp' is not a regular file");
}

TEST_CASE("serialize: each malformed file is rejected with the file, the tensor and the problem") {
  TempDir dir;
  const std::string p = dir / "bad.safetensors";
  auto reject = [&](const std::string& bytes) {
    write_file(p, bytes);
    return error_of<InvalidArgument>([&] { load(p); });
  };
  const std::string f32 = R"("dtype":"F32","shape":[2,3])";
  auto one = [&](const std::string& body, size_t data) { return raw_file("{\"w\":{" + body + "}}", data); };

  CHECK(reject("abc") == "load: '" + p + "': file of 3 bytes is too short for the 8-byte header length");
  CHECK(reject("") == "load: '" + p + "': file of 0 bytes is too short for the 8-byte header length");
  // 4 to 7 bytes: too short to map, long enough for the zip check (read from the file's own bytes).
  CHECK(reject("abcde") == "load: '" + p + "': file of 5 bytes is too short for the 8-byte header length");
  write_file(p, std::string("PK\x03\x04", 4));
  CHECK_THROWS_AS(load(p), NotImplemented);
  CHECK(reject(raw_file("{}", 0, 100)) ==
        "load: '" + p + "': header length 100 runs past the end of the file (2 bytes after the length)");
  CHECK(reject(raw_file("{}", 0, UINT64_MAX - 3)) ==
        "load: '" + p + "': header length 18446744073709551612 exceeds the limit of 100000000 bytes");
  CHECK_THAT(reject(raw_file("{\"w\":", 0)), Catch::Contains("load: '" + p + "': header is not valid JSON: "));
  CHECK_THAT(reject(raw_file("{\"w\":\"\xff\xfe\"}", 0)), Catch::Contains("header is not valid JSON"));
  CHECK(reject(raw_file("[1, 2]", 0)) == "load: '" + p + "': header must be a JSON object, got array");
  CHECK(reject(raw_file(R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})", 2)) ==
        "load: '" + p + "': tensor 'w' appears twice in the header");
  CHECK(reject(raw_file(R"({"__metadata__":{"a":1}})", 0)) ==
        "load: '" + p + "': \"__metadata__\" value of 'a' must be a string, got number");
  CHECK(reject(raw_file(R"({"__metadata__":["a"]})", 0)) ==
        "load: '" + p + "': \"__metadata__\" must map strings to strings, got array");
  CHECK(reject(raw_file(R"({"w":3})", 0)) ==
        "load: '" + p + "': tensor 'w': expected an object with dtype, shape and data_offsets, got number");
  CHECK(reject(one(R"("dtype":"F8","shape":[1],"data_offsets":[0,1])", 1)) ==
        "load: '" + p + "': tensor 'w': unsupported dtype 'F8' (valid: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
  CHECK(reject(one(R"("shape":[1],"data_offsets":[0,1])", 1)) == "load: '" + p + "': tensor 'w': missing or non-string \"dtype\"");
  CHECK(reject(one(R"("dtype":"U8","data_offsets":[0,1])", 1)) == "load: '" + p + "': tensor 'w': missing or non-array \"shape\"");
  CHECK(reject(one(R"("dtype":"U8","shape":[-1],"data_offsets":[0,1])", 1)) ==
        "load: '" + p + "': tensor 'w': shape entries must be non-negative integers, got -1");
  CHECK(reject(one(R"("dtype":"U8","shape":[1.5],"data_offsets":[0,1])", 1)) ==
        "load: '" + p + "': tensor 'w': shape entries must be non-negative integers, got 1.5");
  CHECK(reject(one(f32 + R"(,"data_offsets":[0])", 24)) ==
        "load: '" + p + "': tensor 'w': \"data_offsets\" must be two non-negative integers [begin, end]");
  CHECK(reject(one(f32 + R"(,"data_offsets":[24,0])", 24)) ==
        "load: '" + p + "': tensor 'w': data_offsets [24, 0] end before they begin");
  CHECK(reject(one(f32 + R"(,"data_offsets":[0,12])", 12)) ==
        "load: '" + p + "': tensor 'w': shape [2, 3] of F32 needs 24 bytes but data_offsets [0, 12] hold 12");
  CHECK(reject(one(R"("dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,1])", 1)) ==
        "load: '" + p + "': tensor 'w': shape [4294967296,4294967296] has more elements than fit in int64");
  CHECK(reject(one(R"("dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,1])", 1)) ==
        "load: '" + p + "': tensor 'w': shape [4611686018427387904] of F64 overflows a byte size");
  CHECK(reject(one(f32 + R"(,"data_offsets":[8,32])", 32)) ==
        "load: '" + p + "': tensor 'w': data_offsets [8, 32] leave a gap (the ranges sorted by begin must start at 0 "
        "and leave no gap; expected begin 0)");
  CHECK(reject(raw_file(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})", 6)) ==
        "load: '" + p + "': tensor 'b': data_offsets [2, 6] overlap the previous tensor (the ranges sorted by begin must "
        "start at 0 and leave no gap; expected begin 4)");
  CHECK(reject(raw_file(R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"U8","shape":[4],"data_offsets":[5,9]}})", 9)) ==
        "load: '" + p + "': tensor 'b': data_offsets [5, 9] leave a gap (the ranges sorted by begin must start at 0 and "
        "leave no gap; expected begin 4)");
  CHECK(reject(one(f32 + R"(,"data_offsets":[0,24])", 20)) ==
        "load: '" + p + "': tensor data ends at byte 24 but the file holds 20 data bytes (truncated file)");
  CHECK(reject(one(f32 + R"(,"data_offsets":[0,24])", 30)) ==
        "load: '" + p + "': tensor data ends at byte 24 but the file holds 30 data bytes (trailing bytes)");
  // A huge declared tensor in a tiny file is refused before anything is allocated.
  CHECK_THAT(reject(one(R"("dtype":"U8","shape":[1000000000000],"data_offsets":[0,1000000000000])", 8)),
             Catch::Contains("truncated file"));
  // The parser's checks hold for SafetensorsFile too; valid files with no tensors load empty.
  CHECK_THROWS_AS(SafetensorsFile(p), InvalidArgument);
  write_file(p, raw_file("{}      ", 0));
  CHECK(load(p).empty());
}
