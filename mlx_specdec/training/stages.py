"""A later stage of a feature drafter's training starts from a trained drafter (`--init`), not from its target.

The EAGLE-3 and block-drafter trainers read the folder `--init` names whole before anything is written (the run's
--out may be the same folder): its architecture, its weights and draft vocabulary, and what trained it (its
card's figures, else its curves' last row), which the new card names as its start.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import mlx.core as mx
import numpy as np

from ..errors import IncompatibleModelsError, SpecDecError

CURVES = "curves.csv"


@dataclass
class InitialDrafter:
    """--init: a trained drafter a run starts from (a second stage on more data), not from the target's head."""

    folder: str
    config: object  # its architecture (an Eagle3Config, a DFlashConfig)
    weights: list  # (name, float32 array) pairs, the draft vocabulary map included
    vocab: np.ndarray  # the draft vocabulary, as target ids
    lineage: dict  # what trained it: steps, tokens seen, wall time (from its card or curves)


def _drafter_kinds() -> dict:
    """--init's readers per trainer: (what the folder must be, is it one, load it bound to a target)."""
    from ..models.dflash_store import is_dflash_folder, load_dflash
    from ..models.eagle3_store import is_eagle3_folder, load_eagle3

    return {"eagle3": ("an EAGLE-3 drafter folder", is_eagle3_folder, load_eagle3),
            "dflash": ("a block drafter folder", is_dflash_folder, load_dflash)}


def initial_drafter(folder: str | None, target, identity: dict, kind: str = "eagle3") -> InitialDrafter | None:
    """The drafter folder --init names, read whole before anything is written (--out may be the same folder)."""
    if not folder:
        return None
    from mlx.utils import tree_flatten

    what, is_kind, load_kind = _drafter_kinds()[kind]
    path = Path(folder)
    if not is_kind(path):
        raise SpecDecError(f"--init {folder!r} is not {what}")
    config = json.loads((path / "config.json").read_text()) if (path / "config.json").is_file() else {}
    if isinstance(config.get("target_identity"), dict) and config["target_identity"] != identity:
        raise IncompatibleModelsError(f"--init {folder!r} was trained for another target than --base")
    model = load_kind(path, target)
    if model.draft_to_target is None:
        raise SpecDecError(f"--init {folder!r} reads through the target's head; training needs a drafter with a "
                           "draft vocabulary and a head of its own")
    weights = [(k, v if v.dtype == mx.int32 else v.astype(mx.float32)) for k, v in tree_flatten(model.parameters())]
    vocab = np.asarray(model.draft_to_target, np.int32)
    return InitialDrafter(str(folder), model.config, weights, vocab, _lineage(path, config))


def _lineage(path: Path, config: dict) -> dict:
    """What trained a drafter folder: its card's figures where its config keeps them, else its curves' last row."""
    card = config.get("card")
    if isinstance(card, dict):
        return {k: card[k] for k in ("steps", "tokens_seen", "wall_time_s", "corpus", "init") if k in card}
    try:
        import csv

        with open(path / CURVES, newline="") as f:
            last = list(csv.DictReader(f))[-1]
        return {"steps": int(float(last["step"])), "tokens_seen": int(float(last["tokens"])),
                "wall_time_s": float(last["elapsed_s"])}
    except (OSError, IndexError, KeyError, ValueError):
        return {}
