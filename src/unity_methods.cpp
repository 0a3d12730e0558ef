// Build unit: the glue of SOSI, of the spectral embeddings and of LGRM as one
// translation unit (see unity_blocks.cpp).
#include "glue_sosi.cpp"
#include "glue_spectral.cpp"
#include "glue_lgrm.cpp"
