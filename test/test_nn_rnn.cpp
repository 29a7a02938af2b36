// Recurrent layers, cells and packed sequences: values on deterministic weights (the numbers
// libtorch 1.13 gives for the same calls), float64 gradcheck of input, initial states and
// every weight, packed runs of unequal lengths against per-sequence runs, batch 1 and
// length 1, parameters, printing and libtorch's error texts.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "fake_accelerator.h"
#include "nn_test_util.h"
#include "test_util.h"

using namespace ember;
using autograd::variable_list;
using ember_test::dvalues;
using nn_test::expect_error;
using nn_test::expect_values;
using nn_test::printed;
namespace R = ember::nn::utils::rnn;

namespace {

// The same numbers as the libtorch program that produced the expected values.
Tensor det(std::vector<int64_t> s, double seed) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return (sin(arange(n, kDouble) * 0.7 + seed) * 0.5).view(s);
}

void fill(nn::Module& m) {
  NoGradGuard g;
  double seed = 0;
  for (Tensor& p : m.parameters()) {
    p.copy_(det(p.sizes().vec(), seed));
    seed += 1;
  }
}

// A module whose parameters a test can replace by other tensors (gradcheck's inputs).
template <class Impl>
struct Swappable : Impl {
  using Impl::Impl;
  void set(const std::string& name, const Tensor& t) { this->parameters_[name] = t; }
};

Tensor leaf(IntArrayRef sizes) { return (rand(sizes, kDouble) * 2 - 1).requires_grad_(); }

// Gradcheck of f(input, states..., weights...) where the weights are m's parameters.
template <class M, class F>
bool check_module(M& m, std::vector<Tensor> leading, F f) {
  std::vector<std::string> names;
  variable_list inputs = leading;
  for (const auto& p : m.named_parameters()) {
    names.push_back(p.key());
    inputs.push_back(p.value().detach().clone().requires_grad_());
  }
  const size_t n = leading.size();
  return nn_test::check(
      [&](const variable_list& v) {
        for (size_t i = 0; i < names.size(); ++i) m.set(names[i], v[n + i]);
        return f(v);
      },
      inputs);
}

}  // namespace

