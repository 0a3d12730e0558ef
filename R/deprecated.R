# Former exported names (see "Naming conventions" in ?manifoldOOS-package).
# This file sorts before the files that create aliases with deprecated_alias().

# A former exported name kept after a rename: a function with the arguments of
# `fun` that warns (class manifoldOOS_deprecated, naming the new name) and
# calls `fun` with the caller's arguments, unevaluated.
deprecated_alias <- function(fun, old, new) {
  force(fun)
  alias <- function() {
    warn_mo(sprintf("`%s()` is deprecated; use `%s()` (the same function under the package's spelling).",
                    old, new), class = "manifoldOOS_deprecated")
    call <- sys.call()
    call[[1L]] <- fun
    eval(call, parent.frame())
  }
  formals(alias) <- formals(fun)
  alias
}
