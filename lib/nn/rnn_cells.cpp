// RNNCell, LSTMCell and GRUCell: libtorch 1.13's parameters (weight_ih, weight_hh, bias_ih,
// bias_hh; U(-1/sqrt(hidden), 1/sqrt(hidden)) in that order), checks and error texts, and
// ATen's rnn_tanh_cell / rnn_relu_cell / lstm_cell / gru_cell composed of ordinary ops.
#include <cmath>
#include <ostream>

#include "core/check.h"
#include "ember/nn/init.h"
#include "ember/nn/rnn.h"
#include "ember/ops.h"

namespace ember::nn {

namespace {

// Tensor::size(d) with libtorch's text for a dimension out of range.
int64_t size_at(const Tensor& t, int64_t d) {
  const int64_t n = t.dim() > 0 ? t.dim() : 1;
  EMBER_CHECK_ARG(d >= -n && d < n,
                  "Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, d);
  return t.size(d);
}

// x W_ih^T + b_ih and h W_hh^T + b_hh.
std::pair<Tensor, Tensor> cell_gates(const Tensor& input, const Tensor& hx, const Tensor& w_ih,
                                     const Tensor& w_hh, const Tensor& b_ih, const Tensor& b_hh) {
  return {linear(input, w_ih, b_ih), linear(hx, w_hh, b_hh)};
}

}  // namespace

namespace detail {

template <typename Derived>
RNNCellImplBase<Derived>::RNNCellImplBase(const RNNCellOptionsBase& options_) : options_base(options_) {
  reset();
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset() {
  const int64_t gates = options_base.num_chunks() * options_base.hidden_size();
  weight_ih = this->register_parameter("weight_ih", empty({gates, options_base.input_size()}));
  weight_hh = this->register_parameter("weight_hh", empty({gates, options_base.hidden_size()}));
  if (options_base.bias()) {
    bias_ih = this->register_parameter("bias_ih", empty({gates}));
    bias_hh = this->register_parameter("bias_hh", empty({gates}));
  } else {
    bias_ih = this->register_parameter("bias_ih", Tensor(), /*requires_grad=*/false);
    bias_hh = this->register_parameter("bias_hh", Tensor(), /*requires_grad=*/false);
  }
  reset_parameters();
}

template <typename Derived>
void RNNCellImplBase<Derived>::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(double(options_base.hidden_size()));
  for (Tensor& weight : this->parameters()) init::uniform_(weight, -stdv, stdv);
}

template <typename Derived>
void RNNCellImplBase<Derived>::pretty_print(std::ostream& stream) const {
  const std::string name = this->name();
  stream << module_namespace() << name.substr(name.rfind(':') + 1, name.size() - name.rfind(':') - 5) << "("
         << options_base.input_size() << ", " << options_base.hidden_size();
  if (!options_base.bias()) stream << ", bias=" << std::boolalpha << false;
  const std::string nonlinearity = get_nonlinearity_str();
  if (!nonlinearity.empty() && nonlinearity != "kTanh") stream << ", nonlinearity=" << nonlinearity;
  stream << ")";
}

template <typename Derived>
void RNNCellImplBase<Derived>::check_forward_input(const Tensor& input) const {
  EMBER_CHECK_ARG(size_at(input, 1) == options_base.input_size(),
                  "input has inconsistent input_size: got {} expected {}", input.size(1),
                  options_base.input_size());
}

template <typename Derived>
void RNNCellImplBase<Derived>::check_forward_hidden(const Tensor& input, const Tensor& hx,
                                                    std::string hidden_label) const {
  EMBER_CHECK_ARG(size_at(input, 0) == size_at(hx, 0),
                  "Input batch size {} doesn't match hidden{} batch size {}", input.size(0), hidden_label,
                  hx.size(0));
  EMBER_CHECK_ARG(size_at(hx, 1) == options_base.hidden_size(),
                  "hidden{} has inconsistent hidden_size: got {}, expected {}", hidden_label, hx.size(1),
                  options_base.hidden_size());
}

template <typename Derived>
std::string RNNCellImplBase<Derived>::get_nonlinearity_str() const {
  return "";
}

template class RNNCellImplBase<RNNCellImpl>;
template class RNNCellImplBase<LSTMCellImpl>;
template class RNNCellImplBase<GRUCellImpl>;

}  // namespace detail

RNNCellImpl::RNNCellImpl(const RNNCellOptions& options_)
    : detail::RNNCellImplBase<RNNCellImpl>(
          detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(), options_.bias(), 1)),
      options(options_) {}

Tensor RNNCellImpl::forward(const Tensor& input, Tensor hx) {
  check_forward_input(input);
  if (!hx.defined())
    hx = zeros({input.size(0), options.hidden_size()},
               TensorOptions().dtype(input.dtype()).device(input.device()));
  check_forward_hidden(input, hx, "");
  EMBER_CHECK_ARG(options.nonlinearity() == kTanh || options.nonlinearity() == kReLU,
                  "Unknown nonlinearity: {}", get_nonlinearity_str());
  auto [gi, gh] = cell_gates(input, hx, weight_ih, weight_hh, bias_ih, bias_hh);
  return options.nonlinearity() == kTanh ? tanh(gi + gh) : relu(gi + gh);
}

std::string RNNCellImpl::get_nonlinearity_str() const {
  if (options.nonlinearity() == kTanh) return "kTanh";
  if (options.nonlinearity() == kReLU) return "kReLU";
  return "unknown";
}

LSTMCellImpl::LSTMCellImpl(const LSTMCellOptions& options_)
    : detail::RNNCellImplBase<LSTMCellImpl>(
          detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(), options_.bias(), 4)),
      options(options_) {}

