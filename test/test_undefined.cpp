// An undefined Tensor (default-constructed): every accessor and every op that receives
// one throws InvalidArgument naming the call; printing says "[ Tensor (undefined) ]".
#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <functional>
#include <sstream>

using namespace ember;
using Catch::Contains;

TEST_CASE("undefined: accessors throw InvalidArgument naming the accessor") {
  const Tensor u;
  CHECK(!u.defined());
  CHECK(u.unsafe_impl() == nullptr);
  CHECK_THROWS_WITH(u.sizes(), "sizes() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.strides(), "strides() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.size(0), "size() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.stride(-1), "stride() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.dim(), "dim() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.ndimension(), "dim() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.numel(), "numel() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.nbytes(), "nbytes() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.element_size(), "element_size() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.storage_offset(), "storage_offset() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.dtype(), "dtype() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.scalar_type(), "scalar_type() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.device(), "device() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.is_cpu(), "is_cpu() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.is_cuda(), "is_cuda() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.is_floating_point(), "is_floating_point() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.options(), "options() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.is_contiguous(), "is_contiguous() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.storage(), "storage() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.data_ptr(), "data_ptr() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.data_ptr<float>(), "data_ptr() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.item(), "item() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.item<float>(), "item() called on an undefined Tensor");
  CHECK_THROWS_AS(u.sizes(), InvalidArgument);
}

TEST_CASE("undefined: prints and formats as libtorch does") {
  std::ostringstream os;
  os << Tensor();
  CHECK(os.str() == "[ Tensor (undefined) ]");
  CHECK(fmt::format("{}", Tensor()) == "[ Tensor (undefined) ]");
}

TEST_CASE("undefined: every op that receives one throws InvalidArgument and changes nothing") {
  const Tensor u;
  Tensor x = tensor({1.0f, 2.0f, 3.0f});
  const std::vector<std::pair<const char*, std::function<void()>>> calls = {
      {"add", [&] { (void)add(u, x); }},
      {"add rhs", [&] { (void)add(x, u); }},
      {"add scalar", [&] { (void)add(u, 1); }},
      {"add_", [&] { x.add_(u); }},
      {"mul_out", [&] { Tensor out; (void)mul_out(out, x, x); }},
      {"sub", [&] { (void)(x - u); }},
      {"div", [&] { (void)(u / 2); }},
      {"pow", [&] { (void)pow(2, u); }},
      {"eq", [&] { (void)(x == u); }},
      {"exp", [&] { (void)exp(u); }},
      {"neg", [&] { (void)(-u); }},
      {"clamp", [&] { (void)clamp(u, 0, 1); }},
      {"where", [&] { (void)where(x > 1, u, x); }},
      {"lerp", [&] { (void)lerp(x, u, 0.5); }},
      {"addcmul", [&] { (void)addcmul(x, x, u); }},
      {"sum", [&] { (void)u.sum(); }},
      {"sum dim", [&] { (void)u.sum(0); }},
      {"max dim", [&] { (void)u.max(0); }},
      {"softmax", [&] { (void)u.softmax(0); }},
      {"matmul", [&] { (void)matmul(u, x); }},
      {"matmul rhs", [&] { (void)matmul(x, u); }},
      {"dot", [&] { (void)dot(x, u); }},
      {"cat", [&] { (void)cat({x, u}); }},
      {"stack", [&] { (void)stack({x, u}); }},
      {"view", [&] { (void)u.view({3}); }},
      {"reshape", [&] { (void)u.reshape({3}); }},
      {"transpose", [&] { (void)u.transpose(0, 1); }},
      {"permute", [&] { (void)u.permute({0}); }},
      {"narrow", [&] { (void)u.narrow(0, 0, 1); }},
      {"select", [&] { (void)u.select(0, 0); }},
      {"index", [&] { (void)u.index({0}); }},
      {"expand", [&] { (void)u.expand({3}); }},
      {"squeeze", [&] { (void)u.squeeze(); }},
      {"unsqueeze", [&] { (void)u.unsqueeze(0); }},
      {"flatten", [&] { (void)u.flatten(); }},
      {"split", [&] { (void)u.split(1); }},
      {"to dtype", [&] { (void)u.to(kDouble); }},
      {"to device", [&] { (void)u.to(Device("cpu:0")); }},
      {"contiguous", [&] { (void)u.contiguous(); }},
      {"clone", [&] { (void)u.clone(); }},
      {"copy_ from", [&] { x.copy_(u); }},
      {"copy_ into", [&] { Tensor v; v.copy_(x); }},
      {"fill_", [&] { Tensor v; v.fill_(1); }},
      {"zeros_like", [&] { (void)zeros_like(u); }},
      {"allclose", [&] { (void)allclose(u, x); }},
      {"equal", [&] { (void)equal(x, u); }},
  };
  for (const auto& [what, call] : calls) {
    INFO(what);
    CHECK_THROWS_AS(call(), InvalidArgument);
  }
  CHECK(x.equal(tensor({1.0f, 2.0f, 3.0f})));
}
