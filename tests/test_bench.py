"""The benchmark harness: its arithmetic, its counters for mlx-lm, and a quick run end to end."""

import importlib
import json

import mlx.core as mx
import numpy as np
import pytest

from bench import costmodel
from bench.cli import main as bench_main
from mlx_specdec.data.prompts import load_prompts
from bench.report import headlines
from bench.systems import mlx_lm_rounds
from mlx_specdec.errors import SpecDecError
from tests.conftest import SHIPPED
from tests.mocks import TableLM


# -- cost model ---------------------------------------------------------------


def test_iid_expected_accepted_is_the_geometric_partial_sum():
    assert costmodel.iid_expected_accepted(0.5, 4) == pytest.approx(0.5 + 0.25 + 0.125 + 0.0625)
    assert costmodel.iid_expected_accepted(1.0, 8) == 8
    assert costmodel.iid_expected_accepted(0.0, 4) == 0


@pytest.mark.parametrize("c,v", [(0.1, 1.0), (0.3, 1.0), (0.25, 1.4), (0.05, 2.0)])
def test_break_even_alpha_makes_the_predicted_speedup_exactly_one(c, v):
    alpha = costmodel.break_even_alpha(4, c, v)
    assert 0 < alpha < 1
    e_acc = costmodel.iid_expected_accepted(alpha, 4)
    assert costmodel.predicted_speedup(e_acc, 4, c, v) == pytest.approx(1.0, abs=1e-6)
    # a little more acceptance wins, a little less loses
    assert costmodel.predicted_speedup(costmodel.iid_expected_accepted(alpha + 0.01, 4), 4, c, v) > 1
    assert costmodel.predicted_speedup(costmodel.iid_expected_accepted(alpha - 0.01, 4), 4, c, v) < 1


def test_break_even_alpha_is_none_when_a_full_block_cannot_pay_for_the_round():
    # k=4: at most 5 tokens a round; 1.2 + 4 * 1.0 = 5.2 target steps of cost
    assert costmodel.break_even_alpha(4, 1.0, 1.2) is None
    assert costmodel.break_even_alpha(4, 0.0, 1.0) == 0.0  # free drafts: any acceptance pays


def test_predicted_speedup_course_and_measured_v():
    assert costmodel.predicted_speedup(2.0, 4, 0.25) == pytest.approx(3.0 / 2.0)
    assert costmodel.predicted_speedup(2.0, 4, 0.25, v=1.5) == pytest.approx(3.0 / 2.5)


# -- mlx-lm counters ----------------------------------------------------------


@pytest.mark.parametrize(
    "flags,k,cap,expected",
    [
        ([False, False, False], 4, 3, (3, 3 + 2 + 1, 0)),  # nothing accepted; drafts shrink with the tokens left
        ([True, True, False, True, False], 2, 5, (2, 4, 3)),  # full acceptance + bonus, then 1 of 2
        ([True, True, True], 4, 3, (1, 3, 3)),  # last round drafts only what the cap leaves, no target token
        ([True, False, True, True], 4, 4, (2, 4 + 2, 3)),  # cap reached inside the second round's drafts
    ],
)
def test_mlx_lm_rounds_replays_the_loop(flags, k, cap, expected):
    assert mlx_lm_rounds(flags, k, cap) == expected


def test_mlx_lm_rounds_refuses_flags_that_cannot_come_from_the_loop():
    with pytest.raises(ValueError):
        mlx_lm_rounds([True, True, True], 2, 10)  # a round of k=2 cannot accept 3 drafts


class _CountingModel:
    """Counts target passes (and their lengths) made by mlx-lm's speculative generator."""

    def __init__(self, model):
        self.model, self.passes = model, []
        self.layers = model.layers
        self.args = model.args

    def make_cache(self):
        return self.model.make_cache()

    def __call__(self, ids, cache=None):
        self.passes.append(ids.shape[1])
        return self.model(ids, cache=cache)


def test_mlx_lm_rounds_match_the_target_passes_mlx_lm_really_makes():
    gen = importlib.import_module("mlx_lm.generate")
    rng = np.random.default_rng(0)
    target = TableLM(12, seed=3)
    # A drafter that agrees with the target often but not always: partial acceptance.
    drafter = TableLM(12, table=np.array(target.table) + rng.normal(size=target.table.shape) * 2.0)
    counted = _CountingModel(target)
    k, cap = 3, 40
    flags = [d for _, _, d in gen.speculative_generate_step(
        mx.array([1, 2, 3]), counted, drafter, num_draft_tokens=k, max_tokens=cap)]
    rounds, drafted, accepted = mlx_lm_rounds(flags, k, cap)
    verify_passes = counted.passes[1:]  # the first pass is the prompt prefill
    assert rounds == len(verify_passes)
    assert drafted == sum(verify_passes) - rounds  # each pass scores [last token, drafts]
    assert accepted == sum(flags)
    assert 0 < accepted < drafted  # the case is not degenerate


