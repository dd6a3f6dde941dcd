"""Platform set-up that must happen before `mlx.core` is first imported.

MLX's Linux CPU wheel links a reference BLAS: a 1024x1024 fp32 matmul runs at
~7 GFLOP/s there, so a (k+1)-token verification pass costs ~(k+1) one-token
passes and speculation cannot win. Loading the system's OpenBLAS with
RTLD_GLOBAL before MLX resolves its BLAS symbols makes MLX call it instead
(~200-390 GFLOP/s on the 2-core CI machine). Set MLX_SPECDEC_BLAS=bundled to
opt out, or to a library path to choose one.

OpenBLAS's idle worker threads spin (yielding) for a long while after each
call before they sleep. Decoding calls BLAS on small matrices between many
other ops, so on a machine with few cores the spinning steals the cores MLX
needs: on the 2-core CI machine a 5M model's plain decoding ran at 233
tokens/s with the default spin and 282 with OPENBLAS_THREAD_TIMEOUT=4 (the
shortest), kernel time falling from 49 s to 6 s of a 67 s run, while a 30M
model kept its two-thread speed. The short spin is therefore the default here;
an OPENBLAS_THREAD_TIMEOUT already in the environment wins.
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
_warned = False


# OpenBLAS reads it when the library loads; 4 is its minimum (2^4 cycles of spinning).
SHORT_SPIN = "4"


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
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", SHORT_SPIN)
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


def _openblas_loaded() -> bool:
    """Is an OpenBLAS mapped into this process (LD_PRELOAD, or loaded before mlx.core)?"""
    try:
        with open("/proc/self/maps") as maps:
            return "libopenblas" in maps.read()
    except OSError:
        return False


def _openblas_path() -> str:
    for name in _CANDIDATES:
        if os.path.isabs(name) and os.path.exists(name):
            return name
    return "/path/to/libopenblas.so.0"


def warn_slow_blas_once(file=None) -> bool:
    """On Linux, when mlx.core was imported before mlx_specdec and MLX computes on the
    CPU with its bundled reference BLAS, say so once, in one line, with the fix.
    Called by the first generation; returns whether it warned."""
    global _warned
    if _warned or platform.system() != "Linux" or BLAS_STATUS["library"] is not None:
        return False
    if not (BLAS_STATUS["note"] or "").startswith("mlx.core was imported before"):
        return False
    import mlx.core as mx

    if mx.default_device() != mx.cpu or _openblas_loaded():
        return False
    _warned = True
    print(
        "mlx-specdec: warning: mlx.core was imported before mlx_specdec, so MLX runs on its slow bundled BLAS "
        f"(speculation loses); import mlx_specdec first, or run with LD_PRELOAD={_openblas_path()}",
        file=file or sys.stderr, flush=True,
    )
    return True


def cpu_name() -> str:
    """The processor's model name (/proc/cpuinfo on Linux), for the records of what ran where."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


_bind_blas()
