// tensor(...) literals, ArrayRef, the default dtype and libtorch's dtype spellings.
#include <catch2/catch.hpp>

#include <array>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ember;
using ember_test::dvalues;

namespace {
// Restores the default dtype when a test changes it.
struct DefaultDtypeGuard {
  ScalarType saved = get_default_dtype();
  ~DefaultDtypeGuard() { set_default_dtype(saved); }
};
}  // namespace

TEST_CASE("creation: tensor(scalar) is 0-dim with libtorch's dtype") {
  Tensor i = tensor(123);
  CHECK(i.dim() == 0);
  CHECK(i.dtype() == kLong);
  CHECK(i.item<int64_t>() == 123);
  Tensor f = tensor(1.5);
  CHECK(f.dim() == 0);
  CHECK(f.dtype() == kFloat);
  CHECK(f.item<double>() == 1.5);
  CHECK(tensor(2.5f).dtype() == kFloat);
  Tensor b = tensor(true);
  CHECK(b.dtype() == kBool);
  CHECK(b.item<bool>());
  CHECK(tensor(int16_t(7)).dtype() == kShort);
  CHECK(tensor(uint8_t(7)).dtype() == kByte);
  CHECK(tensor(Half(1.5f)).dtype() == kHalf);
  // with a dtype, options or a device
  CHECK(tensor(3, kDouble).dtype() == kDouble);
  CHECK(tensor(3, kDouble).item<double>() == 3.0);
  CHECK(tensor(2.75, TensorOptions().dtype(kInt)).item<int64_t>() == 2);
  Tensor d = tensor(4, Device("cpu:0"));
  CHECK(d.device() == Device("cpu:0"));
  CHECK(d.dtype() == kLong);
}

TEST_CASE("creation: nested lists give N-d tensors") {
  Tensor t = tensor({{1, 2}, {3, 4}});
  CHECK(t.sizes() == std::vector<int64_t>{2, 2});
  CHECK(t.dtype() == kLong);
  CHECK(dvalues(t) == std::vector<double>{1, 2, 3, 4});
  Tensor u = tensor({{{1.5, 2.5}}, {{3.5, -4.5}}, {{5.0, 6.0}}}, kDouble);
  CHECK(u.sizes() == std::vector<int64_t>{3, 1, 2});
  CHECK(u.dtype() == kDouble);
  CHECK(dvalues(u) == std::vector<double>{1.5, 2.5, 3.5, -4.5, 5, 6});
  Tensor f = tensor({{1.5f, 2.f}, {3.f, 4.f}}, TensorOptions().dtype(kHalf));
  CHECK(f.dtype() == kHalf);
  CHECK(dvalues(f) == std::vector<double>{1.5, 2, 3, 4});
  Tensor b = tensor({{true, false}, {false, true}});
  CHECK(b.dtype() == kBool);
  CHECK(dvalues(b) == std::vector<double>{1, 0, 0, 1});
  CHECK(tensor({{1, 2}}, Device("cpu:0")).device() == Device("cpu:0"));
  // a 1-D braced list keeps working as before; an empty one has the default dtype
  CHECK(tensor({1, 2, 3}).sizes() == std::vector<int64_t>{3});
  Tensor e = tensor({});
  CHECK(e.sizes() == std::vector<int64_t>{0});
  CHECK(e.dtype() == kFloat);
}

TEST_CASE("creation: scalar and nested literals log as constants") {
  std::vector<std::string> lines;
  set_placement_log_sink([&](const std::string& l) { lines.push_back(l); });
  set_log_device_placement(true);
  Tensor a = tensor(5), b = tensor({{1.5, 2.5}});
  set_log_device_placement(false);
  set_placement_log_sink(nullptr);
  const std::string line = "Executing op _EagerConst in device /job:localhost/replica:0/task:0/device:CPU:0";
  CHECK(lines == std::vector<std::string>{line, line});
}

TEST_CASE("creation: ragged and mixed lists are rejected") {
  CHECK_THROWS_MATCHES(tensor({{1, 2}, {3}}), InvalidArgument,
                       Catch::Message("tensor: Expected all sub-lists to have sizes: 2 (e.g. {1, 2}), but got sub-list "
                                      "{3} with sizes: 1"));
  CHECK_THROWS_MATCHES(tensor({{{1, 2}, {3, 4}}, {{1, 2}}}), InvalidArgument,
                       Catch::Message("tensor: Expected all sub-lists to have sizes: 2 2 (e.g. {{1, 2}, {3, 4}}), but "
                                      "got sub-list {{1, 2}} with sizes: 1 2"));
  CHECK_THROWS_MATCHES(tensor({{{1, 2}, {3, 4}}, {{1, 2}, {3}}}), InvalidArgument,
                       Catch::Message("tensor: Expected all sub-lists to have sizes: 2 (e.g. {1, 2}), but got sub-list "
                                      "{3} with sizes: 1"));
  CHECK_THROWS_MATCHES(tensor({{1, 2}, {3.5, 4.0}}), InvalidArgument,
                       Catch::Message("tensor: Expected all elements of the tensor to have the same scalar type: "
                                      "Int, but got element of scalar type: Double"));
  // int and long are different source types in libtorch's lists, though both give int64.
  CHECK_THROWS_MATCHES(tensor({int64_t(1), int64_t(2)}).add(tensor({1, 2L})), InvalidArgument,
                       Catch::Message("tensor: Expected all elements of the tensor to have the same scalar type: "
                                      "Int, but got element of scalar type: Long"));
  CHECK(tensor({1, 2}).dtype() == kLong);
  CHECK(tensor(7).dtype() == kLong);
  CHECK(tensor({int64_t(1), int64_t(2)}).dtype() == kLong);
}

