"""Exercise 5: self-speculation with the MTP head, against a separate drafter.

First the five-line loop: mtp_propose gives the base's next token and the
head's guess for the one after it, one target pass verifies both with
greedy_verify. Recompute everywhere (no cache): it is the reference, not the
fast path, and it spends a trunk pass on proposing. Then the engine's
MTPDrafter, which drafts from the hidden states of the verification pass
itself (no extra trunk pass), compared with StoryLM-1M at the same k.

    python examples/self_speculation.py            # 4 prompts x 80 tokens
    python examples/self_speculation.py --quick    # 2 prompts x 16 tokens
"""

import argparse
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (first: binds a fast BLAS before mlx.core on Linux)
import mlx.core as mx
from mlx_specdec import SpecDecError, SpecStats, greedy_generate, greedy_verify, load, speculative_generate

MODELS = Path(__file__).resolve().parents[1] / "models"
PROMPTS = [
    "Once upon a time, there was a little girl named Molly.",
    "Sam and his little sister went to the park on a sunny morning.",
    "The old cat sat by the window and watched the rain fall.",
    "Lily found a small red box under her bed.",
]


def five_line_loop(target, head, mtp_propose, prompt, n):
    """Greedy self-speculation by recompute; returns (ids, rounds, head drafts accepted)."""
    out, rounds, head_hits = [], 0, 0
    while len(out) < n:
        ctx = prompt + out
        drafts = mtp_propose(target, head, ctx)  # [base's next token, head's guess after it]
        logits = target(mx.array(ctx + drafts)[None])[0, -3:]  # rows predicting d1, d2 and the bonus
        accepted, token = greedy_verify(mx.array(drafts), logits)
        out += drafts[:accepted] + [token]
        rounds, head_hits = rounds + 1, head_hits + (accepted == 2)
    return out[:n], rounds, head_hits


def totals(runs) -> SpecStats:
    total = SpecStats()
    for s in runs:
        for key in ("target_passes", "drafted", "accepted", "generated"):
            setattr(total, key, getattr(total, key) + getattr(s, key))
    return total


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default=str(MODELS / "storylm-5m"))
    p.add_argument("--head", default=None, help="MTP head folder (default <target>-mtp)")
    p.add_argument("--drafter", default=str(MODELS / "storylm-1m"), help="separate drafter to compare with")
    p.add_argument("--max-tokens", type=int, default=80)
    p.add_argument("--quick", action="store_true", help="2 prompts x 16 tokens")
    args = p.parse_args(argv)
    try:
        from mlx_specdec.mtp import MTPDrafter, load_head, mtp_propose
    except ImportError as e:
        print(f"skipped: mlx_specdec.mtp is not available here ({e})")
        return 0
    head_path = Path(args.head) if args.head else Path(args.target).with_name(Path(args.target).name + "-mtp")
    prompts, n = (PROMPTS[:2], 16) if args.quick else (PROMPTS, args.max_tokens)

    target, tok = load(args.target)
    head = load_head(head_path, target, tok)
    prompt_ids = [tok.encode(t) for t in prompts]

    rounds = hits = 0
    same = True
    for ids in prompt_ids:
        out, r, h = five_line_loop(target, head, mtp_propose, ids, n)
        same &= out == greedy_generate(target, ids, n)
        rounds, hits = rounds + r, hits + h
    print(f"five-line loop (mtp_propose + greedy_verify, recompute): identical to plain greedy: {'yes' if same else 'NO'}")
    per_round = len(prompt_ids) * n / rounds
    print(f"  head's extra token accepted in {hits}/{rounds} rounds ({hits / rounds:.1%}); {per_round:.2f} tokens per "
          f"round, and a round costs two trunk passes (propose + verify): {per_round / 2:.2f} tokens per trunk pass\n")

    drafter, _ = load(args.drafter) if Path(args.drafter).exists() else (None, None)
    depth = head.config.depth
    print(f"engine, greedy, {len(prompt_ids)} prompts x {n} tokens (the head drafts at most {depth} per round):")
    print(f"{'drafter':<24} {'k':>2} {'tokens/pass':>11} {'acceptance':>10} {'E[accepted]':>11}")
    for k in range(1, depth + 1):
        rows = [("MTP head", lambda: MTPDrafter(head))]
        if drafter is not None:
            rows.append((Path(args.drafter).name, lambda: drafter))
        for name, make in rows:
            t = totals(speculative_generate(target, make(), ids, n, k=k)[1] for ids in prompt_ids)
            print(f"{name:<24} {k:>2} {t.tokens_per_pass:>11.2f} {t.acceptance_rate:>10.1%} "
                  f"{t.accepted / t.target_passes:>11.2f}")
    if drafter is None:
        print(f"(no separate drafter at {args.drafter}: nothing to compare with)")
    return 0 if same else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SpecDecError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
