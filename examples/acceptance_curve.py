"""Exercise 2: the acceptance curve: tokens per target pass over k in {1, 2, 4, 8}.

For every drafter available for the target (smaller ladder models, the
target's MTP head, prompt lookup) this sweeps k and prints tokens per target
pass, acceptance rate and mean accepted drafts per round. Where does a bigger
block stop paying? (Tokens per pass only; the clock is wall_clock.py's job.)

    python examples/acceptance_curve.py                    # 5 prompts, 100 tokens
    python examples/acceptance_curve.py --plot curve.png   # also a PNG (needs matplotlib)
    python examples/acceptance_curve.py --quick            # 2 prompts, 24 tokens, k in {1, 4}
"""

import argparse
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (first: binds a fast BLAS before mlx.core on Linux)
from mlx_specdec import SpecDecError, SpecStats, load, speculative_generate

MODELS = Path(__file__).resolve().parents[1] / "models"
LADDER = ["storylm-1m", "storylm-5m", "storylm-30m"]
PROMPTS = [
    "Once upon a time, there was a little girl named Molly.",
    "Sam and his little sister went to the park on a sunny morning.",
    "The old cat sat by the window and watched the rain fall.",
    "Lily found a small red box under her bed.",
    "One day, a brave little duck wanted to swim across the big lake.",
]


def drafters_for(target, tok, target_path: Path, extra: list[str]) -> dict:
    """name -> a factory returning a fresh drafter (a model, or a Drafter object)."""
    out = {}
    names = [Path(p) for p in extra] or [
        MODELS / n for n in LADDER[: LADDER.index(target_path.name)] if target_path.name in LADDER
    ]
    for path in names:
        if (path / "model.safetensors").is_file():
            model, _ = load(path)
            out[path.name] = lambda m=model: m
    head_path = target_path.with_name(target_path.name + "-mtp")
    try:
        from mlx_specdec.mtp import MTPDrafter, load_head

        if head_path.is_dir():
            head = load_head(head_path, target, tok)
            out[f"MTP head ({head_path.name})"] = lambda: MTPDrafter(head)
        else:
            print(f"(no MTP head at {head_path}: train one with examples/train_mtp_head.py)")
    except ImportError:
        print("(mlx_specdec.mtp is not available: no MTP drafter)")
    try:
        from mlx_specdec.drafters import PromptLookupDrafter

        out["prompt lookup"] = PromptLookupDrafter
    except ImportError:
        pass
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default=str(MODELS / "storylm-5m"))
    p.add_argument("--drafter", action="append", default=[], help="drafter model folder (repeatable)")
    p.add_argument("--max-tokens", type=int, default=100)
    p.add_argument("--plot", default=None, help="write the curve to this PNG")
    p.add_argument("--quick", action="store_true", help="2 prompts, 24 tokens, k in {1, 4}")
    args = p.parse_args(argv)
    prompts, n, ks = (PROMPTS[:2], 24, [1, 4]) if args.quick else (PROMPTS, args.max_tokens, [1, 2, 4, 8])

    target, tok = load(args.target)
    drafters = drafters_for(target, tok, Path(args.target), args.drafter)
    print(f"target {Path(args.target).name}, {len(prompts)} prompts x {n} tokens (greedy, no EOS stop)\n")
    print(f"{'drafter':<28} {'k':>2} {'tokens/pass':>11} {'acceptance':>10} {'E[accepted]':>11}")
    curves = {}
    for name, make in drafters.items():
        for k in ks:
            total = SpecStats()
            for text in prompts:
                _, s = speculative_generate(target, make(), tok.encode(text), n, k=k)
                for key in ("target_passes", "drafted", "accepted", "generated"):
                    setattr(total, key, getattr(total, key) + getattr(s, key))
            curves.setdefault(name, []).append((k, total.tokens_per_pass))
            print(f"{name:<28} {k:>2} {total.tokens_per_pass:>11.2f} {total.acceptance_rate:>10.1%} "
                  f"{total.accepted / total.target_passes:>11.2f}")
    print("\nextra tokens per pass bought by each extra draft (it pays only while this exceeds the drafter's cost c):")
    for name, pts in curves.items():
        steps = [f"k {k0}->{k1}: {(t1 - t0) / (k1 - k0):+.2f}" for (k0, t0), (k1, t1) in zip(pts, pts[1:])]
        print(f"  {name}: {', '.join(steps) or '-'}")

    if args.plot:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot (pip install 'mlx-specdec[plot]')")
            return 0
        fig, ax = plt.subplots(figsize=(5.5, 3.8))
        for name, pts in curves.items():
            ax.plot([k for k, _ in pts], [t for _, t in pts], "o-", label=name)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("k (draft tokens per round)")
        ax.set_ylabel("tokens per target pass")
        ax.set_title(f"acceptance curve, target {Path(args.target).name}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=100)
        print(f"wrote {args.plot}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SpecDecError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
