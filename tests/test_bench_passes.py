"""bench.passes: a pass over n rows timed on a real model's committed state, which it leaves as it found it."""

import json

import mlx.core as mx

from bench import passes
from mlx_specdec.loading import load
from tests.conftest import SHIPPED


def test_every_n_is_timed_and_the_file_names_each_target(tmp_path):
    out = tmp_path / "out"
    assert passes.main(["--targets", str(SHIPPED / "storylm-1m"), "--max-rows", "4", "--repeats", "1",
                        "--out", str(out)]) == 0
    (path,) = out.glob("*-passes.json")
    result = json.loads(path.read_text())
    (target,) = result["targets"]
    assert target["target"] == "storylm-1m" and target["sequence"] == "CompiledKVSequence"
    assert sorted(int(n) for n in target["ms"]) == [1, 2, 3, 4] and all(v > 0 for v in target["ms"].values())
    md = path.with_suffix(".md").read_text()
    assert "| rows | storylm-1m (CompiledKVSequence) |" in md and md.count("\n| ") == 5  # header + 4 rows


def test_the_passes_roll_back_to_the_same_context():
    """Each timed pass is rolled back: the logits of the next one-row pass are those of the first."""
    model, _ = load(str(SHIPPED / "storylm-1m"))
    seq = passes.committed_state(model)
    first = seq.extend(mx.array([], dtype=mx.int32))
    mx.eval(first)
    seq.commit(0, mx.array([5], dtype=mx.int32))
    mx.eval(seq.extend(mx.arange(200, 208, dtype=mx.int32)))
    seq.commit(0, mx.array([5], dtype=mx.int32))
    again = seq.extend(mx.array([], dtype=mx.int32))
    assert mx.array_equal(first, again)


def test_a_missing_target_or_a_bad_count_is_one_line_and_nothing_written(tmp_path, capsys):
    out = tmp_path / "out"
    assert passes.main(["--targets", "no-such-model", "--out", str(out)]) == 2
    assert "no model no-such-model" in capsys.readouterr().err
    assert passes.main(["--repeats", "0", "--out", str(out)]) == 2
    assert not out.exists()
