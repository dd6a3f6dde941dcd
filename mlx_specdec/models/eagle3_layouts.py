"""Published EAGLE-3 layouts (vLLM Speculators; EAGLE / SpecForge), read into `models.eagle3`. Filled in below."""

from __future__ import annotations


def read_published(path):
    """(Eagle3Config, weights under models.eagle3's names) for a folder in a published layout, else None."""
    return None


def is_eagle3_folder(path) -> bool:
    """A drafter folder `load_eagle3` reads: ours, or a published layout."""
    from .eagle3 import is_own_folder

    return is_own_folder(path)
