// RNN, LSTM and GRU modules: libtorch 1.13's parameter registration, checks and error texts,
// and ATen's _rnn_impl recurrence (layer by layer, the forward direction then the reverse,
// dropout between layers while training) composed of ordinary ops. Packed input is run the
// way ATen's PackedLayer runs it: the batch shrinks (forward) or grows (reverse) with
// batch_sizes, finished sequences leaving their final state behind.
#include "ember/nn/rnn.h"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <sstream>
#include <utility>

#include "core/check.h"
#include "ember/nn/dropout.h"
#include "ember/nn/init.h"
#include "ember/ops.h"

namespace ember::nn {

using utils::rnn::PackedSequence;

namespace {

// Tensor::size(d) with libtorch's text for a dimension out of range.
int64_t size_at(const Tensor& t, int64_t d) {
  const int64_t n = t.dim() > 0 ? t.dim() : 1;
  EMBER_CHECK_ARG(d >= -n && d < n,
                  "Dimension out of range (expected to be in range of [{}, {}], but got {})", -n, n - 1, d);
  return t.size(d);
}

// "[1, 3, 4]", as libtorch prints sizes.
std::string sizes_text(IntArrayRef sizes) {
  std::ostringstream s;
  s << "[";
  for (size_t i = 0; i < sizes.size(); ++i) s << (i ? ", " : "") << sizes[i];
  s << "]";
  return s.str();
}

Tensor apply_permutation(const Tensor& tensor, const Tensor& permutation, int64_t dim = 1) {
  return tensor.index_select(dim, permutation);
}

int64_t gate_count(RNNMode mode) {
  switch (mode) {
    case RNNMode::LSTM:
      return 4;
    case RNNMode::GRU:
      return 3;
    default:
      return 1;
  }
}

// One direction of one layer's weights (undefined biases / projection when absent).
struct DirectionWeights {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
  Tensor w_hh_t, w_hr_t;  // transposed once per run
};

// The steps' rows of proj (N, G): one unbind per run of equal batch sizes, so that the
// backward pass assembles proj's gradient once per run rather than once per step.
std::vector<Tensor> step_rows(const Tensor& proj, const std::vector<int64_t>& sizes) {
  std::vector<Tensor> out;
  out.reserve(sizes.size());
  int64_t offset = 0;
  for (size_t t = 0; t < sizes.size();) {
    size_t u = t;
    while (u < sizes.size() && sizes[u] == sizes[t]) ++u;
    const int64_t b = sizes[t], steps = int64_t(u - t);
    const Tensor run = t == 0 && u == sizes.size() ? proj : proj.narrow(0, offset, steps * b);
    for (Tensor& row : run.reshape({steps, b, proj.size(1)}).unbind(0)) out.push_back(std::move(row));
    offset += steps * b;
    t = u;
  }
  return out;
}

// One time step from the step's input projection gi = x W_ih^T + b_ih; state holds h (and c
// for LSTM). Returns the new state.
std::vector<Tensor> cell_step(RNNMode mode, const Tensor& gi, const std::vector<Tensor>& state,
                              const DirectionWeights& w) {
  const Tensor& h = state[0];
  const Tensor gh = w.b_hh.defined() ? addmm(w.b_hh, h, w.w_hh_t) : matmul(h, w.w_hh_t);
  switch (mode) {
    case RNNMode::RNN_TANH:
      return {tanh(gi + gh)};
    case RNNMode::RNN_RELU:
      return {relu(gi + gh)};
    case RNNMode::GRU: {
      const std::vector<Tensor> i = gi.chunk(3, 1), g = gh.chunk(3, 1);
      const Tensor r = sigmoid(i[0] + g[0]);
      const Tensor z = sigmoid(i[1] + g[1]);
      const Tensor n = tanh(i[2] + r * g[2]);
      return {(h - n) * z + n};
    }
    case RNNMode::LSTM: {
      const std::vector<Tensor> gates = (gh + gi).chunk(4, 1);
      const Tensor c = sigmoid(gates[1]) * state[1] + sigmoid(gates[0]) * tanh(gates[2]);
      Tensor hy = sigmoid(gates[3]) * tanh(c);
      if (w.w_hr.defined()) hy = matmul(hy, w.w_hr_t);
      return {hy, c};
    }
  }
  return {};
}

// Runs one direction over the steps' input projections (step t: batch_sizes[t] rows) from
// the initial state (rows: batch_sizes[0]); returns the step outputs and the final state,
// whose rows are in the initial state's order.
std::pair<std::vector<Tensor>, std::vector<Tensor>> run_direction(RNNMode mode, const std::vector<Tensor>& gi,
                                                                  const std::vector<int64_t>& batch_sizes,
                                                                  const std::vector<Tensor>& init,
                                                                  const DirectionWeights& w, bool reverse) {
  const size_t steps = gi.size(), n_state = init.size();
  std::vector<Tensor> outputs(steps);
  std::vector<Tensor> state = init;
  if (!reverse) {
    std::vector<std::vector<Tensor>> finished(n_state);
    int64_t last = batch_sizes.empty() ? 0 : batch_sizes[0];
    for (size_t t = 0; t < steps; ++t) {
      const int64_t b = batch_sizes[t];
      if (b < last) {
        for (size_t k = 0; k < n_state; ++k) {
          finished[k].push_back(state[k].narrow(0, b, last - b));
          state[k] = state[k].narrow(0, 0, b);
        }
        last = b;
      }
      state = cell_step(mode, gi[t], state, w);
      outputs[t] = state[0];
    }
    for (size_t k = 0; k < n_state; ++k) {
      if (finished[k].empty()) continue;
      finished[k].push_back(state[k]);
      std::reverse(finished[k].begin(), finished[k].end());
      state[k] = cat(finished[k], 0);
    }
    return {outputs, state};
  }
  int64_t last = steps ? batch_sizes[steps - 1] : 0;
  for (size_t k = 0; k < n_state; ++k) state[k] = init[k].narrow(0, 0, last);
  for (size_t t = steps; t-- > 0;) {
    const int64_t b = batch_sizes[t];
    if (b > last) {
      for (size_t k = 0; k < n_state; ++k) state[k] = cat({state[k], init[k].narrow(0, last, b - last)}, 0);
      last = b;
    }
    state = cell_step(mode, gi[t], state, w);
    outputs[t] = state[0];
  }
  return {outputs, state};
}

const char* mode_name(RNNMode mode) {
  switch (mode) {
    case RNNMode::LSTM:
      return "LSTM";
    case RNNMode::GRU:
      return "GRU";
    default:
      return "RNN";
  }
}

RNNMode rnn_mode(Nonlinearity nonlinearity) {
  if (nonlinearity == Nonlinearity::Tanh) return kRNN_TANH;
  if (nonlinearity == Nonlinearity::ReLU) return kRNN_RELU;
  EMBER_THROW(InvalidArgument, "Unknown nonlinearity");
}

}  // namespace

// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ RNNImplBase ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

namespace detail {

template <typename Derived>
RNNImplBase<Derived>::RNNImplBase(const RNNOptionsBase& options_) : options_base(options_) {
  reset();
}

template <typename Derived>
void RNNImplBase<Derived>::reset() {
  const RNNOptionsBase& o = options_base;
  const int64_t num_directions = o.bidirectional() ? 2 : 1;
  EMBER_CHECK_ARG(0 <= o.dropout() && o.dropout() <= 1,
                  "dropout should be a number in range [0, 1] representing the probability of an element "
                  "being zeroed");
  if (o.dropout() > 0 && o.num_layers() == 1)
    EMBER_WARN_FMT(
        "dropout option adds dropout after all but last recurrent layer, so non-zero dropout expects "
        "num_layers greater than 1, but got dropout={} and num_layers={}",
        o.dropout(), o.num_layers());
  EMBER_CHECK_ARG(0 <= o.proj_size() && o.proj_size() < o.hidden_size(),
                  "proj_size has to be a positive integer, smaller than hidden_size or zero to disable "
                  "projections");
  if (o.proj_size() > 0)
    EMBER_CHECK_ARG(o.mode() == kLSTM, "proj_size argument is only supported for LSTM, not RNN or GRU");
  // libtorch 1.13 crashes on these; later versions reject them with these texts.
  EMBER_CHECK_ARG(o.hidden_size() > 0, "hidden_size must be greater than zero");
  EMBER_CHECK_ARG(o.num_layers() > 0, "num_layers must be greater than zero");

  const int64_t gate_size = gate_count(o.mode()) * o.hidden_size();
  const int64_t real_hidden_size = o.proj_size() > 0 ? o.proj_size() : o.hidden_size();
  flat_weights_names_.clear();
  all_weights_.clear();
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    for (int64_t direction = 0; direction < num_directions; ++direction) {
      const int64_t layer_input_size = layer == 0 ? o.input_size() : real_hidden_size * num_directions;
      const std::string suffix = std::to_string(layer) + (direction == 1 ? "_reverse" : "");
      std::vector<std::string> names = {"weight_ih_l" + suffix, "weight_hh_l" + suffix};
      std::vector<Tensor> params = {empty({gate_size, layer_input_size}),
                                    empty({gate_size, real_hidden_size})};
      if (o.bias()) {
        names.push_back("bias_ih_l" + suffix);
        names.push_back("bias_hh_l" + suffix);
        params.push_back(empty({gate_size}));
        params.push_back(empty({gate_size}));
      }
      if (o.proj_size() > 0) {
        names.push_back("weight_hr_l" + suffix);
        params.push_back(empty({o.proj_size(), o.hidden_size()}));
      }
      for (size_t i = 0; i < names.size(); ++i) this->register_parameter(names[i], std::move(params[i]));
      flat_weights_names_.insert(flat_weights_names_.end(), names.begin(), names.end());
      all_weights_.push_back(std::move(names));
    }
  }
  reset_flat_weights();
  reset_parameters();
}

template <typename Derived>
void RNNImplBase<Derived>::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(double(options_base.hidden_size()));
  for (Tensor& weight : this->parameters()) init::uniform_(weight, -stdv, stdv);
}