TEST_CASE("nn rnn: values of LSTM, GRU and RNN on deterministic weights (libtorch's numbers)") {
  const Tensor x = det({3, 2, 2}, 0.3);
  {
    nn::LSTM m(nn::LSTMOptions(2, 3));
    m->to(kDouble);
    fill(*m);
    auto [y, hc] = m(x);
    expect_values(y,
                  {0.190137233, 0.152282293, 0.0652381289, 0.225950309, 0.16465411, 0.0585059882, 0.246574717,
                   0.160358997, 0.103029081, 0.201903389, 0.129035598, 0.100185219, 0.298873923, 0.165805634,
                   0.100277386, 0.351751848, 0.176835181, 0.0900683024},
                  1e-7);
    expect_values(std::get<0>(hc),
                  {0.298873923, 0.165805634, 0.100277386, 0.351751848, 0.176835181, 0.0900683024}, 1e-7);
    expect_values(std::get<1>(hc),
                  {0.466960878, 0.3857302, 0.331995615, 0.548314055, 0.323842722, 0.285211799}, 1e-7);
  }
  {
    nn::LSTM m(nn::LSTMOptions(2, 3).proj_size(2).bidirectional(true));
    m->to(kDouble);
    fill(*m);
    auto [y, hc] = m(x, std::make_tuple(det({2, 2, 2}, 0.9), det({2, 2, 3}, 1.3)));
    CHECK(y.sizes().vec() == std::vector<int64_t>{3, 2, 4});
    expect_values(y, {-0.194060482, 0.0488197646, -0.12909437,  0.214592901,  -0.0924013129, -0.0326369096,
                      -0.122575922, 0.145644546,  -0.202500999, 0.0933048615, -0.181269723,  0.274370236,
                      -0.135250498, 0.0621763883, -0.166561194, 0.235642064,  -0.209633529,  0.0979037775,
                      -0.18362765,  0.203928559,  -0.23787815,  0.0773674773, -0.118690738,  -0.0440330638},
                  1e-7);
    expect_values(std::get<0>(hc),
                  {-0.209633529, 0.0979037775, -0.23787815, 0.0773674773, -0.12909437, 0.214592901,
                   -0.122575922, 0.145644546},
                  1e-7);
    expect_values(std::get<1>(hc),
                  {0.254330002, 0.45481316, 0.419847222, 0.393762702, 0.381234567, 0.303859795, -0.611866121,
                   -0.14536489, 0.259188932, -0.492302227, -0.022035804, 0.234250402},
                  1e-7);
  }
  {
    nn::GRU m(nn::GRUOptions(2, 3).num_layers(2));
    m->to(kDouble);
    fill(*m);
    auto [y, h] = m(x);
    expect_values(y,
                  {-0.288630335, -0.230338432, -0.139577476, -0.292866371, -0.246781365, -0.109047956,
                   -0.484537944, -0.373827692, -0.129815909, -0.496056661, -0.355822615, -0.139872595,
                   -0.585605736, -0.48099296, -0.107132589, -0.571874323, -0.511672814, -0.0967762391},
                  1e-7);
    expect_values(h,
                  {0.431970226, 0.338191374, 0.492687514, 0.574208424, 0.131617568, 0.377218534, -0.585605736,
                   -0.48099296, -0.107132589, -0.571874323, -0.511672814, -0.0967762391},
                  1e-7);
  }
  {
    nn::RNN m(nn::RNNOptions(2, 3).nonlinearity(kReLU).batch_first(true));
    m->to(kDouble);
    fill(*m);
    auto [y, h] = m(x);
    expect_values(y,
                  {0.66073134, 0.203168356, 0, 1.01272563, 0.290429103, 0, 0.426666299, 0, 0, 0.562438094, 0,
                   0, 0.575383832, 0, 0, 0.926633638, 0.383755751, 0},
                  1e-7);
    expect_values(h, {1.01272563, 0.290429103, 0, 0.562438094, 0, 0, 0.926633638, 0.383755751, 0}, 1e-7);
  }
  {
    nn::RNN m(nn::RNNOptions(2, 3).bias(false));
    m->to(kDouble);
    fill(*m);
    auto [y, h] = m(x, det({1, 2, 3}, 2.0));
    expect_values(y,
                  {0.371025446, 0.255160163, -0.300186938, -0.404869719, 0.608394808, 0.238045149,
                   0.0825072306, -0.0453914905, -0.198539815, 0.0693185403, -0.630574557, 0.0974895537,
                   -0.00467087088, 0.0875388007, -0.116980872, -0.0909764575, 0.515156655, 0.086685541},
                  1e-7);
    expect_values(h, {-0.00467087088, 0.0875388007, -0.116980872, -0.0909764575, 0.515156655, 0.086685541},
                  1e-7);
  }
}

TEST_CASE("nn rnn: values of the cells (libtorch's numbers)") {
  const Tensor x = det({2, 2}, 0.4);
  {
    nn::LSTMCell m(2, 3);
    m->to(kDouble);
    fill(*m);
    auto [h, c] = m(x);
    expect_values(h, {0.198769697, 0.152719462, 0.0631309739, 0.221438394, 0.166085106, 0.0604982066}, 1e-7);
    expect_values(c, {0.310523454, 0.282710439, 0.188688831, 0.354499794, 0.297373613, 0.172145553}, 1e-7);
  }
  {
    nn::GRUCell m(2, 3);
    m->to(kDouble);
    fill(*m);
    expect_values(m(x, det({2, 3}, 0.2)),
                  {0.44733502, 0.183190067, 0.425210247, 0.471970604, 0.303711659, -0.0161414358}, 1e-7);
  }
  {
    nn::RNNCell m(nn::RNNCellOptions(2, 3).nonlinearity(kReLU));
    m->to(kDouble);
    fill(*m);
    expect_values(m(x), {0.668741604, 0.237034555, 0, 0.621595303, 0.317843031, 0}, 1e-7);
  }
}

