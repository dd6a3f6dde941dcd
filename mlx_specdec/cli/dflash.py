"""`mlx-specdec dflash`: block drafters (DFlash) for a chat target, trained on this machine.

    mlx-specdec eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat
    mlx-specdec dflash train --base models/real/smollm2-135m-instruct --corpus runs/smollm2-chat \\
        --out models/smollm2-135m-dflash --time-budget-min 45
    mlx-specdec generate --model models/real/smollm2-135m-instruct --draft-model models/smollm2-135m-dflash

`train` trains a block drafter on the EAGLE-3 trainer's corpus (resumable: --resume; Ctrl-C saves a checkpoint).
A drafter published in z-lab's DFlashDraftModel layout needs no command: pass its folder as --draft-model.
"""

from __future__ import annotations

import sys

from .common import Parser, add_config_flags, given_flags, run_main

PROG = "mlx-specdec dflash"


def parser() -> Parser:
    from ..training.dflash import DFlashTrainConfig

    p = Parser(prog=PROG, description="Block drafters (DFlash).", epilog=__doc__.split("\n\n", 2)[2])
    sub = p.add_subparsers(dest="command", required=True)
    add_config_flags(sub.add_parser("train", help="train a block drafter on a corpus, its target frozen"),
                     DFlashTrainConfig,
                     helps={"base": "the target's folder (frozen)",
                            "corpus": "a chat corpus folder (mlx-specdec eagle corpus)",
                            "out": "the drafter folder written at the end"})
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    return run_main(_main, args, argv)


def _main(args, argv) -> int:
    from ..training.dflash import DFlashTrainConfig, train

    train(DFlashTrainConfig(**given_flags(args, DFlashTrainConfig)), invocation=f"{PROG} " + " ".join(argv))
    return 0
