// Reductions and along-one-dim ops (API.md section 4) against float64 references
// computed by hand loops, on fresh random inputs: strided views, broadcast inputs,
// zero-size dims, 0-d tensors, every dtype family, and every error by type and message.

#include <catch2/catch.hpp>
#include <ember/ember.h>

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

using Catch::Contains;
using ember::Tensor;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

uint64_t fresh_seed() {
  std::random_device rd;
  const uint64_t seed = (uint64_t(rd()) << 32) | rd();
  ember::manual_seed(seed);
  return seed;
}

std::vector<double> to_vec(const Tensor& t) {
  Tensor c = t.to(ember::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

std::vector<int64_t> shape_of(const Tensor& t) { return t.sizes().vec(); }

struct Ref {
  std::vector<int64_t> shape;
  std::vector<double> v;
};

using SliceFn = std::function<double(const std::vector<double>&)>;

// Reduces `dims` (empty: all) of x by f over each slice, the slice in row-major order.
Ref ref_reduce(const Tensor& x, std::vector<int64_t> dims, bool keepdim, const SliceFn& f) {
  const int64_t nd = x.dim();
  const std::vector<int64_t> sizes = shape_of(x);
  std::vector<bool> red(size_t(std::max<int64_t>(nd, 1)), dims.empty());
  for (int64_t d : dims) red[size_t(d < 0 ? d + std::max<int64_t>(nd, 1) : d)] = true;
  Ref r;
  int64_t nout = 1;
  for (int64_t d = 0; d < nd; ++d) {
    if (!red[size_t(d)]) {
      r.shape.push_back(sizes[size_t(d)]);
      nout *= sizes[size_t(d)];
    } else if (keepdim) {
      r.shape.push_back(1);
    }
  }
  const std::vector<double> vals = to_vec(x);
  std::vector<std::vector<double>> slices(static_cast<size_t>(nout));
  for (int64_t i = 0; i < int64_t(vals.size()); ++i) {
    int64_t rem = i, o = 0, scale = 1;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t id = rem % sizes[size_t(d)];
      rem /= sizes[size_t(d)];
      if (!red[size_t(d)]) {
        o += id * scale;
        scale *= sizes[size_t(d)];
      }
    }
    slices[size_t(o)].push_back(vals[size_t(i)]);
  }
  for (auto& s : slices) r.v.push_back(f(s));
  return r;
}

void check_close(const Tensor& got, const Ref& ref, double rtol, double atol = 1e-12) {
  REQUIRE(shape_of(got) == ref.shape);
  const std::vector<double> g = to_vec(got);
  REQUIRE(g.size() == ref.v.size());
  int64_t bad = 0, first = -1;
  for (size_t i = 0; i < g.size(); ++i) {
    const double a = g[i], b = ref.v[i];
    const bool ok = (std::isnan(a) && std::isnan(b)) || a == b || std::abs(a - b) <= atol + rtol * std::abs(b);
    if (!ok && bad++ == 0) first = int64_t(i);
  }
  INFO("first mismatch at " << first << ": got " << (first >= 0 ? g[size_t(first)] : 0.0) << ", expected "
                            << (first >= 0 ? ref.v[size_t(first)] : 0.0));
  CHECK(bad == 0);
}

// reference slice functions
double r_abs_sum(const std::vector<double>& s) {
  double t = 0;
  for (double v : s) t += std::abs(v);
  return t;
}
// The largest sum of magnitudes over the slices that `dims` reduces.
double max_abs_sum(const Tensor& x, const std::vector<int64_t>& dims) {
  double m = 0;
  for (double v : ref_reduce(x, dims, false, r_abs_sum).v) m = std::max(m, v);
  return m;
}
double r_sum(const std::vector<double>& s) {
  double t = 0;
  for (double v : s) t += v;
  return t;
}
double r_mean(const std::vector<double>& s) { return r_sum(s) / double(s.size()); }
double r_prod(const std::vector<double>& s) {
  double t = 1;
  for (double v : s) t *= v;
  return t;
}
template <bool kMax>
int64_t r_argext(const std::vector<double>& s) {
  int64_t best = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (std::isnan(s[size_t(best)])) break;
    if (std::isnan(s[i]) || (kMax ? s[i] > s[size_t(best)] : s[i] < s[size_t(best)])) best = int64_t(i);
  }
  return best;
}
double r_max(const std::vector<double>& s) { return s[size_t(r_argext<true>(s))]; }
double r_min(const std::vector<double>& s) { return s[size_t(r_argext<false>(s))]; }
double r_var(const std::vector<double>& s, double correction) {
  const double m = r_mean(s);
  double t = 0;
  for (double v : s) t += (v - m) * (v - m);
  return t / std::max(0.0, double(s.size()) - correction);
}
double r_norm(const std::vector<double>& s, double p) {
  double t = 0;
  if (std::isinf(p)) {
    t = p > 0 ? 0 : kInf;
    for (double v : s) t = p > 0 ? std::max(t, std::abs(v)) : std::min(t, std::abs(v));
    return t;
  }
  for (double v : s) t += p == 0 ? (v != 0) : std::pow(std::abs(v), p);
  return p == 0 ? t : std::pow(t, 1 / p);
}
double r_lse(const std::vector<double>& s) {
  double m = -kInf;
  for (double v : s) m = std::max(m, v);
  if (std::isinf(m)) return m;
  double t = 0;
  for (double v : s) t += std::exp(v - m);
  return m + std::log(t);
}

