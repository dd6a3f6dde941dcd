"""bench.ceiling: the most a drafter's acceptance can buy, from committed costs (no model runs)."""

import json

import pytest

from bench import ceiling

MS = {"1": 50.0, "2": 60.0, "3": 70.0, "4": 80.0, "5": 90.0, "8": 95.0, "9": 100.0, "16": 110.0,
      "17": 120.0}


def _files(tmp_path, target="smollm2-135m-instruct"):
    passes = tmp_path / "passes.json"
    passes.write_text(json.dumps({"header": {}, "targets": [{"target": target, "sequence": "X", "ms": MS}]}))
    drafters = tmp_path / "drafters.json"
    drafters.write_text(json.dumps({"header": {}, "sets": {
        "heldout": {"profiles": [{"kind": "eagle3", "drafter_step_fraction": 0.05},
                                 {"kind": "dflash", "drafter_step_fraction": 0.10}]},
        "copy": {"profiles": [{"kind": "eagle3", "drafter_step_fraction": 0.07}]}}}))
    return passes, drafters


def test_a_round_in_plain_steps_and_what_each_goal_needs(tmp_path):
    passes, drafters = _files(tmp_path)
    out = tmp_path / "out"
    assert ceiling.main(["--passes", str(passes), "--drafters", str(drafters), "--out", str(out)]) == 0
    (path,) = out.glob("*-ceiling-smollm2-135m-instruct.json")
    result = json.loads(path.read_text())
    assert result["header"]["fractions"] == {"eagle3": 0.07, "dflash": 0.10}  # the upper median of 0.05, 0.07
    by = {(r["drafter"], r["k"]): r for r in result["rows"]}
    assert by["prompt lookup", 8]["round_plain_steps"] == pytest.approx(2.0)  # 9 rows: 100 ms over 50
    assert by["prompt lookup", 8]["most"] == pytest.approx(4.5)
    assert by["prompt lookup", 8]["goal"]["tokens_for_goal_speedup"] == pytest.approx(5.0)  # 2.5x at 2 steps
    assert ("prompt lookup", 2) in by and ("prompt lookup", 15) in by and ("prompt lookup", 16) in by
    assert ("EAGLE-3", 6) not in by  # no pass of 7 rows was timed
    block = by["block (DFlash)", 15]  # 16 rows: 110 ms over 50, and one pass at 0.10
    assert block["round_plain_steps"] == pytest.approx(2.2 + 0.10)
    assert block["goal"]["speedup_at_goal_tokens"] == pytest.approx(4.0 / 2.3)
    assert block["goal"]["tokens_for_goal_speedup"] == pytest.approx(3.0 * 2.3)
    eagle = by["EAGLE-3", 4]  # 5 rows: 90 over 50, and 4 drafts at 0.07
    assert eagle["round_plain_steps"] == pytest.approx(1.8 + 0.28)
    md = path.with_suffix(".md").read_text()
    assert "| block (DFlash) | 15 | 2.30 | 6.96x | 1.74x at 4 | 6.9 for 3x |" in md


def test_a_file_without_the_target_or_no_file_is_refused_and_nothing_written(tmp_path, capsys):
    passes, drafters = _files(tmp_path, target="other")
    out = tmp_path / "out"
    assert ceiling.main(["--passes", str(passes), "--drafters", str(drafters), "--out", str(out)]) == 2
    assert "timed no pass of smollm2-135m-instruct" in capsys.readouterr().err
    assert ceiling.main(["--passes", str(tmp_path / "none.json"), "--drafters", str(drafters), "--out", str(out)]) == 2
    assert "no such results file" in capsys.readouterr().err
    assert not out.exists()


def test_a_target_no_drafter_was_profiled_for_gets_prompt_lookups_rows(tmp_path):
    passes, _ = _files(tmp_path, target="gemma-3-270m")
    out = tmp_path / "out"
    assert ceiling.main(["--target", "gemma-3-270m", "--passes", str(passes), "--out", str(out)]) == 0
    (path,) = out.glob("*-ceiling-gemma-3-270m.json")
    result = json.loads(path.read_text())
    assert {r["drafter"] for r in result["rows"]} == {"prompt lookup"} and result["header"]["drafters"] is None
    assert not any("goal" in r for r in result["rows"])
    assert "no drafter profiled" in ceiling.readme_block([(result, "x.json")])
