"""The bundled corpus: every plot module, a shape-held-out split, and the story streams.

    iter_stories("train", 1000)    # training shapes and the written stories, training seeds
    iter_stories("valid", 1000)    # the same shapes, other seeds
    iter_stories("shapes", 1000)   # only the held-out shapes: plots no model trains on

A plot module (stories, plots_nature, plots_home, plots_town, plots_wonder)
contributes plot functions; a plot's *shape* is its name without ``plot_``.
About one shape in eight is held out of training for good: a shape is held
out when the first byte of the SHA-1 of its name is divisible by 8, so the
rule depends on the name alone and adding plots never moves an existing
shape between splits. A model that memorised its training shapes does well
on "valid" and badly on "shapes"; the hand-written yardstick
(:mod:`mlx_specdec.data.yardstick`) is the test no generator wrote.

The training split also draws about three stories in ten (WRITTEN_SHARE) from
the stories the team wrote as free prose (:mod:`mlx_specdec.data.written`);
valid and shapes are the generator's alone.

A training story can also be *retold* (RETELL_SHARE, default none): the story, a
request to tell it again, and the story once more: a lesson in copying a passage
it was shown, what a user asking for a rewrite or a quotation leans on and what
prompt-lookup drafting profits from. At retell=0.1 it has not been learned yet:
neither the 5M (1.5M tokens) nor the 30M (1M tokens) repeated a passage after
it (docs/experiments/2026-12-01-storylm-30m-third-stage.md). A retold story of
about 350 tokens often straddles two 256-token training rows, so ``passage=N``
retells only the story's leading whole sentences that fit in N words: a short
document whose two copies share a row; at retell=0.5,passage=40 the 1M did not
learn to copy in 0.5M tokens either (docs/experiments/2026-12-01-copying-and-probes.md).
Valid and shapes are never retold, so
their losses stay comparable across corpora.

Everything is deterministic: story i of split s is written from
``random.Random(f"{seed}:{s}:{i}")``, so the splits are disjoint seed streams
and any story can be regenerated alone.
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Callable, Iterator, Sequence

from ..errors import SpecDecError
from . import plots_home, plots_nature, plots_town, plots_wonder, stories
from .stories import Story, add_detail, count_sentences
from .written import written_stories

Plot = Callable[[Story], None]

MODULES = (stories, plots_nature, plots_home, plots_town, plots_wonder)
SHAPES: dict[str, Plot] = {fn.__name__.removeprefix("plot_"): fn for m in MODULES for fn in m.PLOTS}


def held_out(shape: str) -> bool:
    """True for the shapes no model trains on (about one in eight, fixed by the name)."""
    return hashlib.sha1(shape.encode()).digest()[0] % 8 == 0


HELDOUT_SHAPES: tuple[str, ...] = tuple(sorted(s for s in SHAPES if held_out(s)))
TRAIN_SHAPES: tuple[str, ...] = tuple(sorted(s for s in SHAPES if not held_out(s)))
SPLIT_SHAPES = {"train": TRAIN_SHAPES, "valid": TRAIN_SHAPES, "shapes": HELDOUT_SHAPES}
SPLITS = tuple(SPLIT_SHAPES)
# The share of training stories drawn from the written ones (data/written) instead of a plot.
WRITTEN_SHARE = 0.3
# The share of training stories told twice (story, a request to retell it, the story again); none by default.
RETELL_SHARE = 0.0
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
RETELL_REQUESTS = ("Tell the story again:", "Now tell it once more:", "Here is the same story again:",
                   "Can you tell it again?", "Tell me that story one more time:")


def retold(story: str, rng: random.Random, passage_words: int = 0) -> str:
    """A retelling document: the story, one of RETELL_REQUESTS, and the story word for word. With
    `passage_words`, only the story's leading sentences that fit in that many words (one at least) are
    told and retold: a short document, whose two halves sit in one training row."""
    if passage_words:
        story = story.strip()
        ends = [m.start() for m in _SENTENCE_END.finditer(story)] + [len(story)]
        cut = ends[0]  # the first sentence, however long
        for end in ends[1:]:
            if len(story[:end].split()) > passage_words:
                break
            cut = end
        story = story[:cut]
    return f"{story}\n\n{rng.choice(RETELL_REQUESTS)}\n{story}"


def generate_story(rng: random.Random, plots: Sequence[Plot] | None = None) -> str:
    """Write one story with `rng`, from one of `plots` (default: every training shape)."""
    plots = [SHAPES[s] for s in TRAIN_SHAPES] if plots is None else plots
    # A plot rarely overshoots the 3-15 sentence range; drawing again from the
    # same generator keeps the result a pure function of the seed.
    for _ in range(8):
        s = Story(rng)
        rng.choice(plots)(s)
        # short stories get a describing sentence or two, so most land in 80-200 words
        for _ in range(2):
            text = s.text()
            if len(text.split()) >= 85 or count_sentences(text) > 13 or "A" not in s.ctx:
                break
            add_detail(s)
        text = s.text()
        if 3 <= count_sentences(text) <= 15:
            return text
    return text


def iter_stories(split: str = "train", n: int | None = None, seed: int = 0,
                 written_share: float = WRITTEN_SHARE, retell_share: float = RETELL_SHARE,
                 passage_words: int = 0) -> Iterator[str]:
    """Stream bundled stories of `split` ("train", "valid" or "shapes"); n=None streams forever.
    In the train split, a story is one of the written stories with probability `written_share`, and
    is retold (`retold`, its leading `passage_words` words when that is not 0) with probability
    `retell_share`.

    Story i of a split is written from its own generator seeded with
    f"{seed}:{split}:{i}", so any story can be regenerated alone and the
    stream is the same however much of it is read.
    """
    if split not in SPLIT_SHAPES:
        raise SpecDecError(f"split must be one of {', '.join(SPLITS)}, got {split!r}")
    if not 0.0 <= written_share <= 1.0:
        raise SpecDecError(f"the written stories' share must be in [0, 1], got {written_share!r}")
    if not 0.0 <= retell_share <= 1.0:
        raise SpecDecError(f"the retold stories' share must be in [0, 1], got {retell_share!r}")
    if isinstance(passage_words, bool) or not isinstance(passage_words, int) or passage_words < 0:
        raise SpecDecError(f"the retold passage's length must be a whole number of words >= 0, got {passage_words!r}")
    plots = [SHAPES[s] for s in SPLIT_SHAPES[split]]
    return _stream(split, plots, n, seed, written_share, retell_share, passage_words)


def _stream(split: str, plots: list[Plot], n: int | None, seed: int, share: float,
            retell: float, passage_words: int) -> Iterator[str]:
    train = split == "train"
    written = written_stories() if train else ()
    i = 0
    while n is None or i < n:
        rng = random.Random(f"{seed}:{split}:{i}")
        if written and rng.random() < share:
            text = written[rng.randrange(len(written))]
        else:
            text = generate_story(rng, plots)
        if train and retell:
            # its own generator, so a corpus without retellings is this one with them taken out
            told = random.Random(f"{seed}:{split}:{i}:retell")
            if told.random() < retell:
                text = retold(text, told, passage_words)
        yield text
        i += 1
