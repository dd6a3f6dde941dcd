"""Adaptive draft length (k="auto"): the rule picks what maximises tokens per second,
and the loop stays exact whatever it picks."""

import importlib

import pytest

from mlx_specdec import greedy_generate, speculative_generate
from mlx_specdec.adaptive import PROBE_ROUNDS, AdaptiveK
from mlx_specdec.errors import SpecDecError
from tests.mocks import TableLM


def feed(ctrl: AdaptiveK, rounds: int, accept_rate: float, t0: float, per_draft: float, base: float):
    """Simulate rounds: acceptance per draft exactly `accept_rate` on average (deterministic
    pattern), a round of k drafts costs base + k * per_draft seconds, a plain round t0."""
    credit = 0.0
    for _ in range(rounds):
        k = ctrl.choose()
        accepted = 0
        for _ in range(k):
            credit += accept_rate
            if credit >= 1.0:
                credit -= 1.0
                accepted += 1
            else:
                break
        ctrl.update(k, accepted, t0 if k == 0 else base + k * per_draft)
    return ctrl


def test_high_acceptance_and_cheap_drafts_push_k_to_the_top():
    ctrl = feed(AdaptiveK(k_max=8), 80, accept_rate=0.97, t0=4e-3, per_draft=0.2e-3, base=5e-3)
    assert ctrl.best() == 8
    assert ctrl.expected_tokens(8) > 6.5  # about one draft in 33 is rejected


def test_hopeless_drafts_fall_back_to_plain_steps():
    ctrl = feed(AdaptiveK(k_max=8), 80, accept_rate=0.05, t0=4e-3, per_draft=2e-3, base=5e-3)
    assert ctrl.best() == 0
    assert ctrl.history[-20:].count(0) >= 15  # mostly plain rounds, a probe now and then


def test_probes_back_off_while_plain_steps_stay_best_and_drafting_comes_back_when_it_pays():
    from mlx_specdec.adaptive import PROBE_BACKOFF_MAX, PROBE_ROUNDS

    ctrl = feed(AdaptiveK(k_max=8), 1400, accept_rate=0.05, t0=4e-3, per_draft=2e-3, base=5e-3)
    h = ctrl.history
    assert h[:3] == [4, 2, 0]  # the opening rounds, then plain steps
    starts = [i for i in range(3, len(h)) if h[i] > 0 and h[i - 1] == 0]
    for i in starts:  # a probe: PROBE_ROUNDS drafting rounds at one k, then plain steps again
        assert h[i : i + PROBE_ROUNDS] == [h[i]] * PROBE_ROUNDS and h[i + PROBE_ROUNDS] == 0
    gaps = [b - a for a, b in zip(starts, starts[1:])]
    first, rest = 4 * ctrl.explore_every, PROBE_ROUNDS - 1  # the next interval counts from a probe's last round
    # The intervals double, to the cap; a probe also waits until the loss budget can pay for it (the opening
    # rounds spent the allowance here, so the first one comes later than its interval).
    assert starts[0] >= first
    assert all(g - rest >= want for g, want in zip(gaps[:3], (2 * first, 4 * first, 8 * first)))
    assert PROBE_BACKOFF_MAX == 8 and all(g - rest >= PROBE_BACKOFF_MAX * first for g in gaps[2:])
    assert min(gaps[2:]) - rest < PROBE_BACKOFF_MAX * first + 40  # the budget refills: probes keep coming
    # The text changes: drafts become good. Probes at the cap find it (each accepted draft lifts alpha, which
    # carries the hopeless rounds' evidence until then), and drafting resumes.
    seen = len(h)
    feed(ctrl, 5 * PROBE_BACKOFF_MAX * first, accept_rate=0.97, t0=4e-3, per_draft=0.2e-3, base=5e-3)
    assert ctrl.best() > 2 and ctrl.history[-20:].count(0) == 0
    back = next(i for i, k in enumerate(ctrl.history[seen:]) if k > 1)
    assert back <= 2 * PROBE_BACKOFF_MAX * first


def test_a_warm_start_keeps_the_probe_schedule():
    earlier = feed(AdaptiveK(k_max=8), 500, accept_rate=0.05, t0=4e-3, per_draft=2e-3, base=5e-3)
    later = AdaptiveK(k_max=8)
    later.warm_start(earlier)
    assert later._probe_every == earlier._probe_every > 4 * later.explore_every
    assert later._next_probe - later._round == earlier._next_probe - earlier._round


def test_the_choice_maximises_expected_tokens_per_second_on_the_fitted_costs():
    ctrl = feed(AdaptiveK(k_max=8), 60, accept_rate=0.7, t0=5e-3, per_draft=1.5e-3, base=5e-3)
    scores = {k: ctrl.expected_tokens(k) / ctrl.round_time(k) for k in range(9)}
    drafting = max(ctrl.ladder, key=scores.get)  # (the lengths auto chooses among)
    assert ctrl.best(least=1) == drafting
    # from plain steps, drafting is taken only for SWITCH_MARGIN more tokens per second
    from mlx_specdec.adaptive import SWITCH_MARGIN

    if ctrl._plain_run:
        assert ctrl.best() == (drafting if scores[drafting] > (1 + SWITCH_MARGIN) * scores[0] else 0)
    else:
        assert ctrl.best() == (0 if scores[0] > (1 + SWITCH_MARGIN) * scores[drafting] else drafting)
    # The line fitted to the observed rounds (and anchored at the plain step, here what a round of no
    # drafts costs) recovers the simulated costs.
    assert ctrl.round_time(4) == pytest.approx(5e-3 + 4 * 1.5e-3, rel=1e-6)


