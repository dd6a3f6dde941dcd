"""`python -m mlx_specdec.doctor`: what MLX will run on here, and how fast.

Reports the MLX version, device, the BLAS actually in use (with a measured
fp32 matmul rate: the number that decides whether speculation can win on a
CPU), and the compute dtype the project uses on this device.
"""

from __future__ import annotations

import json
import platform
import sys
import time

from . import _platform

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


def cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


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
        "matmul_gflops_fp32_512": round(matmul_gflops(), 1),
        "compute_dtype": str(compute_dtype()).replace("mlx.core.", ""),
    }
    if device == mx.gpu:
        try:
            info["gpu"] = mx.metal.device_info().get("device_name") if mx.metal.is_available() else "cuda"
        except Exception:  # pragma: no cover - device naming differs by backend
            info["gpu"] = "gpu"
    return info


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print a JSON record")
    args = parser.parse_args(argv)
    info = report()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    slow = platform.system() == "Linux" and info["matmul_gflops_fp32_512"] < 30
    advice = "slow BLAS: install libopenblas0-pthread for ~30x faster CPU matmuls" if slow else None
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table(title="mlx-specdec doctor", show_header=False)
        for name, value in info.items():
            table.add_row(name, str(value))
        console = Console()
        console.print(table)
        if advice:
            console.print(f"[yellow]{advice}[/yellow]")
    else:
        for name, value in info.items():
            print(f"{name}: {value}")
        if advice:
            print(advice)
    return 0


if __name__ == "__main__":
    sys.exit(main())
