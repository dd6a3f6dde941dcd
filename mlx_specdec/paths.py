"""Where mlx-specdec keeps what it writes outside a project folder.

One cache folder, `~/.cache/mlx-specdec` or `MLX_SPECDEC_CACHE`: converted
model folders (`loading`), GGUF files unpacked from their packages
(`from_gguf.packages`) and the k=auto calibration file (`calibration`).
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    return Path(os.environ.get("MLX_SPECDEC_CACHE", Path.home() / ".cache" / "mlx-specdec"))
