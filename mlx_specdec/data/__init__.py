"""Corpora: the bundled offline story generator and TinyStories readers.

    iter_texts("bundled")                      # generated stories, no download
    iter_texts("bundled", split="shapes")      # only plot shapes no model trains on
    iter_texts("bundled:written=0.6")          # six training stories in ten from the written ones (default 0.3)
    iter_texts("bundled:written=0.6,retell=0.1")  # and one in ten told twice (a copying lesson)
    iter_texts("bundled:written=0.6,retell=0.3,passage=40")  # three in ten: their first <= 40 words twice
    iter_texts("data/TinyStoriesV2-GPT4-train.txt")
    iter_texts("data/", split="valid")         # picks *valid*.txt / .json / .jsonl
    iter_texts("hub")                          # downloads roneneldan/TinyStories (online only)
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

from ..errors import SpecDecError
from .generator import generate_story, iter_stories
from .tinystories import HUB_REPO, iter_hub, iter_path, normalise_split

__all__ = ["iter_texts", "iter_stories", "generate_story", "parse_corpus"]


BUNDLED_FORM = ("expected 'bundled:written=<share in [0, 1]>[,retell=<share in [0, 1]>[,passage=<words>]]', "
                "e.g. 'bundled:written=0.6'")
BUNDLED_KEYS = {"written": "written_share", "retell": "retell_share", "passage": "passage_words"}


def _bundled_value(key: str, value: str):
    """A share in [0, 1], or for 'passage' a whole number of words >= 0; None when it is neither."""
    try:
        number = int(value) if key == "passage" else float(value)
    except ValueError:
        return None
    return number if (number >= 0 if key == "passage" else 0.0 <= number <= 1.0) else None


def parse_corpus(corpus: str) -> tuple[str, object]:
    """("bundled", {iter_stories keyword: share}), ("hub", repo) or ("path", path) for a corpus spec."""
    if not isinstance(corpus, str) or not corpus.strip():
        raise SpecDecError(f"corpus must be 'bundled', 'hub[:repo]' or a path, got {corpus!r}")
    corpus = corpus.strip()
    if corpus == "bundled":
        return "bundled", {}
    if corpus.startswith("bundled:"):
        shares = {}
        for part in corpus[len("bundled:"):].split(","):
            key, _, value = part.strip().partition("=")
            share = _bundled_value(key, value)
            if key not in BUNDLED_KEYS or BUNDLED_KEYS[key] in shares or share is None:
                raise SpecDecError(f"corpus {corpus!r}: {BUNDLED_FORM}")
            shares[BUNDLED_KEYS[key]] = share
        return "bundled", shares
    if corpus == "hub":
        return "hub", HUB_REPO
    if corpus.startswith("hub:"):
        repo = corpus[4:].strip()
        if repo.count("/") != 1 or not all(repo.split("/")):
            raise SpecDecError(f"corpus {corpus!r}: expected 'hub:<owner>/<dataset>', e.g. 'hub:{HUB_REPO}'")
        return "hub", repo
    if not Path(corpus).exists():
        raise SpecDecError(
            f"corpus {corpus!r} is neither 'bundled', 'hub[:repo]' nor an existing file or directory"
        )
    return "path", corpus


def iter_texts(corpus: str = "bundled", split: str = "train", n: int | None = None,
               seed: int = 0) -> Iterator[str]:
    """Stream stories of `split` ("train", "valid"; "shapes" for the bundled corpus) from a corpus, at most n.

    `seed` selects the bundled stream; files are read in their own order.
    Errors in the spec are raised here, before the first story is read.
    """
    kind, arg = parse_corpus(corpus)
    if split == "shapes" and kind != "bundled":
        raise SpecDecError(f"only the bundled corpus has a 'shapes' split (held-out plot shapes), not {corpus!r}")
    split = split if split == "shapes" else normalise_split(split)
    if n is not None and (not isinstance(n, int) or n < 0):
        raise SpecDecError(f"n must be a non-negative integer or None, got {n!r}")
    if kind == "bundled":
        return iter_stories(split, n, seed, **arg)
    if kind == "hub":
        return iter_hub(split, n, arg)
    from .tinystories import split_files

    split_files(arg, split)  # validate eagerly: a bad directory fails at the call, not mid-training
    return iter_path(arg, split, n)
