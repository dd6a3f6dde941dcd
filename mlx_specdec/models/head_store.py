"""MTP head folders beside the model store: written atomically, refused on the wrong base.

    <head>/config.json        model_type "mtp_head", architecture, the base's name and fingerprints
    <head>/head.safetensors   the head's own weights (float16); the base's embedding and output are not stored
    <head>/README.md          the card (models.cards), with the measured section from bench.json when present
    <head>/curves.csv, curves.png, bench.json   what the card's figures are rendered from
"""

from __future__ import annotations

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten, tree_unflatten

from ..calibration import mark_origin
from ..errors import IncompatibleModelsError, ModelLoadError, SpecDecError
from .cards import BENCH, PLOT, render_bench, render_head_card
from .folders import atomic_folder, check_weights, compute_dtype, load_safetensors, read_json, write_text_atomic
from .mtp_head import MTPConfig, MTPHead, weights_fingerprint

HEAD_WEIGHTS = "head.safetensors"
HEAD_CONFIG = "config.json"
CARD = "README.md"
CURVES = "curves.csv"
MEASURED = "## Self-speculation (measured)"


def is_head_folder(path) -> bool:
    return (Path(path) / HEAD_WEIGHTS).is_file()


def tokenizer_fingerprint(tokenizer_or_fingerprint) -> str:
    """A base's tokenizer as a head folder records it: a StoryLM tokenizer's own fingerprint, else the hash of a
    Hugging Face tokenizer's token -> id table (an mlx-lm model's)."""
    from .native_mtp import vocab_fingerprint

    if isinstance(tokenizer_or_fingerprint, str):
        return tokenizer_or_fingerprint
    fp = getattr(tokenizer_or_fingerprint, "fingerprint", None)
    if fp is None:
        fp = vocab_fingerprint(tokenizer_or_fingerprint)
    if not isinstance(fp, str):
        raise SpecDecError(
            f"expected a tokenizer with a .fingerprint or a fingerprint string, got {type(tokenizer_or_fingerprint).__name__}"
        )
    return fp


def save_head(head: MTPHead, out_dir, *, base_name: str, tokenizer_fingerprint: str, base_weights_sha256=None,
              card: dict | None = None, extra_files: dict | None = None, overwrite: bool = False) -> Path:
    """Write a head folder atomically: temp folder, then os.replace (an existing head only with `overwrite`)."""
    out = Path(out_dir)
    config = {
        "model_type": "mtp_head",
        "architecture": asdict(head.config),
        "base": base_name,
        "base_tokenizer_fingerprint": tokenizer_fingerprint,
        "base_weights_fingerprint": weights_fingerprint(head.base),
        "base_weights_sha256": base_weights_sha256,
        "dtype": "float16",
        "parameters": sum(v.size for _, v in tree_flatten(head.parameters())),
    }

    def fill(tmp: Path) -> None:
        weights = {k: v.astype(mx.float16) for k, v in tree_flatten(head.parameters())}
        mx.save_safetensors(str(tmp / HEAD_WEIGHTS), weights, metadata={"format": "mlx"})
        (tmp / HEAD_CONFIG).write_text(json.dumps(config, indent=2) + "\n")
        for name, src in (extra_files or {}).items():
            if src is not None and Path(src).is_file():
                shutil.copyfile(src, tmp / name)
        (tmp / CARD).write_text(render_head_card(out.name, config, card or {}, tmp))

    return atomic_folder(out, fill, overwrite=overwrite)


def _read_head_config(path: Path) -> dict:
    config = read_json(path / HEAD_CONFIG)
    if config.get("model_type") != "mtp_head":
        raise ModelLoadError(f"{path / HEAD_CONFIG} does not describe an MTP head (model_type 'mtp_head')")
    if not isinstance(config.get("architecture"), dict):
        raise ModelLoadError(f"{path / HEAD_CONFIG} has no 'architecture' object")
    return config


def load_head(path, base_model, base_tokenizer_or_fingerprint) -> MTPHead:
    """Load a head folder onto `base_model`; refuse a head trained on another base.

    Both the base's tokenizer fingerprint and the fingerprint of its weights
    must match what the head was trained on: a head is only meaningful on the
    exact trunk whose hidden states it learned to read.
    """
    path = Path(path)
    if not path.is_dir():
        raise ModelLoadError(f"MTP head path {str(path)!r} is not a directory; expected a head folder")
    for name in (HEAD_CONFIG, HEAD_WEIGHTS):
        if not (path / name).is_file():
            raise ModelLoadError(f"MTP head folder {str(path)!r} is missing {name}")
    config = _read_head_config(path)
    want_tok, have_tok = config.get("base_tokenizer_fingerprint"), tokenizer_fingerprint(base_tokenizer_or_fingerprint)
    if want_tok != have_tok:
        raise IncompatibleModelsError(
            f"MTP head {str(path)!r} was trained with tokenizer {want_tok!r}; the base's tokenizer is {have_tok!r}"
        )
    want_w, have_w = config.get("base_weights_fingerprint"), weights_fingerprint(base_model)
    if want_w != have_w:
        raise IncompatibleModelsError(
            f"MTP head {str(path)!r} was trained on base weights {want_w!r} ({config.get('base')}); "
            f"the model it is loaded onto has weights {have_w!r}"
        )
    head = MTPHead(base_model, MTPConfig.from_dict(config["architecture"]))
    weights = load_safetensors(path / HEAD_WEIGHTS)
    check_weights(head, weights, str(path / HEAD_WEIGHTS))
    head.update(tree_unflatten([(k, v.astype(compute_dtype())) for k, v in weights.items()]))
    mx.eval(head.parameters())
    mark_origin(head, path)  # its identity in k="auto"'s calibration file
    return head


def load_base_and_head(base_path, head_path):
    """(base model, tokenizer, head) from a base store folder and a head folder."""
    from .store import load_store

    base, tok = load_store(base_path)
    return base, tok, load_head(head_path, base, tok)


def render_measured(folder, card_text: str | None = None) -> str:
    """The head's card with its measured section re-rendered from the folder's bench.json (nothing is run)."""
    folder = Path(folder)
    card_path = folder / CARD
    if card_text is None:
        card_text = card_path.read_text() if card_path.is_file() else ""
    config = _read_head_config(folder)
    bench = read_json(folder / BENCH)
    cut = card_text.find(MEASURED)
    head = card_text[:cut] if cut >= 0 else card_text.rstrip("\n") + "\n\n"
    return head + "\n".join(render_bench(bench, folder.name, config["base"]))


def save_bench(folder, result: dict) -> None:
    """Write a head's bench.json and re-render the measured section of its card from it."""
    folder = Path(folder)
    write_text_atomic(folder / BENCH, json.dumps(result, indent=2) + "\n")
    write_text_atomic(folder / CARD, render_measured(folder))
