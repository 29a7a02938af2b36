// Checkpoints: nn::Module::save / load (strict names and shapes, dtype conversion, nothing
// changed on failure) and Optimizer::save / load, where a run resumed from a checkpoint
// ends with exactly the parameters of a run that never stopped.
#include <catch2/catch.hpp>

#include <functional>
#include <memory>
#include <vector>

#include "ember/ember.h"
#include "test_util.h"

using namespace ember;
using ember_test::dvalues;
using ember_test::TempDir;

namespace {

nn::Sequential make_mlp(uint64_t seed, ScalarType dtype = kFloat) {
  manual_seed(seed);
  nn::Sequential m(nn::Linear(3, 8), nn::Tanh(), nn::Linear(8, 2));
  if (dtype != kFloat) m->to(dtype);
  return m;
}

std::vector<std::vector<double>> values_of(const nn::Module& m) {
  std::vector<std::vector<double>> r;
  for (const Tensor& p : m.parameters()) r.push_back(dvalues(p));
  return r;
}

// The fixed batches every run sees, so runs differ only in where they stop.
struct Batches {
  std::vector<Tensor> x, y;
  explicit Batches(int n) {
    manual_seed(77);
    for (int i = 0; i < n; ++i) {
      x.push_back(randn({16, 3}));
      y.push_back(randn({16, 2}));
    }
  }
};

void train(nn::Sequential& model, optim::Optimizer& opt, const Batches& data, int from, int to) {
  for (int i = from; i < to; ++i) {
    opt.zero_grad();
    nn::functional::mse_loss(model->forward(data.x[i]), data.y[i]).backward();
    opt.step();
  }
}

// Trains 10 steps straight, and 5 steps + save + fresh model and optimizer (other initial
// weights, other options) + load + 5 steps; the parameters must agree bit for bit.
void check_resume(const std::function<std::unique_ptr<optim::Optimizer>(nn::Sequential&, double lr)>& make) {
  TempDir dir;
  const Batches data(10);
  nn::Sequential straight = make_mlp(1);
  auto opt_straight = make(straight, 0.01);
  train(straight, *opt_straight, data, 0, 10);

  nn::Sequential first = make_mlp(1);
  auto opt_first = make(first, 0.01);
  train(first, *opt_first, data, 0, 5);
  first->save(dir / "model.safetensors");
  opt_first->save(dir / "optim.safetensors");

  nn::Sequential resumed = make_mlp(2);
  auto opt_resumed = make(resumed, 0.5);  // lr comes back from the checkpoint
  resumed->load(dir / "model.safetensors");
  opt_resumed->load(dir / "optim.safetensors");
  CHECK(opt_resumed->param_groups()[0].options().get_lr() == 0.01);
  train(resumed, *opt_resumed, data, 5, 10);
  CHECK(values_of(*resumed) == values_of(*straight));
  // Without the optimizer state the same resume drifts: the test can fail.
  nn::Sequential cold = make_mlp(2);
  auto opt_cold = make(cold, 0.01);
  cold->load(dir / "model.safetensors");
  train(cold, *opt_cold, data, 5, 10);
  CHECK(values_of(*cold) != values_of(*straight));
}

}  // namespace

TEST_CASE("checkpoint: a module round-trips its parameters under dotted names") {
  TempDir dir;
  nn::Sequential a = make_mlp(11);
  a->save(dir / "m.safetensors");
  SafetensorsFile file(dir / "m.safetensors");
  CHECK(file.keys() == std::vector<std::string>{"0.bias", "0.weight", "2.bias", "2.weight"});
  CHECK(file.shape("0.weight") == std::vector<int64_t>{8, 3});
  CHECK(file.metadata().at("format") == "pt");

  nn::Sequential b = make_mlp(12);
  REQUIRE(values_of(*b) != values_of(*a));
  const Tensor weight = b[0]->named_parameters()["weight"];
  b->load(dir / "m.safetensors");
  CHECK(values_of(*b) == values_of(*a));
  // The same leaves now hold the values: optimizers holding them keep working.
  CHECK(b[0]->named_parameters()["weight"].is_same(weight));
  CHECK(weight.requires_grad());
  CHECK(weight.is_leaf());
  Tensor x = randn({4, 3});
  CHECK(dvalues(b->forward(x)) == dvalues(a->forward(x)));
}

TEST_CASE("checkpoint: a module load converts dtype as load_state_dict does") {
  TempDir dir;
  nn::Sequential f = make_mlp(13);
  f->save(dir / "f.safetensors");
  nn::Sequential d = make_mlp(14, kDouble);
  d->load(dir / "f.safetensors");
  for (const Tensor& p : d->parameters()) CHECK(p.dtype() == kDouble);
  CHECK(values_of(*d) == values_of(*f));  // float32 -> float64 is exact
}

