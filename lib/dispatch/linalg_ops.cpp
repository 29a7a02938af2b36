// Matmul family front-end: torch.matmul's shape rules, then one MatmulArgs per call.
// Operands whose strides BLAS can read (unit stride in rows or columns) are passed as
// they are, transposed or not; anything else is made contiguous first.
#include "core/check.h"
#include "dispatch/kernel_table.h"
#include "dispatch/type_promotion.h"
#include "ember/cuda.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "placement/placement.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;

namespace {

// A 3-D operand [batch, rows, cols] as BLAS sees it, made contiguous if needed.
Tensor blas_ready(const Tensor& t) {
  const int64_t rs = t.stride(1), cs = t.stride(2), rows = t.size(1), cols = t.size(2);
  const bool row_major = cs == 1 && rs >= std::max<int64_t>(cols, 1);
  const bool col_major = rs == 1 && cs >= std::max<int64_t>(rows, 1);
  if (row_major || col_major || rows <= 1 || cols <= 1) {
    // Degenerate dims have arbitrary strides: normalise so BLAS sees a valid leading dim.
    if (!(row_major || col_major)) return t.contiguous();
    return t;
  }
  return t.contiguous();
}

// c[b] = alpha * a[b] @ b[b] + beta * c[b]; a: [B, m, k], b: [B, k, n], c: [B, m, n] contiguous.
void gemm(Op op, const Tensor& a0, const Tensor& b0, Tensor& c, double alpha, double beta, detail::DeviceEntry& dev) {
  auto kernel = detail::lookup_kernel<MatmulKernel>(Op::MatMul, dev.device.type(), a0.dtype());
  Tensor a = blas_ready(a0), b = blas_ready(b0);
  MatmulArgs args;
  args.dtype = a.dtype();
  args.batch = c.size(0);
  args.m = c.size(1);
  args.n = c.size(2);
  args.k = a.size(2);
  args.a = static_cast<const char*>(a.data_ptr());
  args.b = static_cast<const char*>(b.data_ptr());
  args.c = static_cast<char*>(c.data_ptr());
  for (int i = 0; i < 3; ++i) {
    args.a_strides[i] = a.size(0) == 1 && i == 0 ? 0 : a.stride(i);
    args.b_strides[i] = b.size(0) == 1 && i == 0 ? 0 : b.stride(i);
    args.c_strides[i] = c.stride(i);
  }
  // Size-1 dims may carry any stride; give BLAS a consistent one.
  if (args.m == 1) args.a_strides[1] = args.k, args.c_strides[1] = args.n;
  if (args.k == 1) args.a_strides[2] = 1, args.b_strides[1] = args.n;
  if (args.n == 1) args.b_strides[2] = 1;
  args.alpha = alpha;
  args.beta = beta;
  args.allow_tf32 = cuda::allow_tf32();
  (void)op;
  if (args.k == 0 && beta == 0) {
    c.zero_();
    return;
  }
  kernel(args);
}

struct Prepared {
  Tensor a, b;
  detail::DeviceEntry* dev;
};

Prepared prepare(Op op, const char* name, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "{}: undefined tensor", name);
  EMBER_CHECK_ARG(a.dtype() == b.dtype(),
                  "{}: expected both inputs to have the same dtype, but got {} and {}", name, ember::name(a.dtype()),
                  ember::name(b.dtype()));
  Tensor ins[2] = {a, b};
  detail::DeviceEntry& dev = detail::place_op(op, ins, 2, a.dtype());
  return {ins[0], ins[1], &dev};
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  auto p = prepare(Op::MatMul, "mm", a, b);
  EMBER_CHECK_ARG(p.a.dim() == 2 && p.b.dim() == 2, "mm: expected 2-D tensors, but got {}-D and {}-D", p.a.dim(), p.b.dim());
  EMBER_CHECK_ARG(p.a.size(1) == p.b.size(0),
                  "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", p.a.size(0), p.a.size(1),
                  p.b.size(0), p.b.size(1));
  Tensor c = detail::empty_on({1, p.a.size(0), p.b.size(1)}, p.a.dtype(), *p.dev);
  gemm(Op::MatMul, p.a.unsqueeze(0), p.b.unsqueeze(0), c, 1, 0, *p.dev);
  return c.squeeze(0);
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  auto p = prepare(Op::MatMul, "bmm", a, b);
  EMBER_CHECK_ARG(p.a.dim() == 3 && p.b.dim() == 3, "bmm: expected 3-D tensors, but got {}-D and {}-D", p.a.dim(), p.b.dim());
  EMBER_CHECK_ARG(p.a.size(0) == p.b.size(0) && p.a.size(2) == p.b.size(1),
                  "bmm: batch1 and batch2 shapes cannot be multiplied ({} and {})", shape_str(p.a.sizes()),
                  shape_str(p.b.sizes()));
  Tensor c = detail::empty_on({p.a.size(0), p.a.size(1), p.b.size(2)}, p.a.dtype(), *p.dev);
  gemm(Op::MatMul, p.a, p.b, c, 1, 0, *p.dev);
  return c;
}

