"""A GGUF file as this package reads it: metadata, tensors, dequantised weights.

Everything goes through llama.cpp's own `gguf` package (GGUFReader for the
layout, `gguf.quants.dequantize` for every block format). `mx.load` also reads
GGUF, but measured on these checkpoints it decodes Q4_K wrongly and refuses
Q5_0, so it is never used here.

Every way a file can be unusable ends in one `ModelLoadError` line naming it:
missing, not GGUF, truncated, a checksum that does not match, a tensor type
with no dequantiser.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np

from ..errors import ModelLoadError
from ..models.folders import file_sha256, first_line

GGUF_MAGIC = b"GGUF"


class GGUFFile:
    """One opened GGUF file: `meta(key)`, `tensor_names`, `weight(name)` (float32 numpy, row-major (out, in))."""

    def __init__(self, path, *, sha256: str | None = None):
        import gguf

        self.path = Path(path)
        if not self.path.is_file():
            raise ModelLoadError(f"GGUF file {str(self.path)!r} does not exist")
        with open(self.path, "rb") as fh:
            magic = fh.read(4)
        if magic != GGUF_MAGIC:
            raise ModelLoadError(f"{str(self.path)!r} is not a GGUF file (it starts with {magic!r}, not b'GGUF')")
        self.sha256 = file_sha256(self.path)
        if sha256 is not None and self.sha256 != sha256.lower():
            raise ModelLoadError(f"{str(self.path)!r}: SHA-256 {self.sha256} does not match the expected {sha256.lower()}")
        try:
            self._reader = gguf.GGUFReader(str(self.path))
        except Exception as e:  # noqa: BLE001 - the reader raises ValueError, IndexError, struct errors on bad files
            raise ModelLoadError(f"{str(self.path)!r} is truncated or corrupt ({type(e).__name__}: "
                                 f"{first_line(e)[:160]})") from None
        size = os.path.getsize(self.path)
        self._tensors = {}
        for t in self._reader.tensors:
            end = int(t.data_offset) + int(t.n_bytes)
            if end > size or t.data.nbytes != int(t.n_bytes):
                raise ModelLoadError(f"{str(self.path)!r} is truncated: tensor {t.name!r} ends at byte {end:,}, "
                                     f"the file has {size:,}")
            self._tensors[t.name] = t
        self.architecture = self.meta("general.architecture")
        if not isinstance(self.architecture, str):
            raise ModelLoadError(f"{str(self.path)!r} has no general.architecture; not a model GGUF")

    # ---------------------------------------------------------------- metadata

    def meta(self, key: str, default=None):
        """The value of metadata `key` (str, number, bool or list), or `default`."""
        field = self._reader.fields.get(key)
        if field is None:
            return default
        return field.contents()

    def arch_meta(self, key: str, default=None):
        """`meta("<architecture>." + key)`: the per-architecture hyperparameters."""
        return self.meta(f"{self.architecture}.{key}", default)

    def require(self, key: str):
        value = self.arch_meta(key)
        if value is None:
            raise ModelLoadError(f"{str(self.path)!r} lacks {self.architecture}.{key}, which a "
                                 f"{self.architecture} model needs")
        return value

    # ---------------------------------------------------------------- tensors

    @property
    def tensor_names(self) -> list[str]:
        return list(self._tensors)

    def has(self, name: str) -> bool:
        return name in self._tensors

    def tensor(self, name: str):
        """The reader's tensor record (`tensor_type`, `data` as stored, `shape` in ggml order)."""
        try:
            return self._tensors[name]
        except KeyError:
            raise ModelLoadError(f"{str(self.path)!r} has no tensor {name!r}") from None

    def type_name(self, name: str) -> str:
        return self.tensor(name).tensor_type.name

    def type_counts(self) -> dict[str, int]:
        return dict(Counter(t.tensor_type.name for t in self._tensors.values()))

    def weight(self, name: str) -> np.ndarray:
        """Tensor `name` dequantised to float32, in numpy's row-major order (ggml's shape reversed)."""
        from gguf import quants

        t = self.tensor(name)
        try:
            w = quants.dequantize(t.data, t.tensor_type)
        except NotImplementedError:
            raise ModelLoadError(f"{str(self.path)!r}: tensor {name!r} has type {t.tensor_type.name}, which the gguf "
                                 "package cannot dequantise") from None
        shape = tuple(int(d) for d in reversed(t.shape.tolist()))
        return np.ascontiguousarray(w, dtype=np.float32).reshape(shape)
