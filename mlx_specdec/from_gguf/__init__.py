"""GGUF checkpoints into mlx-lm model folders: `convert_gguf`, and the real targets the registry ships."""

from .convert import convert_gguf

__all__ = ["convert_gguf"]
