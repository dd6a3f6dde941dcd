"""Distillation, from one import: a drafter's corpus written by its target (training/distill.py).

    python -m mlx_specdec.distill --target models/storylm-5m --out runs/distill-storylm-5m

`python -m mlx_specdec.distill` is the command line in cli/distill.py.
"""

if __name__ == "__main__":  # `python -m mlx_specdec.distill` is the command line in cli/distill.py
    from mlx_specdec.cli import run_module

    run_module("distill")

from .training.distill import DistillConfig, continue_batch, openings, write_corpus

__all__ = ["DistillConfig", "continue_batch", "openings", "write_corpus"]
