#pragma once
// The modified Bessel functions of the first kind I0 and I1 and their exponentially scaled
// forms for the CPU and CUDA kernels: Cephes' Chebyshev expansions on [0, 8] and (8, inf) with
// the coefficients libtorch uses (ATen's calc_i0, calc_i0e, calc_i1, calc_i1e), so both devices
// give libtorch's values. T is float or double; float uses the shorter I1 series, as libtorch.

#include <math.h>

#include "ember/export.h"

namespace ember::detail {

/// sum' c[i] T_i(x / 2) by Clenshaw's recurrence; c holds the highest order first. The step
/// is fused as libtorch's FMA-contracted kernels compute it, so results match its bits.
template <class T>
EMBER_HOST_DEVICE inline T chebyshev_series(T x, const T* c, int n) {
  T b0 = c[0], b1 = T(0), b2 = T(0);
  for (int i = 1; i < n; ++i) {
    b2 = b1;
    b1 = b0;
    b0 = fma(x, b1, -b2) + c[i];  // contracted as libtorch's builds contract it
  }
  return T(0.5) * (b0 - b2);
}

// The series of exp(-|x|) I0(x) on [0, 8] (A) and of exp(-|x|) sqrt(|x|) I0(x) past 8 (B), in
// t = |x|/2 - 2 and t = 32/|x| - 2. The callers apply the factors in libtorch's order, so
// float results round as libtorch's.
template <class T>
EMBER_HOST_DEVICE inline T bessel_i0e_series(T ax) {
  if (ax <= T(8)) {
    const T kI0eA[30] = {
        T(-4.41534164647933937950e-18), T(3.33079451882223809783e-17),  T(-2.43127984654795469359e-16),
        T(1.71539128555513303061e-15),  T(-1.16853328779934516808e-14), T(7.67618549860493561688e-14),
        T(-4.85644678311192946090e-13), T(2.95505266312963983461e-12),  T(-1.72682629144155570723e-11),
        T(9.67580903537323691224e-11),  T(-5.18979560163526290666e-10), T(2.65982372468238665035e-9),
        T(-1.30002500998624804212e-8),  T(6.04699502254191894932e-8),   T(-2.67079385394061173391e-7),
        T(1.11738753912010371815e-6),   T(-4.41673835845875056359e-6),  T(1.64484480707288970893e-5),
        T(-5.75419501008210370398e-5),  T(1.88502885095841655729e-4),   T(-5.76375574538582365885e-4),
        T(1.63947561694133579842e-3),   T(-4.32430999505057594430e-3),  T(1.05464603945949983183e-2),
        T(-2.37374148058994688156e-2),  T(4.93052842396707084878e-2),   T(-9.49010970480476444210e-2),
        T(1.71620901522208775349e-1),   T(-3.04682672343198398683e-1),  T(6.76795274409476084995e-1),
    };
    return chebyshev_series(ax / T(2) - T(2), kI0eA, 30);
  }
  const T kI0eB[25] = {
      T(-7.23318048787475395456e-18), T(-4.83050448594418207126e-18), T(4.46562142029675999901e-17),
      T(3.46122286769746109310e-17),  T(-2.82762398051658348494e-16), T(-3.42548561967721913462e-16),
      T(1.77256013305652638360e-15),  T(3.81168066935262242075e-15),  T(-9.55484669882830764870e-15),
      T(-4.15056934728722208663e-14), T(1.54008621752140982691e-14),  T(3.85277838274214270114e-13),
      T(7.18012445138366623367e-13),  T(-1.79417853150680611778e-12), T(-1.32158118404477131188e-11),
      T(-3.14991652796324136454e-11), T(1.18891471078464383424e-11),  T(4.94060238822496958910e-10),
      T(3.39623202570838634515e-9),   T(2.26666899049817806459e-8),   T(2.04891858946906374183e-7),
      T(2.89137052083475648297e-6),   T(6.88975834691682398426e-5),   T(3.36911647825569408990e-3),
      T(8.04490411014108831608e-1),
  };
  return chebyshev_series(T(32) / ax - T(2), kI0eB, 25);
}

// The series of exp(-|x|) I1(|x|) / |x| on [0, 8] and of exp(-|x|) sqrt(|x|) I1(|x|) past 8;
// float drops the leading (smallest) terms of both, as libtorch's float tables do.
template <class T>
EMBER_HOST_DEVICE inline T bessel_i1e_series(T ax) {
  constexpr bool is_float = sizeof(T) == 4;
  if (ax <= T(8)) {
    const T kI1eA[29] = {
        T(2.77791411276104639959e-18),  T(-2.11142121435816608115e-17), T(1.55363195773620046921e-16),
        T(-1.10559694773538630805e-15), T(7.60068429473540693410e-15),  T(-5.04218550472791168711e-14),
        T(3.22379336594557470981e-13),  T(-1.98397439776494371520e-12), T(1.17361862988909016308e-11),
        T(-6.66348972350202774223e-11), T(3.62559028155211703701e-10),  T(-1.88724975172282928790e-9),
        T(9.38153738649577178388e-9),   T(-4.44505912879632808065e-8),  T(2.00329475355213526229e-7),
        T(-8.56872026469545474066e-7),  T(3.47025130813767847674e-6),   T(-1.32731636560394358279e-5),
        T(4.78156510755005422638e-5),   T(-1.61760815825896745588e-4),  T(5.12285956168575772895e-4),
        T(-1.51357245063125314899e-3),  T(4.15642294431288815669e-3),   T(-1.05640848946261981558e-2),
        T(2.47264490306265168283e-2),   T(-5.29459812080949914269e-2),  T(1.02643658689847095384e-1),
        T(-1.76416518357834055153e-1),  T(2.52587186443633654823e-1),
    };
    const int skip = is_float ? 12 : 0;
    return chebyshev_series(ax / T(2) - T(2), kI1eA + skip, 29 - skip);
  }
  const T kI1eB[25] = {
      T(7.51729631084210481353e-18),  T(4.41434832307170791151e-18),  T(-4.65030536848935832153e-17),
      T(-3.20952592199342395980e-17), T(2.96262899764595013876e-16),  T(3.30820231092092828324e-16),
      T(-1.88035477551078244854e-15), T(-3.81440307243700780478e-15), T(1.04202769841288027642e-14),
      T(4.27244001671195135429e-14),  T(-2.10154184277266431302e-14), T(-4.08355111109219731823e-13),
      T(-7.19855177624590851209e-13), T(2.03562854414708950722e-12),  T(1.41258074366137813316e-11),
      T(3.25260358301548823856e-11),  T(-1.89749581235054123450e-11), T(-5.58974346219658380687e-10),
      T(-3.83538038596423702205e-9),  T(-2.63146884688951950684e-8),  T(-2.51223623787020892529e-7),
      T(-3.88256480887769039346e-6),  T(-1.10588938762623716291e-4),  T(-9.76109749136146840777e-3),
      T(7.78576235018280120474e-1),
  };
  const int skip = is_float ? 18 : 0;
  return chebyshev_series(T(32) / ax - T(2), kI1eB + skip, 25 - skip);
}

/// Past 8 libtorch's CPU i0e divides by a double sqrt (its code resolves sqrt to the C
/// library's double one), so a float result is the rounded double quotient.
template <class T>
EMBER_HOST_DEVICE inline T special_i0e(T x) {
  const T ax = fabs(x);
  const T c = bessel_i0e_series(ax);
  return ax <= T(8) ? c : T(double(c) / sqrt(double(ax)));
}
template <class T>
EMBER_HOST_DEVICE inline T special_i0(T x) {
  const T ax = fabs(x);
  const T c = bessel_i0e_series(ax);
  return ax <= T(8) ? exp(ax) * c : exp(ax) * c / sqrt(ax);
}
/// I1 is odd: the series of |x|, signed as x.
template <class T>
EMBER_HOST_DEVICE inline T special_i1e(T x) {
  const T ax = fabs(x);
  const T c = bessel_i1e_series(ax);
  const T r = ax <= T(8) ? c * ax : c / sqrt(ax);
  return x < T(0) ? -r : r;
}
template <class T>
EMBER_HOST_DEVICE inline T special_i1(T x) {
  const T ax = fabs(x);
  const T c = bessel_i1e_series(ax);
  const T r = ax <= T(8) ? exp(ax) * ax * c : exp(ax) * c / sqrt(ax);
  return x < T(0) ? -r : r;
}

}  // namespace ember::detail
