// Printing as libtorch does: values with a shared width (and a scale factor or
// scientific notation when magnitudes differ), then "[ CPUFloatType{2,3} ]".
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "core/dtype_dispatch.h"
#include "ember/format.h"
#include "ember/ops.h"

namespace ember {

namespace {

const char* type_word(ScalarType t) {
  static constexpr const char* names[] = {"Bool", "Byte", "Char", "Short", "Int", "Long", "Half", "BFloat16", "Float", "Double"};
  return names[static_cast<int>(t)];
}

std::string backend_word(Device d) {
  if (d.is_cpu()) return "CPU";
  if (d.is_cuda()) return "CUDA";
  std::string n = device_type_name(d.type());
  for (char& c : n) c = char(std::toupper(static_cast<unsigned char>(c)));
  return n;
}

struct Format {
  int width = 1;
  double scale = 1;
  bool scientific = false;
  int precision = 4;
};

// libtorch's __printFormat: integers print plainly; otherwise 4 decimals, a common
// scale factor for large or small magnitudes, or scientific for wide ranges.
Format choose_format(const double* v, int64_t n) {
  Format f;
  bool int_mode = true;
  double max_abs = 0, min_abs = INFINITY;
  bool any_finite = false;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) continue;
    any_finite = true;
    double a = std::abs(v[i]);
    if (v[i] != std::ceil(v[i])) int_mode = false;
    max_abs = std::max(max_abs, a);
    if (a != 0) min_abs = std::min(min_abs, a);
  }
  if (!any_finite) max_abs = min_abs = 1;
  if (min_abs == INFINITY) min_abs = max_abs == 0 ? 1 : max_abs;
  int exp_min = min_abs != 0 ? int(std::floor(std::log10(min_abs))) + 1 : 1;
  int exp_max = max_abs != 0 ? int(std::floor(std::log10(max_abs))) + 1 : 1;
  if (int_mode) {
    if (exp_max > 9) {
      f.width = 11, f.scientific = true;
    } else {
      f.width = exp_max + 1, f.precision = 0;
    }
  } else if (exp_max - exp_min > 4) {
    f.width = 11, f.scientific = true;
  } else if (exp_max > 5 || exp_max < -4) {
    f.width = 7, f.scale = std::pow(10.0, exp_max - 1);
  } else {
    f.width = exp_max == 0 ? 7 : exp_max + 6;
  }
  return f;
}

void print_value(std::ostream& os, double v, const Format& f) {
  os << std::setw(f.width);
  if (f.scientific) os << std::scientific << std::setprecision(f.precision) << v;
  else os << std::fixed << std::setprecision(f.precision) << v / f.scale;
}

void print_value(std::ostream& os, int64_t v, const Format& f) { os << std::setw(f.width) << v; }

// Integer and bool dtypes print through int64, not double, so 2^53 + 1 stays exact:
// plainly, one column wider than the largest magnitude's digits (libtorch's int mode,
// except that libtorch, printing through double, turns scientific above 9 digits).
Format choose_int_format(const int64_t* v, int64_t n) {
  uint64_t max_abs = 0;
  for (int64_t i = 0; i < n; ++i) {
    const uint64_t a = v[i] < 0 ? uint64_t(0) - uint64_t(v[i]) : uint64_t(v[i]);
    max_abs = std::max(max_abs, a);
  }
  Format f;
  f.width = 2;
  for (; max_abs >= 10; max_abs /= 10) ++f.width;
  f.precision = 0;
  return f;
}

template <class V>
void print_matrix(std::ostream& os, const V* v, int64_t rows, int64_t cols, const Format& f) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) {
      if (c) os << " ";
      print_value(os, v[r * cols + c], f);
    }
    os << "\n";
  }
}

template <class V>
void print_values(std::ostream& os, const Tensor& t, const V* d, int64_t n, const Format& f) {
  if (n == 0) return;
  if (f.scale != 1) os << std::defaultfloat << std::setprecision(0) << std::scientific << f.scale << " *\n";
  if (t.dim() == 0) {
    os << std::defaultfloat << std::setprecision(6) << d[0] << "\n";
  } else if (t.dim() == 1) {
    print_matrix(os, d, n, 1, f);
  } else if (t.dim() == 2) {
    print_matrix(os, d, t.size(0), t.size(1), f);
  } else {
    const int64_t rows = t.size(-2), cols = t.size(-1), per = rows * cols;
    std::vector<int64_t> idx(size_t(t.dim() - 2), 0);
    for (int64_t m = 0; m < n / per; ++m) {
      os << "(";
      for (int64_t i : idx) os << i + 1 << ",";
      os << ".,.) = \n";
      print_matrix(os, d + m * per, rows, cols, f);
      os << "\n";
      for (int64_t k = int64_t(idx.size()) - 1; k >= 0; --k) {
        if (++idx[size_t(k)] < t.size(k)) break;
        idx[size_t(k)] = 0;
      }
    }
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& os, const Tensor& t) {
  if (!t.defined()) return os << "[ Tensor (undefined) ]";
  std::ios_base::fmtflags flags = os.flags();
  std::streamsize prec = os.precision();
  if (is_floating_point(t.dtype())) {
    Tensor v = t.to(Device(kCPU, 0), kDouble).contiguous();
    print_values(os, t, v.data_ptr<double>(), v.numel(), choose_format(v.data_ptr<double>(), v.numel()));
  } else {
    Tensor v = t.to(Device(kCPU, 0), kInt64).contiguous();
    print_values(os, t, v.data_ptr<int64_t>(), v.numel(), choose_int_format(v.data_ptr<int64_t>(), v.numel()));
  }
  os << "[ " << backend_word(t.device()) << type_word(t.dtype()) << "Type{";
  for (int64_t i = 0; i < t.dim(); ++i) os << (i ? "," : "") << t.size(i);
  os << "} ]";
  os.flags(flags);
  os.precision(prec);
  return os;
}

}  // namespace ember

namespace ember::detail {
std::string tensor_to_string(const Tensor& t) {
  std::ostringstream os;
  os << t;
  return os.str();
}
}  // namespace ember::detail