// The same [3, 4, 5] values seen through different layouts.
std::vector<std::pair<std::string, Tensor>> layouts(ember::ScalarType dtype) {
  auto r = [&](std::vector<int64_t> s) { return ember::randn(s, ember::kDouble).to(dtype); };
  return {
      {"contiguous", r({3, 4, 5})},
      {"transposed", r({5, 4, 3}).transpose(0, 2)},
      {"permuted", r({4, 5, 3}).permute({2, 0, 1})},
      {"sliced", r({6, 4, 10}).slice(0, 0, 6, 2).slice(2, 1, 6)},
      {"expanded", r({3, 1, 5}).expand({3, 4, 5})},
  };
}

const std::vector<std::vector<int64_t>> kDimSets = {{}, {0}, {1}, {2}, {-1}, {0, 2}, {-1, 0}, {2, 1, 0}};

std::string dims_str(const std::vector<int64_t>& dims) {
  std::string s = "{";
  for (int64_t d : dims) s += std::to_string(d) + ",";
  return s + "}";
}

}  // namespace

TEST_CASE("reduce: sum, mean, amax, amin, logsumexp, norm, var, std over dim lists") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (auto dtype : {ember::kFloat, ember::kDouble}) {
    const double rtol = dtype == ember::kFloat ? 2e-6 : 1e-12;
    for (auto& [layout, x] : layouts(dtype)) {
      const Tensor before = x.clone();
      for (const auto& dims : kDimSets) {
        for (bool keepdim : {false, true}) {
          INFO(layout << " " << ember::name(dtype) << " dims " << dims_str(dims) << " keepdim " << keepdim);
          // Float32 sums may add a few elements in float first (kernel_args.h): their bound
          // is relative to the slice's sum of magnitudes, which the absolute part covers.
          const double mag = dtype == ember::kFloat ? 5e-7 * max_abs_sum(x, dims) : 1e-12;
          check_close(ember::sum(x, dims, keepdim), ref_reduce(x, dims, keepdim, r_sum), rtol, mag);
          const double count =
              double(x.numel()) / double(std::max<size_t>(1, ref_reduce(x, dims, false, r_sum).v.size()));
          check_close(x.mean(dims, keepdim), ref_reduce(x, dims, keepdim, r_mean), rtol,
                      mag / std::max(1.0, count));
          check_close(x.amax(dims, keepdim), ref_reduce(x, dims, keepdim, r_max), 0);
          check_close(ember::amin(x, dims, keepdim), ref_reduce(x, dims, keepdim, r_min), 0);
          check_close(x.logsumexp(dims, keepdim), ref_reduce(x, dims, keepdim, r_lse), rtol);
          for (double p : {0.0, 1.0, 2.0, 3.5, -1.5, kInf, -kInf}) {
            INFO("p " << p);
            check_close(x.norm(p, dims, keepdim),
                        ref_reduce(x, dims, keepdim, [p](const auto& s) { return r_norm(s, p); }), rtol * 4);
          }
          for (bool unbiased : {true, false}) {
            const double c = unbiased ? 1 : 0;
            check_close(x.var(dims, unbiased, keepdim),
                        ref_reduce(x, dims, keepdim, [c](const auto& s) { return r_var(s, c); }), rtol * 4);
            check_close(ember::std(x, dims, unbiased, keepdim),
                        ref_reduce(x, dims, keepdim, [c](const auto& s) { return std::sqrt(r_var(s, c)); }),
                        rtol * 4);
          }
        }
      }
      // Whole-tensor forms.
      check_close(x.sum(), ref_reduce(x, {}, false, r_sum), rtol);
      check_close(x.mean(), ref_reduce(x, {}, false, r_mean), rtol);
      check_close(x.max(), ref_reduce(x, {}, false, r_max), 0);
      check_close(ember::min(x), ref_reduce(x, {}, false, r_min), 0);
      check_close(x.var(), ref_reduce(x, {}, false, [](const auto& s) { return r_var(s, 1); }), rtol * 4);
      check_close(x.std(false), ref_reduce(x, {}, false, [](const auto& s) { return std::sqrt(r_var(s, 0)); }),
                  rtol * 4);
      check_close(x.var(1), ref_reduce(x, {1}, false, [](const auto& s) { return r_var(s, 1); }), rtol * 4);
      check_close(x.std(-1, false, true),
                  ref_reduce(x, {-1}, true, [](const auto& s) { return std::sqrt(r_var(s, 0)); }), rtol * 4);
      check_close(x.norm(), ref_reduce(x, {}, false, [](const auto& s) { return r_norm(s, 2); }), rtol);
      CHECK(x.sum().dtype() == dtype);
      CHECK(x.norm().dtype() == dtype);
      CHECK(ember::equal(x, before));  // inputs untouched
    }
  }
}

