// AdaptiveLogSoftmaxWithLoss in libtorch 1.13's steps and texts. Each row's log-probability
// is its head log-probability (of its class, or of its cluster's token) plus, for tail
// classes, the log-probability within the cluster; built from ordinary ops (index_select,
// gather, index_copy), so autograd and every device come with them.
#include "ember/nn/adaptive.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "core/check.h"
#include "ember/nn/functional.h"
#include "ember/nn/sequential.h"
#include "ember/ops.h"
#include "tensor/tensor_factory.h"

namespace ember::nn {

using indexing::Slice;

AdaptiveLogSoftmaxWithLossImpl::AdaptiveLogSoftmaxWithLossImpl(AdaptiveLogSoftmaxWithLossOptions options_)
    : options(std::move(options_)) {
  reset();
}

void AdaptiveLogSoftmaxWithLossImpl::reset() {
  const std::vector<int64_t>& c = options.cutoffs();
  const bool valid = !c.empty() && std::is_sorted(c.begin(), c.end()) && c.front() > 0 &&
                     c.back() <= options.n_classes() - 1 && std::set<int64_t>(c.begin(), c.end()).size() == c.size();
  EMBER_CHECK_ARG(valid,
                  "cutoffs should be a sequence of unique, positive integers sorted in an increasing order, where "
                  "each value is between 1 and n_classes-1");
  EMBER_CHECK_ARG(options.div_value() != 0, "div_value should not be equal to 0");
  EMBER_CHECK_ARG(options.in_features() > 0, "AdaptiveLogSoftmaxWithLoss: in_features must be positive, got {}",
                  options.in_features());
  cutoffs = c;
  cutoffs.push_back(options.n_classes());
  shortlist_size = cutoffs[0];
  n_clusters = int64_t(cutoffs.size()) - 1;
  head_size = shortlist_size + n_clusters;
  head = register_module("head", Linear(LinearOptions(options.in_features(), head_size).bias(options.head_bias())));
  tail = register_module("tail", ModuleList());
  for (int64_t i = 0; i < n_clusters; ++i) {
    const auto hidden =
        static_cast<int64_t>(std::floor(double(options.in_features()) / std::pow(options.div_value(), double(i + 1))));
    const int64_t classes = cutoffs[size_t(i + 1)] - cutoffs[size_t(i)];
    tail->push_back(Sequential(Linear(LinearOptions(options.in_features(), hidden).bias(false)),
                               Linear(LinearOptions(hidden, classes).bias(false))));
  }
}

void AdaptiveLogSoftmaxWithLossImpl::reset_parameters() {
  head->reset_parameters();
  for (size_t i = 0; i < tail->size(); ++i)
    for (const auto& layer : tail->ptr(i)->children()) layer->as<LinearImpl>()->reset_parameters();
}

void AdaptiveLogSoftmaxWithLossImpl::pretty_print(std::ostream& stream) const {
  stream << module_namespace() << "AdaptiveLogSoftmaxWithLoss";
}

ASMoutput AdaptiveLogSoftmaxWithLossImpl::forward(const Tensor& input_, const Tensor& target_) {
  EMBER_CHECK_ARG(input_.defined() && target_.defined(),
                  "AdaptiveLogSoftmaxWithLoss: input and target must be defined tensors");
  const int64_t target_dim = target_.dim();
  EMBER_CHECK_ARG(target_dim == 1 || target_dim == 0, "0D or 1D target tensor expected, multi-target not supported");
  if (target_dim == 1)
    EMBER_CHECK_ARG(input_.dim() == 2, "1D target tensor expects 2D input tensors, but found inputs with sizes {}.",
                    ember::detail::shape_str(input_.sizes()));
  else
    EMBER_CHECK_ARG(input_.dim() == 1, "0D target tensor expects 1D input tensors, but found inputs with sizes {}.",
                    ember::detail::shape_str(input_.sizes()));
  EMBER_CHECK_ARG(input_.size(-1) == options.in_features(),
                  "AdaptiveLogSoftmaxWithLoss: input has {} features, expected in_features = {}", input_.size(-1),
                  options.in_features());
  EMBER_CHECK_ARG(target_.dtype() == kLong, "AdaptiveLogSoftmaxWithLoss: expected an int64 (Long) target, got {}",
                  ember::name(target_.dtype()));
  const bool batched = target_dim > 0;
  const Tensor input = batched ? input_ : input_.unsqueeze(0);
  const Tensor target = batched ? target_ : target_.unsqueeze(0);
  const int64_t batch_size = target.size(0);
  EMBER_CHECK_ARG(input.size(0) == batch_size,
                  "AdaptiveLogSoftmaxWithLoss: input and target should have the same size in the first dimension, "
                  "got {} and {}",
                  input.size(0), batch_size);

  Tensor output = zeros({batch_size}, input.options());
  // The head column each row reads: its own class in the shortlist, else its cluster's token.
  Tensor gather_inds = empty({batch_size}, target.options());
  int64_t used_rows = 0;
  for (size_t i = 0; i < cutoffs.size(); ++i) {
    const int64_t low = i == 0 ? 0 : cutoffs[i - 1], high = cutoffs[i];
    const Tensor target_mask = logical_and(target >= low, target < high);
    const Tensor rows = target_mask.nonzero().view({-1});
    if (rows.numel() == 0) continue;
    if (i == 0) {
      gather_inds.index_copy_(0, rows, target.index({target_mask}));
    } else {
      const Tensor relative_target = target.index({target_mask}) - low;
      const Tensor cluster_output = tail->ptr<SequentialImpl>(i - 1)->forward(input.index_select(0, rows));
      gather_inds.index_fill_(0, rows, shortlist_size + int64_t(i) - 1);
      const Tensor local_logprob =
          functional::log_softmax(cluster_output, 1).gather(1, relative_target.unsqueeze(1)).squeeze(1);
      output = output.index_copy(0, rows, local_logprob);
    }
    used_rows += rows.numel();
  }
  if (used_rows != batch_size)
    EMBER_THROW(InvalidArgument,
                "Target values should be in [0, {}], but values in range [{}, {}] were found. ", options.n_classes() - 1,
                target.min().item<double>(), target.max().item<double>());
  const Tensor head_logprob = functional::log_softmax(head(input), 1);
  output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze(1);
  const double loss = (-output).mean().item<double>();
  if (!batched) output = output.squeeze(0);
  return ASMoutput(output, loss);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::_get_full_log_prob(const Tensor& input, const Tensor& head_output) {
  const Tensor head_logprob = functional::log_softmax(head_output, 1);
  std::vector<Tensor> parts{head_logprob.index({Slice(), Slice(0, shortlist_size)})};
  for (int64_t i = 0; i < n_clusters; ++i) {
    const Tensor cluster_logprob = functional::log_softmax(tail->ptr<SequentialImpl>(size_t(i))->forward(input), 1);
    parts.push_back(cluster_logprob + head_logprob.select(1, shortlist_size + i).unsqueeze(1));
  }
  return cat(parts, 1);
}

Tensor AdaptiveLogSoftmaxWithLossImpl::log_prob(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined() && input.dim() == 2 && input.size(1) == options.in_features(),
                  "AdaptiveLogSoftmaxWithLoss: expected input of shape (N, {}), got {}", options.in_features(),
                  input.defined() ? ember::detail::shape_str(input.sizes()) : std::string("an undefined tensor"));
  return _get_full_log_prob(input, head(input));
}

Tensor AdaptiveLogSoftmaxWithLossImpl::predict(const Tensor& input) {
  EMBER_CHECK_ARG(input.defined() && input.dim() == 2 && input.size(1) == options.in_features(),
                  "AdaptiveLogSoftmaxWithLoss: expected input of shape (N, {}), got {}", options.in_features(),
                  input.defined() ? ember::detail::shape_str(input.sizes()) : std::string("an undefined tensor"));
  const Tensor head_output = head(input);
  Tensor output = head_output.argmax(1);
  const Tensor not_in_shortlist = output >= shortlist_size;
  if (!not_in_shortlist.any().item<bool>()) return output;
  if (not_in_shortlist.all().item<bool>()) return _get_full_log_prob(input, head_output).argmax(1);
  const Tensor log_prob =
      _get_full_log_prob(input.index({not_in_shortlist}), head_output.index({not_in_shortlist}));
  output.index_put_({not_in_shortlist}, log_prob.argmax(1));
  return output;
}

}  // namespace ember::nn
