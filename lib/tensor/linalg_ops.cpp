// ember/linalg_ops.h: libtorch 1.13's products beyond matmul, composed of ember's matmul
// family (so BLAS does the heavy part and autograd the gradients).
#include "ember/linalg_ops.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "ember/ops.h"
#include "ember/shape_ops.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;
using detail::wrap_dim;

namespace {

bool is_zero(const Scalar& s) { return s.is_floating_point() ? s.toDouble() == 0 : s.to<int64_t>() == 0; }
bool is_one(const Scalar& s) { return s.is_floating_point() ? s.toDouble() == 1 : s.to<int64_t>() == 1; }

// beta * self + alpha * product, self broadcast to the product's shape; beta == 0
// ignores self (its NaNs included), as libtorch's add*mm family.
Tensor scaled_sum(const Tensor& self, const Tensor& product, const Scalar& beta, const Scalar& alpha) {
  // The result has the product's dtype; libtorch casts the scalars to it (an integral
  // product truncates them).
  const ScalarType dt = product.dtype();
  const bool integral = !is_floating_point(dt);
  const Scalar a = integral ? Scalar(alpha.to<int64_t>()) : alpha,
               b = integral ? Scalar(beta.to<int64_t>()) : beta;
  const Tensor scaled = is_one(a) ? product : (product * a).to(dt);
  const Tensor base = self.expand(product.sizes()).to(dt);
  if (is_zero(b)) return scaled.is_same(product) ? scaled.clone() : scaled;
  return (is_one(b) ? base : (base * b).to(dt)) + scaled;
}

void check_dim(const Tensor& t, int64_t dim, const char* what) {
  EMBER_CHECK_ARG(t.dim() == dim, "{} must be a {}D tensor", what, dim);
}

}  // namespace

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  EMBER_CHECK_ARG(mat.dim() == 2 && vec.dim() == 1 && self.dim() <= 1,
                  "vector + matrix @ vector expected, got {}, {}, {}", self.dim(), mat.dim(), vec.dim());
  return scaled_sum(self, mv(mat, vec), beta, alpha);
}

Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta,
            const Scalar& alpha) {
  EMBER_CHECK_ARG(vec1.dim() == 1, "addr: Expected 1-D argument vec1, but got {}-D", vec1.dim());
  EMBER_CHECK_ARG(vec2.dim() == 1, "addr: Expected 1-D argument vec2, but got {}-D", vec2.dim());
  return scaled_sum(self, outer(vec1, vec2), beta, alpha);
}

Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  check_dim(batch1, 3, "batch1");
  check_dim(batch2, 3, "batch2");
  return scaled_sum(self, bmm(batch1, batch2), beta, alpha);
}

Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
              const Scalar& alpha) {
  check_dim(batch1, 3, "batch1");
  check_dim(batch2, 3, "batch2");
  EMBER_CHECK_ARG(batch1.size(0) == batch2.size(0),
                  "batch1 and batch2 must have same number of batches, got {} and {}", batch1.size(0),
                  batch2.size(0));
  return scaled_sum(self, bmm(batch1, batch2).sum({0}), beta, alpha);
}

Tensor trace(const Tensor& x) {
  EMBER_CHECK_ARG(x.dim() == 2, "trace: expected a matrix, but got tensor with dim {}", x.dim());
  EMBER_CHECK_TYPED(x.dtype() != kBool, NotImplemented, "\"trace\" not implemented for 'Bool'");
  return diagonal(x).sum();
}

