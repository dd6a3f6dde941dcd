"""bench.ceiling: the most a drafter's acceptance can buy, from committed costs (no model runs)."""

import json

import pytest

from bench import ceiling


def _files(tmp_path, rounds=True):
    costs = {"plain": 0.050, "round_a": 0.05, "round_b": 0.002, "trace": 0.05, "entry": 0.0, "catch_a": 0.0,
             "catch_b": 0.0, "ratio": 0.0}
    if rounds:
        costs["rounds"] = {"1": 0.060, "2": 0.070, "4": 0.090, "8": 0.100, "16": 0.120}
    replay = tmp_path / "replay.json"
    replay.write_text(json.dumps({"header": {}, "pairs": [{"drafter": "prompt-lookup", "set": "copy", "costs": costs}]}))
    drafters = tmp_path / "drafters.json"
    drafters.write_text(json.dumps({"header": {}, "sets": {
        "heldout": {"profiles": [{"kind": "eagle3", "drafter_step_fraction": 0.05},
                                 {"kind": "dflash", "drafter_step_fraction": 0.10}]},
        "copy": {"profiles": [{"kind": "eagle3", "drafter_step_fraction": 0.07}]}}}))
    return replay, drafters


def test_a_round_in_plain_steps_and_what_each_goal_needs(tmp_path):
    replay, drafters = _files(tmp_path)
    out = tmp_path / "out"
    assert ceiling.main(["--costs", str(replay), "--drafters", str(drafters), "--out", str(out)]) == 0
    (path,) = out.glob("*-ceiling-smollm2-135m-instruct.json")
    result = json.loads(path.read_text())
    assert result["header"]["fractions"] == {"eagle3": 0.07, "dflash": 0.10}  # the upper median of 0.05, 0.07
    by = {(r["drafter"], r["k"]): r for r in result["rows"]}
    assert by["prompt lookup", 8]["round_plain_steps"] == pytest.approx(2.0)  # 100 ms over a 50 ms step
    assert by["prompt lookup", 8]["most"] == pytest.approx(4.5)
    assert by["prompt lookup", 8]["goal"]["tokens_for_goal_speedup"] == pytest.approx(5.0)  # 2.5x at 2 steps
    eagle = by["EAGLE-3", 6]  # 95 ms (between 90 and 100) + 6 drafts at 0.07 of a step
    assert eagle["round_plain_steps"] == pytest.approx(1.9 + 0.42)
    assert eagle["goal"]["speedup_at_goal_tokens"] == pytest.approx(3.5 / 2.32)
    block = by["block (DFlash)", 15]  # 117.5 ms + one pass at 0.10
    assert block["round_plain_steps"] == pytest.approx(2.35 + 0.10)
    assert block["goal"]["tokens_for_goal_speedup"] == pytest.approx(3.0 * 2.45)
    md = path.with_suffix(".md").read_text()
    assert "| EAGLE-3 | 6 | 2.32 | 3.02x | 1.51x at 3.5 | 5.8 for 2.5x |" in md


def test_a_file_without_rounds_at_each_k_or_no_file_is_refused_and_nothing_written(tmp_path, capsys):
    replay, drafters = _files(tmp_path, rounds=False)
    out = tmp_path / "out"
    assert ceiling.main(["--costs", str(replay), "--drafters", str(drafters), "--out", str(out)]) == 2
    assert "measured no round at each k" in capsys.readouterr().err
    assert ceiling.main(["--costs", str(tmp_path / "none.json"), "--drafters", str(drafters), "--out", str(out)]) == 2
    assert "no such results file" in capsys.readouterr().err
    assert not out.exists()


def test_a_target_no_drafter_was_profiled_for_gets_prompt_lookups_rows(tmp_path):
    replay, _ = _files(tmp_path)
    out = tmp_path / "out"
    assert ceiling.main(["--target", "gemma-3-270m", "--costs", str(replay), "--out", str(out)]) == 0
    (path,) = out.glob("*-ceiling-gemma-3-270m.json")
    result = json.loads(path.read_text())
    assert {r["drafter"] for r in result["rows"]} == {"prompt lookup"} and result["header"]["drafters"] is None
    assert [r["k"] for r in result["rows"]] == [1, 2, 4, 8, 16] and not any("goal" in r for r in result["rows"])
    assert "no drafter profiled" in ceiling.readme_block([(result, "x.json")])