std::tuple<Tensor, Tensor> LSTMCellImpl::forward(const Tensor& input,
                                                 std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  check_forward_input(input);
  std::tuple<Tensor, Tensor> hx;
  if (!hx_opt.has_value()) {
    const Tensor z = zeros({input.size(0), options.hidden_size()},
                           TensorOptions().dtype(input.dtype()).device(input.device()));
    hx = std::make_tuple(z, z);
  } else {
    hx = *hx_opt;
  }
  check_forward_hidden(input, std::get<0>(hx), "[0]");
  check_forward_hidden(input, std::get<1>(hx), "[1]");
  auto [gi, gh] = cell_gates(input, std::get<0>(hx), weight_ih, weight_hh, bias_ih, bias_hh);
  const std::vector<Tensor> gates = (gh + gi).chunk(4, 1);
  const Tensor c = sigmoid(gates[1]) * std::get<1>(hx) + sigmoid(gates[0]) * tanh(gates[2]);
  const Tensor h = sigmoid(gates[3]) * tanh(c);
  return std::make_tuple(h, c);
}

GRUCellImpl::GRUCellImpl(const GRUCellOptions& options_)
    : detail::RNNCellImplBase<GRUCellImpl>(
          detail::RNNCellOptionsBase(options_.input_size(), options_.hidden_size(), options_.bias(), 3)),
      options(options_) {}

Tensor GRUCellImpl::forward(const Tensor& input, Tensor hx) {
  check_forward_input(input);
  if (!hx.defined())
    hx = zeros({input.size(0), options.hidden_size()},
               TensorOptions().dtype(input.dtype()).device(input.device()));
  check_forward_hidden(input, hx, "");
  auto [gi, gh] = cell_gates(input, hx, weight_ih, weight_hh, bias_ih, bias_hh);
  const std::vector<Tensor> i = gi.chunk(3, 1), g = gh.chunk(3, 1);
  const Tensor r = sigmoid(i[0] + g[0]);
  const Tensor z = sigmoid(i[1] + g[1]);
  const Tensor n = tanh(i[2] + r * g[2]);
  return (hx - n) * z + n;
}

}  // namespace ember::nn