Tensor kron(const Tensor& a, const Tensor& b) {
  const int64_t n = std::max(a.dim(), b.dim());
  std::vector<int64_t> sa(size_t(n - a.dim()), 1), sb(size_t(n - b.dim()), 1);
  sa.insert(sa.end(), a.sizes().begin(), a.sizes().end());
  sb.insert(sb.end(), b.sizes().begin(), b.sizes().end());
  // a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...], then pairs merged.
  std::vector<int64_t> va, vb, out;
  for (int64_t i = 0; i < n; ++i) {
    va.insert(va.end(), {sa[size_t(i)], 1});
    vb.insert(vb.end(), {1, sb[size_t(i)]});
    out.push_back(sa[size_t(i)] * sb[size_t(i)]);
  }
  return (a.reshape(va) * b.reshape(vb)).reshape(out);
}

Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_CHECK_ARG(dims_a.size() == dims_b.size(), "both dimension lists should have same length");
  std::vector<bool> contracted_a(size_t(a.dim()), false), contracted_b(size_t(b.dim()), false);
  std::vector<int64_t> perm_a, perm_b, out_shape;
  int64_t k = 1;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t da = wrap_dim(dims_a[i], a.dim(), "tensordot"),
                  db = wrap_dim(dims_b[i], b.dim(), "tensordot");
    EMBER_CHECK_ARG(
        a.size(da) == b.size(db),
        "contracted dimensions need to match, but first has size {} in dim {} and second has size {} "
        "in dim {}",
        a.size(da), dims_a[i], b.size(db), dims_b[i]);
    EMBER_CHECK_ARG(!contracted_a[size_t(da)], "dim {} appears multiple times in the list of dims", da);
    EMBER_CHECK_ARG(!contracted_b[size_t(db)], "dim {} appears multiple times in the list of dims", db);
    contracted_a[size_t(da)] = contracted_b[size_t(db)] = true;
    k *= a.size(da);
  }
  int64_t free_a = 1, free_b = 1;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (!contracted_a[size_t(d)]) {
      perm_a.push_back(d);
      out_shape.push_back(a.size(d));
      free_a *= a.size(d);
    }
  for (size_t i = 0; i < dims_a.size(); ++i) {
    perm_a.push_back(wrap_dim(dims_a[i], a.dim(), "tensordot"));
    perm_b.push_back(wrap_dim(dims_b[i], b.dim(), "tensordot"));
  }
  for (int64_t d = 0; d < b.dim(); ++d)
    if (!contracted_b[size_t(d)]) {
      perm_b.push_back(d);
      out_shape.push_back(b.size(d));
      free_b *= b.size(d);
    }
  const Tensor left = a.permute(perm_a).reshape({free_a, k}), right = b.permute(perm_b).reshape({k, free_b});
  return mm(left, right).reshape(out_shape);
}

Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  EMBER_CHECK_ARG(dims >= 0, "tensordot expects dims >= 0, but got dims={}", dims);
  EMBER_CHECK_ARG(dims <= a.dim() && dims <= b.dim(),
                  "tensordot expects dims < ndim_a or ndim_b, but got dims={}", dims);
  std::vector<int64_t> da, db;
  for (int64_t i = 0; i < dims; ++i) {
    da.push_back(a.dim() - dims + i);
    db.push_back(i);
  }
  return tensordot(a, b, da, db);
}

Tensor vdot(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.dim() == 1 && b.dim() == 1, "1D tensors expected, but got {}D and {}D tensors", a.dim(),
                  b.dim());
  return dot(a, b);
}

Tensor inner(const Tensor& a, const Tensor& b) {
  if (a.dim() == 0 || b.dim() == 0) return a * b;
  EMBER_CHECK_ARG(a.size(-1) == b.size(-1),
                  "inner() the last dimension must match on both input tensors but got shapes {} and {}",
                  shape_str(a.sizes()), shape_str(b.sizes()));
  return tensordot(a, b, {-1}, {-1});
}

