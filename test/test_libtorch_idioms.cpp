// The small libtorch spellings that PyTorch's own C++ API tests lean on: Tensor::get_device,
// data<T>, reset, the elementwise max/min overloads, free shape functions, printing of
// devices, dtypes, scalars and layouts, TensorOptions from a device type, libtorch 1.13's
// warning-handler form, and ember::Error's what_without_backtrace.
#include <ember/ember.h>

#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

namespace {
template <class T>
std::string printed(const T& value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

struct Messages13 : WarningHandler {
  std::vector<std::string> seen;
  void process(const SourceLocation& where, const std::string& msg, bool verbatim) override {
    CHECK_FALSE(verbatim);
    CHECK(std::string(where.file).empty());
    seen.push_back(msg);
  }
};
}  // namespace

TEST_CASE("libtorch idioms: get_device, data<T>, reset and unsafeGetTensorImpl") {
  Tensor a = tensor({1.0f, 5.0f, 3.0f});
  CHECK(a.get_device() == -1);
  CHECK(a.data<float>() == a.data_ptr<float>());
  CHECK(a.data<float>()[1] == 5.0f);
  CHECK(a.unsafeGetTensorImpl() == a.unsafe_impl());
  Tensor b = a;
  b.reset();
  CHECK_FALSE(b.defined());
  CHECK(a.defined());
  CHECK(a.use_count() == 1);
}

TEST_CASE("libtorch idioms: max(a, b) and min(a, b) are elementwise, as maximum and minimum") {
  const Tensor a = tensor({1.0f, 5.0f, NAN});
  const Tensor b = tensor({4.0f, 2.0f, 3.0f});
  const std::vector<double> hi = dvalues(max(a, b)), lo = dvalues(a.min(b));
  CHECK(hi[0] == 4);
  CHECK(hi[1] == 5);
  CHECK(std::isnan(hi[2]));  // NaN propagates, as maximum
  CHECK(lo[0] == 1);
  CHECK(lo[1] == 2);
  CHECK(dvalues(a.max(b).slice(0, 0, 2)) == std::vector<double>{4, 5});
  CHECK(dvalues(min(b, tensor({3.0f}))) == std::vector<double>{3, 2, 3});  // broadcasts
  CHECK_THROWS_AS(max(a, tensor({1.0f, 2.0f})), InvalidArgument);
}

TEST_CASE("libtorch idioms: free forms of the shape methods") {
  const Tensor x = arange(6).reshape({2, 1, 3});
  CHECK(squeeze(x, 1).sizes() == IntArrayRef({2, 3}));
  CHECK(squeeze(x).sizes() == IntArrayRef({2, 3}));
  CHECK(unsqueeze(x, 0).sizes() == IntArrayRef({1, 2, 1, 3}));
  CHECK(reshape(x, {3, 2}).sizes() == IntArrayRef({3, 2}));
  CHECK(flatten(x).sizes() == IntArrayRef({6}));
  CHECK(permute(x, {2, 0, 1}).sizes() == IntArrayRef({3, 2, 1}));
  CHECK(dvalues(narrow(flatten(x), 0, 2, 3)) == std::vector<double>{2, 3, 4});
  CHECK(dvalues(select(x, 0, 1)) == std::vector<double>{3, 4, 5});
  CHECK(dvalues(slice(flatten(x), 0, 1, 6, 2)) == std::vector<double>{1, 3, 5});
  CHECK(is_nonzero(tensor({2.0})));
  CHECK(is_same_size(x, zeros({2, 1, 3})));
  CHECK_FALSE(detach(x.to(kFloat).requires_grad_(true)).requires_grad());
  CHECK_THROWS_AS(squeeze(x, 3), InvalidArgument);
}

TEST_CASE("libtorch idioms: devices, dtypes, scalars and layouts print as libtorch's") {
  CHECK(printed(Device(kCPU)) == "cpu");
  CHECK(printed(Device("cuda:1")) == "cuda:1");
  CHECK(printed(kCUDA) == "cuda");
  CHECK(printed(kFloat) == "Float");
  CHECK(printed(kInt64) == "Long");
  CHECK(printed(kBFloat16) == "BFloat16");
  CHECK(printed(Scalar(3)) == "3");
  CHECK(printed(Scalar(1.5)) == "1.5");
  CHECK(printed(Scalar(true)) == "true");
  CHECK(printed(kStrided) == "Strided");
  CHECK(Device(kCPU).type() == Device::Type::CPU);
}

TEST_CASE("libtorch idioms: TensorOptions from a device type, and its default device") {
  CHECK(zeros({2}, kCPU).device() == Device(kCPU));
  CHECK(TensorOptions().device().index() == -1);
  CHECK(TensorOptions().device_index() == -1);
  CHECK(TensorOptions(Device("cpu:0")).device_index() == 0);
  const Tensor x = ones({2}, kDouble);
  CHECK(x.to(kCPU).is_same(x));  // already there: the same tensor
  ember_test::expect_throw<InvalidArgument>([&] { x.to(TensorOptions().requires_grad(true)); },
                                            "Operators taking TensorOptions cannot take a TensorOptions with "
                                            "options.requires_grad set as true. This "
                                            "isn't implemented yet.");
}

TEST_CASE("libtorch idioms: libtorch 1.13's warning handler form and Warning's static accessors") {
  Messages13 messages;
  WarningHandler* before = Warning::get_warning_handler();
  Warning::set_warning_handler(&messages);
  CHECK(get_warning_handler() == &messages);
  EMBER_WARN("first ", 1);
  {
    Warning::WarnAlways always;
    CHECK(WarningUtils::get_warnAlways());
  }
  Warning::set_warning_handler(before);
  EMBER_WARN("not captured");
  CHECK(messages.seen == std::vector<std::string>{"first 1"});
}

TEST_CASE("libtorch idioms: Error::what_without_backtrace is the message") {
  try {
    zeros({2}).view({3});
    FAIL("view did not throw");
  } catch (const Error& e) {
    CHECK(std::string(e.what_without_backtrace()) == e.what());
    CHECK(std::string(e.msg()) == e.what());
  }
}
