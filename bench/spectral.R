# Spectral embeddings: KPCA, MDS, Isomap (spectral_kpca_isomap.R) and LLE, LE, LTSA (spectral_local.R).
for (part in c("spectral_kpca_isomap.R", "spectral_local.R"))
  if (file.exists(file.path(bench_dir, part))) source(file.path(bench_dir, part), local = new.env())
