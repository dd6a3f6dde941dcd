"""Adaptive draft length: each round picks k (0 included) to maximise tokens per second.

``speculative_stream(..., k="auto")`` asks an ``AdaptiveK`` for every round's
draft length. It keeps two running estimates, both decayed so they follow the
text as it changes:

* the per-draft acceptance rate alpha, from each round's verdict (``accepted``
  successes, plus one failure when a draft was rejected): a round of k drafts
  then emits E(k) = 1 + alpha + ... + alpha^k tokens on average. Acceptance
  comes in runs (a drafter that just matched a whole block is likely to match
  the next: a repeated phrase, a stretch the drafter knows), so alpha is kept
  apart for the two states the last drafting round can leave, fully accepted
  or not, each shrunk toward the pooled rate, and the round reads the one its
  predecessor left;
* the wall time of a round as a function of k, measured by the loop itself
  around its one sync point, so it holds every cost the round has (drafter
  steps, the verification pass, the verdict, the commit, host Python), not
  just those a cost model names: a least-squares line T(k) = a + b k fitted
  to the rounds seen, and T(0), the same decayed mean over the rounds without
  drafts, each timed from the end of the step before it (the next step computes
  while the host reads this one, so only the whole cycle is the price; the
  first of a run of plain steps, which is not yet pipelined and runs slow,
  fades as fast as any other sample).

The choice is argmax_k E(k) / T(k) over 0..k_max (16). k = 0 is a plain step of
the target (the loop runs it as the plain loop's pipelined step where the
drafter allows, so T(0) is what plain decoding costs). To keep every estimate
fed, a round now and then tries a neighbour of the current best (fixed
schedule, no randomness: the choice depends only on past rounds, so
speculative sampling stays exact). While the best is k = 0 the probe comes
four times less often, and half as often again after every probe that leaves
k = 0 the best (down to one in PROBE_BACKOFF_MAX times the first interval): a
probe costs more than the plain steps it replaces, a model drafter's catch-up
over the skipped tokens included, so a pair that does not pay should stop
paying to learn that again. A probe is PROBE_ROUNDS rounds at the best k of
at least one, and the first of them does not feed the time line: the first
round after a run of plain steps pays for the switch (its buffers have grown,
so its compiled steps trace anew), and priced at that round drafting looked
dearer than it is, so auto stayed at k = 0 where drafting won. A round without
drafts says nothing about acceptance: alpha keeps its evidence through a run of
plain steps instead of decaying to the prior.

The rule, in words: draft more while the next draft is likely enough to be
accepted to pay for its own cost; stop drafting when acceptance collapses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SCHEDULES = ("auto", "heuristic")  # the names k may take besides a fixed integer
PROBE_BACKOFF_MAX = 8  # while plain steps stay best, probes back off to one in 8x the first interval
PROBE_ROUNDS = 3  # drafting rounds a probe out of plain steps runs; the first is not timed into the line


@dataclass
class AdaptiveK:
    k_max: int = 16  # as far as HeuristicK goes: in a run of full acceptances long blocks pay
    k_start: int = 4
    decay: float = 0.9  # weight kept by the past each round (an effective memory of ~10 rounds)
    explore_every: int = 8  # every n-th round tries a neighbour of the best k
    alpha_prior: float = 0.6
    prior_weight: float = 2.0
    _succ: float = field(default=0.0, init=False)  # pooled over every drafting round
    _fail: float = field(default=0.0, init=False)
    _succ_s: list = field(default_factory=lambda: [0.0, 0.0], init=False)  # per state: after a rejection, after
    _fail_s: list = field(default_factory=lambda: [0.0, 0.0], init=False)  # a fully accepted round
    _state: int = field(default=0, init=False)
    _fit: list = field(default_factory=lambda: [0.0] * 5, init=False)  # sums: w, wk, wk^2, wT, wkT
    _t0: list = field(default_factory=lambda: [0.0, 0.0], init=False)  # decayed sums of plain rounds: w, wT
    _round: int = field(default=0, init=False)
    _last: int = field(default=0, init=False)
    _probe_every: int = field(default=0, init=False)  # rounds between probes while k = 0 is the best
    _next_probe: int = field(default=0, init=False)  # the round of the next one
    _probe_left: int = field(default=0, init=False)  # rounds of the current probe still to run
    _switched: bool = field(default=False, init=False)  # this round is the first after plain steps
    history: list = field(default_factory=list, init=False, repr=False)  # k chosen per round

    def __post_init__(self):
        if self.k_max < 1 or not 0 <= self.k_start <= self.k_max:
            raise ValueError(f"need 1 <= k_max and 0 <= k_start <= k_max, got {self.k_max}, {self.k_start}")
        self._probe_every = self._next_probe = 4 * self.explore_every

    def warm_start(self, earlier: "AdaptiveK", weight: float = 4.0) -> None:
        """Start from what an earlier generation of the same pair learned, its evidence shrunk to at most
        `weight` rounds' worth, so this text's own rounds take over within a few rounds. The opening
        rounds (two different k, to give the line a slope) are then skipped."""
        def shrunk(sums, total):
            scale = min(1.0, weight / total) if total > 0 else 0.0
            return [v * scale for v in sums]

        self._fit = shrunk(earlier._fit, earlier._fit[0])
        self._t0 = shrunk(earlier._t0, earlier._t0[0])
        self._succ, self._fail = shrunk([earlier._succ, earlier._fail], earlier._succ + earlier._fail)
        for st in (0, 1):
            self._succ_s[st], self._fail_s[st] = shrunk([earlier._succ_s[st], earlier._fail_s[st]],
                                                        earlier._succ_s[st] + earlier._fail_s[st])
        if self._fit[0] > 0:
            self._round = max(self._round, 2)
        # the probe schedule goes on where the earlier generation left it
        self._probe_every = earlier._probe_every
        self._next_probe = self._round + max(1, earlier._next_probe - earlier._round)

    @property
    def pooled_alpha(self) -> float:
        s = self._succ + self.alpha_prior * self.prior_weight
        return s / (self._succ + self._fail + self.prior_weight)

    @property
    def alpha(self) -> float:
        """The acceptance rate the next round expects: that of the state the last drafting round left."""
        st = self._state
        s = self._succ_s[st] + self.pooled_alpha * self.prior_weight
        return s / (self._succ_s[st] + self._fail_s[st] + self.prior_weight)

    def expected_tokens(self, k: int) -> float:
        a = min(self.alpha, 0.999999)
        return (1 - a ** (k + 1)) / (1 - a)

    def round_time(self, k: int) -> float | None:
        """The fitted seconds of a round of k drafts; None until there is data."""
        w, wk, wk2, wt, wkt = self._fit
        if k == 0 and self._t0[0] > 0:
            return self._t0[1] / self._t0[0]
        if w <= 0:
            return None
        det = w * wk2 - wk * wk
        if det <= 1e-12 * w * w:  # one k seen so far: a flat line through it
            return wt / w if k > 0 else None
        b = (w * wkt - wk * wt) / det
        a = (wt - b * wk) / w
        t = a + max(b, 0.0) * k
        if k == 0:
            return a  # no plain round seen yet: a round without drafter steps
        return t

    def best(self, least: int = 0) -> int:
        """argmax E(k) / T(k) over least..k_max (least=1: the best drafting k, what a probe out of plain
        steps tries); k_start until every round time is known."""
        times = [self.round_time(k) for k in range(self.k_max + 1)]
        if any(t is None or t <= 0 for t in times[1:]):
            return max(least, self.k_start)
        scores = [(self.expected_tokens(k) / t if t and t > 0 else 0.0) for k, t in enumerate(times)]
        return max(range(least, self.k_max + 1), key=lambda k: scores[k])

    def choose(self) -> int:
        self._round += 1
        if self._round <= 2:  # two different k first, so the line has a slope
            k = self.k_start if self._round == 1 else max(1, self.k_start // 2)
        elif self._probe_left:  # the rest of a probe, at the k it started with
            k = self._last
        else:
            k = self.best()
            if k == 0:
                if self._round >= self._next_probe:
                    k, self._probe_left = self.best(least=1), PROBE_ROUNDS
                    self._next_probe = self._round + self._probe_every
            else:
                self._next_probe = self._round + self._probe_every
                if self._round % self.explore_every == 0:
                    k = k + 1 if k < self.k_max and (self._round // self.explore_every) % 2 else k - 1
        self._switched = k > 0 and self._last == 0 and self._round > 1
        self._last = k
        self.history.append(k)
        return k

    def update(self, drafted: int, accepted: int, seconds: float) -> None:
        """Feed back one round: how many drafts it had, how many were accepted, its wall time."""
        d = self.decay
        if drafted == 0:  # a plain step: its time, and nothing about acceptance
            t0 = self._t0
            t0[0], t0[1] = d * t0[0] + 1.0, d * t0[1] + seconds
            return
        rejected = 1 if accepted < drafted else 0
        self._succ = d * self._succ + accepted
        self._fail = d * self._fail + rejected
        st = self._state
        self._succ_s[st] = d * self._succ_s[st] + accepted
        self._fail_s[st] = d * self._fail_s[st] + rejected
        self._state = 1 - rejected
        s = self._fit
        if not (self._switched and self._fit[0] > 0):  # the switch's round says little about a round's cost
            for i, v in enumerate((1.0, drafted, drafted * drafted, seconds, drafted * seconds)):
                s[i] = d * s[i] + v
        base = 4 * self.explore_every
        if self._probe_left:
            self._probe_left -= 1
            if not self._probe_left and self.best() == 0:  # plain steps still best: wait twice as long
                self._probe_every = min(2 * self._probe_every, PROBE_BACKOFF_MAX * base)
                self._next_probe = self._round + self._probe_every
        elif self._probe_every > base and self.best() > 0:
            # a drafting round after which drafting is still the best: a later fall to k = 0 probes afresh
            self._probe_every = base


def for_pair(target, drafter, sampled: bool = False, **options) -> AdaptiveK:
    """An AdaptiveK for one generation, warm-started from the last one of the same target and drafter
    (and the same mode: sampling accepts less than greedy) in this process, their round times and
    acceptance, so that each generation does not pay again to learn what a round costs. The memory
    lives on the target model, one entry per drafter and mode."""
    memory = target.__dict__.setdefault("_specdec_adaptive", {}) if hasattr(target, "__dict__") else {}
    key = (*_drafter_key(drafter), sampled)
    adaptive = AdaptiveK(**options)
    if key in memory:
        adaptive.warm_start(memory[key])
    memory[key] = adaptive  # the live estimate: the next generation starts from wherever this one ends
    return adaptive


def _drafter_key(drafter) -> tuple:
    """What identifies a drafter's costs: its class, and the model or head it runs (the same
    object from one generation to the next), or its settings for a model-free drafter."""
    inner = getattr(drafter, "model", None)
    if inner is None:  # (not `or`: an mlx Module is a dict, and falsy when it holds nothing)
        inner = getattr(drafter, "head", None)
    if inner is not None:
        return type(drafter).__name__, id(inner)
    return type(drafter).__name__, tuple(sorted((k, v) for k, v in vars(drafter).items()
                                                if isinstance(v, (int, float, str, bool))))


@dataclass
class HeuristicK:
    """Hugging Face transformers' "heuristic" schedule, the baseline AdaptiveK is measured against:
    start at 5 drafts; +2 after a round whose drafts were all accepted, -1 (never below 1) otherwise.
    It never takes a plain step and never reads the clock. Capped at `k_max` (transformers has no cap;
    here every new block length costs a trace of the compiled step)."""

    k: int = 5
    k_max: int = 16
    history: list = field(default_factory=list, init=False, repr=False)

    def choose(self) -> int:
        self.history.append(self.k)
        return self.k

    def update(self, drafted: int, accepted: int, seconds: float) -> None:
        if drafted == 0:  # a round without drafts (e.g. prompt lookup without a match) moves nothing
            return
        self.k = min(self.k_max, self.k + 2) if accepted == drafted else max(1, self.k - 1)