def test_the_time_line_is_anchored_at_the_plain_step():
    """Rounds seen only at k = 15 and 16, with noise that makes the line through them alone flat: the plain
    step, a point at k = 0, keeps the slope near the truth, so short blocks are not priced far too high."""
    from mlx_specdec.adaptive import ANCHOR_WEIGHT

    ctrl = AdaptiveK()
    truth = lambda k: 5e-3 + 2.3e-3 * k
    for i in range(40):
        ctrl.update(16 - i % 2, 16 - i % 2, truth(16 - i % 2) + (-1e-3 if i % 2 == 0 else 1e-3))
    ctrl.update(0, 0, truth(0))
    ctrl.update(0, 0, truth(0))  # inside a run: T(0)
    assert ctrl.round_time(0) == pytest.approx(truth(0))
    assert ctrl.round_time(3) == pytest.approx(truth(3), rel=0.1)
    assert ANCHOR_WEIGHT > 0
    unanchored = AdaptiveK()
    unanchored._fit = list(ctrl._fit)  # the same rounds without the plain steps: the slope of noise
    unanchored._untraced = list(ctrl._untraced)  # (two lengths timed untraced: a line is fitted)
    assert unanchored.round_time(3) > 2 * truth(3)


def test_bad_settings_are_refused():
    with pytest.raises(ValueError):
        AdaptiveK(k_max=0)
    with pytest.raises(SpecDecError, match="'auto'"):
        speculative_generate(TableLM(8), TableLM(8, seed=1), [1, 2], 5, k="fast")


@pytest.mark.parametrize("strategy", ["cache", "recompute"])
def test_auto_k_greedy_equals_the_target_greedy(strategy):
    target, drafter = TableLM(8, seed=3, sharpness=3.0), TableLM(8, seed=4, sharpness=3.0)
    out, stats = speculative_generate(target, drafter, [1, 2], 60, k="auto", strategy=strategy)
    assert out == greedy_generate(target, [1, 2], 60)
    assert stats.generated == 60


def test_auto_k_on_a_hybrid_target_is_exact():
    from tests import archs

    target = archs.build("qwen3_next")
    drafter = archs.drafter_of(target)
    prompt = [5, 17, 33, 2, 9, 100, 41, 7, 8, 12, 200, 3]
    out, _ = speculative_generate(target, drafter, prompt, 36, k="auto")
    assert out == archs.oracle_greedy(target, prompt, 36)


@pytest.mark.slow
def test_auto_k_sampling_keeps_the_target_distribution():
    """k chosen from past rounds only (never from this round's draws): the joint
    distribution of 3 sampled tokens is still the target's (chi-square, 0.001 level)."""
    from tests.test_distribution import PROMPT, V, chi_square_test, softmax, target_joint

    from mlx_specdec.drafters import ModelDrafter

    class TableDrafter(ModelDrafter):
        defers_prefill = False  # a table's start costs nothing: auto drafts from the first round, as this test needs

    target = TableLM(V, seed=3, sharpness=1.0)
    joint = target_joint(target, PROMPT, 3, softmax)
    samples, drafted = [], 0
    for seed in range(2000):
        drafter = TableDrafter(TableLM(V, seed=11, sharpness=4.0))
        out, stats = speculative_generate(target, drafter, PROMPT, 3, k="auto", temperature=1.0, seed=seed)
        samples.append(out)
        drafted += stats.drafted
    stat, critical = chi_square_test(samples, joint)
    assert stat < critical
    assert drafted > 0


@pytest.mark.slow
def test_adaptive_bench_writes_paired_rows_for_every_drafter_and_k(tmp_path):
    import json

    from bench.adaptive import main

    assert main(["--prompts", "1", "--repeats", "1", "--max-tokens", "12", "--ks", "2,auto",
                 "--drafters", "storylm-1m,prompt-lookup", "--out", str(tmp_path)]) == 0
    (result,) = tmp_path.glob("*-adaptive-storylm-5m.json")
    rows = json.loads(result.read_text())["rows"]
    assert {(r["drafter"], r["k"]) for r in rows} == {(d, k) for d in ("storylm-1m", "prompt-lookup") for k in (2, "auto")}
    assert all(r["speedup"]["median"] > 0 and r["tokens_per_pass"] >= 1 for r in rows)


@pytest.mark.slow
def test_adaptive_bench_samples_at_a_temperature_into_its_own_file(tmp_path):
    import json

    from bench.adaptive import main

    assert main(["--prompts", "1", "--repeats", "2", "--max-tokens", "12", "--ks", "auto", "--temperature", "0.8",
                 "--drafters", "prompt-lookup", "--prompt-set", "stories", "--out", str(tmp_path)]) == 0
    (result,) = tmp_path.glob("*-adaptive-storylm-5m-t0p8.json")
    data = json.loads(result.read_text())
    assert data["header"]["temperature"] == 0.8
    ((row,),) = [[r for r in data["rows"] if r["k"] == "auto"]]
    assert len(row["speedup"]["samples"]) == 2 and row["tokens_per_pass"] >= 1
    assert "Sampled at temperature 0.8" in result.with_suffix(".md").read_text()
    assert main(["--temperature", "-1", "--drafters", "prompt-lookup", "--out", str(tmp_path)]) == 2


# -- the opt-in per-round profile -----------------------------------------------


@pytest.mark.parametrize("k", [3, "auto"])
def test_a_profiled_run_emits_the_same_tokens_and_times_every_round(k):
    from mlx_specdec.generate import PHASES, RoundProfile, SpecStats, speculative_stream

    target, drafter = TableLM(8, seed=3, sharpness=3.0), TableLM(8, seed=4, sharpness=3.0)
    prof, stats = RoundProfile(), SpecStats()
    out = [t for e in speculative_stream(target, drafter, [1, 2], 30, k=k, stats=stats, profile=prof) for t in e.ids]
    assert out == greedy_generate(target, [1, 2], 30)
    assert prof.rounds == stats.target_passes
    assert set(prof.seconds) == set(PHASES) and all(t >= 0 for t in prof.seconds.values())
    assert prof.seconds["verify"] > 0 and sum(prof.per_round_ms().values()) > 0


# -- rounds without drafts run the plain loop's pipelined step ------------------


