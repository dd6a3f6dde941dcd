"""GGUF block formats that MLX's affine quantisation holds exactly, repacked without a round trip.

MLX stores a quantised matrix as integer codes q in [0, 2^bits) per group of
`group_size` inputs, with one scale s and bias b per group: w = s * q + b.
Four llama.cpp formats are exactly that, with groups of 32:

| GGUF | code | scale | bias |
|---|---|---|---|
| Q4_0 | 4-bit q | d | -8 d |
| Q4_1 | 4-bit q | d | m |
| Q5_0 | 5-bit q (4 low bits + 1 high bit) | d | -16 d |
| Q8_0 | int8 q + 128 | d | -128 d |
| Q4_K | 4-bit q | d * sc (6-bit sub-block scale) | -dmin * m (6-bit sub-block min) |

d, m and dmin are float16 in the file, so the first four are exact in any
float dtype; Q4_K's products need float32 scales to stay exact (stored in the
folder's dtype, float16 rounds them). Every other format is dequantised and
requantised by MLX at 8 bits, group 64.
"""

from __future__ import annotations

import numpy as np

EXACT = ("Q4_0", "Q4_1", "Q5_0", "Q8_0", "Q4_K")
OTHER_BITS, OTHER_GROUP = 8, 64


def _f16(column: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(column).view(np.float16).astype(np.float32)[..., 0]


def _nibbles(qs: np.ndarray) -> np.ndarray:
    """16 bytes -> 32 codes: low nibbles are elements 0-15, high nibbles 16-31 (llama.cpp's order)."""
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1)


def affine_codes(type_name: str, raw: np.ndarray, n_cols: int):
    """`(codes, scales, biases, bits, group_size)` of a tensor stored as raw GGUF blocks, one row per output.

    codes: uint8 (rows, n_cols); scales, biases: float32 (rows, n_cols // group_size).
    """
    rows = raw.shape[0]
    if type_name == "Q4_K":
        from gguf.quants import Q4_K

        blocks = raw.reshape(-1, 144)
        d, dmin = _f16(blocks[:, 0:2]), _f16(blocks[:, 2:4])
        sc, mn = Q4_K.get_scale_min(blocks[:, 4:16])
        qs = blocks[:, 16:].reshape(-1, 4, 1, 32) >> np.array([0, 4], np.uint8).reshape(1, 1, 2, 1)
        codes = (qs & 0x0F).reshape(rows, n_cols)
        scales = (d[:, None] * sc.astype(np.float32)).reshape(rows, -1)
        biases = -(dmin[:, None] * mn.astype(np.float32)).reshape(rows, -1)
        return codes, scales, biases, 4, 32
    size = {"Q4_0": 18, "Q4_1": 20, "Q5_0": 22, "Q8_0": 34}[type_name]
    blocks = raw.reshape(rows, n_cols // 32, size)
    d = _f16(blocks[..., 0:2])
    if type_name == "Q4_0":
        return _nibbles(blocks[..., 2:]).reshape(rows, n_cols), d, -8 * d, 4, 32
    if type_name == "Q4_1":
        m = _f16(blocks[..., 2:4])
        return _nibbles(blocks[..., 4:]).reshape(rows, n_cols), d, m, 4, 32
    if type_name == "Q5_0":
        qh = np.ascontiguousarray(blocks[..., 2:6]).view("<u4")  # (rows, groups, 1): bit j is element j's 5th bit
        high = ((qh >> np.arange(32, dtype=np.uint32)) & 1).astype(np.uint8)
        return (_nibbles(blocks[..., 6:]) | (high << 4)).reshape(rows, n_cols), d, -16 * d, 5, 32
    codes = (blocks[..., 2:].view(np.int8).astype(np.int16) + 128).astype(np.uint8)
    return codes.reshape(rows, n_cols), d, -128 * d, 8, 32


def pack(codes: np.ndarray, bits: int) -> np.ndarray:
    """MLX's packing: each row a little-endian bit stream, element j at bits [bits*j, bits*(j+1)), as uint32."""
    rows, n = codes.shape
    bit_planes = (codes[..., None] >> np.arange(bits, dtype=np.uint8)) & 1  # (rows, n, bits), low bit first
    stream = np.packbits(bit_planes.reshape(rows, n * bits), axis=-1, bitorder="little")
    return np.ascontiguousarray(stream).view("<u4")