template <typename Derived>
void RNNImplBase<Derived>::reset_flat_weights() {
  flat_weights_.clear();
  const auto named = this->named_parameters(/*recurse=*/false);
  for (const std::string& name : flat_weights_names_) {
    const Tensor* p = named.find(name);
    flat_weights_.push_back(p ? *p : Tensor());
  }
}

template <typename Derived>
void RNNImplBase<Derived>::flatten_parameters() {}

template <typename Derived>
void RNNImplBase<Derived>::to(Device device, ScalarType dtype, bool non_blocking) {
  Module::to(device, dtype, non_blocking);
  reset_flat_weights();
}

template <typename Derived>
void RNNImplBase<Derived>::to(ScalarType dtype, bool non_blocking) {
  Module::to(dtype, non_blocking);
  reset_flat_weights();
}

template <typename Derived>
void RNNImplBase<Derived>::to(Device device, bool non_blocking) {
  Module::to(device, non_blocking);
  reset_flat_weights();
}

template <typename Derived>
void RNNImplBase<Derived>::pretty_print(std::ostream& stream) const {
  const RNNOptionsBase& o = options_base;
  stream << std::boolalpha << module_namespace() << mode_name(o.mode()) << "(input_size=" << o.input_size()
         << ", hidden_size=" << o.hidden_size() << ", num_layers=" << o.num_layers() << ", bias=" << o.bias()
         << ", batch_first=" << o.batch_first() << ", dropout=" << o.dropout()
         << ", bidirectional=" << o.bidirectional();
  if (o.proj_size() > 0) stream << ", proj_size=" << o.proj_size();
  stream << ")";
}

