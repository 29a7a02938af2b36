// Printing byte for byte as libtorch does (Note [Printing]), then "[ CPUFloatType{2,3} ]".
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>
#include <vector>

#include "core/dtype_dispatch.h"
#include "ember/format.h"
#include "ember/ops.h"

namespace ember {

// Note [Printing]
// Floating tensors follow libtorch's __printFormat on their float64 values: all-integral
// values print in the stream's default notation, otherwise 4 decimals (fixed), with a
// "scale *" line when the largest magnitude is >= 1e5 or < 0.1, or scientific when the
// magnitudes span more than 4 decades. Its quirks are kept, since the text is the
// contract: the largest magnitude is found by comparing signed values (so {1, -100} is
// one column wide), 2-D blocks wider than 80 characters split into "Columns a to b"
// blocks with the header running into the first row, rows after the first under a scale
// line get one more space, and tensors of 3 or more dims print one matrix at a time
// (each with its own format, indented one space), leading index varying fastest.
// Integer and bool dtypes print exact int64 digits where libtorch, printing through
// double, would round them (7 digits and more): ember's one deliberate difference.

namespace {

std::string backend_word(Device d) {
  if (d.is_cpu()) return "CPU";
  if (d.is_cuda()) return "CUDA";
  std::string n = device_type_name(d.type());
  for (char& c : n) c = char(std::toupper(static_cast<unsigned char>(c)));
  return n;
}

enum class Notation { Default, Fixed, Scientific };

struct Format {
  int64_t width = 1;
  double scale = 1;
  Notation notation = Notation::Default;
};

// Saves and restores every formatting setting of a stream.
struct FormatGuard {
  explicit FormatGuard(std::ostream& os) : os_(os), saved_(nullptr) { saved_.copyfmt(os); }
  ~FormatGuard() { os_.copyfmt(saved_); }
  FormatGuard(const FormatGuard&) = delete;
  FormatGuard& operator=(const FormatGuard&) = delete;

 private:
  std::ostream& os_;
  std::ios saved_;
};

// The stream stays in the chosen notation until the next format, as in libtorch (an
// all-integral matrix after a fractional one prints with precision 4).
void apply(std::ostream& os, const Format& f) {
  if (f.notation == Notation::Scientific) os << std::scientific << std::setprecision(4);
  else if (f.notation == Notation::Fixed) os << std::fixed << std::setprecision(4);
  else os.unsetf(std::ios_base::floatfield);
}

double digits_before_point(double magnitude) { return magnitude != 0 ? std::floor(std::log10(magnitude)) + 1 : 1; }

Format choose_format(const double* v, int64_t n) {
  Format f;
  bool int_mode = true;
  for (int64_t i = 0; i < n && int_mode; ++i)
    if (std::isfinite(v[i]) && v[i] != std::ceil(v[i])) int_mode = false;
  int64_t first = 0;
  while (first < n && !std::isfinite(v[first])) ++first;
  double exp_min = 1, exp_max = 1;
  if (first < n) {
    double lo = std::abs(v[first]), hi = lo;
    for (int64_t i = first; i < n; ++i) {
      if (!std::isfinite(v[i])) continue;
      lo = std::min(lo, std::abs(v[i]));
      if (v[i] > hi) hi = std::abs(v[i]);  // signed comparison, as libtorch
    }
    exp_min = digits_before_point(lo);
    exp_max = digits_before_point(hi);
  }
  if (int_mode) {
    if (exp_max > 9) f.width = 11, f.notation = Notation::Scientific;
    else f.width = int64_t(exp_max) + 1;
  } else if (exp_max - exp_min > 4) {
    f.width = std::abs(exp_max) > 99 || std::abs(exp_min) > 99 ? 12 : 11;
    f.notation = Notation::Scientific;
  } else {
    f.notation = Notation::Fixed;
    if (exp_max > 5 || exp_max < 0) f.width = 7, f.scale = std::pow(10.0, exp_max - 1);
    else f.width = exp_max == 0 ? 7 : int64_t(exp_max) + 6;
  }
  return f;
}

// libtorch's int mode without the rounding: one column more than the digits of the
// largest value (found by the same signed comparison).
Format choose_format(const int64_t* v, int64_t n) {
  auto magnitude = [](int64_t x) { return x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x); };
  uint64_t hi = magnitude(v[0]);
  for (int64_t i = 1; i < n; ++i)
    if (v[i] > 0 && uint64_t(v[i]) > hi) hi = uint64_t(v[i]);
  Format f;
  f.width = 2;
  for (; hi >= 10; hi /= 10) ++f.width;
  return f;
}

void put(std::ostream& os, double v, const Format& f) { os << std::setw(int(f.width)) << v / f.scale; }
void put(std::ostream& os, int64_t v, const Format& f) { os << std::setw(int(f.width)) << v; }

void print_scale(std::ostream& os, double scale) {
  FormatGuard guard(os);
  os.unsetf(std::ios_base::floatfield);
  os << scale << " *\n";
}

void indent_by(std::ostream& os, int64_t indent) {
  for (int64_t i = 0; i < indent; ++i) os << ' ';
}

constexpr int64_t kLineWidth = 80;

template <class V>
void print_matrix(std::ostream& os, const V* m, int64_t rows, int64_t cols, int64_t indent) {
  const Format f = choose_format(m, rows * cols);
  apply(os, f);
  indent_by(os, indent);
  const int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / (f.width + 1));
  for (int64_t first = 0; first < cols;) {
    const int64_t last = std::min(first + per_line, cols) - 1;
    if (per_line < cols) {
      if (first != 0) os << '\n';
      os << "Columns " << first + 1 << " to " << last + 1;
      indent_by(os, indent);
    }
    if (f.scale != 1) {
      print_scale(os, f.scale);
      indent_by(os, indent);
    }
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t c = first; c <= last; ++c) {
        put(os, m[r * cols + c], f);
        if (c != last) {
          os << ' ';
          continue;
        }
        os << '\n';
        if (r != rows - 1) indent_by(os, indent + (f.scale != 1 ? 1 : 0));
      }
    }
    first = last + 1;
  }
}

