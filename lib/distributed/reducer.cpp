// Reducer and DistributedDataParallel: gradient averaging in buckets that overlaps backward
// (Note [Process groups]). A parameter's post-accumulate hook copies its gradient into its
// bucket; the bucket's async all-reduce starts once its last gradient is in and every earlier
// bucket has started (all ranks must issue the same sequence); the engine's final callback
// completes the buckets of parameters that got no gradient, waits, and writes the averages back.
#include "core/check.h"
#include "ember/autograd.h"
#include "ember/distributed.h"
#include "ember/ops.h"
#include "placement/device_streams.h"

namespace ember::distributed {

struct Reducer::State {
  struct Bucket {
    std::vector<size_t> params;
    std::vector<int64_t> offsets;  // of each parameter in flat
    Tensor flat;
    void* stream = nullptr;        // launches from the stream current when the pass began
    size_t pending = 0;            // gradients still to arrive in this pass
    std::shared_ptr<Work> work;
  };
  ProcessGroup* group = nullptr;
  std::vector<Tensor> params;
  std::vector<Bucket> buckets;
  std::vector<size_t> bucket_of, slot_of;  // per parameter
  std::vector<char> ready;                 // per parameter, this pass
  std::vector<unsigned> hooks;
  size_t next_bucket = 0;
  bool in_pass = false;
  bool sync = true;

  Tensor slot(size_t i) {
    const Bucket& b = buckets[bucket_of[i]];
    return b.flat.narrow(0, b.offsets[slot_of[i]], params[i].numel());
  }

  void begin_pass(const std::weak_ptr<State>& self) {
    for (Bucket& b : buckets) {
      if (b.work) b.work->wait();  // a pass that threw before its end left these running
      b.work = nullptr;
      b.pending = b.params.size();
      b.stream = ember::detail::current_stream_of(b.flat.device());
    }
    std::fill(ready.begin(), ready.end(), 0);
    next_bucket = 0;
    in_pass = true;
    autograd::queue_callback([self] {
      if (auto s = self.lock()) s->finish_pass();
    });
  }

  void mark_ready(size_t i, const Tensor* grad) {
    if (ready[i]) return;
    ready[i] = 1;
    Tensor dst = slot(i);
    if (grad) dst.copy_(grad->reshape({-1}));
    else dst.zero_();
    Bucket& b = buckets[bucket_of[i]];
    // Each gradient's hook runs on its AccumulateGrad's stream (Note [Backward streams]): the
    // bucket's launch stream waits for every stream that copied into it.
    ember::detail::stream_wait(b.flat.device(), b.stream, ember::detail::current_stream_of(b.flat.device()));
    if (--b.pending == 0) launch_ready();
  }

  void launch_ready() {
    while (next_bucket < buckets.size() && buckets[next_bucket].pending == 0) {
      Bucket& b = buckets[next_bucket++];
      ember::detail::StreamScope on_launch_stream(b.flat.device(), b.stream);
      b.work = group->all_reduce(b.flat, ReduceOp::AVG, /*async=*/true);
    }
  }

  void on_grad(const std::weak_ptr<State>& self, size_t i) {
    if (!sync) return;
    NoGradGuard no_grad;
    if (!in_pass) begin_pass(self);
    const Tensor& g = params[i].grad();
    mark_ready(i, g.defined() ? &g : nullptr);
  }