template <typename Derived>
std::vector<Tensor> RNNImplBase<Derived>::all_weights() const {
  std::vector<Tensor> result;
  const auto named = this->named_parameters(/*recurse=*/false);
  for (const auto& weights : all_weights_)
    for (const std::string& name : weights) {
      const Tensor* p = named.find(name);
      result.push_back(p ? *p : Tensor());
    }
  return result;
}

template <typename Derived>
void RNNImplBase<Derived>::check_input(const Tensor& input, const Tensor& batch_sizes) const {
  const int64_t expected_input_dim = batch_sizes.defined() ? 2 : 3;
  EMBER_CHECK_ARG(input.dim() == expected_input_dim, "input must have {} dimensions, got {}",
                  expected_input_dim, input.dim());
  EMBER_CHECK_ARG(options_base.input_size() == input.size(-1),
                  "input.size(-1) must be equal to input_size. Expected {}, got {}",
                  options_base.input_size(), input.size(-1));
}

template <typename Derived>
std::tuple<int64_t, int64_t, int64_t> RNNImplBase<Derived>::get_expected_hidden_size(
    const Tensor& input, const Tensor& batch_sizes) const {
  const int64_t mini_batch = batch_sizes.defined()        ? batch_sizes[0].item<int64_t>()
                             : options_base.batch_first() ? input.size(0)
                                                          : input.size(1);
  const int64_t num_directions = options_base.bidirectional() ? 2 : 1;
  const int64_t real_hidden_size =
      options_base.proj_size() > 0 ? options_base.proj_size() : options_base.hidden_size();
  return std::make_tuple(options_base.num_layers() * num_directions, mini_batch, real_hidden_size);
}

