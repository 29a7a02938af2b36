// nn containers and module utilities (libtorch's nn/modules/container and nn/utils):
// Functional, AnyModule, ModuleList, ModuleDict, ParameterList, ParameterDict, Sequential's
// AnyModule form, Cloneable and clone(), the apply/named_* forms, clip_grad_*, the
// parameter <-> vector conversions and leaky_relu; real values and errors by type and text.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using ember_test::dvalues;
using ember_test::expect_throw;

namespace {

template <class T>
std::string printed(const T& m) {
  std::ostringstream s;
  s << m;
  return s.str();
}

Tensor dtensor(std::vector<double> v) { return tensor(v, kDouble); }

// A module with two non-Tensor arguments, for AnyModule's argument checks.
struct AddImpl : nn::Module {
  int forward(int a, float b) { return a + int(b); }
};

// A forward with a default argument, declared for AnyModule.
struct ScaleImpl : nn::Module {
  Tensor forward(Tensor x, double factor = 2.0) { return x * factor; }

 protected:
  EMBER_FORWARD_HAS_DEFAULT_ARGS({1, nn::AnyValue(2.0)})
};

// A user module as libtorch's tutorials write it: everything registered in reset().
struct NetImpl : nn::Cloneable<NetImpl> {
  NetImpl() { reset(); }
  void reset() override {
    fc = register_module("fc", nn::Linear(3, 2));
    scale = register_parameter("scale", ones({2}));
    count = register_buffer("count", zeros({1}, kLong));
  }
  Tensor forward(const Tensor& x) { return fc(x) * scale; }
  nn::Linear fc{nullptr};
  Tensor scale, count;
};
EMBER_MODULE(Net);

// Registers in the constructor: clone() must refuse it, as libtorch does.
struct CtorRegisteredImpl : nn::Cloneable<CtorRegisteredImpl> {
  CtorRegisteredImpl() { register_parameter("w", ones({2})); }
  void reset() override {}
};

struct Plain : nn::Module {};

Tensor grad_of(const Tensor& p, std::vector<double> g) {
  p.mutable_grad() = tensor(g, p.options().requires_grad(false));
  return p;
}

}  // namespace

TEST_CASE("nn functional: wraps a function with bound arguments, in a Sequential, printed as libtorch") {
  Tensor x = dtensor({-2, -0.5, 0, 1.5});
  nn::Functional relu(ember::relu);
  CHECK(dvalues(relu(x)) == std::vector<double>{0, 0, 0, 1.5});
  nn::Functional leaky(ember::leaky_relu, 0.2);
  CHECK(dvalues(leaky->forward(x)) == dvalues(dtensor({-0.4, -0.1, 0, 1.5})));
  nn::Functional doubled([](Tensor t) { return t * 2; });
  CHECK(dvalues(doubled(x)) == std::vector<double>{-4, -1, 0, 3});
  nn::Sequential s(nn::Functional(ember::relu), nn::Functional(ember::leaky_relu, 0.5));
  CHECK(dvalues(s->forward(x)) == std::vector<double>{0, 0, 0, 1.5});
  CHECK(printed(s) ==
        "ember::nn::Sequential(\n  (0): ember::nn::Functional()\n  (1): ember::nn::Functional()\n)");
  CHECK_FALSE(leaky->is_serializable());
  CHECK(leaky->parameters().empty());
  auto copy = std::dynamic_pointer_cast<nn::FunctionalImpl>(leaky->clone());
  REQUIRE(copy);
  CHECK(dvalues(copy->forward(x)) == dvalues(leaky(x)));
  CHECK_THROWS_WITH(nn::Functional(nn::FunctionalImpl::Function()),
                    Equals("Functional: the function is empty"));
}