TEST_CASE("reduce: prod, max/min with indices, argmax/argmin, all/any along one dim") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (auto dtype : {ember::kFloat, ember::kDouble}) {
    const double rtol = dtype == ember::kFloat ? 2e-6 : 1e-12;
    for (auto& [layout, x] : layouts(dtype)) {
      for (int64_t dim : {0, 1, 2, -1, -3}) {
        for (bool keepdim : {false, true}) {
          INFO(layout << " " << ember::name(dtype) << " dim " << dim << " keepdim " << keepdim);
          check_close(x.prod(dim, keepdim), ref_reduce(x, {dim}, keepdim, r_prod), rtol);
          auto [mv, mi] = x.max(dim, keepdim);
          check_close(mv, ref_reduce(x, {dim}, keepdim, r_max), 0);
          check_close(mi, ref_reduce(x, {dim}, keepdim, [](const auto& s) { return double(r_argext<true>(s)); }), 0);
          CHECK(mi.dtype() == ember::kInt64);
          auto [nv, ni] = ember::min(x, dim, keepdim);
          check_close(nv, ref_reduce(x, {dim}, keepdim, r_min), 0);
          check_close(ni, ref_reduce(x, {dim}, keepdim, [](const auto& s) { return double(r_argext<false>(s)); }), 0);
          check_close(x.argmax(dim, keepdim),
                      ref_reduce(x, {dim}, keepdim, [](const auto& s) { return double(r_argext<true>(s)); }), 0);
          check_close(ember::argmin(x, dim, keepdim),
                      ref_reduce(x, {dim}, keepdim, [](const auto& s) { return double(r_argext<false>(s)); }), 0);
          const Tensor pos = x.gt(0.3);
          auto all_ref = [](const auto& s) {
            for (double v : s) if (v == 0) return 0.0;
            return 1.0;
          };
          auto any_ref = [](const auto& s) {
            for (double v : s) if (v != 0) return 1.0;
            return 0.0;
          };
          check_close(pos.all(dim, keepdim), ref_reduce(pos, {dim}, keepdim, all_ref), 0);
          check_close(ember::any(pos, dim, keepdim), ref_reduce(pos, {dim}, keepdim, any_ref), 0);
          CHECK(x.all(dim).dtype() == ember::kBool);  // any input dtype, bool result
        }
      }
      // argmax without a dim indexes the flattened tensor, as torch.
      check_close(x.argmax(), ref_reduce(x, {}, false, [](const auto& s) { return double(r_argext<true>(s)); }), 0);
      check_close(x.argmin({}, true),
                  ref_reduce(x, {}, true, [](const auto& s) { return double(r_argext<false>(s)); }), 0);
      check_close(x.prod(), ref_reduce(x, {}, false, r_prod), rtol);
    }
  }
}

TEST_CASE("reduce: NaN propagates through max/min and is the extreme for argmax/argmin; ties give the first index") {
  Tensor x = ember::tensor({1.0f, 5.0f, 5.0f, float(kNaN), 7.0f, float(kNaN), -2.0f, -2.0f}).reshape({2, 4});
  CHECK(std::isnan(x.max().item<float>()));
  CHECK(std::isnan(x.min().item<float>()));
  CHECK(x.argmax().item<int64_t>() == 3);
  CHECK(x.argmin().item<int64_t>() == 3);
  auto [v, i] = x.max(1);
  CHECK(std::isnan(v[0].item<float>()));
  CHECK(std::isnan(v[1].item<float>()));
  CHECK(to_vec(i) == std::vector<double>{3, 1});
  Tensor y = ember::tensor({3, 1, 3, 1, 2}, ember::kInt32);
  CHECK(y.argmax().item<int64_t>() == 0);
  CHECK(y.argmin().item<int64_t>() == 1);
  CHECK(std::get<1>(y.max(0)).item<int64_t>() == 0);
  CHECK(y.max().dtype() == ember::kInt32);
  CHECK(y.amin().item<int32_t>() == 1);
  // logsumexp with infinities and NaN
  CHECK(ember::logsumexp(ember::tensor({-kInf, -kInf}), {0}).item<double>() == -kInf);
  CHECK(ember::logsumexp(ember::tensor({kInf, 1.0, kInf}), {0}).item<double>() == kInf);
  CHECK(std::isnan(ember::logsumexp(ember::tensor({1.0, kNaN, -kInf}), {0}).item<double>()));
  CHECK(std::isnan(ember::tensor({1.0, kNaN}).norm(kInf).item<double>()));
  CHECK(std::isnan(ember::tensor({2.0f, float(kNaN)}).sum().item<float>()));
}

TEST_CASE("reduce: var and std with a correction, and libtorch's overload picks") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  const Tensor x = ember::randn({3, 5, 4}, ember::kDouble);
  for (int64_t c : {0, 1, 2, 3, -1}) {
    INFO("correction " << c);
    const auto ref = [c](const auto& s) { return r_var(s, double(c)); };
    check_close(ember::var(x, {1}, std::optional<int64_t>(c)), ref_reduce(x, {1}, false, ref), 1e-12);
    check_close(x.var({0, 2}, std::optional<int64_t>(c), true), ref_reduce(x, {0, 2}, true, ref),
                1e-12);
    check_close(x.std({2}, std::optional<int64_t>(c)),
                ref_reduce(x, {2}, false, [c](const auto& s) { return std::sqrt(r_var(s, double(c))); }),
                1e-12);
  }
  // An empty correction is 1; corrections at or past the count divide by 0, as libtorch.
  check_close(ember::var(x, {1}, std::nullopt),
              ref_reduce(x, {1}, false, [](const auto& s) { return r_var(s, 1); }), 1e-12);
  CHECK(std::isinf(ember::var(x, {0}, std::optional<int64_t>(3)).index({0, 0}).item<double>()));
  CHECK(std::isnan(ember::var(ember::ones({3}), {0}, std::optional<int64_t>(5)).item<double>()));
  // Overloads as libtorch resolves them: a literal 0 is a dim, a bool is unbiased, and an
  // int after a dim list converts to bool (unbiased), not to a correction.
  const Tensor r = ember::arange(12).to(ember::kFloat);
  const Tensor m = (r * r).reshape({3, 4});
  CHECK(to_vec(m.var(0)) == to_vec(m.var({0}, true)));
  CHECK(to_vec(m.std({0})) == to_vec(m.std({0}, true)));
  CHECK(m.var(0).sizes().vec() == std::vector<int64_t>{4});
  CHECK(m.var(true).item<double>() == Approx(1694.3333).epsilon(1e-6));
  CHECK(m.var(false).item<double>() == Approx(1553.1389).epsilon(1e-6));
  CHECK(to_vec(ember::var(m, {1}, 2, true)) == to_vec(ember::var(m, {1}, true, true)));
  CHECK(to_vec(ember::var(m, {1}, std::optional<int64_t>(2), true)) ==
        std::vector<double>{24.5, 304.5, 904.5});
  // Gradients divide by (count - correction).
  Tensor g = ember::tensor({0.0, 1.0, 4.0, 9.0}).requires_grad_();
  ember::var(g, {0}, std::optional<int64_t>(0)).backward();
  CHECK(to_vec(g.grad()) == std::vector<double>{-1.75, -1.25, 0.25, 2.75});
}

