// Spatial transformers and AdaptiveLogSoftmaxWithLoss against libtorch 1.13 on the same
// values: grid_sampler in every mode, padding mode and align_corners (2-D and 3-D, float64
// and float32, grids reaching outside the input), affine_grid, a spatial transformer end to
// end, their gradients and error texts; AdaptiveLogSoftmaxWithLoss built after the same seed
// (same parameters), its outputs, loss, log_prob, predict, gradients and printing.
// libtorch first: its glog CHECK is then replaced by Catch's.
#include <ember/ember.h>
#include <torch/torch.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "torch_crosscheck_util.h"

namespace {

using crosscheck::as_torch;
using crosscheck::check_close;
using crosscheck::printed;
using crosscheck::same_error;
using crosscheck::same_forward_backward;
namespace EF = ember::nn::functional;
namespace TF = torch::nn::functional;
using EInputs = std::vector<ember::Tensor>;
using TInputs = std::vector<torch::Tensor>;
using Sizes = std::vector<int64_t>;

// Uniform in [lo, hi), float64 or float32, requiring grad.
ember::Tensor leaf(Sizes sizes, ember::ScalarType dt, double lo = -1, double hi = 1) {
  return (ember::rand(sizes, ember::kDouble) * (hi - lo) + lo).to(dt).requires_grad_();
}

const char* const kModes[] = {"bilinear", "nearest", "bicubic"};
const char* const kPaddings[] = {"zeros", "border", "reflection"};

}  // namespace

TEST_CASE("libtorch vision: grid_sampler values and gradients in every mode") {
  ember::manual_seed(crosscheck::fresh_seed());
  for (ember::ScalarType dt : {ember::kDouble, ember::kFloat}) {
    const double tol = dt == ember::kDouble ? 1e-10 : 2e-5;
    for (int64_t spatial : {2, 3})
      for (int64_t mode = 0; mode < (spatial == 2 ? 3 : 2); ++mode)
        for (int64_t padding = 0; padding < 3; ++padding)
          for (bool align : {false, true}) {
            const std::string what = std::to_string(spatial) + "-D " + kModes[mode] + " " + kPaddings[padding] +
                                     (align ? " align_corners" : "") + (dt == ember::kDouble ? "" : " float32");
            const Sizes in = spatial == 2 ? Sizes{2, 3, 5, 4} : Sizes{2, 2, 3, 4, 5};
            const Sizes at = spatial == 2 ? Sizes{2, 4, 3, 2} : Sizes{2, 2, 3, 2, 3};
            // The grid reaches 1.5 past the borders: every padding rule is exercised.
            same_forward_backward(
                what, {leaf(in, dt), leaf(at, dt, -1.5, 1.5)},
                [&](const EInputs& v) { return ember::grid_sampler(v[0], v[1], mode, padding, align); },
                [&](const TInputs& v) { return torch::grid_sampler(v[0], v[1], mode, padding, align); }, tol);
          }
  }
}

TEST_CASE("libtorch vision: affine_grid and a spatial transformer") {
  ember::manual_seed(crosscheck::fresh_seed());
  for (bool align : {false, true}) {
    same_forward_backward(
        "affine_grid 2-D", {leaf({3, 2, 3}, ember::kDouble)},
        [&](const EInputs& v) { return EF::affine_grid(v[0], {3, 2, 4, 5}, align); },
        [&](const TInputs& v) { return TF::affine_grid(v[0], {3, 2, 4, 5}, align); }, 1e-12);
    same_forward_backward(
        "affine_grid 3-D", {leaf({2, 3, 4}, ember::kDouble)},
        [&](const EInputs& v) { return EF::affine_grid(v[0], {2, 1, 3, 2, 4}, align); },
        [&](const TInputs& v) { return TF::affine_grid(v[0], {2, 1, 3, 2, 4}, align); }, 1e-12);
    same_forward_backward(
        "spatial transformer", {leaf({2, 2, 3}, ember::kFloat), leaf({2, 3, 6, 6}, ember::kFloat)},
        [&](const EInputs& v) {
          return EF::grid_sample(v[1], EF::affine_grid(v[0], {2, 3, 5, 4}, align),
                                 EF::GridSampleFuncOptions().padding_mode(ember::kReflection).align_corners(align));
        },
        [&](const TInputs& v) {
          return TF::grid_sample(v[1], TF::affine_grid(v[0], {2, 3, 5, 4}, align),
                                 TF::GridSampleFuncOptions().padding_mode(torch::kReflection).align_corners(align));
        },
        2e-5);
  }
}

