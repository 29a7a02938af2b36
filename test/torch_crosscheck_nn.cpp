// Cross-checks nn against libtorch 1.13 from the same weights and inputs: each layer's
// forward and gradients, the losses in every reduction, the functional activations, the
// init gains and the printed module tree (ember::nn:: where libtorch prints torch::nn::).
#include <ember/ember.h>
#include <ember/nn.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <limits>
#include <sstream>
#include <string>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;

void check_close(const ember::Tensor& e, const torch::Tensor& t, double tol = 1e-10) {
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  torch::Tensor d = (as_torch(e).to(torch::kDouble) - t.to(torch::kDouble)).abs();
  torch::Tensor scale = t.to(torch::kDouble).abs() + 1;
  INFO("ember " << as_torch(e) << "\ntorch " << t);
  CHECK((d / scale).max().item<double>() <= tol);
}

ember::Tensor leaf(std::vector<int64_t> sizes) {
  return (ember::randn(sizes, ember::kDouble)).requires_grad_();
}
torch::Tensor tleaf(const ember::Tensor& e) { return as_torch(e.detach()).requires_grad_(); }

void set(ember::Tensor& dst, const torch::Tensor& src) {
  torch::Tensor c = src.detach().to(torch::kDouble).contiguous();
  ember::NoGradGuard no_grad;
  dst.copy_(ember::from_blob(c.data_ptr(), c.sizes().vec(), ember::kDouble).to(dst.dtype()));
}

std::string torch_text(const torch::nn::Module& m) {
  std::ostringstream s;
  s << m;
  std::string r = s.str();
  for (size_t p; (p = r.find("torch::nn::")) != std::string::npos;) r.replace(p, 5, "ember");
  return r;
}

}  // namespace

TEST_CASE("nn crosscheck: Linear, Embedding and LayerNorm forward and gradients from the same weights") {
  torch::nn::Linear tl(5, 3);
  tl->to(torch::kDouble);
  ember::nn::Linear el(5, 3);
  el->to(ember::kDouble);
  set(el->weight, tl->weight);
  set(el->bias, tl->bias);
  ember::Tensor x = leaf({4, 5});
  torch::Tensor tx = tleaf(x);
  ember::Tensor y = el(x);
  torch::Tensor ty = tl(tx);
  check_close(y, ty);
  ember::Tensor g = ember::randn({4, 3}, ember::kDouble);
  y.backward(g);
  ty.backward(as_torch(g));
  check_close(el->weight.grad(), tl->weight.grad());
  check_close(el->bias.grad(), tl->bias.grad());
  check_close(x.grad(), tx.grad());

  torch::nn::Embedding te(torch::nn::EmbeddingOptions(6, 3).padding_idx(2));
  te->to(torch::kDouble);
  ember::nn::Embedding ee(ember::nn::EmbeddingOptions(6, 3).padding_idx(2));
  ee->to(ember::kDouble);
  set(ee->weight, te->weight);
  ember::Tensor idx = ember::tensor({{0, 2, 5}, {2, 0, 1}});
  ember::Tensor ey = ee(idx);
  torch::Tensor tyy = te(as_torch(idx));
  check_close(ey, tyy);
  ember::Tensor eg = ember::randn({2, 3, 3}, ember::kDouble);
  ey.backward(eg);
  tyy.backward(as_torch(eg));
  check_close(ee->weight.grad(), te->weight.grad());

  torch::nn::LayerNorm tn(torch::nn::LayerNormOptions({2, 3}).eps(1e-4));
  tn->to(torch::kDouble);
  ember::nn::LayerNorm en(ember::nn::LayerNormOptions({2, 3}).eps(1e-4));
  en->to(ember::kDouble);
  {
    torch::NoGradGuard ng;
    tn->weight.copy_(torch::randn({2, 3}, torch::kDouble));
    tn->bias.copy_(torch::randn({2, 3}, torch::kDouble));
  }
  set(en->weight, tn->weight);
  set(en->bias, tn->bias);
  ember::Tensor lx = leaf({4, 2, 3});
  torch::Tensor tlx = tleaf(lx);
  ember::Tensor lg = ember::randn({4, 2, 3}, ember::kDouble);
  ember::Tensor ly = en(lx);
  torch::Tensor tly = tn(tlx);
  check_close(ly, tly);
  ly.backward(lg);
  tly.backward(as_torch(lg));
  check_close(lx.grad(), tlx.grad(), 1e-9);
  check_close(en->weight.grad(), tn->weight.grad(), 1e-9);
  check_close(en->bias.grad(), tn->bias.grad());
}

