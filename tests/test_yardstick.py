"""The human-written yardstick: enough stories, the right size, and far from the bundled generator."""

from __future__ import annotations

import re

from mlx_specdec.data.generator import iter_stories
from mlx_specdec.data.yardstick import yardstick_stories

N_GRAM = 8
WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


def _words(text: str) -> list[str]:
    return WORD.findall(text.lower())


def _grams(words: list[str], n: int = N_GRAM) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def test_count_and_lengths():
    stories = yardstick_stories()
    assert len(stories) >= 48
    for i, story in enumerate(stories):
        n = len(story.split())
        assert 80 <= n <= 220, f"story {i} has {n} words"


def test_distinct_and_clean():
    stories = yardstick_stories()
    assert len(set(stories)) == len(stories)
    openings = [" ".join(_words(s)[:6]) for s in stories]
    assert len(set(openings)) == len(openings)
    for i, story in enumerate(stories):
        assert "---" not in story, f"story {i} contains the separator"
        assert story.isascii(), f"story {i} is not plain ASCII"


def test_no_shared_8gram_with_bundled_generator():
    generated: set[tuple[str, ...]] = set()
    for text in iter_stories("train", 2000):
        generated |= _grams(_words(text))
    for i, story in enumerate(yardstick_stories()):
        shared = _grams(_words(story)) & generated
        assert not shared, f"story {i} shares 8-grams with the generator: {sorted(shared)[:3]}"
