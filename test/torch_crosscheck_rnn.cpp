// Recurrent layers against libtorch 1.13: weights after manual_seed, printing, forward values
// and gradients of input, initial states and every weight (LSTM with proj_size, GRU, RNN
// tanh / relu; padded, batch_first and packed input, sorted and unsorted), the cells, dropout
// between layers while training, packing utilities (tie order included) and error texts.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <functional>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::ember_error;
using crosscheck::fresh_seed;
using crosscheck::printed;
using crosscheck::torch_error;
namespace ER = ember::nn::utils::rnn;
namespace TR = torch::nn::utils::rnn;

// Copies ember's parameters into libtorch's module by name (libtorch's as leaves again).
template <class E, class T>
void copy_weights(const E& e, T& t) {
  torch::NoGradGuard g;
  const auto ours = e->named_parameters();
  for (auto& p : t->named_parameters()) p.value().copy_(as_torch(ours[p.key()]));
}

template <class E, class T>
void same_parameters(const E& e, const T& t, const std::string& what) {
  const auto ours = e->named_parameters();
  const auto theirs = t->named_parameters();
  REQUIRE(ours.size() == theirs.size());
  for (const auto& p : theirs) {
    REQUIRE(ours.contains(p.key()));
    check_close(ours[p.key()], p.value(), 1e-7, what + " " + p.key());
  }
}

template <class E, class T>
void same_grads(const E& e, const T& t, double tol, const std::string& what) {
  const auto ours = e->named_parameters();
  for (const auto& p : t->named_parameters()) {
    REQUIRE(ours[p.key()].grad().defined());
    check_close(ours[p.key()].grad(), p.value().grad(), tol, what + ": grad of " + p.key());
  }
}

// sum(a * g) on both sides with the same random g.
struct Loss {
  ember::Tensor e;
  torch::Tensor t;
  void add(const ember::Tensor& a, const torch::Tensor& b) {
    const ember::Tensor g = ember::randn(a.sizes(), a.dtype());
    const ember::Tensor le = (a * g).sum();
    const torch::Tensor lt = (b * as_torch(g)).sum();
    e = e.defined() ? e + le : le;
    t = t.defined() ? t + lt : lt;
  }
  void backward() {
    e.backward();
    t.backward();
  }
};

ember::Tensor leaf(std::vector<int64_t> sizes, ember::ScalarType dt) {
  return ember::randn(sizes, dt).requires_grad_();
}
torch::Tensor tleaf(const ember::Tensor& e) { return as_torch(e.detach()).requires_grad_(); }

}  // namespace

TEST_CASE("crosscheck rnn: weights after manual_seed and printing equal libtorch's") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::manual_seed(seed);
  ember::nn::LSTM el(
      ember::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(2).dropout(0.25));
  ember::nn::GRU eg(ember::nn::GRUOptions(2, 3).bias(false).batch_first(true));
  ember::nn::RNN er(ember::nn::RNNOptions(2, 3).nonlinearity(ember::kReLU).num_layers(2));
  ember::nn::LSTMCell elc(2, 3);
  ember::nn::GRUCell egc(ember::nn::GRUCellOptions(2, 3).bias(false));
  ember::nn::RNNCell erc(ember::nn::RNNCellOptions(2, 3).nonlinearity(ember::kReLU));
  torch::manual_seed(seed);
  torch::nn::LSTM tl(
      torch::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(2).dropout(0.25));
  torch::nn::GRU tg(torch::nn::GRUOptions(2, 3).bias(false).batch_first(true));
  torch::nn::RNN tr(torch::nn::RNNOptions(2, 3).nonlinearity(torch::kReLU).num_layers(2));
  torch::nn::LSTMCell tlc(2, 3);
  torch::nn::GRUCell tgc(torch::nn::GRUCellOptions(2, 3).bias(false));
  torch::nn::RNNCell trc(torch::nn::RNNCellOptions(2, 3).nonlinearity(torch::kReLU));
  same_parameters(el, tl, "LSTM");
  same_parameters(eg, tg, "GRU");
  same_parameters(er, tr, "RNN");
  same_parameters(elc, tlc, "LSTMCell");
  same_parameters(egc, tgc, "GRUCell");
  same_parameters(erc, trc, "RNNCell");
  CHECK(printed(*el) == printed(*tl));
  CHECK(printed(*eg) == printed(*tg));
  CHECK(printed(*er) == printed(*tr));
  CHECK(printed(*elc) == printed(*tlc));
  CHECK(printed(*egc) == printed(*tgc));
  CHECK(printed(*erc) == printed(*trc));
}

