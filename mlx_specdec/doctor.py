"""What MLX will run on here, and how fast (`python -m mlx_specdec.doctor`, in cli/doctor.py).

Reports the MLX version, device, the BLAS actually in use (with a measured
fp32 matmul rate: the number that decides whether speculation can win on a
CPU), and the compute dtype the project uses on this device.
"""

from __future__ import annotations

if __name__ == "__main__":  # `python -m mlx_specdec.doctor` is the command line in cli/doctor.py
    from mlx_specdec.cli import run_module

    run_module("doctor")

import json
import os
import platform
import sys
import time

from . import _platform
from ._platform import cpu_name

import mlx.core as mx  # noqa: E402  (after the BLAS binding)

from .models.folders import compute_dtype  # noqa: E402


def matmul_gflops(n: int = 512, repeats: int = 10) -> float:
    a = mx.random.normal((n, n), key=mx.random.key(0))
    b = mx.random.normal((n, n), key=mx.random.key(1))
    mx.eval(a, b)
    mx.eval(a @ b)  # warm-up
    start = time.perf_counter()
    for _ in range(repeats):
        mx.eval(a @ b)
    return 2 * n**3 * repeats / (time.perf_counter() - start) / 1e9


def report() -> dict:
    device = mx.default_device()
    info = {
        "mlx": mx.__version__,
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "cpu": cpu_name(),
        "device": str(device),
        "blas": _platform.BLAS_STATUS["library"] or ("platform default" if platform.system() != "Linux" else "MLX bundled reference BLAS"),
        "blas_note": _platform.BLAS_STATUS["note"],
        "blas_thread_spin": os.environ.get("OPENBLAS_THREAD_TIMEOUT") if _platform.BLAS_STATUS["library"] else None,
        "matmul_gflops_fp32_512": round(matmul_gflops(), 1),
        "compute_dtype": str(compute_dtype()).replace("mlx.core.", ""),
    }
    if device == mx.gpu:
        try:
            info["gpu"] = mx.metal.device_info().get("device_name") if mx.metal.is_available() else "cuda"
        except Exception:  # pragma: no cover - device naming differs by backend
            info["gpu"] = "gpu"
    return info
