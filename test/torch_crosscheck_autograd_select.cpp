// Cross-checks the selection ops' gradients against libtorch: sort, topk, scatter (src
// and value), scatter_add, advanced indexing, index_put_, masked_select and masked_fill, from the same float64
// inputs and output weights; gradients and grad_fn names must agree.
// (REQUIRE, not CHECK: the torch headers redefine CHECK as glog's.)
#include <catch2/catch.hpp>
#include <ember/ember.h>
#include <torch/torch.h>

#include <functional>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;

void same(const ember::Tensor& e, const torch::Tensor& t) {
  REQUIRE(e.defined() == t.defined());
  REQUIRE(e.sizes().vec() == t.sizes().vec());
  ember::Tensor ed = e.to(ember::kDouble).contiguous();
  torch::Tensor td = t.to(torch::kDouble).contiguous();
  for (int64_t i = 0; i < ed.numel(); ++i) {
    INFO("element " << i);
    REQUIRE(std::abs(ed.data_ptr<double>()[i] - td.data_ptr<double>()[i]) <= 1e-12);
  }
}

// f on each side from the same inputs; then the grads of sum(f * w) and the node names.
void check(const std::string& what, std::vector<ember::Tensor> inputs,
           const std::function<ember::Tensor(std::vector<ember::Tensor>&)>& fe,
           const std::function<torch::Tensor(std::vector<torch::Tensor>&)>& ft) {
  INFO(what);
  std::vector<torch::Tensor> tin;
  for (ember::Tensor& x : inputs) {
    x = x.detach().clone().requires_grad_();  // fresh leaves: no gradient from an earlier check
    tin.push_back(as_torch(x.detach()).requires_grad_());
  }
  ember::Tensor ye = fe(inputs);
  torch::Tensor yt = ft(tin);
  same(ye.detach(), yt.detach());
  REQUIRE(std::string(ye.grad_fn()->name()) == yt.grad_fn()->name());
  ember::Tensor w = ember::rand(ye.sizes().vec(), ember::kDouble);
  (ye * w).sum().backward();
  (yt * as_torch(w)).sum().backward();
  for (size_t i = 0; i < inputs.size(); ++i) same(inputs[i].grad(), tin[i].grad());
}

ember::Tensor ri(std::vector<int64_t> v, std::vector<int64_t> shape) {
  return ember::tensor(v, ember::kInt64).reshape(shape);
}

}  // namespace

TEST_CASE("autograd select crosscheck: sort, scatter, scatter_add gradients match libtorch's") {
  ember::manual_seed(11);
  ember::Tensor x = ember::rand({4, 5}, ember::kDouble), src = ember::rand({2, 5}, ember::kDouble);
  ember::Tensor idx = ri({3, 0, 1, 1, 2, 0, 2, 3, 0, 1}, {2, 5});
  torch::Tensor tidx = as_torch(idx);
  check("sort", {x}, [](auto& v) { return std::get<0>(ember::sort(v[0], 1, true)); },
        [](auto& v) { return std::get<0>(torch::sort(v[0], 1, true)); });
  check("scatter src", {x, src}, [&](auto& v) { return ember::scatter(v[0], 0, idx, v[1]); },
        [&](auto& v) { return torch::scatter(v[0], 0, tidx, v[1]); });
  check("scatter value", {x}, [&](auto& v) { return ember::scatter(v[0], 0, idx, 2.5); },
        [&](auto& v) { return torch::scatter(v[0], 0, tidx, 2.5); });
  check("scatter_add", {x, src}, [&](auto& v) { return ember::scatter_add(v[0], 0, idx, v[1]); },
        [&](auto& v) { return torch::scatter_add(v[0], 0, tidx, v[1]); });
}

TEST_CASE("autograd select crosscheck: index and index_put_ gradients match libtorch's") {
  using ember::indexing::Slice;
  namespace ti = torch::indexing;
  ember::manual_seed(12);
  ember::Tensor x = ember::rand({4, 3}, ember::kDouble), val = ember::rand({3}, ember::kDouble);
  ember::Tensor rows = ri({3, 0, 3}, {3}), cols = ri({2, -1, 0}, {3});
  torch::Tensor trows = as_torch(rows), tcols = as_torch(cols);
  check("index rows", {x}, [&](auto& v) { return v[0].index({rows}); }, [&](auto& v) { return v[0].index({trows}); });
  check("index rows, cols", {x}, [&](auto& v) { return v[0].index({rows, cols}); },
        [&](auto& v) { return v[0].index({trows, tcols}); });
  check("index slice, cols", {x}, [&](auto& v) { return v[0].index({Slice(1, 3), cols}); },
        [&](auto& v) { return v[0].index({ti::Slice(1, 3), tcols}); });
  ember::Tensor prow = ri({1, 3}, {2});
  torch::Tensor tprow = as_torch(prow);
  for (bool acc : {false, true})
    check(acc ? "index_put_ accumulate" : "index_put_", {x, val},
          [&](auto& v) { return v[0].clone().index_put_({prow}, v[1], acc); },
          [&](auto& v) { return v[0].clone().index_put_({tprow}, v[1], acc); });
}

TEST_CASE("autograd select crosscheck: masked_select and masked_fill gradients match libtorch's") {
  ember::manual_seed(13);
  ember::Tensor x = ember::rand({3, 4}, ember::kDouble), row = ember::rand({4}, ember::kDouble);
  ember::Tensor value = ember::tensor({0.75}, ember::kDouble).reshape({});
  ember::Tensor mask = ember::rand({3, 4}) > 0.5, row_mask = ember::rand({4}) > 0.4;
  torch::Tensor tmask = as_torch(mask), trow_mask = as_torch(row_mask);
  check("masked_select", {x}, [&](auto& v) { return ember::masked_select(v[0], mask); },
        [&](auto& v) { return torch::masked_select(v[0], tmask); });
  check("masked_select, self broadcast", {row}, [&](auto& v) { return ember::masked_select(v[0], mask); },
        [&](auto& v) { return torch::masked_select(v[0], tmask); });
  check("masked_fill scalar", {x}, [&](auto& v) { return v[0].masked_fill(row_mask, 2.5); },
        [&](auto& v) { return v[0].masked_fill(trow_mask, 2.5); });
  check("masked_fill tensor value", {x, value}, [&](auto& v) { return v[0].masked_fill(mask, v[1]); },
        [&](auto& v) { return v[0].masked_fill(tmask, v[1]); });
  check("masked_fill_", {x, value}, [&](auto& v) { return (v[0] * 2).masked_fill_(mask, v[1]); },
        [&](auto& v) { return (v[0] * 2).masked_fill_(tmask, v[1]); });
}