TEST_CASE("crosscheck rnn: LSTM values and gradients (proj_size, bidirectional, batch_first)") {
  ember::manual_seed(fresh_seed());
  for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
    for (bool batch_first : {false, true}) {
      for (int64_t proj : {0, 2}) {
        const std::string what = std::string("LSTM ") + ember::name(dt) +
                                 (batch_first ? " batch_first" : "") + " proj " + std::to_string(proj);
        const double tol = dt == ember::kDouble ? 1e-10 : 2e-5;
        auto o = ember::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(proj).batch_first(
            batch_first);
        ember::nn::LSTM e(o);
        torch::nn::LSTM t(
            torch::nn::LSTMOptions(3, 4).num_layers(2).bidirectional(true).proj_size(proj).batch_first(
                batch_first));
        e->to(dt);
        t->to(crosscheck::to_torch(dt));
        copy_weights(e, t);
        const int64_t h_size = proj ? proj : 4;
        const ember::Tensor x = leaf(
                                batch_first ? std::vector<int64_t>{2, 3, 3} : std::vector<int64_t>{3, 2, 3},
                                dt),
                            h0 = leaf({4, 2, h_size}, dt), c0 = leaf({4, 2, 4}, dt);
        const torch::Tensor tx = tleaf(x), th0 = tleaf(h0), tc0 = tleaf(c0);
        auto [y, hc] = e(x, std::make_tuple(h0, c0));
        auto [ty, thc] = t(tx, std::make_tuple(th0, tc0));
        check_close(y, ty, tol, what + ": output");
        check_close(std::get<0>(hc), std::get<0>(thc), tol, what + ": h_n");
        check_close(std::get<1>(hc), std::get<1>(thc), tol, what + ": c_n");
        Loss loss;
        loss.add(y, ty);
        loss.add(std::get<0>(hc), std::get<0>(thc));
        loss.add(std::get<1>(hc), std::get<1>(thc));
        loss.backward();
        check_close(x.grad(), tx.grad(), tol, what + ": grad input");
        check_close(h0.grad(), th0.grad(), tol, what + ": grad h0");
        check_close(c0.grad(), tc0.grad(), tol, what + ": grad c0");
        same_grads(e, t, tol, what);

        // Zero initial states.
        auto [y2, hc2] = e(x);
        auto [ty2, thc2] = t(tx);
        check_close(y2, ty2, tol, what + ": output from zeros");
        check_close(std::get<1>(hc2), std::get<1>(thc2), tol, what + ": c_n from zeros");
      }
    }
  }
}

