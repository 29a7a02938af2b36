// Sequence models, ember beside libtorch in one run (interleaved, so the ratios hold on a
// noisy machine), forward + backward on the CPU, float32:
//  1. a 2-layer nn::LSTM (input 256, hidden 256), sequence 64, batch 32, input gradient too;
//  2. an nn::TransformerEncoderLayer (d_model 512, 8 heads, feedforward 2048, dropout 0,
//     training mode), sequence 128, batch 16, input gradient too;
//  3. causal F::scaled_dot_product_attention, batch 4, 8 heads, sequence 512, head dim 64,
//     gradients of query, key and value. libtorch 1.13 has no SDPA: its side is
//     softmax(q k^T * scale + causal mask) v written with torch ops (matmul, add, softmax).
// Both sides get the same weights and inputs; the maximum difference of their outputs and
// input gradients is printed once before timing.
// Use: ember_bench_seq [repetitions, default 5] [case name substring: only those cases];
// prints the median time of each side.
#include <ember/ember.h>

#include "side_by_side.h"
#ifdef EMBER_BENCH_WITH_TORCH
#include <torch/torch.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace {

using Case = ember_bench::SideBySideCase;

#ifdef EMBER_BENCH_WITH_TORCH
torch::Tensor to_torch(const ember::Tensor& e) {
  ember::Tensor c = e.contiguous();
  return torch::from_blob(c.data_ptr(), c.sizes().vec(), torch::kFloat).clone();
}

double max_diff(const ember::Tensor& e, const torch::Tensor& t) {
  return (to_torch(e) - t).abs().max().item<double>();
}

// Every ember parameter into the libtorch parameter of the same name (the names match).
void copy_parameters(const ember::nn::Module& from, torch::nn::Module& to) {
  torch::NoGradGuard no_grad;
  auto theirs = to.named_parameters();
  size_t copied = 0;
  for (const auto& p : from.named_parameters()) {
    torch::Tensor* t = theirs.find(p.key());
    if (t == nullptr || t->sizes().vec() != p.value().sizes().vec()) {
      std::fprintf(stderr, "parameter %s has no libtorch counterpart\n", p.key().c_str());
      std::exit(1);
    }
    t->copy_(to_torch(p.value()));
    ++copied;
  }
  if (copied != theirs.size()) {
    std::fprintf(stderr, "libtorch has %zu parameters, ember %zu\n", theirs.size(), copied);
    std::exit(1);
  }
}
#endif

void print_check(const std::string& name, double out, double grad) {
  std::printf("check %-40s max |out diff| %.3g, max |input grad diff| %.3g\n", name.c_str(), out, grad);
}