Tensor chain_matmul(const std::vector<Tensor>& matrices) {
  EMBER_CHECK_ARG(!matrices.empty(), "chain_matmul(): Expected one or more matrices");
  for (const Tensor& m : matrices)
    EMBER_CHECK_ARG(m.dim() == 2, "Tensor dimension is {}, expected 2 instead.", m.dim());
  if (matrices.size() == 1) return matrices[0].clone();
  Tensor out = matrices[0];
  for (size_t i = 1; i < matrices.size(); ++i) out = mm(out, matrices[i]);
  return out;
}

Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::optional<int64_t> compute_mode) {
  EMBER_CHECK_ARG(x1.dim() >= 2, "cdist only supports at least 2D tensors, X1 got: {}D", x1.dim());
  EMBER_CHECK_ARG(x2.dim() >= 2, "cdist only supports at least 2D tensors, X2 got: {}D", x2.dim());
  EMBER_CHECK_ARG(x1.size(-1) == x2.size(-1), "X1 and X2 must have the same number of columns. X1: {} X2: {}",
                  x1.size(-1), x2.size(-1));
  EMBER_CHECK_ARG(p >= 0, "cdist only supports non-negative p values");
  EMBER_CHECK_ARG(!compute_mode || (*compute_mode >= 0 && *compute_mode <= 2),
                  "{} is not a valid value for compute_mode", compute_mode.value_or(0));
  EMBER_CHECK_ARG(x1.is_floating_point() && x2.is_floating_point(),
                  "cdist only supports floating-point dtypes, X1 got: {}", name(x1.dtype()));
  EMBER_CHECK_ARG(x1.dtype() == x2.dtype(), "expected scalar type {} but found {}",
                  detail::torch_name(x1.dtype()), detail::torch_name(x2.dtype()));
  // libtorch's rule: Euclidean distances of more than 25 rows (or compute_mode 1) through
  // one matmul, |x1|^2 + |x2|^2 - 2 x1 x2^T, with no [P, R, M] intermediate.
  const int64_t mode = compute_mode.value_or(0);
  if (p == 2 && (mode == 1 || (mode == 0 && (x1.size(-2) > 25 || x2.size(-2) > 25)))) {
    const Tensor n1 = x1.pow(2).sum({-1}, true), n2 = x2.pow(2).sum({-1}, true);
    const Tensor squared = n1 + n2.transpose(-2, -1) - matmul(x1, x2.transpose(-2, -1)) * 2;
    // A zero distance has gradient 0 (as libtorch's), not sqrt's infinite slope.
    const Tensor positive = squared > 0;
    return where(positive, sqrt(where(positive, squared, ones({}, squared.options()))),
                 zeros({}, squared.options()));
  }
  // Otherwise every pair's difference, then the p-norm over the last dim.
  const Tensor diff = x1.unsqueeze(-2) - x2.unsqueeze(-3);
  return norm(diff, p, {-1});
}

// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~ einsum ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~

namespace {

// Labels: 0..51 for A-Z, a-z; kEllipsis marks "..." in a term.
constexpr int kLabels = 52;
constexpr int kEllipsis = -1;

int label_of(char c) { return c >= 'A' && c <= 'Z' ? c - 'A' : c - 'a' + 26; }
char char_of(int label) { return char(label < 26 ? 'A' + label : 'a' + label - 26); }
bool is_subscript(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }

// One term of the equation as labels, "..." as kEllipsis; `offset` is the term's position
// in the equation and `operand` its index (-1: the output), for error texts.
std::vector<int> parse_term(std::string_view term, size_t offset, int operand) {
  const std::string who = operand < 0 ? "output" : "operand " + std::to_string(operand);
  std::vector<int> labels;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK_ARG(term.substr(i, 3) == "...",
                      "einsum(): found '.' for {} that is not part of any ellipsis (...)", who);
      EMBER_CHECK_ARG(std::find(labels.begin(), labels.end(), kEllipsis) == labels.end(),
                      "einsum(): found '.' for {} for which an ellipsis was already found", who);
      labels.push_back(kEllipsis);
      i += 2;
      continue;
    }
    EMBER_CHECK_ARG(
        is_subscript(c),
        "einsum(): invalid subscript given at index {} in the equation string, subscripts must be in "
        "[a-zA-Z]",
        offset + i);
    labels.push_back(label_of(c));
  }
  return labels;
}