TEST_CASE("nn leaky_relu: values, slope, LeakyReluBackward0, gradcheck, in place, integer error") {
  Tensor x = dtensor({-3, -1, 0, 2}).requires_grad_();
  Tensor y = leaky_relu(x);
  CHECK(dvalues(y) == dvalues(dtensor({-0.03, -0.01, 0, 2})));
  REQUIRE(y.grad_fn());
  CHECK(y.grad_fn()->name() == "LeakyReluBackward0");
  (leaky_relu(x, 0.25) * dtensor({1, 2, 3, 4})).sum().backward();
  // d/dx: 1 where x > 0, the slope elsewhere (x = 0 included, as libtorch).
  CHECK(dvalues(x.grad()) == std::vector<double>{0.25, 0.5, 0.75, 4});
  Tensor f = tensor({-1.5f, 2.5f});
  CHECK(leaky_relu(f, 0.1).dtype() == kFloat);
  CHECK(dvalues(leaky_relu(f, 0.1)) == dvalues(tensor({-0.15f, 2.5f})));
  auto fn = [](const autograd::variable_list& v) -> autograd::variable_list {
    return {leaky_relu(v[0], 0.3)};
  };
  Tensor r = randn({3, 4}, kDouble) + 0.05;  // away from the kink at 0
  CHECK(autograd::gradcheck(fn, {r.requires_grad_()}));
  Tensor z = dtensor({-2, 4});
  leaky_relu_(z, 0.5);
  CHECK(dvalues(z) == std::vector<double>{-1, 4});
  Tensor w = dtensor({-2, 4}).requires_grad_();
  Tensor h = w * 1;
  leaky_relu_(h, 0.5);
  h.sum().backward();
  CHECK(dvalues(w.grad()) == std::vector<double>{0.5, 1});
  CHECK_THROWS_AS(leaky_relu(tensor({1, 2})), NotImplemented);
  CHECK_THROWS_WITH(leaky_relu(tensor({1, 2})), Equals("\"leaky_relu_cpu\" not implemented for 'Long'"));
}

TEST_CASE("nn any_module: forward of any signature, get, ptr, clone and libtorch's errors") {
  nn::Linear lin(3, 2);
  nn::AnyModule any(lin);
  Tensor x = randn({4, 3});
  CHECK(dvalues(any.forward(x)) == dvalues(lin(x)));
  CHECK(dvalues(any.any_forward(x).get<Tensor>()) == dvalues(lin(x)));
  CHECK(&any.get<nn::LinearImpl>() == lin.get());
  CHECK(any.ptr<nn::LinearImpl>() == lin.ptr());
  CHECK(any.ptr() == lin.ptr());
  CHECK(any.get<nn::Linear>().ptr() == lin.ptr());
  CHECK(any.type_info() == typeid(nn::LinearImpl));
  nn::AnyModule shared = any;  // copies share the module
  CHECK(shared.ptr() == lin.ptr());
  nn::AnyModule deep = any.clone();
  CHECK(deep.ptr() != lin.ptr());
  CHECK(dvalues(deep.forward(x)) == dvalues(lin(x)));
  CHECK(deep.get<nn::LinearImpl>().weight.data_ptr() != lin->weight.data_ptr());

  nn::AnyModule add(std::make_shared<AddImpl>());
  CHECK(add.forward<int>(3, 4.5f) == 7);
  CHECK_THROWS_WITH(add.forward<int>(3, 4.5),
                    Equals("Expected argument #1 to be of type float, but received value "
                           "of type double"));
  CHECK_THROWS_WITH(
      add.forward<int>(3),
      Equals("(anonymous namespace)::AddImpl's forward() method expects 2 argument(s), but received 1. "
             "If (anonymous namespace)::AddImpl's forward() method has default arguments, please make "
             "sure the forward() method is declared with a corresponding "
             "`EMBER_FORWARD_HAS_DEFAULT_ARGS` macro."));
  CHECK_THROWS_WITH(add.forward<float>(1, 2.0f),
                    Equals("Attempted to cast AnyValue to float, but its actual type is int"));
  CHECK_THROWS_WITH(
      any.get<nn::ReLUImpl>(),
      Equals("Attempted to cast module of type ember::nn::LinearImpl to type ember::nn::ReLUImpl"));
  nn::AnyModule empty;
  CHECK(empty.is_empty());
  CHECK_THROWS_WITH(empty.forward(x), Equals("Cannot call forward() on an empty AnyModule"));
  CHECK_THROWS_WITH(empty.ptr(), Equals("Cannot call ptr() on an empty AnyModule"));
  CHECK_THROWS_AS(empty.get<nn::LinearImpl>(), InvalidArgument);

  nn::AnyModule scale(std::make_shared<ScaleImpl>());
  Tensor t = dtensor({1, 2});
  CHECK(dvalues(scale.forward(t)) == std::vector<double>{2, 4});
  CHECK(dvalues(scale.forward(t, 3.0)) == std::vector<double>{3, 6});
  CHECK_THROWS_WITH(scale.forward(t, 3.0, 4.0),
                    Contains("forward() method expects at least 1 argument(s) and at most 2 argument(s), but "
                             "received 3."));
}