Tensor mv(const Tensor& a, const Tensor& v) {
  EMBER_CHECK_ARG(a.defined() && v.defined() && a.dim() == 2 && v.dim() == 1,
                  "mv: expected a 2-D matrix and a 1-D vector, but got {}-D and {}-D", a.defined() ? a.dim() : -1,
                  v.defined() ? v.dim() : -1);
  EMBER_CHECK_ARG(a.size(1) == v.size(0), "mv: size mismatch, got input ({}x{}) and vector ({})", a.size(0),
                  a.size(1), v.size(0));
  return mm(a, v.unsqueeze(1)).squeeze(1);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.defined() && b.defined() && a.dim() == 1 && b.dim() == 1,
                  "dot: 1D tensors expected, but got {}D and {}D tensors", a.defined() ? a.dim() : -1,
                  b.defined() ? b.dim() : -1);
  EMBER_CHECK_ARG(a.size(0) == b.size(0),
                  "dot: inconsistent tensor size, expected tensor [{}] and src [{}] to have the same number of "
                  "elements", a.size(0), b.size(0));
  return mm(a.unsqueeze(0), b.unsqueeze(1)).reshape({});
}

Tensor outer(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.defined() && b.defined() && a.dim() == 1 && b.dim() == 1,
                  "outer: 1D tensors expected, but got {}D and {}D tensors", a.defined() ? a.dim() : -1,
                  b.defined() ? b.dim() : -1);
  return mul(a.unsqueeze(1), b.unsqueeze(0));
}

Tensor addmm(const Tensor& c, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  Tensor prod = mm(a, b);
  EMBER_CHECK_ARG(c.defined(), "addmm: undefined input");
  detail::broadcast_shapes(c.sizes(), prod.sizes(), "addmm");
  EMBER_CHECK_ARG(detail::broadcast_shapes(c.sizes(), prod.sizes(), "addmm") == prod.sizes(),
                  "addmm: input of shape {} cannot be broadcast to the product's shape {}", shape_str(c.sizes()),
                  shape_str(prod.sizes()));
  // beta * c is added through the GEMM itself when c already has the product's layout.
  Tensor out = c.expand(prod.sizes()).to(prod.device()).contiguous().clone();
  Tensor out3 = out.unsqueeze(0);
  detail::DeviceEntry& dev = *detail::find_device(out.device());
  gemm(Op::MatMul, a.to(out.device()).unsqueeze(0), b.to(out.device()).unsqueeze(0), out3,
       alpha.to_double(), beta.to_double(), dev);
  return out;
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& bias) {
  EMBER_CHECK_ARG(w.defined() && w.dim() == 2, "linear: weight must be a 2-D tensor");
  Tensor y = matmul(x, w.t());
  return bias.defined() ? add(y, bias) : y;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "matmul: undefined tensor");
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK_ARG(da >= 1 && db >= 1,
                  "matmul: both arguments to matmul need to be at least 1D, but they are {}D and {}D", da, db);
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);
  // Batched: broadcast the batch dims, fold them into one, run bmm-style, unfold.
  Tensor A = da == 1 ? a.unsqueeze(0) : a;
  Tensor B = db == 1 ? b.unsqueeze(1) : b;
  const int64_t m = A.size(-2), k = A.size(-1), k2 = B.size(-2), n = B.size(-1);
  EMBER_CHECK_ARG(k == k2, "matmul: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{}); shapes {} and {}",
                  m, k, k2, n, shape_str(a.sizes()), shape_str(b.sizes()));
  IntArrayRef ba(A.sizes().data(), size_t(A.dim() - 2)), bb(B.sizes().data(), size_t(B.dim() - 2));
  SizesVector batch = detail::broadcast_shapes(ba, bb, "matmul");
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  SizesVector ea(batch), eb(batch);
  ea.push_back(m), ea.push_back(k);
  eb.push_back(k), eb.push_back(n);
  auto p = prepare(Op::MatMul, "matmul", A, B);
  // A batch that is one broadcast matrix (stride 0) stays a stride-0 batch; else reshape.
  Tensor A3 = p.a.expand(ea).reshape({nb, m, k});
  Tensor B3 = p.b.expand(eb).reshape({nb, k, n});
  Tensor C = detail::empty_on({nb, m, n}, A.dtype(), *p.dev);
  gemm(Op::MatMul, A3, B3, C, 1, 0, *p.dev);
  SizesVector out_shape(batch);
  if (da > 1) out_shape.push_back(m);
  if (db > 1) out_shape.push_back(n);
  return C.view(out_shape);
}

Tensor& matmul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  Tensor r = matmul(a, b);
  EMBER_CHECK_ARG(out.defined() && out.sizes() == r.sizes(),
                  "matmul_out: output of shape {} does not match the result's shape {}",
                  out.defined() ? shape_str(out.sizes()) : std::string("undefined"), shape_str(r.sizes()));
  out.copy_(r);
  return out;
}

}  // namespace ember
