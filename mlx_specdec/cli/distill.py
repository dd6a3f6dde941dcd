"""`python -m mlx_specdec.distill`: a drafter's training corpus written by its target (sequence-level distillation).

    python -m mlx_specdec.distill --target models/storylm-5m --out runs/distill-storylm-5m
    python -m mlx_specdec.train --preset storylm-1m --init-from models/storylm-1m \\
        --corpus runs/distill-storylm-5m --no-yardstick --out models/storylm-1m-distilled

Run it again with the same flags to finish an interrupted corpus.
"""

from __future__ import annotations

import argparse
import sys

from ..training.distill import PROG, DistillConfig, write_corpus
from .common import Parser, number, run_main


def parse_args(argv=None):
    d = DistillConfig(target="", out="")
    p = Parser(prog=PROG, description=__doc__.splitlines()[0].split(": ", 1)[1],
               epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--target", required=True, help="the target's store folder (a StoryLM or hybrid)")
    p.add_argument("--out", required=True, help="the corpus folder to write (or finish)")
    p.add_argument("--corpus", default=d.corpus, help="where the story openings come from (default: %(default)s)")
    for name, low in (("train_stories", 1), ("valid_stories", 1), ("min_prompt", 2), ("max_prompt", 2),
                      ("new_tokens", 1), ("batch_size", 1), ("seed", 0)):
        p.add_argument("--" + name.replace("_", "-"), type=number(int, low=low), default=getattr(d, name),
                       help="(default: %(default)s)")
    p.add_argument("--temperature", type=number(float, low=0.0), default=d.temperature,
                   help="0 writes the target's greedy continuations (default: %(default)s)")
    p.add_argument("--overwrite", action="store_true", help="replace a corpus made with other settings")
    p.add_argument("--quiet", action="store_true")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    return run_main(_main, args)


def _main(args) -> int:
    write_corpus(DistillConfig(**vars(args)))
    return 0