TEST_CASE("reduce: integer and bool dtypes") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (auto dtype : {ember::kInt32, ember::kInt64, ember::kInt16, ember::kInt8, ember::kUInt8}) {
    INFO(ember::name(dtype));
    const Tensor x = ember::randint(0, 5, {4, 3, 5}, ember::kInt64).to(dtype).transpose(0, 2);
    const Tensor s = x.sum({0, -1});
    CHECK(s.dtype() == ember::kInt64);
    check_close(s, ref_reduce(x, {0, -1}, false, r_sum), 0);
    check_close(x.sum(), ref_reduce(x, {}, false, r_sum), 0);
    check_close(x.sum(1, true, ember::kDouble), ref_reduce(x, {1}, true, r_sum), 0);
    CHECK(x.sum(1, true, ember::kDouble).dtype() == ember::kDouble);
    CHECK(x.prod(1).dtype() == ember::kInt64);
    check_close(x.prod(1), ref_reduce(x, {1}, false, r_prod), 0);
    check_close(x.amax(1), ref_reduce(x, {1}, false, r_max), 0);
    CHECK(x.amax(1).dtype() == dtype);
    check_close(std::get<1>(x.min(2)),
                ref_reduce(x, {2}, false, [](const auto& v) { return double(r_argext<false>(v)); }), 0);
    CHECK(x.all().dtype() == ember::kBool);
    CHECK(x.any(0).dtype() == ember::kBool);
    check_close(x.any(0), ref_reduce(x, {0}, false, [](const auto& v) {
                  for (double e : v) if (e != 0) return 1.0;
                  return 0.0;
                }), 0);
    const Tensor c = x.cumsum(0);
    CHECK(c.dtype() == ember::kInt64);
    CHECK(x.cumsum(0, ember::kFloat).dtype() == ember::kFloat);
    // softmax and logsumexp of integers compute in float32
    CHECK(x.softmax(1).dtype() == ember::kFloat);
    CHECK(x.logsumexp({1}).dtype() == ember::kFloat);
    check_close(x.logsumexp({1}), ref_reduce(x, {1}, false, r_lse), 1e-6);
  }
  // wrap-around as int64, exact beyond float precision
  const Tensor big = ember::full({3}, int64_t(1) << 60, ember::kInt64);
  CHECK(big.sum().item<int64_t>() == int64_t((uint64_t(3) << 60)));
  CHECK(ember::tensor({int64_t(9007199254740993), int64_t(1)}).sum().item<int64_t>() == 9007199254740994);
  // bool
  const Tensor b = ember::tensor({1, 0, 1, 1, 0, 1}, ember::kInt64).to(ember::kBool).reshape({2, 3});
  CHECK(b.sum().dtype() == ember::kInt64);
  CHECK(b.sum().item<int64_t>() == 4);
  CHECK(to_vec(b.sum(0)) == std::vector<double>{2, 0, 2});
  CHECK(b.prod().item<int64_t>() == 0);
  CHECK(b.all().item<bool>() == false);
  CHECK(b.any().item<bool>() == true);
  CHECK(to_vec(b.all(1)) == std::vector<double>{0, 0});
  CHECK(to_vec(b.cumsum(1)) == std::vector<double>{1, 1, 2, 1, 1, 2});
  CHECK(b.cumsum(1).dtype() == ember::kInt64);
  CHECK(b.max().item<bool>() == true);
  // all/any on floats: NaN is nonzero
  CHECK(ember::tensor({kNaN, 1.0}).all().item<bool>());
}

