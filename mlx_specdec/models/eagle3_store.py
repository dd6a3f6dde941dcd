"""Every EAGLE-3 drafter folder, whichever wrote it: ours (`models.eagle3.save_eagle3`) or a published layout
(`models.eagle3_layouts`: vLLM Speculators, EAGLE/SpecForge), read as one `Eagle3Model`."""

from __future__ import annotations

from pathlib import Path

import mlx.core as mx

from ..calibration import mark_origin
from ..errors import ModelLoadError
from ..model_info import token_embedding
from .eagle3 import CONFIG, EAGLE3_TYPE, WEIGHTS, Eagle3Config, Eagle3Model, is_own_folder
from .eagle3_layouts import layout_of, read_published
from .folders import check_weights, compute_dtype, load_safetensors, read_json


def is_eagle3_folder(path) -> bool:
    """A drafter folder `load_eagle3` reads: ours, or a published layout."""
    return is_own_folder(path) or layout_of(path) is not None


def load_eagle3(path, target=None) -> Eagle3Model:
    """A drafter folder (ours, or a published layout) as an Eagle3Model, its embedding
    bound to `target`'s when given."""
    path = Path(path)
    published = read_published(path, len(getattr(target, "layers", ())) or None if target is not None else None)
    if published is not None:
        cfg, weights = published
    else:
        config = read_json(path / CONFIG, "an EAGLE-3 drafter config")
        if config.get("model_type") != EAGLE3_TYPE:
            raise ModelLoadError(f"{path} is not an EAGLE-3 drafter folder (model_type {config.get('model_type')!r})")
        try:
            cfg = Eagle3Config.from_dict(config["architecture"])
        except (KeyError, TypeError) as e:
            raise ModelLoadError(f"{path / CONFIG}: bad architecture ({e})") from None
        weights = load_safetensors(path / WEIGHTS)
    model = Eagle3Model(cfg)
    check_weights(model, weights, str(path))
    dtype = compute_dtype()
    model.load_weights([(k, v if k == "d2t" else v.astype(dtype)) for k, v in weights.items()])
    model.d2t = model.d2t.astype(mx.int32)
    model.freeze()
    mx.eval(model.parameters())
    if target is not None:
        model.bind_embedding(token_embedding(target))
    mark_origin(model, path)
    return model
