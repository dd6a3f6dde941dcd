"""`python -m mlx_specdec.train`: train a StoryLM preset, or the ladder, or report store models' valid loss.

    python -m mlx_specdec.train --preset storylm-5m --out models/storylm-5m --time-budget-min 30
    python -m mlx_specdec.train --ladder --out models
    python -m mlx_specdec.train --evaluate models/storylm-1m models/storylm-5m
"""

from __future__ import annotations

import sys

from ..training.storylm import (PRESET_DEFAULTS, PROG, TrainConfig, evaluate_models, preset_overrides, train,
                                train_ladder)
from .common import Parser, add_config_flags, given_flags, run_main


def parse_args(argv=None):
    p = Parser(prog=PROG, description=__doc__.splitlines()[0].split(": ", 1)[1])
    by_preset = {k for d in PRESET_DEFAULTS.values() for k in d}
    add_config_flags(p, TrainConfig, {k: "per --preset" for k in by_preset})
    p.add_argument("--ladder", action="store_true", help="train the --ladder-presets in turn on one shared tokenizer")
    p.add_argument("--ladder-presets", default="storylm-1m,storylm-5m,storylm-30m",
                   help="comma-separated presets for --ladder (default: %(default)s)")
    p.add_argument("--evaluate", nargs="+", metavar="MODEL",
                   help="only report these store folders' held-out losses: the corpus's valid split (--corpus, "
                        "--valid-stories, --seq-len), the held-out plot shapes and the hand-written yardstick")
    return p, p.parse_args(argv)


def main(argv=None) -> int:
    _, args = parse_args(argv)
    invocation = " ".join([PROG] + list(sys.argv[1:] if argv is None else argv))
    return run_main(_main, args, invocation)


def _main(args, invocation: str) -> int:
    given = given_flags(args, TrainConfig)
    if args.evaluate:
        res = evaluate_models(args.evaluate, given.get("corpus", "bundled"), given.get("valid_stories", 2000),
                              given.get("seq_len", 256), given.get("data_seed", 0))
        for r in res:
            shapes = f", held-out shapes {r['shapes_loss']:.4f}" if "shapes_loss" in r else ""
            print(f"{r['model']}: {r['parameters']:,} parameters, valid loss {r['valid_loss']:.4f} "
                  f"(perplexity {r['perplexity']:.3f}) on {r['targets']:,} held-out targets{shapes}, "
                  f"hand-written yardstick {r['yardstick_loss']:.4f} on {r['yardstick_targets']:,} targets")
    elif args.ladder:
        train_ladder(TrainConfig(**given), args.ladder_presets.split(","), given.get("out", "models"), set(given),
                     invocation)
    else:
        name = given.get("preset", TrainConfig.preset)
        over = preset_overrides(name, given)
        train(TrainConfig(**{**over, **given}), invocation=invocation)
    return 0
