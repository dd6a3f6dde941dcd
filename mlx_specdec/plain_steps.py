"""Rounds without drafts, run as the plain loop runs its steps: the next step queued before the host reads this one.

A round of k = 0 is a plain step. Where the drafter declares
`pipelines_plain_steps` (its commit reads nothing of the target's passes but
the rows it is handed), a run of such rounds gets plain decoding's pipelining:
step t+1 is queued with `mx.async_eval` before the host reads token t. A
drafter that `knows_when_idle` (prompt lookup) lets the run look ahead one step
whatever k is, and leave it as soon as it has drafts again. A drafter that
`drafts_for_free` (prompt lookup again) is scored during the run: what it would
have drafted is held against the tokens the steps make, and k="auto" counts
each such unrun round's acceptance (`Shadow`). Not under a
sharded target (every rank must take the same path, and rank 0 alone may hold
the drafter), nor under the instruments (they inspect every boundary).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import mlx.core as mx

from .instruments import Instruments
from .traces import traces

NOTHING = mx.array([], dtype=mx.int32)


@dataclass
class Run:
    """One generation's moving parts, shared by the loop and its plain steps."""

    target_seq: object
    drafter: object
    policy: object
    schedule: object
    instruments: Instruments
    stats: object
    eos: frozenset
    max_new_tokens: int
    key: mx.array | None
    produced: int = 0
    carried: int | None = None  # a k already chosen for the next round (by a run of plain steps that ended)
    entered: bool = False  # a drafting round has run (the drafter's deferred prefill is behind it)

    def capped(self, k: int, left: int) -> int:
        """A round's k within the tokens left (a round emits at most k + 1) and the sequence's block limit."""
        k = min(k, left - 1)
        limit = self.target_seq.block_limit()
        if limit is not None:  # e.g. the KV cache turns quantized at a position a block must not straddle
            k = max(0, min(k, limit - self.target_seq.pending.shape[0]))
        return k

    def queue_step(self) -> mx.array:
        """One plain step of the target, as plain_stream runs it: committed lazily, computing at once."""
        token, self.key = self.policy.step(self.target_seq.extend(NOTHING)[-1:], self.key)
        token = token.astype(mx.int32)
        self.target_seq.commit(1, token)
        mx.async_eval(token)
        return token


class Shadow:
    """What a free drafter would have drafted during plain steps, scored against the tokens the steps make.

    Before each step's token is committed, the drafter's first draft is previewed from the context before it;
    where it has one, the token agreeing with it or not is one unrun round of one draft for the schedule
    (`shadow(1, agreed)`). One draft, not k_max: it is scored at the next token, with no proposal left
    pending when the run ends. (Scoring k_max drafts at a time, each resolved at its first disagreement,
    did no better: replayed on 40 StoryLM 5M stories with prompt lookup, k=auto reached 0.61 cold and 0.86
    calibrated of the best fixed k that way, 0.68 and 0.82 this way, 0.58 and 0.61 unscored; on SmolLM2's
    copy requests 0.82 and 0.83 that way, 0.82 and 0.87 this way; bench.auto_replay.)"""

    def __init__(self, drafter, schedule):
        self.drafter, self.schedule = drafter, schedule

    def token(self, tid: int) -> None:
        """A plain step made `tid` (not yet committed to the drafter)."""
        drafts = self.drafter.preview(1)
        if drafts:
            self.schedule.shadow(1, int(drafts[0] == tid))


class PlainSteps:
    """The pipelined plain steps of one generation (see the module docstring)."""

    def __init__(self, run: Run, sharded: bool):
        drafter = run.drafter
        self.run = run
        self.enabled = not sharded and drafter.pipelines_plain_steps
        self.look_ahead = self.enabled and drafter.knows_when_idle
        # A trunk or feature drafter commits from the rows of the step that made the token, which the step
        # queued after it replaces in target_seq.hidden (.features): each step keeps its own.
        self.rows = ("features" if drafter.feature_layers else "hidden" if drafter.reads_hidden else None) \
            if self.enabled else None
        scored = self.enabled and drafter.drafts_for_free and run.schedule.learns
        self.shadow = Shadow(drafter, run.schedule) if scored else None

    def _rows(self):
        return None if self.rows is None else getattr(self.run.target_seq, self.rows)

    def take(self, k_round: int) -> bool:
        """Whether the round about to start runs as plain steps."""
        return self.enabled and (k_round == 0 or (self.look_ahead and not self.run.drafter.would_propose()))

    def steps(self, started: float):
        """Yield the rounds' emissions until a round would draft; returns True at EOS."""
        run, drafter = self.run, self.run.drafter
        pipeline = run.instruments.quiet
        run.instruments.mark("host")
        traced_before = traces()
        token, rows = run.queue_step(), self._rows()
        leave_with = None  # the k of the round that follows the step in flight, once the drafter has drafts
        built = 0.0  # seconds spent building the step in flight, inside the interval of the step before it
        while True:
            queued, queued_rows, k_next = None, None, None
            building = 0.0
            if pipeline and run.produced + 1 < run.max_new_tokens:
                if leave_with is not None:
                    k_next = leave_with
                else:
                    k_next = run.capped(run.schedule.choose(), run.max_new_tokens - run.produced - 1)
                    if k_next == 0 or self.look_ahead:
                        # the host reads this step's token while the next one computes
                        began = time.perf_counter()
                        queued, queued_rows = run.queue_step(), self._rows()
                        building = time.perf_counter() - began
            tid = token.item()
            run.instruments.mark("verify")
            if self.shadow is not None:
                self.shadow.token(tid)
            drafter.propose(0, run.policy, None)
            drafter.commit(0, tid, rows=rows)
            run.instruments.committed(run.target_seq, drafter)
            run.stats.count_round(0, 0, 1)
            run.produced += 1
            # Timed from the end of the step before, the building of the next step moved to the next step's
            # time: a step's time is then its own building and waiting (a run's total is unchanged). Where
            # building a step waits for the one before it to finish (MLX on a CPU: 55-75 ms of SmolLM2's 75),
            # the first step of a run would otherwise hold two steps' time and the last almost none.
            now, traced_now = time.perf_counter(), traces()
            run.schedule.update(0, 0, now - started - building + built, traced=traced_now != traced_before)
            started, traced_before, built = now, traced_now, building
            yield tid
            if tid in run.eos:
                return True
            if queued is None:
                run.carried = k_next
                return False
            token, rows = queued, queued_rows
            if k_next > 0 and drafter.would_propose():
                leave_with = k_next  # drafts again after the step in flight
