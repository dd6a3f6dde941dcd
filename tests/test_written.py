"""The written training stories: well-formed, independent of the yardstick, and mixed into training only."""

import math
import re

from mlx_specdec.data import generator
from mlx_specdec.data.written import written_stories
from mlx_specdec.data.yardstick import yardstick_stories


def _grams(text: str, n: int = 8) -> set:
    words = re.findall(r"[a-z']+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_there_are_hundreds_of_distinct_ascii_stories_of_story_length():
    stories = written_stories()
    assert len(stories) >= 300
    assert len(set(stories)) == len(stories)
    for s in stories:
        assert s.isascii() and "---" not in s
        assert 40 <= len(s.split()) <= 300, s[:80]


def test_no_written_story_shares_an_8_word_sequence_with_the_yardstick():
    yard = set().union(*(_grams(t) for t in yardstick_stories()))
    shared = [s[:60] for s in written_stories() if _grams(s) & yard]
    assert shared == []


def test_about_a_quarter_of_training_stories_are_written_and_none_elsewhere():
    written = set(written_stories())
    n = 4000
    hits = sum(t in written for t in generator.iter_stories("train", n))
    p = generator.WRITTEN_SHARE
    assert abs(hits - n * p) <= 4 * math.sqrt(n * p * (1 - p))  # four standard deviations
    for split in ("valid", "shapes"):
        assert not written.intersection(generator.iter_stories(split, 2000))


def test_a_bundled_token_cache_is_not_reused_once_the_written_stories_change(tiny_tokenizer, tmp_path, monkeypatch):
    """The bundled corpus's cache key holds the written stories' digest: the same spec over edited stories
    is tokenized again into its own file, and unchanged stories reuse the first."""
    from mlx_specdec.data import written
    from mlx_specdec.training.data import tokenized_corpus
    from mlx_specdec.training.storylm import TrainConfig

    cfg = TrainConfig(preset="storylm-tiny", corpus="bundled:written=1", train_stories=20, valid_stories=10)
    cache = tmp_path / "cache"
    first, _ = tokenized_corpus(cfg, tiny_tokenizer, cache, log=lambda *_: None)
    stories = written.written_stories()
    monkeypatch.setattr(written, "written_stories", lambda: tuple(s.upper() for s in stories))
    monkeypatch.setattr(written, "written_digest", lambda: "edited")
    monkeypatch.setattr(generator, "written_stories", written.written_stories)
    edited, _ = tokenized_corpus(cfg, tiny_tokenizer, cache, log=lambda *_: None)
    assert len(list(cache.glob("tokens-*.npz"))) == 2 and edited.tolist() != first.tolist()
    monkeypatch.undo()
    again, _ = tokenized_corpus(cfg, tiny_tokenizer, cache, log=lambda *_: None)
    assert again.tolist() == first.tolist() and len(list(cache.glob("tokens-*.npz"))) == 2