TEST_CASE("reduce: softmax, log_softmax and cumsum along every dim") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (auto dtype : {ember::kFloat, ember::kDouble}) {
    const double rtol = dtype == ember::kFloat ? 1e-5 : 1e-12;
    for (auto& [layout, x] : layouts(dtype)) {
      const std::vector<int64_t> shape = shape_of(x);
      const std::vector<double> v = to_vec(x);
      for (int64_t dim : {0, 1, 2, -1}) {
        INFO(layout << " " << ember::name(dtype) << " dim " << dim);
        const int64_t d = dim < 0 ? dim + 3 : dim;
        int64_t inner = 1;
        for (int64_t k = d + 1; k < 3; ++k) inner *= shape[size_t(k)];
        const int64_t n = shape[size_t(d)];
        std::vector<double> sm(v.size()), lsm(v.size()), cs(v.size());
        for (size_t i = 0; i < v.size(); ++i) {
          const int64_t pos = (int64_t(i) / inner) % n, start = int64_t(i) - pos * inner;
          double m = -kInf, t = 0, c = 0;
          for (int64_t j = 0; j < n; ++j) m = std::max(m, v[size_t(start + j * inner)]);
          for (int64_t j = 0; j < n; ++j) t += std::exp(v[size_t(start + j * inner)] - m);
          for (int64_t j = 0; j <= pos; ++j) c += v[size_t(start + j * inner)];
          sm[i] = std::exp(v[i] - m) / t;
          lsm[i] = v[i] - m - std::log(t);
          cs[i] = c;
        }
        check_close(x.softmax(dim), Ref{shape, sm}, rtol);
        check_close(ember::log_softmax(x, dim), Ref{shape, lsm}, rtol, 1e-6);
        check_close(x.cumsum(dim), Ref{shape, cs}, rtol, 1e-6);
        CHECK(x.softmax(dim).dtype() == dtype);
      }
    }
  }
  Tensor f = ember::randn({2, 3});
  CHECK(f.softmax(1, ember::kDouble).dtype() == ember::kDouble);
  CHECK(f.log_softmax(0, ember::kDouble).allclose(f.to(ember::kDouble).log_softmax(0)));
  // a NaN poisons its own slice only
  Tensor g = ember::tensor({1.0, kNaN, 2.0, 3.0}).reshape({2, 2});
  const std::vector<double> s = to_vec(g.softmax(1));
  CHECK(std::isnan(s[0]));
  CHECK(std::isnan(s[1]));
  CHECK(std::abs(s[2] - 1 / (1 + std::exp(1.0))) < 1e-6);
}

TEST_CASE("reduce: float32 softmax and log_softmax of rows of many widths, with infinities and NaN") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  // Widths below, at and around the 8-lane vector body, and long rows with tails.
  for (int64_t width : {3, 8, 9, 15, 16, 17, 100, 1000, 1031}) {
    INFO("width " << width);
    Tensor x = ember::randn({4, width}) * 10;
    x.index_put_({1}, x.index({1}) + 1000);  // large values: the max shift keeps exp finite
    x.index_put_({2, 0}, -kInf);             // a -inf element gets probability 0
    x.index_put_({3, width - 1}, kNaN);      // a NaN poisons its own row only
    const std::vector<double> v = to_vec(x);
    std::vector<double> sm(v.size()), lsm(v.size());
    for (int64_t r = 0; r < 4; ++r) {
      const double* row = v.data() + r * width;
      double m = -kInf, t = 0;
      bool nan = false;
      for (int64_t j = 0; j < width; ++j) {
        nan = nan || std::isnan(row[j]);
        m = std::max(m, row[j]);
      }
      for (int64_t j = 0; j < width; ++j) t += std::exp(row[j] - m);
      for (int64_t j = 0; j < width; ++j) {
        sm[size_t(r * width + j)] = nan ? kNaN : std::exp(row[j] - m) / t;
        lsm[size_t(r * width + j)] = nan ? kNaN : row[j] - m - std::log(t);
      }
    }
    // x - max rounds in float32 (to 4e-6 of |x - max| <= 100): exp inherits that relative error.
    check_close(x.softmax(1), Ref{{4, width}, sm}, 1e-5, 1e-30);
    check_close(ember::log_softmax(x, -1), Ref{{4, width}, lsm}, 1e-6, 2e-5);
    CHECK(to_vec(x.softmax(1))[size_t(2 * width)] == 0.0);
  }
  // Tied logits get equal probabilities wherever they sit (vector body or tail).
  Tensor tied = ember::zeros({1, 9});
  tied.index_put_({0, 0}, -2.9955);
  tied.index_put_({0, 8}, -2.9955);
  const std::vector<double> tp = to_vec(tied.softmax(1)), tl = to_vec(tied.log_softmax(1));
  CHECK(tp[0] == tp[8]);
  CHECK(tl[0] == tl[8]);
  // A row of only -inf has no maximum to shift by: NaN, as libtorch.
  Tensor all_ninf = ember::full({2, 9}, -kInf);
  for (double p : to_vec(all_ninf.softmax(1))) CHECK(std::isnan(p));
}

TEST_CASE("reduce: cumsum along contiguous rows (groups of four and a tail) in every floating dtype") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (auto dtype : {ember::kFloat, ember::kDouble, ember::kHalf, ember::kBFloat16}) {
    for (int64_t width : {1, 3, 4, 5, 1003}) {
      INFO(ember::name(dtype) << " width " << width);
      Tensor x = ember::randn({3, width}).to(dtype);
      const std::vector<double> v = to_vec(x);
      std::vector<double> want(v.size());
      for (int64_t r = 0; r < 3; ++r) {
        double c = 0;
        for (int64_t j = 0; j < width; ++j) want[size_t(r * width + j)] = c += v[size_t(r * width + j)];
      }
      const double rtol = dtype == ember::kFloat ? 1e-6 : dtype == ember::kDouble ? 1e-12 : 1e-2;
      Tensor y = x.cumsum(1);
      CHECK(y.dtype() == dtype);
      check_close(y, Ref{{3, width}, want}, rtol,
                  dtype == ember::kFloat    ? 1e-5
                  : dtype == ember::kDouble ? 1e-12
                                            : 0.1);
    }
  }
  Tensor n = ember::tensor({1.0, 2.0, kNaN, 4.0, 5.0, 6.0}).to(ember::kFloat);
  const std::vector<double> c = to_vec(n.cumsum(0));
  CHECK(c[0] == 1.0);
  CHECK(c[1] == 3.0);
  for (size_t i = 2; i < c.size(); ++i) CHECK(std::isnan(c[i]));
}