TEST_CASE("crosscheck rnn: GRU and RNN values and gradients") {
  ember::manual_seed(fresh_seed());
  for (int mode = 0; mode < 3; ++mode) {
    for (bool bias : {true, false}) {
      const std::string what = std::string(mode == 0   ? "GRU"
                                           : mode == 1 ? "RNN tanh"
                                                       : "RNN relu") +
                               (bias ? "" : " without bias");
      const double tol = 1e-10;
      std::shared_ptr<ember::nn::Module> em;
      std::shared_ptr<torch::nn::Module> tm;
      std::function<std::tuple<ember::Tensor, ember::Tensor>(const ember::Tensor&, const ember::Tensor&)> ef;
      std::function<std::tuple<torch::Tensor, torch::Tensor>(const torch::Tensor&, const torch::Tensor&)> tf;
      if (mode == 0) {
        ember::nn::GRU e(ember::nn::GRUOptions(3, 4).num_layers(2).bidirectional(true).bias(bias));
        torch::nn::GRU t(torch::nn::GRUOptions(3, 4).num_layers(2).bidirectional(true).bias(bias));
        e->to(ember::kDouble);
        t->to(torch::kDouble);
        copy_weights(e, t);
        em = e.ptr();
        tm = t.ptr();
        ef = [e](const ember::Tensor& x, const ember::Tensor& h) mutable { return e->forward(x, h); };
        tf = [t](const torch::Tensor& x, const torch::Tensor& h) mutable { return t->forward(x, h); };
      } else {
        ember::nn::RNN e(
            ember::nn::RNNOptions(3, 4).num_layers(2).bidirectional(true).bias(bias).nonlinearity(
                mode == 1 ? ember::kTanh : ember::kReLU));
        auto topt = torch::nn::RNNOptions(3, 4).num_layers(2).bidirectional(true).bias(bias);
        if (mode == 2) topt.nonlinearity(torch::kReLU);
        torch::nn::RNN t(topt);
        e->to(ember::kDouble);
        t->to(torch::kDouble);
        copy_weights(e, t);
        em = e.ptr();
        tm = t.ptr();
        ef = [e](const ember::Tensor& x, const ember::Tensor& h) mutable { return e->forward(x, h); };
        tf = [t](const torch::Tensor& x, const torch::Tensor& h) mutable { return t->forward(x, h); };
      }
      const ember::Tensor x = leaf({4, 3, 3}, ember::kDouble), h0 = leaf({4, 3, 4}, ember::kDouble);
      const torch::Tensor tx = tleaf(x), th0 = tleaf(h0);
      auto [y, h] = ef(x, h0);
      auto [ty, th] = tf(tx, th0);
      check_close(y, ty, tol, what + ": output");
      check_close(h, th, tol, what + ": h_n");
      Loss loss;
      loss.add(y, ty);
      loss.add(h, th);
      loss.backward();
      check_close(x.grad(), tx.grad(), tol, what + ": grad input");
      check_close(h0.grad(), th0.grad(), tol, what + ": grad h0");
      same_grads(em, tm, tol, what);
    }
  }
}

TEST_CASE("crosscheck rnn: packed input, sorted and unsorted, equals libtorch's") {
  ember::manual_seed(fresh_seed());
  for (bool enforce_sorted : {true, false}) {
    const std::vector<int64_t> lengths =
        enforce_sorted ? std::vector<int64_t>{4, 3, 3, 1} : std::vector<int64_t>{3, 1, 4, 3};
    const std::string what = enforce_sorted ? "sorted" : "unsorted";
    const double tol = 1e-10;
    ember::nn::LSTM e(ember::nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true).proj_size(2));
    torch::nn::LSTM t(torch::nn::LSTMOptions(2, 3).num_layers(2).bidirectional(true).proj_size(2));
    e->to(ember::kDouble);
    t->to(torch::kDouble);
    copy_weights(e, t);
    const ember::Tensor x = leaf({4, 4, 2}, ember::kDouble), h0 = leaf({4, 4, 2}, ember::kDouble),
                        c0 = leaf({4, 4, 3}, ember::kDouble);
    const torch::Tensor tx = tleaf(x), th0 = tleaf(h0), tc0 = tleaf(c0);
    const ember::Tensor len = ember::tensor(lengths, ember::kInt64);
    const torch::Tensor tlen = torch::tensor(lengths, torch::kInt64);
    const ER::PackedSequence p = ER::pack_padded_sequence(x, len, false, enforce_sorted);
    const TR::PackedSequence tp = TR::pack_padded_sequence(tx, tlen, false, enforce_sorted);
    check_close(p.data(), tp.data(), 0, what + ": packed data");
    check_close(p.batch_sizes(), tp.batch_sizes(), 0, what + ": batch_sizes");
    if (!enforce_sorted) {
      check_close(p.sorted_indices(), tp.sorted_indices(), 0, what + ": sorted_indices");
      check_close(p.unsorted_indices(), tp.unsorted_indices(), 0, what + ": unsorted_indices");
    }
    auto [out, hc] = e->forward_with_packed_input(p, std::make_tuple(h0, c0));
    auto [tout, thc] = t->forward_with_packed_input(tp, std::make_tuple(th0, tc0));
    check_close(out.data(), tout.data(), tol, what + ": packed output");
    check_close(std::get<0>(hc), std::get<0>(thc), tol, what + ": h_n");
    check_close(std::get<1>(hc), std::get<1>(thc), tol, what + ": c_n");
    auto [padded, plen] = ER::pad_packed_sequence(out, true, -2.0, 5);
    auto [tpadded, tplen] = TR::pad_packed_sequence(tout, true, -2.0, 5);
    check_close(padded, tpadded, tol, what + ": padded output");
    check_close(plen, tplen, 0, what + ": lengths");
    Loss loss;
    loss.add(padded, tpadded);
    loss.add(std::get<0>(hc), std::get<0>(thc));
    loss.add(std::get<1>(hc), std::get<1>(thc));
    loss.backward();
    check_close(x.grad(), tx.grad(), tol, what + ": grad input");
    check_close(h0.grad(), th0.grad(), tol, what + ": grad h0");
    check_close(c0.grad(), tc0.grad(), tol, what + ": grad c0");
    same_grads(e, t, tol, what);

    ember::nn::GRU eg(ember::nn::GRUOptions(2, 3).bidirectional(true));
    torch::nn::GRU tg(torch::nn::GRUOptions(2, 3).bidirectional(true));
    copy_weights(eg, tg);
    const ember::Tensor xf = ember::randn({4, 4, 2});
    auto [gout, gh] = eg->forward_with_packed_input(ER::pack_padded_sequence(xf, len, false, enforce_sorted));
    auto [tgout, tgh] =
        tg->forward_with_packed_input(TR::pack_padded_sequence(as_torch(xf), tlen, false, enforce_sorted));
    check_close(gout.data(), tgout.data(), 2e-6, what + ": GRU packed output");
    check_close(gh, tgh, 2e-6, what + ": GRU h_n");
  }
}

