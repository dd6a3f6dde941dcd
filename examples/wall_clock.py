"""Exercise 3: the wall-clock honesty benchmark.

Plain greedy decoding vs speculative decoding (StoryLM-1M drafting for 5M):
tokens/s (synchronised timing, median of repeats, runs interleaved) next to
tokens per target pass, at the best k. If the accounting improved and the
clock did not, this says so.

    python examples/wall_clock.py              # k in {1, 2, 4, 8}, 5 repeats, 4 prompts x 100 tokens
    python examples/wall_clock.py --quick      # k = 4, 1 repeat, 2 prompts x 24 tokens
"""

import argparse
import statistics
import sys
import time
from pathlib import Path

import mlx_specdec  # noqa: F401  (first: binds a fast BLAS before mlx.core on Linux)
import mlx.core as mx
from mlx_specdec import SpecDecError, greedy_generate, load, speculative_generate

MODELS = Path(__file__).resolve().parents[1] / "models"
PROMPTS = [
    "Once upon a time, there was a little girl named Molly.",
    "Sam and his little sister went to the park on a sunny morning.",
    "The old cat sat by the window and watched the rain fall.",
    "Lily found a small red box under her bed.",
]


def timed(fn):
    """Seconds of fn(), synchronised on both sides: MLX is lazy, and a GPU runs
    asynchronously, so the clock is read only when the device is idle."""
    mx.synchronize()
    start = time.perf_counter()
    out = fn()
    mx.synchronize()
    return out, time.perf_counter() - start


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--target", default=str(MODELS / "storylm-5m"))
    p.add_argument("--drafter", default=str(MODELS / "storylm-1m"))
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--max-tokens", type=int, default=100)
    p.add_argument("--quick", action="store_true", help="k = 4, 1 repeat, 2 prompts x 24 tokens")
    args = p.parse_args(argv)
    prompts, n, ks, repeats = (PROMPTS[:2], 24, [4], 1) if args.quick else (PROMPTS, args.max_tokens, [1, 2, 4, 8], args.repeats)

    target, tok = load(args.target)
    drafter, _ = load(args.drafter)
    ids = [tok.encode(t) for t in prompts]
    systems = {"plain": lambda x: (greedy_generate(target, x, n), None)}
    for k in ks:
        systems[f"k={k}"] = lambda x, k=k: speculative_generate(target, drafter, x, n, k=k)

    for run in systems.values():  # warm-up: first calls pay for allocation
        run(ids[0][:8])
    seconds = {name: [] for name in systems}
    passes = {name: 0 for name in systems}
    for rep in range(repeats):
        for name, run in systems.items():  # interleaved, so load drift hits every system alike
            total = 0.0
            for x in ids:
                (new, stats), s = timed(lambda: run(x))
                total += s
                if rep == 0:
                    passes[name] += stats.target_passes if stats else len(new)
            seconds[name].append(total)

    tokens = n * len(ids)
    tps = {name: tokens / statistics.median(s) for name, s in seconds.items()}
    print(f"{Path(args.drafter).name} drafting for {Path(args.target).name}: {len(ids)} prompts x {n} tokens, "
          f"median of {repeats} repeat(s)\n")
    print(f"{'system':<8} {'tokens/s':>9} {'speedup':>8} {'tokens/pass':>12}")
    for name in systems:
        print(f"{name:<8} {tps[name]:>9.1f} {tps[name] / tps['plain']:>7.2f}x {tokens / passes[name]:>12.2f}")
    best = max((name for name in systems if name != "plain"), key=tps.get)
    speedup, per_pass = tps[best] / tps["plain"], tokens / passes[best]
    print(f"\nbest: {best}: {speedup:.2f}x plain at {per_pass:.2f} tokens per target pass")
    if per_pass > 1 and speedup <= 1:
        print("the accounting improved and the clock did not: fewer target passes, but each round's drafting, "
              "bigger verification pass and host work cost more than the passes saved")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SpecDecError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