template <typename Derived>
void RNNImplBase<Derived>::check_hidden_size(const Tensor& hx,
                                             std::tuple<int64_t, int64_t, int64_t> expected_hidden_size,
                                             std::string msg) const {
  const std::vector<int64_t> expected = {std::get<0>(expected_hidden_size), std::get<1>(expected_hidden_size),
                                         std::get<2>(expected_hidden_size)};
  if (hx.sizes().vec() == expected) return;
  // c10::str of a vector: the sizes separated by spaces.
  const std::string want =
      std::to_string(expected[0]) + " " + std::to_string(expected[1]) + " " + std::to_string(expected[2]);
  msg.replace(msg.find("{1}"), 3, want);
  msg.replace(msg.find("{2}"), 3, sizes_text(hx.sizes()));
  throw InvalidArgument(msg);
}

template <typename Derived>
void RNNImplBase<Derived>::check_forward_args(Tensor input, Tensor hidden, Tensor batch_sizes) const {
  check_input(input, batch_sizes);
  check_hidden_size(hidden, get_expected_hidden_size(input, batch_sizes));
}

template <typename Derived>
Tensor RNNImplBase<Derived>::permute_hidden(Tensor hx, const Tensor& permutation) const {
  if (!permutation.defined()) return hx;
  return apply_permutation(hx, permutation);
}