TEST_CASE("crosscheck rnn: cells' values and gradients") {
  ember::manual_seed(fresh_seed());
  const double tol = 1e-10;
  {
    ember::nn::LSTMCell e(3, 4);
    torch::nn::LSTMCell t(3, 4);
    e->to(ember::kDouble);
    t->to(torch::kDouble);
    copy_weights(e, t);
    const ember::Tensor x = leaf({2, 3}, ember::kDouble), h = leaf({2, 4}, ember::kDouble),
                        c = leaf({2, 4}, ember::kDouble);
    const torch::Tensor tx = tleaf(x), th = tleaf(h), tc = tleaf(c);
    auto [h1, c1] = e(x, std::make_tuple(h, c));
    auto [th1, tc1] = t(tx, std::make_tuple(th, tc));
    check_close(h1, th1, tol, "LSTMCell h");
    check_close(c1, tc1, tol, "LSTMCell c");
    Loss loss;
    loss.add(h1, th1);
    loss.add(c1, tc1);
    loss.backward();
    check_close(x.grad(), tx.grad(), tol, "LSTMCell grad input");
    check_close(h.grad(), th.grad(), tol, "LSTMCell grad h");
    check_close(c.grad(), tc.grad(), tol, "LSTMCell grad c");
    same_grads(e, t, tol, "LSTMCell");
    check_close(std::get<0>(e(x.detach())), std::get<0>(t(tx.detach())), tol, "LSTMCell from zeros");
  }
  {
    ember::nn::GRUCell e(ember::nn::GRUCellOptions(3, 4).bias(false));
    torch::nn::GRUCell t(torch::nn::GRUCellOptions(3, 4).bias(false));
    e->to(ember::kDouble);
    t->to(torch::kDouble);
    copy_weights(e, t);
    const ember::Tensor x = leaf({2, 3}, ember::kDouble), h = leaf({2, 4}, ember::kDouble);
    const torch::Tensor tx = tleaf(x), th = tleaf(h);
    const ember::Tensor h1 = e(x, h);
    const torch::Tensor th1 = t(tx, th);
    check_close(h1, th1, tol, "GRUCell");
    Loss loss;
    loss.add(h1, th1);
    loss.backward();
    check_close(x.grad(), tx.grad(), tol, "GRUCell grad input");
    check_close(h.grad(), th.grad(), tol, "GRUCell grad h");
    same_grads(e, t, tol, "GRUCell");
  }
  {
    ember::nn::RNNCell e(ember::nn::RNNCellOptions(3, 4).nonlinearity(ember::kReLU));
    torch::nn::RNNCell t(torch::nn::RNNCellOptions(3, 4).nonlinearity(torch::kReLU));
    e->to(ember::kDouble);
    t->to(torch::kDouble);
    copy_weights(e, t);
    const ember::Tensor x = leaf({2, 3}, ember::kDouble);
    const torch::Tensor tx = tleaf(x);
    check_close(e(x), t(tx), tol, "RNNCell relu from zeros");
  }
}

