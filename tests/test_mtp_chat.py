"""The MTP head trained on a chat corpus of its base's own answers (the corpus the EAGLE-3 trainer reads).

The shipped StoryLM 5M stands in for a chat target (fast): its corpus is a
handful of story openings ("prompts") and its own greedy continuations
("answers"), in the chat corpus's folder format. The loss must score exactly
the answer's positions, the kept trunk pass must be the trunk's, and a head it
trains must load onto the base and keep speculation exact.
"""

from __future__ import annotations

import json

import mlx.core as mx
import mlx.nn as nn
import numpy as np
import pytest

from mlx_specdec.errors import IncompatibleModelsError
from mlx_specdec.generate import greedy_generate, speculative_generate
from mlx_specdec.loading import load
from mlx_specdec.models.head_store import load_head
from mlx_specdec.mtp import MTPDrafter, MTPHead
from mlx_specdec.training.chat_corpus import FORMAT, META
from mlx_specdec.training.distill import target_identity
from mlx_specdec.training.eagle3 import conversation_rows
from mlx_specdec.training.mtp import ChatHeadTask, MTPTrainConfig, masked_rollout_loss, train
from tests.conftest import shipped

OPENINGS = ["Once upon a time, there was a little girl named Lily.", "Tom had a red ball.",
            "The sun was hot and the dog was thirsty.", "One day, a small bird found a shiny stone.",
            "Sam and his mom went to the park.", "The cat sat on the mat and looked at the rain."]


@pytest.fixture(scope="module")
def base():
    return load(str(shipped("storylm-5m")))


@pytest.fixture(scope="module")
def corpus(base, tmp_path_factory):
    """A chat corpus folder: each opening and the base's greedy continuation of it (answers of 20-40 tokens)."""
    model, tok = base
    folder = tmp_path_factory.mktemp("chat")
    for split, texts in (("train", OPENINGS[:4]), ("valid", OPENINGS[4:])):
        with open(folder / f"{split}.jsonl", "w") as f:
            for i, text in enumerate(texts):
                prompt = tok.encode(text)
                f.write(json.dumps({"prompt": prompt, "answer": greedy_generate(model, prompt, 20 + 5 * i)}) + "\n")
    (folder / META).write_text(json.dumps({"format": FORMAT, "target": target_identity(str(shipped("storylm-5m")))}))
    return folder


def records(folder, split):
    return [json.loads(line) for line in (folder / f"{split}.jsonl").read_text().splitlines()]


def config(corpus, tmp_path, **over) -> MTPTrainConfig:
    settings = dict(base=str(shipped("storylm-5m")), corpus=str(corpus), run_dir=str(tmp_path / "run"),
                    out=str(tmp_path / "head"), max_steps=6, batch_size=2, seq_len=64, eval_rows=2, eval_every=3,
                    ckpt_every=3, log_every=1, warmup=1, lr=3e-3, quiet=True)
    return MTPTrainConfig(**{**settings, **over})


def test_the_loss_scores_exactly_the_answers_positions(base, corpus):
    """Depth d predicts x_{t+d+1} from x_{t+d}; it counts only where both lie in the answer (or at the prompt's
    last token, which predicts the answer's first). Checked against a position-by-position sum."""
    model, _ = base
    rows = conversation_rows(records(corpus, "train"), 64)
    mx.random.seed(0)
    head = MTPHead(model)
    ids, mask = mx.array(rows[:, 0]), rows[:, 1]
    hidden = model.model(ids)
    total, per_depth = masked_rollout_loss(head, hidden, ids, mx.array(mask), [1.0, 0.5], stride=1)

    logits1, state = head(hidden[:, :-1], ids[:, 1:])
    logits2, _ = head(state[:, :-1], ids[:, 2:], depth=2)
    expected = []
    for d, logits in ((1, logits1), (2, logits2)):
        terms = [nn.losses.cross_entropy(logits[r, t], ids[r, t + d + 1]).item()
                 for r in range(len(rows)) for t in range(64 - d - 1) if mask[r, t + d] and mask[r, t + d + 1]]
        assert len(terms) == sum(int(m.sum()) - 1 for m in mask)  # every answer token, once, at every depth
        expected.append(float(np.mean(terms)))
    assert np.allclose(np.array(per_depth), expected, rtol=1e-4)
    assert total.item() == pytest.approx((expected[0] + 0.5 * expected[1]) / 1.5, rel=1e-4)


def test_the_kept_trunk_pass_is_the_trunks(base, corpus, tmp_path):
    model, _ = base
    rows = conversation_rows(records(corpus, "train"), 64)
    task = ChatHeadTask(config(corpus, tmp_path), model, rows[:2])
    first = task.hidden(rows[[0, 1, 0]])
    assert task.trunk.computed == len(task.trunk.rows) == 2  # a row drawn twice in a batch is passed once
    again = task.hidden(rows[[1, 0]])
    assert task.trunk.computed == 2
    whole = model.model(mx.array(rows[[0, 1], 0]))
    assert np.allclose(np.array(again), np.array(whole[::-1]), atol=2e-2)  # kept in float16
    assert np.array_equal(np.array(first[0]), np.array(first[2]))


def test_a_head_trained_on_the_corpus_loads_and_drafts_exactly(base, corpus, tmp_path):
    model, tok = base
    summary = train(config(corpus, tmp_path))
    assert summary["steps"] == 6
    # The corpus is the base's own greedy output: at every scored position its top-1 is the answer's token.
    assert summary["base_acc"] == 1.0
    head = load_head(tmp_path / "head", model, tok)
    card = json.loads((tmp_path / "head" / "config.json").read_text())
    assert card["base_tokenizer_fingerprint"] == tok.fingerprint
    for text in OPENINGS[4:]:
        prompt = tok.encode(text)
        for k in (1, 3):
            assert speculative_generate(model, MTPDrafter(head), prompt, 40, k=k)[0] == greedy_generate(model, prompt, 40)


def test_a_corpus_written_by_another_target_is_refused(corpus, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    for name in ("train.jsonl", "valid.jsonl"):
        (other / name).write_text((corpus / name).read_text())
    (other / META).write_text(json.dumps({"format": FORMAT, "target": target_identity(str(shipped("storylm-1m")))}))
    with pytest.raises(IncompatibleModelsError, match="another target"):
        train(config(other, tmp_path))
    assert not (tmp_path / "head").exists()