TEST_CASE("nn crosscheck: cross_entropy and nll_loss in every reduction, weights, ignore_index, smoothing") {
  ember::Tensor w = ember::rand({4}, ember::kDouble) + 0.5;
  for (auto [er, tr] :
       {std::pair{ember::kMean, torch::Reduction::Mean}, std::pair{ember::kSum, torch::Reduction::Sum},
        std::pair{ember::kNone, torch::Reduction::None}}) {
    for (double ls : {0.0, 0.15}) {
      for (bool weighted : {false, true}) {
        INFO("reduction " << int(er) << " smoothing " << ls << " weighted " << weighted);
        ember::Tensor x = leaf({5, 4, 2});
        torch::Tensor tx = tleaf(x);
        ember::Tensor t = ember::randint(0, 4, {5, 2});
        {
          ember::NoGradGuard ng;
          t.select(1, 0).narrow(0, 0, 2).fill_(-100);
        }  // two ignored entries
        auto eo = EF::CrossEntropyFuncOptions().label_smoothing(ls);
        auto to = TF::CrossEntropyFuncOptions().label_smoothing(ls);
        if (weighted) {
          eo.weight(w);
          to.weight(as_torch(w));
        }
        to.reduction(tr == torch::Reduction::Mean  ? TF::CrossEntropyFuncOptions::reduction_t(torch::kMean)
                     : tr == torch::Reduction::Sum ? TF::CrossEntropyFuncOptions::reduction_t(torch::kSum)
                                                   : TF::CrossEntropyFuncOptions::reduction_t(torch::kNone));
        eo.reduction(er);
        ember::Tensor el = EF::cross_entropy(x, t, eo);
        torch::Tensor tl = TF::cross_entropy(tx, as_torch(t), to);
        check_close(el, tl);
        el.sum().backward();
        tl.sum().backward();
        check_close(x.grad(), tx.grad());
        // class probabilities as targets
        ember::Tensor p = ember::rand({5, 4, 2}, ember::kDouble).softmax(1);
        check_close(EF::cross_entropy(x, p, eo), TF::cross_entropy(tx, as_torch(p), to));
      }
    }
  }
  ember::Tensor lp = leaf({6, 3}).log_softmax(1);
  ember::Tensor t = ember::tensor({0, 2, 1, 1, 2, 0});
  check_close(EF::nll_loss(lp, t, ember::nn::NLLLossOptions().weight(w.narrow(0, 0, 3)).ignore_index(1)),
              TF::nll_loss(as_torch(lp.detach()), as_torch(t),
                           TF::NLLLossFuncOptions().weight(as_torch(w.narrow(0, 0, 3))).ignore_index(1)));
}

TEST_CASE("nn crosscheck: mse, l1, bce with logits, activations and dropout's scale") {
  ember::Tensor a = leaf({3, 4}), b = ember::randn({3, 4}, ember::kDouble);
  torch::Tensor ta = tleaf(a), tb = as_torch(b);
  check_close(EF::mse_loss(a, b), TF::mse_loss(ta, tb));
  check_close(EF::l1_loss(a, b, ember::kSum), TF::l1_loss(ta, tb, TF::L1LossFuncOptions(torch::kSum)));
  ember::Tensor tgt = ember::rand({3, 4}, ember::kDouble);
  ember::Tensor w = ember::rand({4}, ember::kDouble), pw = ember::rand({4}, ember::kDouble) * 3;
  ember::Tensor el = EF::binary_cross_entropy_with_logits(
      a * 10, tgt, EF::BinaryCrossEntropyWithLogitsFuncOptions().weight(w).pos_weight(pw));
  torch::Tensor tl = TF::binary_cross_entropy_with_logits(
      ta * 10, as_torch(tgt),
      TF::BinaryCrossEntropyWithLogitsFuncOptions().weight(as_torch(w)).pos_weight(as_torch(pw)));
  check_close(el, tl);
  el.backward();
  tl.backward();
  check_close(a.grad(), ta.grad());
  check_close(EF::gelu(a, ember::nn::GELUOptions().approximate("tanh")),
              TF::gelu(ta, TF::GELUFuncOptions().approximate("tanh")));
  check_close(EF::gelu(a), TF::gelu(ta), 1e-9);
  check_close(EF::silu(a), TF::silu(ta));
  check_close(EF::log_softmax(a, 0), TF::log_softmax(ta, 0));
}

