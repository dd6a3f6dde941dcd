"""Train an MTP head on frozen StoryLM-5M and read its curves.

The head reads the trunk's last hidden state h_t and the next token x_{t+1}
and predicts x_{t+2}; the base stays frozen. Per validation: the head's
two-ahead loss and top-1 accuracy next to the base's own one-ahead accuracy
on the same targets (the base predicts x_{t+2} from h_{t+1}, which has seen
x_{t+1} through attention; the head has only h_t and x_{t+1}'s embedding).

    python examples/train_mtp_head.py             # ~1.5 minutes of training
    python examples/train_mtp_head.py --quick     # 5 steps on a tiny slice
    (the shipped head: python -m mlx_specdec.mtp train --base models/storylm-5m --out models/storylm-5m-mtp ...)
"""

import argparse
import csv
import sys
import tempfile
from pathlib import Path

from mlx_specdec import load
from mlx_specdec.cli.common import run_main
from mlx_specdec.loading import resolve_model_path
from mlx_specdec.mtp import MTPTrainConfig, train


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default="storylm-5m")
    p.add_argument("--minutes", type=float, default=1.5, help="training time budget")
    p.add_argument("--quick", action="store_true", help="5 steps on a tiny slice of the corpus")
    args = p.parse_args(argv)
    base_path = str(resolve_model_path(args.base) or args.base)
    base, tok = load(base_path)
    with tempfile.TemporaryDirectory(prefix="mtp-head-example-") as run_dir:
        size = (dict(max_steps=5, train_stories=64, valid_stories=8, seq_len=64, batch_size=4, eval_every=5,
                     eval_rows=4, log_every=1, ckpt_every=5, warmup=2) if args.quick else
                dict(time_budget_min=args.minutes, train_stories=3000, valid_stories=100, eval_every=10, eval_rows=16))
        summary = train(MTPTrainConfig(base=base_path, run_dir=run_dir, quiet=True, **size), base=base, tok=tok)
        with open(Path(run_dir) / "curves.csv", newline="") as f:
            rows = [r for r in csv.DictReader(f) if r.get("valid_loss_d1")]
    print(f"{'step':>5} {'head loss x_t+2':>15} {'head acc x_t+2':>14} {'base acc (one-ahead)':>20}")
    for r in rows:
        print(f"{r['step']:>5} {float(r['valid_loss_d1']):>15.3f} {float(r['acc_d1']):>14.1%} {float(r['base_acc']):>20.1%}")
    print(f"{summary['steps']} steps, {summary['tokens_seen']:,} tokens; the head matches the base's top-1 on "
          f"{summary['agree_d1']:.1%} of positions (what greedy self-speculation accepts at depth 1, teacher-forced)")
    return 0


if __name__ == "__main__":
    sys.exit(run_main(main))