TEST_CASE("reduce: float32 sum, max and min of contiguous runs, NaN anywhere") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (int64_t n : {16, 17, 31, 40, 1000, 100003}) {
    INFO("n " << n);
    Tensor x = ember::randn({n}) * 100;
    const std::vector<double> v = to_vec(x);
    double sum = 0, mag = 0, mx = -kInf, mn = kInf;
    for (double e : v) {
      sum += e;
      mag += std::abs(e);
      mx = std::max(mx, e);
      mn = std::min(mn, e);
    }
    // Groups of four added in float, then double: bounded by the sum of magnitudes.
    CHECK(std::abs(x.sum().item<double>() - sum) <= 1e-6 * std::abs(sum) + 5e-7 * mag);
    CHECK(x.max().item<double>() == mx);
    CHECK(x.min().item<double>() == mn);
    CHECK(x.amax(0).item<double>() == mx);
    // The extreme in the last element (the scalar tail) and in the first (the first vector).
    for (int64_t at : {int64_t(0), n - 1}) {
      Tensor y = x.clone();
      y.index_put_({at}, 1e30);
      CHECK(y.max().item<double>() == double(1e30f));
      y.index_put_({at}, -1e30);
      CHECK(y.min().item<double>() == double(-1e30f));
    }
    for (int64_t at : {int64_t(0), int64_t(7), int64_t(8), int64_t(15), n / 2, n - 1}) {
      INFO("NaN at " << at);
      Tensor y = x.clone();
      y.index_put_({at}, kNaN);
      CHECK(std::isnan(y.max().item<double>()));
      CHECK(std::isnan(y.min().item<double>()));
      CHECK(std::isnan(y.sum().item<double>()));
    }
  }
  // Sums over an outer dim, 300 outputs wide (a 256-lane block and a tail of 44).
  Tensor m = ember::randn({37, 300});
  // Float32 rows are added in pairs (and runs in groups of four) in float before double:
  // the error bound is relative to the sum of magnitudes (about 30 and 55 here), not to
  // the sum, hence the absolute tolerances.
  check_close(m.sum(0), ref_reduce(m, {0}, false, r_sum), 1e-6, 1e-5);
  check_close(m.mean(0), ref_reduce(m, {0}, false, r_mean), 1e-6, 1e-6);
  // Sums of many contiguous rows (the driver's row path, 301 outputs), and of a
  // column-major view.
  Tensor w = ember::randn({301, 67});
  check_close(w.sum(1), ref_reduce(w, {1}, false, r_sum), 1e-6, 3e-5);
  check_close(w.mean(-1, true), ref_reduce(w, {1}, true, r_mean), 1e-6, 1e-6);
  check_close(w.t().sum(0), ref_reduce(w, {1}, false, r_sum), 1e-6, 3e-5);
  // Float32 sums accumulate in double: partial sums beyond float's range do not overflow.
  Tensor big = ember::zeros({64});
  big.index_put_({0}, 3e38);
  big.index_put_({8}, 3e38);
  big.index_put_({16}, -3e38);
  big.index_put_({24}, -3e38);
  CHECK(big.sum().item<double>() == 0.0);
  CHECK(ember::full({64}, 3e38).mean().item<double>() == double(3e38f));
  Tensor cols = ember::cat({ember::full({2, 16}, 3e38), ember::full({1, 16}, -3e38)});
  for (double v : to_vec(cols.sum(0))) CHECK(v == double(3e38f));
  Tensor inf_row = ember::zeros({40});
  inf_row.index_put_({3}, kInf);
  CHECK(inf_row.sum().item<double>() == kInf);
  inf_row.index_put_({30}, -kInf);
  CHECK(std::isnan(inf_row.sum().item<double>()));
}