TEST_CASE("nn module_list: push_back, insert, extend, indexing, iteration and clone") {
  nn::Linear a(2, 3);
  nn::ModuleList list(a, nn::ReLU());
  list->push_back(std::make_shared<nn::TanhImpl>());
  list->push_back(nn::SigmoidImpl());
  CHECK(list->size() == 4);
  CHECK_FALSE(list->is_empty());
  CHECK(list[0] == a.ptr());
  CHECK(list->ptr<nn::LinearImpl>(0) == a.ptr());
  CHECK(list->ptr<nn::ReLUImpl>(0) == nullptr);
  CHECK(&list->at<nn::LinearImpl>(0) == a.get());
  CHECK_THROWS_WITH(list->at<nn::ReLUImpl>(0),
                    Equals("ModuleList::at: the module at index 0 is a "
                           "ember::nn::LinearImpl, not the requested ember::nn::ReLUImpl"));
  CHECK_THROWS_WITH(list[4], Equals("Index out of range: 4 for a container of 4 modules"));
  list->insert(1, nn::GELU());
  std::vector<std::string> names;
  for (const auto& c : list->named_children()) names.push_back(c.key() + "=" + c.value()->name());
  CHECK(names == std::vector<std::string>{"0=ember::nn::LinearImpl", "1=ember::nn::GELUImpl",
                                          "2=ember::nn::ReLUImpl", "3=ember::nn::TanhImpl",
                                          "4=ember::nn::SigmoidImpl"});
  size_t n = 0;
  for (const auto& m : *list) CHECK(m == list->ptr(n++));
  CHECK(n == 5);
  nn::ModuleList more;
  CHECK(more->is_empty());
  more->extend(*list);
  more->extend(std::vector<std::shared_ptr<nn::Module>>{nn::Linear(1, 1).ptr()});
  CHECK(more->size() == 6);
  CHECK(more[4] == list[4]);
  CHECK_THROWS_WITH(list->insert(9, nn::ReLU()),
                    Contains("Index out of range: 9 for a container of 5 modules"));
  CHECK(list->size() == 5);

  auto copy = std::dynamic_pointer_cast<nn::ModuleListImpl>(list->clone());
  REQUIRE(copy);
  CHECK(copy->size() == 5);
  auto cl = copy->ptr<nn::LinearImpl>(0);
  CHECK(cl != a.ptr());
  CHECK(dvalues(cl->weight) == dvalues(a->weight));
  CHECK(cl->weight.data_ptr() != a->weight.data_ptr());
  CHECK(printed(nn::ModuleList(nn::Linear(2, 3), nn::ReLU())) ==
        "ember::nn::ModuleList(\n  (0): ember::nn::Linear(in_features=2, out_features=3, bias=true)\n"
        "  (1): ember::nn::ReLU()\n)");
}

