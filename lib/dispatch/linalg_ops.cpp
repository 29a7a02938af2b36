// Matmul family front-end: torch.matmul's shape rules, then one MatmulArgs per call.
// Operands whose strides BLAS can read (unit stride in rows or columns) are passed as
// they are, transposed or not; anything else is made contiguous first.
#include "autograd/grad_ops.h"
#include "autograd/hooks.h"
#include "core/check.h"
#include "core/torch_dtype_name.h"
#include "dispatch/autocast.h"
#include "dispatch/kernel_table.h"
#include "dispatch/type_promotion.h"
#include "ember/cuda.h"
#include "ember/ops.h"
#include "iter/elementwise_iter.h"
#include "placement/placement.h"
#include "tensor/inference.h"
#include "tensor/tensor_factory.h"

namespace ember {

using detail::shape_str;

namespace {

// A matrix operand as BLAS reads it: [batch x] rows x cols with element strides, read
// straight from a 2-D or 3-D tensor's metadata (no view objects on the hot path).
struct MatOperand {
  Tensor keep;  // the tensor, or its contiguous copy when BLAS cannot read its strides
  const char* data = nullptr;
  int64_t batch = 1, rows = 0, cols = 0, bs = 0, rs = 0, cs = 0;
};

MatOperand mat_operand(const Tensor& t) {
  MatOperand m;
  const size_t d = size_t(t.dim());
  IntArrayRef sz = t.sizes(), st = t.strides();
  m.batch = d == 3 ? sz[0] : 1;
  m.rows = sz[d - 2], m.cols = sz[d - 1];
  m.bs = d == 3 && m.batch > 1 ? st[0] : 0;
  m.rs = st[d - 2], m.cs = st[d - 1];
  // Size-1 dims may carry any stride: give them the one BLAS expects.
  if (m.cols <= 1 && m.rs != 1) m.cs = 1;
  if (m.rows <= 1) m.rs = m.cs == 1 ? std::max<int64_t>(m.cols, 1) : 1;
  const bool row_major = m.cs == 1 && m.rs >= std::max<int64_t>(m.cols, 1);
  const bool col_major = m.rs == 1 && m.cs >= std::max<int64_t>(m.rows, 1);
  if (row_major || col_major) {
    m.keep = t;
  } else {
    m.keep = t.contiguous();
    m.rs = std::max<int64_t>(m.cols, 1), m.cs = 1;
    m.bs = m.batch > 1 ? m.rows * m.cols : 0;
  }
  m.data = static_cast<const char*>(m.keep.data_ptr());
  return m;
}

// c[b] = alpha * a[b] @ b[b] + beta * c[b] for a contiguous c of shape [(batch,) m, n].
void gemm(const Tensor& a0, const Tensor& b0, Tensor& c, double alpha, double beta, detail::DeviceEntry& dev) {
  auto kernel = detail::lookup_kernel<MatmulKernel>(Op::MatMul, dev.device.type(), a0.dtype());
  const MatOperand a = mat_operand(a0), b = mat_operand(b0);
  MatmulArgs args;
  args.dtype = a0.dtype();
  args.batch = std::max(a.batch, b.batch);
  args.m = a.rows;
  args.n = b.cols;
  args.k = a.cols;
  args.a = a.data;
  args.b = b.data;
  args.c = static_cast<char*>(c.data_ptr());
  args.a_strides[0] = a.bs, args.a_strides[1] = a.rs, args.a_strides[2] = a.cs;
  args.b_strides[0] = b.bs, args.b_strides[1] = b.rs, args.b_strides[2] = b.cs;
  args.c_strides[0] = args.m * args.n, args.c_strides[1] = std::max<int64_t>(args.n, 1), args.c_strides[2] = 1;
  args.alpha = alpha;
  args.beta = beta;
  args.allow_tf32 = cuda::allow_tf32();
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
  EMBER_CHECK_ARG(a.dtype() == b.dtype(), "{}: expected scalar type {} but found {}", name,
                  detail::torch_name(a.dtype()), detail::torch_name(b.dtype()));
  Tensor ins[2] = {a, b};
  detail::DeviceEntry& dev = detail::place_op(op, ins, 2, a.dtype());
  return {ins[0], ins[1], &dev};
}

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  if (EMBER_AUTOCAST_LOW2(a, b)) return mm(detail::autocast_low(a), detail::autocast_low(b));
  if (EMBER_GRAD_RECORDING2(a, b)) return autograd::detail::mm(a, b);
  auto p = prepare(Op::MatMul, "mm", a, b);
  EMBER_CHECK_ARG(p.a.dim() == 2 && p.b.dim() == 2, "mm: expected 2-D tensors, but got {}-D and {}-D", p.a.dim(), p.b.dim());
  EMBER_CHECK_ARG(p.a.size(1) == p.b.size(0),
                  "mm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", p.a.size(0), p.a.size(1),
                  p.b.size(0), p.b.size(1));
  Tensor c = detail::empty_on({p.a.sizes()[0], p.b.sizes()[1]}, p.a.dtype(), *p.dev);
  gemm(p.a, p.b, c, 1, 0, *p.dev);
  return c;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (EMBER_AUTOCAST_LOW2(a, b)) return bmm(detail::autocast_low(a), detail::autocast_low(b));
  if (EMBER_GRAD_RECORDING2(a, b)) return autograd::detail::bmm(a, b);
  auto p = prepare(Op::MatMul, "bmm", a, b);
  EMBER_CHECK_ARG(p.a.dim() == 3 && p.b.dim() == 3, "bmm: expected 3-D tensors, but got {}-D and {}-D", p.a.dim(), p.b.dim());
  EMBER_CHECK_ARG(p.a.size(0) == p.b.size(0) && p.a.size(2) == p.b.size(1),
                  "bmm: batch1 and batch2 shapes cannot be multiplied ({} and {})", shape_str(p.a.sizes()),
                  shape_str(p.b.sizes()));
  Tensor c = detail::empty_on({p.a.size(0), p.a.size(1), p.b.size(2)}, p.a.dtype(), *p.dev);
  gemm(p.a, p.b, c, 1, 0, *p.dev);
  return c;
}

Tensor mv(const Tensor& a, const Tensor& v) {
  if (EMBER_AUTOCAST_LOW2(a, v)) return mv(detail::autocast_low(a), detail::autocast_low(v));
  if (EMBER_GRAD_RECORDING2(a, v)) return autograd::detail::mv(a, v);
  EMBER_CHECK_ARG(a.defined() && v.defined() && a.dim() == 2 && v.dim() == 1,
                  "mv: expected a 2-D matrix and a 1-D vector, but got {}-D and {}-D", a.defined() ? a.dim() : -1,
                  v.defined() ? v.dim() : -1);
  EMBER_CHECK_ARG(a.size(1) == v.size(0), "mv: size mismatch, got input ({}x{}) and vector ({})", a.size(0),
                  a.size(1), v.size(0));
  return mm(a, v.unsqueeze(1)).squeeze(1);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  if (EMBER_AUTOCAST_LOW2(a, b)) return dot(detail::autocast_low(a), detail::autocast_low(b));
  if (EMBER_GRAD_RECORDING2(a, b)) return autograd::detail::dot(a, b);
  EMBER_CHECK_ARG(a.defined() && b.defined() && a.dim() == 1 && b.dim() == 1,
                  "dot: 1D tensors expected, but got {}D and {}D tensors", a.defined() ? a.dim() : -1,
                  b.defined() ? b.dim() : -1);
  EMBER_CHECK_ARG(a.dtype() == b.dtype(),
                  "dot: expected both vectors to have same dtype, but found {} and {}",
                  detail::torch_name(a.dtype()), detail::torch_name(b.dtype()));
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
  EMBER_CHECK_ARG(c.defined(), "addmm: undefined input");
  if (EMBER_AUTOCAST_LOW2(a, b) || (detail::autocast_on() && detail::autocast_wants_low(c)))
    return addmm(detail::autocast_low(c), detail::autocast_low(a), detail::autocast_low(b), beta, alpha);
  if (__builtin_expect((autograd::detail::may_record(c) || autograd::detail::may_record(a) || autograd::detail::may_record(b)) &&
                           GradMode::is_enabled(), 0))
    return autograd::detail::addmm(c, a, b, beta, alpha);
  auto p = prepare(Op::MatMul, "addmm", a, b);
  EMBER_CHECK_ARG(p.a.dim() == 2 && p.b.dim() == 2, "addmm: expected 2-D matrices, but got {}-D and {}-D", p.a.dim(),
                  p.b.dim());
  const int64_t m = p.a.sizes()[0], k = p.a.sizes()[1], n = p.b.sizes()[1];
  EMBER_CHECK_ARG(k == p.b.sizes()[0], "addmm: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", m, k,
                  p.b.sizes()[0], n);
  EMBER_CHECK_ARG(c.dtype() == p.a.dtype(),
                  "addmm: self and mat2 must have the same dtype, but got {} and {}",
                  detail::torch_name(c.dtype()), detail::torch_name(p.a.dtype()));
  const int64_t shape[2] = {m, n};
  EMBER_CHECK_ARG(detail::broadcast_shapes(c.sizes(), IntArrayRef(shape, 2), "addmm") == IntArrayRef(shape, 2),
                  "addmm: input of shape {} cannot be broadcast to the product's shape [{}, {}]", shape_str(c.sizes()),
                  m, n);
  // One copy of c (broadcast) into the output; the GEMM adds beta * out itself.
  Tensor out = detail::empty_on(IntArrayRef(shape, 2), p.a.dtype(), *p.dev);
  const double beta_d = beta.to_double();
  if (beta_d != 0) out.copy_(c);  // beta == 0 ignores c entirely, NaNs included, as torch
  gemm(p.a, p.b, out, alpha.to_double(), beta_d, *p.dev);
  return out;
}

Tensor linear(const Tensor& x, const Tensor& w, const Tensor& bias) {
  EMBER_CHECK_ARG(w.defined() && w.dim() == 2, "linear: weight must be a 2-D tensor");
  if (EMBER_AUTOCAST_LOW2(x, w) || (detail::autocast_on() && bias.defined() && detail::autocast_wants_low(bias)))
    return linear(detail::autocast_low(x), detail::autocast_low(w), detail::autocast_low(bias));
  // libtorch records a 2-D input with a bias as one addmm (AddmmBackward0).
  if (x.defined() && x.dim() == 2 && bias.defined() && bias.dim() <= 1 && bias.dtype() == x.dtype() &&
      (EMBER_GRAD_RECORDING2(x, w) || EMBER_GRAD_RECORDING(bias)))
    return addmm(bias, x, w.t());
  Tensor y = matmul(x, w.t());
  return bias.defined() ? add(y, bias) : y;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(a.defined() && b.defined(), "matmul: undefined tensor");
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK_ARG(da >= 1 && db >= 1,
                  "matmul: both arguments to matmul need to be at least 1D, but they are {}D and {}D", da, db);
  if (EMBER_AUTOCAST_LOW2(a, b)) return matmul(detail::autocast_low(a), detail::autocast_low(b));
  if (da == 1 && db == 1) return dot(a, b);
  if (da == 2 && db == 1) return mv(a, b);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0), b).squeeze(0);
  if (da == 2 && db == 2) return mm(a, b);
  if (da >= 3 && db <= 2) {
    // As libtorch: a's batch dims fold into its rows, one GEMM (and one in backward) instead
    // of a batch of small ones; reshape, mm and view record their own gradients.
    const int64_t k = a.size(-1), k2 = b.size(0);
    SizesVector out_shape(IntArrayRef(a.sizes().data(), size_t(da - 1)));
    int64_t m = 1;
    for (int64_t s : out_shape) m *= s;
    EMBER_CHECK_ARG(k == k2, "matmul: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{}); shapes {} and {}",
                    m, k, k2, db == 2 ? b.size(1) : 1, shape_str(a.sizes()), shape_str(b.sizes()));
    if (db == 2) out_shape.push_back(b.size(1));
    Tensor rows = a.reshape({m, k});
    return (db == 2 ? mm(rows, b) : mv(rows, b)).view(out_shape);
  }
  if (EMBER_GRAD_RECORDING2(a, b)) return autograd::detail::matmul_batched(a, b);
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
  gemm(A3, B3, C, 1, 0, *p.dev);
  SizesVector out_shape(batch);
  if (da > 1) out_shape.push_back(m);
  if (db > 1) out_shape.push_back(n);
  return C.view(out_shape);
}

