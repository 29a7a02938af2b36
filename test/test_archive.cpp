// torch::save / torch::load and serialize::OutputArchive / InputArchive over safetensors:
// round trips through files, streams and functions; the file's layout (dotted names, typed
// metadata); read errors; modules and optimizers, whose failed loads change nothing.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/ember.h"
#include "fake_accelerator.h"
#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
using ember_test::expect_throw;
using ember_test::TempDir;

namespace {

std::string read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

std::vector<std::vector<double>> values_of(const nn::Module& m) {
  std::vector<std::vector<double>> r;
  for (const Tensor& t : m.parameters()) r.push_back(dvalues(t));
  for (const Tensor& t : m.buffers()) r.push_back(dvalues(t));
  return r;
}

nn::Sequential make_mlp(uint64_t seed) {
  manual_seed(seed);
  return nn::Sequential(nn::Linear(3, 8), nn::Tanh(), nn::Linear(8, 2));
}

// A module with a child, a buffer and a parameter of its own, as libtorch programs write them.
struct NetImpl : nn::Module {
  NetImpl() {
    fc = register_module("fc", nn::Linear(2, 3));
    scale = register_parameter("scale", ones({3}) * 0.5);
    steps = register_buffer("steps", zeros({1}, kInt64));
  }
  Tensor forward(const Tensor& x) { return fc->forward(x) * scale; }
  nn::Linear fc{nullptr};
  Tensor scale, steps;
};

void train(nn::Sequential& model, optim::Optimizer& opt, int from, int to) {
  for (int i = from; i < to; ++i) {
    manual_seed(100 + i);  // the same batch at step i in every run
    Tensor x = randn({8, 3}), y = randn({8, 2});
    opt.zero_grad();
    nn::functional::mse_loss(model->forward(x), y).backward();
    opt.step();
  }
}

// The optimizer's state as plain numbers, to compare before and after a failed load.
std::map<std::string, std::vector<double>> state_of(const optim::Optimizer& opt) {
  std::map<std::string, std::vector<double>> r;
  for (const auto& [k, t] : opt.state_tensors()) r[k] = dvalues(t);
  return r;
}

}  // namespace

TEST_CASE("archive: tensors, nested archives and values round-trip through files, streams and functions") {
  TempDir dir;
  serialize::OutputArchive out;
  Tensor w = arange(6, kFloat).view({2, 3});
  out.write("w", w.t());  // strided: written C-contiguous
  out.write("ids", tensor({7, -3}, kInt64), /*is_buffer=*/true);
  out.write("none", Tensor());
  out.write("lr", IValue(1e-3));
  out.write("inf", IValue(-std::numeric_limits<double>::infinity()));
  out.write("epoch", IValue(int64_t(-9007199254740993)));  // not exact in a double
  out("flag", IValue(true));                               // operator() is write
  out.write("name", IValue("a:b \xc3\xa9"));
  out.write("nothing", IValue());
  serialize::OutputArchive inner, empty;
  inner.write("b", ones({2}, kBool));
  inner.write("k", IValue(5));
  out.write("inner", inner);
  out.write("empty", empty);

  std::ostringstream os;
  out.save_to(os);
  std::string through_func;
  out.save_to([&](const void* p, size_t n) {
    through_func.append(static_cast<const char*>(p), n);
    return n;
  });
  out.save_to(dir / "a.safetensors");
  CHECK(read_bytes(dir / "a.safetensors") == os.str());
  CHECK(through_func == os.str());

  std::vector<serialize::InputArchive> ins(4);
  ins[0].load_from(dir / "a.safetensors");
  std::istringstream is(os.str());
  ins[1].load_from(is);
  ins[2].load_from(through_func.data(), through_func.size());
  const std::string bytes = os.str();
  ins[3].load_from(
      [&](uint64_t pos, void* buf, size_t n) {
        const size_t k = std::min<size_t>(n, 5);  // short reads: the loader asks again
        std::memcpy(buf, bytes.data() + pos, k);
        return k;
      },
      [&] { return bytes.size(); });
  for (auto& in : ins) {
    CHECK(in.keys() == std::vector<std::string>{"empty", "epoch", "flag", "ids", "inf", "inner", "lr", "name",
                                                "none", "nothing", "w"});
    Tensor t;
    in.read("w", t);
    CHECK(t.sizes() == std::vector<int64_t>{3, 2});
    CHECK(dvalues(t) == std::vector<double>{0, 3, 1, 4, 2, 5});
    in.read("ids", t, /*is_buffer=*/true);
    CHECK(t.dtype() == kInt64);
    CHECK(dvalues(t) == std::vector<double>{7, -3});
    Tensor undefined = ones({1});
    CHECK(in.try_read("none", undefined));
    CHECK(!undefined.defined());
    IValue v;
    in.read("lr", v);
    CHECK(v.toDouble() == 1e-3);
    in.read("inf", v);
    CHECK(v.toDouble() == -std::numeric_limits<double>::infinity());
    in.read("epoch", v);
    CHECK(v.toInt() == -9007199254740993);
    in("flag", v);
    CHECK(v.toBool());
    in.read("name", v);
    CHECK(v.toStringRef() == "a:b \xc3\xa9");
    in.read("nothing", v);
    CHECK(v.isNone());
    in.read("w", v);  // a tensor reads as a Tensor IValue
    CHECK(v.isTensor());
    serialize::InputArchive sub, none;
    in.read("inner", sub);
    CHECK(sub.keys() == std::vector<std::string>{"b", "k"});
    sub.read("b", t);
    CHECK(t.dtype() == kBool);
    sub.read("k", v);
    CHECK(v.toInt() == 5);
    CHECK(in.try_read("empty", none));
    CHECK(none.keys().empty());
    CHECK(!in.try_read("absent", t));
    CHECK(!in.try_read("lr", t));  // a value is not a tensor
    CHECK(!in.try_read("absent", sub));
    CHECK(!in.device().has_value());
  }
}