template <class V>
void print_values(std::ostream& os, const Tensor& t, const V* d) {
  const int64_t n = t.numel();
  if (t.dim() == 0) {
    os.unsetf(std::ios_base::floatfield);
    os << d[0] << '\n';
    return;
  }
  if (n == 0) return;
  if (t.dim() == 1) {
    const Format f = choose_format(d, n);
    apply(os, f);
    if (f.scale != 1) print_scale(os, f.scale);
    for (int64_t i = 0; i < n; ++i) {
      put(os, d[i], f);
      os << '\n';
    }
    return;
  }
  if (t.dim() == 2) return print_matrix(os, d, t.size(0), t.size(1), 0);
  const int64_t lead = t.dim() - 2, rows = t.size(-2), cols = t.size(-1);
  std::vector<int64_t> idx(size_t(lead), 0);
  for (bool first = true;; first = false) {
    if (!first) os << '\n';
    os << '(';
    int64_t offset = 0;
    for (int64_t k = 0; k < lead; ++k) {
      os << idx[size_t(k)] + 1 << ',';
      offset = offset * t.size(k) + idx[size_t(k)];
    }
    os << ".,.) = \n";
    print_matrix(os, d + offset * rows * cols, rows, cols, 1);
    int64_t k = 0;  // the first leading index varies fastest, as in libtorch
    for (; k < lead; ++k) {
      if (++idx[size_t(k)] < t.size(k)) break;
      idx[size_t(k)] = 0;
    }
    if (k == lead) break;
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  FormatGuard guard(os);
  if (is_floating_point(t.dtype())) {
    Tensor v = t.to(Device(kCPU, 0), kDouble).contiguous();
    print_values(os, t, v.data_ptr<double>());
  } else {
    Tensor v = t.to(Device(kCPU, 0), kInt64).contiguous();
    print_values(os, t, v.data_ptr<int64_t>());
  }
  os << "[ " << backend_word(t.device()) << torch_name(t.dtype()) << "Type{";
  for (int64_t i = 0; i < t.dim(); ++i) os << (i ? "," : "") << t.size(i);
  return os << "} ]";
}

}  // namespace ember

namespace ember {
std::string Tensor::toString() const {
  if (!defined()) return "UndefinedType";
  return backend_word(impl_->storage_->device_) + torch_name(dtype()) + "Type";
}
}  // namespace ember

namespace ember::detail {
std::string tensor_to_string(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}
}  // namespace ember::detail