template <typename Derived>
std::tuple<Tensor, std::vector<Tensor>> RNNImplBase<Derived>::run(const Tensor& input,
                                                                  const Tensor& batch_sizes,
                                                                  std::vector<Tensor> hx) {
  // The weights are looked up afresh so that to(), clone() and load() need no bookkeeping.
  reset_flat_weights();
  const RNNOptionsBase& o = options_base;
  const RNNMode mode = o.mode();
  const int64_t num_directions = o.bidirectional() ? 2 : 1;
  const bool packed = batch_sizes.defined();

  Tensor layer_input = packed || !o.batch_first() ? input : input.transpose(0, 1);
  std::vector<int64_t> sizes;  // rows of each step
  if (packed) {
    const Tensor bs = batch_sizes.to(kInt64).contiguous();
    const int64_t* p = bs.data_ptr<int64_t>();
    sizes.assign(p, p + bs.numel());
    // A hand-made PackedSequence with growing or non-positive sizes would broadcast silently.
    int64_t rows = 0;
    for (size_t t = 0; t < sizes.size(); ++t) {
      EMBER_CHECK_ARG(sizes[t] > 0 && (t == 0 || sizes[t] <= sizes[t - 1]),
                      "{}: batch_sizes must be positive and non-increasing, got {} at step {}",
                      mode_name(mode), sizes[t], t);
      rows += sizes[t];
    }
    EMBER_CHECK_ARG(rows == input.size(0), "{}: batch_sizes sum to {} but the packed data has {} rows",
                    mode_name(mode), rows, input.size(0));
  } else {
    EMBER_CHECK_ARG(layer_input.size(0) > 0, "Expected sequence length to be larger than 0 in RNN");
    sizes.assign(size_t(layer_input.size(0)), layer_input.size(1));
  }

  const size_t per_direction = flat_weights_.size() / size_t(o.num_layers() * num_directions);
  std::vector<std::vector<Tensor>> final_states(hx.size());
  for (int64_t layer = 0; layer < o.num_layers(); ++layer) {
    std::vector<Tensor> direction_outputs;
    for (int64_t d = 0; d < num_directions; ++d) {
      const size_t base = size_t(layer * num_directions + d) * per_direction;
      DirectionWeights w;
      w.w_ih = flat_weights_[base];
      w.w_hh = flat_weights_[base + 1];
      size_t next = base + 2;
      if (o.bias()) {
        w.b_ih = flat_weights_[next++];
        w.b_hh = flat_weights_[next++];
      }
      if (o.proj_size() > 0) w.w_hr = flat_weights_[next];
      w.w_hh_t = w.w_hh.t();
      if (w.w_hr.defined()) w.w_hr_t = w.w_hr.t();

      // The input projection of every step in one matmul.
      const Tensor flat_input = packed ? layer_input : layer_input.reshape({-1, layer_input.size(-1)});
      const Tensor proj =
          w.b_ih.defined() ? addmm(w.b_ih, flat_input, w.w_ih.t()) : matmul(flat_input, w.w_ih.t());
      const std::vector<Tensor> gi = step_rows(proj, sizes);
      std::vector<Tensor> init;
      for (const Tensor& h : hx) init.push_back(h.select(0, layer * num_directions + d));
      auto [outputs, state] = run_direction(mode, gi, sizes, init, w, d == 1);
      for (size_t k = 0; k < state.size(); ++k) final_states[k].push_back(state[k]);
      direction_outputs.push_back(packed ? cat(outputs, 0) : stack(outputs, 0));
    }
    layer_input = num_directions == 1 ? direction_outputs[0] : cat(direction_outputs, -1);
    if (o.dropout() != 0 && this->is_training() && layer < o.num_layers() - 1)
      layer_input = ember::dropout(layer_input, o.dropout(), /*train=*/true);
  }
  Tensor output = packed || !o.batch_first() ? layer_input : layer_input.transpose(0, 1);
  std::vector<Tensor> states;
  for (auto& s : final_states) states.push_back(stack(s, 0));
  return {output, states};
}

template class RNNImplBase<RNNImpl>;
template class RNNImplBase<LSTMImpl>;
template class RNNImplBase<GRUImpl>;

}  // namespace detail

// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ RNN ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

RNNImpl::RNNImpl(const RNNOptions& options_)
    : detail::RNNImplBase<RNNImpl>(detail::RNNOptionsBase(rnn_mode(options_.nonlinearity()),
                                                          options_.input_size(), options_.hidden_size())
                                       .num_layers(options_.num_layers())
                                       .bias(options_.bias())
                                       .batch_first(options_.batch_first())
                                       .dropout(options_.dropout())
                                       .bidirectional(options_.bidirectional())),
      options(options_) {}