TEST_CASE("crosscheck rnn: dropout between layers draws as libtorch's") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  ember::nn::GRU e(ember::nn::GRUOptions(2, 3).num_layers(3).dropout(0.4));
  torch::nn::GRU t(torch::nn::GRUOptions(2, 3).num_layers(3).dropout(0.4));
  copy_weights(e, t);
  const ember::Tensor x = ember::randn({3, 2, 2});
  ember::manual_seed(seed);
  auto [y, h] = e(x);
  torch::manual_seed(seed);
  auto [ty, th] = t(as_torch(x));
  check_close(y, ty, 2e-6, "GRU training output");
  check_close(h, th, 2e-6, "GRU training h_n");
}

TEST_CASE("crosscheck rnn: packing utilities and tie order equal libtorch's") {
  const std::vector<int64_t> lengths = {2, 3, 2, 3, 1, 3};
  const ember::Tensor x = ember::randn({3, 6, 2});
  const ER::PackedSequence p = ER::pack_padded_sequence(x, ember::tensor(lengths), false, false);
  const TR::PackedSequence tp = TR::pack_padded_sequence(as_torch(x), torch::tensor(lengths), false, false);
  check_close(p.sorted_indices(), tp.sorted_indices(), 0, "sorted_indices with ties");
  check_close(p.data(), tp.data(), 0, "data with ties");
  const std::vector<ember::Tensor> seqs = {ember::randn({2, 2}), ember::randn({4, 2}), ember::randn({1, 2})};
  std::vector<torch::Tensor> tseqs;
  for (const auto& s : seqs) tseqs.push_back(as_torch(s));
  check_close(ER::pad_sequence(seqs, true, 3), TR::pad_sequence(tseqs, true, 3), 0, "pad_sequence");
  const ER::PackedSequence ps = ER::pack_sequence(seqs, false);
  const TR::PackedSequence tps = TR::pack_sequence(tseqs, false);
  check_close(ps.data(), tps.data(), 0, "pack_sequence data");
  check_close(ps.batch_sizes(), tps.batch_sizes(), 0, "pack_sequence batch_sizes");
}