TEST_CASE("nn module_dict: insertion order, replace, pop, update, clear, clone and errors") {
  nn::Linear a(2, 2);
  nn::ModuleDict dict(std::vector<std::pair<std::string, std::shared_ptr<nn::Module>>>{
      {"fc", a.ptr()}, {"act", nn::ReLU().ptr()}});
  CHECK(dict->keys() == std::vector<std::string>{"fc", "act"});
  CHECK(dict->size() == 2);
  CHECK(dict["fc"] == a.ptr());
  CHECK(&dict->at<nn::LinearImpl>("fc") == a.get());
  CHECK(dict->contains("act"));
  CHECK_THROWS_WITH(dict["nope"], Equals("Key 'nope' is not defined"));
  CHECK_THROWS_WITH(dict->at<nn::TanhImpl>("fc"), Contains("under key 'fc' is a ember::nn::LinearImpl"));
  OrderedDict<std::string, std::shared_ptr<nn::Module>> od{{"act", nn::Tanh().ptr()},
                                                           {"out", nn::Sigmoid().ptr()}};
  dict->update(od);  // "act" replaced in place, "out" appended
  CHECK(dict->keys() == std::vector<std::string>{"fc", "act", "out"});
  CHECK(dict["act"]->name() == "ember::nn::TanhImpl");
  CHECK(dict->named_children()["act"] == dict["act"]);
  CHECK(dict->pop("out")->name() == "ember::nn::SigmoidImpl");
  CHECK(dict->named_children().keys() == std::vector<std::string>{"fc", "act"});
  CHECK_THROWS_WITH(dict->pop("out"), Equals("Key 'out' is not defined"));
  CHECK(printed(dict) ==
        "ember::nn::ModuleDict(\n  (fc): ember::nn::Linear(in_features=2, out_features=2, "
        "bias=true)\n  (act): ember::nn::Tanh()\n)");
  auto copy = std::dynamic_pointer_cast<nn::ModuleDictImpl>(dict->clone());
  REQUIRE(copy);
  CHECK(copy->keys() == dict->keys());
  CHECK(copy->at<nn::LinearImpl>("fc").weight.data_ptr() != a->weight.data_ptr());
  CHECK(dvalues(copy->at<nn::LinearImpl>("fc").weight) == dvalues(a->weight));
  CHECK(dict->named_parameters().size() == 2);
  dict->clear();
  CHECK(dict->empty());
  CHECK(dict->children().empty());
}

