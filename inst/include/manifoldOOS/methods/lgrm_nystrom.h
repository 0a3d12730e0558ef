// LGRM's Nystrom (landmark) path (Williams & Seeger 2001), compiled in
// src/core/methods/lgrm_nystrom.cpp.
//
// K ~ Phi Phi', Phi = kappa(X, Z) W_Z^{-1/2}; L_g = H - F (F'F + gamma I)^{-1} F'
// with F = H Phi; the bottom eigenvectors of M = L_loc + mu L_g (constant
// direction deflated) by shift-invert Lanczos on a sparse LDL' of
// A0 = L_loc + (mu + eps) I and the Woodbury identity for the rank r + 1 rest.
//
// Reduced formulation (the default): with W_Z = E diag(w) E' restricted to
// the q eigenvalues kept, F = F_q E_q' for F_q = H kappa(X, Z) E_q diag(w_q^{-1/2})
// (n x q), and F (F'F + gamma I)^{-1} F' = F_q (F_q'F_q + gamma I)^{-1} F_q'
// exactly, so the fit runs on q columns (q = 227 of r = 1000 landmarks for
// the Swiss roll at the median bandwidth). G = U' A0^{-1} U (U = [1/sqrt(n),
// F_q]) is V'V with V = D^{-1/2} L^{-1} P U (A0 = P' L D L' P): one forward
// solve per column and a register-tiled cross-product
// (blocks/dense_crossprod.h). Dense n x q matrices held: F_q and V (the
// n x r kernel is produced by row blocks and never stored whole). One
// operator application needs one forward and one backward solve. The same
// matrices as the explicit formulation up to rounding (tested on well- and
// ill-conditioned landmark kernels).
//
// Explicit formulation (explicit_features = true; the code before): F
// (n x r) filled by row blocks, G from full solves with A0 in column panels,
// two solves with A0 per operator application.
#ifndef MANIFOLDOOS_LGRM_NYSTROM_H
#define MANIFOLDOOS_LGRM_NYSTROM_H

#include <functional>
#include <manifoldOOS/methods/lgrm.h>

namespace manifoldOOS {

// Rows [i0, i1) of the landmark kernel kappa(X, Z) into `out` ((i1 - i0) x r).
// Called from several threads at once: must not touch shared state.
using lgrm_kernel_rows = std::function<void(arma::uword i0, arma::uword i1, arma::mat& out)>;

// Lloc: n x n sparse local matrix; `rows`: the landmark kernel by row blocks;
// WZ = kappa(Z, Z) (r x r). Returns beta (r x m, applied to kappa(x, Z)) and
// c; `rank` receives the rank kept of W_Z. explicit_features: the explicit
// formulation instead of the reduced one (see above).
lgrm_fit_result lgrm_fit_nystrom(const sp_mat_e& Lloc, const lgrm_kernel_rows& rows, const arma::mat& WZ,
                                 int m, double gamma, double mu, const eig_options& o, int n_threads,
                                 arma::uword& rank, bool explicit_features = false);

// X = A^{-1} B for the SPD A factorised by `ldlt`, several right-hand sides
// at once (the factor is read once per panel of `panel` columns instead of
// once per column); threaded over panels. Same operations per column as
// ldlt.solve(), in the same order.
arma::mat sparse_ldlt_solve_panels(
    const Eigen::SimplicialLDLT<sp_mat_e, Eigen::Lower, Eigen::AMDOrdering<int>>& ldlt, const arma::mat& B,
    int panel, int n_threads);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LGRM_NYSTROM_H