TEST_CASE("nn rnn: parameters, initialisation after manual_seed and printing") {
  nn::LSTM l(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(2));
  std::vector<std::string> names;
  for (const auto& p : l->named_parameters())
    names.push_back(p.key() + " " + std::to_string(p.value().numel()));
  CHECK(names == std::vector<std::string>{
                     "weight_ih_l0 48",         "weight_hh_l0 32",         "bias_ih_l0 16",
                     "bias_hh_l0 16",           "weight_hr_l0 8",          "weight_ih_l0_reverse 48",
                     "weight_hh_l0_reverse 32", "bias_ih_l0_reverse 16",   "bias_hh_l0_reverse 16",
                     "weight_hr_l0_reverse 8",  "weight_ih_l1 64",         "weight_hh_l1 32",
                     "bias_ih_l1 16",           "bias_hh_l1 16",           "weight_hr_l1 8",
                     "weight_ih_l1_reverse 64", "weight_hh_l1_reverse 32", "bias_ih_l1_reverse 16",
                     "bias_hh_l1_reverse 16",   "weight_hr_l1_reverse 8"});
  CHECK(l->all_weights().size() == 20);
  for (const Tensor& p : l->parameters()) CHECK(p.abs().max().item<double>() <= 0.5);
  CHECK(printed(*l) ==
        "ember::nn::LSTM(input_size=3, hidden_size=4, num_layers=2, bias=true, batch_first=false, dropout=0, "
        "bidirectional=true, proj_size=2)");

  manual_seed(0);
  nn::GRU g(nn::GRUOptions(2, 2).bidirectional(true));
  expect_values(g->named_parameters()["weight_ih_l0"],
                {-0.00529398117, 0.379322886, -0.581980765, -0.520387471, -0.272345245, 0.18961589,
                 -0.0140100336, 0.560657501, -0.0627515167, 0.187109336, -0.213696912, -0.138992712},
                1e-6);
  expect_values(g->named_parameters()["bias_hh_l0_reverse"],
                {0.0269984286, 0.163839966, 0.438672483, 0.678959727, -0.544913113, -0.25913322}, 1e-6);
  CHECK(printed(*g) ==
        "ember::nn::GRU(input_size=2, hidden_size=2, num_layers=1, bias=true, batch_first=false, dropout=0, "
        "bidirectional=true)");
  CHECK(
      printed(nn::RNN(
          nn::RNNOptions(3, 4).nonlinearity(kReLU).bias(false).batch_first(true).num_layers(2).dropout(
              0.5))) ==
      "ember::nn::RNN(input_size=3, hidden_size=4, num_layers=2, bias=false, batch_first=true, dropout=0.5, "
      "bidirectional=false)");
  CHECK(printed(nn::RNNCell(nn::RNNCellOptions(3, 4).nonlinearity(kReLU).bias(false))) ==
        "ember::nn::RNNCell(3, 4, bias=false, nonlinearity=kReLU)");
  CHECK(printed(nn::RNNCell(3, 4)) == "ember::nn::RNNCell(3, 4)");
  CHECK(printed(nn::LSTMCell(3, 4)) == "ember::nn::LSTMCell(3, 4)");
  CHECK(printed(nn::GRUCell(nn::GRUCellOptions(3, 4).bias(false))) == "ember::nn::GRUCell(3, 4, bias=false)");
  nn::GRUCell gc(nn::GRUCellOptions(3, 4).bias(false));
  CHECK(gc->parameters().size() == 2);
  CHECK(!gc->bias_ih.defined());

  // A clone runs on its own weights.
  nn::LSTM small(nn::LSTMOptions(2, 3));
  auto copy = std::dynamic_pointer_cast<nn::LSTMImpl>(small->clone());
  REQUIRE(copy);
  const Tensor x = randn({2, 1, 2});
  CHECK(allclose(std::get<0>(copy->forward(x)), std::get<0>(small(x))));
  {
    NoGradGuard g2;
    for (Tensor& p : copy->parameters()) p.zero_();
  }
  CHECK(std::get<0>(copy->forward(x)).abs().max().item<double>() == 0);
  CHECK(std::get<0>(small(x)).abs().max().item<double>() > 0);
}