  void finish_pass() {
    NoGradGuard no_grad;
    in_pass = false;
    // Parameters without a gradient in this pass contribute zeros, so their buckets complete.
    for (size_t i = 0; i < params.size(); ++i)
      if (!ready[i]) mark_ready(i, nullptr);
    for (Bucket& b : buckets) {
      std::shared_ptr<Work> w = std::move(b.work);
      w->wait();
      for (size_t k = 0; k < b.params.size(); ++k) {
        Tensor& p = params[b.params[k]];
        Tensor avg = b.flat.narrow(0, b.offsets[k], p.numel()).view(p.sizes());
        Tensor& g = p.mutable_grad();
        if (g.defined()) g.copy_(avg);
        else g = avg.clone();
      }
    }
  }
};

Reducer::Reducer(std::vector<Tensor> parameters, ProcessGroup& group, double bucket_cap_mb)
    : state_(std::make_shared<State>()) {
  EMBER_CHECK_ARG(bucket_cap_mb > 0, "Reducer: bucket_cap_mb must be positive, got {}", bucket_cap_mb);
  (void)group.size();  // throws for a destroyed group
  State& s = *state_;
  s.group = &group;
  for (size_t i = 0; i < parameters.size(); ++i) {
    const Tensor& p = parameters[i];
    EMBER_CHECK_ARG(p.defined(), "Reducer: parameter {} is an undefined tensor", i);
    EMBER_CHECK_ARG(p.requires_grad() && p.grad_fn() == nullptr,
                    "Reducer: parameter {} must be a leaf tensor that requires grad", i);
    for (size_t j = 0; j < i; ++j)
      EMBER_CHECK_ARG(!parameters[j].is_same(p), "Reducer: parameter {} is the same tensor as parameter {}", i, j);
  }
  s.params = std::move(parameters);
  const size_t n = s.params.size();
  s.bucket_of.resize(n);
  s.slot_of.resize(n);
  s.ready.assign(n, 0);
  // Reverse registration order approximates the order in which backward produces gradients.
  const double cap = bucket_cap_mb * 1024 * 1024;
  std::vector<int64_t> numel;
  for (size_t r = n; r-- > 0;) {
    const Tensor& p = s.params[r];
    State::Bucket* b = s.buckets.empty() ? nullptr : &s.buckets.back();
    const Tensor& first = b ? s.params[b->params.front()] : p;
    const double bytes = b ? double(numel.back() + p.numel()) * double(p.element_size()) : 0;
    if (!b || first.dtype() != p.dtype() || first.device() != p.device() || bytes > cap) {
      s.buckets.emplace_back();
      numel.push_back(0);
      b = &s.buckets.back();
    }
    s.bucket_of[r] = s.buckets.size() - 1;
    s.slot_of[r] = b->params.size();
    b->params.push_back(r);
    b->offsets.push_back(numel.back());
    numel.back() += p.numel();
  }
  for (size_t k = 0; k < s.buckets.size(); ++k) {
    const Tensor& p = s.params[s.buckets[k].params.front()];
    s.buckets[k].flat = zeros({numel[k]}, p.options());
  }
  std::weak_ptr<State> weak = state_;
  for (size_t i = 0; i < n; ++i)
    s.hooks.push_back(s.params[i].register_post_accumulate_grad_hook([weak, i](const Tensor&) {
      if (auto st = weak.lock()) st->on_grad(weak, i);
    }));
}

Reducer::~Reducer() {
  State& s = *state_;
  for (size_t i = 0; i < s.params.size(); ++i) s.params[i].remove_hook(s.hooks[i]);
  for (State::Bucket& b : s.buckets)
    if (b.work) {
      try {
        b.work->wait();
      } catch (...) {  // a destructor must not throw; the pass that launched it reports its errors
      }
    }
}

void Reducer::set_require_grad_sync(bool on) { state_->sync = on; }
bool Reducer::require_grad_sync() const { return state_->sync; }

std::vector<std::vector<size_t>> Reducer::bucket_indices() const {
  std::vector<std::vector<size_t>> out;
  for (const State::Bucket& b : state_->buckets) out.push_back(b.params);
  return out;
}

DistributedDataParallel::DistributedDataParallel(std::vector<Tensor> parameters, ProcessGroup& group,
                                                 double bucket_cap_mb)
    : parameters_(std::move(parameters)), group_(&group) {
  reducer_ = std::make_unique<Reducer>(parameters_, group, bucket_cap_mb);
  broadcast_from_rank0({});
}

DistributedDataParallel::DistributedDataParallel(std::shared_ptr<nn::Module> module, ProcessGroup& group,
                                                 double bucket_cap_mb)
    : module_(std::move(module)), group_(&group) {
  EMBER_CHECK_ARG(module_ != nullptr, "DistributedDataParallel: the module is null");
  parameters_ = module_->parameters();
  reducer_ = std::make_unique<Reducer>(parameters_, group, bucket_cap_mb);
  broadcast_from_rank0(module_->buffers());
}

// Every rank starts from rank 0's parameters and buffers.
void DistributedDataParallel::broadcast_from_rank0(const std::vector<Tensor>& buffers) {
  NoGradGuard no_grad;  // broadcast writes into leaves that require grad
  std::vector<std::shared_ptr<Work>> works;
  for (Tensor& p : parameters_) works.push_back(group_->broadcast(p, 0, /*async=*/true));
  for (Tensor b : buffers) works.push_back(group_->broadcast(b, 0, /*async=*/true));
  for (auto& w : works) w->wait();
}

Tensor DistributedDataParallel::forward(const Tensor& input) {
  EMBER_CHECK_ARG(forward_ != nullptr,
                  "DistributedDataParallel::forward: {}", module_ ? "the module has no forward(const Tensor&) returning a Tensor; call it directly"
                                                                  : "built from a parameter list, there is no module to call");
  return forward_(input);
}

}  // namespace ember::distributed
