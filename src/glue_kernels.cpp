#include "glue.h"
#include <manifoldOOS/blocks/kernels.h>
#include "glue_helpers.h"


// Kernel matrix between the rows of A and B (B = A when `B` has no rows).
// [[Rcpp::export(.mo_kernel_cross)]]
arma::mat mo_kernel_cross(const arma::mat& A, const arma::mat& B, std::string type,
                          double sigma, double gamma, double coef0, double degree) {
  MO_TRY {
    const manifoldOOS::kernel_spec k = mo_kernel_spec(type, sigma, gamma, coef0, degree);
    if (B.n_rows == 0) return manifoldOOS::kernel_train(A, k);
    return manifoldOOS::kernel_cross(A, B, k);
  }
  MO_CATCH
}

