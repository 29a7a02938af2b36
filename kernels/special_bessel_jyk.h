#pragma once
// Bessel functions J0, J1, Y0, Y1, the modified Bessel functions I0, I1, K0, K1 (and the
// exponentially scaled K0, K1), the spherical Bessel function j0 and the Airy function Ai for
// the CPU and CUDA kernels. The algorithms and coefficients are Cephes' ones as libtorch 1.13
// uses them (ATen's *_forward functions in native/Math.h, which are distinct from calc_i0 and
// friends), evaluated in the same order, so results match libtorch's CPU kernels bit for bit.
// Where libtorch's FMA-enabled x86 build contracts a multiply-add, the step is written as an
// explicit fma so that every build of ember rounds it the same way. T is float or double.

#include <math.h>
#include <stdint.h>

#include "ember/export.h"
#include "special_bessel.h"

namespace ember::detail {

/// c[0] z^(n-1) + ... + c[n-1] by Horner's rule, started from zero as libtorch's loops are
/// (so an infinite z gives NaN there too); every step is one contracted multiply-add.
template <class T>
EMBER_HOST_DEVICE inline T horner_fused(const T* c, int n, T z) {
  T p = T(0);
  for (int i = 0; i < n; ++i) p = fma(p, z, c[i]);
  return p;
}

// ---------------------------------------------------------------------------------------
// J0 / Y0 and J1 / Y1 share their large-argument fits (Cephes' PP/PQ, QP/QQ).

/// The asymptotic factors of J0 and Y0 past 5, J0 = sqrt(2/(pi x)) (P cos(x - pi/4) - Q sin(x - pi/4))
/// (Y0 with sin and cos swapped, Q added): *pr = P, *qr = Q, both rational fits in 25 / x^2.
template <class T>
EMBER_HOST_DEVICE inline void bessel_order0_hankel(T x, T* pr, T* qr) {
  static constexpr T kPP[7] = {
      T(7.96936729297347051624e-04), T(8.28352392107440799803e-02), T(1.23953371646414299388e+00),
      T(5.44725003058768775090e+00), T(8.74716500199817011941e+00), T(5.30324038235394892183e+00),
      T(9.99999999999999997821e-01),
  };
  static constexpr T kPQ[7] = {
      T(9.24408810558863637013e-04), T(8.56288474354474431428e-02), T(1.25352743901058953537e+00),
      T(5.47097740330417105182e+00), T(8.76190883237069594232e+00), T(5.30605288235394617618e+00),
      T(1.00000000000000000218e+00),
  };
  static constexpr T kQP[8] = {
      T(-1.13663838898469149931e-02), T(-1.28252718670509318512e+00), T(-1.95539544257735972385e+01),
      T(-9.32060152123768231369e+01), T(-1.77681167980488050595e+02), T(-1.47077505154951170175e+02),
      T(-5.14105326766599330220e+01), T(-6.05014350600728481186e+00),
  };
  static constexpr T kQQ[7] = {
      T(6.43178256118178023184e+01), T(8.56430025976980587198e+02), T(3.88240183605401609683e+03),
      T(7.24046774195652478189e+03), T(5.93072701187316984827e+03), T(2.06209331660327847417e+03),
      T(2.42005740240291393179e+02),
  };
  const T z = T(25) / (x * x);
  *pr = horner_fused(kPP, 7, z) / horner_fused(kPQ, 7, z);
  // libtorch forms 5/x * (qp/qq) before multiplying by the trigonometric factor.
  *qr = T(5) / x * (horner_fused(kQP, 8, z) / horner_fused(kQQ, 7, z));
}

/// As bessel_order0_hankel for J1 and Y1 (phase x - 3 pi / 4).
template <class T>
EMBER_HOST_DEVICE inline void bessel_order1_hankel(T x, T* pr, T* qr) {
  static constexpr T kPP[7] = {
      T(7.62125616208173112003e-04), T(7.31397056940917570436e-02), T(1.12719608129684925192e+00),
      T(5.11207951146807644818e+00), T(8.42404590141772420927e+00), T(5.21451598682361504063e+00),
      T(1.00000000000000000254e+00),
  };
  static constexpr T kPQ[7] = {
      T(5.71323128072548699714e-04), T(6.88455908754495404082e-02), T(1.10514232634061696926e+00),
      T(5.07386386128601488557e+00), T(8.39985554327604159757e+00), T(5.20982848682361821619e+00),
      T(9.99999999999999997461e-01),
  };
  static constexpr T kQP[8] = {
      T(5.10862594750176621635e-02), T(4.98213872951233449420e+00), T(7.58238284132545283818e+01),
      T(3.66779609360150777800e+02), T(7.10856304998926107277e+02), T(5.97489612400613639965e+02),
      T(2.11688757100572135698e+02), T(2.52070205858023719784e+01),
  };
  static constexpr T kQQ[7] = {
      T(7.42373277035675149943e+01), T(1.05644886038262816351e+03), T(4.98641058337653607651e+03),
      T(9.56231892404756170795e+03), T(7.99704160447350683650e+03), T(2.82619278517639096600e+03),
      T(3.36093607810698293419e+02),
  };
  // libtorch's order-1 code squares 5/x rather than dividing 25 by x^2.
  const T z = T(5) / x * (T(5) / x);
  *pr = horner_fused(kPP, 7, z) / horner_fused(kPQ, 7, z);
  *qr = T(5) / x * (horner_fused(kQP, 8, z) / horner_fused(kQQ, 7, z));
}

/// sqrt(2 / pi) rounded to T, the amplitude constant of the asymptotic forms.
template <class T>
EMBER_HOST_DEVICE inline T bessel_sqrt_2_over_pi() {
  return T(0.797884560802865355879892119868763737);
}

template <class T>
EMBER_HOST_DEVICE inline T special_bessel_j0(T x) {
  static constexpr T kRP[4] = {
      T(-4.79443220978201773821e+09),
      T(1.95617491946556577543e+12),
      T(-2.49248344360967716204e+14),
      T(9.70862251047306323952e+15),
  };
  static constexpr T kRQ[8] = {
      T(4.99563147152651017219e+02), T(1.73785401676374683123e+05), T(4.84409658339962045305e+07),
      T(1.11855537045356834862e+10), T(2.11277520115489217587e+12), T(3.10518229857422583814e+14),
      T(3.18121955943204943306e+16), T(1.71086294081043136091e+18),
  };
  if (x < T(0)) x = -x;
  if (x <= T(5)) {
    if (x < T(0.00001)) return T(1) - x * x / T(4);
    const T x2 = x * x;
    // (x^2 - r1^2)(x^2 - r2^2) R(x^2): the first two zeros of J0 are factored out.
    return (x2 - T(5.78318596294678452118e+00)) * (x2 - T(3.04712623436620863991e+01)) *
           horner_fused(kRP, 4, x2) / horner_fused(kRQ, 8, x2);
  }
  T p, q;
  bessel_order0_hankel(x, &p, &q);
  const T phase = x - T(0.785398163397448309615660845819875721);
  return fma(p, cos(phase), -(q * sin(phase))) * bessel_sqrt_2_over_pi<T>() / sqrt(x);
}

template <class T>
EMBER_HOST_DEVICE inline T special_bessel_j1(T x) {
  static constexpr T kRP[4] = {
      T(-8.99971225705559398224e+08),
      T(4.52228297998194034323e+11),
      T(-7.27494245221818276015e+13),
      T(3.68295732863852883286e+15),
  };
  static constexpr T kRQ[8] = {
      T(6.20836478118054335476e+02), T(2.56987256757748830383e+05), T(8.35146791431949253037e+07),
      T(2.21511595479792499675e+10), T(4.74914122079991414898e+12), T(7.84369607876235854894e+14),
      T(8.95222336184627338078e+16), T(5.32278620332680085395e+18),
  };
  // J1 is odd: evaluate at |x| and negate; NaN and -0 go through unnegated, as in libtorch.
  const bool negate = x < T(0);
  if (negate) x = -x;
  T r;
  if (x <= T(5)) {
    const T x2 = x * x;
    r = horner_fused(kRP, 4, x2) / horner_fused(kRQ, 8, x2) * x * (x2 - T(1.46819706421238932572e+01)) *
        (x2 - T(4.92184563216946036703e+01));
  } else {
    T p, q;
    bessel_order1_hankel(x, &p, &q);
    const T phase = x - T(2.356194490192344928846982537459627163);
    r = fma(p, cos(phase), -(q * sin(phase))) * bessel_sqrt_2_over_pi<T>() / sqrt(x);
  }
  return negate ? -r : r;
}

template <class T>
EMBER_HOST_DEVICE inline T special_bessel_y0(T x) {
  static constexpr T kYP[8] = {
      T(1.55924367855235737965e+04),  T(-1.46639295903971606143e+07), T(5.43526477051876500413e+09),
      T(-9.82136065717911466409e+11), T(8.75906394395366999549e+13),  T(-3.46628303384729719441e+15),
      T(4.42733268572569800351e+16),  T(-1.84950800436986690637e+16),
  };
  static constexpr T kYQ[7] = {
      T(1.04128353664259848412e+03), T(6.26107330137134956842e+05), T(2.68919633393814121987e+08),
      T(8.64002487103935000337e+10), T(2.02979612750105546709e+13), T(3.17157752842975028269e+15),
      T(2.50596256172653059228e+17),
  };
  if (x <= T(5)) {
    if (x == T(0)) return -INFINITY;
    if (x < T(0)) return NAN;
    const T x2 = x * x;
    const T r = horner_fused(kYP, 8, x2) / horner_fused(kYQ, 7, x2);
    // Y0 = R(x^2) + (2/pi) log(x) J0(x)
    return fma(T(0.636619772367581343075535053490057448) * log(x), special_bessel_j0(x), r);
  }
  T p, q;
  bessel_order0_hankel(x, &p, &q);
  const T phase = x - T(0.785398163397448309615660845819875721);
  return fma(p, sin(phase), q * cos(phase)) * bessel_sqrt_2_over_pi<T>() / sqrt(x);
}

template <class T>
EMBER_HOST_DEVICE inline T special_bessel_y1(T x) {
  static constexpr T kYP[6] = {
      T(1.26320474790178026440e+09),  T(-6.47355876379160291031e+11), T(1.14509511541823727583e+14),
      T(-8.12770255501325109621e+15), T(2.02439475713594898196e+17),  T(-7.78877196265950026825e+17),
  };
  static constexpr T kYQ[8] = {
      T(5.94301592346128195359e+02), T(2.35564092943068577943e+05), T(7.34811944459721705660e+07),
      T(1.87601316108706159478e+10), T(3.88231277496238566008e+12), T(6.20557727146953693363e+14),
      T(6.87141087355300489866e+16), T(3.97270608116560655612e+18),
  };
  if (x <= T(5)) {
    if (x == T(0)) return -INFINITY;
    if (x <= T(0)) return NAN;
    const T x2 = x * x;
    const T r = horner_fused(kYP, 6, x2) / horner_fused(kYQ, 8, x2);
    // Y1 = x R(x^2) + (2/pi) (J1(x) log(x) - 1/x)
    // libtorch's build fuses the (2/pi) product into the sum, not x * R (checked against it).
    const T s = fma(special_bessel_j1(x), log(x), -(T(1) / x));
    return fma(T(0.636619772367581343075535053490057448), s, x * r);
  }
  T p, q;
  bessel_order1_hankel(x, &p, &q);
  const T phase = x - T(2.356194490192344928846982537459627163);
  return fma(p, sin(phase), q * cos(phase)) * bessel_sqrt_2_over_pi<T>() / sqrt(x);
}

// ---------------------------------------------------------------------------------------
// Modified Bessel functions: Chebyshev series summed by special_bessel.h's chebyshev_series,
// whose fused recurrence step is the one libtorch's loops compile to.

template <class T>
EMBER_HOST_DEVICE inline T special_modified_bessel_i0(T x) {
  const T ax = fabs(x);
  const T c = bessel_i0e_series(ax);  // exp(-|x|) I0 (times sqrt|x| past 8)
  if (ax <= T(8)) return exp(ax) * c;
  return exp(ax) * c / sqrt(ax);
}

/// exp(-|x|) I1(|x|) / |x| on [0, 8] and exp(-|x|) sqrt|x| I1(|x|) past 8 with every term for
/// float too (libtorch's modified_bessel_i1, unlike its calc_i1). A copy of special_bessel.h's
/// tables: sharing bessel_i1e_series with a flag made GCC emit an out-of-line clone of it, with
/// wide instructions, from the AVX2/AVX-512 kernel copies (Note [CPU capability]).
template <class T>
EMBER_HOST_DEVICE inline T modified_bessel_i1_series(T ax) {
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
    return chebyshev_series(ax / T(2) - T(2), kI1eA, 29);
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
  return chebyshev_series(T(32) / ax - T(2), kI1eB, 25);
}

template <class T>
EMBER_HOST_DEVICE inline T special_modified_bessel_i1(T x) {
  const T ax = fabs(x);
  const T c = modified_bessel_i1_series(ax);
  const T r = ax <= T(8) ? c * ax * exp(ax) : exp(ax) * c / sqrt(ax);
  return x < T(0) ? -r : r;
}

/// The Chebyshev parts of K0: on (0, 2] the series in x^2 - 2 that is added to
/// -log(x/2) I0(x), past 2 the series of exp(x) sqrt(x) K0(x) in 8/x - 2.
template <class T>
EMBER_HOST_DEVICE inline T modified_bessel_k0_series(T x) {
  if (x <= T(2)) {
    static constexpr T kA[10] = {
        T(1.37446543561352307156e-16),  T(4.25981614279661018399e-14), T(1.03496952576338420167e-11),
        T(1.90451637722020886025e-09),  T(2.53479107902614945675e-07), T(2.28621210311945178607e-05),
        T(1.26461541144692592338e-03),  T(3.59799365153615016266e-02), T(3.44289899924628486886e-01),
        T(-5.35327393233902768720e-01),
    };
    return chebyshev_series(fma(x, x, T(-2)), kA, 10);
  }
  static constexpr T kB[25] = {
      T(5.30043377268626276149e-18),  T(-1.64758043015242134646e-17), T(5.21039150503902756861e-17),
      T(-1.67823109680541210385e-16), T(5.51205597852431940784e-16),  T(-1.84859337734377901440e-15),
      T(6.34007647740507060557e-15),  T(-2.22751332699166985548e-14), T(8.03289077536357521100e-14),
      T(-2.98009692317273043925e-13), T(1.14034058820847496303e-12),  T(-4.51459788337394416547e-12),
      T(1.85594911495471785253e-11),  T(-7.95748924447710747776e-11), T(3.57739728140030116597e-10),
      T(-1.69753450938905987466e-09), T(8.57403401741422608519e-09),  T(-4.66048989768794782956e-08),
      T(2.76681363944501510342e-07),  T(-1.83175552271911948767e-06), T(1.39498137188764993662e-05),
      T(-1.28495495816278026384e-04), T(1.56988388573005337491e-03),  T(-3.14481013119645005427e-02),
      T(2.44030308206595545468e+00),
  };
  return chebyshev_series(T(8) / x - T(2), kB, 25);
}

/// As modified_bessel_k0_series for K1: on (0, 2] the series that, divided by x, is added
/// to log(x/2) I1(x); past 2 the series of exp(x) sqrt(x) K1(x).
template <class T>
EMBER_HOST_DEVICE inline T modified_bessel_k1_series(T x) {
  if (x <= T(2)) {
    static constexpr T kA[11] = {
        T(-7.02386347938628759343e-18), T(-2.42744985051936593393e-15), T(-6.66690169419932900609e-13),
        T(-1.41148839263352776110e-10), T(-2.21338763073472585583e-08), T(-2.43340614156596823496e-06),
        T(-1.73028895751305206302e-04), T(-6.97572385963986435018e-03), T(-1.22611180822657148235e-01),
        T(-3.53155960776544875667e-01), T(1.52530022733894777053e+00),
    };
    return chebyshev_series(fma(x, x, T(-2)), kA, 11);
  }
  static constexpr T kB[25] = {
      T(-5.75674448366501715755e-18), T(1.79405087314755922667e-17),  T(-5.68946255844285935196e-17),
      T(1.83809354436663880070e-16),  T(-6.05704724837331885336e-16), T(2.03870316562433424052e-15),
      T(-7.01983709041831346144e-15), T(2.47715442448130437068e-14),  T(-8.97670518232499435011e-14),
      T(3.34841966607842919884e-13),  T(-1.28917396095102890680e-12), T(5.13963967348173025100e-12),
      T(-2.12996783842756842877e-11), T(9.21831518760500529508e-11),  T(-4.19035475934189648750e-10),
      T(2.01504975519703286596e-09),  T(-1.03457624656780970260e-08), T(5.74108412545004946722e-08),
      T(-3.50196060308781257119e-07), T(2.40648494783721712015e-06),  T(-1.93619797416608296024e-05),
      T(1.95215518471351631108e-04),  T(-2.85781685962277938680e-03), T(1.03923736576817238437e-01),
      T(2.72062619048444266945e+00),
  };
  return chebyshev_series(T(8) / x - T(2), kB, 25);
}

template <class T>
EMBER_HOST_DEVICE inline T special_modified_bessel_k0(T x) {
  if (x == T(0)) return INFINITY;
  if (x < T(0)) return NAN;
  const T c = modified_bessel_k0_series(x);
  if (x <= T(2)) {
    // libtorch takes log(0.5 * x) with a double 0.5, so a float argument is promoted and the
    // difference is formed (and fused) in double before rounding back to T.
    const double l = log(0.5 * double(x));
    return T(fma(-l, double(special_modified_bessel_i0(x)), double(c)));
  }
  return exp(-x) * c / sqrt(x);
}

template <class T>
EMBER_HOST_DEVICE inline T special_scaled_modified_bessel_k0(T x) {
  if (x == T(0)) return INFINITY;
  if (x < T(0)) return NAN;
  const T c = modified_bessel_k0_series(x);
  if (x <= T(2)) {
    return fma(-log(T(0.5) * x), special_modified_bessel_i0(x), c) * exp(x);
  }
  return c / sqrt(x);
}

template <class T>
EMBER_HOST_DEVICE inline T special_modified_bessel_k1(T x) {
  if (x == T(0)) return INFINITY;
  if (x < T(0)) return NAN;
  const T c = modified_bessel_k1_series(x);
  if (x <= T(2)) return fma(log(T(0.5) * x), special_modified_bessel_i1(x), c / x);
  return exp(-x) * c / sqrt(x);
}

template <class T>
EMBER_HOST_DEVICE inline T special_scaled_modified_bessel_k1(T x) {
  if (x == T(0)) return INFINITY;
  if (x < T(0)) return NAN;
  const T c = modified_bessel_k1_series(x);
  if (x <= T(2)) {
    return fma(log(T(0.5) * x), special_modified_bessel_i1(x), c / x) * exp(x);
  }
  return c / sqrt(x);
}

// ---------------------------------------------------------------------------------------

/// sin(x) / x, with its Taylor polynomial below 0.5 (coefficients rounded in T as libtorch
/// rounds its quotients) and 0 at +-inf.
template <class T>
EMBER_HOST_DEVICE inline T special_spherical_bessel_j0(T x) {
  if (isinf(x)) return T(0);
  if (fabs(x) < T(0.5)) {
    const T x2 = x * x;
    T s = fma(x2, T(1) / T(6227020800.0), T(-1) / T(39916800.0));
    s = fma(x2, s, T(1) / T(362880.0));
    s = fma(x2, s, T(-1) / T(5040.0));
    s = fma(x2, s, T(1) / T(120.0));
    s = fma(x2, s, T(-1) / T(6.0));
    return fma(x2, s, T(1));
  }
  return sin(x) / x;
}

/// Airy Ai: oscillatory asymptotic fits below -2.09, the exponentially small fit from 2.09 on
/// (used alone past 8.3203353) and the Maclaurin series f, g in between, as libtorch does.
template <class T>
EMBER_HOST_DEVICE inline T special_airy_ai(T x) {
  if (isinf(x)) return NAN;
  if (x > T(103.892)) return T(0);

  if (x < T(-2.09)) {
    static constexpr T kFN[9] = {
        T(-1.31696323418331795333e-01), T(-6.26456544431912369773e-01), T(-6.93158036036933542233e-01),
        T(-2.79779981545119124951e-01), T(-4.91900132609500318020e-02), T(-4.06265923594885404393e-03),
        T(-1.59276496239262096340e-04), T(-2.77649108155232920844e-06), T(-1.67787698489114633780e-08),
    };
    static constexpr T kFD[9] = {
        T(1.33560420706553243746e+01), T(3.26825032795224613948e+01), T(2.67367040941499554804e+01),
        T(9.18707402907259625840e+00), T(1.47529146771666414581e+00), T(1.15687173795188044134e-01),
        T(4.40291641615211203805e-03), T(7.54720348287414296618e-05), T(4.51850092970580378464e-07),
    };
    static constexpr T kGN[11] = {
        T(1.97339932091685679179e-02), T(3.91103029615688277255e-01), T(1.06579897599595591108e+00),
        T(9.39169229816650230044e-01), T(3.51465656105547619242e-01), T(6.33888919628925490927e-02),
        T(5.85804113048388458567e-03), T(2.82851600836737019778e-04), T(6.98793669997260967291e-06),
        T(8.11789239554389293311e-08), T(3.41551784765923618484e-10),
    };
    static constexpr T kGD[10] = {
        T(9.30892908077441974853e+00), T(1.98352928718312140417e+01), T(1.55646628932864612953e+01),
        T(5.47686069422975497931e+00), T(9.54293611618961883998e-01), T(8.64580826352392193095e-02),
        T(4.12656523824222607191e-03), T(1.01259085116509135510e-04), T(1.17166733214413521882e-06),
        T(4.91834570062930015649e-09),
    };
    const T zeta = T(-2) * x * sqrt(-x) / T(3);
    const T z = T(1) / zeta;
    const T z2 = z * z;
    const T fn = horner_fused(kFN, 9, z2), fd = horner_fused(kFD, 9, z2);
    const T gn = horner_fused(kGN, 11, z2), gd = horner_fused(kGD, 10, z2);
    // libtorch adds pi/4 as the double M_PI / 4, so for float the phase is rounded once
    // from double.
    const T phase = T(double(zeta) + 0.25 * 3.14159265358979323846);
    const T amp = T(5.64189583547756286948e-01) / sqrt(sqrt(-x));
    return amp * fma(sin(phase), T(1) + z2 * fn / fd, -(cos(phase) * (z * gn / gd)));
  }

  if (x >= T(2.09)) {
    static constexpr T kN[8] = {
        T(3.46538101525629032477e-01), T(1.20075952739645805542e+01), T(7.62796053615234516538e+01),
        T(1.68089224934630576269e+02), T(1.59756391350164413639e+02), T(7.05360906840444183113e+01),
        T(1.40264691163389668864e+01), T(9.99999999999999995305e-01),
    };
    static constexpr T kD[8] = {
        T(5.67594532638770212846e-01), T(1.47562562584847203173e+01), T(8.45138970141474626562e+01),
        T(1.77318088145400459522e+02), T(1.64234692871529701831e+02), T(7.14778400825575695274e+01),
        T(1.40959135607834029598e+01), T(1.00000000000000000470e+00),
    };
    // From 2.09 on libtorch returns this fit even where it also sums the series below.
    const T zeta = T(2) * x * sqrt(x) / T(3);
    const T w = T(1) / zeta;
    return T(5.64189583547756286948e-01) * (horner_fused(kN, 8, w) / horner_fused(kD, 8, w)) /
           (T(2) * sqrt(sqrt(x)) * exp(zeta));
  }

  // Ai = c1 f(x) - c2 g(x) with f = sum 3^k (1/3)_k x^(3k) / (3k)!, g the matching odd series;
  // the terms are built with the same running divisions as libtorch's loop, to T's epsilon.
  const T eps = sizeof(T) == 8 ? T(2.220446049250313080847e-16) : T(1.1920928955078125e-07);
  const T x3 = x * x * x;
  T f = T(1), g = x, k = T(1), m = T(1), n = x, t = T(1);
  while (t > eps) {
    m *= x3;
    k += T(1);
    m /= k;
    n *= x3;
    k += T(1);
    n /= k;
    m /= k;
    f += m;
    k += T(1);
    n /= k;
    g += n;
    t = fabs(m / f);
  }
  return fma(T(0.355028053887817239260), f, -(T(0.258819403792806798405) * g));
}

}  // namespace ember::detail