class NoDrafts:
    """A host-side drafter that never has anything to propose (prompt lookup without a match)."""

    pipelines_plain_steps = True

    def __init__(self):
        self.tokens, self.asked = [], []

    def prefill(self, prompt_ids):
        self.tokens = list(prompt_ids)

    def would_propose(self):
        return False

    def propose(self, k, policy, key):
        import mlx.core as mx

        self.asked.append(k)
        return mx.array([], dtype=mx.int32), None

    def commit(self, accepted, token):
        assert accepted == 0
        self.tokens.append(token)


def _no_verdict(monkeypatch):
    import importlib

    verdicts = importlib.import_module("mlx_specdec.verdicts")  # where the loop's verdict comes from

    def refuse(*a, **kw):
        raise AssertionError("a round without drafts went through the verdict")

    monkeypatch.setattr(verdicts, "greedy_verdict", refuse)
    monkeypatch.setattr(verdicts, "sampled_verdict", refuse)


@pytest.mark.parametrize("k", [4, "auto"])
def test_a_drafter_with_nothing_to_propose_costs_exactly_the_plain_steps(k, monkeypatch):
    from mlx_specdec.generate import plain_stream

    _no_verdict(monkeypatch)
    plain_target, target, drafter = TableLM(8, seed=3), TableLM(8, seed=3), NoDrafts()
    # The cache strategy: 'auto' would first probe whether the compiled step matches, which calls the model too.
    expected = list(plain_stream(plain_target, [1, 2], 25, strategy="cache"))
    out, stats = speculative_generate(target, drafter, [1, 2], 25, k=k, strategy="cache")
    assert out == expected == greedy_generate(TableLM(8, seed=3), [1, 2], 25)
    assert (stats.target_passes, stats.generated, stats.drafted, stats.accepted) == (25, 25, 0, 0)
    assert stats.accepted_per_round == [0] * 25
    assert target.calls == plain_target.calls == 1 + 25  # the prefill, then one one-token pass per token
    assert drafter.tokens == [1, 2] + out
    assert all(a == 0 for a in drafter.asked)  # every commit followed a proposal of nothing


def test_plain_steps_and_lookup_rounds_interleave_exactly():
    from mlx_specdec.drafters import PromptLookupDrafter
    from mlx_specdec.generate import SpecStats, speculative_stream

    class Spy(PromptLookupDrafter):
        proposed = 0

        def propose(self, k, policy, key):
            ids, probs = super().propose(k, policy, key)
            Spy.proposed += ids.shape[0]
            return ids, probs

    prompt = [1, 2, 3, 1, 2]
    reference = greedy_generate(TableLM(8, seed=5, sharpness=3.0), prompt, 60)
    for instrumented in (False, True):  # pipelined, and one step at a time (an instrument inspects each boundary)
        Spy.proposed = 0
        target, stats = TableLM(8, seed=5, sharpness=3.0), SpecStats()
        hook = (lambda seq, d: None) if instrumented else None
        emissions = list(speculative_stream(target, Spy(max_ngram=3, min_ngram=3), prompt, 60, k=3, stats=stats,
                                            on_commit=hook, strategy="cache"))  # no compiled-step probe calls
        out = [t for e in emissions for t in e.ids]
        kinds = [x for e in emissions for x in e.kinds]
        assert out == reference
        assert stats.target_passes == len(emissions) == target.calls - 1
        assert stats.generated == 60 and stats.accepted == kinds.count("draft") and stats.drafted == Spy.proposed
        assert sum(stats.accepted_per_round) == stats.accepted
        plain = [e for e in emissions if e.kinds == ["target"]]
        assert plain and len(plain) < len(emissions)  # both plain steps and drafting rounds ran


