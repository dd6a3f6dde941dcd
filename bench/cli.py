"""`python -m bench`: every system on the same models, one run, an honest report.

    python -m bench                 # full run (~10 min on a 2-core CPU): JSON + markdown + PNGs in the working directory
    python -m bench --quick         # smoke run (~1 min): 3 prompts, 32 tokens, k in {1, 4}, 1 repeat
    python -m bench --k 2,4 --repeats 5 --max-tokens 200 --out /tmp/bench
    python -m bench --target path/to/target --drafter path/to/drafter
    python -m bench --prompt-set copy --drafters lookup   # the copy-heavy prompts (results named ...-copy)
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

from mlx_specdec.errors import SpecDecError


def _ks(text: str) -> list[int]:
    try:
        ks = sorted({int(x) for x in text.split(",") if x.strip()})
    except ValueError:
        raise SpecDecError(f"--k must be a comma-separated list of integers, got {text!r}") from None
    if not ks or ks[0] < 1:
        raise SpecDecError(f"--k values must be integers >= 1, got {text!r}")
    return ks


def parser():
    import argparse

    from mlx_specdec.cli.common import Parser, number, path_name

    p = Parser(prog="python -m bench", description=__doc__.splitlines()[0],
               formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split("\n", 2)[2])
    p.add_argument("--quick", action="store_true", help="smoke mode: 3 prompts, 32 tokens, k in {1,4}, 1 repeat")
    p.add_argument("--out", default=".", help="output folder (default: the working directory)")
    p.add_argument("--repeats", type=int, default=None, help="timed repeats per system (default 3; quick 1)")
    p.add_argument("--max-tokens", type=int, default=None, help="new tokens per prompt (default 96; quick 32)")
    p.add_argument("--k", default=None, help="draft lengths, comma-separated (default 1,2,4,8; quick 1,4)")
    p.add_argument("--prompts", type=int, default=None, help="use the first N prompts (default all; quick 3)")
    p.add_argument("--prompt-file", default=None, help="prompt set JSON (default: the versioned set in mlx_specdec/data/prompts.json)")
    p.add_argument("--prompt-set", choices=["stories", "copy"], default=None,
                   help="a shipped prompt set: 'stories' (held-out openings, the default) or 'copy' (a story, then a "
                        "request to tell it again: copy-heavy, where prompt lookup should shine)")
    p.add_argument("--temp", type=number(float), default=1.0, help="temperature of the sampled mode; 0 skips it (default 1.0)")
    p.add_argument("--target", default=None, help="target model (default: the largest shipped ladder model)")
    p.add_argument("--drafter", action="append", default=None,
                   help="drafter model folder (repeatable; default: every smaller shipped ladder model)")
    p.add_argument("--mtp-head", default=None, help="MTP head folder (default models/<target>-mtp)")
    p.add_argument("--drafters", default=None, help="drafter kinds to run, comma-separated from model,mtp,lookup")
    p.add_argument("--no-mlx-lm", action="store_true", help="skip mlx-lm's generators")
    p.add_argument("--no-profile", action="store_true",
                   help="skip the per-round profile (an untimed pass that synchronises at every phase boundary)")
    p.add_argument("--name", type=path_name, default=None,
                   help="result file stem, no path separators (default <date>-<machine>[-quick])")
    p.add_argument("--models-dir", default=None, help="where shipped models live (default ./models of the repo)")
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    from mlx_specdec.cli.common import run_main

    return run_main(_main, args, argv)


def _main(args, argv) -> int:
    import datetime

    from . import report
    from .run import QUICK, Settings, machine_name, run_benchmark

    settings = Settings(**QUICK, quick=True) if args.quick else Settings()
    if args.repeats is not None:
        if args.repeats < 1:
            raise SpecDecError(f"--repeats must be >= 1, got {args.repeats}")
        settings = replace(settings, repeats=args.repeats)
    if args.max_tokens is not None:
        if args.max_tokens < 2:
            raise SpecDecError(f"--max-tokens must be >= 2, got {args.max_tokens}")
        settings = replace(settings, max_tokens=args.max_tokens)
    if args.k is not None:
        settings = replace(settings, ks=_ks(args.k))
    if args.prompts is not None:
        if args.prompts < 1:
            raise SpecDecError(f"--prompts must be >= 1, got {args.prompts}")
        settings = replace(settings, n_prompts=args.prompts)
    if args.temp < 0:
        raise SpecDecError(f"--temp must be >= 0, got {args.temp}")
    settings = replace(settings, temperature=args.temp, with_mlx_lm=not args.no_mlx_lm, profile=not args.no_profile)
    only = [x.strip() for x in args.drafters.split(",")] if args.drafters else None
    if only:
        from .systems import DRAFTER_FACTORIES

        unknown = [x for x in only if x not in DRAFTER_FACTORIES]
        if unknown:
            raise SpecDecError(f"--drafters: unknown kind(s) {unknown}; expected some of {sorted(DRAFTER_FACTORIES)}")

    if args.temp > 0 and args.temp < 1e-4:
        raise SpecDecError(f"--temp {args.temp!r} is too small to sample with; use 0 to skip the sampled mode")
    prompt_file = args.prompt_file
    if args.prompt_set is not None:
        if prompt_file is not None:
            raise SpecDecError("--prompt-set and --prompt-file are exclusive: pass one of them")
        from mlx_specdec.data.prompts import prompt_set_file

        prompt_file = str(prompt_set_file(args.prompt_set))
    # Where the results go is checked before the run: after it, they would be lost.
    out = Path(args.out)
    name = args.name or (f"{datetime.date.today().isoformat()}-{machine_name()}" + ("-quick" if args.quick else "")
                         + ("-copy" if args.prompt_set == "copy" else ""))
    report.check_destination(out, name)

    result = run_benchmark(settings, target=args.target, drafters=args.drafter, mtp_head=args.mtp_head,
                           prompt_file=prompt_file, models_dir=args.models_dir, argv=argv, only=only,
                           prompt_set=args.prompt_set or ("stories" if prompt_file is None else None))
    paths = report.write(result, out, name)
    report.print_table(result)
    print(f"\nwrote {paths['json']}, {paths['markdown']}" + "".join(f", {p}" for p in paths["plots"]))
    bad = [r["name"] for r in result["rows"] if r["identical_to_plain_greedy"] is False]
    if bad:
        print(f"error: greedy output differs from plain greedy for {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0
