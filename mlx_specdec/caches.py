"""Every mlx-lm cache family as a transaction.

A round feeds ``pending + drafts`` speculatively, then commits an accepted
boundary. What a commit means depends on what each layer's cache stores:

=========================================  ===============================  ==========================================
cache (mlx-lm)                             stores                           commit of the accepted boundary
=========================================  ===============================  ==========================================
KVCache, QuantizedKVCache,                 one row per token                trim the rejected rows (a pointer move)
ConcatenateKVCache
RotatingKVCache (sliding window, keep=0)   a ring of the last W rows; once  replaced by ``SlidingKVCache``: a linear
                                           it wraps, new rows overwrite     buffer of the last W rows plus slack,
                                           rows a rollback would need       masked to the window; commit = trim
ChunkedKVCache                             rows of the current chunk        trim; if the chunk's front moved during
                                                                            the round, restore and rebuild (below)
ArraysCache (conv, SSM, delta-rule state)  a fixed-size summary: no undo    restore the pre-round snapshot, then
                                                                            rebuild the accepted prefix (below)
CacheList                                  members of the above             the unit is stateful if any member is
anything else (RotatingKVCache keep>0,     arbitrary attributes             snapshot of its attributes + rebuild
deepseek_v41's LayerCache)
=========================================  ===============================  ==========================================

Types outside this table are refused by name: never silently wrong.

A stateful unit has three ways to rebuild the accepted prefix (``ROLLBACKS``):

* ``refeed``: restore every layer to the pre-round state and run the whole
  model again over the accepted tokens.
* ``replay``: during the round, log each call of the module that owns a
  stateful unit (its decoder layer): the unit's state before the call (a
  checkpoint, references only) and the call's arguments (the input log). On
  partial acceptance restore the checkpoint of the call holding the boundary
  and call only that module again over the accepted positions. Attention and
  MLP layers are not recomputed: by causality their rows at accepted
  positions are already what a re-feed would write. A drafter's one-token
  steps land on a checkpoint exactly, so its rollback recomputes nothing.
* ``positions``: run each stateful layer one position at a time during the
  verification pass and keep its state after every position; the commit picks
  one. No rebuild work, memory grows with k.

How module calls are recorded and cut by position lives in ``replay.py``.

Snapshots are references: MLX arrays are immutable values, but ``a[i] = b``
rebinds the array object ``a`` in place, so a snapshot keeps a detached view
(``reshape`` to the same shape, free) and a restore hands out a fresh one.
"""

from __future__ import annotations

import mlx.core as mx
from mlx.utils import tree_flatten
from mlx_lm.models import cache as mlc

from .errors import SpecDecError

ROLLBACKS = ("replay", "refeed", "positions")
DEFAULT_ROLLBACK = "replay"  # measured fastest here: see bench/ and the README's rollback table