TEST_CASE("nn parameter_list / parameter_dict: registration keeps requires_grad, printing, clone, errors") {
  Tensor w = randn({2, 3}, TensorOptions().requires_grad(true));
  nn::ParameterList list(w, zeros({4}, kDouble));
  list->append(ones({}, kLong));
  CHECK(list->size() == 3);
  CHECK(list[0].is_same(w));
  CHECK(list[0].requires_grad());
  CHECK_FALSE(list[1].requires_grad());
  std::vector<std::string> names;
  for (const auto& p : list->named_parameters()) names.push_back(p.key());
  CHECK(names == std::vector<std::string>{"0", "1", "2"});
  size_t n = 0;
  for (const auto& item : *list) CHECK(item.value().is_same(list[n++]));
  CHECK(n == 3);
  CHECK_THROWS_WITH(list[3], Equals("Index out of range: 3 for a container of 3 parameters"));
  CHECK(printed(list) ==
        "ember::nn::ParameterList(\n(0): Parameter containing: [Float of size [2, 3]]\n"
        "(1): Parameter containing: [Double of size [4]]\n(2): Parameter containing: [Long of size []]\n)");
  nn::ParameterList more;
  more->extend(*list);
  *more += std::vector<Tensor>{ones({1})};
  CHECK(more->size() == 4);
  CHECK(more[2].is_same(list[2]));
  auto copy = std::dynamic_pointer_cast<nn::ParameterListImpl>(list->clone());
  REQUIRE(copy);
  CHECK(copy->size() == 3);
  CHECK_FALSE(copy->at(0).is_same(w));
  CHECK(dvalues(copy->at(0)) == dvalues(w));
  CHECK(copy->at(0).requires_grad());
  CHECK(copy->at(0).is_leaf());
  CHECK_FALSE(copy->at(1).requires_grad());

  nn::ParameterDict dict;
  dict->insert("scale", ones({2}).requires_grad_());
  dict->insert("steps", zeros({}, kLong));
  CHECK(dict->keys() == std::vector<std::string>{"scale", "steps"});
  CHECK(dict["scale"].requires_grad());
  CHECK(dict->get("steps").dtype() == kLong);
  CHECK(dict->contains("steps"));
  CHECK_THROWS_WITH(dict->insert("scale", ones({1})), Equals("Parameter 'scale' already defined"));
  CHECK_THROWS_WITH(dict["nope"], Equals("Parameter 'nope' is not defined"));
  CHECK(printed(dict) ==
        "ember::nn::ParameterDict(\n(scale): Parameter containing: [Float of size [2]]\n"
        "(steps): Parameter containing: [Long of size []]\n)");
  OrderedDict<std::string, Tensor> upd{{"scale", full({2}, 3.0)}, {"extra", ones({1})}};
  CHECK_THROWS_WITH(dict->update(upd), Equals("Parameter 'extra' is not defined"));
  CHECK(dvalues(dict["scale"]) == std::vector<double>{1, 1});  // nothing changed
  OrderedDict<std::string, Tensor> upd2{{"scale", full({2}, 3.0)}};
  dict->update(upd2);
  CHECK(dvalues(dict["scale"]) == std::vector<double>{3, 3});
  auto dcopy = std::dynamic_pointer_cast<nn::ParameterDictImpl>(dict->clone());
  REQUIRE(dcopy);
  CHECK(dcopy->keys() == dict->keys());
  CHECK_FALSE((*dcopy)["scale"].is_same(dict["scale"]));
  CHECK(dvalues(dict->pop("steps")) == std::vector<double>{0});
  CHECK(dict->size() == 1);
  CHECK(dict->named_parameters().keys() == std::vector<std::string>{"scale"});
  dict->clear();
  CHECK(dict->empty());
}

TEST_CASE("nn sequential: AnyModule entries, names, typed forward, clone and errors") {
  nn::Sequential named(
      {{"fc", nn::Linear(2, 3)}, {"act", nn::Functional(ember::relu)}, {"out", nn::Linear(3, 1)}});
  CHECK(named->named_children().keys() == std::vector<std::string>{"fc", "act", "out"});
  CHECK(named->named_parameters().keys() ==
        std::vector<std::string>{"fc.weight", "fc.bias", "out.weight", "out.bias"});
  Tensor x = randn({4, 2});
  auto fc = named->ptr<nn::LinearImpl>(0);
  auto out = named->ptr<nn::LinearImpl>(2);
  CHECK(dvalues(named->forward(x)) == dvalues(out->forward(relu(fc->forward(x)))));
  CHECK_THROWS_WITH(named->forward<int>(x),
                    Equals("The type of the return value is ember::Tensor, but you asked for type int"));
  CHECK_THROWS_WITH(
      named->at<nn::ReLUImpl>(0),
      Equals("Attempted to cast module of type ember::nn::LinearImpl to type ember::nn::ReLUImpl"));
  nn::Sequential ints(std::make_shared<AddImpl>());
  CHECK(ints->forward<int>(2, 3.0f) == 5);
  nn::Sequential s;
  s->push_back("first", nn::Linear(2, 2));
  s->push_back(nn::Tanh(), nn::AnyModule(nn::Sigmoid()));
  CHECK(s->named_children().keys() == std::vector<std::string>{"first", "1", "2"});
  CHECK_THROWS_WITH(s->push_back("first", nn::ReLU()), Equals("Submodule 'first' already defined"));
  CHECK(s->size() == 3);
  auto copy = std::dynamic_pointer_cast<nn::SequentialImpl>(named->clone());
  REQUIRE(copy);
  CHECK(copy->named_children().keys() == named->named_children().keys());
  CHECK(dvalues(copy->forward(x)) == dvalues(named->forward(x)));
  CHECK(copy->ptr<nn::LinearImpl>(0) != fc);
  CHECK(copy->ptr<nn::LinearImpl>(0)->weight.data_ptr() != fc->weight.data_ptr());
}