TEST_CASE("creation: tensor from std::vector and ArrayRef") {
  std::vector<int> vi{5, -6, 7};
  Tensor a = tensor(vi);
  CHECK(a.dtype() == kLong);
  CHECK(dvalues(a) == std::vector<double>{5, -6, 7});
  std::vector<double> vd{0.5, 1.25};
  CHECK(tensor(vd).dtype() == kFloat);
  CHECK(tensor(vd, kDouble).dtype() == kDouble);
  CHECK(dvalues(tensor(ArrayRef<double>(vd))) == std::vector<double>{0.5, 1.25});
  std::vector<bool> vb{true, false, true};
  CHECK(dvalues(tensor(vb)) == std::vector<double>{1, 0, 1});
  float raw[] = {1.f, 2.f, 3.f, 4.f};
  Tensor r = tensor(ArrayRef<float>(raw, 4), TensorOptions(kFloat).device(Device("cpu:0")));
  CHECK(dvalues(r) == std::vector<double>{1, 2, 3, 4});
}

TEST_CASE("creation: ArrayRef views vectors, lists, arrays and single values") {
  std::vector<int64_t> v{1, 2, 3, 4};
  ArrayRef<int64_t> a = v;
  CHECK(a.size() == 4);
  CHECK(a.data() == v.data());
  CHECK(a[2] == 3);
  CHECK(a.front() == 1);
  CHECK(a.back() == 4);
  CHECK(a.vec() == v);
  CHECK(a.slice(1, 2) == std::vector<int64_t>{2, 3});
  CHECK(a.slice(3) == std::vector<int64_t>{4});
  CHECK(a.equals(IntArrayRef({1, 2, 3, 4})));
  CHECK_THROWS_AS(a.slice(3, 2), InvalidArgument);
  CHECK_THROWS_AS(a.at(4), InvalidArgument);
  std::array<int, 3> arr{7, 8, 9};
  ArrayRef<int> b = arr;
  int sum = 0;
  for (int x : b) sum += x;
  CHECK(sum == 24);
  const double one = 2.5;
  ArrayRef<double> c = one;
  CHECK(c.size() == 1);
  CHECK(c[0] == 2.5);
  // IntArrayRef is ArrayRef<int64_t>, with its documented conversions intact
  static_assert(std::is_same_v<IntArrayRef, ArrayRef<int64_t>>);
  Tensor t = zeros({2, 3});
  CHECK(t.sizes() == std::vector<int64_t>{2, 3});
  CHECK(t.sum(1).sizes() == std::vector<int64_t>{2});
  CHECK(operator==(t.sizes(), {2, 3}));
}

TEST_CASE("creation: the default dtype drives float factories and literals") {
  DefaultDtypeGuard guard;
  CHECK(get_default_dtype() == kFloat);
  set_default_dtype(kDouble);
  CHECK(get_default_dtype() == kDouble);
  CHECK(tensor(1.5).dtype() == kDouble);
  CHECK(tensor({1.5f}).dtype() == kDouble);
  CHECK(tensor({{1.5, 2.0}}).dtype() == kDouble);
  CHECK(tensor(1).dtype() == kLong);
  CHECK(zeros({2}).dtype() == kDouble);
  CHECK(rand({2}).dtype() == kDouble);
  CHECK(full({2}, 3.5).dtype() == kDouble);
  CHECK(arange(3.5).dtype() == kDouble);
  CHECK(linspace(0, 1, 3).dtype() == kDouble);
  CHECK((tensor({1, 2}) / 2).dtype() == kDouble);
  CHECK((tensor({1, 2}) + 2.5).dtype() == kDouble);
  CHECK(scalar_tensor(1).dtype() == kDouble);
  set_default_dtype(kBFloat16);
  CHECK(ones({1}).dtype() == kBFloat16);
}

