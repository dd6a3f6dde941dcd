"""`mlx-specdec eagle`: EAGLE-3 drafters for a chat target, trained on this machine.

    mlx-specdec eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat
    mlx-specdec eagle train --base models/real/smollm2-135m-instruct --corpus runs/smollm2-chat \\
        --out models/smollm2-135m-eagle3 --time-budget-min 60
    mlx-specdec generate --model models/real/smollm2-135m-instruct --draft-model models/smollm2-135m-eagle3

    mlx-specdec eagle export models/smollm2-135m-eagle3 --layout speculators --out /tmp/smollm2-eagle3-speculators

`corpus` writes the target's own greedy answers to the project's instruction set (run it again to finish an
interrupted one); `train` trains the drafter on them (resumable: --resume; Ctrl-C saves a checkpoint); `export`
writes a drafter in a published layout, for vLLM or SGLang.
"""

from __future__ import annotations

import sys

from .common import Parser, add_config_flags, given_flags, number, run_main

PROG = "mlx-specdec eagle"


def parser() -> Parser:
    from ..training.chat_corpus import ChatCorpusConfig
    from ..training.eagle3 import Eagle3TrainConfig

    p = Parser(prog=PROG, description="EAGLE-3 drafters.", epilog=__doc__.split("\n\n", 2)[2])
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("corpus", help="a chat target's own answers to the instruction set")
    d = ChatCorpusConfig(target="", out="")
    c.add_argument("--target", required=True, help="the chat target's folder")
    c.add_argument("--out", required=True, help="the corpus folder to write (or finish)")
    c.add_argument("--limit", type=number(int, low=1), default=None, help="answer only the first N train instructions")
    for name in ("valid", "max_new", "batch_size"):
        c.add_argument("--" + name.replace("_", "-"), type=number(int, low=1), default=getattr(d, name),
                       help="(default: %(default)s)")
    c.add_argument("--temp", type=number(float, low=0.0), default=d.temp,
                   help="sample the answers at this temperature (default: 0, greedy)")
    c.add_argument("--seed", type=number(int, low=0), default=d.seed, help="the sampled answers' draw (default: 0)")
    c.add_argument("--overwrite", action="store_true", help="replace a corpus made with other settings")
    c.add_argument("--quiet", action="store_true")
    e = sub.add_parser("export", help="a drafter folder in a published layout (vLLM Speculators, EAGLE/SpecForge)")
    e.add_argument("drafter", help="an EAGLE-3 drafter folder (mlx-specdec eagle train)")
    e.add_argument("--layout", required=True, choices=("speculators", "eagle"))
    e.add_argument("--out", required=True, help="a new folder")
    add_config_flags(sub.add_parser("train", help="train a drafter on a corpus, its target frozen"), Eagle3TrainConfig,
                     helps={"base": "the target's folder (frozen)",
                            "corpus": "a chat corpus folder (mlx-specdec eagle corpus), or several: a,b",
                            "valid_corpus": "validate on this corpus's valid split (default: --corpus's first)",
                            "init": "start from this EAGLE-3 drafter (its weights, architecture and draft "
                                    "vocabulary), not from the target's head",
                            "out": "the drafter folder written at the end"})
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    return run_main(_main, args, argv)


def _main(args, argv) -> int:
    if args.command == "corpus":
        from ..training.chat_corpus import ChatCorpusConfig, write_corpus

        write_corpus(ChatCorpusConfig(target=args.target, out=args.out, limit=args.limit, valid=args.valid,
                                      max_new=args.max_new, batch_size=args.batch_size, temp=args.temp, seed=args.seed,
                                      overwrite=args.overwrite,
                                      quiet=args.quiet))
        return 0
    if args.command == "export":
        from ..models.eagle3_store import load_eagle3
        from ..models.eagle3_layouts import write_published

        print(write_published(load_eagle3(args.drafter), args.out, args.layout))
        return 0
    from ..training.eagle3 import Eagle3TrainConfig, train

    train(Eagle3TrainConfig(**given_flags(args, Eagle3TrainConfig)), invocation=f"{PROG} " + " ".join(argv))
    return 0