TEST_CASE("nn clone: deep copies with the same values, fresh leaves, fields rebound, errors as libtorch") {
  nn::Linear lin(3, 2);
  lin(randn({1, 3})).sum().backward();
  auto c = std::dynamic_pointer_cast<nn::LinearImpl>(lin->clone());
  REQUIRE(c);
  CHECK(dvalues(c->weight) == dvalues(lin->weight));
  CHECK(c->weight.data_ptr() != lin->weight.data_ptr());
  CHECK(c->weight.requires_grad());
  CHECK(c->weight.is_leaf());
  CHECK_FALSE(c->weight.grad().defined());
  CHECK(c->named_parameters()["weight"].is_same(c->weight));  // the field is the registered tensor

  Net net;
  {
    NoGradGuard no_grad;
    net->scale.fill_(3);
    net->count.fill_(7);
  }
  auto copy = std::dynamic_pointer_cast<NetImpl>(net->clone(Device(kCPU)));
  REQUIRE(copy);
  CHECK(copy->fc.ptr() != net->fc.ptr());
  CHECK(copy->named_children()["fc"] == copy->fc.ptr());  // the copy's field is its own child
  CHECK(dvalues(copy->fc->weight) == dvalues(net->fc->weight));
  CHECK(copy->fc->weight.data_ptr() != net->fc->weight.data_ptr());
  CHECK(dvalues(copy->count) == std::vector<double>{7});
  CHECK(copy->count.dtype() == kLong);
  Tensor x = randn({2, 3});
  CHECK(dvalues(copy->forward(x)) == dvalues(net->forward(x)));
  {
    NoGradGuard no_grad;
    copy->fc->weight.zero_();
  }
  CHECK(dvalues(net->fc->weight) != dvalues(copy->fc->weight));

  nn::Sequential seq(nn::Linear(2, 2), nn::Dropout(0.5), nn::LayerNorm(std::vector<int64_t>{2}));
  auto sc = seq->clone();
  CHECK(sc->named_parameters().keys() == seq->named_parameters().keys());
  CHECK(printed(*sc) == printed(seq));

  auto plain = std::make_shared<Plain>();
  CHECK_THROWS_AS(plain->clone(), NotImplemented);
  CHECK_THROWS_WITH(plain->clone(),
                    Equals("clone() has not been implemented for (anonymous namespace)::Plain. "
                           "Subclass ember::nn::Cloneable<(anonymous namespace)::Plain> instead "
                           "of ember::nn::Module to inherit the ability to clone."));
  auto bad = std::make_shared<CtorRegisteredImpl>();
  CHECK_THROWS_WITH(bad->clone(),
                    Contains("The cloned module does not have the same number of parameters as the "
                             "original module after calling reset(). Are you sure you called "
                             "register_parameter() inside reset() and not the constructor?"));
}

