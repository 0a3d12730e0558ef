#include "glue.h"
#include <manifoldOOS/kernels.h>

namespace {
manifoldOOS::kernel_spec make_spec(const std::string& type, double sigma, double gamma,
                                   double coef0, double degree) {
  manifoldOOS::kernel_spec k;
  k.type = manifoldOOS::parse_kernel_type(type);
  k.sigma = sigma;
  k.gamma = gamma;
  k.coef0 = coef0;
  k.degree = degree;
  return k;
}
}  // namespace

// Kernel matrix between the rows of A and B (B = A when `B` has no rows).
// [[Rcpp::export(.mo_kernel_cross)]]
arma::mat mo_kernel_cross(const arma::mat& A, const arma::mat& B, std::string type,
                          double sigma, double gamma, double coef0, double degree) {
  MO_TRY {
    const manifoldOOS::kernel_spec k = make_spec(type, sigma, gamma, coef0, degree);
    if (B.n_rows == 0) return manifoldOOS::kernel_train(A, k);
    return manifoldOOS::kernel_cross(A, B, k);
  }
  MO_CATCH
}

// Squared Euclidean distances between the rows of A and B.
// [[Rcpp::export(.mo_sq_dist_cross)]]
arma::mat mo_sq_dist_cross(const arma::mat& A, const arma::mat& B) {
  MO_TRY { return manifoldOOS::sq_dist_cross(A, B); }
  MO_CATCH
}
