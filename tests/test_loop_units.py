"""The loop's units, each held to its contract: the drafter protocol and its declarations, the k schedules,
the instruments, the verdict strategy, the pipelined plain steps' entry rule, and the house rules
(no library module over 600 lines)."""

from __future__ import annotations

from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest

from mlx_specdec import speculative_generate
from mlx_specdec.generate import speculative_stream
from mlx_specdec.adaptive import AdaptiveK
from mlx_specdec.schedules import FixedK, HeuristicK
from mlx_specdec.schedules import schedule_for
from mlx_specdec.drafters import (DeclaredDrafter, Drafter, ModelDrafter, MTPDrafter, NativeMTPDrafter,
                                  PromptLookupDrafter, as_drafter, is_drafter)
from mlx_specdec.instruments import Instruments, RoundProfile
from mlx_specdec.plain_steps import PlainSteps, Run
from mlx_specdec.rounds import SpecStats
from mlx_specdec.sampling import SamplingPolicy
from mlx_specdec.verdicts import LocalVerdicts, verdicts_for
from mlx_specdec.verify import greedy_verdict
from tests.mocks import TableLM

ROOT = Path(__file__).resolve().parents[1]


class Duck:
    """A drafter that speaks the three calls and nothing else (no base class)."""

    def __init__(self):
        self.commits = []

    def prefill(self, prompt_ids):
        self.tokens = list(prompt_ids)

    def propose(self, k, policy, key):
        return mx.array([], dtype=mx.int32), None

    def commit(self, accepted, token):
        self.commits.append((accepted, token))


class IdleDuck(Duck):
    pipelines_plain_steps = True

    def would_propose(self):
        return False

    def preview(self, k):
        return (9,)


# ---------------------------------------------------------------- the drafter protocol


@pytest.mark.parametrize("cls, declared", [
    (ModelDrafter, {"pipelines_plain_steps", "proposes_exactly_k", "keeps_cache"}),
    (PromptLookupDrafter, {"pipelines_plain_steps", "knows_when_idle", "drafts_for_free"}),
    (MTPDrafter, {"pipelines_plain_steps", "reads_hidden"}),
    (NativeMTPDrafter, {"reads_hidden", "keeps_cache"}),
])
def test_every_drafter_declares_what_it_is(cls, declared):
    flags = ("pipelines_plain_steps", "knows_when_idle", "drafts_for_free", "reads_hidden", "proposes_exactly_k",
             "keeps_cache")
    assert issubclass(cls, Drafter)
    assert {f for f in flags if getattr(cls, f)} == declared


def test_a_duck_typed_drafter_is_read_once_behind_the_protocol():
    duck, idle = Duck(), IdleDuck()
    wrapped, wrapped_idle = as_drafter(duck), as_drafter(idle)
    assert isinstance(wrapped, DeclaredDrafter) and wrapped.inner is duck
    assert not wrapped.knows_when_idle and not wrapped.pipelines_plain_steps and not wrapped.drafts_for_free
    assert wrapped_idle.knows_when_idle and wrapped_idle.pipelines_plain_steps and not wrapped_idle.would_propose()
    assert wrapped_idle.drafts_for_free and wrapped_idle.preview(3) == [9]
    wrapped.bind(None, None)  # a duck without bind: nothing happens
    wrapped.catch_up()  # nor without catch_up
    wrapped.commit(2, 7)  # no rows: the duck's two-argument commit
    assert duck.commits == [(2, 7)]


def test_as_drafter_passes_drafters_wraps_models_and_refuses_the_rest():
    lookup = PromptLookupDrafter()
    assert as_drafter(lookup) is lookup
    assert isinstance(as_drafter(TableLM(8, seed=1)), ModelDrafter)
    assert is_drafter(Duck()) and not is_drafter(TableLM(8, seed=1))
    with pytest.raises(TypeError, match="must be a model or a Drafter"):
        as_drafter(42)


def test_on_commit_sees_the_callers_own_drafter_object():
    seen = []
    duck = IdleDuck()
    list(speculative_stream(TableLM(8, seed=3), duck, [1, 2], 5, k=2, strategy="cache",
                            on_commit=lambda seq, d: seen.append(d)))
    assert seen and all(d is duck for d in seen)
    assert len(duck.commits) == 5 and all(accepted == 0 for accepted, _ in duck.commits)  # nothing was drafted


# ---------------------------------------------------------------- the choice of k


def test_the_k_schedules_behind_one_interface():
    target, drafter = TableLM(8, seed=1), PromptLookupDrafter()
    fixed = schedule_for(3, target, drafter, sampled=False, quiet=True)
    assert isinstance(fixed, FixedK) and not fixed.learns
    assert [fixed.choose() for _ in range(4)] == [3, 3, 3, 3]
    fixed.update(3, 0, 1.0)
    assert fixed.choose() == 3  # nothing learned
    auto = schedule_for("auto", target, drafter, sampled=False, quiet=True)
    assert isinstance(auto, AdaptiveK) and auto.learns
    assert schedule_for("auto", target, drafter, sampled=False, quiet=True) is not auto  # a new one, warm-started
    assert isinstance(schedule_for("heuristic", target, drafter, sampled=False, quiet=True), HeuristicK)


