"""`python -m mlx_specdec.mtp train`: train an MTP head on a frozen base (the flags of `mlx_specdec.train`).

    python -m mlx_specdec.mtp train --base models/storylm-5m --out models/storylm-5m-mtp --time-budget-min 13

Generate with a head through the one generation command, and measure it with the one harness:

    python -m mlx_specdec.generate --model models/storylm-5m --draft-model models/storylm-5m-mtp -k 3
    python -m bench.heads --base models/storylm-5m --head models/storylm-5m-mtp
"""

from __future__ import annotations

import sys

from ..training.mtp import MTPTrainConfig, train
from .common import Parser, add_config_flags, given_flags, run_main

PROG = "python -m mlx_specdec.mtp"


def parser() -> Parser:
    p = Parser(prog=PROG, description="Multi-token prediction heads.", epilog=__doc__.split("\n\n", 2)[2])
    sub = p.add_subparsers(dest="command", required=True)
    add_config_flags(sub.add_parser("train", help="train a head on a frozen base"), MTPTrainConfig)
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    return run_main(_main, args, argv)


def _main(args, argv) -> int:
    train(MTPTrainConfig(**given_flags(args, MTPTrainConfig)), invocation=f"{PROG} " + " ".join(argv))
    return 0
