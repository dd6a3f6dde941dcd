import mlx_specdec  # noqa: F401  (must come before mlx.core: binds OpenBLAS on Linux)
