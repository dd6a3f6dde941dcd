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