TEST_CASE("nn crosscheck: init gains and the printed tree match libtorch's text") {
  CHECK(ember::nn::init::calculate_gain(ember::kReLU) == torch::nn::init::calculate_gain(torch::kReLU));
  CHECK(ember::nn::init::calculate_gain(ember::kTanh) == torch::nn::init::calculate_gain(torch::kTanh));
  CHECK(ember::nn::init::calculate_gain(ember::kLeakyReLU, 0.3) ==
        torch::nn::init::calculate_gain(torch::kLeakyReLU, 0.3));
  ember::nn::Sequential es(ember::nn::Linear(4, 3), ember::nn::ReLU(), ember::nn::Dropout(0.2),
                           ember::nn::Embedding(ember::nn::EmbeddingOptions(7, 2).padding_idx(1)),
                           ember::nn::LayerNorm(ember::nn::LayerNormOptions({2}).eps(1e-6)),
                           ember::nn::Softmax(-1), ember::nn::Tanh(), ember::nn::Sigmoid(),
                           ember::nn::GELU());
  torch::nn::Sequential ts(torch::nn::Linear(4, 3), torch::nn::ReLU(), torch::nn::Dropout(0.2),
                           torch::nn::Embedding(torch::nn::EmbeddingOptions(7, 2).padding_idx(1)),
                           torch::nn::LayerNorm(torch::nn::LayerNormOptions({2}).eps(1e-6)),
                           torch::nn::Softmax(-1), torch::nn::Tanh(), torch::nn::Sigmoid(),
                           torch::nn::GELU());
  std::ostringstream e;
  e << es;
  CHECK(e.str() == torch_text(*ts));
  std::vector<std::string> tn, en;
  for (auto& p : ts->named_parameters()) tn.push_back(p.key());
  for (auto& p : es->named_parameters()) en.push_back(p.key());
  CHECK(en == tn);
}

TEST_CASE("nn crosscheck: clip_grad_norm_ / clip_grad_value_ return and scale as libtorch, every norm type") {
  for (double norm_type : {2.0, 1.0, 3.5, 0.0, std::numeric_limits<double>::infinity()}) {
    for (double max_norm : {0.3, 1e3}) {
      INFO("norm_type " << norm_type << " max_norm " << max_norm);
      std::vector<ember::Tensor> ep;
      std::vector<torch::Tensor> tp;
      for (std::vector<int64_t> shape : {std::vector<int64_t>{3, 2}, {4}, {1}}) {
        ember::Tensor p = ember::zeros(shape, ember::kFloat).requires_grad_();
        p.mutable_grad() = ember::randn(shape, ember::kFloat);
        torch::Tensor t = torch::zeros(shape, torch::kFloat).requires_grad_();
        t.mutable_grad() = as_torch(p.grad());
        ep.push_back(p);
        tp.push_back(t);
      }
      const double en = ember::nn::utils::clip_grad_norm_(ep, max_norm, norm_type);
      const double tn = torch::nn::utils::clip_grad_norm_(tp, max_norm, norm_type);
      CHECK(en == Approx(tn).epsilon(1e-6));
      for (size_t i = 0; i < ep.size(); ++i) check_close(ep[i].grad(), tp[i].grad(), 1e-6);
    }
  }
  ember::Tensor p = ember::zeros({5}).requires_grad_();
  p.mutable_grad() = ember::randn({5}) * 3;
  torch::Tensor t = torch::zeros({5}).requires_grad_();
  t.mutable_grad() = as_torch(p.grad());
  ember::nn::utils::clip_grad_value_(p, 1.5);
  torch::nn::utils::clip_grad_value_(t, 1.5);
  check_close(p.grad(), t.grad(), 0);
}