// An operand laid out over all dims of the computation: ellipsis dims first (right
// aligned), then one dim per label (size 1 where the operand lacks it).
Tensor to_common_layout(const Tensor& x, const std::vector<int>& term, size_t operand, int64_t ell_dims,
                        const std::vector<int>& label_dim) {
  const int64_t letters =
      int64_t(std::count_if(term.begin(), term.end(), [](int l) { return l != kEllipsis; }));
  const bool has_ellipsis = int64_t(term.size()) != letters;
  if (has_ellipsis) {
    EMBER_CHECK_ARG(letters <= x.dim(),
                    "einsum(): the number of subscripts in the equation ({}) is more than the number of "
                    "dimensions ({}) for operand {}",
                    letters, x.dim(), operand);
  } else {
    EMBER_CHECK_ARG(letters == x.dim(),
                    "einsum(): the number of subscripts in the equation ({}) does not match the number of "
                    "dimensions ({}) for operand {} and no ellipsis was given",
                    letters, x.dim(), operand);
  }
  const int64_t own_ell = x.dim() - letters;
  const int64_t total =
      ell_dims + int64_t(std::count_if(label_dim.begin(), label_dim.end(), [](int d) { return d >= 0; }));
  Tensor t = x;
  // Repeated labels take the diagonal: the second occurrence is folded into the first.
  std::vector<int> dims_label;  // label of each of t's dims, kEllipsis for ellipsis dims
  for (int l : term) {
    if (l == kEllipsis)
      dims_label.insert(dims_label.end(), size_t(own_ell), kEllipsis);
    else
      dims_label.push_back(l);
  }
  for (size_t i = 0; i < dims_label.size(); ++i) {
    if (dims_label[i] == kEllipsis) continue;
    for (size_t j = i + 1; j < dims_label.size();) {
      if (dims_label[j] != dims_label[i]) {
        ++j;
        continue;
      }
      EMBER_CHECK_ARG(t.size(int64_t(i)) == t.size(int64_t(j)),
                      "einsum(): subscript {} is repeated for operand {} but the sizes don't match, {} != {}",
                      char_of(dims_label[i]), operand, t.size(int64_t(j)), t.size(int64_t(i)));
      // diagonal() appends the diagonal as the last dim; move it back to position i.
      t = movedim(diagonal(t, 0, int64_t(i), int64_t(j)), -1, int64_t(i));
      dims_label.erase(dims_label.begin() + int64_t(j));
    }
  }
  // Permute into the common order, then insert size-1 dims for the missing ones.
  std::vector<int64_t> target(dims_label.size());
  int64_t e = 0;
  for (size_t i = 0; i < dims_label.size(); ++i)
    target[i] =
        dims_label[i] == kEllipsis ? ell_dims - own_ell + e++ : ell_dims + label_dim[size_t(dims_label[i])];
  std::vector<int64_t> order(dims_label.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](int64_t a, int64_t b) { return target[size_t(a)] < target[size_t(b)]; });
  t = t.permute(order);
  std::vector<int64_t> shape(size_t(total), 1);
  for (size_t i = 0; i < order.size(); ++i) shape[size_t(target[size_t(order[i])])] = t.size(int64_t(i));
  return t.reshape(shape);
}