TEST_CASE("checkpoint: strict load lists missing, unexpected and mis-shaped names and changes nothing") {
  TempDir dir;
  manual_seed(15);
  nn::Linear small(3, 4);
  small->save(dir / "small.safetensors");
  save({{"weight", randn({4, 3})}, {"extra", zeros({2})}}, dir / "extra.safetensors");
  save({{"weight", randn({5, 3})}, {"bias", randn({4})}}, dir / "shape.safetensors");

  nn::Linear target(3, 4);
  const auto before = values_of(*target);
  CHECK_THROWS_MATCHES(target->load(dir / "extra.safetensors"), InvalidArgument,
                       Catch::Matchers::Message("Error(s) in loading state_dict for " + target->name() + " from '" +
                                                (dir / "extra.safetensors") +
                                                "':\n\tMissing key(s) in state_dict: \"bias\". "
                                                "\n\tUnexpected key(s) in state_dict: \"extra\". "));
  CHECK_THROWS_WITH(target->load(dir / "shape.safetensors"),
                    Catch::Matchers::Contains("size mismatch for weight: copying a param with shape [5, 3] from "
                                              "checkpoint, the shape in current model is [4, 3]."));
  CHECK(values_of(*target) == before);
  // Non-strict: missing and unexpected names are skipped, shapes are still checked.
  target->load(dir / "extra.safetensors", /*strict=*/false);
  CHECK(dvalues(target->weight) == dvalues(SafetensorsFile(dir / "extra.safetensors").get("weight")));
  CHECK(dvalues(target->bias) == before[1]);
  CHECK_THROWS_WITH(target->load(dir / "shape.safetensors", false), Catch::Matchers::Contains("size mismatch for weight"));
  CHECK_THROWS_AS(target->load(dir / "absent.safetensors"), IOError);
  // A larger model cannot load the smaller one's file.
  nn::Sequential mlp = make_mlp(16);
  CHECK_THROWS_WITH(mlp->load(dir / "small.safetensors"),
                    Catch::Matchers::Contains("Missing key(s) in state_dict: \"0.weight\", \"0.bias\", \"2.weight\", "
                                              "\"2.bias\". \n\tUnexpected key(s) in state_dict: \"bias\", \"weight\". "));
}

TEST_CASE("checkpoint: SGD with momentum resumed from a checkpoint equals the uninterrupted run") {
  check_resume([](nn::Sequential& m, double lr) -> std::unique_ptr<optim::Optimizer> {
    return std::make_unique<optim::SGD>(m->parameters(), optim::SGDOptions(lr).momentum(0.9).weight_decay(1e-3));
  });
}

TEST_CASE("checkpoint: Adam resumed from a checkpoint equals the uninterrupted run (plain and amsgrad)") {
  for (bool amsgrad : {false, true}) {
    INFO("amsgrad " << amsgrad);
    check_resume([amsgrad](nn::Sequential& m, double lr) -> std::unique_ptr<optim::Optimizer> {
      return std::make_unique<optim::Adam>(m->parameters(), optim::AdamOptions(lr).amsgrad(amsgrad));
    });
  }
}

TEST_CASE("checkpoint: RMSprop and Adagrad resumed from a checkpoint equal the uninterrupted run") {
  check_resume([](nn::Sequential& m, double lr) -> std::unique_ptr<optim::Optimizer> {
    return std::make_unique<optim::RMSprop>(m->parameters(), optim::RMSpropOptions(lr).momentum(0.9).centered(true));
  });
  check_resume([](nn::Sequential& m, double lr) -> std::unique_ptr<optim::Optimizer> {
    return std::make_unique<optim::Adagrad>(m->parameters(), optim::AdagradOptions(lr).lr_decay(0.1));
  });
}

TEST_CASE("checkpoint: an optimizer refuses another kind's or another model's state and keeps its own") {
  TempDir dir;
  const Batches data(2);
  nn::Sequential m = make_mlp(17);
  optim::SGD sgd(m->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  train(m, sgd, data, 0, 2);
  sgd.save(dir / "sgd.safetensors");

  optim::Adam adam(m->parameters(), optim::AdamOptions(0.01));
  train(m, adam, data, 0, 1);
  const auto state = adam.state_tensors();
  CHECK_THROWS_AS(adam.load(dir / "sgd.safetensors"), InvalidArgument);
  const auto after = adam.state_tensors();
  REQUIRE(after.size() == state.size());
  for (const auto& [k, v] : state) CHECK(dvalues(after.at(k)) == dvalues(v));
  CHECK(adam.param_groups()[0].options().get_lr() == 0.01);

  nn::Linear other(3, 8);
  optim::SGD sgd_other(other->parameters(), optim::SGDOptions(0.1).momentum(0.9));
  CHECK_THROWS_WITH(sgd_other.load(dir / "sgd.safetensors"),
                    Catch::Matchers::Contains("parameter group 0 of the checkpoint has 4 parameters, but the optimizer's has 2"));
  CHECK_THROWS_AS(sgd_other.load(dir / "absent.safetensors"), IOError);
}
