"""The frozen pass kept per training row (training.rows.RowCache), and the time budget's price of it."""

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

from mlx_specdec.training import loop
from mlx_specdec.training.rows import RowCache


class Clock:
    """A clock that moves only when told: what the code under test times is exactly what the test says."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def counting_pass(clock: Clock, seconds_for):
    """A frozen 'pass' (row -> 10 * row, and its sum) that advances the clock by seconds_for(call, rows)."""
    calls = []

    def compute(rows):
        calls.append(rows.copy())
        clock.now += seconds_for(len(calls), len(rows))
        x = mx.array(rows.astype(np.float32))
        return 10 * x, x.sum(axis=-1)

    return compute, calls


def test_each_distinct_row_is_passed_once_and_read_back_in_order():
    clock = Clock()
    compute, calls = counting_pass(clock, lambda call, n: 1.0)
    cache = RowCache(compute, clock)
    rows = np.arange(12, dtype=np.int32).reshape(4, 3)
    times_ten, sums = cache(rows[[0, 1, 0, 2]])
    assert [c.tolist() for c in calls] == [rows[[0, 1, 2]].tolist()]  # the repeated row once, first seen first
    assert np.array_equal(np.array(times_ten), 10 * rows[[0, 1, 0, 2]])
    assert np.array_equal(np.array(sums), rows[[0, 1, 0, 2]].sum(axis=-1))
    times_ten, _ = cache(rows[[3, 2]])
    assert [c.tolist() for c in calls[1:]] == [rows[[3]].tolist()]  # only the row not kept yet
    assert np.array_equal(np.array(times_ten), 10 * rows[[3, 2]])
    cache(rows[[1, 3]])
    assert len(calls) == 2 and cache.computed == 4 and len(cache.rows) == 4


def test_the_rate_leaves_the_first_call_out_once_a_later_one_is_timed():
    """A first call also compiles the model's kernels: 10 s for 2 rows, then 1 s a row."""
    clock = Clock()
    compute, _ = counting_pass(clock, lambda call, n: 10.0 if call == 1 else 1.0 * n)
    cache = RowCache(compute, clock)
    rows = np.arange(20, dtype=np.int32).reshape(10, 2)
    cache(rows[:2])
    assert cache.seconds_per_row() == 5.0  # the only call so far prices the rest
    assert cache.left_s(rows) == 8 * 5.0
    cache(rows[2:5])
    assert cache.seconds_per_row() == 1.0 and cache.spent_s == 13.0
    # Distinct rows of every set given, less those kept: 5 left of the 10, and 2 validation rows of which one is
    # kept and one is new.
    assert cache.left_s(rows, np.stack([rows[0], rows[0] + 100])) == 6 * 1.0


class FrozenPassTask(loop.Task):
    """A one-parameter task whose validation runs a frozen pass through a RowCache: 1 s of its own, and 100 s
    of frozen pass over 4 validation rows the first time."""

    tokens_per_step = 1

    def __init__(self, clock: Clock):
        self.clock = clock
        compute, _ = counting_pass(clock, lambda call, n: 25.0 * n)
        self.cache = RowCache(compute, clock)
        self.valid_rows = np.arange(8, dtype=np.int32).reshape(4, 2)
        self.reset()

    def reset(self) -> None:
        self.module = nn.Linear(2, 1)

    def batch(self, rows):
        return mx.array(rows.astype(np.float32))

    def loss(self, module, x):
        value = (module(x) ** 2).mean()
        return value, mx.stack([value])

    def evaluate(self, final: bool = False) -> dict:
        self.cache(self.valid_rows)
        self.clock.now += 1.0
        return {}

    def one_time_s(self, rows) -> float:
        return self.cache.left_s(rows, self.valid_rows)

    def one_time_spent_s(self) -> float:
        return self.cache.spent_s


@pytest.mark.parametrize("budget_s, steps", [(1000.0, 7490), (200.0, 3)])
def test_the_calibration_prices_validation_and_first_passes_as_they_are_paid(monkeypatch, budget_s, steps):
    """The steps take no time on this clock, so each step is priced at its share of validation (1 s every 10
    steps): 0.1 s, where counting the validation's first frozen pass would price it at 10.1 s. The 8 training
    rows' passes (25 s each) are paid as the first epoch (4 steps of 2 rows) draws them: with 1000 s,
    4 + int((0.97 * 1000 - (20 + 1) - 4 * 50.1) / 0.1) = 7490 steps; with 200 s, 0.97 * 200 - (10 + 1) = 183 s is
    less than the first epoch costs, and int(183 / 50.1) = 3 steps, where reserving every row's pass first left
    none (1, the least a run takes)."""
    clock = Clock()
    monkeypatch.setattr(loop.time, "perf_counter", clock)
    task = FrozenPassTask(clock)
    cfg = loop.RunConfig(lr=1e-3, warmup=0, batch_size=2, eval_every=10, ckpt_every=10**6)
    rows = 100 + np.arange(16, dtype=np.int32).reshape(8, 2)
    assert loop.calibrate_steps(task, cfg, rows, budget_s=budget_s) == steps
    assert loop.steps_within(300.0, 1.0, 100.0, 4) == 4 + 196  # an epoch of 4 steps at 26 s, the rest at 1 s