class CostedLM(TableLM):
    """A TableLM whose every call advances a shared fake clock: `step` seconds plus `row` per input row."""

    def __init__(self, clock: list, step: float, row: float, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.clock, self.step, self.row = clock, step, row

    def __call__(self, ids, cache=None):
        self.clock[0] += self.step + self.row * ids.shape[1]
        return super().__call__(ids, cache)


def test_auto_k_turns_a_hopeless_model_drafter_into_plain_steps(monkeypatch):
    """On a fake clock (a target pass 1 s + 0.5 s a row, a drafter step 0.3 s), so the choice cannot
    depend on how loaded the machine is: a drafter that is almost never right leaves plain steps.
    (The clock moves when a pass is built, not when it runs, so the plain steps run one at a time,
    as under any on_commit hook: a pipelined step is built one round early.)"""
    import importlib

    from mlx_specdec.generate import SpecStats, speculative_stream

    clock = [0.0]
    monkeypatch.setattr(importlib.import_module("mlx_specdec.generate").time, "perf_counter", lambda: clock[0])
    target, stats = CostedLM(clock, 1.0, 0.5, 8, seed=3, sharpness=3.0), SpecStats()
    drafter = CostedLM(clock, 0.3, 0.0, 8, seed=99, sharpness=3.0)
    emissions = list(speculative_stream(target, drafter, [1, 2], 120, k="auto", stats=stats,
                                        on_commit=lambda seq, d: None))
    assert [t for e in emissions for t in e.ids] == greedy_generate(TableLM(8, seed=3, sharpness=3.0), [1, 2], 120)
    plain = sum(e.kinds == ["target"] for e in emissions)
    assert stats.acceptance_rate < 0.3 and plain >= 100  # mostly plain steps (a few rounds still explore)
    assert stats.target_passes == len(emissions) and stats.generated == 120
    assert stats.accepted == sum(e.kinds.count("draft") for e in emissions)


def test_adaptive_k_keeps_its_acceptance_evidence_through_plain_steps():
    ctrl = feed(AdaptiveK(k_max=8), 40, accept_rate=0.05, t0=4e-3, per_draft=2e-3, base=5e-3)
    alpha = ctrl.alpha
    for _ in range(50):
        ctrl.update(0, 0, 4e-3)
    assert ctrl.alpha == alpha and ctrl.best() == 0


@pytest.mark.slow
@pytest.mark.parametrize("k", [2, "auto"])
def test_lookup_with_plain_steps_keeps_the_target_distribution(k):
    """Prompt lookup matching only trigrams: some rounds draft, others are pipelined plain
    steps; the joint distribution of 3 sampled tokens is still the target's."""
    from mlx_specdec.drafters import PromptLookupDrafter
    from tests.test_distribution import V, chi_square_test, softmax, target_joint

    prompt = [2, 1, 2, 1, 2]
    target = TableLM(V, seed=3, sharpness=1.0)
    joint = target_joint(target, prompt, 3, softmax)
    samples, drafted, passes = [], 0, 0
    for seed in range(2000):
        out, stats = speculative_generate(target, PromptLookupDrafter(min_ngram=3), prompt, 3, k=k, temperature=1.0,
                                          seed=seed)
        samples.append(out)
        drafted += stats.drafted
        passes += stats.target_passes
    stat, critical = chi_square_test(samples, joint)
    assert stat < critical
    assert 0 < drafted and passes > 2000  # both kinds of round ran


def test_prompt_lookup_index_agrees_with_the_scan():
    import random

    from mlx_specdec.drafters import PromptLookupDrafter

    rng = random.Random(0)
    for lo, hi, resync in ((1, 3, 3), (2, 2, 0), (2, 4, 3), (1, 2, 3), (3, 3, 2)):
        d = PromptLookupDrafter(max_ngram=hi, min_ngram=lo, resync_ngram=resync)
        d.prefill([rng.randrange(6) for _ in range(5)])
        for _ in range(200):
            assert d.lookup(4) == d.lookup_scan(4)
            assert d.would_propose() == bool(d.lookup_scan(1))
            d.tokens += [rng.randrange(6) for _ in range(rng.randrange(1, 3))]
        d.prefill([1, 2, 1, 2])  # a new list: the index starts again
        assert d.lookup(3) == d.lookup_scan(3)


def test_plain_steps_are_timed_apart_inside_runs_and_first_of_a_run():
    """T(0) is the decayed mean of the steps inside runs of plain steps (pipelined); the first step of each
    run (not yet pipelined, an unpipelined step like every drafting round) is kept apart: it anchors the
    drafting line, and its excess is what turning to plain steps costs once."""
    ctrl = AdaptiveK()
    runs = [[9e-3, 5e-3, 5e-3], [11e-3, 6e-3, 6e-3, 6e-3]]
    inside, first = [], []
    for run in runs:
        ctrl.update(2, 1, 12e-3)  # a drafting round ends the run before
        for i, t in enumerate(run):
            ctrl.update(0, 0, t)
            (inside if i else first).append(t)

    def decayed_mean(samples):
        weights = [ctrl.decay ** (len(samples) - 1 - i) for i in range(len(samples))]
        return sum(w * t for w, t in zip(weights, samples)) / sum(weights)

    assert ctrl.plain_time() == ctrl.round_time(0) == pytest.approx(decayed_mean(inside))
    assert ctrl.first_step_time() == pytest.approx(decayed_mean(first))
    assert ctrl.crossing_time() == pytest.approx(decayed_mean(first) - decayed_mean(inside))


def test_turning_to_plain_steps_pays_the_slow_first_step_once_over_a_stint():
    """From drafting, plain steps are priced at T(0) plus the first step's excess spread over the estimates'
    memory (1 / (1 - decay) rounds); inside a run of them that step is paid already."""
    from mlx_specdec.adaptive import SWITCH_MARGIN

    ctrl = AdaptiveK(k_max=1, k_start=1)
    for _ in range(30):
        ctrl.update(1, 1, 10e-3)  # one draft, always accepted: 2 tokens per 10 ms round
    steady = 10e-3 / 2 / (1 + 2 * SWITCH_MARGIN)  # plain steps clearly faster, once running
    ctrl._t0, ctrl._t0_first = [1.0, steady], [1.0, steady]
    assert ctrl.best() == 0
    ctrl._t0_first = [1.0, steady + 5e-3]  # a first step that eats the gain over a stint of ten
    assert ctrl.best() == 1
    ctrl.update(0, 0, ctrl.first_step_time())  # in a run of plain steps now: that step is behind
    assert ctrl.best() == 0


def test_a_spike_counts_for_at_most_twice_what_its_round_costs():
    """The machine busy elsewhere for one round (seen: 37 ms among 6 ms plain steps, which held T(0) at twice
    its cost for the dozens of drafting rounds that followed) moves the estimate as a round of twice the cost."""
    from mlx_specdec.adaptive import SPIKE_CAP

    ctrl, capped = AdaptiveK(), AdaptiveK()
    for c in (ctrl, capped):
        c.update(2, 1, 12e-3)
        for _ in range(5):
            c.update(0, 0, 6e-3)
    ctrl.update(0, 0, 40e-3)
    capped.update(0, 0, SPIKE_CAP * 6e-3)
    assert ctrl.plain_time() == pytest.approx(capped.plain_time()) and ctrl.plain_time() < 8e-3  # (uncapped: 14.3 ms)
    for c in (ctrl, capped):
        for i in range(40):
            c.update(1 + i % 2, 1, 10e-3 + 2e-3 * (i % 2))
    ctrl.update(2, 1, 120e-3)  # ten times what a round of two drafts costs
    capped.update(2, 1, SPIKE_CAP * capped.round_time(2))
    assert ctrl.round_time(2) == pytest.approx(capped.round_time(2)) and ctrl.round_time(2) < 15e-3  # (uncapped: 30 ms)


def test_a_look_at_plain_steps_from_drafting_is_a_run_of_them():
    """When the neighbour auto tries is k = 0, it runs PROBE_ROUNDS plain steps: a single one would only ever
    time the slow first step of a run, and leave T(0) stale for as long as drafting lasts."""
    from mlx_specdec.adaptive import PROBE_ROUNDS

    ctrl = feed(AdaptiveK(k_max=4), 200, accept_rate=0.45, t0=5e-3, per_draft=4e-3, base=5.5e-3)
    hist = "".join(str(k) for k in ctrl.history[2:])
    runs = [len(r) for r in hist.replace("1", " ").replace("2", " ").replace("3", " ").replace("4", " ").split()]
    assert 1 in ctrl.history and runs and min(runs) >= PROBE_ROUNDS, hist


def test_acceptance_is_estimated_per_draft_position():
    """Rounds of 8 drafts that either fail at the first draft or agree throughout (the way prompt lookup
    is either copying or wrong): one rate per draft would value every extra draft alike; per position
    the hazard falls to 0 after the first, so a long block is worth nearly 1 + 8 * P(first agrees)."""
    ctrl = AdaptiveK(k_max=8)
    for i in range(200):
        ctrl.update(8, 8 if i % 2 else 0, 1e-2)
        ctrl._state = 0  # one state only: this test is about positions
    h = ctrl.hazards()
    # (a memory of about ten rounds, five of them past the first draft: the prior still weighs a little)
    assert h[1] == pytest.approx(0.5, abs=0.05) and max(h[2:]) < 0.15
    assert ctrl.expected_tokens(8) == pytest.approx(1 + 8 * (1 - h[1]), abs=0.8)
    assert ctrl.expected_tokens(1) == pytest.approx(2 - h[1])
    # A position never drafted inherits the hazard of the last one seen.
    short = AdaptiveK(k_max=8)
    for _ in range(200):
        short.update(2, 1, 1e-2)  # the second draft always fails
    h = short.hazards()
    # (ten rounds of memory against a prior of two: 10 / 12 at most)
    assert h[2] > 0.8 and h[3] > 0.8 and h[4:] == [pytest.approx(h[3])] * 5  # not back to the prior's 0.4


def test_a_model_drafter_catches_up_outside_the_round_it_times(monkeypatch):
    """After a run of plain steps a model drafter owes their tokens; it feeds them before the round's
    clock starts, so a round of k drafts is timed alike after plain steps or after drafting.
    (Fake clock: a target pass 1 s + 0.5 s a row, a drafter pass 0.3 s + 0.1 s a row.)"""
    import importlib

    from mlx_specdec import schedules

    seen = []

    class Recording(AdaptiveK):
        def update(self, drafted, accepted, seconds, traced=False):
            seen.append((drafted, seconds))
            super().update(drafted, accepted, seconds)

        def choose(self):  # two rounds of two drafts, then three plain steps, again and again
            self._round += 1
            return [2, 2, 0, 0, 0][self._round % 5]

    monkeypatch.setattr(schedules, "AdaptiveK", Recording)
    clock = [0.0]
    monkeypatch.setattr(importlib.import_module("mlx_specdec.generate").time, "perf_counter", lambda: clock[0])
    target, drafter = CostedLM(clock, 1.0, 0.5, 8, seed=3, sharpness=3.0), CostedLM(clock, 0.3, 0.1, 8, seed=4)
    out, _ = speculative_generate(target, drafter, [1, 2], 60, k="auto", strategy="cache")
    assert out == greedy_generate(TableLM(8, seed=3, sharpness=3.0), [1, 2], 60)
    after_plain = [s for (d, s), (d0, _) in zip(seen[1:], seen) if d == 2 and d0 == 0]
    assert len(after_plain) >= 5
    # A round of two drafts: the target's 3-row pass, the drafter's two steps (1 or 2 rows, then 1).
    # Fed inside the round, the 4 or 5 tokens three plain steps queued would have added 0.3 s or more.
    longest = 1.0 + 0.5 * 3 + (0.3 + 0.1 * 2) + (0.3 + 0.1)
    assert all(s <= longest + 1e-9 for d, s in seen if d == 2)


@pytest.mark.parametrize("plain_rounds", [30, 7])
def test_a_model_drafter_runs_nothing_until_a_round_drafts(plain_rounds, monkeypatch):
    """The drafter's prefill waits for the first drafting round: a generation of plain steps never calls
    the drafter model, and one that turns to drafting later feeds the prompt and the plain steps' tokens
    in one prefill, then drafts exactly (greedy equals the target's greedy)."""
    from mlx_specdec.drafters import ModelDrafter

    charged = []

    class PlainFirst(AdaptiveK):
        def choose(self):
            self._round += 1
            return 0 if self._round <= plain_rounds else 2

        def charge(self, seconds, tokens=0, budget=True):
            charged.append((tokens, budget))

    monkeypatch.setattr(importlib.import_module("mlx_specdec.schedules"), "for_pair",
                        lambda *a, **kw: PlainFirst())
    target, small = TableLM(8, seed=3), TableLM(8, seed=4)
    drafter = ModelDrafter(small, "cache")
    out, stats = speculative_generate(target, drafter, [1, 2, 5], 30, k="auto", strategy="cache")
    assert out == greedy_generate(TableLM(8, seed=3), [1, 2, 5], 30)
    if plain_rounds >= 30:
        assert small.calls == 0 and stats.drafted == 0
        return
    # One call feeds the prompt and the plain steps' tokens (but the last), then one call per draft.
    assert stats.drafted > 0 and small.calls == 1 + stats.drafted
    # That catch-up, the deferred prefill, told the schedule how many tokens it fed, not charged to the budget;
    # every later drafting round follows a drafting round, with nothing to feed.
    assert charged[0] == (3 + plain_rounds, False) and all(c == (0, True) for c in charged[1:])


def test_a_generation_starts_from_what_the_last_one_of_the_same_pair_learned():
    from mlx_specdec.schedules import for_pair
    from mlx_specdec.drafters import ModelDrafter, PromptLookupDrafter

    target, small = TableLM(8, seed=3), TableLM(8, seed=4)
    first = for_pair(target, ModelDrafter(small))
    feed(first, 60, accept_rate=0.05, t0=4e-3, per_draft=2e-3, base=5e-3)
    assert first.best() == 0
    second = for_pair(target, ModelDrafter(small))  # a new drafter object around the same model
    k = second.choose()  # no opening rounds at k_start: it already knows drafting does not pay
    assert k == 0 or (second._probe_left and k == second.best(least=1))  # (or the probe the first one had due)
    assert second.round_time(0) == pytest.approx(4e-3)
    assert second._fit[0] == pytest.approx(min(4.0, first._fit[0])) and second._t0[0] == pytest.approx(4.0)
    assert second.alpha == pytest.approx(first.alpha, abs=0.15)  # the evidence, shrunk toward the prior
    # Another drafter, or another target, starts from nothing.
    assert for_pair(target, PromptLookupDrafter()).choose() == AdaptiveK().k_start
    assert for_pair(TableLM(8, seed=3), ModelDrafter(small)).choose() == AdaptiveK().k_start


def test_the_hf_heuristic_schedule_is_plus_two_after_a_full_round_and_minus_one_otherwise():
    from mlx_specdec.schedules import HeuristicK

    h = HeuristicK()
    seen = []
    for drafted_all in (True, True, False, False, False, False, False, False, True):
        k = h.choose()
        seen.append(k)
        h.update(k, k if drafted_all else 0, 1.0)
    assert seen == [5, 7, 9, 8, 7, 6, 5, 4, 3]
    h.update(0, 0, 1.0)  # a round without drafts moves nothing
    assert h.choose() == 5
    capped = HeuristicK(k=15)
    capped.update(15, 15, 1.0)
    assert capped.choose() == 16


def test_heuristic_k_greedy_equals_the_target_greedy():
    target, drafter = TableLM(8, seed=3, sharpness=3.0), TableLM(8, seed=4, sharpness=3.0)
    out, stats = speculative_generate(target, drafter, [1, 2], 60, k="heuristic", strategy="cache")
    assert out == greedy_generate(TableLM(8, seed=3, sharpness=3.0), [1, 2], 60)
    assert stats.generated == 60 and stats.drafted > 0


def test_acceptance_is_read_from_the_state_the_last_round_left():
    """Rounds alternate: a fully accepted block, then one rejected at once. Pooled, the first draft is accepted
    half the time; each state's own rate sees that a full round is followed by a rejection and the reverse."""
    ctrl = AdaptiveK()
    for _ in range(30):
        ctrl.update(4, 4, 1e-2)  # full: the next round starts in state 1
        ctrl.update(4, 0, 1e-2)  # rejected at the first draft: back to state 0
    assert ctrl._state == 0 and ctrl.alpha > 0.8  # after a rejection, the full round follows
    ctrl.update(4, 4, 1e-2)
    assert ctrl._state == 1 and ctrl.alpha < 0.2  # after a full round, the rejection follows


def test_crossing_between_plain_steps_and_drafting_needs_a_clear_gain():
    """Each crossing costs what no round's time holds (a model drafter's catch-up, a run's slow first step):
    auto leaves the mode it is in only when the other promises SWITCH_MARGIN more tokens per second."""
    from mlx_specdec.adaptive import SWITCH_MARGIN

    ctrl = AdaptiveK(k_max=1, k_start=1)
    for _ in range(30):
        ctrl.update(1, 1, 10e-3)  # drafting: one draft, always accepted, 10 ms a round

    def plain_seconds(ratio):  # a plain step whose tokens per second are `ratio` times drafting's
        return 10e-3 / (ratio * ctrl.expected_tokens(1))

    small, large = 1 + SWITCH_MARGIN / 2, 1 + 2 * SWITCH_MARGIN
    ctrl._t0 = [1.0, plain_seconds(small)]
    assert ctrl.best() == 1  # drafting now: plain steps a little faster is not enough
    ctrl._t0 = [1.0, plain_seconds(large)]
    assert ctrl.best() == 0
    ctrl.update(0, 0, plain_seconds(1 / small))  # plain steps now: drafting a little faster is not enough
    assert ctrl.round_time(1) == pytest.approx(10e-3) and ctrl.best() == 0
    ctrl._t0 = [1.0, plain_seconds(1 / large)]
    assert ctrl.best() == 1


def test_a_drafter_whose_steps_cost_what_the_targets_do_never_drafts():
    """From the drafter's measured step cost alone (before any round): at 0.9 of a target step no k could
    pay even with nine drafts in ten accepted, so auto takes plain steps from the first round and never
    probes; at 0.4 (the StoryLM 1M for the 5M) it opens as usual."""
    costly = AdaptiveK(k_max=16)
    assert costly.wants_step_cost
    costly.step_cost_ratio(0.9)
    assert not costly.can_pay()
    ks = []
    for _ in range(300):
        ks.append(costly.choose())
        costly.update(ks[-1], 0, 4e-3)
    assert set(ks) == {0}
    cheap = AdaptiveK(k_max=16)
    cheap.step_cost_ratio(0.4)
    assert cheap.can_pay() and cheap.choose() == cheap.k_start
    unknown = AdaptiveK(k_max=16)
    unknown.step_cost_ratio(None)
    assert unknown.can_pay() and unknown.choose() == unknown.k_start


def test_a_drafter_that_costs_nothing_opens_without_a_timed_run_of_plain_steps():
    """Prompt lookup costs no model step (ratio 0): after the two opening rounds it goes on drafting where
    they were accepted, with no run of plain steps to time first; a drafter with a cost (or unmeasured)
    times that run at round 3."""
    from mlx_specdec.drafters import PromptLookupDrafter

    assert PromptLookupDrafter().step_cost_ratio(None) == 0.0
    for ratio, third in ((0.0, "drafts"), (None, 0), (0.1, 0)):
        ctrl = AdaptiveK(k_max=16)
        ctrl.step_cost_ratio(ratio)
        for _ in range(2):
            k = ctrl.choose()
            ctrl.update(k, k, 2e-3 + 5e-4 * k)  # every draft accepted
        k = ctrl.choose()
        assert (k > 0) if third == "drafts" else (k == third and ctrl._plain_left == PROBE_ROUNDS - 1)


def test_while_every_drafting_round_traced_the_next_one_drafts_at_a_length_already_traced():
    """In a fresh process the opening's rounds trace: until one round of drafting is timed clean, auto asks
    for a length already traced, round after round (prompt lookup meanwhile takes plain steps where it has
    nothing to copy), and only then weighs drafting against plain steps."""
    ctrl = AdaptiveK(k_max=16)
    ctrl.step_cost_ratio(0.0)
    for _ in range(2):
        k = ctrl.choose()
        ctrl.update(k, 0, 30e-3, traced=True)  # rejected, and traced: priced at 6x a plain step
    for _ in range(10):  # nothing to copy: plain steps, while auto keeps asking for the traced length
        assert ctrl.choose() == ctrl.k_start // 2
        ctrl.update(0, 0, 5e-3)
    assert ctrl.choose() == 2
    ctrl.update(2, 2, 6e-3)  # the clean round
    assert ctrl._fit[0] >= 0.5 and ctrl.round_time(2) < 10e-3  # priced by the clean round, not the traced ones


def test_a_drafter_that_costs_nothing_is_probed_four_times_as_often():
    """While plain steps are best, a drafter that costs nothing (its probe costs only verification) is
    looked at again every explore_every rounds before any back-off, not every 4 x explore_every: where the
    text starts to repeat later, prompt lookup finds it sooner. The budget still paces the probes."""
    def probes(ratio):
        ctrl = AdaptiveK(k_max=16)
        ctrl.step_cost_ratio(ratio)
        for _ in range(120):
            k = ctrl.choose()
            # every draft rejected; a round at 1.1 plain steps, as SmolLM2's (at 1.2 the budget paces both alike)
            ctrl.update(k, 0, 5e-3 if k == 0 else 5.5e-3 + 1e-4 * k)
        h = ctrl.history
        # a probe: a drafting round after a run of at least five plain steps
        return ctrl.probe_interval, [i for i in range(5, len(h)) if h[i] and not any(h[i - 5 : i])]

    (free_every, free), (costly_every, costly) = probes(0.0), probes(None)
    assert free_every == AdaptiveK().explore_every and costly_every == 4 * free_every
    assert free and costly and free[0] < costly[0] and len(free) > len(costly)


def test_the_measured_step_cost_is_kept_with_the_estimates():
    """The calibration file's entry holds the ratio, so a calibrated generation does not measure again."""
    first = feed(AdaptiveK(k_max=8), 30, accept_rate=0.5, t0=4e-3, per_draft=1e-3, base=5e-3)
    first.step_cost_ratio(0.3)
    earlier = AdaptiveK.restore(first.snapshot())
    assert earlier._draft_ratio == 0.3
    second = AdaptiveK(k_max=8)
    second.warm_start(earlier)
    assert second._draft_ratio == 0.3 and not second.wants_step_cost
    unmeasured = AdaptiveK(k_max=8)
    assert AdaptiveK.restore(unmeasured.snapshot())._draft_ratio is None
    old = first.snapshot()
    del old["draft_ratio"]  # an entry written before the ratio was kept is not one
    assert AdaptiveK.restore(old) is None


def test_a_catch_up_is_charged_to_the_loss_budget():
    ctrl = feed(AdaptiveK(k_max=8), 20, accept_rate=0.5, t0=4e-3, per_draft=1e-3, base=5e-3)
    before = ctrl.budget_left()
    ctrl.charge(0.25)
    assert ctrl.budget_left() == pytest.approx(before - 0.25)
    ctrl.charge(0.03, 100, budget=False)  # the deferred prefill: not charged, but it prices later catch-ups
    assert ctrl.budget_left() == pytest.approx(before - 0.25)


def test_a_probe_is_priced_with_the_drafters_catch_up_over_the_tokens_since_it_last_drafted():
    """A probe out of plain steps first feeds the drafter every token made since it last drafted: priced
    at what a token of its catch-ups cost (ratio of decayed sums), a probe late in a run of plain steps
    needs that much more budget; a drafting round leaves nothing to catch up."""
    ctrl = feed(AdaptiveK(k_max=8), 20, accept_rate=0.5, t0=4e-3, per_draft=1e-3, base=5e-3)
    ctrl.charge(0.03, 100, budget=False)  # 0.3 ms a token
    ctrl.charge(0.01, 20)  # 0.5 ms a token: the sums say (0.9 * 30 + 10) / (0.9 * 100 + 20) ms
    rate = (0.9 * 0.03 + 0.01) / (0.9 * 100 + 20)
    ctrl.update(2, 1, 7e-3)  # a drafting round: it had fed the drafter everything
    for _ in range(40):
        ctrl.update(0, 0, 4e-3)

    def rounds_only(k):
        return PROBE_ROUNDS * max(0.0, ctrl.round_time(k) - ctrl.round_time(0))

    assert ctrl.probe_cost(2) == pytest.approx(rounds_only(2) + 40 * rate)
    ctrl.update(2, 1, 7e-3)
    assert ctrl.probe_cost(2) == pytest.approx(rounds_only(2))


def test_a_model_drafter_measured_as_costly_is_never_run(monkeypatch):
    """In the loop: the measurement comes before any round, and a drafter found as costly as its target
    never runs (no prefill, no sequence made), while the output is the target's greedy one."""
    from mlx_specdec.drafters import ModelDrafter

    asked = []
    monkeypatch.setattr(ModelDrafter, "step_cost_ratio", lambda self, target: asked.append(target) or 1.0)
    target, small = TableLM(8, seed=3), TableLM(8, seed=4)
    drafter = ModelDrafter(small, "cache")
    out, stats = speculative_generate(target, drafter, [1, 2, 5], 40, k="auto", strategy="cache")
    assert out == greedy_generate(TableLM(8, seed=3), [1, 2, 5], 40)
    assert asked == [target] and stats.drafted == 0 and small.calls == 0 and drafter._seq is None
    out, stats = speculative_generate(target, ModelDrafter(small, "cache"), [1, 2, 5], 40, k=3, strategy="cache")
    assert len(asked) == 1 and stats.drafted > 0  # a fixed k measures nothing


def test_a_model_drafters_step_cost_is_measured_only_where_it_could_match_the_targets():
    from mlx_specdec.drafters import ModelDrafter
    from mlx_specdec.loading import load

    five, one = load("storylm-5m")[0], load("storylm-1m")[0]
    assert ModelDrafter(one).step_cost_ratio(five) is None  # a sixth of the 5M's weights
    assert ModelDrafter(TableLM(8, seed=4)).step_cost_ratio(five) is None  # sizes unknown
    ratio = ModelDrafter(load("storylm-5m")[0]).step_cost_ratio(five)  # the same model, loaded twice
    assert isinstance(ratio, float) and 0.2 < ratio < 5


def test_a_shadow_round_counts_acceptance_and_nothing_else():
    """`shadow(drafted, accepted)`, a round scored during plain steps, moves the hazards exactly as a timed
    round of the same counts would, and leaves round times, the round count, the loss budget's accounts and
    the longest block drafted as they were."""
    timed, scored = AdaptiveK(), AdaptiveK()
    for a in (timed, scored):
        a.update(0, 0, 0.010)
        a.update(4, 1, 0.020)
    before = scored.snapshot()
    for drafted, accepted in ((16, 16), (9, 3), (5, 0), (2, 2)):
        timed.update(drafted, accepted, 0.030)
        scored.shadow(drafted, accepted)
    counts = ("reach", "fails", "reach_s", "fails_s", "state")
    assert {n: scored.snapshot()[n] for n in counts} == {n: timed.snapshot()[n] for n in counts}
    assert scored.hazards() == timed.hazards() and scored.hazards() != AdaptiveK().hazards()
    assert {n: v for n, v in scored.snapshot().items() if n not in counts} == \
        {n: v for n, v in before.items() if n not in counts}
    assert (scored._round, scored._tokens, scored._draft_seconds, scored._longest) == (0, 3, 0.020, 4)


def test_before_a_plain_step_no_line_through_a_traced_round_prices_a_round():
    """Prompt lookup's opening on SmolLM2 (a new block length's trace costs about a plain step, 53 ms): rounds
    at k = 4 and 2 that traced, then one at 2 that did not. A line through them takes its slope from the
    traces (29 ms a draft where a draft costs 4) and its intercept, 8 ms, stood for a plain step: auto left
    a verbatim copy for plain steps. Until a plain step is timed T(0) is unknown, and until two lengths
    were timed untraced a round of a free drafter is priced as its verification, (1 + c k) / (1 + c mean k),
    c = FREE_SLOPE."""
    from mlx_specdec.adaptive import FREE_SLOPE

    ctrl = AdaptiveK()
    ctrl.step_cost_ratio(0.0)  # a drafter that costs nothing
    ctrl.update(4, 0, 0.124, traced=True)
    ctrl.update(2, 2, 0.117, traced=True)
    ctrl.update(2, 2, 0.0636)
    assert ctrl.round_time(0) is None and ctrl.budget_left() == float("inf")
    w, wk, _, wt, _ = ctrl._fit
    assert ctrl.round_time(16) == pytest.approx(wt / w * (1 + 16 * FREE_SLOPE) / (1 + FREE_SLOPE * wk / w))
    assert ctrl.round_time(16) < 2.5 * ctrl.round_time(2)
    ctrl.update(8, 8, 0.0866)  # a second length timed untraced: the line is fitted
    assert ctrl.round_time(16) > ctrl.round_time(8) > ctrl.round_time(2)
    assert ctrl.round_time(16) != pytest.approx(wt / w * (1 + 16 * FREE_SLOPE) / (1 + FREE_SLOPE * wk / w))


def test_a_free_drafters_round_is_priced_from_its_rounds_not_from_a_plain_step():
    """Prompt lookup on the StoryLM 5M (dispatch-bound): a plain step costs 2.4 ms, a verification round
    4.2 + 0.12 k. A line anchored at k = 0 on the plain step and through rounds at k = 2 priced k = 16 at
    20 ms, and auto kept to plain steps through a loop its drafts would have copied. A free drafter's line is
    its rounds' alone, its slope shrunk toward FREE_SLOPE of a round a draft; a model drafter keeps the
    anchor (its rounds' slope is its drafting, which a line through k = 15 and 16 alone takes from noise)."""
    def fitted(ratio, lengths):
        ctrl = AdaptiveK()
        ctrl.step_cost_ratio(ratio)
        for seconds in (4.8e-3, 2.4e-3, 2.4e-3):  # a run of plain steps, the first traced
            ctrl.update(0, 0, seconds, traced=seconds > 3e-3)
        for k in lengths:
            ctrl.update(k, 0, 4.2e-3 + 0.12e-3 * k)
        return ctrl

    free, model = fitted(0.0, [2, 2]), fitted(None, [2, 2])
    assert free.round_time(16) < 2 * free.round_time(2) < model.round_time(16) / 2
    learned = fitted(0.0, [2, 16] * 10)  # two lengths, many rounds: the rounds' own slope
    assert learned.round_time(8) == pytest.approx(4.2e-3 + 0.12e-3 * 8, rel=0.02)
    assert learned.round_time(0) == pytest.approx(2.4e-3)


@pytest.mark.parametrize("last_accepted, timing_run", [(2, False), (0, True)])
def test_a_free_drafter_skips_the_timed_plain_run_after_a_fully_accepted_round(last_accepted, timing_run):
    """The fourth round of a fresh process is a run of plain steps, timed, unless the drafter costs nothing
    and its last round was fully accepted (a reply's first token is rarely in the request; after it a
    verbatim copy runs, and three plain steps there cost three rounds of copying)."""
    ctrl = AdaptiveK()
    ctrl.step_cost_ratio(0.0)
    for k, accepted in ((4, 0), (2, 2), (2, last_accepted)):
        assert ctrl.choose() == k
        ctrl.update(k, accepted, 0.06, traced=k == 4 or ctrl._round == 2)
    assert (ctrl.choose() == 0) == timing_run
