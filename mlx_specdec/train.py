"""Training, from one import: the StoryLM trainer and the loop it shares with the MTP trainer.

    training/loop.py         the loop: config base, resume, budget, Ctrl-C, calibration, progress
    training/checkpoints.py  atomic, checksummed checkpoints
    training/data.py         tokenized corpus, rows, the batch order
    training/storylm.py      the StoryLM ladder (and hybrid presets) on that loop
    training/mtp.py          MTP heads on that loop

`python -m mlx_specdec.train` is the command line in cli/train.py.
"""

if __name__ == "__main__":  # `python -m mlx_specdec.train` is the command line in cli/train.py
    from mlx_specdec.cli import run_module

    run_module("train")

from .training.checkpoints import CHECKPOINT_META, load_checkpoint, read_checkpoint_meta, save_checkpoint
from .training.data import batch_rows, pack
from .training.loop import Progress, check_hyperparameters, machine, make_optimizer
from .training.storylm import (PRESET_DEFAULTS, TrainConfig, build_preset, evaluate, evaluate_models, greedy_sample,
                               story_loss, train, train_ladder, yardstick_tokens)

__all__ = ["CHECKPOINT_META", "PRESET_DEFAULTS", "Progress", "TrainConfig", "batch_rows", "build_preset",
           "check_hyperparameters", "evaluate", "evaluate_models", "greedy_sample", "load_checkpoint", "machine",
           "make_optimizer", "pack", "read_checkpoint_meta", "save_checkpoint", "story_loss", "train", "train_ladder",
           "yardstick_tokens"]