Case lstm_case() {
  Case c;
  c.name = "LSTM 2 layers 256->256, seq 64, batch 32";
  auto lstm = std::make_shared<ember::nn::LSTM>(ember::nn::LSTMOptions(256, 256).num_layers(2));
  auto x = std::make_shared<ember::Tensor>(ember::randn({64, 32, 256}).requires_grad_());
  c.ours = [=] {
    std::get<0>((*lstm)->forward(*x)).sum().backward();
    (*lstm)->zero_grad();
    x->mutable_grad() = ember::Tensor();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  auto tlstm = std::make_shared<torch::nn::LSTM>(torch::nn::LSTMOptions(256, 256).num_layers(2));
  copy_parameters(**lstm, **tlstm);
  auto tx = std::make_shared<torch::Tensor>(to_torch(*x).requires_grad_());
  c.theirs = [=] {
    std::get<0>((*tlstm)->forward(*tx)).sum().backward();
    (*tlstm)->zero_grad();
    tx->mutable_grad().reset();
  };
  ember::Tensor out = std::get<0>((*lstm)->forward(*x));
  out.sum().backward();
  torch::Tensor tout = std::get<0>((*tlstm)->forward(*tx));
  tout.sum().backward();
  print_check(c.name, max_diff(out, tout), max_diff(x->grad(), tx->grad()));
  (*lstm)->zero_grad();
  (*tlstm)->zero_grad();
  x->mutable_grad() = ember::Tensor();
  tx->mutable_grad().reset();
#endif
  return c;
}

Case transformer_case() {
  Case c;
  c.name = "TransformerEncoderLayer 512/8h, seq 128, batch 16";
  auto layer = std::make_shared<ember::nn::TransformerEncoderLayer>(
      ember::nn::TransformerEncoderLayerOptions(512, 8).dropout(0.0));
  auto x = std::make_shared<ember::Tensor>(ember::randn({128, 16, 512}).requires_grad_());
  c.ours = [=] {
    (*layer)->forward(*x).sum().backward();
    (*layer)->zero_grad();
    x->mutable_grad() = ember::Tensor();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  auto tlayer = std::make_shared<torch::nn::TransformerEncoderLayer>(
      torch::nn::TransformerEncoderLayerOptions(512, 8).dropout(0.0));
  copy_parameters(**layer, **tlayer);
  auto tx = std::make_shared<torch::Tensor>(to_torch(*x).requires_grad_());
  c.theirs = [=] {
    (*tlayer)->forward(*tx).sum().backward();
    (*tlayer)->zero_grad();
    tx->mutable_grad().reset();
  };
  ember::Tensor out = (*layer)->forward(*x);
  out.sum().backward();
  torch::Tensor tout = (*tlayer)->forward(*tx);
  tout.sum().backward();
  print_check(c.name, max_diff(out, tout), max_diff(x->grad(), tx->grad()));
  (*layer)->zero_grad();
  (*tlayer)->zero_grad();
  x->mutable_grad() = ember::Tensor();
  tx->mutable_grad().reset();
#endif
  return c;
}

Case sdpa_case() {
  Case c;
  c.name = "causal SDPA 4x8x512x64 (torch: matmul+mask+softmax)";
  const std::vector<int64_t> shape{4, 8, 512, 64};
  auto q = std::make_shared<ember::Tensor>(ember::randn(shape).requires_grad_());
  auto k = std::make_shared<ember::Tensor>(ember::randn(shape).requires_grad_());
  auto v = std::make_shared<ember::Tensor>(ember::randn(shape).requires_grad_());
  auto ours = [=] {
    return ember::nn::functional::scaled_dot_product_attention(*q, *k, *v, {}, 0.0, /*is_causal=*/true);
  };
  c.ours = [=] {
    ours().sum().backward();
    for (auto* t : {q.get(), k.get(), v.get()}) t->mutable_grad() = ember::Tensor();
  };
#ifdef EMBER_BENCH_WITH_TORCH
  auto tq = std::make_shared<torch::Tensor>(to_torch(*q).requires_grad_());
  auto tk = std::make_shared<torch::Tensor>(to_torch(*k).requires_grad_());
  auto tv = std::make_shared<torch::Tensor>(to_torch(*v).requires_grad_());
  // The additive causal mask, built once (as Transformer::generate_square_subsequent_mask).
  auto mask = std::make_shared<torch::Tensor>(
      torch::full({512, 512}, -std::numeric_limits<float>::infinity()).triu(1));
  const double scale = 1.0 / std::sqrt(64.0);
  auto theirs = [=] {
    torch::Tensor s = torch::matmul(*tq, tk->transpose(-2, -1)) * scale + *mask;
    return torch::matmul(torch::softmax(s, -1), *tv);
  };
  c.theirs = [=] {
    theirs().sum().backward();
    for (auto* t : {tq.get(), tk.get(), tv.get()}) t->mutable_grad().reset();
  };
  ember::Tensor out = ours();
  out.sum().backward();
  torch::Tensor tout = theirs();
  tout.sum().backward();
  print_check(c.name, max_diff(out, tout), max_diff(q->grad(), tq->grad()));
  for (auto* t : {q.get(), k.get(), v.get()}) t->mutable_grad() = ember::Tensor();
  for (auto* t : {tq.get(), tk.get(), tv.get()}) t->mutable_grad().reset();
#endif
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  ember::manual_seed(0);
  std::vector<Case> cases;
  cases.push_back(lstm_case());
  cases.push_back(transformer_case());
  cases.push_back(sdpa_case());

  std::printf("== forward + backward, CPU, float32 (median of %d; ms per call)\n", reps);
  ember_bench::SideBySideOptions options;
  options.repetitions = reps;
  options.filter = argc > 2 ? argv[2] : nullptr;
  ember_bench::run_side_by_side(cases, options);
  return 0;
}
