"""bench.auto_replay: the recorded agreement replays the loop exactly, round for round (greedy, fixed k)."""

import pytest

from mlx_specdec import speculative_generate
from mlx_specdec.drafters import PromptLookupDrafter
from mlx_specdec.loading import load_pair
from mlx_specdec.schedules import FixedK

from bench import auto_replay as replay
from tests.conftest import SHIPPED

COSTS = replay.Costs(plain=5e-3, round_a=6e-3, round_b=2e-3, trace=5e-3, entry=0.0, catch_a=0.0, catch_b=0.0,
                     ratio=0.0)


@pytest.fixture(scope="module")
def pair():
    return load_pair(str(SHIPPED / "storylm-5m"), str(SHIPPED / "storylm-1m-distilled"))


@pytest.mark.parametrize("which", ["model", "prompt-lookup"])
def test_a_fixed_k_replayed_makes_the_loops_rounds_and_acceptances(pair, which):
    """For k = 1, 3 and 8, replaying FixedK(k) over the recorded runs gives the loop's own target passes, accepted
    drafts and tokens: the runs are what the drafter proposes from each prefix of the target's greedy text
    (prompt lookup's -1, no match, is a plain step in both)."""
    target, drafter_model, tok = pair
    prompt = tok.encode("Tom and his dog went to the park. Tom and his dog")
    drafter = drafter_model if which == "model" else (lambda: PromptLookupDrafter(min_ngram=1, max_ngram=3))
    text, runs, lengths = replay.agreement(target, drafter, prompt, 40)
    assert len(runs) == len(lengths) == len(text) == 40 and max(runs) > 1
    if which == "prompt-lookup":
        assert -1 in runs and min(n for n in lengths if n) < replay.K_MAX  # nothing to copy; a short copy
    recorded = {"runs": runs, "lengths": lengths, "prompt_tokens": len(prompt)}
    look_ahead = which == "prompt-lookup"
    assert bool(getattr(replay.make(drafter), "knows_when_idle", False)) == look_ahead
    for k in (1, 3, 8):
        out, stats = speculative_generate(target, replay.make(drafter), prompt, 40, k=k)
        assert out == text
        _, tokens, passes, accepted = replay.replay(FixedK(k), recorded, COSTS, 40, look_ahead)
        assert (tokens, passes, accepted) == (len(text), stats.target_passes, stats.accepted), k


def test_auto_replays_cold_and_calibrated_against_every_fixed_k():
    """Synthetic runs (a drafter that agrees on 12 tokens at a time): every schedule emits the whole text; the
    replay's ratios are those of its seconds; and auto, cold and calibrated, beats plain decoding."""
    runs = [min(max(0, 12 - t % 13), 119 - t) for t in range(120)]
    text = {"id": "a", "prompt_tokens": 10, "runs": runs}
    (row,) = replay.replay_set([text], dict(text, id="x"), COSTS, 120, False)
    plain = replay.plain_seconds(runs, COSTS)
    for k in replay.FIXED:
        seconds, tokens, _, _ = replay.replay(FixedK(k), text, COSTS, 120)
        assert tokens == 120 and row["x_plain"][f"k={k}"] == pytest.approx(plain / seconds)
    assert row["x_plain"]["auto, cold"] > 1.2 and row["x_plain"]["auto, calibrated"] > 1.2
    best = min(replay.replay(FixedK(k), text, COSTS, 120)[0] for k in replay.FIXED)
    cold = replay.replay(replay.cold_schedule(COSTS), text, COSTS, 120)[0]
    assert row["of_best"]["auto, cold"] == pytest.approx(best / cold)


def test_plain_steps_score_prompt_lookup_as_the_replay_does(pair, monkeypatch):
    """k=auto taking plain steps with prompt lookup: the loop scores what the lookup would have drafted against
    the tokens the steps make (`plain_steps.Shadow`: its first draft, at every step where it has one), and the
    replay's Shadow makes the same calls from the recorded runs. A scripted schedule (plain steps, drafting at k = 4 between
    positions 20 and 30) makes the two walk the same positions."""
    import importlib

    from mlx_specdec.adaptive import AdaptiveK

    target, _, tok = pair
    prompt = tok.encode("Tom and his dog went to the park. Tom and his dog")

    def scripted(calls):
        class Scripted(AdaptiveK):
            position = 0

            def choose(self):
                return 4 if 20 <= self.position < 30 else 0

            def update(self, drafted, accepted, seconds, traced=False):
                self.position += 1 + (accepted if drafted else 0)
                calls.append(("round", drafted, accepted) if drafted else ("step",))

            def shadow(self, drafted, accepted):
                calls.append(("shadow", drafted, accepted))
                super().shadow(drafted, accepted)

        return Scripted()

    loop_calls, replay_calls = [], []
    monkeypatch.setattr(importlib.import_module("mlx_specdec.schedules"), "for_pair",
                        lambda *a, **kw: scripted(loop_calls))
    out, _ = speculative_generate(target, PromptLookupDrafter(), prompt, 60, k="auto")
    text, runs, lengths = replay.agreement(target, lambda: PromptLookupDrafter(), prompt, 60)
    assert out == text
    recorded = {"runs": runs, "lengths": lengths, "prompt_tokens": len(prompt)}
    replay.replay(scripted(replay_calls), recorded, COSTS, 60, look_ahead=True, scored=True)
    shadows = [c for c in loop_calls if c[0] == "shadow"]
    assert len(shadows) >= 8 and {(1, 0), (1, 1)} == {c[1:] for c in shadows}
    assert any(c[0] == "round" for c in loop_calls)
    assert loop_calls == replay_calls
    # every token of the text made by a plain step or a round
    assert sum(1 for c in loop_calls if c[0] == "step") + sum(1 + c[2] for c in loop_calls if c[0] == "round") == 60