TEST_CASE("nn rnn: float64 gradcheck of input, states and every weight") {
  manual_seed(7);
  {
    Swappable<nn::LSTMImpl> m(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true).proj_size(1));
    m.to(kDouble);
    CHECK(check_module(m, {leaf({2, 2, 2}), leaf({4, 2, 1}), leaf({4, 2, 3})}, [&](const variable_list& v) {
      auto [y, hc] = m.forward(v[0], std::make_tuple(v[1], v[2]));
      return cat({y.flatten(), std::get<0>(hc).flatten(), std::get<1>(hc).flatten()});
    }));
  }
  {
    Swappable<nn::GRUImpl> m(nn::GRUOptions(2, 2).num_layers(2).bidirectional(true).batch_first(true));
    m.to(kDouble);
    CHECK(check_module(m, {leaf({2, 3, 2}), leaf({4, 2, 2})}, [&](const variable_list& v) {
      auto [y, h] = m.forward(v[0], v[1]);
      return cat({y.flatten(), h.flatten()});
    }));
  }
  {
    Swappable<nn::RNNImpl> m(nn::RNNOptions(2, 2).num_layers(2).bidirectional(true));
    m.to(kDouble);
    CHECK(check_module(m, {leaf({3, 2, 2}), leaf({4, 2, 2})}, [&](const variable_list& v) {
      auto [y, h] = m.forward(v[0], v[1]);
      return cat({y.flatten(), h.flatten()});
    }));
  }
  {
    Swappable<nn::LSTMCellImpl> m(2, 3);
    m.to(kDouble);
    CHECK(check_module(m, {leaf({2, 2}), leaf({2, 3}), leaf({2, 3})}, [&](const variable_list& v) {
      m.weight_ih = v[3];
      m.weight_hh = v[4];
      m.bias_ih = v[5];
      m.bias_hh = v[6];
      auto [h, c] = m.forward(v[0], std::make_tuple(v[1], v[2]));
      return cat({h.flatten(), c.flatten()});
    }));
  }
  {
    Swappable<nn::GRUCellImpl> m(2, 3);
    m.to(kDouble);
    CHECK(check_module(m, {leaf({2, 2}), leaf({2, 3})}, [&](const variable_list& v) {
      m.weight_ih = v[2];
      m.weight_hh = v[3];
      m.bias_ih = v[4];
      m.bias_hh = v[5];
      return m.forward(v[0], v[1]);
    }));
  }
  {
    Swappable<nn::RNNCellImpl> m(nn::RNNCellOptions(2, 3).nonlinearity(kTanh));
    m.to(kDouble);
    CHECK(check_module(m, {leaf({2, 2}), leaf({2, 3})}, [&](const variable_list& v) {
      m.weight_ih = v[2];
      m.weight_hh = v[3];
      m.bias_ih = v[4];
      m.bias_hh = v[5];
      return m.forward(v[0], v[1]);
    }));
  }
}

