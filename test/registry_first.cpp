// Its own executable: a user kernel registered before the process's first op must not
// be replaced when the built-in kernels register (which happens at the first op).
#include <catch2/catch.hpp>

#include <cmath>
#include <ember/ember.h>
#include <ember/registry.h>

using namespace ember;

namespace {
int g_user_atan2_calls = 0;
void user_atan2(const ElementwiseArgs& a) {
  ++g_user_atan2_calls;
  float* out = reinterpret_cast<float*>(a.data[0]);
  const float* x = reinterpret_cast<const float*>(a.data[1]);
  const float* y = reinterpret_cast<const float*>(a.data[2]);
  for (int64_t i = 0; i < a.numel; ++i) out[i] = std::atan2(x[i * a.strides[1][0]], y[i * a.strides[2][0]]);
}
}  // namespace

TEST_CASE("registry: a kernel registered before the first op is not replaced by the built-ins") {
  register_kernel(Op::Atan2, kCPU, user_atan2, DtypeSet{kFloat});
  Tensor r = atan2(ones({4}), ones({4}));
  CHECK(g_user_atan2_calls == 1);
  CHECK(r.index({0}).item<float>() == Approx(0.7853982f));
  CHECK(has_kernel(Op::Atan2, kCPU, kFloat));
  CHECK(!has_kernel(Op::Atan2, kCPU, kDouble));
}