std::tuple<Tensor, Tensor> RNNImpl::forward_helper(const Tensor& input, const Tensor& batch_sizes,
                                                   const Tensor& sorted_indices, int64_t max_batch_size,
                                                   Tensor hx) {
  if (!hx.defined()) {
    const int64_t num_directions = options_base.bidirectional() ? 2 : 1;
    hx = zeros({options_base.num_layers() * num_directions, max_batch_size, options_base.hidden_size()},
               TensorOptions().dtype(input.dtype()).device(input.device()));
  } else {
    hx = permute_hidden(hx, sorted_indices);
  }
  check_forward_args(input, hx, batch_sizes);
  auto [output, states] = run(input, batch_sizes, {hx});
  return std::make_tuple(output, states[0]);
}

std::tuple<Tensor, Tensor> RNNImpl::forward(const Tensor& input, Tensor hx) {
  const int64_t max_batch_size = options_base.batch_first() ? size_at(input, 0) : size_at(input, 1);
  auto [output, hidden] = forward_helper(input, {}, {}, max_batch_size, std::move(hx));
  return std::make_tuple(output, hidden);
}

std::tuple<PackedSequence, Tensor> RNNImpl::forward_with_packed_input(const PackedSequence& packed_input,
                                                                      Tensor hx) {
  const Tensor& batch_sizes = packed_input.batch_sizes();
  const int64_t max_batch_size = batch_sizes[0].item<int64_t>();
  auto [output, hidden] = forward_helper(packed_input.data(), batch_sizes, packed_input.sorted_indices(),
                                         max_batch_size, std::move(hx));
  return std::make_tuple(
      PackedSequence(output, batch_sizes, packed_input.sorted_indices(), packed_input.unsorted_indices()),
      permute_hidden(hidden, packed_input.unsorted_indices()));
}

// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ LSTM ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

LSTMImpl::LSTMImpl(const LSTMOptions& options_)
    : detail::RNNImplBase<LSTMImpl>(
          detail::RNNOptionsBase(kLSTM, options_.input_size(), options_.hidden_size())
              .num_layers(options_.num_layers())
              .bias(options_.bias())
              .batch_first(options_.batch_first())
              .dropout(options_.dropout())
              .bidirectional(options_.bidirectional())
              .proj_size(options_.proj_size())),
      options(options_) {}

std::tuple<int64_t, int64_t, int64_t> LSTMImpl::get_expected_cell_size(const Tensor& input,
                                                                       const Tensor& batch_sizes) const {
  const int64_t mini_batch = batch_sizes.defined()        ? batch_sizes[0].item<int64_t>()
                             : options_base.batch_first() ? input.size(0)
                                                          : input.size(1);
  const int64_t num_directions = options_base.bidirectional() ? 2 : 1;
  return std::make_tuple(options_base.num_layers() * num_directions, mini_batch, options_base.hidden_size());
}

void LSTMImpl::check_forward_args(const Tensor& input, std::tuple<Tensor, Tensor> hidden,
                                  const Tensor& batch_sizes) const {
  check_input(input, batch_sizes);
  check_hidden_size(std::get<0>(hidden), get_expected_hidden_size(input, batch_sizes),
                    "Expected hidden[0] size {1}, got {2}");
  check_hidden_size(std::get<1>(hidden), get_expected_cell_size(input, batch_sizes),
                    "Expected hidden[1] size {1}, got {2}");
}