namespace {

// Runs m over the packed batch and over each sequence alone (from the same initial state
// column) and compares outputs, padding and final states.
template <class M, class Hx, class Slice, class States>
void check_packed_against_single(M& m, const Tensor& x, const std::vector<int64_t>& lengths,
                                 bool enforce_sorted, const Hx& hx, Slice slice_hx, States states) {
  const R::PackedSequence packed = R::pack_padded_sequence(x, tensor(lengths, kInt64), false, enforce_sorted);
  auto [out, hn] = m->forward_with_packed_input(packed, hx);
  CHECK(out.batch_sizes().equal(packed.batch_sizes()));
  auto [padded, out_lengths] = R::pad_packed_sequence(out, false, -7.0);
  CHECK(dvalues(out_lengths) == std::vector<double>(lengths.begin(), lengths.end()));
  for (size_t b = 0; b < lengths.size(); ++b) {
    const int64_t len = lengths[b], col = int64_t(b);
    auto [y, h] = m->forward(x.narrow(0, 0, len).narrow(1, col, 1), slice_hx(hx, col));
    CHECK(allclose(padded.narrow(0, 0, len).narrow(1, col, 1), y, 1e-10, 1e-12));
    if (len < padded.size(0))
      CHECK((padded.narrow(0, len, padded.size(0) - len).select(1, col) == -7).all().template item<bool>());
    const std::vector<Tensor> got = states(hn), want = states(h);
    for (size_t k = 0; k < got.size(); ++k) CHECK(allclose(got[k].narrow(1, col, 1), want[k], 1e-10, 1e-12));
  }
}

}  // namespace

TEST_CASE("nn rnn: packed sequences of unequal lengths match per-sequence runs") {
  manual_seed(3);
  const Tensor x = randn({4, 3, 2}, kDouble);
  for (bool enforce_sorted : {true, false}) {
    const std::vector<int64_t> lengths =
        enforce_sorted ? std::vector<int64_t>{4, 2, 1} : std::vector<int64_t>{2, 4, 1};
    nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true).proj_size(2));
    lstm->to(kDouble);
    const auto hx = std::make_optional(std::make_tuple(randn({4, 3, 2}, kDouble), randn({4, 3, 3}, kDouble)));
    check_packed_against_single(
        lstm, x, lengths, enforce_sorted, hx,
        [](const std::optional<std::tuple<Tensor, Tensor>>& h, int64_t col) {
          return std::make_optional(
              std::make_tuple(std::get<0>(*h).narrow(1, col, 1), std::get<1>(*h).narrow(1, col, 1)));
        },
        [](const std::tuple<Tensor, Tensor>& s) {
          return std::vector<Tensor>{std::get<0>(s), std::get<1>(s)};
        });
    nn::GRU gru(nn::GRUOptions(2, 3).bidirectional(true));
    gru->to(kDouble);
    check_packed_against_single(
        gru, x, lengths, enforce_sorted, randn({2, 3, 3}, kDouble),
        [](const Tensor& h, int64_t col) { return h.narrow(1, col, 1); },
        [](const Tensor& s) { return std::vector<Tensor>{s}; });
    nn::RNN rnn(nn::RNNOptions(2, 3).num_layers(2).nonlinearity(kReLU));
    rnn->to(kDouble);
    check_packed_against_single(
        rnn, x, lengths, enforce_sorted, Tensor(), [](const Tensor&, int64_t) { return Tensor(); },
        [](const Tensor& s) { return std::vector<Tensor>{s}; });
  }
}

