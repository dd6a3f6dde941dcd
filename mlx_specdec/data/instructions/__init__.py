"""Chat instructions for self-distillation and held-out chat benchmarks.

    from mlx_specdec.data import instructions
    train = instructions.load("train")      # requests a chat model answers; a drafter learns the answers
    held = instructions.load("heldout")     # never trained on: benchmark prompts
    instructions.load()                     # everything ("all")

The set (instructions.jsonl, one JSON object a line: ``{"id", "category", "text"}``) holds
1,245 hand-written English chat requests in fourteen categories, CATEGORIES. Nine are
free-form (factual questions, explanations, how-tos, stories, lists, small programming
tasks, arithmetic word problems, advice, comparisons); the five in COPY_HEAVY carry the
passage or data block they work on inside the request (rewrite in another style, correct
deliberate mistakes, convert a format, summarise, repeat with one change), so much of a
good answer is copied from the prompt. Ids are ``<category>-<nnnn>`` and never change
meaning: edits that change the set on purpose bump VERSION.

The split is fixed by the id alone: an instruction is held out when
``int(sha256(id).hexdigest(), 16) % 10 == 0`` (about one in ten, roughly so in each category), so
adding instructions never moves an old one from one side to the other. See README.md for
the counts and for who wrote the text.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ...errors import SpecDecError

__all__ = ["FILE", "VERSION", "CATEGORIES", "COPY_HEAVY", "SPLITS", "load", "is_heldout", "heldout_ids"]

FILE = Path(__file__).with_name("instructions.jsonl")
VERSION = 1
CATEGORIES: tuple[str, ...] = ("question", "explain", "howto", "story", "list", "code", "arithmetic", "advice",
                               "compare", "rewrite", "correct", "convert", "summarise", "copy-edit")
COPY_HEAVY: tuple[str, ...] = ("rewrite", "correct", "convert", "summarise", "copy-edit")
SPLITS: tuple[str, ...] = ("train", "heldout", "all")


def is_heldout(instruction_id: str) -> bool:
    """True for the ids of the held-out split: sha256 of the id, read as an integer, is 0 mod 10."""
    return int(hashlib.sha256(instruction_id.encode("utf-8")).hexdigest(), 16) % 10 == 0


def _read() -> list[dict]:
    if not FILE.is_file():
        raise SpecDecError(f"instruction file {FILE} is missing; expected it beside {Path(__file__).name}")
    rows = []
    with FILE.open(encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise SpecDecError(f"{FILE.name} line {n} is not JSON ({e.msg}); expected one object a line") from None
            if not isinstance(row, dict) or set(row) != {"id", "category", "text"}:
                raise SpecDecError(f"{FILE.name} line {n} has keys {sorted(row) if isinstance(row, dict) else row!r}; "
                                   f"expected exactly id, category and text")
            rows.append(row)
    return rows


def load(split: str = "all") -> list[dict]:
    """The instructions of one split ("train", "heldout" or "all"), in file order, as fresh dicts
    with the keys id, category and text."""
    if split not in SPLITS:
        raise SpecDecError(f"unknown instruction split {split!r}; expected one of {', '.join(SPLITS)}")
    rows = _read()
    if split == "all":
        return rows
    want = split == "heldout"
    return [row for row in rows if is_heldout(row["id"]) == want]


def heldout_ids() -> frozenset[str]:
    """The ids of the held-out split."""
    return frozenset(row["id"] for row in load("heldout"))