TEST_CASE("creation: an integral default dtype, as libtorch's C++ set_default_dtype allows") {
  // The values libtorch 1.13 gives after c10::set_default_dtype(TypeMeta::Make<int>()).
  DefaultDtypeGuard guard;
  set_default_dtype(kInt);
  CHECK(get_default_dtype() == kInt);
  CHECK(ones({2}).dtype() == kInt);
  CHECK(TensorOptions().dtype() == kInt);
  const Tensor literal = tensor(1.5);
  CHECK((literal.dtype() == kInt && literal.item<int>() == 1));
  CHECK(dvalues(tensor({1.5, 2.5})) == std::vector<double>{1, 2});
  CHECK(tensor({1.5, 2.5}).dtype() == kInt);
  CHECK(dvalues(arange(3.5)) == std::vector<double>{0, 1, 2, 3});
  CHECK(arange(3.5).dtype() == kInt);
  CHECK(dvalues(full({2}, 3.5)) == std::vector<double>{3, 3});
  CHECK(dvalues(linspace(0, 1, 3)) == std::vector<double>{0, 0, 1});
  CHECK(scalar_tensor(1.5).dtype() == kInt);
  CHECK_THROWS_AS(rand({2}), InvalidArgument);  // floating factories refuse it
  CHECK(dvalues(tensor({4, 5}).to(kFloat).mean()) == std::vector<double>{4.5});
  set_default_dtype(kDouble);
  CHECK(ones({1}).dtype() == kDouble);
}

TEST_CASE("creation: libtorch's dtype spellings") {
  static_assert(kLong == kInt64 && kInt == kInt32 && kShort == kInt16 && kChar == kInt8 && kByte == kUInt8);
  static_assert(kFloat16 == kHalf && kFloat32 == kFloat && kFloat64 == kDouble);
  CHECK(zeros({2}, kLong).dtype() == ScalarType::Int64);
  CHECK(zeros({2}, kByte).element_size() == 1);
  CHECK(zeros({2}, kShort).element_size() == 2);
}

TEST_CASE("creation: a zero-element shape whose strides overflow int64 is refused", "[creation]") {
  CHECK_THROWS_WITH(ember::empty({0, 1, 4294967295, 4294967295}),
                    "tensor sizes [0, 1, 4294967295, 4294967295] give strides beyond int64");
  CHECK(ember::empty({0, 4294967295}).numel() == 0);  // the outermost stride is never multiplied
}

TEST_CASE("creation: TensorDataContainer's accessors and printing, as libtorch's") {
  using detail::TensorDataContainer;
  auto text = [](const TensorDataContainer& c) {
    std::ostringstream os;
    os << c;
    return os.str();
  };
  CHECK(text(TensorDataContainer(1.1)) == "1.1");
  CHECK(text(TensorDataContainer({1.1, 2.2})) == "{1.1, 2.2}");
  CHECK(text(TensorDataContainer({{1, 2}, {3, 4}})) == "{{1, 2}, {3, 4}}");
  CHECK(text(TensorDataContainer({{{{1}}}})) == "{{{{1}}}}");
  CHECK(text(TensorDataContainer({{{{}}}})) == "{{{{}}}}");
  CHECK(text(TensorDataContainer(std::vector<double>{1.1, 2.2})) == "{1.1, 2.2}");
  CHECK(text(TensorDataContainer(ArrayRef<double>({1.1, 2.2}))) == "{1.1, 2.2}");
  CHECK(text(TensorDataContainer({true, false})) == "{1, 0}");  // libtorch streams bools as numbers
  CHECK_THROWS_MATCHES(tensor({{true, false}, {true}}), InvalidArgument,
                       Catch::Message("tensor: Expected all sub-lists to have sizes: 2 (e.g. {1, 0}), but got sub-list "
                                      "{1} with sizes: 1"));

  const TensorDataContainer scalar(7), list({{1, 2}, {3, 4}}), array(std::vector<float>{0.5f, 1.5f});
  CHECK(scalar.is_scalar());
  CHECK(scalar.scalar().to<int64_t>() == 7);
  CHECK(TensorDataContainer(2.5).scalar().to<double>() == 2.5);
  CHECK(TensorDataContainer(true).scalar().to<bool>());
  CHECK(list.is_init_list());
  const std::vector<TensorDataContainer> rows = list.init_list();
  REQUIRE(rows.size() == 2);
  CHECK(text(rows[1]) == "{3, 4}");
  CHECK(rows[1].init_list()[0].scalar().to<int64_t>() == 3);
  CHECK(array.is_tensor());
  CHECK(array.tensor().dtype() == kFloat);
  CHECK(dvalues(array.tensor()) == std::vector<double>{0.5, 1.5});
  CHECK_THROWS_MATCHES(scalar.init_list(), InvalidArgument,
                       Catch::Message("Can only call `init_list()` on a TensorDataContainer that has `is_init_list() == "
                                      "true`"));
  CHECK_THROWS_MATCHES(scalar.tensor(), InvalidArgument,
                       Catch::Message("Can only call `tensor()` on a TensorDataContainer that has `is_tensor() == true`"));
  CHECK_THROWS_MATCHES(list.scalar(), InvalidArgument,
                       Catch::Message("Can only call `scalar()` on a TensorDataContainer that has `is_scalar() == true`"));
  CHECK_THROWS_MATCHES(array.init_list(), InvalidArgument,
                       Catch::Message("Can only call `init_list()` on a TensorDataContainer that has `is_init_list() == "
                                      "true`"));
}