def test_a_full_cache_keeps_what_fits_and_runs_the_rest_again_each_time():
    """Rows of 3 float32 + 1 float32 = 16 bytes kept each; room for two. A row past the size is passed, used
    and dropped: the same values, computed again whenever it is drawn, and priced as recurring, not one-time."""
    clock = Clock()
    compute, calls = counting_pass(clock, lambda call, n: 1.0 * n)
    cache = RowCache(compute, clock, max_bytes=40)
    rows = np.arange(15, dtype=np.int32).reshape(5, 3)
    times_ten, sums = cache(rows[[0, 1, 2]])
    assert np.array_equal(np.array(times_ten), 10 * rows[[0, 1, 2]])
    assert np.array_equal(np.array(sums), rows[[0, 1, 2]].sum(axis=-1))
    assert len(cache.rows) == 2 and cache.kept_bytes == 32 and cache.row_bytes == 16
    times_ten, _ = cache(rows[[2, 0, 2]])
    assert [c.tolist() for c in calls[1:]] == [rows[[2]].tolist()]  # the dropped row again, once; row 0 kept
    assert np.array_equal(np.array(times_ten), 10 * rows[[2, 0, 2]])
    assert len(cache.rows) == 2 and cache.computed == 4
    # Nothing more fits: no row is one-time work any more; of 5 distinct rows, 3 are run each time drawn.
    assert cache.left_s(rows) == 0.0
    assert cache.recurring_s(rows, per_step=10) == 10 * 3 / 5 * 1.0
    other = Clock()
    unlimited = RowCache(counting_pass(other, lambda call, n: 1.0 * n)[0], other)
    unlimited(rows[:2])
    assert unlimited.recurring_s(rows, per_step=10) == 0.0 and unlimited.left_s(rows) == 3 * 1.0


def test_a_store_keeps_every_row_on_disk_for_a_later_cache(tmp_path):
    """A RowStore beside the cache: every row run is written once; a new cache over the same store (a resumed
    run, a second stage) reads them back, bit for bit, and runs only the rows it has never seen. A file that
    does not read back is run again and rewritten; another pass (another description) is another folder."""
    from mlx_specdec.training.rows import RowStore

    clock = Clock()
    compute, calls = counting_pass(clock, lambda call, n: 1.0 * n)
    describe = {"target": "t", "layers": [1, 2]}
    first = RowCache(compute, clock, store=RowStore(tmp_path, describe))
    rows = np.arange(15, dtype=np.int32).reshape(5, 3)
    before = first(rows[[0, 1, 2, 1]])
    assert first.store.written == 3 and len(list(first.store.folder.glob("*.safetensors"))) == 3
    assert (first.store.folder / "pass.json").is_file()

    second = RowCache(compute, clock, store=RowStore(tmp_path, describe))
    assert second.store.folder == first.store.folder
    assert second.left_s(rows) == 2 * 1.0  # rows 3 and 4 only: the others are on disk
    after = second(rows[[0, 1, 2, 1]])
    assert len(calls) == 1 and second.computed == 0 and second.store.read == 3
    for a, b in zip(before, after):
        assert a.dtype == b.dtype and np.array_equal(np.array(a), np.array(b))
    second(rows[[3, 0]])
    assert [c.tolist() for c in calls[1:]] == [rows[[3]].tolist()] and second.store.written == 1

    second.store.path(rows[4].tobytes()).write_bytes(b"not a safetensors file")
    third = RowCache(compute, clock, store=RowStore(tmp_path, describe))
    times_ten, _ = third(rows[[4]])
    assert np.array_equal(np.array(times_ten), 10 * rows[[4]]) and third.computed == 1 and third.store.written == 1
    assert RowStore(tmp_path, {**describe, "layers": [1, 3]}).folder != first.store.folder
    # With a store a row past the memory's size is read back, not run again: nothing recurs.
    small = RowCache(compute, clock, max_bytes=16, store=RowStore(tmp_path, describe))
    small(rows)
    small(rows)
    assert len(small.rows) == 1 and small.computed == 0 and small.store.read == 5 + 4
    assert small.recurring_s(rows, per_step=10) == 0.0 and small.left_s(rows) == 0.0
