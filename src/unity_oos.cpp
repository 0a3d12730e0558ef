// Build unit: the glue of the out-of-sample rules and of PLML as one
// translation unit (see unity_blocks.cpp). Neither needs RcppEigen.
#include "glue_oos.cpp"
#include "glue_plml.cpp"
