"""The distillation corpus: the target's own continuations, written resumably, read back by the trainer."""

import mlx_specdec  # noqa: F401  (before mlx.core)

import json

import mlx.core as mx
import numpy as np
import pytest

from mlx_specdec.cli.distill import main as distill_main
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import greedy_generate
from mlx_specdec.models.store import load_any_store
from mlx_specdec.training.distill import DistillConfig, continue_batch, openings, write_corpus


def small(target, out, **over) -> DistillConfig:
    settings = dict(train_stories=10, valid_stories=3, min_prompt=4, max_prompt=9, new_tokens=12, batch_size=4,
                    quiet=True)
    return DistillConfig(target=str(target), out=str(out), **{**settings, **over})


def lines(path):
    return path.read_text().splitlines()


def test_batched_continuations_are_each_prompts_own_greedy_continuation(tiny_store):
    model, tok = load_any_store(tiny_store[0])
    _, prompts = next(openings(small(tiny_store[0], "unused", batch_size=5), tok, "train"))
    assert prompts.shape[0] == 5 and 4 <= prompts.shape[1] <= 9
    got = continue_batch(model, prompts, 20, tok.eos_id)
    for row, cont in zip(prompts.tolist(), got):
        assert cont == greedy_generate(model, row, 20, eos_id=tok.eos_id)


def test_sampled_continuations_follow_the_key(tiny_store):
    model, tok = load_any_store(tiny_store[0])
    _, prompts = next(openings(small(tiny_store[0], "unused"), tok, "train"))
    a = continue_batch(model, prompts, 16, tok.eos_id, temperature=1.0, key=mx.random.key(3))
    b = continue_batch(model, prompts, 16, tok.eos_id, temperature=1.0, key=mx.random.key(3))
    c = continue_batch(model, prompts, 16, tok.eos_id, temperature=1.0, key=mx.random.key(4))
    assert a == b and a != c


def test_corpus_records_are_openings_plus_the_targets_greedy_continuation(tiny_store, tmp_path):
    cfg = small(tiny_store[0], tmp_path / "corpus")
    meta = write_corpus(cfg)
    out = tmp_path / "corpus"
    assert meta["complete"] == {"train": {"stories": 10}, "valid": {"stories": 3}}
    assert len(lines(out / "train.jsonl")) == 10 and len(lines(out / "valid.jsonl")) == 3
    assert not list(out.glob("*.partial"))
    model, tok = load_any_store(tiny_store[0])
    expected = []
    for _, prompts in openings(cfg, tok, "train"):
        for row in prompts.tolist():
            expected.append(tok.decode(row[1:] + greedy_generate(model, row, 12, eos_id=tok.eos_id)))
    assert [json.loads(x)["text"] for x in lines(out / "train.jsonl")] == expected
    assert "python -m mlx_specdec.distill --target" in (out / "README.md").read_text()


def test_an_interrupted_corpus_is_finished_identically(tiny_store, tmp_path):
    whole = tmp_path / "whole"
    write_corpus(small(tiny_store[0], whole))
    cut = tmp_path / "cut"
    cut.mkdir()
    (cut / "distill.json").write_text((whole / "distill.json").read_text())
    text = (whole / "train.jsonl").read_text()
    torn = "\n".join(text.splitlines()[:5]) + "\n" + text.splitlines()[5][:7]  # 5 lines and a torn sixth
    (cut / "train.jsonl.partial").write_text(torn)
    write_corpus(small(tiny_store[0], cut))
    for name in ("train.jsonl", "valid.jsonl"):
        assert (cut / name).read_text() == (whole / name).read_text()


def test_refusals_leave_folders_they_did_not_write_alone(tiny_store, tmp_path):
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(SpecDecError, match="not written by"):
        write_corpus(small(tiny_store[0], foreign))
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]

    out = tmp_path / "corpus"
    write_corpus(small(tiny_store[0], out))
    (out / "extra.txt").write_text("keep")
    before = (out / "train.jsonl").read_text()
    with pytest.raises(SpecDecError, match=r"other settings \(new_tokens\)"):
        write_corpus(small(tiny_store[0], out, new_tokens=6))
    assert (out / "train.jsonl").read_text() == before
    write_corpus(small(tiny_store[0], out, new_tokens=6, overwrite=True))
    assert (out / "train.jsonl").read_text() != before and (out / "extra.txt").read_text() == "keep"


@pytest.mark.parametrize("flags, message", [
    (["--min-prompt", "9", "--max-prompt", "4"], "--min-prompt <= --max-prompt"),
    (["--new-tokens", "4000"], "exceeds the target's context"),
    (["--temperature", "-1"], "--temperature"),
])
def test_cli_bad_input_is_one_line_and_exit_2(tiny_store, tmp_path, capsys, flags, message):
    try:
        code = distill_main(["--target", str(tiny_store[0]), "--out", str(tmp_path / "c"), "--quiet"] + flags)
    except SystemExit as e:  # argparse's own refusals
        code = e.code
    err = capsys.readouterr().err.strip()
    assert code == 2 and message in err and len(err.splitlines()) == 1
    assert not (tmp_path / "c").exists()


def test_a_drafter_trains_on_the_corpus_and_a_rewritten_corpus_is_tokenized_again(tiny_store, tiny_tokenizer,
                                                                                   tmp_path):
    from mlx_specdec.training.data import tokenized_corpus
    from mlx_specdec.training.storylm import TrainConfig

    out = tmp_path / "corpus"
    write_corpus(small(tiny_store[0], out))
    cfg = TrainConfig(preset="storylm-tiny", corpus=str(out), train_stories=100, valid_stories=100)
    train, valid = tokenized_corpus(cfg, tiny_tokenizer, tmp_path / "cache", log=lambda *_: None)
    texts = [json.loads(x)["text"].strip() for x in lines(out / "train.jsonl")]  # read_jsonl strips
    assert train.tolist() == [t for x in texts for t in tiny_tokenizer.encode(x, bos=True, eos=True)]
    write_corpus(small(tiny_store[0], out, new_tokens=4, overwrite=True))
    again, _ = tokenized_corpus(cfg, tiny_tokenizer, tmp_path / "cache", log=lambda *_: None)
    assert len(again) < len(train)
    assert len(list((tmp_path / "cache").glob("tokens-*.npz"))) == 2