TEST_CASE("reduce: zero-size dims and 0-d tensors") {
  const Tensor e = ember::zeros({2, 0, 3});
  CHECK(shape_of(e.sum(1)) == std::vector<int64_t>{2, 3});
  CHECK(to_vec(e.sum(1)) == std::vector<double>(6, 0.0));
  CHECK(to_vec(e.prod(1)) == std::vector<double>(6, 1.0));
  CHECK(e.sum().item<float>() == 0);
  CHECK(e.prod().item<float>() == 1);
  CHECK(std::isnan(e.mean().item<float>()));
  CHECK(shape_of(e.sum(0)) == std::vector<int64_t>{0, 3});
  CHECK(shape_of(e.amax(0)) == std::vector<int64_t>{0, 3});  // reduces a non-empty dim: fine
  CHECK(shape_of(std::get<1>(e.max(2, true))) == std::vector<int64_t>{2, 0, 1});
  CHECK(e.all().item<bool>() == true);
  CHECK(e.any().item<bool>() == false);
  CHECK(e.norm().item<float>() == 0);
  CHECK(std::isnan(e.var().item<float>()));
  CHECK(to_vec(e.logsumexp({1})) == std::vector<double>(6, -kInf));
  CHECK(shape_of(e.softmax(1)) == std::vector<int64_t>{2, 0, 3});
  CHECK(shape_of(e.cumsum(0)) == std::vector<int64_t>{2, 0, 3});

  const Tensor z = ember::scalar_tensor(2.5);
  for (int64_t dim : {0, -1}) {
    CHECK(z.sum(dim).dim() == 0);
    CHECK(z.sum(dim, true).dim() == 0);
    CHECK(z.sum(dim).item<double>() == 2.5);
    CHECK(std::get<1>(z.max(dim)).item<int64_t>() == 0);
    CHECK(z.argmax(dim).item<int64_t>() == 0);
    CHECK(z.softmax(dim).item<double>() == 1.0);
    CHECK(z.cumsum(dim).item<double>() == 2.5);
    CHECK(z.logsumexp({dim}).item<double>() == 2.5);
  }
  CHECK(z.sum().item<double>() == 2.5);
  CHECK(z.max().item<double>() == 2.5);
  CHECK(z.argmin().item<int64_t>() == 0);
  CHECK(z.mean().item<double>() == 2.5);
  CHECK(std::isnan(z.var().item<double>()));
  CHECK(z.var(false).item<double>() == 0);
  CHECK(z.norm(1).item<double>() == 2.5);
  CHECK(z.prod().item<double>() == 2.5);
  CHECK(z.all().item<bool>());
}

TEST_CASE("reduce: Half and BFloat16 compute in float") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  for (auto dtype : {ember::kHalf, ember::kBFloat16}) {
    INFO(ember::name(dtype));
    const double rtol = dtype == ember::kHalf ? 2e-3 : 1.6e-2;
    const Tensor x = ember::rand({64, 33}).to(dtype).t();
    CHECK(x.sum().dtype() == dtype);
    check_close(x.sum(1), ref_reduce(x, {1}, false, r_sum), rtol);
    check_close(x.sum(), ref_reduce(x, {}, false, r_sum), rtol);
    check_close(x.mean(0), ref_reduce(x, {0}, false, r_mean), rtol);
    check_close(x.amax(0), ref_reduce(x, {0}, false, r_max), 0);
    check_close(x.argmin(1), ref_reduce(x, {1}, false, [](const auto& s) { return double(r_argext<false>(s)); }),
                0);
    check_close(x.var(1), ref_reduce(x, {1}, false, [](const auto& s) { return r_var(s, 1); }), rtol * 2);
    check_close(x.norm(2, {0}), ref_reduce(x, {0}, false, [](const auto& s) { return r_norm(s, 2); }), rtol);
    check_close(x.logsumexp({1}), ref_reduce(x, {1}, false, r_lse), rtol);
    CHECK(x.softmax(1).dtype() == dtype);
    CHECK(x.softmax(1).sum(1).to(ember::kFloat).allclose(ember::ones({33}), 0, 2e-2));
    CHECK(x.cumsum(1).dtype() == dtype);
  }
}

TEST_CASE("reduce: 16M float32 sum is accurate and splits the reduced range") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  const int64_t n = int64_t(1) << 24;
  const Tensor x = ember::rand({n});
  const float* p = x.data_ptr<float>();
  double ref = 0;
  for (int64_t i = 0; i < n; ++i) ref += double(p[i]);
  const double got = double(x.sum().item<float>());
  CHECK(std::abs(got - ref) / ref < 1e-5);
  CHECK(std::abs(double(x.mean().item<float>()) - ref / double(n)) < 1e-5 * ref / double(n));
  // a strided view of the same data, and a few outputs over long rows
  const Tensor rows = x.view({4, n / 4});
  check_close(rows.sum(1), ref_reduce(rows, {1}, false, r_sum), 1e-6);
  check_close(rows.t().sum(0), ref_reduce(rows, {1}, false, r_sum), 1e-6);
  check_close(rows.amax(1), ref_reduce(rows, {1}, false, r_max), 0);
  // argmax over a split range must still report the first extreme
  Tensor y = ember::zeros({n});
  y.data_ptr<float>()[n - 5] = 3;
  y.data_ptr<float>()[n / 2 + 7] = 3;
  y.data_ptr<float>()[n / 2 + 9] = 3;
  CHECK(y.argmax().item<int64_t>() == n / 2 + 7);
  CHECK(std::abs(x.var().item<float>() - 1.0 / 12) < 1e-3);
}