TEST_CASE("archive: the file is plain safetensors with dotted names and typed metadata") {
  TempDir dir;
  serialize::OutputArchive out, group;
  group.write("lr", IValue(0.25));
  group.write("nesterov", IValue(false));
  out.write("param_groups", group);
  out.write("state", ones({2}));
  out.write("tag", IValue(std::string("x")));
  out.write("n", IValue(3));
  out.save_to(dir / "f.safetensors");
  SafetensorsFile file(dir / "f.safetensors");
  CHECK(file.keys() == std::vector<std::string>{"state"});
  CHECK(file.metadata() == std::map<std::string, std::string>{{"n", "int64:3"},
                                                              {"param_groups.lr", "float64:0.25"},
                                                              {"param_groups.nesterov", "bool:false"},
                                                              {"tag", "str:x"}});
  // A safetensors file from elsewhere: untyped metadata reads as a String.
  save({{"a.b", ones({1})}}, dir / "py.safetensors", {{"format", "pt"}});
  serialize::InputArchive in;
  in.load_from(dir / "py.safetensors");
  IValue v;
  in.read("format", v);
  CHECK(v.toStringRef() == "pt");
  serialize::InputArchive a;
  in.read("a", a);
  Tensor t;
  a.read("b", t);
  CHECK(dvalues(t) == std::vector<double>{1});
  // A later write of a key replaces what was there, whatever its kind.
  serialize::OutputArchive re;
  re.write("k", ones({1}));
  re.write("k", IValue(2));
  re.save_to(dir / "re.safetensors");
  CHECK(SafetensorsFile(dir / "re.safetensors").keys().empty());
  CHECK(SafetensorsFile(dir / "re.safetensors").metadata().at("k") == "int64:2");
}

