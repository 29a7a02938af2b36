// A character-level language model written with ember's libtorch-style nn: an Embedding, an
// LSTM (or, with --transformer, a small causal TransformerEncoder with learned positions) and
// a Linear read-out, trained with Adam on random windows of a text every Debian machine has
// (/usr/share/common-licenses/GPL-3), then sampled.
// Use: char_lm [--transformer] [--steps N] [text file]. It checks (exit status 1 otherwise)
// that the held-out loss falls well below the uniform guess, ln(vocabulary size): under
// 0.6 of it, which no model of single-character frequencies reaches on English text.
#include <ember/ember.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace ember;
namespace F = nn::functional;

constexpr int64_t kSeqLen = 64;
constexpr int64_t kBatch = 32;
constexpr int64_t kEmbed = 64;
constexpr int64_t kHidden = 128;

struct Vocabulary {
  std::string chars;  // sorted, one each
  std::array<int64_t, 256> index{};
  explicit Vocabulary(const std::string& text) {
    std::array<bool, 256> seen{};
    for (unsigned char c : text) seen[c] = true;
    for (int c = 0; c < 256; ++c)
      if (seen[size_t(c)]) {
        index[size_t(c)] = int64_t(chars.size());
        chars.push_back(char(c));
      }
  }
  int64_t size() const { return int64_t(chars.size()); }
};

// (T, N) int64 token ids -> (T, N, V) logits.
struct LstmModelImpl : nn::Module {
  explicit LstmModelImpl(int64_t vocab)
      : embed(vocab, kEmbed), lstm(nn::LSTMOptions(kEmbed, kHidden)), out(kHidden, vocab) {
    register_module("embed", embed);
    register_module("lstm", lstm);
    register_module("out", out);
  }
  Tensor forward(const Tensor& tokens) {
    auto [hidden, state] = lstm->forward(embed(tokens));
    (void)state;
    return out(hidden);
  }
  nn::Embedding embed;
  nn::LSTM lstm;
  nn::Linear out;
};
EMBER_MODULE(LstmModel);

struct TransformerModelImpl : nn::Module {
  explicit TransformerModelImpl(int64_t vocab)
      : embed(vocab, kEmbed),
        position(kSeqLen, kEmbed),
        encoder(nn::TransformerEncoderOptions(
            nn::TransformerEncoderLayerOptions(kEmbed, 4).dim_feedforward(kHidden).dropout(0.0), 2)),
        out(kEmbed, vocab),
        causal(nn::TransformerImpl::generate_square_subsequent_mask(kSeqLen)) {
    register_module("embed", embed);
    register_module("position", position);
    register_module("encoder", encoder);
    register_module("out", out);
  }
  Tensor forward(const Tensor& tokens) {
    const int64_t t = tokens.size(0);
    Tensor x = embed(tokens) + position(arange(t, TensorOptions(kInt64))).unsqueeze(1);
    Tensor mask = causal.narrow(0, 0, t).narrow(1, 0, t);
    return out(encoder(x, mask));
  }
  nn::Embedding embed;
  nn::Embedding position;
  nn::TransformerEncoder encoder;
  nn::Linear out;
  Tensor causal;
};
EMBER_MODULE(TransformerModel);

// kBatch random windows of kSeqLen + 1 tokens from [begin, end): inputs and next-char targets, (T, N).
std::pair<Tensor, Tensor> batch(const Tensor& ids, int64_t begin, int64_t end) {
  Tensor starts = randint(begin, end - kSeqLen - 1, {kBatch}, TensorOptions(kInt64));
  Tensor offsets = arange(kSeqLen + 1, TensorOptions(kInt64));
  Tensor windows =
      ids.index_select(0, (starts.unsqueeze(1) + offsets).reshape({-1})).view({kBatch, kSeqLen + 1});
  windows = windows.t();
  return {windows.narrow(0, 0, kSeqLen), windows.narrow(0, 1, kSeqLen)};
}

template <class Model>
double loss_of(Model& model, const Tensor& inputs, const Tensor& targets, int64_t vocab) {
  return F::cross_entropy(model->forward(inputs).reshape({-1, vocab}), targets.reshape({-1}))
      .template item<double>();
}