TEST_CASE("crosscheck rnn: error texts equal libtorch's") {
  ember::nn::GRU eg(3, 4);
  torch::nn::GRU tg(3, 4);
  ember::nn::LSTM el(ember::nn::LSTMOptions(3, 4).num_layers(2).proj_size(2));
  torch::nn::LSTM tl(torch::nn::LSTMOptions(3, 4).num_layers(2).proj_size(2));
  ember::nn::GRUCell egc(3, 4);
  torch::nn::GRUCell tgc(3, 4);
  ember::nn::LSTMCell elc(3, 4);
  torch::nn::LSTMCell tlc(3, 4);
  const auto same = [](const std::function<void()>& ours, const std::function<void()>& theirs) {
    const std::string want = torch_error(theirs);
    CHECK(want != "<no error>");
    CHECK(ember_error(ours) == want);
  };
  same([&] { eg(ember::randn({5, 3})); }, [&] { tg(torch::randn({5, 3})); });
  same([&] { eg(ember::randn({5})); }, [&] { tg(torch::randn({5})); });
  same([&] { eg(ember::randn({5, 2, 2})); }, [&] { tg(torch::randn({5, 2, 2})); });
  same(
      [&] {
        eg(ember::randn({5, 2, 3}), ember::randn({1, 3, 4}));
      },
      [&] {
        tg(torch::randn({5, 2, 3}), torch::randn({1, 3, 4}));
      });
  same(
      [&] {
        eg(ember::randn({5, 2, 3}), ember::randn({2, 4}));
      },
      [&] {
        tg(torch::randn({5, 2, 3}), torch::randn({2, 4}));
      });
  same(
      [&] {
        el(ember::randn({5, 2, 3}), std::make_tuple(ember::randn({2, 2, 4}), ember::randn({2, 2, 4})));
      },
      [&] {
        tl(torch::randn({5, 2, 3}), std::make_tuple(torch::randn({2, 2, 4}), torch::randn({2, 2, 4})));
      });
  same(
      [&] {
        el(ember::randn({5, 2, 3}), std::make_tuple(ember::randn({2, 2, 2}), ember::randn({2, 1, 4})));
      },
      [&] {
        tl(torch::randn({5, 2, 3}), std::make_tuple(torch::randn({2, 2, 2}), torch::randn({2, 1, 4})));
      });
  same(
      [&] {
        egc(ember::randn({2, 3}), ember::randn({4}));
      },
      [&] {
        tgc(torch::randn({2, 3}), torch::randn({4}));
      });
  same([&] { egc(ember::randn({2, 2})); }, [&] { tgc(torch::randn({2, 2})); });
  same([&] { egc(ember::randn({3})); }, [&] { tgc(torch::randn({3})); });
  same(
      [&] {
        egc(ember::randn({2, 3}), ember::randn({2, 5}));
      },
      [&] {
        tgc(torch::randn({2, 3}), torch::randn({2, 5}));
      });
  same(
      [&] {
        elc(ember::randn({2, 3}), std::make_tuple(ember::randn({2, 4}), ember::randn({3, 4})));
      },
      [&] {
        tlc(torch::randn({2, 3}), std::make_tuple(torch::randn({2, 4}), torch::randn({3, 4})));
      });
  same([] { ember::nn::LSTM(ember::nn::LSTMOptions(3, 4).dropout(-0.5)); },
       [] { torch::nn::LSTM(torch::nn::LSTMOptions(3, 4).dropout(-0.5)); });
  same([] { ember::nn::LSTM(ember::nn::LSTMOptions(3, 4).proj_size(5)); },
       [] { torch::nn::LSTM(torch::nn::LSTMOptions(3, 4).proj_size(5)); });

  const ember::Tensor x = ember::randn({4, 3, 2});
  const torch::Tensor tx = as_torch(x);
  same(
      [&] {
        ER::pack_padded_sequence(x, ember::tensor({4, 2, 3}));
      },
      [&] {
        TR::pack_padded_sequence(tx, torch::tensor({4, 2, 3}));
      });
  same(
      [&] {
        ER::pack_padded_sequence(x, ember::tensor({4, 2, 0}), false, false);
      },
      [&] {
        TR::pack_padded_sequence(tx, torch::tensor({4, 2, 0}), false, false);
      });
  same(
      [&] {
        ER::pack_padded_sequence(x, ember::tensor({3, 2}), true);
      },
      [&] {
        TR::pack_padded_sequence(tx, torch::tensor({3, 2}), true);
      });
  same(
      [&] {
        ER::pack_padded_sequence(x, ember::tensor({4, 2, 1}).view({1, 3}));
      },
      [&] {
        TR::pack_padded_sequence(tx, torch::tensor({4, 2, 1}).view({1, 3}));
      });
  same(
      [&] {
        ER::pad_packed_sequence(ER::pack_padded_sequence(x, ember::tensor({4, 2, 1})), false, 0, 3);
      },
      [&] {
        TR::pad_packed_sequence(TR::pack_padded_sequence(tx, torch::tensor({4, 2, 1})), false, 0, 3);
      });
  same([] { ER::pad_sequence(std::vector<ember::Tensor>{}); },
       [] { TR::pad_sequence(std::vector<torch::Tensor>{}); });
  same(
      [] {
        ER::pad_sequence({ember::randn({2, 3}), ember::randn({3, 2})});
      },
      [] {
        TR::pad_sequence({torch::randn({2, 3}), torch::randn({3, 2})});
      });
}
