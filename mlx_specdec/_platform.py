"""Platform set-up that must happen before `mlx.core` is first imported.

MLX's Linux CPU wheel links a reference BLAS: a 1024x1024 fp32 matmul runs at
~7 GFLOP/s there, so a (k+1)-token verification pass costs ~(k+1) one-token
passes and speculation cannot win. Loading the system's OpenBLAS with
RTLD_GLOBAL before MLX resolves its BLAS symbols makes MLX call it instead
(~200-390 GFLOP/s on the 2-core CI machine). Set MLX_SPECDEC_BLAS=bundled to
opt out, or to a library path to choose one.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import platform
import sys

_CANDIDATES = (
    "libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
)

# What happened, for `python -m mlx_specdec.doctor`.
BLAS_STATUS: dict[str, str | None] = {"library": None, "note": None}


def _bind_blas() -> None:
    if platform.system() != "Linux":
        BLAS_STATUS["note"] = "not Linux: MLX uses the platform's own BLAS"
        return
    choice = os.environ.get("MLX_SPECDEC_BLAS", "").strip()
    if choice == "bundled":
        BLAS_STATUS["note"] = "MLX_SPECDEC_BLAS=bundled: using MLX's bundled reference BLAS"
        return
    if "mlx.core" in sys.modules:
        BLAS_STATUS["note"] = "mlx.core was imported before mlx_specdec: BLAS could not be bound"
        return
    candidates = (choice,) if choice else _CANDIDATES
    for name in candidates:
        try:
            ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
        except OSError:
            continue
        BLAS_STATUS["library"] = name
        BLAS_STATUS["note"] = "system OpenBLAS bound before mlx.core was imported"
        return
    BLAS_STATUS["note"] = (
        "no system OpenBLAS found: MLX's bundled reference BLAS is slow; "
        "install libopenblas0-pthread"
    )


_bind_blas()