Tensor& matmul_out(Tensor& out, const Tensor& a, const Tensor& b) {
  EMBER_CHECK_ARG(out.defined(), "matmul_out: undefined output");
  detail::check_writable(out);
  if (EMBER_GRAD_RECORDING2(a, b) && (autograd::detail::requires_grad(a) || autograd::detail::requires_grad(b)))
    autograd::detail::throw_out_requires_grad("matmul");
  // The 2-D case writes straight into a contiguous output of the right dtype and device,
  // unless out shares memory with an input (gemm would read what it has just written).
  if (a.defined() && b.defined() && a.dim() == 2 && b.dim() == 2 && out.numel() != 0 && out.is_contiguous() &&
      out.dtype() == a.dtype() && out.device() == a.device() && out.storage() != a.storage() &&
      out.storage() != b.storage()) {
    auto p = prepare(Op::MatMul, "matmul_out", a, b);
    EMBER_CHECK_ARG(p.a.sizes()[1] == p.b.sizes()[0],
                    "matmul_out: mat1 and mat2 shapes cannot be multiplied ({}x{} and {}x{})", p.a.sizes()[0],
                    p.a.sizes()[1], p.b.sizes()[0], p.b.sizes()[1]);
    EMBER_CHECK_ARG(out.dim() == 2 && out.sizes()[0] == p.a.sizes()[0] && out.sizes()[1] == p.b.sizes()[1],
                    "matmul_out: output of shape {} does not match the result's shape [{}, {}]",
                    shape_str(out.sizes()), p.a.sizes()[0], p.b.sizes()[1]);
    if (p.dev->device == out.device()) {
      gemm(p.a, p.b, out, 1, 0, *p.dev);
      return out;
    }
  }
  Tensor r = matmul(a, b);
  detail::EmptyOutputResize resize(out, r.sizes());  // an empty output takes the result's shape
  EMBER_CHECK_ARG(out.sizes() == r.sizes(), "matmul_out: output of shape {} does not match the result's shape {}",
                  shape_str(out.sizes()), shape_str(r.sizes()));
  out.copy_(r);
  resize.commit();
  return out;
}

}  // namespace ember
