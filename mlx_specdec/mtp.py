"""Multi-token prediction, from one import. Each piece lives with its kind:

    models/mtp_head.py    hidden_states, MTPConfig, MTPHead, mtp_rollout, mtp_loss, mtp_propose
    drafters/mtp.py       MTPDrafter: self-speculation on the target's own trunk, no extra trunk pass;
                          NativeMTPDrafter: the same with the MTP layer a checkpoint ships
    models/native_mtp.py  NativeMTPHead, load_native_head, reference_drafts: DeepSeek-V3, GLM-4.5, MiMo,
                          Qwen3-Next and Qwen3.5 MTP layers (extracted by `convert --mtp-only`)
    models/head_store.py  save_head, load_head: head folders beside the model store
    training/mtp.py       MTPTrainConfig, train: the head's trainer on the shared loop

Generate with a head through `python -m mlx_specdec.generate --draft-model <head>`;
measure it with `python -m bench.heads`. `python -m mlx_specdec.mtp train` is the
command line in cli/mtp.py.
"""

if __name__ == "__main__":  # `python -m mlx_specdec.mtp` is the command line in cli/mtp.py
    from mlx_specdec.cli import run_module

    run_module("mtp")

from .drafters import DEFAULT_DRAFT_DEPTH, MTPDrafter, NativeMTPDrafter, acceptance_by_depth
from .models.head_store import load_base_and_head, load_head, save_head
from .models.native_mtp import NativeMTPHead, load_native_head, reference_drafts
from .models.mtp_head import (MTPConfig, MTPHead, hidden_states, mtp_loss, mtp_propose, mtp_rollout,
                               weights_fingerprint)
from .training.mtp import MTPTrainConfig, make_train_step, train

__all__ = ["DEFAULT_DRAFT_DEPTH", "MTPConfig", "MTPDrafter", "MTPHead", "MTPTrainConfig", "NativeMTPDrafter",
           "NativeMTPHead", "acceptance_by_depth", "hidden_states", "load_base_and_head", "load_head",
           "load_native_head", "make_train_step", "mtp_loss", "mtp_propose", "mtp_rollout", "reference_drafts",
           "save_head", "train", "weights_fingerprint"]
