"""mlx-specdec: lossless speculative decoding and multi-token prediction in MLX."""

import sys
import types

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
    "stream_generate",
    "generate",
    "GenerationResponse",
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
        import importlib

        return getattr(importlib.import_module(".generate", __name__), name)
    if name in ("stream_generate", "generate", "GenerationResponse"):
        from . import api

        return api.__dict__[name]
    if name == "load":
        from .loading import load

        return load
    raise AttributeError(f"module 'mlx_specdec' has no attribute {name!r}")


class _Package(types.ModuleType):
    """As in mlx-lm, ``mlx_specdec.generate`` is the function (mlx-lm's ``generate``);
    the loop module stays importable by name (``from mlx_specdec.generate import ...``,
    ``python -m mlx_specdec.generate``). Importing that module must not rebind the name."""

    def __getattribute__(self, name):
        if name == "generate":
            from .api import generate

            return generate
        return super().__getattribute__(name)


sys.modules[__name__].__class__ = _Package