TEST_CASE("archive: keys list each name once, numbered keys in numeric order") {
  std::ostringstream os;
  std::vector<Tensor> list;
  for (int i = 0; i < 12; ++i) list.push_back(full({1}, double(i)));
  save(list, os);
  serialize::InputArchive in;
  std::istringstream is(os.str());
  in.load_from(is);
  CHECK(in.keys() == std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11"});
  serialize::OutputArchive out;
  for (int i = 0; i < 3; ++i) out.write("element/" + std::to_string(i), IValue(i));
  std::ostringstream os2;
  out.save_to(os2);
  std::istringstream is2(os2.str());
  in.load_from(is2);
  CHECK(in.keys() == std::vector<std::string>{"element/0", "element/1", "element/2"});
  IValue v;
  CHECK(!in.try_read("1", v));
  CHECK(in.try_read("element/1", v));
  CHECK(v.toInt() == 1);
}

TEST_CASE("archive: errors name the full key, what it holds and the keys that exist") {
  serialize::OutputArchive out, inner;
  inner.write("w", ones({1}));
  inner.write("step", IValue(4));
  out.write("fc", inner);
  std::ostringstream os;
  out.save_to(os);
  std::istringstream is(os.str());
  serialize::InputArchive in, fc;
  in.load_from(is);
  in.read("fc", fc);
  Tensor t;
  IValue v;
  expect_throw<InvalidArgument>(
      [&] { fc.read("bias", t); },
      "InputArchive::read: No such serialized tensor 'fc.bias' (keys here: 'step', 'w')");
  expect_throw<InvalidArgument>([&] { fc.read("step", t); },
                                "InputArchive::read: 'fc.step' holds a Int, not a tensor");
  expect_throw<InvalidArgument>([&] { fc.read("lr", v); }, "does not have a field with name 'fc.lr'");
  expect_throw<InvalidArgument>([&] { in.read("conv", fc); },
                                "No such serialized submodule: 'conv' (keys here: 'fc')");
  fc.read("step", v);
  expect_throw<InvalidArgument>([&] { v.toDouble(); }, "Expected Double but got Int");
  expect_throw<InvalidArgument>([&] { out.write("", ones({1})); }, "OutputArchive::write: empty key");
  expect_throw<InvalidArgument>([&] { out.write("__metadata__", IValue(1)); }, "'__metadata__' is reserved");
  expect_throw<InvalidArgument>([&] { out.write("self", out); }, "cannot be nested in itself");
  // A failed load keeps what the archive held.
  std::istringstream bad(os.str().substr(0, os.str().size() - 1));
  expect_throw<InvalidArgument>([&] { in.load_from(bad); }, "load: '<stream>': tensor data ends at byte 4");
  CHECK(in.keys() == std::vector<std::string>{"fc"});
  // A malformed typed value is an error of the load, not of a later read.
  TempDir dir;
  save({{"t", ones({1})}}, dir / "meta.safetensors", {{"lr", "float64:0.1x"}});
  expect_throw<InvalidArgument>([&] { in.load_from(dir / "meta.safetensors"); },
                                "metadata 'lr' = 'float64:0.1x' is not a valid float64");
  // The writer function must take every byte.
  expect_throw<IOError>([&] { out.save_to([](const void*, size_t n) { return n / 2; }); },
                        "save_to: the writer function took");
}

TEST_CASE("archive: libtorch's zip archives are refused with a message that says so") {
  TempDir dir;
  write_bytes(dir / "model.pt",
              std::string("PK\x03\x04\x14\x00\x00\x00\x08\x00", 10) + std::string(100, '\0'));
  nn::Linear lin(2, 2);
  const auto before = values_of(*lin);
  expect_throw<NotImplemented>([&] { load(lin, dir / "model.pt"); },
                               "is a zip archive (the format of libtorch's torch::save");
  expect_throw<NotImplemented>([&] { load(dir / "model.pt"); }, "ember reads safetensors");
  CHECK(values_of(*lin) == before);
}

TEST_CASE("torch::save / torch::load: a tensor and a list of tensors, by path and by stream") {
  TempDir dir;
  Tensor a = randn({3, 4}, kDouble);
  save(a, dir / "t.safetensors");
  Tensor b;
  load(b, dir / "t.safetensors");
  CHECK(b.dtype() == kDouble);
  CHECK(dvalues(b) == dvalues(a));
  CHECK(SafetensorsFile(dir / "t.safetensors").keys() == std::vector<std::string>{"0"});

  // Into a defined tensor: every handle to it sees the new data, shape and dtype (libtorch's set_).
  Tensor c = zeros({2});
  Tensor alias = c;
  load(c, dir / "t.safetensors");
  CHECK(alias.sizes() == std::vector<int64_t>{3, 4});
  CHECK(dvalues(alias) == dvalues(a));

  std::vector<Tensor> list = {arange(3), ones({2, 2}, kHalf), Tensor()};
  std::stringstream ss;
  save(list, ss);
  std::vector<Tensor> back = {full({1}, 9.0)};
  load(back, ss);  // appends, as libtorch's
  REQUIRE(back.size() == 4);
  CHECK(dvalues(back[0]) == std::vector<double>{9});
  CHECK(dvalues(back[1]) == std::vector<double>{0, 1, 2});
  CHECK(back[2].dtype() == kHalf);
  CHECK(!back[3].defined());

  // The safetensors map API beside the templates: the same calls still mean maps.
  std::map<std::string, Tensor> m = {{"x", a}};
  save(m, dir / "m.safetensors");
  save({{"y", a}}, dir / "n.safetensors", {{"k", "v"}});
  std::string path = dir / "m.safetensors";
  std::map<std::string, Tensor> got = load(path);
  CHECK(dvalues(got.at("x")) == dvalues(a));
  CHECK(load(path, Device(kCPU, 0)).count("x") == 1);
  CHECK(load(path, LoadOptions().mmap(true)).count("x") == 1);
  static_assert(!ember::detail::archive_writable<std::map<std::string, Tensor>>::value,
                "maps stay safetensors maps");
  static_assert(!ember::detail::archive_readable<std::string>::value, "load(path) stays the map loader");
  static_assert(ember::detail::archive_writable<nn::Linear>::value &&
                    ember::detail::archive_readable<optim::SGD>::value,
                "holders and optimizers go through archives");
}

TEST_CASE("torch::save / torch::load: tensors onto another device") {
  testing::ensure_fake_accelerator();
  TempDir dir;
  Tensor a = arange(6, kFloat).view({2, 3}).to(Device("npu:1"));
  save(a, dir / "d.safetensors");
  Tensor b;
  load(b, dir / "d.safetensors", Device("npu:0"));
  CHECK(b.device() == Device("npu:0"));
  CHECK(dvalues(b) == dvalues(a));
  serialize::InputArchive in;
  expect_throw<InvalidArgument>([&] { in.load_from(dir / "d.safetensors", Device("npu:7")); },
                                "does not exist");
  std::ifstream f(dir / "d.safetensors", std::ios::binary);
  in.load_from(f, Device("npu:1"));
  CHECK(in.device() == Device("npu:1"));
  in.read("0", b);
  CHECK(b.device() == Device("npu:1"));
}

TEST_CASE("torch::save / torch::load: modules as holders and shared_ptrs, named as named_parameters") {
  TempDir dir;
  nn::Sequential a = make_mlp(1);
  save(a, dir / "a.safetensors");
  CHECK(SafetensorsFile(dir / "a.safetensors").keys() ==
        std::vector<std::string>{"0.bias", "0.weight", "2.bias", "2.weight"});
  CHECK(SafetensorsFile(dir / "a.safetensors").metadata().at("1") == "archive:");  // Tanh: an empty child

  nn::Sequential b = make_mlp(2);
  REQUIRE(values_of(*b) != values_of(*a));
  const Tensor weight = b[0]->named_parameters()["weight"];
  load(b, dir / "a.safetensors");
  CHECK(values_of(*b) == values_of(*a));
  CHECK(b[0]->named_parameters()["weight"].is_same(weight));  // in place: optimizers keep it
  CHECK(weight.requires_grad());
  CHECK(weight.is_leaf());

  // shared_ptr<Module> through a stream, with a buffer and a module-level parameter.
  manual_seed(3);
  auto net = std::make_shared<NetImpl>();
  net->steps.fill_(41);
  std::stringstream ss;
  save(net, ss);
  manual_seed(4);
  auto other = std::make_shared<NetImpl>();
  load(other, ss);
  CHECK(values_of(*other) == values_of(*net));
  CHECK(other->steps.item<int64_t>() == 41);
  std::shared_ptr<nn::Module> base = other;
  std::stringstream ss2;
  save(base, ss2);
  CHECK(ss2.str() == ss.str());

  // Module::save(path) files load through torch::load, and torch::save files through Module::load.
  a->save(dir / "m.safetensors");
  nn::Sequential c = make_mlp(5);
  load(c, dir / "m.safetensors");
  CHECK(values_of(*c) == values_of(*a));
  nn::Sequential d = make_mlp(6);
  d->load(dir / "m.safetensors");
  CHECK(values_of(*d) == values_of(*a));
}

TEST_CASE("torch::load of a module: the file's dtype in place, the load_from device, extra names ignored") {
  TempDir dir;
  nn::Linear lin(3, 2);
  lin->to(kDouble);
  {
    NoGradGuard g;
    lin->weight.mul_(1.0 / 3);
  }  // not exact in float32
  save(lin, dir / "d.safetensors");
  nn::Linear f(3, 2);
  const Tensor w = f->weight;
  load(f, dir / "d.safetensors");
  CHECK(f->weight.is_same(w));
  CHECK(w.dtype() == kDouble);  // libtorch's set_: the file's dtype
  CHECK(dvalues(w) == dvalues(lin->weight));

  testing::ensure_fake_accelerator();
  nn::Linear g(3, 2);
  load(g, dir / "d.safetensors", Device("npu:0"));
  CHECK(g->weight.device() == Device("npu:0"));
  CHECK(g->bias.device() == Device("npu:0"));
  CHECK(dvalues(g->bias) == dvalues(lin->bias));

  // A file with more than the module holds loads what the module needs, as libtorch does.
  serialize::OutputArchive out;
  out << lin.ptr();
  out.write("epoch", IValue(7));
  out.write("extra", ones({5}));
  out.save_to(dir / "more.safetensors");
  nn::Linear h(3, 2);
  load(h, dir / "more.safetensors");
  CHECK(dvalues(h->weight) == dvalues(lin->weight));
}

TEST_CASE(
    "torch::load of a module: missing, mis-shaped and damaged inputs list the problem and change nothing") {
  TempDir dir;
  nn::Sequential a = make_mlp(7);
  save(a, dir / "a.safetensors");
  manual_seed(8);
  nn::Linear small(3, 4);
  save(small, dir / "small.safetensors");

  nn::Sequential target = make_mlp(9);
  const auto before = values_of(*target);
  expect_throw<InvalidArgument>(
      [&] { load(target, dir / "small.safetensors"); },
      "load: Error(s) in loading " + target->name() +
          " from an archive:\n\tNo such serialized submodule: '0'\n\tNo such serialized submodule: '2'");
  // A submodule that is there but lacks a tensor: the tensor is named.
  serialize::OutputArchive first, only_weight;
  first.write("weight", zeros({8, 3}));
  only_weight.write("0", first);
  only_weight.save_to(dir / "only_weight.safetensors");
  expect_throw<InvalidArgument>(
      [&] { load(target, dir / "only_weight.safetensors"); },
      "\n\tNo such serialized tensor '0.bias'\n\tNo such serialized submodule: '2'");
  nn::Linear wide(3, 5);
  const auto wide_before = values_of(*wide);
  expect_throw<InvalidArgument>(
      [&] { load(wide, dir / "small.safetensors"); },
      "size mismatch for weight: copying a param with shape [4, 3] from checkpoint, the "
      "shape in current model is [5, 3].");
  CHECK(values_of(*wide) == wide_before);
  // Only the last parameter is wrong: the earlier ones must not have been copied.
  serialize::OutputArchive partial;
  partial << a.ptr();
  partial.write("2.bias", ones({3}));
  partial.save_to(dir / "partial.safetensors");
  expect_throw<InvalidArgument>([&] { load(target, dir / "partial.safetensors"); },
                                "size mismatch for 2.bias");
  CHECK(values_of(*target) == before);
  // An integer tensor cannot become a parameter that requires grad.
  serialize::OutputArchive ints;
  ints << small.ptr();
  ints.write("bias", zeros({4}, kInt64));
  ints.save_to(dir / "ints.safetensors");
  nn::Linear lin(3, 4);
  expect_throw<InvalidArgument>([&] { load(lin, dir / "ints.safetensors"); },
                                "'bias' requires grad, but the archive holds it as int64");

  // Every truncation and a flipped header byte of a valid file: an error, the module as it was.
  const std::string good = read_bytes(dir / "a.safetensors");
  for (size_t cut : {size_t(0), size_t(7), size_t(8), size_t(20), good.size() / 2, good.size() - 1}) {
    INFO("cut at " << cut);
    write_bytes(dir / "bad.safetensors", good.substr(0, cut));
    CHECK_THROWS_AS(load(target, dir / "bad.safetensors"), InvalidArgument);
    std::istringstream is(good.substr(0, cut));
    CHECK_THROWS_AS(load(target, is), InvalidArgument);
  }
  std::string flipped = good;
  flipped[12] = '\x7f';
  std::istringstream is(flipped);
  CHECK_THROWS_AS(load(target, is), InvalidArgument);
  CHECK_THROWS_AS(load(target, dir / "absent.safetensors"), IOError);
  CHECK(values_of(*target) == before);
}

TEST_CASE("torch::save / torch::load of an optimizer: a resumed run equals the uninterrupted one") {
  TempDir dir;
  nn::Sequential straight = make_mlp(21);
  optim::Adam opt_straight(straight->parameters(), optim::AdamOptions(0.01).amsgrad(true));
  train(straight, opt_straight, 0, 8);

  nn::Sequential first = make_mlp(21);
  optim::Adam opt_first(first->parameters(), optim::AdamOptions(0.01).amsgrad(true));
  train(first, opt_first, 0, 4);
  save(first, dir / "model.safetensors");
  std::stringstream optim_stream;
  save(opt_first, optim_stream);

  nn::Sequential resumed = make_mlp(22);
  optim::Adam opt_resumed(resumed->parameters(), optim::AdamOptions(0.5).amsgrad(true));
  load(resumed, dir / "model.safetensors");
  load(opt_resumed, optim_stream);
  CHECK(opt_resumed.param_groups()[0].options().get_lr() == 0.01);
  train(resumed, opt_resumed, 4, 8);
  CHECK(values_of(*resumed) == values_of(*straight));
  // Optimizer::save(path) files load through torch::load too (their "format" metadata is no tensor).
  opt_first.save(dir / "adam.safetensors");
  optim::Adam opt_file(resumed->parameters(), optim::AdamOptions(0.5).amsgrad(true));
  load(opt_file, dir / "adam.safetensors");
  CHECK(state_of(opt_file) == state_of(opt_first));

  // Model and optimizer in one archive, as nested archives.
  serialize::OutputArchive both, model_part, optim_part;
  first->save(model_part);
  opt_first.save(optim_part);
  both.write("model", model_part);
  both.write("optimizer", optim_part);
  both.write("epoch", IValue(4));
  both.save_to(dir / "both.safetensors");
  nn::Sequential again = make_mlp(23);
  optim::Adam opt_again(again->parameters(), optim::AdamOptions(0.5).amsgrad(true));
  serialize::InputArchive in, m, o;
  in.load_from(dir / "both.safetensors");
  in.read("model", m);
  in.read("optimizer", o);
  CHECK(o.tensors().size() == opt_first.state_tensors().size());
  CHECK(o.tensors().count("state.0.0.exp_avg") == 1);
  again->load(m);
  opt_again.load(o);
  train(again, opt_again, 4, 8);
  CHECK(values_of(*again) == values_of(*straight));
}

TEST_CASE("torch::load of an optimizer: another model's, another kind's or a damaged state changes nothing") {
  TempDir dir;
  nn::Sequential m = make_mlp(31);
  optim::SGD sgd(m->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  train(m, sgd, 0, 2);
  save(sgd, dir / "sgd.safetensors");

  nn::Sequential other(nn::Linear(3, 5), nn::Tanh(), nn::Linear(5, 2));
  optim::SGD sgd_other(other->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  train(other, sgd_other, 0, 1);  // inputs of 3, outputs of 2: the same batches fit
  save(sgd_other, dir / "other.safetensors");

  optim::Adam adam(m->parameters(), optim::AdamOptions(0.01));
  train(m, adam, 0, 1);
  const auto state = state_of(adam);
  expect_throw<InvalidArgument>([&] { load(adam, dir / "sgd.safetensors"); }, "load_state_tensors");
  const auto sgd_state = state_of(sgd);
  expect_throw<InvalidArgument>([&] { load(sgd, dir / "other.safetensors"); }, "has shape [5, 3]");
  const std::string good = read_bytes(dir / "sgd.safetensors");
  for (size_t cut : {size_t(3), size_t(9), good.size() - 4}) {
    std::istringstream is(good.substr(0, cut));
    CHECK_THROWS_AS(load(sgd, is), InvalidArgument);
  }
  CHECK(state_of(adam) == state);
  CHECK(state_of(sgd) == sgd_state);
  CHECK(sgd.param_groups()[0].options().get_lr() == 0.1);
}

namespace {

// libtorch 1.13's handler form: every warning's text, in order.
struct Warnings : WarningHandler {
  std::vector<std::string> seen;
  void process(const SourceLocation&, const std::string& msg, bool) override { seen.push_back(msg); }
};

// Writes `opt`'s per-parameter state as libtorch's optimizers did before 1.5: one list per
// field (state of parameters without state is left out, as theirs ended at the last one).
template <class State>
std::vector<Tensor> field_list(const optim::Optimizer& opt, Tensor (*get)(const State&)) {
  std::vector<Tensor> out;
  for (const Tensor& p : opt.param_groups()[0].params()) {
    auto it = opt.state().find(p.unsafe_impl());
    if (it == opt.state().end()) break;
    out.push_back(get(static_cast<const State&>(*it->second)));
  }
  return out;
}

// A user's optimizer: it keeps no state and has no older format.
struct PlainOptimizer : optim::Optimizer {
  explicit PlainOptimizer(std::vector<Tensor> params)
      : Optimizer(std::move(params), std::make_unique<optim::SGDOptions>(0.1)) {}
  Tensor step(LossClosure) override { return {}; }
};

}  // namespace

TEST_CASE("optim::serialize: buffer lists and step counts in libtorch's '<key>/size' form") {
  TempDir dir;
  serialize::OutputArchive out;
  std::deque<Tensor> dirs{tensor({1.0, 2.0}), tensor({3.0})};
  optim::serialize(out, "dirs", dirs);
  optim::serialize(out, "steps", std::vector<int64_t>{4, 7});
  optim::serialize(out, "iteration_", int64_t(12));
  out.write("bad/size", tensor({2.5}));
  out.save_to(dir / "lists.safetensors");

  serialize::InputArchive in;
  in.load_from(dir / "lists.safetensors");
  CHECK(in.keys() == std::vector<std::string>{"bad/size", "dirs/0", "dirs/1", "dirs/size", "iteration_", "steps/0",
                                              "steps/1", "steps/size"});
  std::vector<Tensor> back{ones({1})};  // cleared first
  optim::serialize(in, "dirs", back);
  REQUIRE(back.size() == 2);
  CHECK(dvalues(back[0]) == std::vector<double>{1, 2});
  CHECK(dvalues(back[1]) == std::vector<double>{3});
  std::vector<int64_t> steps;
  optim::serialize(in, "steps", steps);
  CHECK(steps == std::vector<int64_t>{4, 7});
  int64_t iteration = 0;
  optim::serialize(in, "iteration_", iteration);
  CHECK(iteration == 12);
  expect_throw<InvalidArgument>([&] { optim::serialize(in, "bad", back); },
                                "'bad/size' must hold one integer, got 1 element(s) of dtype float32");
  expect_throw<InvalidArgument>([&] { optim::serialize(in, "missing", back); }, "missing/size");
  expect_throw<InvalidArgument>([&] { optim::serialize(in, "dirs", steps); }, "must hold one integer step count");
}

TEST_CASE("torch::load of an optimizer: libtorch's pre-1.5 archives load with its warning and resume exactly") {
  TempDir dir;
  SECTION("SGD: momentum_buffers") {
    nn::Sequential model = make_mlp(41), twin = make_mlp(41);
    optim::SGD sgd(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
    optim::SGD twin_sgd(twin->parameters(), optim::SGDOptions(0.1).momentum(0.9));
    train(model, sgd, 0, 3);
    train(twin, twin_sgd, 0, 3);
    serialize::OutputArchive legacy;
    optim::serialize(legacy, "momentum_buffers",
                     field_list<optim::SGDParamState>(sgd, [](const optim::SGDParamState& s) { return s.momentum_buffer(); }));
    optim::serialize(legacy, "iteration_", int64_t(3));
    legacy.save_to(dir / "sgd_old.safetensors");

    optim::SGD resumed(twin->parameters(), optim::SGDOptions(0.1).momentum(0.9));
    Warnings warnings;
    {
      WarningUtils::WarningHandlerGuard guard(&warnings);
      load(resumed, dir / "sgd_old.safetensors");
    }
    REQUIRE(warnings.seen.size() == 1);
    CHECK(warnings.seen[0] ==
          "Your serialized SGD optimizer is still using the old serialization format. You should re-save your SGD "
          "optimizer to use the new serialization format.");
    CHECK(state_of(resumed) == state_of(sgd));
    train(model, sgd, 3, 5);
    train(twin, resumed, 3, 5);
    CHECK(values_of(*twin) == values_of(*model));
  }
  SECTION("Adam with amsgrad: step, exp_avg, exp_avg_sq and max_exp_avg_sq lists") {
    nn::Sequential model = make_mlp(42), twin = make_mlp(42);
    optim::Adam adam(model->parameters(), optim::AdamOptions(0.01).amsgrad(true));
    optim::Adam twin_adam(twin->parameters(), optim::AdamOptions(0.01).amsgrad(true));
    train(model, adam, 0, 3);
    train(twin, twin_adam, 0, 3);
    using S = optim::AdamParamState;
    serialize::OutputArchive legacy;
    std::vector<int64_t> steps;
    for (const Tensor& p : adam.param_groups()[0].params())
      steps.push_back(static_cast<const S&>(*adam.state().at(p.unsafe_impl())).step());
    optim::serialize(legacy, "step_buffers", steps);
    optim::serialize(legacy, "exp_average_buffers", field_list<S>(adam, [](const S& s) { return s.exp_avg(); }));
    optim::serialize(legacy, "exp_average_sq_buffers", field_list<S>(adam, [](const S& s) { return s.exp_avg_sq(); }));
    optim::serialize(legacy, "max_exp_average_sq_buffers",
                     field_list<S>(adam, [](const S& s) { return s.max_exp_avg_sq(); }));
    std::stringstream stream;
    legacy.save_to(stream);
    optim::Adam resumed(twin->parameters(), optim::AdamOptions(0.01).amsgrad(true));
    Warnings warnings;
    {
      WarningUtils::WarningHandlerGuard guard(&warnings);
      load(resumed, stream);
    }
    CHECK(warnings.seen ==
          std::vector<std::string>{"Your serialized Adam optimizer is still using the old serialization format. You "
                                   "should re-save your Adam optimizer to use the new serialization format."});
    CHECK(state_of(resumed) == state_of(adam));
    train(model, adam, 3, 5);
    train(twin, resumed, 3, 5);
    CHECK(values_of(*twin) == values_of(*model));
  }
  SECTION("RMSprop: square_avg, momentum and grad_avg lists; the step restarts at 0, as libtorch's") {
    nn::Sequential model = make_mlp(43);
    optim::RMSprop rms(model->parameters(), optim::RMSpropOptions(0.01).momentum(0.9).centered(true));
    train(model, rms, 0, 2);
    using S = optim::RMSpropParamState;
    serialize::OutputArchive legacy;
    optim::serialize(legacy, "square_average_buffers", field_list<S>(rms, [](const S& s) { return s.square_avg(); }));
    optim::serialize(legacy, "momentum_buffers", field_list<S>(rms, [](const S& s) { return s.momentum_buffer(); }));
    optim::serialize(legacy, "grad_average_buffers", field_list<S>(rms, [](const S& s) { return s.grad_avg(); }));
    std::stringstream stream;
    legacy.save_to(stream);
    optim::RMSprop resumed(model->parameters(), optim::RMSpropOptions(0.01).momentum(0.9).centered(true));
    Warnings warnings;
    {
      WarningUtils::WarningHandlerGuard guard(&warnings);
      load(resumed, stream);
    }
    REQUIRE(warnings.seen.size() == 1);
    CHECK(warnings.seen[0].find("The step value in state will be set to 0") != std::string::npos);
    auto want = state_of(rms), got = state_of(resumed);
    for (auto& [k, v] : want)
      if (k.size() > 5 && k.compare(k.size() - 5, 5, ".step") == 0) {
        CHECK(v == std::vector<double>{2});
        CHECK(got.at(k) == std::vector<double>{0});
        got.at(k) = v;
      }
    CHECK(got == want);
  }
  SECTION("LBFGS: its global state on the first parameter, ro recomputed from the history") {
    manual_seed(44);
    Tensor w = randn({4}, kDouble).requires_grad_(true);
    const Tensor target = tensor({1.0, -2.0, 0.5, 3.0}, kDouble);
    optim::LBFGS lbfgs(std::vector<Tensor>{w}, optim::LBFGSOptions(0.5).max_iter(3));
    auto closure = [&] {
      lbfgs.zero_grad();
      Tensor loss = ((w - target).pow(2) * arange(1, 5, kDouble)).sum() + w.pow(4).sum() * 0.01;
      loss.backward();
      return loss;
    };
    lbfgs.step(closure);
    lbfgs.step(closure);
    const auto& s = static_cast<const optim::LBFGSParamState&>(*lbfgs.state().at(w.unsafe_impl()));
    REQUIRE(s.old_dirs().size() >= 2);
    serialize::OutputArchive legacy;
    legacy.write("d", s.d(), true);
    legacy.write("t", tensor({s.t()}, kDouble), true);  // libtorch's test writes these as tensors
    legacy.write("H_diag", s.H_diag(), true);
    legacy.write("prev_flat_grad", s.prev_flat_grad(), true);
    legacy.write("prev_loss", tensor({s.prev_loss()}, kDouble), true);
    optim::serialize(legacy, "old_dirs", s.old_dirs());
    optim::serialize(legacy, "old_stps", s.old_stps());
    std::stringstream stream;
    legacy.save_to(stream);
    optim::LBFGS resumed(std::vector<Tensor>{w}, optim::LBFGSOptions(0.5).max_iter(3));
    Warnings warnings;
    {
      WarningUtils::WarningHandlerGuard guard(&warnings);
      load(resumed, stream);
    }
    REQUIRE(warnings.seen.size() == 1);
    CHECK(warnings.seen[0].find("The func_evals and n_iter value in state will be set to 0") != std::string::npos);
    auto want = state_of(lbfgs), got = state_of(resumed);
    CHECK(got.at("state.0.0.func_evals") == std::vector<double>{0});
    CHECK(got.at("state.0.0.n_iter") == std::vector<double>{0});
    got.at("state.0.0.func_evals") = want.at("state.0.0.func_evals");
    got.at("state.0.0.n_iter") = want.at("state.0.0.n_iter");
    CHECK(got == want);  // ro entries included: 1 / (y . s), bit for bit the step's own
  }
}

TEST_CASE("torch::load of an optimizer: a bad pre-1.5 archive, or one for an optimizer without that form, changes nothing") {
  TempDir dir;
  Warnings warnings;  // each refused load warns first, as libtorch's
  WarningUtils::WarningHandlerGuard guard(&warnings);
  nn::Sequential model = make_mlp(45);
  optim::SGD sgd(model->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  train(model, sgd, 0, 2);
  const auto before = state_of(sgd);

  serialize::OutputArchive wrong_shape;
  optim::serialize(wrong_shape, "momentum_buffers", std::vector<Tensor>{zeros({2, 2})});
  wrong_shape.save_to(dir / "wrong_shape.safetensors");
  expect_throw<InvalidArgument>([&] { load(sgd, dir / "wrong_shape.safetensors"); },
                                "'state.0.0.momentum_buffer' has shape [2, 2] and dtype float32, but its parameter has "
                                "shape [8, 3]");
  serialize::OutputArchive too_many;
  std::vector<Tensor> five;
  for (const Tensor& p : model->parameters()) five.push_back(zeros_like(p));
  five.push_back(zeros({1}));
  optim::serialize(too_many, "momentum_buffers", five);
  too_many.save_to(dir / "too_many.safetensors");
  expect_throw<InvalidArgument>([&] { load(sgd, dir / "too_many.safetensors"); },
                                "names parameter 4 of group 0, which the optimizer does not have");
  serialize::OutputArchive other_names;
  other_names.write("exp_average_buffers/size", scalar_tensor(int64_t(0), kInt64));
  other_names.save_to(dir / "other_names.safetensors");
  expect_throw<InvalidArgument>([&] { load(sgd, dir / "other_names.safetensors"); }, "momentum_buffers/size");
  CHECK(state_of(sgd) == before);

  PlainOptimizer plain(model->parameters());
  expect_throw<InvalidArgument>([&] { load(plain, dir / "wrong_shape.safetensors"); },
                                "'param_groups.0.size' is missing; keys: momentum_buffers/0, momentum_buffers/size), "
                                "and this optimizer has no older format to read");
}

TEST_CASE("archive: IValue holds libtorch's kinds and names them in errors") {
  CHECK(IValue().isNone());
  CHECK(IValue(3).isInt());
  CHECK(IValue(size_t(3)).toInt() == 3);
  CHECK(IValue(2.5f).toDouble() == 2.5);
  CHECK(IValue(false).isBool());
  CHECK(IValue("s").isString());  // a literal is a String, not a Bool
  CHECK(IValue(ones({2})).isTensor());
  CHECK(IValue(int64_t(1)).tagKind() == "Int");
  expect_throw<InvalidArgument>([] { IValue(1.5).toInt(); }, "Expected Int but got Double");
  expect_throw<InvalidArgument>([] { IValue().toTensor(); }, "Expected Tensor but got None");
  expect_throw<InvalidArgument>([] { IValue(true).toStringRef(); }, "Expected String but got Bool");
}

TEST_CASE(
    "torch::save of a module: an nn::Functional child is not serializable and is skipped, as libtorch's") {
  TempDir dir;
  manual_seed(2);
  nn::Sequential net(nn::Linear(2, 3), nn::Functional(ember::relu), nn::Linear(3, 1));
  save(net, dir / "net.safetensors");
  serialize::InputArchive in;
  in.load_from(dir / "net.safetensors");
  serialize::InputArchive child;
  CHECK(in.try_read("0", child));
  CHECK_FALSE(in.try_read("1", child));  // the Functional left no archive behind
  CHECK(in.try_read("2", child));
  manual_seed(3);
  nn::Sequential copy(nn::Linear(2, 3), nn::Functional(ember::relu), nn::Linear(3, 1));
  load(copy, dir / "net.safetensors");
  const Tensor x = tensor({{0.5f, -1.0f}});
  CHECK(copy->forward(x).item<float>() == net->forward(x).item<float>());
}