TEST_CASE("libtorch vision: error texts") {
  const ember::Tensor x = ember::randn({1, 2, 3, 4}), g = ember::rand({1, 2, 2, 2});
  const torch::Tensor tx = as_torch(x), tg = as_torch(g);
  same_error([&] { ember::grid_sampler(x, g.view({1, 2, 2, 1, 2}), 0, 0, false); },
             [&] { torch::grid_sampler(tx, tg.view({1, 2, 2, 1, 2}), 0, 0, false); });
  same_error([&] { ember::grid_sampler(x, g.expand({3, 2, 2, 2}), 0, 0, false); },
             [&] { torch::grid_sampler(tx, tg.expand({3, 2, 2, 2}), 0, 0, false); });
  same_error([&] { ember::grid_sampler(x, ember::zeros({1, 2, 2, 3}), 0, 0, false); },
             [&] { torch::grid_sampler(tx, torch::zeros({1, 2, 2, 3}), 0, 0, false); });
  same_error([&] { ember::grid_sampler(ember::zeros({1, 2, 3, 0}), g, 0, 0, false); },
             [&] { torch::grid_sampler(torch::zeros({1, 2, 3, 0}), tg, 0, 0, false); });
  same_error([&] { ember::grid_sampler(ember::zeros({1, 2, 3, 4, 5}), ember::zeros({1, 1, 1, 1, 3}), 2, 0, false); },
             [&] { torch::grid_sampler(torch::zeros({1, 2, 3, 4, 5}), torch::zeros({1, 1, 1, 1, 3}), 2, 0, false); });
  same_error([&] { ember::grid_sampler(x, g.to(ember::kDouble), 0, 0, false); },
             [&] { torch::grid_sampler(tx, tg.to(torch::kDouble), 0, 0, false); });
  const ember::Tensor theta = ember::zeros({1, 2, 3});
  const torch::Tensor ttheta = torch::zeros({1, 2, 3});
  same_error([&] { EF::affine_grid(theta.to(ember::kLong), {1, 1, 2, 2}); },
             [&] { TF::affine_grid(ttheta.to(torch::kLong), {1, 1, 2, 2}); });
  same_error([&] { EF::affine_grid(theta, {1, 1, 2, 2, 2}); }, [&] { TF::affine_grid(ttheta, {1, 1, 2, 2, 2}); });
  same_error([&] { EF::affine_grid(theta, {1, 1, 2}); }, [&] { TF::affine_grid(ttheta, {1, 1, 2}); });
  same_error([&] { EF::affine_grid(theta, {1, 0, 2, 2}); }, [&] { TF::affine_grid(ttheta, {1, 0, 2, 2}); });
  same_error([&] { EF::affine_grid(ember::zeros({2, 2, 3}), {1, 1, 2, 2}); },
             [&] { TF::affine_grid(torch::zeros({2, 2, 3}), {1, 1, 2, 2}); });
}

TEST_CASE("libtorch vision: AdaptiveLogSoftmaxWithLoss after the same seed") {
  const uint64_t seed = crosscheck::fresh_seed();
  ember::manual_seed(seed);
  ember::nn::AdaptiveLogSoftmaxWithLoss ours(
      ember::nn::AdaptiveLogSoftmaxWithLossOptions(8, 12, {3, 7, 10}).div_value(2.).head_bias(true));
  torch::manual_seed(seed);
  torch::nn::AdaptiveLogSoftmaxWithLoss theirs(
      torch::nn::AdaptiveLogSoftmaxWithLossOptions(8, 12, {3, 7, 10}).div_value(2.).head_bias(true));
  CHECK(printed(ours) == printed(theirs));
  const auto ep = ours->named_parameters();
  const auto tp = theirs->named_parameters();
  REQUIRE(ep.size() == tp.size());
  for (size_t i = 0; i < ep.size(); ++i) {
    CHECK(ep[i].key() == tp[i].key());
    check_close(ep[i].value(), tp[i].value(), 0, "parameter " + ep[i].key());
  }
  const ember::Tensor x = ember::randn({9, 8});
  const ember::Tensor y = ember::tensor({0L, 11L, 3L, 7L, 2L, 9L, 10L, 5L, 1L});
  const torch::Tensor tx = as_torch(x), ty = as_torch(y);
  const ember::nn::ASMoutput out = ours(x, y);
  const torch::nn::ASMoutput tout = theirs(tx, ty);
  check_close(out.output, tout.output, 1e-5, "output");
  CHECK(out.loss == Approx(tout.loss).epsilon(1e-5));
  check_close(ours->log_prob(x), theirs->log_prob(tx), 1e-5, "log_prob");
  check_close(ours->predict(x), theirs->predict(tx), 0, "predict");
  (-out.output).mean().backward();
  (-tout.output).mean().backward();
  for (size_t i = 0; i < ep.size(); ++i) check_close(ep[i].value().grad(), tp[i].value().grad(), 1e-5, "grad " + ep[i].key());
  // One unbatched row.
  check_close(ours(x[1], y[1]).output, theirs(tx[1], ty[1]).output, 1e-5, "unbatched output");
  same_error([&] { ours(x, y + 20); }, [&] { theirs(tx, ty + 20); });
  same_error([&] { ours(x, y.view({3, 3})); }, [&] { theirs(tx, ty.view({3, 3})); });
  same_error([&] { ours(x[0], y); }, [&] { theirs(tx[0], ty); });
  same_error([&] { ours(x, y[0]); }, [&] { theirs(tx, ty[0]); });
  same_error([&] { ember::nn::AdaptiveLogSoftmaxWithLoss(8, 12, std::vector<int64_t>{3, 3}); },
             [&] { torch::nn::AdaptiveLogSoftmaxWithLoss(8, 12, std::vector<int64_t>{3, 3}); });
}
