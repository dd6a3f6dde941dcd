"""Speculative decoding is lossless: StoryLM-1M drafts for StoryLM-5M, token for token plain greedy.

On every prompt the speculative continuation must equal the target's own
greedy continuation; SpecStats shows what the drafter bought on the way
(target passes saved). For the clock, run `python -m bench`.

    python examples/lossless_ladder.py            # 5 prompts, 120 tokens, k=4
    python examples/lossless_ladder.py --quick    # 2 prompts, 24 tokens
"""

import argparse
import sys

from mlx_specdec import SpecStats, greedy_generate, load, speculative_generate
from mlx_specdec.cli.common import run_main
from mlx_specdec.data.prompts import prompt_texts


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default="storylm-5m")
    p.add_argument("--drafter", default="storylm-1m")
    p.add_argument("-k", type=int, default=4, help="draft tokens per round")
    p.add_argument("--quick", action="store_true", help="2 prompts, 24 tokens")
    args = p.parse_args(argv)
    prompts, n = (prompt_texts(2), 24) if args.quick else (prompt_texts(5), 120)

    target, tok = load(args.target)
    drafter, _ = load(args.drafter)
    total, lossless = SpecStats(), True
    for text in prompts:
        ids = tok.encode(text)
        plain = greedy_generate(target, ids, n, eos_id=tok.eos_token_id)
        spec, stats = speculative_generate(target, drafter, ids, n, k=args.k, eos_id=tok.eos_token_id)
        lossless &= spec == plain
        total.add(stats)
        print(f"{text}\n  {tok.decode(spec)[:160]}\n  identical to plain greedy: {'yes' if spec == plain else 'NO'}; "
              f"{stats.generated} tokens in {stats.target_passes} target passes\n")
    print(f"{total.generated} tokens in {total.target_passes} target passes ({total.tokens_per_pass:.2f} per pass), "
          f"acceptance {total.acceptance_rate:.1%}")
    print("LOSSLESS: every output identical to plain greedy" if lossless else "MISMATCH: speculative output differs")
    return 0 if lossless else 1


if __name__ == "__main__":
    sys.exit(run_main(main))