def test_an_instrumented_auto_run_neither_learns_from_nor_teaches_the_next():
    target, drafter = TableLM(8, seed=1), PromptLookupDrafter()
    schedule_for("auto", target, drafter, sampled=False, quiet=False)
    assert not getattr(target, "_specdec_adaptive", {})  # nothing kept for the pair


# ---------------------------------------------------------------- the instruments


def test_quiet_instruments_do_nothing_and_loud_ones_call_both():
    quiet = Instruments()
    assert quiet.quiet
    quiet.start(), quiet.mark("draft", mx.array([1])), quiet.committed(None, None)
    calls, profile = [], RoundProfile()
    loud = Instruments(profile, lambda seq, d: calls.append(d), drafter="mine")
    assert not loud.quiet
    loud.start()
    loud.mark("draft")
    loud.committed(object(), "wrapped")
    assert calls == ["mine"] and profile.rounds == 1 and profile.seconds["draft"] >= 0


# ---------------------------------------------------------------- the verdict strategy


def test_the_local_verdict_is_the_greedy_rule_read_at_one_sync():
    drafts = mx.array([3, 1, 4], dtype=mx.int32)
    logits = mx.random.normal((4, 8), key=mx.random.key(0))
    expected = [int(x.item()) for x in greedy_verdict(drafts, logits)]
    accepted, token, ids = LocalVerdicts().decide(SamplingPolicy(), drafts, logits, None, None)
    assert [accepted, token] == expected and ids == [3, 1, 4]
    verdicts, seed = verdicts_for(None, "auto", SamplingPolicy(), None, None, 5)
    assert isinstance(verdicts, LocalVerdicts) and verdicts.drafting and seed == 5


# ---------------------------------------------------------------- the pipelined plain steps


def _run(drafter):
    target = TableLM(8, seed=1)
    from mlx_specdec.state import make_sequence

    return Run(make_sequence(target, "cache"), as_drafter(drafter), SamplingPolicy(), FixedK(2), Instruments(),
               SpecStats(), frozenset(), 10, None)


def test_plain_steps_are_taken_only_where_the_drafter_allows_them():
    assert not PlainSteps(_run(Duck()), sharded=False).take(0)  # it never said its commit reads nothing
    idle = PlainSteps(_run(IdleDuck()), sharded=False)
    assert idle.take(0) and idle.take(3)  # k = 0, or it knows it has nothing to propose
    assert not PlainSteps(_run(IdleDuck()), sharded=True).take(0)  # every rank must take one path


def test_no_library_module_is_over_600_lines():
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "mlx_specdec").rglob("*.py")
            if not p.parent.name == "data" and (n := len(p.read_text().splitlines())) > 600}
    assert not long  # the story generator's plot data (mlx_specdec/data/) are data, not library code


# ---------------------------------------------------------------- features from the verification pass


class FeatureSpy(PromptLookupDrafter):
    """Prompt lookup that declares two feature layers and records, at each commit, the feature row whose next
    token it was handed: what a feature drafter would condition its next drafts on."""

    feature_layers = (0, -1)

    def bind(self, target, target_seq):
        super().bind(target, target_seq)
        self.seq, self.seen = target_seq, []

    def prefill(self, prompt_ids):
        super().prefill(prompt_ids)
        self.prompt_rows = self.seq.features  # rows for the prompt but its last token

    def commit(self, accepted, token, rows=None):
        super().commit(accepted, token, rows)
        rows = self.seq.features if rows is None else rows
        self.seen.append((len(self.tokens) - 2, np.array(rows[accepted])))  # the row at the position before token


@pytest.mark.parametrize("strategy, k", [("cache", 3), ("auto", "auto"), ("recompute", 2)])
def test_a_feature_drafter_sees_the_targets_own_layer_outputs_at_every_commit(strategy, k):
    from mlx_lm.models import llama

    from mlx_specdec.features import capture, features

    mx.random.seed(4)
    target = llama.Model(llama.ModelArgs(model_type="llama", hidden_size=32, num_hidden_layers=3,
                                         intermediate_size=64, num_attention_heads=4, num_key_value_heads=2,
                                         rms_norm_eps=1e-5, vocab_size=64))
    prompt = [3, 9, 4, 3, 9, 4, 3, 9, 4, 3, 9]  # repeats: lookup drafts, and plain steps come between
    spy = FeatureSpy()
    out, stats = speculative_generate(target, spy, prompt, 30, k=k, strategy=strategy)
    with capture() as sink:
        target(mx.array(prompt + out)[None])
    want = np.array(features(sink, (0, 2)))
    assert np.allclose(np.array(spy.prompt_rows), want[: len(prompt) - 1], atol=1e-4)
    for position, row in spy.seen:
        assert np.allclose(row, want[position], atol=1e-4), position
    assert len(spy.seen) == stats.target_passes and stats.drafted > 0
