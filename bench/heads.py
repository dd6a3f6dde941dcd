"""`python -m bench.heads`: an MTP head drafting for its own base, depth by depth.

    python -m bench.heads --base models/storylm-5m --head models/storylm-5m-mtp
    python -m bench.heads --base models/storylm-5m --head models/storylm-5m-mtp --save   # bench.json + the card
    python -m bench.heads --head models/storylm-5m-mtp --render   # only re-render the card from bench.json

Plain greedy against self-speculation at each depth on held-out prompts, with
the acceptance at each draft position; every output is checked equal to plain
greedy. With --save the result becomes the head folder's bench.json and the
card's measured section is rendered from it (models.head_store.save_bench).
"""

from __future__ import annotations

import sys

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)
import numpy as np

from mlx_specdec.drafters import MTPDrafter, acceptance_by_depth
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import SpecStats, plain_stream, speculative_stream

from .systems import synchronised

PROG = "python -m bench.heads"


def heldout_prompts(tok, n: int, prompt_tokens: int, seed: int = 0) -> list[list[int]]:
    """The first `prompt_tokens` ids of held-out (valid split) bundled stories."""
    from mlx_specdec.data import iter_texts

    out = []
    for text in iter_texts("bundled", "valid", n=4 * n, seed=seed):
        ids = tok.encode(text, bos=True)
        if len(ids) > prompt_tokens:
            out.append(ids[:prompt_tokens])
        if len(out) == n:
            break
    return out


def bench(base, tok, head, *, prompts: int = 10, prompt_tokens: int = 30, max_tokens: int = 100,
          depths=(1, 2, 3), repeats: int = 3, strategy: str = "auto", log=print) -> dict:
    """Plain greedy vs MTP self-speculation at each depth on held-out prompts.

    Every timed run is synchronised. Modes are interleaved (prompt, repeat,
    mode) so that load from other processes falls on all of them alike; per
    prompt and mode the median of `repeats` runs is kept, and tokens/s sums
    tokens and median seconds over prompts.
    """
    from mlx_specdec.training.loop import machine

    ps = heldout_prompts(tok, prompts, prompt_tokens)
    eos = tok.eos_id
    modes = ["plain greedy"] + [f"MTP depth {d}" for d in depths]
    drafters = {f"MTP depth {d}": (d, MTPDrafter(head, max_depth=d)) for d in depths}

    def run(mode, p, stats=None):
        if mode not in drafters:
            return list(plain_stream(base, p, max_tokens, eos_id=eos, strategy=strategy))
        d, drafter = drafters[mode]
        return [t for e in speculative_stream(base, drafter, p, max_tokens, k=d, eos_id=eos, strategy=strategy,
                                              stats=stats) for t in e.ids]

    def timed(mode, p):
        return synchronised(lambda: run(mode, p))[1]

    for p in ps[:2]:  # warm-up: compile the head graphs and the trunk's shapes
        for mode in modes:
            run(mode, p)
    acc = {m: dict(stats=SpecStats(), rounds=[], identical=True, tokens=0, seconds=0.0) for m in modes}
    for p in ps:
        reference = run("plain greedy", p)
        for mode in modes:
            a, s = acc[mode], SpecStats()
            ids = run(mode, p, s)
            a["identical"] &= ids == reference
            a["tokens"] += len(ids)
            if mode in drafters:
                a["rounds"] += drafters[mode][1].rounds
                a["stats"].add(s)
        times = {m: [] for m in modes}
        for _ in range(repeats):
            for mode in modes:
                times[mode].append(timed(mode, p))
        for mode in modes:
            acc[mode]["seconds"] += float(np.median(times[mode]))
    plain_tps = acc["plain greedy"]["tokens"] / acc["plain greedy"]["seconds"]
    rows = []
    for mode in modes:
        a = acc[mode]
        tps = a["tokens"] / a["seconds"]
        row = dict(mode=mode, tokens_per_s=tps, speedup=tps / plain_tps, identical=a["identical"],
                   generated=a["tokens"], seconds=a["seconds"])
        if mode in drafters:
            st = a["stats"]
            row.update(tokens_per_pass=st.tokens_per_pass, acceptance_rate=st.acceptance_rate,
                       by_depth=acceptance_by_depth(a["rounds"], drafters[mode][0]),
                       **{k: getattr(st, k) for k in ("target_passes", "drafted", "accepted")})
        else:
            row.update(tokens_per_pass=1.0, acceptance_rate=None)
        rows.append(row)
        log(f"{mode}: {row['tokens_per_pass']:.2f} tokens/pass, {tps:.1f} tokens/s ({row['speedup']:.2f}x), "
            f"identical={a['identical']}")
    return dict(prompts=len(ps), prompt_tokens=prompt_tokens, max_tokens=max_tokens, repeats=repeats,
                strategy=strategy, machine=machine(), rows=rows)


