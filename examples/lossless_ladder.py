"""Exercise 1: speculative decoding is lossless on the real ladder.

StoryLM-1M drafts for StoryLM-5M. On every prompt the speculative text must be
byte-identical to plain greedy decoding of the target; the SpecStats show what
the drafter bought (target passes saved) on the way.

    python examples/lossless_ladder.py            # 5 prompts, 120 tokens, k=4
    python examples/lossless_ladder.py --quick    # 2 prompts, 24 tokens
"""

import argparse
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (first: binds a fast BLAS before mlx.core on Linux)
from mlx_specdec import SpecDecError, greedy_generate, load, speculative_generate

MODELS = Path(__file__).resolve().parents[1] / "models"
PROMPTS = [
    "Once upon a time, there was a little girl named Molly.",
    "Sam and his little sister went to the park on a sunny morning.",
    "The old cat sat by the window and watched the rain fall.",
    "Lily found a small red box under her bed.",
    "One day, a brave little duck wanted to swim across the big lake.",
]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default=str(MODELS / "storylm-5m"))
    p.add_argument("--drafter", default=str(MODELS / "storylm-1m"))
    p.add_argument("-k", type=int, default=4, help="draft tokens per round")
    p.add_argument("--max-tokens", type=int, default=120)
    p.add_argument("--quick", action="store_true", help="2 prompts, 24 tokens")
    args = p.parse_args(argv)
    prompts, n = (PROMPTS[:2], 24) if args.quick else (PROMPTS, args.max_tokens)

    target, tok = load(args.target)
    drafter, _ = load(args.drafter)
    eos = tok.eos_token_id
    print(f"{Path(args.drafter).name} drafts for {Path(args.target).name}, k={args.k}, up to {n} tokens\n")

    all_same = True
    total = {"target_passes": 0, "drafted": 0, "accepted": 0, "generated": 0}
    for text in prompts:
        ids = tok.encode(text)
        plain = greedy_generate(target, ids, n, eos_id=eos)
        spec, stats = speculative_generate(target, drafter, ids, n, k=args.k, eos_id=eos)
        same = tok.decode(spec).encode() == tok.decode(plain).encode() and spec == plain
        all_same &= same
        for key in total:
            total[key] += getattr(stats, key)
        print(f"prompt: {text}")
        print(f"  text: {tok.decode(spec)[:160]}")
        print(f"  identical to plain greedy: {'yes' if same else 'NO'} | {stats.generated} tokens in "
              f"{stats.target_passes} target passes ({stats.tokens_per_pass:.2f}/pass), "
              f"accepted {stats.accepted}/{stats.drafted} drafts ({stats.acceptance_rate:.0%})\n")

    g, t = total["generated"], total["target_passes"]
    print(f"all prompts: {g} tokens, {t} target passes (plain decoding needs {g}): {g / t:.2f} tokens per pass, "
          f"acceptance {total['accepted'] / max(total['drafted'], 1):.1%}")
    print("LOSSLESS: every output byte-identical to plain greedy" if all_same else "MISMATCH: speculative output differs")
    return 0 if all_same else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SpecDecError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
