"""Stories written by the project's writers for training (not generated).

The generator's plots are templates, however many; these ~3,900 stories are
free prose in the same register (simple words, one small arc, dialogue),
written for mlx-specdec in November and December 2026 by the team's writing
agents (language models working as members of the team), one file per theme,
under the project's licence (MIT). set1-set12 (1,071 stories) came first;
set13-set24 (1,670, themes from school days to silly cumulative tales, with
varied openings, sentence forms and names) were added on 2026-12-01 so that a
30M model is not fed the same few stories many times over; set25-set32 (1,164,
weather, water, town helpers, night, feelings, making things, family, small
creatures) later the same day, once a 5M trained longer on set1-set24 had come
within 0.05 nats of the 30M on the yardstick. Each new set was cleaned by a
script before it was added: stories outside 40-300 words, duplicates, any
sharing an 8-word sequence with the yardstick, and any sharing more than three
with an earlier written story were dropped (36 of 1,200; none was edited). They are part of
the bundled corpus's training split only (`data.generator`), drawn for about
three training stories in ten (`generator.WRITTEN_SHARE`; `bundled:written=S`
sets the share). They were written without sight of the hand-written
yardstick (`data/yardstick/`), and a test checks that no written story shares
an 8-word sequence with it (the ten new stories that did were dropped, not
edited).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from importlib import resources

from ..yardstick import parse_stories

__all__ = ["written_stories", "written_digest"]


@lru_cache(maxsize=1)
def written_stories() -> tuple[str, ...]:
    """Every written story, file by file (sorted names), in file order."""
    folder = resources.files(__name__)
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".txt")), key=lambda f: f.name)
    return tuple(s for f in files for s in parse_stories(f.read_text(encoding="utf-8")))


@lru_cache(maxsize=1)
def written_digest() -> str:
    """A short digest of every written story: part of a bundled corpus's token-cache key, so a cache
    tokenized before stories were added (or edited) is not reused."""
    return hashlib.sha256("\n---\n".join(written_stories()).encode("utf-8")).hexdigest()[:16]