TEST_CASE("reduce: errors name the op and the received and valid values") {
  const Tensor x = ember::randn({2, 3});
  const Tensor xi = ember::randint(0, 9, {2, 3});
  const Tensor before = x.clone(), before_i = xi.clone();
  // bad dims
  CHECK_THROWS_AS(x.sum(2), ember::InvalidArgument);
  CHECK_THROWS_WITH(x.sum(2), Contains("sum(): dimension out of range (expected to be in range of [-2, 1], but got 2)"));
  CHECK_THROWS_WITH(x.sum({0, -2}), Contains("sum(): dim 0 appears multiple times in the list of dims [0, -2]"));
  CHECK_THROWS_WITH(x.mean(-3), Contains("mean(): dimension out of range"));
  CHECK_THROWS_WITH(x.amax(5), Contains("amax(): dimension out of range"));
  CHECK_THROWS_WITH(x.max(2), Contains("max(): dimension out of range (expected to be in range of [-2, 1], but got 2)"));
  CHECK_THROWS_WITH(x.argmin(-3), Contains("argmin(): dimension out of range"));
  CHECK_THROWS_WITH(x.var(3), Contains("var(): dimension out of range"));
  CHECK_THROWS_WITH(x.std({1, 1}), Contains("std(): dim 1 appears multiple times"));
  CHECK_THROWS_WITH(x.norm(2, {7}), Contains("norm(): dimension out of range"));
  CHECK_THROWS_WITH(x.logsumexp({2}), Contains("logsumexp(): dimension out of range"));
  CHECK_THROWS_WITH(x.all(2), Contains("all(): dimension out of range"));
  CHECK_THROWS_WITH(x.any(-3), Contains("any(): dimension out of range"));
  CHECK_THROWS_WITH(x.prod(2), Contains("prod(): dimension out of range"));
  CHECK_THROWS_WITH(x.softmax(2), Contains("softmax(): dimension out of range"));
  CHECK_THROWS_WITH(x.log_softmax(-3), Contains("log_softmax(): dimension out of range"));
  CHECK_THROWS_WITH(x.cumsum(2), Contains("cumsum(): dimension out of range"));
  CHECK_THROWS_WITH(ember::scalar_tensor(1.0).sum(1), Contains("sum(): dimension out of range (expected to be in range of [-1, 0], but got 1)"));
  // dtypes
  CHECK_THROWS_AS(xi.mean(), ember::InvalidArgument);
  CHECK_THROWS_WITH(xi.mean(), Contains("mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: Long"));
  CHECK_THROWS_WITH(x.mean(ember::kInt32), Contains("mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: Int"));
  CHECK(xi.mean(ember::kDouble).dtype() == ember::kDouble);
  CHECK_THROWS_AS(xi.var(), ember::InvalidArgument);
  CHECK_THROWS_WITH(xi.var(), Contains("var(): std and var only support floating point and complex dtypes, but the input is Long"));
  CHECK_THROWS_WITH(xi.std(0), Contains("std(): std and var only support floating point and complex dtypes, but the input is Long"));
  CHECK_THROWS_WITH(xi.norm(), Contains("norm(): input dtype should be either floating point or complex. Got Long instead."));
  CHECK_THROWS_WITH(x.softmax(0, ember::kInt64), Contains("softmax(): dtype must be a floating point dtype, got Long"));
  CHECK_THROWS_WITH(x.log_softmax(0, ember::kBool), Contains("log_softmax(): dtype must be a floating point dtype, got Bool"));
  // no identity over a zero-size dim
  const Tensor e = ember::zeros({2, 0});
  CHECK_THROWS_AS(e.max(), ember::InvalidArgument);
  CHECK_THROWS_WITH(e.max(), Contains("max(): Expected reduction dim to be specified for input.numel() == 0"));
  CHECK_THROWS_WITH(e.min(), Contains("min(): Expected reduction dim to be specified for input.numel() == 0"));
  CHECK_THROWS_WITH(e.amax(), Contains("amax(): Expected reduction dim to be specified for input.numel() == 0"));
  CHECK_THROWS_WITH(e.argmax(), Contains("argmax(): Expected reduction dim to be specified for input.numel() == 0"));
  CHECK_THROWS_WITH(e.max(1), Contains("max(): Expected reduction dim 1 to have non-zero size (input shape [2, 0])"));
  CHECK_THROWS_WITH(e.argmin(-1), Contains("argmin(): Expected reduction dim 1 to have non-zero size"));
  CHECK_THROWS_WITH(e.amin({1}), Contains("amin(): Expected reduction dim 1 to have non-zero size"));
  CHECK_THROWS_AS(e.norm(INFINITY), ember::InvalidArgument);
  CHECK_THROWS_WITH(e.norm(-INFINITY, {1}), Contains("norm(): cannot compute the -inf norm over a zero-size dim"));
  CHECK_THROWS_WITH(ember::sum(Tensor()), Contains("sum(): the input is an undefined tensor"));
  CHECK_THROWS_AS(ember::softmax(Tensor(), 0), ember::InvalidArgument);
  CHECK(ember::equal(x, before));
  CHECK(ember::equal(xi, before_i));
}

TEST_CASE("reduce: sums over a strided dim with contiguous outputs") {
  const uint64_t seed = fresh_seed();
  INFO("seed " << seed);
  const Tensor x = ember::randn({3, 50, 300}, ember::kDouble);
  for (auto dtype : {ember::kFloat, ember::kDouble, ember::kHalf, ember::kInt32}) {
    INFO(ember::name(dtype));
    const Tensor y = dtype == ember::kInt32 ? (x * 10).to(dtype) : x.to(dtype);
    const double rtol = dtype == ember::kHalf ? 2e-3 : dtype == ember::kFloat ? 2e-6 : 1e-12;
    check_close(y.sum(1), ref_reduce(y, {1}, false, r_sum), rtol, 1e-3);
    check_close(y.sum(0, true), ref_reduce(y, {0}, true, r_sum), rtol, 1e-3);
    check_close(y.slice(2, 5, 290).sum(1), ref_reduce(y.slice(2, 5, 290), {1}, false, r_sum), rtol, 1e-3);
    if (dtype != ember::kInt32) check_close(y.mean(-2), ref_reduce(y, {-2}, false, r_mean), rtol, 1e-3);
  }
  const Tensor big = ember::rand({2000, 300});  // parallel over blocks of outputs
  check_close(big.sum(0), ref_reduce(big, {0}, false, r_sum), 2e-6);
}
