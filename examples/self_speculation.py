"""Self-speculation with an MTP head: the five-line loop, then the engine's MTPDrafter.

First the loop by hand: `mtp_propose` gives the base's next token and the
head's guess for the one after it, one target pass verifies both with
`greedy_verify` (recompute, no cache: the reference, which spends a trunk
pass on proposing). Then the engine's `MTPDrafter`, which drafts from the
hidden states of the verification pass itself (no extra trunk pass).

    python examples/self_speculation.py            # 4 prompts x 80 tokens
    python examples/self_speculation.py --quick    # 2 prompts x 16 tokens
"""

import argparse
import sys

import mlx.core as mx

from mlx_specdec import SpecStats, greedy_generate, greedy_verify, load, speculative_generate
from mlx_specdec.cli.common import run_main
from mlx_specdec.data.prompts import prompt_texts
from mlx_specdec.loading import resolve_model_path
from mlx_specdec.mtp import MTPDrafter, load_head, mtp_propose


def five_line_loop(target, head, prompt, n):
    """Greedy self-speculation by recompute; returns the new ids and the number of rounds."""
    out, rounds = [], 0
    while len(out) < n:
        drafts = mtp_propose(target, head, prompt + out)  # [base's next token, head's guess after it]
        logits = target(mx.array(prompt + out + drafts)[None])[0, -3:]  # rows predicting d1, d2, the bonus
        accepted, token = greedy_verify(mx.array(drafts), logits)
        out, rounds = out + drafts[:accepted] + [token], rounds + 1
    return out[:n], rounds


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="storylm-5m")
    p.add_argument("--head", default="storylm-5m-mtp")
    p.add_argument("--quick", action="store_true", help="2 prompts x 16 tokens")
    args = p.parse_args(argv)
    prompts, n = (prompt_texts(2), 16) if args.quick else (prompt_texts(4), 80)

    target, tok = load(args.target)
    head = load_head(resolve_model_path(args.head) or args.head, target, tok)
    ids = [tok.encode(t) for t in prompts]
    same, rounds = True, 0
    for x in ids:
        out, r = five_line_loop(target, head, x, n)
        same, rounds = same and out == greedy_generate(target, x, n), rounds + r
    print(f"five-line loop: identical to plain greedy: {'yes' if same else 'NO'}; "
          f"{len(ids) * n / rounds:.2f} tokens per round of two trunk passes (propose + verify)")
    for k in range(1, head.config.depth + 1):
        total = SpecStats()
        for x in ids:
            new, stats = speculative_generate(target, MTPDrafter(head), x, n, k=k)
            same &= new == greedy_generate(target, x, n)
            total.add(stats)
        print(f"MTPDrafter k={k}: {total.tokens_per_pass:.2f} tokens per target pass, "
              f"acceptance {total.acceptance_rate:.1%}, identical to plain greedy: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(run_main(main))
