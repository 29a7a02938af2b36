#pragma once
// The per-element arithmetic of the fused optimizer steps (OptimArgs in kernel_args.h),
// shared by the CPU and CUDA kernels so both follow libtorch's formulas in the same order:
// each libtorch tensor op of the update becomes one line here, its double scalar cast to
// the compute type M as libtorch casts a Scalar for a tensor of that type.

#include <math.h>

#include "ember/export.h"
#include "ember/kernel_args.h"


namespace ember::detail {

EMBER_HOST_DEVICE inline float optim_sqrt(float x) { return sqrtf(x); }
EMBER_HOST_DEVICE inline double optim_sqrt(double x) { return sqrt(x); }

/// An update's scalars in the compute type M, converted once per kernel call.
template <class M>
struct SgdScalars {
  M weight_decay, momentum, one_minus_dampening, neg_lr;
  bool use_weight_decay, use_momentum, nesterov, first_step;
  explicit SgdScalars(const OptimArgs& a)
      : weight_decay(M(a.weight_decay)), momentum(M(a.momentum)), one_minus_dampening(M(1 - a.dampening)),
        neg_lr(M(-a.lr)), use_weight_decay(a.weight_decay != 0), use_momentum(a.momentum != 0),
        nesterov(a.nesterov), first_step(a.first_step) {}
};

template <class M>
struct AdamScalars {
  M weight_decay, decay_factor, beta1, one_minus_beta1, beta2, one_minus_beta2, bc2_sqrt, eps, neg_step_size;
  bool use_weight_decay, decoupled, amsgrad;
  explicit AdamScalars(const OptimArgs& a)
      : weight_decay(M(a.weight_decay)), decay_factor(M(1 - a.lr * a.weight_decay)), beta1(M(a.beta1)),
        one_minus_beta1(M(1 - a.beta1)), beta2(M(a.beta2)), one_minus_beta2(M(1 - a.beta2)),
        bc2_sqrt(M(a.bias_correction2_sqrt)), eps(M(a.eps)), neg_step_size(M(-a.step_size)),
        use_weight_decay(a.weight_decay != 0), decoupled(a.decoupled_weight_decay), amsgrad(a.amsgrad) {}
};

template <class M>
struct RmspropScalars {
  M weight_decay, alpha, one_minus_alpha, eps, momentum, neg_lr;
  bool use_weight_decay, centered, use_momentum;
  explicit RmspropScalars(const OptimArgs& a)
      : weight_decay(M(a.weight_decay)), alpha(M(a.alpha)), one_minus_alpha(M(1 - a.alpha)), eps(M(a.eps)),
        momentum(M(a.momentum)), neg_lr(M(-a.lr)), use_weight_decay(a.weight_decay != 0),
        centered(a.centered), use_momentum(a.momentum > 0) {}
};

template <class M>
struct AdagradScalars {
  M weight_decay, eps, neg_clr;
  bool use_weight_decay;
  explicit AdagradScalars(const OptimArgs& a)
      : weight_decay(M(a.weight_decay)), eps(M(a.eps)), neg_clr(M(-a.step_size)),
        use_weight_decay(a.weight_decay != 0) {}
};

/// SGD on one element: p and the momentum buffer are updated in place (T storage, M math).
template <class T, class M>
EMBER_HOST_DEVICE inline void sgd_update(const SgdScalars<M>& s, T& p, T g_in, T& buf) {
  M pv = M(p), g = M(g_in);
  if (s.use_weight_decay) g = g + s.weight_decay * pv;  // d_p = d_p.add(p, weight_decay)
  if (s.use_momentum) {
    M b = s.first_step ? g : M(buf) * s.momentum + s.one_minus_dampening * g;  // buf.mul_(m).add_(d_p, 1 - d)
    buf = T(b);
    b = M(buf);
    g = s.nesterov ? g + s.momentum * b : b;
  }
  p = T(pv + s.neg_lr * g);  // p.add_(d_p, -lr)
}

/// Adam / AdamW on one element: p, exp_avg, exp_avg_sq (and max_exp_avg_sq) in place.
template <class T, class M>
EMBER_HOST_DEVICE inline void adam_update(const AdamScalars<M>& s, T& p, T g_in, T& exp_avg, T& exp_avg_sq, T* max_sq) {
  M pv = M(p), g = M(g_in);
  if (s.use_weight_decay) {
    if (s.decoupled) pv = M(T(pv * s.decay_factor));  // p.mul_(1 - lr * weight_decay)
    else g = g + s.weight_decay * pv;                 // grad = grad.add(p, weight_decay)
  }
  const M m = M(exp_avg) * s.beta1 + s.one_minus_beta1 * g;          // exp_avg.mul_(b1).add_(g, 1 - b1)
  const M v = M(exp_avg_sq) * s.beta2 + s.one_minus_beta2 * g * g;   // exp_avg_sq.mul_(b2).addcmul_(g, g, 1 - b2)
  exp_avg = T(m);
  exp_avg_sq = T(v);
  M vhat = M(exp_avg_sq);
  if (s.amsgrad) {
    const M prev = M(*max_sq);
    vhat = (prev != prev || vhat != vhat) ? prev + vhat : (prev > vhat ? prev : vhat);  // max_out keeps NaN
    *max_sq = T(vhat);
    vhat = M(*max_sq);
  }
  const M denom = optim_sqrt(vhat) / s.bc2_sqrt + s.eps;
  p = T(pv + s.neg_step_size * M(exp_avg) / denom);  // p.addcdiv_(exp_avg, denom, -step_size)
}

/// RMSprop on one element: p, square_avg (and momentum_buf, grad_avg when used) in place;
/// a is alpha in the comments.
template <class T, class M>
EMBER_HOST_DEVICE inline void rmsprop_update(const RmspropScalars<M>& s, T& p, T g_in, T& square_avg, T* momentum_buf,
                                             T* grad_avg) {
  const M pv = M(p);
  M g = M(g_in);
  if (s.use_weight_decay) g = g + s.weight_decay * pv;                   // grad = grad.add(p, weight_decay)
  square_avg = T(M(square_avg) * s.alpha + s.one_minus_alpha * g * g);  // square_avg.mul_(a).addcmul_(g, g, 1 - a)
  M avg;
  if (s.centered) {
    *grad_avg = T(M(*grad_avg) * s.alpha + s.one_minus_alpha * g);  // grad_avg.mul_(a).add_(g, 1 - a)
    const M ga = M(*grad_avg);
    avg = optim_sqrt(M(square_avg) - ga * ga) + s.eps;  // square_avg.addcmul(ga, ga, -1).sqrt_().add_(eps)
  } else {
    avg = optim_sqrt(M(square_avg)) + s.eps;  // square_avg.sqrt().add_(eps)
  }
  if (s.use_momentum) {
    *momentum_buf = T(M(*momentum_buf) * s.momentum + g / avg);  // buf.mul_(momentum).addcdiv_(g, avg)
    p = T(pv + s.neg_lr * M(*momentum_buf));                      // p.add_(buf, -lr)
  } else {
    p = T(pv + s.neg_lr * g / avg);  // p.addcdiv_(g, avg, -lr)
  }
}

/// Adagrad on one element: p and sum in place.
template <class T, class M>
EMBER_HOST_DEVICE inline void adagrad_update(const AdagradScalars<M>& s, T& p, T g_in, T& sum) {
  const M pv = M(p);
  M g = M(g_in);
  if (s.use_weight_decay) g = g + s.weight_decay * pv;  // grad = grad.add(p, weight_decay)
  sum = T(M(sum) + g * g);                              // sum.addcmul_(grad, grad, 1.0)
  const M denom = optim_sqrt(M(sum)) + s.eps;           // std = sum.sqrt().add_(eps)
  p = T(pv + s.neg_clr * g / denom);                    // p.addcdiv_(grad, std, -clr)
}

/// GradScaler's unscale of one element: whether it was inf or NaN, and g *= inv_scale.
template <class T, class M>
EMBER_HOST_DEVICE inline bool amp_unscale(M inv_scale, T& g) {
  const M v = M(g);
  g = T(v * inv_scale);
  return !(v - v == M(0));  // inf - inf and NaN - NaN are NaN
}

}  // namespace ember::detail