TEST_CASE("nn crosscheck: leaky_relu, parameters_to_vector and the containers' printed text") {
  ember::Tensor x = leaf({4, 5});
  torch::Tensor tx = tleaf(x);
  ember::Tensor y = ember::leaky_relu(x, 0.2);
  torch::Tensor ty = torch::leaky_relu(tx, 0.2);
  check_close(y, ty, 0);
  CHECK(y.grad_fn()->name() == ty.grad_fn()->name());
  ember::Tensor g = ember::randn({4, 5}, ember::kDouble);
  y.backward(g);
  ty.backward(as_torch(g));
  check_close(x.grad(), tx.grad(), 0);
  check_close(ember::leaky_relu(x.detach()), torch::leaky_relu(tx.detach()), 0);

  ember::nn::Linear el(3, 2);
  torch::nn::Linear tl(3, 2);
  set(el->weight, tl->weight);
  set(el->bias, tl->bias);
  check_close(ember::nn::utils::parameters_to_vector(el->parameters()),
              torch::nn::utils::parameters_to_vector(tl->parameters()), 0);

  ember::nn::Sequential es(ember::nn::Linear(2, 3), ember::nn::Functional(ember::relu),
                           ember::nn::Functional(ember::leaky_relu, 0.2));
  torch::nn::Sequential ts(torch::nn::Linear(2, 3), torch::nn::Functional(torch::relu),
                           torch::nn::Functional(torch::leaky_relu, 0.2));
  std::ostringstream s;
  s << es;
  CHECK(s.str() == torch_text(*ts));
  ember::nn::ModuleList el2(ember::nn::Tanh(), es);
  torch::nn::ModuleList tl2(torch::nn::Tanh(), ts);
  el2->insert(1, ember::nn::Sigmoid());
  tl2->insert(1, torch::nn::Sigmoid());
  std::ostringstream l;
  l << el2;
  CHECK(l.str() == torch_text(*tl2));
  ember::nn::ModuleDict ed(std::vector<std::pair<std::string, std::shared_ptr<ember::nn::Module>>>{
      {"fc", ember::nn::Linear(1, 2).ptr()}, {"act", ember::nn::ReLU().ptr()}});
  torch::nn::ModuleDict td(std::vector<std::pair<std::string, std::shared_ptr<torch::nn::Module>>>{
      {"fc", torch::nn::Linear(1, 2).ptr()}, {"act", torch::nn::ReLU().ptr()}});
  std::ostringstream d;
  d << ed;
  CHECK(d.str() == torch_text(*td));
  ember::nn::ParameterList epl(ember::ones({2, 3}), ember::zeros({4}, ember::kDouble), ember::ones({}, ember::kLong));
  torch::nn::ParameterList tpl(torch::ones({2, 3}), torch::zeros({4}, torch::kDouble), torch::ones({}, torch::kLong));
  std::ostringstream pl;
  pl << epl;
  CHECK(pl.str() == torch_text(*tpl));
  ember::nn::ParameterDict epd;
  epd->insert("w", ember::ones({3}));
  epd->insert("b", ember::zeros({1, 2}, ember::kDouble));
  torch::nn::ParameterDict tpd;
  tpd->insert("w", torch::ones({3}));
  tpd->insert("b", torch::zeros({1, 2}, torch::kDouble));
  std::ostringstream pd;
  pd << epd;
  CHECK(pd.str() == torch_text(*tpd));

  // clone(): the copy's parameters equal the original's, name for name, in libtorch as here.
  auto ec = es->clone();
  auto tc = ts->clone();
  CHECK(ec->named_parameters().keys() == std::vector<std::string>{"0.weight", "0.bias"});
  std::vector<std::string> tkeys;
  for (const auto& p : tc->named_parameters()) tkeys.push_back(p.key());
  CHECK(tkeys == ec->named_parameters().keys());
  check_close(ec->named_parameters()["0.weight"], as_torch(es->named_parameters()["0.weight"]), 0);
}