def test_the_generated_set_draws_story_openings_from_the_generators_validation_split(pair):
    _, _, tok = pair
    first, again = replay.prompt_set(tok, "generated", 3), replay.prompt_set(tok, "generated", 2)
    assert [p["id"] for p in first] == [f"valid-{replay.GENERATED_FIRST + 97 * j}" for j in range(3)]
    assert again == first[:2] and len({tuple(p["ids"]) for p in first}) == 3
    texts = [tok.decode(p["ids"]) for p in first]  # an opening: one sentence, or two while they stay short
    assert all(t[-1] in '.!?"' and len(t.split()) <= 30 and t.count(". ") <= 1 for t in texts), texts


def test_costs_from_an_earlier_results_file(tmp_path):
    """`--costs-from FILE`: the costs an earlier run measured for the drafter on the same set (its first set
    where it did not run that one); a file without them is a one-line error."""
    import json
    from dataclasses import asdict

    from mlx_specdec.errors import SpecDecError

    other = {**asdict(COSTS), "plain": 7e-3}
    path = tmp_path / "earlier.json"
    path.write_text(json.dumps({"header": {}, "pairs": [
        {"drafter": "prompt-lookup", "set": "stories", "costs": asdict(COSTS)},
        {"drafter": "prompt-lookup", "set": "copy", "costs": other}]}))
    assert replay.recorded_costs(path, "prompt-lookup", "copy") == replay.Costs(**other)
    assert replay.recorded_costs(path, "prompt-lookup", "generated") == COSTS
    with pytest.raises(SpecDecError, match="no costs for storylm-1m"):
        replay.recorded_costs(path, "storylm-1m", "stories")
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(SpecDecError, match="not a bench.auto_replay results file"):
        replay.recorded_costs(tmp_path / "bad.json", "prompt-lookup", "stories")


def test_costs_price_a_round_from_the_ladder_measured_and_older_files_by_their_line():
    """A round between two measured ks is interpolated, past the last one extrapolated along the last segment;
    k = 0 is a plain step; a file without the table prices every round on its line."""
    table = replay.Costs(**{**COSTS.__dict__, "rounds": {"1": 0.060, "2": 0.080, "4": 0.090, "8": 0.100, "16": 0.120}})
    assert table.round(0) == COSTS.plain
    assert [table.round(k) for k in (1, 2, 4, 8, 16)] == [0.060, 0.080, 0.090, 0.100, 0.120]
    assert table.round(3) == pytest.approx(0.085) and table.round(12) == pytest.approx(0.110)
    assert table.round(20) == pytest.approx(0.130)
    assert COSTS.round(5) == pytest.approx(COSTS.round_a + 5 * COSTS.round_b)


def test_prompt_lookup_is_timed_drafting_exactly_k_every_round(pair):
    """What measure_costs times: prompt lookup's rounds as exactly_k makes them draft k every round, where the
    lookup itself would draft fewer or nothing (plain steps); a model drafter is timed as it is."""
    target, drafter_model, tok = pair
    prompt = tok.encode("Tom and his dog went to the park. Tom and his dog")
    lookup = lambda: PromptLookupDrafter(min_ngram=1, max_ngram=3)  # noqa: E731
    _, as_it_is = speculative_generate(target, replay.make(lookup), prompt, 30, k=3)
    assert any(d < 3 for d in as_it_is.drafted_per_round)  # it finds nothing or less somewhere
    timed = replay.exactly_k(lookup)
    assert (timed.max_ngram, timed.min_ngram, timed.resync_ngram) == (3, 1, 3)
    _, stats = speculative_generate(target, timed, prompt, 30, k=3)
    # every round drafts its k (token 0, never the 5M's choice here: a round a token), capped only by the end
    assert stats.accepted == 0 and stats.drafted_per_round == [min(3, 29 - i) for i in range(30)]
    assert replay.exactly_k(drafter_model) is drafter_model