def parser():
    from mlx_specdec.cli.common import Parser, number

    positive = number(int, low=1)
    p = Parser(prog=PROG, description=__doc__.splitlines()[0].split(": ", 1)[1])
    p.add_argument("--base", default="models/storylm-5m")
    p.add_argument("--head", default="models/storylm-5m-mtp")
    p.add_argument("--prompts", type=positive, default=10)
    p.add_argument("--prompt-tokens", type=positive, default=30)
    p.add_argument("--max-tokens", type=positive, default=100)
    p.add_argument("--repeats", type=positive, default=3)
    p.add_argument("--depths", default="1,2,3")
    p.add_argument("--save", action="store_true", help="write bench.json into the head folder and re-render its card")
    p.add_argument("--render", action="store_true",
                   help="run nothing: re-render the card's measured section from the head folder's committed bench.json")
    return p


def main(argv=None) -> int:
    from mlx_specdec.cli.common import run_main

    argv = list(sys.argv[1:] if argv is None else argv)
    return run_main(_main, parser().parse_args(argv), argv)


def _main(args, argv) -> int:
    from pathlib import Path

    from mlx_specdec.console import print_summary
    from mlx_specdec.models.folders import check_writable
    from mlx_specdec.models.folders import write_text_atomic
    from mlx_specdec.models.head_store import CARD, load_base_and_head, render_measured, save_bench

    if args.render:
        card = Path(args.head) / CARD
        write_text_atomic(card, render_measured(args.head))
        print(f"re-rendered {card} from {Path(args.head) / 'bench.json'}")
        return 0

    try:
        depths = tuple(int(d) for d in args.depths.split(","))
    except ValueError:
        raise SpecDecError(f"--depths must be comma-separated integers, got {args.depths!r}") from None
    if not depths or min(depths) < 1:
        raise SpecDecError(f"--depths must be integers >= 1, got {args.depths!r}")
    if args.save:  # before the run, not after it: the results would be lost
        check_writable(Path(args.head), flag="--head")
    base, tok, head = load_base_and_head(args.base, args.head)
    result = bench(base, tok, head, prompts=args.prompts, prompt_tokens=args.prompt_tokens,
                   max_tokens=args.max_tokens, depths=depths, repeats=args.repeats)
    result["command"] = f"{PROG} " + " ".join(argv)
    rows = []
    for r in result["rows"]:
        by = ", ".join(f"@{a['depth']} {a['rate']:.0%}" for a in r.get("by_depth", []))
        rows.append((r["mode"], f"{r['tokens_per_pass']:.2f} tokens/pass, {r['tokens_per_s']:.1f} tokens/s "
                                f"({r['speedup']:.2f}x), equal={r['identical']}" + (f", accept {by}" if by else "")))
    print_summary(rows, f"MTP self-speculation, {result['prompts']} held-out prompts")
    if args.save:
        save_bench(args.head, result)
    return 0 if all(r["identical"] for r in result["rows"]) else 1


if __name__ == "__main__":
    from mlx_specdec.cli.common import quiet_interrupts

    quiet_interrupts()
    sys.exit(main())