# -- prompts and the verdict ----------------------------------------------------


def test_prompt_file_is_versioned_and_held_out():
    version, prompts = load_prompts()
    assert version >= 1
    assert len({p["id"] for p in prompts}) == len(prompts)
    assert any(p["source"].startswith("bundled valid split") for p in prompts)
    assert load_prompts(n=2)[1] == prompts[:2]


def test_copy_prompt_set_is_generated_deterministically_and_copy_heavy():
    from mlx_specdec.data.prompts import COPY_FILE, COPY_REQUEST, build_copy_prompts, build_prompts, prompt_set_file

    assert json.loads(COPY_FILE.read_text()) == build_copy_prompts()  # the file is what --write writes
    assert json.loads(prompt_set_file("stories").read_text()) == build_prompts()
    version, prompts = load_prompts(prompt_set_file("copy"))
    assert version >= 1 and len({p["id"] for p in prompts}) == len(prompts) >= 4
    assert {p["kind"] for p in prompts[:4]} == {"repeat", "continue"}  # the first few hold both kinds
    for p in prompts:
        story, cue = p["text"].split(f"\n\n{COPY_REQUEST}\n")
        assert story.startswith(cue) and len(cue.split()) >= 5  # the cue opens the story it follows
        assert p["source"].startswith("bundled valid split")
    with pytest.raises(SpecDecError, match="unknown prompt set"):
        prompt_set_file("poems")


def test_cli_prompt_set_and_prompt_file_are_exclusive(capsys):
    assert bench_main(["--prompt-set", "copy", "--prompt-file", "x.json"]) == 2
    assert "exclusive" in capsys.readouterr().err


def test_bad_prompt_file_is_a_one_line_error(tmp_path):
    bad = tmp_path / "p.json"
    bad.write_text('{"prompts": [{"id": "x", "text": ""}]}')
    with pytest.raises(SpecDecError, match="non-empty texts"):
        load_prompts(bad)
    with pytest.raises(SpecDecError, match="does not exist"):
        load_prompts(tmp_path / "missing.json")


def _row(name, impl, mode, k, tps, per_pass, speedup, drafter="d", kind="model"):
    q = lambda x: {"median": x, "min": x, "max": x, "samples": [x]}  # noqa: E731
    return {"name": name, "impl": impl, "mode": mode, "drafter": drafter if k else None, "kind": kind if k else "plain",
            "k": k, "tokens_per_s": q(tps), "speedup_vs_plain": q(speedup), "tokens_per_pass": per_pass,
            "acceptance_rate": 0.5 if k else None, "mean_accepted_per_round": per_pass - 1 if k else None,
            "identical_to_plain_greedy": True if mode == "greedy" else None}


def _result(rows):
    return {"rows": rows, "header": {"command": "python -m bench", "settings": {"temperature": 1.0}}}


def test_summary_says_when_the_accounting_improved_and_the_clock_did_not():
    rows = [_row("plain ours greedy", "ours", "greedy", None, 100.0, 1.0, 1.0),
            _row("ours d k=4 greedy", "ours", "greedy", 4, 80.0, 2.6, 0.8)]
    text = " ".join(headlines(_result(rows)))
    assert "The accounting improved and the clock did not" in text
    rows[1] = _row("ours d k=4 greedy", "ours", "greedy", 4, 130.0, 2.6, 1.3)
    text = " ".join(headlines(_result(rows)))
    assert "clock did not" not in text
    assert "1.30x plain greedy" in text


def test_summary_flags_a_greedy_row_that_is_not_identical():
    rows = [_row("plain ours greedy", "ours", "greedy", None, 100.0, 1.0, 1.0),
            _row("mlx-lm d k=2 greedy", "mlx-lm", "greedy", 2, 90.0, 2.0, 0.9)]
    rows[1]["identical_to_plain_greedy"] = False
    assert any("NOT for mlx-lm d k=2 greedy" in line for line in headlines(_result(rows)))


