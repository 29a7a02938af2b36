// Memory formats (ember/memory_format.h): channels-last strides, is_contiguous(format) and
// suggest_memory_format as libtorch's (ambiguous cases included), contiguous / clone /
// empty in a format, and the layers and elementwise ops keeping a channels-last input's
// layout with the values and gradients of the row-major computation.

#include <ember/ember.h>
#include <ember/nn.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::check_close;

namespace {

std::vector<int64_t> strides_of(const Tensor& t) { return t.strides().vec(); }

}  // namespace

TEST_CASE("memory format: channels-last strides, checks and suggestions as libtorch's") {
  const Tensor x = arange(120, kFloat).view({2, 3, 4, 5});
  const Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
  CHECK(strides_of(cl) == std::vector<int64_t>{60, 1, 15, 3});
  CHECK(equal(cl, x));
  CHECK(cl.is_contiguous(MemoryFormat::ChannelsLast));
  CHECK_FALSE(cl.is_contiguous());
  CHECK_FALSE(x.is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(cl.suggest_memory_format() == MemoryFormat::ChannelsLast);
  CHECK(x.suggest_memory_format() == MemoryFormat::Contiguous);
  CHECK(cl.contiguous(MemoryFormat::ChannelsLast).is_same(cl));  // already dense: itself
  CHECK(cl.contiguous().is_contiguous());
  CHECK(equal(cl.contiguous(), x));
  // NHWC permuted back is channels-last too.
  CHECK(x.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}).is_contiguous(MemoryFormat::ChannelsLast));
  // Ambiguous layouts stay Contiguous: one channel, and N x 1 x 1 x 1.
  const Tensor one_channel = randn({2, 1, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  CHECK(one_channel.is_contiguous());
  CHECK(one_channel.suggest_memory_format() == MemoryFormat::Contiguous);
  CHECK(randn({3, 1, 1, 1}).suggest_memory_format() == MemoryFormat::Contiguous);
  // 5-D: ChannelsLast3d.
  const Tensor v = randn({2, 3, 4, 5, 6}).contiguous(MemoryFormat::ChannelsLast3d);
  CHECK(strides_of(v) == std::vector<int64_t>{360, 1, 90, 18, 3});
  CHECK(v.suggest_memory_format() == MemoryFormat::ChannelsLast3d);
  CHECK(v.is_contiguous(MemoryFormat::ChannelsLast3d));
  CHECK_FALSE(v.is_contiguous(MemoryFormat::ChannelsLast));
  // empty and clone in a format; clone() keeps channels-last (Preserve).
  CHECK(empty({2, 3, 4, 5}, TensorOptions(kFloat), MemoryFormat::ChannelsLast)
            .is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(cl.clone().is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(cl.clone(MemoryFormat::Contiguous).is_contiguous());
  std::ostringstream s;
  s << MemoryFormat::ChannelsLast << " " << MemoryFormat::Contiguous;
  CHECK(s.str() == "ChannelsLast Contiguous");
  // libtorch's errors.
  CHECK_THROWS_WITH(randn({3, 4}).contiguous(MemoryFormat::ChannelsLast),
                    "required rank 4 tensor to use channels_last format");
  CHECK_THROWS_WITH(randn({3, 4, 5, 6}).contiguous(MemoryFormat::ChannelsLast3d),
                    "required rank 5 tensor to use channels_last_3d format");
  CHECK_THROWS_WITH(x.contiguous(MemoryFormat::Preserve),
                    "preserve memory format is unsupported by the contiguous operator");
}

TEST_CASE("memory format: elementwise ops keep a channels-last input's layout") {
  const Tensor x = randn({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast);
  CHECK(relu(x).is_contiguous(MemoryFormat::ChannelsLast));
  CHECK((x + 1).is_contiguous(MemoryFormat::ChannelsLast));
  CHECK((x * randn({1, 3, 1, 1})).is_contiguous(MemoryFormat::ChannelsLast));
  // The first operand of the result's shape decides, as libtorch's.
  CHECK((randn({2, 3, 4, 5}) + x).is_contiguous());
  check_close(relu(x), relu(x.contiguous()), 1e-5, "relu values");
}

TEST_CASE("memory format: CNN layers keep channels-last, with the row-major values and gradients") {
  manual_seed(31);
  const Tensor x0 = randn({4, 8, 12, 10});
  nn::Conv2d conv(nn::Conv2dOptions(8, 6, 3).padding(1).stride({2, 1}));
  nn::BatchNorm2d bn(6);
  for (bool onednn : {true, false}) {
    set_onednn_enabled(onednn);
    INFO((onednn ? "oneDNN" : "portable") << " convolution");
    auto run = [&](MemoryFormat format) {
      Tensor x = x0.contiguous(format).detach().requires_grad_();
      Tensor c = conv->forward(x);
      Tensor b = bn->forward(c);
      Tensor p = max_pool2d(relu(b), 2);
      Tensor a = adaptive_avg_pool2d(p, {2, 3});
      Tensor q = avg_pool2d(c, 2);
      (a.sum() + q.sum() * 0.5).backward();
      return std::vector<Tensor>{c, b, p, a, q, x.grad(), conv->weight.grad().clone()};
    };
    conv->zero_grad();
    const auto want = run(MemoryFormat::Contiguous);
    conv->zero_grad();
    const auto got = run(MemoryFormat::ChannelsLast);
    const char* names[] = {"conv2d",     "batch_norm",     "max_pool2d",     "adaptive_avg_pool2d",
                           "avg_pool2d", "input gradient", "weight gradient"};
    for (size_t k = 0; k < want.size(); ++k) {
      INFO(names[k]);
      check_close(got[k], want[k], 1e-5, names[k]);
      if (k < 5) CHECK(got[k].is_contiguous(MemoryFormat::ChannelsLast));  // the layer outputs
    }
    auto [v, i] = max_pool2d_with_indices(x0.contiguous(MemoryFormat::ChannelsLast), 2);
    CHECK(i.is_contiguous(MemoryFormat::ChannelsLast));
    CHECK(equal(i, std::get<1>(max_pool2d_with_indices(x0, 2))));
  }
  set_onednn_enabled(true);
}