// libtorch's sumproduct_pair: left * right summed over `sum_dims`, through one bmm; both
// in the common layout, and so is the result (summed dims kept with size 1).
Tensor sum_product(Tensor left, Tensor right, const std::vector<bool>& sum_dims) {
  const int64_t n = left.dim();
  std::vector<int64_t> batch, left_only, right_only, summed;
  int64_t batch_size = 1, left_size = 1, right_size = 1, sum_size = 1;
  for (int64_t d = 0; d < n; ++d) {
    // Size 1 broadcasts; einsum checked that other sizes (0 included) agree.
    const bool l = left.size(d) != 1, r = right.size(d) != 1;
    if (sum_dims[size_t(d)]) {
      if (l && r) {
        summed.push_back(d);
        sum_size *= left.size(d);
      } else if (l) {
        left = left.sum({d}, true);
      } else if (r) {
        right = right.sum({d}, true);
      }
    } else if (l && r) {
      batch.push_back(d);
      batch_size *= left.size(d);
    } else if (l) {
      left_only.push_back(d);
      left_size *= left.size(d);
    } else if (r) {
      right_only.push_back(d);
      right_size *= right.size(d);
    }
  }
  // Dims of size 1 on both sides stay size 1 in the result.
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < n; ++d) {
    const auto in = [d](const std::vector<int64_t>& v) {
      return std::find(v.begin(), v.end(), d) != v.end();
    };
    if (!in(batch) && !in(left_only) && !in(right_only) && !in(summed)) rest.push_back(d);
  }
  std::vector<int64_t> lperm = batch, rperm = batch;
  lperm.insert(lperm.end(), left_only.begin(), left_only.end());
  lperm.insert(lperm.end(), summed.begin(), summed.end());
  lperm.insert(lperm.end(), right_only.begin(), right_only.end());
  lperm.insert(lperm.end(), rest.begin(), rest.end());
  rperm.insert(rperm.end(), summed.begin(), summed.end());
  rperm.insert(rperm.end(), right_only.begin(), right_only.end());
  rperm.insert(rperm.end(), left_only.begin(), left_only.end());
  rperm.insert(rperm.end(), rest.begin(), rest.end());
  const Tensor lm = left.permute(lperm).reshape({batch_size, left_size, sum_size});
  const Tensor rm = right.permute(rperm).reshape({batch_size, sum_size, right_size});
  Tensor out = bmm(lm, rm);
  // Back to the common layout: batch, left-only, right-only dims with their sizes; the
  // summed and the rest with size 1.
  std::vector<int64_t> out_dims = batch, out_shape;
  out_dims.insert(out_dims.end(), left_only.begin(), left_only.end());
  out_dims.insert(out_dims.end(), right_only.begin(), right_only.end());
  const size_t kept = out_dims.size();
  out_dims.insert(out_dims.end(), summed.begin(), summed.end());
  out_dims.insert(out_dims.end(), rest.begin(), rest.end());
  for (size_t i = 0; i < out_dims.size(); ++i)
    out_shape.push_back(i >= kept                     ? 1
                        : left.size(out_dims[i]) != 1 ? left.size(out_dims[i])
                                                      : right.size(out_dims[i]));
  out = out.reshape(out_shape);
  std::vector<int64_t> inverse(static_cast<size_t>(n));
  for (size_t i = 0; i < out_dims.size(); ++i) inverse[size_t(out_dims[i])] = int64_t(i);
  return out.permute(inverse);
}

}  // namespace