TEST_CASE("nn module: apply in every form, named_modules / named_children, as<T>, unregister_module") {
  nn::Sequential s(nn::Linear(2, 2), nn::Sequential(nn::ReLU(), nn::Tanh()));
  const nn::Module& cs = *s;
  std::vector<std::string> seen;
  cs.apply([&](const nn::Module& m) { seen.push_back(m.name()); });
  CHECK(seen == std::vector<std::string>{"ember::nn::SequentialImpl", "ember::nn::LinearImpl",
                                         "ember::nn::SequentialImpl", "ember::nn::ReLUImpl",
                                         "ember::nn::TanhImpl"});
  seen.clear();
  cs.apply([&](const std::string& name, const nn::Module&) { seen.push_back(name); }, "net");
  CHECK(seen == std::vector<std::string>{"net", "net.0", "net.1", "net.1.0", "net.1.1"});
  seen.clear();
  s->apply([&](const std::shared_ptr<nn::Module>& m) { seen.push_back(m->name()); });
  CHECK(seen.size() == 5);
  seen.clear();
  s->apply([&](const std::string& name, const std::shared_ptr<nn::Module>& m) {
    seen.push_back(name + ":" + std::to_string(m->children().size()));
  });
  CHECK(seen == std::vector<std::string>{":2", "0:0", "1:2", "1.0:0", "1.1:0"});
  Plain stack_module;
  CHECK_THROWS_WITH(
      stack_module.apply([](const std::shared_ptr<nn::Module>&) {}),
      Contains(
          "apply: It looks like you attempted to retrieve your top-level module as a shared_ptr, but it is "
          "not stored in a shared_ptr ((anonymous namespace)::Plain)"));
  CHECK(s->named_modules("m").keys() == std::vector<std::string>{"m", "m.0", "m.1", "m.1.0", "m.1.1"});
  CHECK(s->named_modules("", false).keys() == std::vector<std::string>{"0", "1", "1.0", "1.1"});
  CHECK(s->named_children().keys() == std::vector<std::string>{"0", "1"});
  CHECK(s[0]->as<nn::Linear>() == s->ptr<nn::LinearImpl>(0).get());
  CHECK(s[0]->as<nn::LinearImpl>() != nullptr);
  CHECK(s[0]->as<nn::ReLU>() == nullptr);
  struct Capture : WarningHandler {
    std::vector<std::string> messages;
    void process(const Warning& w) override { messages.push_back(w.msg()); }
  } capture;
  nn::Module m;
  {
    WarningUtils::WarningHandlerGuard guard(&capture);
    Tensor& p = m.register_parameter("p", ones({2}, TensorOptions().requires_grad(true)), false);
    CHECK_FALSE(p.requires_grad());  // libtorch sets requires_grad either way
    m.register_parameter("u", Tensor());
    CHECK_THROWS_WITH(m.register_parameter("p", ones({1})), Equals("Parameter 'p' already defined"));
  }
  CHECK(capture.messages == std::vector<std::string>{"An undefined tensor cannot require grad. Ignoring the "
                                                     "`requires_grad=true` function parameter."});
  CHECK(m.parameters().size() == 1);
  m.register_module("a", nn::ReLU());
  m.unregister_module("a");
  CHECK(m.children().empty());
  CHECK_THROWS_WITH(m.unregister_module("a"), Equals("No Module with name `a` is registered"));
}

TEST_CASE("nn utils: clip_grad_norm_ for 2, 1, inf and 0 norms, the non-finite error, clip_grad_value_") {
  Tensor a = zeros({2}, kDouble).requires_grad_(), b = zeros({1}, kDouble).requires_grad_();
  Tensor none = zeros({3}, kDouble).requires_grad_();
  grad_of(a, {3, 4});
  grad_of(b, {-12});
  CHECK(nn::utils::clip_grad_norm_({a, b, none}, 6.5) == Approx(13));
  const double coef = 6.5 / (13 + 1e-6);
  CHECK(dvalues(a.grad()) == std::vector<double>{3 * coef, 4 * coef});
  CHECK(dvalues(b.grad()) == std::vector<double>{-12 * coef});
  grad_of(a, {3, 4});
  grad_of(b, {-12});
  CHECK(nn::utils::clip_grad_norm_(std::vector<Tensor>{a, b}, 100, 1) == Approx(19));
  CHECK(dvalues(a.grad()) == std::vector<double>{3, 4});  // under max_norm: unchanged
  CHECK(nn::utils::clip_grad_norm_({a, b}, 6, std::numeric_limits<double>::infinity()) == Approx(12));
  CHECK(dvalues(b.grad())[0] == Approx(-6));
  CHECK(nn::utils::clip_grad_norm_({a, b}, 1, 0) == 2);  // the number of gradients
  CHECK(nn::utils::clip_grad_norm_(none, 1.0) == 0);
  grad_of(a, {1, std::numeric_limits<double>::infinity()});
  expect_throw<InvalidArgument>(
      [&] { nn::utils::clip_grad_norm_(a, 1.0, 2.0, true); },
      "The total norm of order 2 for gradients from `parameters` is non-finite, so it "
      "cannot be clipped. To disable this error and scale the gradients with the "
      "non-finite norm anyway, set `error_if_nonfinite=false`");
  CHECK(dvalues(a.grad())[0] == 1);  // unchanged on error
  grad_of(a, {-5, 0.5});
  nn::utils::clip_grad_value_(a, 1.0);
  CHECK(dvalues(a.grad()) == std::vector<double>{-1, 0.5});
  nn::Linear lin(2, 2);
  lin(ones({1, 2}) * 100).sum().backward();
  nn::utils::clip_grad_norm_(lin->parameters(), 0.5);
  CHECK(nn::utils::clip_grad_norm_(lin->parameters(), 10.0) == Approx(0.5).epsilon(1e-5));
}

