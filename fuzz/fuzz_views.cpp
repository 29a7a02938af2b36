// libFuzzer target: view and shape ops (reshape, view, permute, transpose, narrow,
// select, expand, squeeze, unsqueeze, flatten, slice, index, split + cat) chained on a random
// strided float64 tensor. Each result is read element by element through its strides and
// compared with a naive reference that moves values between row-major lists; whether an
// op is valid is decided by the reference too. The only error allowed is InvalidArgument.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ember/ember.h"

using namespace ember;
using Sizes = std::vector<int64_t>;

namespace {

std::string g_call;  // the op being checked, for the failure message

std::string str(const Sizes& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz_views: %s: %s\n", what, g_call.c_str());
  std::abort();
}

int64_t numel_of(const Sizes& s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// Calls f(index) for every multi-index of `sizes` in row-major order.
void for_each_index(const Sizes& sizes, const std::function<void(const Sizes&)>& f) {
  if (numel_of(sizes) == 0) return;
  Sizes idx(sizes.size(), 0);
  while (true) {
    f(idx);
    size_t d = sizes.size();
    while (d > 0) {
      --d;
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
      if (d == 0) return;
    }
    if (sizes.empty()) return;
  }
}

// The naive reference: sizes and values in row-major order.
struct Ref {
  Sizes sizes;
  std::vector<double> v;
  double at(const Sizes& idx) const {
    int64_t off = 0;
    for (size_t d = 0; d < sizes.size(); ++d) off = off * sizes[d] + idx[d];
    return v[size_t(off)];
  }
};

Ref remap(const Ref& in, const Sizes& out_sizes, const std::function<Sizes(const Sizes&)>& to_in) {
  Ref r{out_sizes, {}};
  r.v.reserve(size_t(numel_of(out_sizes)));
  for_each_index(out_sizes, [&](const Sizes& o) { r.v.push_back(in.at(to_in(o))); });
  return r;
}

// Reads a CPU float64 tensor element by element through its sizes and strides.
Ref read_strided(const Tensor& t) {
  Ref r{t.sizes().vec(), {}};
  const double* base = static_cast<const double*>(t.data_ptr());
  const Sizes strides = t.strides().vec();
  for_each_index(r.sizes, [&](const Sizes& i) {
    int64_t off = 0;
    for (size_t d = 0; d < i.size(); ++d) off += i[d] * strides[d];
    r.v.push_back(base[off]);
  });
  return r;
}

void expect_equal(const Tensor& t, const Ref& ref) {
  if (t.dtype() != kDouble) fail("dtype changed");
  const Ref got = read_strided(t);
  if (got.sizes != ref.sizes) fail("sizes differ from the reference");
  if (got.v != ref.v) fail("values differ from the reference");
}

// libtorch's maybe_wrap_dim: a 0-d tensor accepts dims 0 and -1.
bool wrap(int64_t& d, int64_t n) {
  const int64_t m = std::max<int64_t>(n, 1);
  if (d < -m || d >= m) return false;
  if (d < 0) d += m;
  return true;
}

// The shape reshape/view accept: at most one -1, the rest non-negative, same numel.
bool infer_shape(Sizes& shape, int64_t numel) {
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (infer >= 0) return false;
      infer = int64_t(i);
    } else if (shape[i] < 0) {
      return false;
    } else {
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || numel % known != 0) return false;
    shape[size_t(infer)] = numel / known;
    return true;
  }
  return known == numel;
}

Sizes pick_sizes(FuzzedDataProvider& in, int max_dims, int64_t lo, int64_t hi) {
  Sizes s(in.ConsumeIntegralInRange<int>(0, max_dims));
  for (int64_t& v : s) v = in.ConsumeIntegralInRange<int64_t>(lo, hi);
  return s;
}

