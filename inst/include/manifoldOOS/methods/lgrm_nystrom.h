// LGRM's Nystrom (landmark) path (Williams & Seeger 2001), compiled in
// src/core/methods/lgrm_nystrom.cpp.
//
// K ~ Phi Phi', Phi = kappa(X, Z) W_Z^{-1/2}; L_g = H - F (F'F + gamma I)^{-1} F'
// with F = H Phi; the bottom eigenvectors of M = L_loc + mu L_g (constant
// direction deflated) by shift-invert Lanczos on a sparse LDL' of
// A0 = L_loc + (mu + eps) I and the Woodbury identity for the rank r + 1 rest.
//
// Memory: F (n x r) is the only dense n x r matrix. It is filled in row
// blocks straight from the kernel (the n x r kernel matrix is never stored
// whole); the Woodbury matrix G = U' A0^{-1} U (U = [1/sqrt(n), F]) is built
// in column panels of A0^{-1} U (never stored whole), and each operator
// application solves with A0 twice instead of keeping A0^{-1} U.
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
// c; `rank` receives the rank kept of W_Z.
lgrm_fit_result lgrm_fit_nystrom(const sp_mat_e& Lloc, const lgrm_kernel_rows& rows, const arma::mat& WZ,
                                 int m, double gamma, double mu, const eig_options& o, int n_threads,
                                 arma::uword& rank);

// X = A^{-1} B for the SPD A factorised by `ldlt`, several right-hand sides
// at once (the factor is read once per panel of `panel` columns instead of
// once per column); threaded over panels. Same operations per column as
// ldlt.solve(), in the same order.
arma::mat sparse_ldlt_solve_panels(
    const Eigen::SimplicialLDLT<sp_mat_e, Eigen::Lower, Eigen::AMDOrdering<int>>& ldlt, const arma::mat& B,
    int panel, int n_threads);

}  // namespace manifoldOOS

#endif  // MANIFOLDOOS_LGRM_NYSTROM_H
