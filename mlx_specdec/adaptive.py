"""Adaptive draft length: each round picks k (0 included) to maximise tokens per second.

``speculative_stream(..., k="auto")`` asks an ``AdaptiveK`` for every round's
draft length. It keeps two running estimates, both decayed (about ten rounds of
memory) so they follow the text as it changes.

How far a round's drafts agree. For each draft position i it counts the rounds
that drafted position i after the drafts before it were accepted, and how many
of them rejected it; that ratio is the position's hazard h(i). A round of k
drafts then emits E(k) = 1 + S(1) + ... + S(k) tokens on average, with
S(i) = (1 - h(1)) ... (1 - h(i)) the chance that the first i drafts all agree.
The hazard is kept per position because it falls along a block: a drafter that
matched eight drafts has found a stretch it knows (a repeated phrase, a copied
passage) and is likelier to match the ninth than the first (measured for the
distilled 1M drafting for the 5M at k = 16: h(1) = 0.13, h(7..16) = 0.01-0.02,
`python -m bench.hazard`). One rate for every position, a geometric run, is
then a mean that depends on which positions were drafted: learned from short
blocks it prices long ones too low, learned from long ones it prices short
ones too high. Acceptance also comes in runs from round to round, so the counts are
kept apart for the two states the last drafting round can leave (fully accepted
or not). Thin evidence borrows from thicker, each round counted once: a state's
evidence at a position is shrunk toward the other state's, and that toward the
position before it pooled over both states, so a position never drafted yet
inherits the hazard of the last one seen.

What a round costs. The loop times every round itself around its one sync
point, so the time holds every cost (drafter steps, the verification pass, the
verdict, the commit, host Python). Plain steps are timed over their whole cycle,
from the end of the step before (the next step computes while the host reads
this one, with the building of the next step moved to the next step's time),
in two kinds: the steps inside a run of them, pipelined, whose decayed mean is
T(0); and the first step of each run, which nothing overlaps (on this CPU
about what the others cost: building a step waits for the one before). The first is an
unpipelined step, as every drafting round is: it is the point at k = 0, worth
ANCHOR_WEIGHT rounds, of T(k), a least-squares line a + b k through the drafting
rounds. Without that anchor a line fitted to rounds at k = 15 and 16, where a
drafter that agrees runs, has its slope from noise; it once put T(3) at 23 ms
where such a round costs 13. Its excess over T(0) is what turning to plain
steps costs once, so from drafting a plain step is priced at T(0) plus that
excess spread over a stint of 1 / (1 - decay) rounds. (Priced at the first step,
a plain step looked twice its cost for as long as drafting lasted: T(0) learns
nothing while auto drafts, and the only plain steps it saw were single ones. The
sampled distilled 1M then drafted at k = 1, at 0.77-0.90x plain, where plain steps pay.)
No round counts for more than SPIKE_CAP times what its kind costs so far: a
shared machine busy elsewhere for a round (37 ms among 6 ms plain steps, seen)
would otherwise hold an estimate at twice its cost for a dozen rounds.

The choice is argmax_k E(k) / T(k) over 0..k_max (16). k = 0 is a plain step of
the target, run as the plain loop's pipelined step where the drafter allows.
Crossing between plain steps and drafting costs what no round's time holds (a
model drafter's catch-up over the skipped tokens, the slow first step of a
run), so auto crosses only when the other side promises SWITCH_MARGIN (10%)
more tokens per second; near a tie it used to flip every few rounds and pay
each time. To keep every estimate fed, every eighth round tries a neighbour of
the best k on a fixed schedule with no randomness (where the neighbour is k = 0,
a run of PROBE_ROUNDS plain steps: one alone would time only a first step): the
choice depends only on past rounds, so speculative sampling stays exact. While k = 0 is best, a probe
(PROBE_ROUNDS rounds at the best k of at least one; a single round is one point
of the line, too few to move it) comes every 32 rounds, and half as often again
after each probe that leaves k = 0 the best, down to one in PROBE_BACKOFF_MAX
times that. A probe costs more than the plain steps it replaces, a model
drafter's catch-up over the skipped tokens included, so a pair that does not
pay stops paying to learn that again. A round without drafts says nothing about
acceptance, so the hazards keep their evidence through a run of plain steps.

From the first generation of a process (a CLI command): a round that traced a
compiled step (mlx_specdec.traces) counts TRACED_WEIGHT of a round, so the cost
of a first call never stands for what its kind costs; after the opening rounds
one plain step is timed; a loss budget (budget_left: LOSS_BUDGET of plain
decoding's time so far plus LOSS_ALLOWANCE steps) pays for probes and stops
drafting that loses more than it (a model drafter's catch-up over plain steps'
tokens is charged to it, `charge`; its deferred prefill, the price of trying it
at all, is not, and waits until plain steps have cost about as much: `price_entry`, ski rental); and
`schedules.for_pair` starts from the calibration file's entry for the pair
(mlx_specdec.calibration), which `finish()` writes. Knowing nothing yet, the
loop first measures what one step of a model drafter at least half its target's
size costs against one target step (`step_cost_ratio`, about two steps): where
no k could pay even with nine drafts in ten accepted (`can_pay`: a 4-bit copy of
SmolLM2 drafting for it on a CPU costs 1.3-1.4 target steps a draft, and its
first drafting round would pay a 6-second prefill), auto never drafts.

The rule, in words: draft more while the next draft is likely enough to be
accepted to pay for its own cost; stop drafting when acceptance collapses.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SCHEDULES = ("auto", "heuristic")  # the names k may take besides a fixed integer
# The draft lengths auto chooses among (up to k_max, which is always one). Every block length a process has not
# run yet costs a trace of the compiled step (and again each time its buffers grow), about one plain step on
# the CPU (5M: 5-7 ms against 4.4; SmolLM2: 40-55 ms against 61): a choice among every length up to 16 drifted
# over four or five of them. E(k) / T(k) is flat near its best, so the rungs cost little; doublings cost fewer
# traces (simulated, docs/DESIGN.md: the same mean share of the best k as with 3, 6 and 12, more on dispatch).
LADDER = (1, 2, 4, 8, 16)
PROBE_BACKOFF_MAX = 8  # while plain steps stay best, probes back off to one in 8x the first interval
PROBE_ROUNDS = 3  # drafting rounds a probe out of plain steps runs
SWITCH_MARGIN = 0.1  # the gain in tokens per second that leaving plain steps, or turning to them, must promise
ANCHOR_WEIGHT = 1.0  # rounds' worth of weight the first plain step of a run has as the line's point at k = 0
SPIKE_CAP = 2.0  # a round's time counts for at most this many times what its kind of round costs so far
TRACED_WEIGHT = 0.05  # a round that traced a compiled step counts this much: only until one that did not is seen
LOSS_BUDGET = 0.03  # what looking for drafting's profit may cost, as a share of plain decoding's time so far
LOSS_ALLOWANCE = 2.0  # ... plus this many plain steps (the opening rounds: nothing is known before them)
# The test that drafting can pay at all, from a drafter's measured step cost alone (`can_pay`): every draft
# accepted with this hazard's complement (better than any drafter here keeps up), verification free.
OPTIMISTIC_HAZARD = 0.1
# What a draft adds to a round of a drafter that costs nothing (its verification's extra row), as a share of
# the round: SmolLM2 fp32 0.03-0.07, the StoryLM 5M 0.03 (measured per pair). The slope such a drafter's line
# takes until two block lengths were timed untraced, and is shrunk toward after, with SLOPE_PRIOR rounds' worth
# of spread in k squared (`round_time`).
FREE_SLOPE = 0.05
SLOPE_PRIOR = 4.0


@dataclass
class AdaptiveK:
    k_max: int = 16  # as far as HeuristicK goes: in a run of full acceptances long blocks pay
    k_start: int = 4
    decay: float = 0.9  # weight kept by the past each round (an effective memory of ~10 rounds)
    explore_every: int = 8  # every n-th round tries a neighbour of the best k
    alpha_prior: float = 0.6
    prior_weight: float = 2.0
    # Decayed counts per draft position (index i: the i-th draft; 0 unused): rounds that drafted position i
    # after accepting the ones before it, and those of them that rejected it. Pooled, and per state
    # (0: after a rejection, 1: after a fully accepted round).
    # (Sized to k_max in __post_init__.)
    _reach: list[float] = field(default_factory=list, init=False)
    _fails: list[float] = field(default_factory=list, init=False)
    _reach_s: list[list[float]] = field(default_factory=list, init=False)
    _fails_s: list[list[float]] = field(default_factory=list, init=False)
    _state: int = field(default=0, init=False)
    _fit: list = field(default_factory=lambda: [0.0] * 5, init=False)  # sums: w, wk, wk^2, wT, wkT
    # Decayed sums (w, wT) of plain steps: those inside a run of them (pipelined), and the first of each run
    # (no step computes while the host reads it: an unpipelined step, as every drafting round is).
    _t0: list = field(default_factory=lambda: [0.0, 0.0], init=False)
    _t0_first: list = field(default_factory=lambda: [0.0, 0.0], init=False)
    _plain_run: bool = field(default=False, init=False)  # the last round fed back was a plain step
    _round: int = field(default=0, init=False)
    _last: int = field(default=0, init=False)
    _probe_every: int = field(default=0, init=False)  # rounds between probes while k = 0 is the best
    _next_probe: int = field(default=0, init=False)  # the round of the next one
    _probe_left: int = field(default=0, init=False)  # rounds of the current probe still to run
    _plain_left: int = field(default=0, init=False)  # plain steps still to run of a look at k = 0 from drafting
    _best: int | None = field(default=None, init=False)  # best() since the last update, once asked
    # The bounded loss's accounts: the drafting rounds' seconds and tokens, and every round's tokens (what
    # they cost over plain decoding is priced at the current T(0) whenever it is asked).
    _draft_seconds: float = field(default=0.0, init=False)
    _draft_tokens: int = field(default=0, init=False)
    _traced: list = field(default_factory=lambda: [0, 0, 0], init=False)  # rounds that traced: count, drafts, tokens
    _tokens: int = field(default=0, init=False)
    history: list = field(default_factory=list, init=False, repr=False)  # k chosen per round
    calibration_key: str | None = field(default=None, init=False, repr=False)  # its entry in the calibration file
    _longest: int = field(default=0, init=False)  # the longest block drafted so far
    _untraced: list = field(default_factory=list, init=False)  # block lengths (two at most) of untraced rounds
    # A drafter step's cost over a target step's, measured once before any round (`step_cost_ratio`);
    # None where nothing measured it (a drafter with no model of its own, or a warm start without one).
    _draft_ratio: float | None = field(default=None, init=False)
    # A model drafter's catch-ups (`charge`): decayed sums (tokens fed, seconds), and the tokens plain steps
    # have made since the last drafting round (what the next one would feed it).
    _catch_up: list = field(default_factory=lambda: [0.0, 0.0], init=False)
    _unseen: int = field(default=0, init=False)
    _entry: float = field(default=0.0, init=False)  # seconds of plain steps to run before drafting starts

    def __post_init__(self):
        if self.k_max < 1 or not 0 <= self.k_start <= self.k_max:
            raise ValueError(f"need 1 <= k_max and 0 <= k_start <= k_max, got {self.k_max}, {self.k_start}")
        self._probe_every = self._next_probe = self.probe_interval
        self.ladder = tuple(k for k in LADDER if k < self.k_max) + (self.k_max,)
        n = self.k_max + 1
        self._reach, self._fails = [0.0] * n, [0.0] * n
        self._reach_s, self._fails_s = [[0.0] * n, [0.0] * n], [[0.0] * n, [0.0] * n]

    def warm_start(self, earlier: "AdaptiveK", weight: float = 4.0, time_weight: float | None = None) -> None:
        """Start from what an earlier generation of the same pair learned: its acceptance shrunk to at most
        `weight` rounds' worth, so this text's own rounds take over within a few rounds, and its round
        times to `time_weight` (default `weight`; what a round costs is the pair's and the machine's, not
        the text's). The opening rounds (two different k, to give the line a slope) are then skipped."""
        def shrunk(sums, total, most=weight):
            scale = min(1.0, most / total) if total > 0 else 0.0
            return [v * scale for v in sums]

        times = weight if time_weight is None else time_weight
        self._fit = shrunk(earlier._fit, earlier._fit[0], times)
        self._t0 = shrunk(earlier._t0, earlier._t0[0], times)
        self._t0_first = shrunk(earlier._t0_first, earlier._t0_first[0], times)
        n = min(len(earlier._reach), len(self._reach))  # (index 1: every drafting round reached the first draft)
        self._reach[:n], self._fails[:n] = (shrunk(v[:n], earlier._reach[1]) for v in (earlier._reach, earlier._fails))
        for st in (0, 1):
            self._reach_s[st][:n], self._fails_s[st][:n] = (shrunk(v[st][:n], earlier._reach_s[st][1])
                                                            for v in (earlier._reach_s, earlier._fails_s))
        self._state, self._longest = earlier._state, earlier._longest
        self._untraced = list(earlier._untraced)
        if earlier._draft_ratio is not None:
            self._draft_ratio = earlier._draft_ratio
        self._catch_up = list(earlier._catch_up)  # a rate: what a token of the drafter's catch-ups costs
        if self._fit[0] > 0:
            self._round = max(self._round, 2)
        # the probe schedule goes on where the earlier generation left it
        self._probe_every = earlier._probe_every
        self._next_probe = self._round + max(1, earlier._next_probe - earlier._round)
        self._best = None

    _SNAPSHOT = ("_fit", "_t0", "_t0_first", "_catch_up", "_reach", "_fails", "_reach_s", "_fails_s",
                 "_state", "_probe_every", "_longest", "_draft_ratio")

    def snapshot(self) -> dict:
        """The estimates, as plain numbers (what the calibration file keeps)."""
        return {"k_max": self.k_max, **{name.lstrip("_"): getattr(self, name) for name in self._SNAPSHOT}}

    @classmethod
    def restore(cls, snapshot: dict) -> "AdaptiveK | None":
        """An AdaptiveK holding a snapshot's estimates; None where it is not one (a damaged entry)."""
        try:
            earlier = cls(k_max=int(snapshot["k_max"]))
            for name in cls._SNAPSHOT:
                value, like = snapshot[name.lstrip("_")], getattr(earlier, name)
                if isinstance(like, list):
                    flat = [v for row in value for v in row] if like and isinstance(like[0], list) else value
                    if len(value) != len(like) or not all(isinstance(v, (int, float)) for v in flat):
                        return None
                elif not isinstance(value, (int, float)) and not (value is None and like is None):
                    return None
                setattr(earlier, name, value)
        except (KeyError, TypeError, ValueError):
            return None
        return earlier

    @property
    def wants_step_cost(self) -> bool:
        """Whether the loop should measure a drafter step's cost before the first round (`step_cost_ratio`):
        only when nothing is known yet, neither from a round nor from a calibration entry."""
        return self._draft_ratio is None and self._fit[0] == 0 and self._round == 0

    def step_cost_ratio(self, ratio: float | None) -> None:
        """What a drafter step costs over a target step, measured before any round (None: not measured)."""
        self._draft_ratio = ratio
        self._best = None
        self._probe_every = self._next_probe = self.probe_interval

    @property
    def probe_interval(self) -> int:
        """Rounds between probes out of plain steps, before any back-off: 4 x explore_every, and explore_every
        for a drafter that costs nothing (prompt lookup), whose probe costs only its verification passes and
        whose acceptance comes and goes with the text (a story repeats its names later on). Simulated on
        SmolLM2's costs with acceptance 0.05 for the first 40 tokens and 0.85 after, 6 seeds, 150 rounds:
        0.96 of the best fixed k (lowest 0.91) probing every 32 rounds, 0.98 (0.95) every 8; on Gemma's 0.88
        (0.76) and 0.94 (0.92); within 0.004 at constant acceptance 0.05, 0.6 and 0.85."""
        return self.explore_every if self._draft_ratio == 0.0 else 4 * self.explore_every

    def price_entry(self, prefill_seconds: float, tokens: int) -> None:
        """A drafter whose start is deferred (a separate model: its prefill over the prompt's `tokens`, its
        set-up, its first traces) is tried only once plain steps have cost about as much as that start (ski
        rental): the target's own prefill of them (the 5M's 59 ms on a 166-token copy prompt, where the 1M's
        start cost 63: 28 ms catching up, 20 probing, 15 tracing), or what a token of the drafter's catch-ups
        has cost times `tokens` where that is more (priced at the catch-up alone, a calibrated process still
        drafted on 9- and 12-token copy requests and paid the traces: 0.70-0.75x plain). A generation
        shorter than that never pays the start (StoryLM's copy requests end after 1-13 tokens: the distilled
        1M cold was 0.48x plain on one), a longer one forgoes at most the profit of those steps."""
        fed, seconds = self._catch_up
        self._entry = max(prefill_seconds, tokens * seconds / fed if fed > 0 else 0.0)

    def can_pay(self) -> bool:
        """Whether drafting could beat plain steps at all, by SWITCH_MARGIN, judged from the drafter's
        measured step cost alone: a round of k drafts priced at one plain step plus k drafter steps (its
        verification free) and every draft accepted with 1 - OPTIMISTIC_HAZARD. False only for a drafter
        whose steps cost about as much as the target's (a 4-bit copy of a CPU target: 1.4 target steps a
        draft, and a 6-second deferred prefill a first drafting round would pay): auto then never drafts,
        for the price of the one measurement. True where nothing measured it."""
        r = self._draft_ratio
        if r is None:
            return True
        keep = 1.0 - OPTIMISTIC_HAZARD
        best = max((1.0 - keep ** (k + 1)) / (1.0 - keep) / (1.0 + k * r) for k in self.ladder)
        return best > 1.0 + SWITCH_MARGIN

    def finish(self) -> None:
        """The generation ended: keep its estimates in the calibration file (where the pair has an entry)."""
        if self.calibration_key is not None and self._round > 0:
            from . import calibration

            calibration.save_entry(self.calibration_key, self.snapshot())

    def hazards(self) -> list[float]:
        """For the state the last drafting round left, the chance that draft i (1..k_max; index 0 unused) is
        rejected given that the ones before it were accepted.

        Every round counts once: this state's evidence at position i is shrunk toward the other state's,
        which is shrunk toward position i - 1's pooled over both states (the first position's: the prior,
        1 - alpha_prior). (Shrunk toward a pooled rate that held the same rounds, one rejection used to
        count three times: after a single first round rejected at its first draft, h(1) = 0.82 where the
        prior and that round say 0.6, and auto left drafting on one unlucky round.)"""
        w, st = self.prior_weight, self._state
        mine, theirs = (self._reach_s[st], self._fails_s[st]), (self._reach_s[1 - st], self._fails_s[1 - st])
        before = 1.0 - self.alpha_prior  # position i - 1's hazard, pooled over both states
        out = [0.0]
        for i in range(1, self.k_max + 1):
            other = (theirs[1][i] + w * before) / (theirs[0][i] + w)
            out.append((mine[1][i] + w * other) / (mine[0][i] + w))
            before = (self._fails[i] + w * before) / (self._reach[i] + w)
        return out

    @property
    def alpha(self) -> float:
        """The chance the next round's first draft is accepted, in the state the last drafting round left."""
        return 1.0 - self.hazards()[1]

    def expected_tokens_all(self) -> list[float]:
        """E(k) for k = 0..k_max: the tokens a round of k drafts emits on average, 1 + S(1) + ... + S(k)."""
        out, survive = [1.0], 1.0
        for h in self.hazards()[1:]:
            survive *= 1.0 - h
            out.append(out[-1] + survive)
        return out

    def expected_tokens(self, k: int) -> float:
        return self.expected_tokens_all()[k]

    def plain_time(self) -> float | None:
        """T(0): the decayed mean of the plain steps seen inside runs of them (pipelined), or of the first
        steps of runs while no run has gone past one; None before the first plain step."""
        if self._t0[0] > 0:
            return self._t0[1] / self._t0[0]
        return self.first_step_time()

    def first_step_time(self) -> float | None:
        """The decayed mean of the first plain step of each run (or of the steps inside runs while no
        first step untraced was seen: a traced one says what a trace costs, not what a step does); None
        before the first plain step."""
        first, inside = self._t0_first, self._t0
        w, wt = first if first[0] >= 0.5 or (first[0] > 0 and inside[0] == 0) else inside
        return wt / w if w > 0 else None

    def crossing_time(self) -> float:
        """What turning to plain steps costs once, over their steady cost: the slower first step."""
        first, steady = self.first_step_time(), self.plain_time()
        return max(0.0, first - steady) if first is not None and steady is not None else 0.0

    def round_time(self, k: int) -> float | None:
        """The fitted seconds of a round of k drafts; None until there is data (for k = 0, until a plain step
        was timed: the line's intercept is no price for one before a second block length was timed untraced,
        and it once put a SmolLM2 step at 8 ms where one costs 53, so prompt lookup left a verbatim copy for
        plain steps)."""
        plain = self.plain_time()
        if k == 0:
            return plain
        w, wk, wk2, wt, wkt = self._fit
        if w <= 0:
            return None
        if self._draft_ratio == 0.0:
            return self._free_round_time(k)
        first = self.first_step_time()
        if first is not None:  # the line's anchor: a round of no drafts is an unpipelined plain step
            anchor = ANCHOR_WEIGHT * min(1.0, max(self._t0_first[0], self._t0[0]))  # (a traced step weighs less)
            w, wt = w + anchor, wt + anchor * first
        det = w * wk2 - wk * wk
        b = (w * wkt - wk * wt) / det if det > 1e-12 * w * w else -1.0
        if first is None and len(self._untraced) < 2:
            b = -1.0  # a slope from a traced round alone is its trace's (SmolLM2 + lookup: 29 ms a draft, not 4)
        if b < 0:
            # One k seen so far, or noise (or an anchor above the rounds): no slope to trust. Priced as if a
            # round's cost grew with the tokens it runs, (1 + k) / (1 + mean k): too high for long blocks
            # rather than too low, so the choice stays near what was seen until a second k is timed.
            return (wt / w) * (1 + k) / (1 + wk / w)
        a = (wt - b * wk) / w
        return a + b * k

    def _free_round_time(self, k: int) -> float:
        """A round of a drafter that costs nothing (prompt lookup) is its verification: a line through its
        rounds alone, with a slope shrunk toward FREE_SLOPE of a round a draft (taken as it is until two block
        lengths were timed untraced). No anchor at k = 0: on a dispatch-bound target a verification costs what
        no plain step does (the 5M: 4.2 ms a round at k = 1, 2.4 a plain step); a line from a plain step through
        k = 2 priced a round of 16 at 20 ms, not 6, and auto kept to plain steps through a loop its drafts would
        have copied (40 story openings, bench/results/auto-replay-generated/quiet-costs: 0.72 of the best k, 0.93)."""
        w, wk, wk2, wt, wkt = self._fit
        mean_k, mean_t = wk / w, wt / w
        prior = FREE_SLOPE * mean_t / (1 + FREE_SLOPE * mean_k)  # the slope of (1 + c k) / (1 + c mean k)
        if len(self._untraced) < 2:
            b = prior
        else:
            spread, covariance = wk2 - w * mean_k * mean_k, wkt - w * mean_k * mean_t
            b = max(0.0, (covariance + SLOPE_PRIOR * prior) / (spread + SLOPE_PRIOR))
        return mean_t + b * (k - mean_k)

    def best(self, least: int = 0) -> int:
        """argmax E(k) / T(k) over least..k_max (least=1: the best drafting k, what a probe out of plain
        steps tries); k_start until every round time is known."""
        times = [self.round_time(k) for k in range(self.k_max + 1)]
        if any(t is None or t <= 0 for t in times[1:]):
            return max(least, self.k_start)
        if not self._plain_run and times[0] is not None:
            # Turning to plain steps pays their slow first step once, over a stint of about the
            # estimates' memory (1 / (1 - decay) rounds).
            times[0] += self.crossing_time() * (1.0 - self.decay)
        scores = [(e / t if t and t > 0 else 0.0) for e, t in zip(self.expected_tokens_all(), times)]
        # Never more than twice the longest block drafted yet: beyond it E(k) and T(k) are extrapolations
        # (from two opening rounds, a flat line priced k = 16 like k = 4), and each new length costs a trace.
        reach = max(self.k_start, 2 * self._longest)
        drafting = max((k for k in self.ladder if least <= k <= max(least, reach)), key=lambda k: scores[k])
        if least > 0 or scores[0] <= 0:
            return drafting
        # Crossing between plain steps and drafting costs what no round's time holds (a model drafter's
        # catch-up, the slow first step of a run): cross only for a clear gain.
        if self._plain_run:
            return drafting if scores[drafting] > (1 + SWITCH_MARGIN) * scores[0] else 0
        return 0 if scores[0] > (1 + SWITCH_MARGIN) * scores[drafting] else drafting

    def _neighbour(self, k: int, up: bool) -> int:
        """The next rung of the ladder above k (below it at the top), or the one below it (0 under the first)."""
        if up and k < self.k_max:
            return next(r for r in self.ladder if r > k)
        return max((r for r in self.ladder if r < k), default=0)

    def _best_now(self) -> int:
        """best(), computed at most once between two updates (update() may need it too)."""
        if self._best is None:
            self._best = self.best()
        return self._best

    def choose(self) -> int:
        if self._entry > 0 and self.can_pay():  # plain steps before a deferred start (price_entry): no round yet
            self._last = 0
            self.history.append(0)
            return 0
        self._round += 1
        if not self.can_pay():  # a drafter as slow as its target: no round of it could pay
            k = 0
        elif self._round <= 2:  # two different k first, so the line has a slope
            k = self.k_start if self._round == 1 else max(1, self.k_start // 2)
        elif self._round >= 3 and self._fit[0] < 0.5 and self._longest and not self._probe_left:
            # and, while every drafting round so far traced (a fresh process), one more at a length already
            # traced: its time is the first that says what drafting costs (a new length's first round costs
            # up to twice its kind on a CPU: priced from the opening's rounds alone, prompt lookup for the 5M
            # never drafted again, 0.92x where k = 8 gives 1.27x). At once: after a drafting round a model
            # drafter has nothing to catch up (after plain steps, the 1M fed the 5M's 5 tokens for 6 ms, more
            # than a step). Asked again each round until it happens: prompt lookup takes plain steps while it
            # finds nothing to copy, and a grown buffer traces again.
            k = max(1, self.k_start // 2)
        elif self._round <= 4 and self._t0[0] + self._t0_first[0] == 0 and not (
                self._draft_ratio == 0.0 and (not any(self._fails) or self._state == 1)):
            # and a run of plain steps, timed: what every round is weighed against (a run, not one step:
            # in a fresh process the first traces the step, and a traced step says little). Not for a
            # drafter that costs nothing (prompt lookup) while every draft it made was accepted, or its last
            # round was (a reply's first token is rarely in the request; after it a verbatim copy runs): its
            # rounds' line meets k = 0 near an unpipelined plain step, and it takes plain steps of itself where
            # it finds nothing to copy, so the run would only cost a copy request three rounds of copying.
            # (Where its drafts were rejected, the run costs nothing, and without it the intercept, an
            # unpipelined step 10-20% over a pipelined one, kept a hopeless lookup drafting a dozen rounds.)
            k, self._plain_left = 0, PROBE_ROUNDS - 1
        elif self._probe_left:  # the rest of a probe, at the k it started with
            k = self._last
        elif self._plain_left:  # the rest of a look at plain steps
            self._plain_left -= 1
            k = 0
        else:
            k = self._best_now()
            if k > 0 and self._budget_binds() and self.budget_left() < 0:
                k = 0  # drafting has cost more than the budget allows: the estimates are wrong, stop paying
            if k == 0:
                if self._round >= self._next_probe:
                    probe = self.best(least=1)
                    if not self._budget_binds() or self.budget_left() >= self.probe_cost(probe):
                        # (else wait until plain steps refill it)
                        k, self._probe_left = probe, PROBE_ROUNDS
                        self._next_probe = self._round + self._probe_every
            else:
                self._next_probe = self._round + self._probe_every
                if self._round % self.explore_every == 0:
                    k = self._neighbour(k, up=(self._round // self.explore_every) % 2 == 1)
                    if k == 0:  # a run of them: one step alone says what the first costs, not the rest
                        self._plain_left = PROBE_ROUNDS - 1
        self._last = k
        self.history.append(k)
        return k

    def budget_left(self) -> float:
        """Seconds that looking for drafting's profit may still cost: LOSS_BUDGET of what plain decoding of
        the tokens so far takes, plus LOSS_ALLOWANCE plain steps, less what the rounds so far cost over
        it (a drafting round that paid refills it). Infinite before T(0) can be estimated."""
        plain = self.round_time(0)
        if plain is None or plain <= 0:
            return float("inf")
        excess = self._draft_seconds - plain * self._draft_tokens
        rounds, drafts, tokens = self._traced
        if rounds:
            steady = self.round_time(drafts / rounds)
            excess += (rounds * steady if steady is not None else 0.0) - plain * tokens
        return (LOSS_BUDGET * self._tokens + LOSS_ALLOWANCE) * plain - excess

    def _budget_binds(self) -> bool:
        """Whether the loss budget may stop a round: not for a drafter that costs nothing (prompt lookup) whose
        last draft agreed (in a round or a plain step's `shadow`): its acceptance is learned for free, and after
        an agreement its next round is the likeliest to pay. (Spent by an opening's rejected rounds, the budget
        kept auto on plain steps through loops its drafts copied: calibrated 1.42x plain on the openings, 1.60x.)"""
        return not (self._draft_ratio == 0.0 and self._state == 1)

    def probe_cost(self, k: int) -> float:
        """The most a probe at k can cost over the plain steps it replaces: none of its drafts accepted,
        and the model drafter's catch-up over the tokens made since it last drafted, at what a token of
        its catch-ups has cost (a 1M catching up 97 tokens for the 5M: 25-44 ms, five plain steps or more,
        where the probe's own rounds cost one or two)."""
        plain, t = self.round_time(0), self.round_time(k)
        if plain is None or t is None:
            return 0.0
        fed, seconds = self._catch_up
        return PROBE_ROUNDS * max(0.0, t - plain) + (self._unseen * seconds / fed if fed > 0 else 0.0)

    def charge(self, seconds: float, tokens: int = 0, budget: bool = True) -> None:
        """A model drafter's catch-up over the `tokens` plain steps made (work a drafting round owed but
        does not time): what a token of it costs prices the next probe's, and the loss budget pays it
        (`budget`: all but the first, the deferred prefill, the price of trying the drafter at all)."""
        if budget:
            self._draft_seconds += seconds
        if tokens > 0:
            c, d = self._catch_up, self.decay
            c[0], c[1] = d * c[0] + tokens, d * c[1] + seconds

    def shadow(self, drafted: int, accepted: int) -> None:
        """A round that was not run, scored: a drafter free to run (prompt lookup) would have drafted
        `drafted` tokens during a plain step, and the tokens the steps made agreed with the first `accepted` of
        them (`plain_steps.Shadow`, one draft a step). Its acceptance counts as a drafting round's; it took
        no time and spent nothing. Without it acceptance learned nothing while auto took plain steps, and the
        probes that could relearn it were blocked by the loss budget after an unlucky opening: prompt lookup
        on StoryLM stories, which loop, stayed on plain steps where k = 16 gives 1.66x (40 stories replayed in
        bench.auto_replay with a round at 1.75 plain steps: 0.58 of the best fixed k cold and 0.61 calibrated
        without, 0.68 and 0.82 with; where a round costs 1.2 steps it matters less, docs/DESIGN.md). Greedy, a
        draft agrees exactly where a verification would accept it; sampled, a one-hot draft d is accepted with
        probability p(d), the chance the sampled token is d: the same counts in distribution. The choice still
        depends only on tokens already made."""
        self._best = None
        self._count(drafted, accepted)

    def _count(self, drafted: int, accepted: int) -> None:
        """A round's acceptance into the decayed hazard counts (pooled and the state's), and the state it leaves."""
        d = self.decay
        rejected, st = (1 if accepted < drafted else 0), self._state
        for reach, fails in ((self._reach, self._fails), (self._reach_s[st], self._fails_s[st])):
            for i in range(1, self.k_max + 1):
                reach[i] *= d
                fails[i] *= d
            for i in range(1, min(accepted + rejected, drafted, self.k_max) + 1):
                reach[i] += 1.0  # drafts 1..accepted agreed; the next one, if drafted, was rejected
            if rejected and accepted < self.k_max:
                fails[accepted + 1] += 1.0
        self._state = 1 - rejected

    def update(self, drafted: int, accepted: int, seconds: float, traced: bool = False) -> None:
        """Feed back one round: how many drafts it had, how many were accepted, its wall time, and whether
        it traced a compiled step (`traces`): such a round costs more than its kind does, so its time
        counts for TRACED_WEIGHT of a round, enough to price a kind not yet seen otherwise."""
        d = self.decay
        self._best = None
        weight = TRACED_WEIGHT if traced else 1.0
        self._tokens += 1 + (accepted if drafted else 0)  # the bounded loss's accounts (budget_left)
        self._unseen = 0 if drafted else self._unseen + 1
        if drafted and traced:
            # Priced, when the budget is asked, at what a round of its length costs without the trace: a trace
            # is the one-time price of trying a length, which a fixed k pays too, and the budget leaves it out
            # as it leaves out a model drafter's deferred prefill. (Charged at their clock, the opening rounds'
            # traces alone spent the budget on the dispatch-bound StoryLM pairs, and auto kept to plain steps
            # for the rest of a text where k = 4 gave 1.35x: replayed in bench.auto_replay.)
            t = self._traced
            t[0], t[1], t[2] = t[0] + 1, t[1] + drafted, t[2] + 1 + accepted
        elif drafted:
            self._draft_seconds += seconds
            self._draft_tokens += 1 + accepted
        if drafted == 0:  # a plain step: its time, and nothing about acceptance
            self._entry -= seconds
            t0 = self._t0 if self._plain_run else self._t0_first
            if t0[0] >= 1.0:  # a spike (the machine busy elsewhere) is not what a step costs
                seconds = min(seconds, SPIKE_CAP * t0[1] / t0[0])
                if t0 is self._t0:  # nor a step the one before it already paid for (the last of a run)
                    seconds = max(seconds, t0[1] / t0[0] / SPIKE_CAP)
            t0[0], t0[1] = d * t0[0] + weight, d * t0[1] + weight * seconds
            self._plain_run = True
            return
        self._plain_run = False
        self._longest = max(self._longest, drafted)
        if not traced and len(self._untraced) < 2 and drafted not in self._untraced:
            self._untraced.append(drafted)
        if self._fit[0] >= 1.0:
            expected = self.round_time(drafted)
            if expected is not None and expected > 0:
                seconds = min(seconds, SPIKE_CAP * expected)
        self._count(drafted, accepted)
        s = self._fit
        for i, v in enumerate((1.0, drafted, drafted * drafted, seconds, drafted * seconds)):
            s[i] = d * s[i] + weight * v
        base = self.probe_interval
        if self._probe_left:
            self._probe_left -= 1
            if not self._probe_left and self._best_now() == 0:  # plain steps still best: wait twice as long
                self._probe_every = min(2 * self._probe_every, PROBE_BACKOFF_MAX * base)
                self._next_probe = self._round + self._probe_every
        elif self._probe_every > base and self._best_now() > 0:
            # a drafting round after which drafting is still the best: a later fall to k = 0 probes afresh
            self._probe_every = base


AdaptiveK.learns = True  # it times rounds: the loop pays a drafter's catch-up before starting a round's clock