// One op on both sides. Returns false when the chain should stop.
bool step(FuzzedDataProvider& in, Tensor& t, Ref& ref) {
  const int64_t n = int64_t(ref.sizes.size());
  const int op = in.ConsumeIntegralInRange<int>(0, 12);
  const std::string input = " on a tensor of size " + str(ref.sizes) + " strides " + str(t.strides().vec());
  bool valid = true;
  Ref want;
  std::function<Tensor()> run;
  switch (op) {
    case 0:
    case 1: {  // reshape / view
      Sizes shape = pick_sizes(in, 4, -2, 8), inferred = shape;
      valid = infer_shape(inferred, numel_of(ref.sizes));
      if (valid) want = Ref{inferred, ref.v};
      g_call = (op == 0 ? "reshape " : "view ") + str(shape);
      run = [&t, shape, op] { return op == 0 ? t.reshape(shape) : t.view(shape); };
      break;
    }
    case 2: {  // permute
      Sizes dims = pick_sizes(in, 4, -5, 4), w = dims;
      valid = int64_t(dims.size()) == n;
      std::vector<bool> seen(size_t(n), false);
      for (int64_t& d : w) {
        if (!valid) break;
        valid = n > 0 && d >= -n && d < n && !seen[size_t(d < 0 ? d + n : d)];
        if (valid) seen[size_t(d < 0 ? d += n : d)] = true;
      }
      if (valid) {
        Sizes out(w.size());
        for (size_t i = 0; i < w.size(); ++i) out[i] = ref.sizes[size_t(w[i])];
        want = remap(ref, out, [&](const Sizes& o) {
          Sizes i(o.size());
          for (size_t k = 0; k < o.size(); ++k) i[size_t(w[k])] = o[k];
          return i;
        });
      }
      g_call = "permute " + str(dims);
      run = [&t, dims] { return t.permute(dims); };
      break;
    }
    case 3: {  // transpose
      int64_t a = in.ConsumeIntegralInRange<int64_t>(-5, 4), b = in.ConsumeIntegralInRange<int64_t>(-5, 4);
      int64_t wa = a, wb = b;
      valid = wrap(wa, n) && wrap(wb, n);
      if (valid) {
        Sizes out = ref.sizes;
        if (n > 0) std::swap(out[size_t(wa)], out[size_t(wb)]);
        want = remap(ref, out, [&](Sizes i) {
          if (n > 0) std::swap(i[size_t(wa)], i[size_t(wb)]);
          return i;
        });
      }
      g_call = "transpose " + str({a, b});
      run = [&t, a, b] { return t.transpose(a, b); };
      break;
    }
    case 4: {  // narrow
      int64_t d = in.ConsumeIntegralInRange<int64_t>(-5, 4), start = in.ConsumeIntegralInRange<int64_t>(-6, 6),
              len = in.ConsumeIntegralInRange<int64_t>(-1, 6), wd = d;
      valid = n > 0 && wrap(wd, n);
      int64_t s = start;
      if (valid) {
        const int64_t size = ref.sizes[size_t(wd)];
        valid = s >= -size && s <= size;
        if (s < 0) s += size;
        valid = valid && len >= 0 && s + len <= size;
      }
      if (valid) {
        Sizes out = ref.sizes;
        out[size_t(wd)] = len;
        want = remap(ref, out, [&](Sizes i) {
          i[size_t(wd)] += s;
          return i;
        });
      }
      g_call = "narrow " + str({d, start, len});
      run = [&t, d, start, len] { return t.narrow(d, start, len); };
      break;
    }
    case 5: {  // select
      int64_t d = in.ConsumeIntegralInRange<int64_t>(-5, 4), index = in.ConsumeIntegralInRange<int64_t>(-6, 6), wd = d;
      valid = n > 0 && wrap(wd, n) && index >= -ref.sizes[size_t(wd)] && index < ref.sizes[size_t(wd)];
      if (valid) {
        const int64_t k = index < 0 ? index + ref.sizes[size_t(wd)] : index;
        Sizes out = ref.sizes;
        out.erase(out.begin() + wd);
        want = remap(ref, out, [&](Sizes i) {
          i.insert(i.begin() + wd, k);
          return i;
        });
      }
      g_call = "select " + str({d, index});
      run = [&t, d, index] { return t.select(d, index); };
      break;
    }
    case 6: {  // expand
      Sizes shape = pick_sizes(in, 5, -2, 4);
      const int64_t m = int64_t(shape.size()), lead = m - n;
      valid = m >= n;
      Sizes out(shape.size());
      for (int64_t i = 0; valid && i < m; ++i) {
        if (i < lead) {
          valid = shape[size_t(i)] >= 0;
          out[size_t(i)] = shape[size_t(i)];
        } else {
          const int64_t have = ref.sizes[size_t(i - lead)], w = shape[size_t(i)] == -1 ? have : shape[size_t(i)];
          valid = shape[size_t(i)] >= -1 && (have == w || have == 1);
          out[size_t(i)] = w;
        }
      }
      if (valid) {
        want = remap(ref, out, [&](const Sizes& o) {
          Sizes i(static_cast<size_t>(n));
          for (int64_t k = 0; k < n; ++k) i[size_t(k)] = ref.sizes[size_t(k)] == 1 ? 0 : o[size_t(k + lead)];
          return i;
        });
      }
      g_call = "expand " + str(shape);
      run = [&t, shape] { return t.expand(shape); };
      break;
    }
    case 7: {  // squeeze() or squeeze(dim)
      const bool all = in.ConsumeBool();
      int64_t d = in.ConsumeIntegralInRange<int64_t>(-5, 4), wd = d;
      valid = all || wrap(wd, n);
      if (valid) {
        Sizes out;
        for (int64_t k = 0; k < n; ++k)
          if (!(ref.sizes[size_t(k)] == 1 && (all || k == wd))) out.push_back(ref.sizes[size_t(k)]);
        want = Ref{out, ref.v};
      }
      g_call = all ? std::string("squeeze") : "squeeze " + std::to_string(d);
      run = [&t, all, d] { return all ? t.squeeze() : t.squeeze(d); };
      break;
    }
    case 8: {  // unsqueeze
      int64_t d = in.ConsumeIntegralInRange<int64_t>(-6, 5);
      valid = d >= -(n + 1) && d <= n;
      if (valid) {
        Sizes out = ref.sizes;
        out.insert(out.begin() + (d < 0 ? d + n + 1 : d), 1);
        want = Ref{out, ref.v};
      }
      g_call = "unsqueeze " + std::to_string(d);
      run = [&t, d] { return t.unsqueeze(d); };
      break;
    }
    case 9: {  // flatten
      int64_t a = in.ConsumeIntegralInRange<int64_t>(-5, 4), b = in.ConsumeIntegralInRange<int64_t>(-5, 4), wa = a, wb = b;
      valid = wrap(wa, n) && wrap(wb, n) && wa <= wb;
      if (valid) {
        Sizes out;
        if (n == 0) out = {1};
        for (int64_t k = 0; k < n; ++k) {
          if (k <= wa || k > wb) out.push_back(ref.sizes[size_t(k)]);
          else out.back() *= ref.sizes[size_t(k)];
        }
        want = Ref{out, ref.v};
      }
      g_call = "flatten " + str({a, b});
      run = [&t, a, b] { return t.flatten(a, b); };
      break;
    }
    case 10: {  // slice(dim, start, end, step): bounds clamp as in Python
      int64_t d = in.ConsumeIntegralInRange<int64_t>(-5, 4), s = in.ConsumeIntegralInRange<int64_t>(-8, 8),
              e = in.ConsumeIntegralInRange<int64_t>(-8, 8), st = in.ConsumeIntegralInRange<int64_t>(-1, 3), wd = d;
      valid = n > 0 && wrap(wd, n) && st > 0;
      if (valid) {
        const int64_t size = ref.sizes[size_t(wd)];
        int64_t b = s < 0 ? std::max<int64_t>(s + size, 0) : std::min(s, size);
        int64_t f = e < 0 ? std::max<int64_t>(e + size, 0) : std::min(e, size);
        const int64_t len = f > b ? (f - b + st - 1) / st : 0;
        Sizes out = ref.sizes;
        out[size_t(wd)] = len;
        want = remap(ref, out, [&](Sizes i) {
          i[size_t(wd)] = b + i[size_t(wd)] * st;
          return i;
        });
      }
      g_call = "slice " + str({d, s, e, st});
      run = [&t, d, s, e, st] { return t.slice(d, s, e, st); };
      break;
    }
    case 11: {  // index({...}) with integers, slices, None and at most one Ellipsis (basic indexing)
      std::vector<indexing::TensorIndex> idx;
      std::string desc;
      int64_t consumed = 0, ellipses = 0;
      const int count = in.ConsumeIntegralInRange<int>(0, 4);
      for (int k = 0; k < count; ++k) {
        switch (in.ConsumeIntegralInRange<int>(0, 3)) {
          case 0: {
            const int64_t i = in.ConsumeIntegralInRange<int64_t>(-6, 6);
            idx.emplace_back(i), ++consumed, desc += std::to_string(i) + " ";
            break;
          }
          case 1: {
            auto opt = [&](int64_t lo, int64_t hi) {
              return in.ConsumeBool() ? std::optional<int64_t>(in.ConsumeIntegralInRange<int64_t>(lo, hi)) : std::nullopt;
            };
            const auto a = opt(-8, 8), b = opt(-8, 8), c = opt(-1, 3);
            if (c && *c == 0) {  // refused when the Slice is built, as libtorch's
              g_call = "Slice with step 0";
              bool refused = false;
              try {
                (void)indexing::Slice(a, b, c);
              } catch (const InvalidArgument&) {
                refused = true;
              }
              if (!refused) fail("Slice accepted a zero step");
              return true;
            }
            idx.emplace_back(indexing::Slice(a, b, c)), ++consumed, desc += "slice ";
            break;
          }
          case 2: idx.emplace_back(indexing::None), desc += "None "; break;
          default: idx.emplace_back(indexing::Ellipsis), ++ellipses, desc += "... ";
        }
      }
      // An empty list is an error, as libtorch's "Passing an empty index list ... is not valid syntax".
      valid = !idx.empty() && ellipses <= 1 && consumed <= n;
      // The reference walks the indices: each maps output dims onto input dims.
      Sizes out;
      std::vector<std::function<void(const Sizes&, size_t&, Sizes&)>> steps;  // (out idx, out pos, in idx)
      int64_t d = 0;
      for (const auto& i : idx) {
        if (!valid) break;
        if (i.kind() == indexing::TensorIndex::Kind::Integer) {
          const int64_t size = ref.sizes[size_t(d)];
          valid = i.integer() >= -size && i.integer() < size;
          const int64_t k = i.integer() < 0 ? i.integer() + size : i.integer();
          steps.push_back([k](const Sizes&, size_t&, Sizes& src) { src.push_back(k); });
          ++d;
        } else if (i.kind() == indexing::TensorIndex::Kind::Slice) {
          const int64_t size = ref.sizes[size_t(d)], st = i.slice().step();
          valid = st > 0;
          const int64_t s0 = i.slice().start(), e0 = i.slice().stop();  // unset: 0 and INDEX_MAX
          const int64_t b = s0 < 0 ? std::max<int64_t>(s0 + size, 0) : std::min(s0, size);
          const int64_t e = e0 < 0 ? std::max<int64_t>(e0 + size, 0) : std::min(e0, size);
          out.push_back(e > b && st > 0 ? (e - b + st - 1) / st : 0);
          steps.push_back([b, st](const Sizes& o, size_t& pos, Sizes& src) { src.push_back(b + o[pos++] * st); });
          ++d;
        } else if (i.kind() == indexing::TensorIndex::Kind::None) {
          out.push_back(1);
          steps.push_back([](const Sizes&, size_t& pos, Sizes&) { ++pos; });
        } else {
          for (int64_t k = 0; k < n - consumed; ++k, ++d) {
            out.push_back(ref.sizes[size_t(d)]);
            steps.push_back([](const Sizes& o, size_t& pos, Sizes& src) { src.push_back(o[pos++]); });
          }
        }
      }
      for (; valid && d < n; ++d) {  // trailing dims are taken whole
        out.push_back(ref.sizes[size_t(d)]);
        steps.push_back([](const Sizes& o, size_t& pos, Sizes& src) { src.push_back(o[pos++]); });
      }
      if (valid) {
        want = remap(ref, out, [&](const Sizes& o) {
          Sizes src;
          size_t pos = 0;
          for (const auto& f : steps) f(o, pos, src);
          return src;
        });
      }
      g_call = "index " + desc;
      run = [&t, idx] { return t.index(idx); };
      break;
    }
    default: {  // split into pieces, check each, then cat them back
      int64_t d = in.ConsumeIntegralInRange<int64_t>(-5, 4), size = in.ConsumeIntegralInRange<int64_t>(0, 4), wd = d;
      valid = n > 0 && wrap(wd, n) && (size > 0 || ref.sizes[size_t(wd)] == 0);
      g_call = "split " + str({size, d}) + input;
      std::vector<Tensor> parts;
      try {
        parts = t.split(size, d);
      } catch (const InvalidArgument&) {
        if (valid) fail("split threw for a valid call");
        return true;
      }
      if (!valid) fail("split accepted an invalid call");
      int64_t begin = 0;
      for (const Tensor& p : parts) {
        const int64_t len = std::min(size, ref.sizes[size_t(wd)] - begin);
        Sizes out = ref.sizes;
        out[size_t(wd)] = len;
        expect_equal(p, remap(ref, out, [&](Sizes i) {
                       i[size_t(wd)] += begin;
                       return i;
                     }));
        begin += len;
      }
      if (!parts.empty()) expect_equal(cat(parts, d), ref);
      return true;
    }
  }
  g_call += input;
  Tensor r;
  try {
    r = run();
  } catch (const InvalidArgument&) {
    // view may refuse strides it cannot express; everything else the reference accepts must work.
    if (valid && !(op == 1 && !t.is_contiguous())) fail("an op threw for a valid call");
    return true;
  }
  if (!valid) fail("an op accepted an invalid call");
  expect_equal(r, want);
  t = r;
  ref = want;
  return numel_of(ref.sizes) <= 4096;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  // A strided input: a transposed or step-sliced view of a larger arange, or contiguous.
  Sizes sizes = pick_sizes(in, 4, 0, 5);
  Tensor t = arange(numel_of(sizes) * 2, kDouble);
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0: t = t.narrow(0, 0, numel_of(sizes)).view(sizes); break;
    case 1: t = t.slice(0, 1, std::nullopt, 2).narrow(0, 0, numel_of(sizes)).view({numel_of(sizes)}); break;
    default: {
      Sizes rev(sizes.rbegin(), sizes.rend());
      t = t.narrow(0, 0, numel_of(sizes)).view(rev);
      std::vector<int64_t> perm;
      for (int64_t k = int64_t(sizes.size()) - 1; k >= 0; --k) perm.push_back(k);
      t = t.permute(perm);
    }
  }
  if (t.dim() == 1 && sizes.size() != 1) t = t.reshape(sizes);
  Ref ref = read_strided(t);
  for (int i = 0; i < 8 && in.remaining_bytes() > 0; ++i)
    if (!step(in, t, ref)) break;
  return 0;
}
