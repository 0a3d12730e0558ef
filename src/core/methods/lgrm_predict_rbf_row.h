// One row of LGRM's fused Gaussian-kernel map y = beta' k(x, B) + c, written
// once for every vector width. Included (deliberately without an include
// guard, inside an unnamed namespace) by lgrm_predict_rbf.cpp (AVX2/FMA, 4
// lanes) and lgrm_predict_rbf_avx512.cpp (AVX-512F, 8 lanes), each after it
// has defined
//   MO_RBF_TARGET  its function target attribute, and
//   a struct of vector operations V: reg, width, load, set1, zero, sub,
//   fmadd, fnmadd, max, exp_state, exp_init(), exp(reg, exp_state), hsum(reg),
// every operation carrying MO_RBF_TARGET so that the whole row inlines into
// registers of that width. MO_RBF_ARITHMETIC(reg, prefix) writes the seven
// element-wise operations from the intrinsics' prefix (_mm256, _mm512).
//
// Bt is d x mp (coordinate a of landmark l at Bt[a mp + l]), bt is q x mp,
// both 64-byte aligned and zero-padded to mp, a multiple of 2 width; x has d
// entries, out q. Landmarks and x come scaled by sqrt(-cr), so the exponent
// -|x - b|^2 needs no multiply by cr (one multiply less per kernel value; the
// scaled exponent is cr |x - b|^2 to a few units in its last place). The sums
// run in a fixed order, so a row's result does not depend on the batch it is
// in.

#ifndef MO_RBF_ARITHMETIC
#define MO_RBF_ARITHMETIC(R, P)                                                      \
  MO_RBF_TARGET static R load(const double* p) { return P##_load_pd(p); }            \
  MO_RBF_TARGET static R set1(double v) { return P##_set1_pd(v); }                   \
  MO_RBF_TARGET static R zero() { return P##_setzero_pd(); }                         \
  MO_RBF_TARGET static R sub(R a, R b) { return P##_sub_pd(a, b); }                 \
  MO_RBF_TARGET static R fmadd(R a, R b, R c) { return P##_fmadd_pd(a, b, c); }     \
  MO_RBF_TARGET static R fnmadd(R a, R b, R c) { return P##_fnmadd_pd(a, b, c); }   \
  MO_RBF_TARGET static R max(R a, R b) { return P##_max_pd(a, b); }
#endif

// Q > 0: Q outputs known at compile time; Q = 0: qrt (at most 16) outputs.
template <class V, int Q>
MO_RBF_TARGET void rbf_row_q(const double* Bt, const double* bt, long mp, int d, int qrt, const double* x,
                             const double* c, double* out) {
  using reg = typename V::reg;
  constexpr long W = V::width;
  const int q = Q > 0 ? Q : qrt;
  const typename V::exp_state es = V::exp_init();
  reg acc[Q > 0 ? Q : 16];
  for (int j = 0; j < q; ++j) acc[j] = V::zero();
  const reg zero = V::zero(), lo = V::set1(-708.0);
  for (long l = 0; l < mp; l += 2 * W) {
    // s = -|x - b|^2 (scaled coordinates)
    const reg x0 = V::set1(x[0]);
    reg t0 = V::sub(V::load(Bt + l), x0);
    reg t1 = V::sub(V::load(Bt + l + W), x0);
    reg s0 = V::fnmadd(t0, t0, zero), s1 = V::fnmadd(t1, t1, zero);
    for (int a = 1; a < d; ++a) {
      const reg xa = V::set1(x[a]);
      const double* ba = Bt + a * mp + l;
      t0 = V::sub(V::load(ba), xa);
      t1 = V::sub(V::load(ba + W), xa);
      s0 = V::fnmadd(t0, t0, s0);
      s1 = V::fnmadd(t1, t1, s1);
    }
    const reg e0 = V::exp(V::max(s0, lo), es);
    const reg e1 = V::exp(V::max(s1, lo), es);
    for (int j = 0; j < q; ++j) {
      const double* bj = bt + j * mp + l;
      acc[j] = V::fmadd(e0, V::load(bj), acc[j]);
      acc[j] = V::fmadd(e1, V::load(bj + W), acc[j]);
    }
  }
  for (int j = 0; j < q; ++j) out[j] = V::hsum(acc[j]) + c[j];
}

// Any number of outputs: 1 to 3 unrolled, more in groups of up to 16 columns
// (the same grouping for every row).
template <class V>
MO_RBF_TARGET void rbf_row(const double* Bt, const double* bt, long mp, int d, int q, const double* x,
                           const double* c, double* out) {
  switch (q) {
    case 1: rbf_row_q<V, 1>(Bt, bt, mp, d, q, x, c, out); break;
    case 2: rbf_row_q<V, 2>(Bt, bt, mp, d, q, x, c, out); break;
    case 3: rbf_row_q<V, 3>(Bt, bt, mp, d, q, x, c, out); break;
    default:
      for (int j0 = 0; j0 < q; j0 += 16) {
        const int w = q - j0 < 16 ? q - j0 : 16;
        rbf_row_q<V, 0>(Bt, bt + static_cast<std::size_t>(j0) * mp, mp, d, w, x, c + j0, out + j0);
      }
  }
}