TEST_CASE("nn rnn: pack_padded_sequence, pad_packed_sequence, pad_sequence and pack_sequence") {
  const Tensor x = arange(12, kDouble).view({4, 3, 1});
  const R::PackedSequence p = R::pack_padded_sequence(x, tensor({2, 4, 1}, kInt64), false, false);
  CHECK(dvalues(p.data()) == std::vector<double>{1, 0, 2, 4, 3, 7, 10});
  CHECK(dvalues(p.batch_sizes()) == std::vector<double>{3, 2, 1, 1});
  CHECK(p.batch_sizes().dtype() == kInt64);
  CHECK(dvalues(p.sorted_indices()) == std::vector<double>{1, 0, 2});
  CHECK(dvalues(p.unsorted_indices()) == std::vector<double>{1, 0, 2});
  auto [padded, lengths] = R::pad_packed_sequence(p, true, -1, 6);
  CHECK(padded.sizes().vec() == std::vector<int64_t>{3, 6, 1});
  CHECK(dvalues(padded) ==
        std::vector<double>{0, 3, -1, -1, -1, -1, 1, 4, 7, 10, -1, -1, 2, -1, -1, -1, -1, -1});
  CHECK(dvalues(lengths) == std::vector<double>{2, 4, 1});
  CHECK(lengths.dtype() == kInt64);

  const R::PackedSequence sorted = R::pack_padded_sequence(x.transpose(0, 1), tensor({4, 2, 1}), true);
  CHECK(!sorted.sorted_indices().defined());
  CHECK(!sorted.unsorted_indices().defined());
  CHECK(dvalues(sorted.data()) == std::vector<double>{0, 1, 2, 3, 4, 6, 9});

  const Tensor a = arange(3, kDouble).view({3, 1}), b = full({1, 1}, 5.0, kDouble);
  CHECK(dvalues(R::pad_sequence({a, b})) == std::vector<double>{0, 5, 1, 0, 2, 0});
  CHECK(dvalues(R::pad_sequence({a, b}, true, 9)) == std::vector<double>{0, 1, 2, 5, 9, 9});
  const R::PackedSequence ps = R::pack_sequence({b, a}, false);
  CHECK(dvalues(ps.data()) == std::vector<double>{0, 5, 1, 2});
  CHECK(dvalues(ps.batch_sizes()) == std::vector<double>{2, 1, 1});
  CHECK(dvalues(R::invert_permutation(tensor({2, 0, 1}, kInt64))) == std::vector<double>{1, 2, 0});

  // Gradients flow through packing and padding.
  const Tensor leafx = rand({3, 2, 2}, kDouble).requires_grad_();
  CHECK(nn_test::check(
      [](const variable_list& v) {
        auto [out, len] =
            R::pad_packed_sequence(R::pack_padded_sequence(v[0], tensor({1, 3}), false, false), true);
        return out * out;
      },
      {leafx}));
}

TEST_CASE("nn rnn: batch 1, sequence length 1 and dropout between layers") {
  manual_seed(5);
  nn::LSTM lstm(nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true));
  auto [y, hc] = lstm(randn({1, 1, 2}));
  CHECK(y.sizes().vec() == std::vector<int64_t>{1, 1, 6});
  CHECK(std::get<0>(hc).sizes().vec() == std::vector<int64_t>{4, 1, 3});
  CHECK(allclose(std::get<0>(hc).select(0, 2), y.select(0, 0).narrow(1, 0, 3)));
  CHECK(allclose(std::get<0>(hc).select(0, 3), y.select(0, 0).narrow(1, 3, 3)));

  nn::GRU gru(nn::GRUOptions(2, 3).num_layers(2).dropout(0.5));
  const Tensor x = randn({3, 2, 2});
  gru->eval();
  const Tensor eval1 = std::get<0>(gru(x)), eval2 = std::get<0>(gru(x));
  CHECK(equal(eval1, eval2));
  gru->train();
  manual_seed(1);
  const Tensor train1 = std::get<0>(gru(x));
  manual_seed(1);
  CHECK(equal(train1, std::get<0>(gru(x))));
  CHECK(!allclose(train1, eval1));

  // AnyModule uses the default hidden state.
  nn::AnyModule any(nn::RNN(2, 3));
  CHECK(std::get<1>(any.forward<std::tuple<Tensor, Tensor>>(x)).sizes().vec() ==
        std::vector<int64_t>{1, 2, 3});
  nn::AnyModule any_lstm(nn::LSTM(2, 3));
  CHECK(std::get<0>(any_lstm.forward<std::tuple<Tensor, std::tuple<Tensor, Tensor>>>(x)).size(2) == 3);
}