class SlidingKVCache(mlc._BaseCache):
    """A sliding-window KV cache whose rollback is a pointer move.

    mlx-lm's ``RotatingKVCache`` writes into a ring of exactly ``window`` rows
    (the first ``keep`` of them sink rows that never rotate out, as
    ``max_kv_size`` makes), so a rejected draft has already overwritten the
    oldest row a rollback would need. This cache appends to a linear buffer
    instead (the sink rows first), masks every query to the keys mlx-lm's ring
    would show it, and drops rows no future query can see only in ``settle()``
    (called after a commit), in whole ``step`` blocks. It holds at most
    window + step + one block of rows.
    """

    step = 256

    def __init__(self, window: int, keep: int = 0):
        self.window, self.keep = int(window), int(keep)
        self.keys = self.values = None
        self.start = self.keep  # first position after the sinks still in the buffer
        self.offset = 0  # absolute position of the next row
        self.prefilling = False  # set by the sequence around prompt prefill

    def positions(self, upto: int) -> mx.array:
        """The absolute positions of the buffer's rows once it holds `upto` tokens."""
        sinks = min(self.keep, upto)
        return mx.concatenate([mx.arange(sinks), mx.arange(max(self.start, sinks), upto)])

    def _used(self, upto=None) -> int:
        upto = self.offset if upto is None else upto
        return min(self.keep, upto) + max(0, upto - max(self.start, self.keep))

    def update_and_fetch(self, keys, values):
        used, n = self._used(), keys.shape[2]
        if self.keys is None or used + n > self.keys.shape[2]:
            capacity = -(-(used + n) // self.step) * self.step
            new_k = mx.zeros((*keys.shape[:2], capacity, keys.shape[3]), keys.dtype)
            new_v = mx.zeros((*values.shape[:2], capacity, values.shape[3]), values.dtype)
            if used:
                new_k[..., :used, :] = self.keys[..., :used, :]
                new_v[..., :used, :] = self.values[..., :used, :]
            self.keys, self.values = new_k, new_v
        self.keys[..., used : used + n, :] = keys
        self.values[..., used : used + n, :] = values
        self.offset += n
        return self.keys[..., : used + n, :], self.values[..., : used + n, :]

    def make_mask(self, N: int, window_size=None, return_array: bool = False):
        """Which buffered keys each of the next N queries sees, as mlx-lm's ring does.

        Decoding (one token a call in mlx-lm) a query sees the sinks and the
        last ``window - keep`` positions, and never more than the ring holds even
        where the model's mask would allow more (plamo3 masks window + 1). A
        prefill call sees what mlx-lm's concatenating path keeps: the sinks,
        ``window - 1 - keep`` older rows and its own, each query limited by the
        mask's window counted in rows. Both rules depend only on positions, never
        on how a round was split, so rollback cannot change what a query sees.
        """
        ring, window, keep, o = self.window, window_size or self.window, self.keep, self.offset
        first_kept = max(self.start, keep)  # oldest non-sink position in the buffer (or the call)
        if self.prefilling:
            if keep == 0:
                last_floor = max(o + N - window, o - ring + 1)
            else:
                last_floor = o + N  # sinks and rows-counted windows: always spelt out
        else:
            last_floor = o + N - min(window, ring - keep)
        all_visible = first_kept >= last_floor or o + N <= keep
        if all_visible and not (keep and self.prefilling) and not return_array:
            return None if N == 1 else "causal"  # every buffered key is visible
        key = self.positions(o + N)[None]
        query = o + mx.arange(N)[:, None]
        if not self.prefilling:
            floor = query - min(window, ring - keep) + 1
            return (key <= query) & ((key >= floor) | (key < keep))
        if keep == 0:
            floor = mx.maximum(query - window + 1, o - ring + 1)
            return (key <= query) & (key >= floor)
        # mlx-lm's concatenating path: the rows it keeps before this call, then the
        # window counted in rows of that array (sinks count as rows).
        prior = mx.arange(o) if o <= ring - 1 else mx.concatenate([mx.arange(keep), mx.arange(o - (ring - 1 - keep), o)])
        rows = mx.concatenate([prior, o + mx.arange(N)])
        lowest = rows[mx.maximum(prior.shape[0] + mx.arange(N) - window + 1, 0)][:, None]
        held = (key >= o) | (key < keep) | (key >= o - (ring - 1 - keep)) if o > ring - 1 else (key >= 0)
        return (key <= query) & (key >= lowest) & held

    def keys_and_values(self):
        used = self._used()
        return self.keys[..., :used, :], self.values[..., :used, :]

    def settle(self) -> None:
        """Forget rows no future query can attend to (amortised: whole steps)."""
        stale = self.offset - (self.window - self.keep) + 1 - max(self.start, self.keep)
        if stale >= self.step and self.keys is not None:
            sinks, used = min(self.keep, self.offset), self._used()
            parts = [self.keys[..., :sinks, :]] if sinks else []
            self.keys = mx.concatenate([*parts, self.keys[..., sinks + stale : used, :]], axis=2)
            parts = [self.values[..., :sinks, :]] if sinks else []
            self.values = mx.concatenate([*parts, self.values[..., sinks + stale : used, :]], axis=2)
            self.start = max(self.start, self.keep) + stale

    def is_trimmable(self) -> bool:
        return True

    def trim(self, n: int) -> int:
        lowest = self.start if self.start > self.keep else 0  # rows before start were dropped
        n = min(n, self.offset - lowest)
        self.offset -= n
        return n

    def size(self) -> int:
        return min(self.offset, self.window)

    def empty(self) -> bool:
        return self.keys is None

    @property
    def state(self):
        return self.keys_and_values()

    @property
    def nbytes(self) -> int:
        return 0 if self.keys is None else self.keys.nbytes + self.values.nbytes


# ---------------------------------------------------------------------------
# Classifying and adapting a prompt cache
# ---------------------------------------------------------------------------

POINTER = (mlc.KVCache, mlc.QuantizedKVCache, mlc.ConcatenateKVCache, SlidingKVCache)
STATEFUL_BY_NAME = {"LayerCache"}  # mlx-lm caches without trim that a snapshot restores exactly


def _adapt_member(c, where: str):
    """The cache object the engine will use in place of mlx-lm's `c`."""
    if isinstance(c, mlc.RotatingKVCache) and c.offset == 0:
        return SlidingKVCache(c.max_size, c.keep)
    if isinstance(c, mlc.CacheList):
        c.caches = tuple(_adapt_member(m, where) for m in c.caches)
        return c
    if isinstance(c, (*POINTER, mlc.ChunkedKVCache, mlc.ArraysCache, mlc.RotatingKVCache)):
        return c
    if type(c).__name__ in STATEFUL_BY_NAME:
        return c
    raise SpecDecError(
        f"{where} uses the cache type {type(c).__name__}, which mlx-specdec cannot roll back; "
        "it is refused rather than risk a wrong answer"
    )


def adapt_cache(cache: list, where: str) -> list:
    """mlx-lm's prompt cache with every layer made committable (or refused by name)."""
    return [_adapt_member(c, where) for c in cache]


def members(c):
    """The leaf caches of one unit (a CacheList's members, else the cache itself)."""
    if isinstance(c, mlc.CacheList):
        for m in c.caches:
            yield from members(m)
    else:
        yield c


def is_pointer(c) -> bool:
    return isinstance(c, POINTER)


def is_stateful_unit(c) -> bool:
    """Does rolling back this unit need more than trimming rows?"""
    return not all(is_pointer(m) for m in members(c))


# ---------------------------------------------------------------------------
# Snapshots
# ---------------------------------------------------------------------------


def _detach(x):
    if isinstance(x, mx.array):
        return x.reshape(x.shape)  # a new array object on the same buffer: no copy
    if isinstance(x, list):
        return [_detach(v) for v in x]
    if isinstance(x, tuple):
        return tuple(_detach(v) for v in x)
    if isinstance(x, dict):
        return {k: _detach(v) for k, v in x.items()}
    return x


def snapshot(unit) -> list:
    """What restores `unit` to this moment: per member, its row count (pointer
    caches: rows past it are simply trimmed) or its attributes (everything else)."""
    out = []
    for m in members(unit):
        if is_pointer(m):
            out.append(("offset", m.offset))
        elif isinstance(m, mlc.ChunkedKVCache):
            # Writes only ever land past the current rows, and a front trim rebinds
            # the arrays: plain references restore it exactly.
            out.append(("attrs", dict(vars(m))))
        else:
            out.append(("attrs", _detach(vars(m))))
    return out


def fingerprint(unit) -> tuple:
    """Identity of everything `unit` holds: changes when any attribute, list entry
    or row count is replaced (mlx-lm's caches replace arrays, or move an offset,
    whenever they change)."""
    return tuple(id(v) if isinstance(v, mx.array) else v
                 for m in members(unit) for _, v in tree_flatten(vars(m)))


def restore(unit, snap: list) -> None:
    for m, (kind, value) in zip(members(unit), snap):
        if kind == "offset":
            m.trim(m.offset - value)
        else:
            vars(m).update(_detach(value))


def set_prefilling(cache: list, on: bool) -> None:
    for unit in cache:
        for m in members(unit):
            if isinstance(m, SlidingKVCache):
                m.prefilling = on


def settle(cache: list) -> None:
    for unit in cache:
        for m in members(unit):
            if isinstance(m, SlidingKVCache):
                m.settle()


def cache_names(cache: list) -> list[str]:
    return sorted({type(m).__name__ for unit in cache for m in members(unit)})


def needs_rebuild(unit, snap: list) -> bool:
    """False when trimming rows lands `unit` on the boundary after all: every
    member is a pointer cache, or a ChunkedKVCache whose front did not move."""
    for m, (kind, value) in zip(members(unit), snap):
        if kind == "offset":
            continue
        if isinstance(m, mlc.ChunkedKVCache) and m.start_position == value["start_position"]:
            continue
        return True
    return False


def trim_unit(unit, n: int) -> None:
    if n:
        for m in members(unit):
            m.trim(n)


def cache_arrays(cache: list) -> list:
    """Every array a prompt cache holds (to evaluate it after a prefill chunk)."""
    out = []
    for unit in cache:
        for m in members(unit):
            out.extend(v for _, v in tree_flatten(vars(m)) if isinstance(v, mx.array))
    return out