def test_cli_rejects_bad_k_in_one_line(capsys):
    assert bench_main(["--k", "0,2"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --k") and "\n" not in err


# -- the quick run, end to end --------------------------------------------------


@pytest.mark.slow
def test_quick_bench_writes_results_and_every_greedy_row_is_identical(tmp_path, tiny_store):
    shipped = all((SHIPPED / n / "model.safetensors").is_file() for n in ("storylm-1m", "storylm-5m"))
    args = ["--quick", "--prompts", "1", "--max-tokens", "16", "--out", str(tmp_path), "--name", "smoke"]
    if shipped:  # the 5M: the rung with an MTP head (and a sixth of the 30M's time)
        args += ["--target", "storylm-5m"]
    else:
        target, drafter = tiny_store
        args += ["--target", str(target), "--drafter", str(drafter)]
    assert bench_main(args) == 0

    result = json.loads((tmp_path / "smoke.json").read_text())
    for key in ("mlx", "device", "blas", "cpu", "python", "date", "command", "machine", "prompt_set_version"):
        assert key in result["header"], key
    assert result["header"]["command"].startswith("python -m bench --quick")
    rows = result["rows"]
    for row in rows:
        for key in ("tokens_per_s", "speedup_vs_plain", "tokens_per_pass", "acceptance_rate",
                    "mean_accepted_per_round", "peak_memory_mb", "identical_to_plain_greedy"):
            assert key in row, key
    greedy = [r for r in rows if r["mode"] == "greedy"]
    assert {r["impl"] for r in greedy} == {"ours", "mlx-lm"}
    assert {r["k"] for r in greedy if r["kind"] == "model"} == {1, 4, "auto", "heuristic"}
    # an MTP head stops at its depth
    assert all(r["k"] in (1, 4, "auto", "heuristic") or r["kind"] == "mtp" for r in greedy if r["k"])
    for schedule in ("auto", "heuristic"):  # the generator's default and HF's baseline: ours only, both modes
        rows_of = [r for r in rows if r["k"] == schedule]
        assert {r["impl"] for r in rows_of} == {"ours"} and {r["mode"] for r in rows_of} == {"greedy", "sampled"}
        assert {r["drafter"] for r in rows_of if r["mode"] == "greedy"} == {r["drafter"] for r in greedy if r["k"] == 1}
    assert all(r["identical_to_plain_greedy"] is True for r in greedy)
    assert any(r["mode"] == "sampled" and r["impl"] == "mlx-lm" and r["k"] for r in rows)
    cost = result["cost_model"]
    assert set(cost["v_k"]) >= {"1", "4"} and cost["c"] and "break_even_alpha_k4" in cost
    md = (tmp_path / "smoke.md").read_text()
    assert "## Headlines" in md and "Reproduce: `python -m bench --quick" in md
    assert "Default settings (k=auto" in md and "Hugging Face's heuristic schedule" in md
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert (tmp_path / "smoke-tokens-per-pass.png").is_file() and (tmp_path / "smoke-tokens-per-s.png").is_file()


@pytest.mark.slow
def test_rollback_bench_reports_every_strategy_on_the_hybrid_pair(tmp_path):
    """python -m bench.rollback: a cost row per rollback and k, paired greedy and sampled
    speedups, greedy output identical to plain (it raises otherwise)."""
    import json

    from bench.rollback import main
    from mlx_specdec.caches import ROLLBACKS

    assert main(["--target", "storylm-5m-hybrid", "--drafter", "storylm-1m", "--ks", "2", "--prompts", "1",
                 "--repeats", "1", "--max-tokens", "12", "--cost-repeats", "2", "--out", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*-rollback-storylm-5m-hybrid.json")
    result = json.loads(path.read_text())
    assert {(r["rollback"], r["k"]) for r in result["costs"]["rows"]} == {(rb, 2) for rb in ROLLBACKS}
    assert {(r["rollback"], r["mode"]) for r in result["rows"]} == {(rb, m) for rb in ROLLBACKS
                                                                   for m in ("greedy", "sampled T=1")}
    assert result["costs"]["target_step_ms"] > 0


@pytest.mark.slow
def test_ladder_bench_reports_every_rung_and_pair(tmp_path):
    """python -m bench.ladder: the three losses of every shipped model, and a paired row per drafter and k
    (greedy output identical to plain, or it raises); the README block renders from the file."""
    import json

    from bench.ladder import main, readme_block

    # Two rungs and the 5M's two drafters keep it quick (the 30M's losses and drafting are test_shipped's).
    assert main(["--ks", "1", "--prompts", "1", "--repeats", "1", "--max-tokens", "8", "--valid-stories", "20",
                 "--shapes-stories", "20", "--rungs", "storylm-1m,storylm-5m",
                 "--pairs", "storylm-1m>storylm-5m,storylm-1m-distilled>storylm-5m", "--out", str(tmp_path)]) == 0
    (path,) = tmp_path.glob("*-ladder.json")
    result = json.loads(path.read_text())
    assert [r["model"] for r in result["losses"]] == ["storylm-1m", "storylm-5m"]
    assert all(r["yardstick_loss"] > 0 and r["shapes_loss"] > 0 for r in result["losses"])
    assert {(r["drafter"], r["target"], r["k"]) for r in result["rows"]} == {
        ("storylm-1m", "storylm-5m", 1), ("storylm-1m-distilled", "storylm-5m", 1)}
    block = readme_block(result, "x.json")
    assert "| storylm-5m |" in block and "repeated 4-grams" in block and result["header"]["cpu"] in block
    for name in ("storylm-1m", "storylm-5m"):
        rep = result["repetition"][name]
        assert len(rep["texts"]) == 1 and 0 <= rep["repeated_4grams"] <= 1 and rep["loops"] in (0, 1)
    assert main(["--rungs", "storylm-1m,storylm-7m", "--out", str(tmp_path)]) == 2  # a rung that is not there


def test_repeated_share_counts_the_ngrams_seen_before_in_the_same_text():
    from bench.ladder import repeated_share

    assert repeated_share("a b c d e f".split()) == (0, 3)
    assert repeated_share("a b c d a b c d".split()) == (1, 5)  # abcd again; bcda, cdab, dabc are new
    assert repeated_share("x y x y x y x y".split(), 2) == (5, 7)  # xy, yx, then each again
    assert repeated_share("a b c".split()) == (0, 0)


def test_ladder_drafters_include_a_rungs_distilled_sibling(tmp_path, tiny_store):
    import shutil

    from bench.systems import Context, model_drafters
    from mlx_specdec.loading import load

    target, tok = load(str(tiny_store[0]))
    shutil.copytree(tiny_store[1], tmp_path / "storylm-1m")
    ctx = Context("storylm-5m", target, tok, tmp_path)
    assert [s.name for s in model_drafters(ctx)] == ["storylm-1m"]
    shutil.copytree(tiny_store[1], tmp_path / "storylm-1m-distilled")
    assert [s.name for s in model_drafters(ctx)] == ["storylm-1m", "storylm-1m-distilled"]


def test_the_ceiling_is_the_best_full_acceptance_speedup_over_the_drafters_ks():
    from bench.report import ceiling, cost_lines

    assert ceiling({"1": 1.2, "2": 1.3}, 0.5) == (2, pytest.approx(3 / 2.3))
    result = {"cost_model": {"target_step_ms": 5.0, "context_tokens": 96, "repeats": 3,
                             "v_k": {"1": 1.2, "2": 1.3, "4": 1.4}, "c": {"d": 0.1}},
              "rows": [{"drafter": "d", "k": 2}]}
    assert "Ceiling for d (every draft accepted; measured v_k, k up to its longest row): 2.00x at k=2." \
        in cost_lines(result)


def test_hazard_counts_positions_reached_and_failed_per_state():
    from bench.hazard import expected_tokens, geometric_tokens, hazards, position_counts

    # (drafted, accepted): a full round, one failing at draft 2, a plain step (skipped, state kept),
    # one failing at draft 1, a short full round (lookup's shorter match: positions past it say nothing).
    counts = position_counts([(4, 4), (4, 1), (0, 0), (4, 0), (2, 2)], k_max=4)
    pooled, full, reject = counts["pooled"], counts["after_full"], counts["after_reject"]
    assert pooled["reached"] == [0, 4, 3, 1, 1] and pooled["failed"] == [0, 1, 1, 0, 0]
    assert full["reached"] == [0, 1, 1, 0, 0] and full["failed"] == [0, 0, 1, 0, 0]  # the round after (4, 4)
    assert reject["reached"] == [0, 2, 1, 0, 0] and reject["failed"] == [0, 1, 0, 0, 0]  # after (4, 1), (4, 0)
    h = hazards(pooled)
    assert h == [None, 0.25, 1 / 3, 0.0, 0.0]
    assert expected_tokens(h, 2) == pytest.approx(1 + 0.75 + 0.75 * (2 / 3))
    assert expected_tokens(hazards(full), 3) is None  # position 3 never reached after a full round
    # Geometric: 7 accepted drafts, 2 rejections -> alpha = 7/9.
    a = 7 / 9
    assert geometric_tokens(pooled, 2) == pytest.approx(1 + a + a * a)


@pytest.mark.slow
def test_hazard_bench_counts_every_drafting_round(tmp_path):
    import json

    from bench.hazard import main

    assert main(["--drafters", "storylm-1m,prompt-lookup", "--k", "4", "--prompts", "1", "--max-tokens", "24",
                 "--out", str(tmp_path)]) == 0
    (result,) = tmp_path.glob("*-hazard-stories-storylm-5m.json")
    rows = {r["drafter"]: r for r in json.loads(result.read_text())["rows"]}
    for r in rows.values():
        reached = r["pooled"]["reached"]
        assert reached[1] == r["drafting_rounds"] > 0  # every drafting round drafts position 1
        assert all(a >= b for a, b in zip(reached[1:], reached[2:]))  # a later position is reached no more often
        split = [r[s]["reached"][1] for s in ("after_full", "after_reject")]
        assert sum(split) == reached[1] - 1  # every drafting round but the first has a predecessor
    assert rows["prompt-lookup"]["drafting_rounds"] < rows["prompt-lookup"]["rounds"]  # rounds without a match
    assert main(["--k", "0"]) == 2