TEST_CASE("nn rnn: errors as libtorch's") {
  nn::GRU gru(3, 4);
  const Tensor x2 = randn({5, 3});
  expect_error([&] { gru(x2); }, "input must have 3 dimensions, got 2", x2);
  expect_error(
      [&] {
        gru(randn({5, 2, 2}));
      },
      "input.size(-1) must be equal to input_size. Expected 3, got 2");
  const Tensor h = randn({1, 3, 4});
  expect_error([&] { gru(randn({5, 2, 3}), h); }, "Expected hidden size 1 2 4, got [1, 3, 4]", h);
  expect_error([&] { gru(randn({5, 2, 3}), randn({2, 4})); }, "Expected hidden size 1 2 4, got [2, 4]");
  nn::LSTM lstm(nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(2));
  expect_error(
      [&] {
        lstm(randn({5, 2, 3}), std::make_tuple(randn({4, 2, 4}), randn({4, 2, 4})));
      },
      "Expected hidden[0] size 4 2 2, got [4, 2, 4]");
  expect_error(
      [&] {
        lstm(randn({5, 2, 3}), std::make_tuple(randn({4, 2, 2}), randn({4, 2, 2})));
      },
      "Expected hidden[1] size 4 2 4, got [4, 2, 2]");

  nn::GRUCell gc(3, 4);
  nn::LSTMCell lc(3, 4);
  expect_error(
      [&] {
        gc(randn({2, 3}), randn({4}));
      },
      "Input batch size 2 doesn't match hidden batch size 4");
  expect_error([&] { gc(randn({2, 2})); }, "input has inconsistent input_size: got 2 expected 3");
  expect_error([&] { gc(randn({3})); },
               "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  expect_error(
      [&] {
        gc(randn({2, 3}), randn({2, 5}));
      },
      "hidden has inconsistent hidden_size: got 5, expected 4");
  expect_error(
      [&] {
        lc(randn({2, 3}), std::make_tuple(randn({2, 5}), randn({2, 4})));
      },
      "hidden[0] has inconsistent hidden_size: got 5, expected 4");
  expect_error(
      [&] {
        lc(randn({2, 3}), std::make_tuple(randn({2, 4}), randn({3, 4})));
      },
      "Input batch size 2 doesn't match hidden[1] batch size 3");

  expect_error(
      [] { nn::GRU(nn::GRUOptions(3, 4).dropout(1.5)); },
      "dropout should be a number in range [0, 1] representing the probability of an element being zeroed");
  expect_error(
      [] { nn::LSTM(nn::LSTMOptions(3, 4).proj_size(4)); },
      "proj_size has to be a positive integer, smaller than hidden_size or zero to disable projections");
  expect_error(
      [] { nn::LSTM(nn::LSTMOptions(3, 0)); },
      "proj_size has to be a positive integer, smaller than hidden_size or zero to disable projections");
  expect_error([] { nn::GRU(nn::GRUOptions(3, 4).num_layers(0)); }, "num_layers must be greater than zero");

  const Tensor x = randn({4, 3, 2});
  expect_error(
      [&] {
        R::pack_padded_sequence(x, tensor({4, 2, 3}));
      },
      "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
      "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if "
      "you do not need ONNX exportability.",
      x);
  expect_error(
      [&] {
        R::pack_padded_sequence(x, tensor({4, 2, 0}), false, false);
      },
      "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  expect_error(
      [&] {
        R::pack_padded_sequence(x, tensor({4, 2}));
      },
      "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)");
  expect_error(
      [&] {
        R::pack_padded_sequence(x, tensor({4, 2, 1}).view({1, 3}));
      },
      "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor");
  const R::PackedSequence p = R::pack_padded_sequence(x, tensor({4, 2, 3}), false, false);
  expect_error([&] { R::pad_packed_sequence(p, false, 0, 2); },
               "Expected total_length to be at least the length of the longest sequence in input, but got "
               "total_length=2 and max sequence length being 4");
  expect_error([] { R::pad_sequence(std::vector<Tensor>{}); }, "received an empty list of sequences");
  expect_error(
      [] {
        R::pad_sequence({randn({2, 3}), randn({3, 2})});
      },
      "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
}

TEST_CASE("nn rnn: dropout with one layer warns as libtorch") {
  struct Capture : WarningHandler {
    std::vector<std::string> messages;
    void process(const Warning& w) override { messages.push_back(w.msg()); }
  } capture;
  {
    WarningUtils::WarningHandlerGuard guard(&capture);
    nn::RNN(nn::RNNOptions(3, 4).dropout(0.5));
  }
  CHECK(capture.messages ==
        std::vector<std::string>{
            "dropout option adds dropout after all but last recurrent layer, so non-zero "
            "dropout expects num_layers greater than 1, but got dropout=0.5 and num_layers=1"});
}

TEST_CASE("nn rnn: LSTM and packing run on another device type with the CPU's values and gradients") {
  // The PrivateUse1 test backend ("npu") has no recurrent kernels: the layers are ordinary ops.
  ember::testing::ensure_fake_accelerator();
  const Device npu(kPrivateUse1, 0);
  manual_seed(11);
  nn::LSTM cpu(nn::LSTMOptions(2, 3).bidirectional(true).proj_size(1));
  cpu->to(kDouble);
  auto dev = std::dynamic_pointer_cast<nn::LSTMImpl>(cpu->clone(npu));
  REQUIRE(dev);
  const Tensor x = leaf({3, 2, 2});
  const Tensor xd = x.detach().to(npu).requires_grad_();
  const Tensor len = tensor({3, 1}, kInt64);
  auto [y, hc] = cpu->forward_with_packed_input(R::pack_padded_sequence(x, len));
  auto [yd, hcd] = dev->forward_with_packed_input(R::pack_padded_sequence(xd, len));
  CHECK(yd.data().device() == npu);
  CHECK(allclose(yd.data().to(kCPU), y.data(), 1e-12, 1e-12));
  CHECK(allclose(std::get<1>(hcd).to(kCPU), std::get<1>(hc), 1e-12, 1e-12));
  (y.data().sum() + std::get<1>(hc).sum()).backward();
  (yd.data().sum() + std::get<1>(hcd).sum()).backward();
  CHECK(allclose(xd.grad().to(kCPU), x.grad(), 1e-12, 1e-12));
  const auto grads = dev->named_parameters();
  for (const auto& p : cpu->named_parameters())
    CHECK(allclose(grads[p.key()].grad().to(kCPU), p.value().grad(), 1e-12, 1e-12));
}

TEST_CASE("nn rnn: malformed packed batch sizes, empty sequences and over-long lengths are rejected") {
  nn::GRU gru(2, 3);
  const Tensor data = randn({3, 2});
  // Growing sizes would broadcast a 1-row state against a 2-row step.
  expect_error(
      [&] {
        gru->forward_with_packed_input(R::PackedSequence(data, tensor({1, 2})));
      },
      "GRU: batch_sizes must be positive and non-increasing, got 2 at step 1", data);
  expect_error(
      [&] {
        gru->forward_with_packed_input(R::PackedSequence(data, tensor({2, 0, 1})));
      },
      "GRU: batch_sizes must be positive and non-increasing, got 0 at step 1");
  expect_error(
      [&] {
        gru->forward_with_packed_input(R::PackedSequence(randn({5, 2}), tensor({2, 2})));
      },
      "GRU: batch_sizes sum to 4 but the packed data has 5 rows");
  expect_error([&] { gru(randn({0, 2, 2})); }, "Expected sequence length to be larger than 0 in RNN");
  const Tensor x = randn({3, 2, 1});
  expect_error(
      [&] {
        R::pack_padded_sequence(x, tensor({5, 2}));
      },
      "pack_padded_sequence: lengths must be at most the padded length 3, but got a length of 5", x);
  expect_error(
      [&] {
        R::pack_padded_sequence(x.transpose(0, 1), tensor({2, 4}), true, false);
      },
      "pack_padded_sequence: lengths must be at most the padded length 3, but got a length of 4");
}