std::tuple<Tensor, Tensor> LSTMImpl::permute_hidden(std::tuple<Tensor, Tensor> hx,
                                                    const Tensor& permutation) const {
  if (!permutation.defined()) return hx;
  return std::make_tuple(apply_permutation(std::get<0>(hx), permutation),
                         apply_permutation(std::get<1>(hx), permutation));
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward_helper(
    const Tensor& input, const Tensor& batch_sizes, const Tensor& sorted_indices, int64_t max_batch_size,
    std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  std::tuple<Tensor, Tensor> hx;
  if (!hx_opt.has_value()) {
    const int64_t num_directions = options.bidirectional() ? 2 : 1;
    const int64_t real_hidden_size = options.proj_size() > 0 ? options.proj_size() : options.hidden_size();
    const TensorOptions like = TensorOptions().dtype(input.dtype()).device(input.device());
    hx = std::make_tuple(
        zeros({options.num_layers() * num_directions, max_batch_size, real_hidden_size}, like),
        zeros({options.num_layers() * num_directions, max_batch_size, options.hidden_size()}, like));
  } else {
    hx = permute_hidden(*hx_opt, sorted_indices);
  }
  check_forward_args(input, hx, batch_sizes);
  auto [output, states] = run(input, batch_sizes, {std::get<0>(hx), std::get<1>(hx)});
  return std::make_tuple(output, std::make_tuple(states[0], states[1]));
}

std::tuple<Tensor, std::tuple<Tensor, Tensor>> LSTMImpl::forward(
    const Tensor& input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const int64_t max_batch_size = options.batch_first() ? size_at(input, 0) : size_at(input, 1);
  return forward_helper(input, {}, {}, max_batch_size, std::move(hx_opt));
}

std::tuple<PackedSequence, std::tuple<Tensor, Tensor>> LSTMImpl::forward_with_packed_input(
    const PackedSequence& packed_input, std::optional<std::tuple<Tensor, Tensor>> hx_opt) {
  const Tensor& batch_sizes = packed_input.batch_sizes();
  const int64_t max_batch_size = batch_sizes[0].item<int64_t>();
  auto [output, hidden] = forward_helper(packed_input.data(), batch_sizes, packed_input.sorted_indices(),
                                         max_batch_size, std::move(hx_opt));
  return std::make_tuple(
      PackedSequence(output, batch_sizes, packed_input.sorted_indices(), packed_input.unsorted_indices()),
      permute_hidden(hidden, packed_input.unsorted_indices()));
}

// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ GRU ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

GRUImpl::GRUImpl(const GRUOptions& options_)
    : detail::RNNImplBase<GRUImpl>(detail::RNNOptionsBase(kGRU, options_.input_size(), options_.hidden_size())
                                       .num_layers(options_.num_layers())
                                       .bias(options_.bias())
                                       .batch_first(options_.batch_first())
                                       .dropout(options_.dropout())
                                       .bidirectional(options_.bidirectional())),
      options(options_) {}

std::tuple<Tensor, Tensor> GRUImpl::forward_helper(const Tensor& input, const Tensor& batch_sizes,
                                                   const Tensor& sorted_indices, int64_t max_batch_size,
                                                   Tensor hx) {
  if (!hx.defined()) {
    const int64_t num_directions = options.bidirectional() ? 2 : 1;
    hx = zeros({options.num_layers() * num_directions, max_batch_size, options.hidden_size()},
               TensorOptions().dtype(input.dtype()).device(input.device()));
  } else {
    hx = permute_hidden(hx, sorted_indices);
  }
  check_forward_args(input, hx, batch_sizes);
  auto [output, states] = run(input, batch_sizes, {hx});
  return std::make_tuple(output, states[0]);
}

std::tuple<Tensor, Tensor> GRUImpl::forward(const Tensor& input, Tensor hx) {
  const int64_t max_batch_size = options.batch_first() ? size_at(input, 0) : size_at(input, 1);
  return forward_helper(input, {}, {}, max_batch_size, std::move(hx));
}

std::tuple<PackedSequence, Tensor> GRUImpl::forward_with_packed_input(const PackedSequence& packed_input,
                                                                      Tensor hx) {
  const Tensor& batch_sizes = packed_input.batch_sizes();
  const int64_t max_batch_size = batch_sizes[0].item<int64_t>();
  auto [output, hidden] = forward_helper(packed_input.data(), batch_sizes, packed_input.sorted_indices(),
                                         max_batch_size, std::move(hx));
  return std::make_tuple(
      PackedSequence(output, batch_sizes, packed_input.sorted_indices(), packed_input.unsorted_indices()),
      permute_hidden(hidden, packed_input.unsorted_indices()));
}

}  // namespace ember::nn
