"""mlx-specdec: lossless speculative decoding and multi-token prediction in MLX."""

from . import _platform  # noqa: F401  (binds a fast BLAS before mlx.core loads)
from .errors import IncompatibleModelsError, ModelLoadError, SpecDecError

__version__ = "0.1.0"

__all__ = [
    "greedy_verify",
    "speculative_verify",
    "SpecStats",
    "greedy_generate",
    "draft_greedy",
    "speculative_generate",
    "load",
    "SpecDecError",
    "IncompatibleModelsError",
    "ModelLoadError",
]


def __getattr__(name):
    # Import lazily so `import mlx_specdec` stays cheap (mlx-lm pulls in
    # transformers) and so the BLAS binding above runs before mlx.core.
    if name in ("greedy_verify", "speculative_verify"):
        from . import verify

        return getattr(verify, name)
    if name in ("SpecStats", "greedy_generate", "draft_greedy", "speculative_generate"):
        from . import generate

        return getattr(generate, name)
    if name == "load":
        from .loading import load

        return load
    raise AttributeError(f"module 'mlx_specdec' has no attribute {name!r}")