TEST_CASE("nn utils: parameters_to_vector and vector_to_parameters round trip, share memory, check sizes") {
  nn::Linear lin(2, 3);
  Tensor v = nn::utils::parameters_to_vector(lin->parameters());
  CHECK(v.sizes() == std::vector<int64_t>{9});
  std::vector<double> want = dvalues(lin->weight);
  for (double d : dvalues(lin->bias)) want.push_back(d);
  CHECK(dvalues(v) == want);
  Tensor w0 = lin->weight;
  Tensor flat = arange(9).to(kFloat);
  nn::utils::vector_to_parameters(flat, lin->parameters());
  CHECK(lin->weight.is_same(w0));  // the same leaf, new data
  CHECK(lin->weight.requires_grad());
  CHECK(dvalues(lin->weight) == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(dvalues(lin->bias) == std::vector<double>{6, 7, 8});
  {
    NoGradGuard no_grad;
    flat.fill_(1);
  }
  CHECK(dvalues(lin->bias) == std::vector<double>{1, 1, 1});  // shares vec's memory
  CHECK_THROWS_WITH(nn::utils::vector_to_parameters(zeros({8}), lin->parameters()),
                    Equals("vector_to_parameters: vec has 8 elements, but the 2 parameters need 9"));
  CHECK_THROWS_WITH(nn::utils::vector_to_parameters(zeros({9, 1}), lin->parameters()),
                    Equals("vector_to_parameters: expected vec to be a 1-D tensor, got shape [9, 1]"));
  CHECK(dvalues(lin->bias) == std::vector<double>{1, 1, 1});
}

TEST_CASE("nn ordered_dict: initializer list, erase keeps order, front/back, pairs, update, errors") {
  OrderedDict<std::string, int> d{{"a", 1}, {"b", 2}, {"c", 3}};
  d.erase("b");
  CHECK(d.keys() == std::vector<std::string>{"a", "c"});
  CHECK(d["c"] == 3);
  CHECK(d.front().key() == "a");
  CHECK(d.back().value() == 3);
  CHECK(d.pairs() == std::vector<std::pair<std::string, int>>{{"a", 1}, {"c", 3}});
  OrderedDict<std::string, int> e{{"z", 9}};
  d.update(e);
  CHECK(d.keys() == std::vector<std::string>{"a", "c", "z"});
  CHECK_THROWS_WITH(d.update(e), Equals("Key 'z' already defined"));
  CHECK_THROWS_WITH(d.erase("q"), Equals("Key 'q' doesn't exist"));
  d.clear();
  CHECK(d.is_empty());
  CHECK_THROWS_WITH(d.front(), Equals("Called front() on an empty OrderedDict"));
  CHECK_THROWS_WITH((OrderedDict<std::string, int>{{"a", 1}, {"a", 2}}), Equals("Key 'a' already defined"));
}
