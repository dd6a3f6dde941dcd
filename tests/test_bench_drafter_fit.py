"""bench.drafter_fit: the two answer sets it scores on, and the table it renders."""

import json

import pytest

from bench import drafter_fit


def _corpus(folder, train: int, valid: int):
    folder.mkdir()
    (folder / "corpus.json").write_text(json.dumps({"target": {"name": "t"}}))
    for split, n in (("train", train), ("valid", valid)):
        with open(folder / f"{split}.jsonl", "w") as f:
            for i in range(n):
                f.write(json.dumps({"id": f"{split}-{i}", "prompt": [1, 2, i], "answer": [3, i, 4]}) + "\n")


def test_the_sets_are_a_seeded_draw_from_train_and_the_head_of_valid(tmp_path):
    _corpus(tmp_path / "c", train=10, valid=5)
    sets = drafter_fit.row_sets(str(tmp_path / "c"), 4)
    again = drafter_fit.row_sets(str(tmp_path / "c"), 4)
    assert (sets["train"] == again["train"]).all()  # the same draw every run
    assert sets["train"].shape == sets["valid"].shape == (4, 2, drafter_fit.SEQ_LEN)
    assert sets["valid"][:, 0, 2].tolist() == [0, 1, 2, 3]  # the first four validation answers, in order
    drawn = sets["train"][:, 0, 2].tolist()
    assert drawn == sorted(drawn) and len(set(drawn)) == 4 and all(0 <= i < 10 for i in drawn)
    # the mask covers the last prompt token's prediction through the answer's last token
    assert sets["valid"][0, 1, :7].tolist() == [0, 0, 1, 1, 1, 1, 0]


def test_too_few_answers_is_one_line(tmp_path):
    _corpus(tmp_path / "c", train=10, valid=3)
    with pytest.raises(SystemExit, match="has 10 train and 3 valid answers; --rows 4 needs 4 of each"):
        drafter_fit.row_sets(str(tmp_path / "c"), 4)


def test_render_and_readme_block_show_each_drafter_on_both_sets():
    scored = {f"acc_{i}": 0.5 - i / 10 for i in range(1, 5)} | {"valid_loss": 3.25}
    header = {"corpus": "runs/c", "rows": 4, "seq_len": 256, "date": "2026-12-07", "machine": "m", "cpu": "c",
              "commit": "abc", "command": "python -m bench.drafter_fit"}
    result = {"header": header, "drafters": [{"drafter": "EAGLE-3", "folder": "models/e", "train": scored,
                                              "valid": {**scored, "acc_1": 0.125}}]}
    text = drafter_fit.render(result)
    assert "| EAGLE-3 | `models/e` | trained on | 40.0% | 30.0% | 20.0% | 10.0% | 3.250 |" in text
    assert "| EAGLE-3 | `models/e` | never seen | 12.5% | 30.0% | 20.0% | 10.0% | 3.250 |" in text
    block = drafter_fit.readme_block(result, "bench/results/x-drafter-fit.json")
    assert block.startswith("Teacher-forced") and "[`bench/results/x-drafter-fit.json`]" in block
    assert "| EAGLE-3 | `models/e` | never seen | 12.5% |" in block


def test_a_folder_that_is_no_drafter_is_refused_in_one_line(tmp_path, capsys):
    _corpus(tmp_path / "c", train=4, valid=4)
    (tmp_path / "t").mkdir()
    (tmp_path / "d").mkdir()
    with pytest.raises(SystemExit):
        drafter_fit.main(["--target", str(tmp_path / "t"), "--drafters", str(tmp_path / "d"),
                          "--corpus", str(tmp_path / "c"), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(f"{tmp_path / 'd'} is neither an EAGLE-3 nor a block drafter folder")
    with pytest.raises(SystemExit):
        drafter_fit.main(["--target", str(tmp_path / "t"), "--drafters", str(tmp_path / "nowhere"),
                          "--corpus", str(tmp_path / "c")])
    assert capsys.readouterr().err.strip().splitlines()[-1].endswith(f"not found: {tmp_path / 'nowhere'} "
                                                                    "(make real-models, make chat-corpus-smollm2)")
    assert not (tmp_path / "out").exists()