Tensor einsum(std::string_view equation, const std::vector<Tensor>& operands) {
  EMBER_CHECK_ARG(
      !operands.empty(),
      "einsum(): must specify the equation string and at least one operand, or at least one operand "
      "and its subscripts list");
  const size_t arrow = equation.find("->");
  const std::string_view lhs = equation.substr(0, arrow);
  std::vector<std::vector<int>> terms;
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    const std::string_view term =
        lhs.substr(start, comma == std::string_view::npos ? lhs.size() - start : comma - start);
    EMBER_CHECK_ARG(terms.size() < operands.size(),
                    "einsum(): fewer operands were provided than specified in the equation");
    terms.push_back(parse_term(term, start, int(terms.size())));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK_ARG(terms.size() == operands.size(),
                  "einsum(): more operands were provided than specified in the equation");

  // Label counts, and the ellipsis dims (the most any operand covers).
  std::vector<int> count(kLabels, 0);
  int64_t ell_dims = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    int64_t letters = 0;
    for (int l : terms[i])
      if (l != kEllipsis) {
        ++count[size_t(l)];
        ++letters;
      }
    if (std::find(terms[i].begin(), terms[i].end(), kEllipsis) != terms[i].end())
      ell_dims = std::max(ell_dims, operands[i].dim() - letters);
  }
  // The output: explicit, or the ellipsis then each label used once, in label order.
  std::vector<int> output;
  if (arrow != std::string_view::npos) {
    output = parse_term(equation.substr(arrow + 2), arrow + 2, -1);
    std::vector<bool> seen(kLabels, false);
    for (int l : output) {
      if (l == kEllipsis) continue;
      EMBER_CHECK_ARG(!seen[size_t(l)], "einsum(): output subscript {} appears more than once in the output",
                      char_of(l));
      EMBER_CHECK_ARG(count[size_t(l)] > 0,
                      "einsum(): output subscript {} does not appear in the equation for any input operand",
                      char_of(l));
      seen[size_t(l)] = true;
    }
  } else {
    if (ell_dims > 0 || std::any_of(terms.begin(), terms.end(), [](const std::vector<int>& t) {
          return std::find(t.begin(), t.end(), kEllipsis) != t.end();
        }))
      output.push_back(kEllipsis);
    for (int l = 0; l < kLabels; ++l)
      if (count[size_t(l)] == 1) output.push_back(l);
  }
  // Common layout: ellipsis dims, then the labels in use in label order.
  std::vector<int> label_dim(kLabels, -1);
  int next = 0;
  for (int l = 0; l < kLabels; ++l)
    if (count[size_t(l)] > 0) label_dim[size_t(l)] = next++;
  const int64_t total = ell_dims + next;
  std::vector<bool> in_output(size_t(total), false);
  const bool output_ellipsis = std::find(output.begin(), output.end(), kEllipsis) != output.end();
  for (int64_t d = 0; d < ell_dims; ++d) in_output[size_t(d)] = output_ellipsis;
  for (int l : output)
    if (l != kEllipsis) in_output[size_t(ell_dims + label_dim[size_t(l)])] = true;

  std::vector<Tensor> laid;
  for (size_t i = 0; i < operands.size(); ++i)
    laid.push_back(to_common_layout(operands[i], terms[i], i, ell_dims, label_dim));
  // Each dim's sizes across operands agree, or are 1 (broadcast).
  for (int64_t d = 0; d < total; ++d) {
    int64_t seen = 1;
    for (size_t i = 0; i < laid.size(); ++i) {
      const int64_t s = laid[i].size(d);
      if (s == 1) continue;
      if (d >= ell_dims) {
        const int label =
            int(std::find(label_dim.begin(), label_dim.end(), int(d - ell_dims)) - label_dim.begin());
        EMBER_CHECK_ARG(
            seen == 1 || s == seen,
            "einsum(): subscript {} has size {} for operand {} which does not broadcast with previously "
            "seen size {}",
            char_of(label), s, i, seen);
      } else {
        EMBER_CHECK_ARG(
            seen == 1 || s == seen,
            "einsum(): operands do not broadcast with remapped shapes (original->remapped): operand {} "
            "has size {} in ellipsis dim {} where an earlier operand has {}",
            i, s, d, seen);
      }
      seen = s;
    }
  }
  // A dim is summed at the first point no later operand and not the output needs it.
  const auto needed_after = [&](size_t i, int64_t d) {
    if (in_output[size_t(d)]) return true;
    for (size_t j = i + 1; j < laid.size(); ++j)
      if (laid[j].size(d) != 1) return true;
    return false;
  };
  Tensor result = laid[0];
  for (int64_t d = 0; d < total; ++d)
    if (result.size(d) != 1 && !needed_after(0, d)) result = result.sum({d}, true);
  for (size_t i = 1; i < laid.size(); ++i) {
    std::vector<bool> sum_dims(static_cast<size_t>(total));
    for (int64_t d = 0; d < total; ++d) sum_dims[size_t(d)] = !needed_after(i, d);
    result = sum_product(result, laid[i], sum_dims);
  }
  // The output's dims in its order; everything else has been summed to size 1.
  std::vector<int64_t> perm, shape;
  for (int l : output) {
    if (l == kEllipsis) {
      for (int64_t d = 0; d < ell_dims; ++d) perm.push_back(d);
    } else {
      perm.push_back(ell_dims + label_dim[size_t(l)]);
    }
  }
  for (int64_t d = 0; d < total; ++d)
    if (std::find(perm.begin(), perm.end(), d) == perm.end()) {
      if (result.size(d) != 1) result = result.sum({d}, true);
      perm.push_back(d);
    }
  result = result.permute(perm);
  const size_t rank =
      size_t(output_ellipsis ? ell_dims : 0) +
      size_t(std::count_if(output.begin(), output.end(), [](int l) { return l != kEllipsis; }));
  for (size_t i = 0; i < rank; ++i) shape.push_back(result.size(int64_t(i)));
  return result.reshape(shape);
}

}  // namespace ember