// Draws n characters after `prompt`, each from the softmax of the last position's logits.
template <class Model>
std::string sample(Model& model, const Vocabulary& vocab, const std::string& prompt, int n) {
  NoGradGuard no_grad;
  std::vector<int64_t> ids;
  for (unsigned char c : prompt) ids.push_back(vocab.index[c]);
  std::string text = prompt;
  for (int i = 0; i < n; ++i) {
    const int64_t from = std::max<int64_t>(0, int64_t(ids.size()) - kSeqLen);
    Tensor window = tensor(std::vector<int64_t>(ids.begin() + from, ids.end())).unsqueeze(1);
    Tensor logits = model->forward(window).select(0, -1).select(0, 0);
    const int64_t next = multinomial(softmax(logits, 0), 1).template item<int64_t>();
    ids.push_back(next);
    text.push_back(vocab.chars[size_t(next)]);
  }
  return text;
}

template <class Model>
int train(Model model, const Tensor& ids, const Vocabulary& vocab, int steps, double lr) {
  const int64_t n = ids.numel(), split = n * 9 / 10;  // the last tenth is held out
  optim::Adam optimizer(model->parameters(), optim::AdamOptions(lr));
  const double uniform = std::log(double(vocab.size()));
  std::printf("%lld characters, vocabulary %lld, uniform-guess loss %.3f\n", (long long)n,
              (long long)vocab.size(), uniform);
  for (int step = 1; step <= steps; ++step) {
    auto [inputs, targets] = batch(ids, 0, split);
    optimizer.zero_grad();
    Tensor loss = F::cross_entropy(model->forward(inputs).reshape({-1, vocab.size()}), targets.reshape({-1}));
    loss.backward();
    nn::utils::clip_grad_norm_(model->parameters(), 1.0);
    optimizer.step();
    if (step % 50 == 0 || step == 1) std::printf("step %4d  train loss %.3f\n", step, loss.item<double>());
  }
  model->eval();
  double held_out = 0;
  {
    NoGradGuard no_grad;
    for (int i = 0; i < 4; ++i) {
      auto [inputs, targets] = batch(ids, split, n);
      held_out += loss_of(model, inputs, targets, vocab.size()) / 4;
    }
  }
  std::printf("held-out loss %.3f (%.2f of uniform)\n", held_out, held_out / uniform);
  std::printf("sample: %s\n", sample(model, vocab, "This License", 120).c_str());
  if (!(held_out < 0.6 * uniform)) {
    std::fprintf(stderr, "FAILED: held-out loss %.3f is not below 0.6 x ln(vocabulary) = %.3f\n", held_out,
                 0.6 * uniform);
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  bool transformer = false;
  int steps = 300;
  std::string path = "/usr/share/common-licenses/GPL-3";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--transformer") {
      transformer = true;
    } else if (arg == "--steps" && i + 1 < argc) {
      steps = std::atoi(argv[++i]);
    } else if (!arg.empty() && arg[0] != '-') {
      path = arg;
    } else {
      std::fprintf(stderr, "usage: char_lm [--transformer] [--steps N] [text file]\n");
      return 2;
    }
  }
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "char_lm: cannot read %s\n", path.c_str());
    return 2;
  }
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  if (int64_t(text.size()) < 20 * (kSeqLen + 1)) {
    std::fprintf(stderr, "char_lm: %s has %zu characters; at least %lld are needed\n", path.c_str(),
                 text.size(), (long long)(20 * (kSeqLen + 1)));
    return 2;
  }
  const Vocabulary vocab(text);
  std::vector<int64_t> ids(text.size());
  std::transform(text.begin(), text.end(), ids.begin(),
                 [&](char c) { return vocab.index[(unsigned char)c]; });
  manual_seed(0);
  const Tensor id_tensor = tensor(ids);
  if (transformer) return train(TransformerModel(vocab.size()), id_tensor, vocab, steps, 2e-3);
  return train(LstmModel(vocab.size()), id_tensor, vocab, steps, 5e-3);
}
