"""Convert checkpoints into the model store.

    python -m mlx_specdec.convert roneneldan/TinyStories-33M --out models/tinystories-33m
    python -m mlx_specdec.convert path/to/hf_folder --out models/NAME
    python -m mlx_specdec.convert weights.npz --key-map map.json --config cfg.json \\
        --tokenizer tokenizer.model --out models/NAME

A Hugging Face GPT-Neo folder (or hub repo id, downloaded only when online)
becomes a GPT-Neo store folder: config.json {"model_type": "gpt_neo",
"architecture": {...}, "dtype": "float16", "source": SRC, ...},
model.safetensors (float16, module names), the original tokenizer files and a
README.md card. A plain state dict (.npz or .safetensors) plus a key map
becomes a StoryLM store folder through mlx_specdec.models.store.save_model.

Every folder is written to a temporary sibling first and moved into place
with os.replace, so a reader never sees half a model. Every way the input
can be wrong ends in a one-line SpecDecError.
"""

from __future__ import annotations

if __name__ == "__main__":  # `python -m mlx_specdec.convert` is the command line in cli/convert.py
    from mlx_specdec.cli import run_module

    run_module("convert")

import json
import os
import re
import shutil
import socket
from pathlib import Path
from urllib.parse import urlparse

import mlx.core as mx
import numpy as np
from mlx.utils import tree_flatten

from .errors import MissingMTPError, ModelLoadError, MTPShapeError, SpecDecError
from .models.gpt_neo import (
    CONFIG,
    TOKENIZER_FILES,
    WEIGHTS,
    Model,
    ModelArgs,
    load_tokenizer,
    tokenizer_fingerprint,
)
from .models.folders import atomic_folder, check_weights, first_line, load_safetensors, read_json

GPT_NEO_ARCH = "GPTNeoForCausalLM"
FP16_MAX = 65504.0
REPO_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


# ---------------------------------------------------------------- source resolution


def hub_offline() -> bool:
    flag = os.environ.get("HF_HUB_OFFLINE", "").strip().lower()
    return flag in ("1", "true", "yes", "on")


def hub_reachable(endpoint: str, timeout: float = 5.0) -> str | None:
    """None when a TCP connection to the hub opens within `timeout`, else the reason."""
    url = urlparse(endpoint)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout).close()
        return None
    except OSError as e:
        return str(e) or type(e).__name__


def resolve_source(src: str) -> Path:
    """A local path as is; a hub repo id downloaded (config, weights, tokenizer) when online."""
    path = Path(src).expanduser()
    if path.exists():
        return path
    if not REPO_ID.match(src) or src.startswith((".", "/", "~")):
        raise SpecDecError(f"source {src!r} does not exist; expected a Hugging Face folder, a state-dict file or a hub repo id")
    if hub_offline():
        raise SpecDecError(
            f"{src!r} is not a local path and the hub is offline (HF_HUB_OFFLINE is set); "
            "download it elsewhere and pass the folder"
        )
    import huggingface_hub as hub

    # Probe first: without a network the hub client can spend minutes in retries.
    reason = hub_reachable(hub.constants.ENDPOINT)
    if reason is not None:
        raise SpecDecError(f"cannot reach the Hugging Face hub to download {src!r} ({reason}); pass a local folder")
    try:
        files = hub.list_repo_files(src)
        # Fetch one copy of the weights: safetensors when the repo has them, else the PyTorch pickle.
        if any(f.endswith(".safetensors") for f in files):
            weights = ["*.safetensors", "model.safetensors.index.json"]
        else:
            weights = ["pytorch_model.bin"]
        folder = hub.snapshot_download(src, allow_patterns=[CONFIG, *weights, *TOKENIZER_FILES])
    except Exception as e:
        msg = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SpecDecError(f"could not download {src!r} from the hub ({type(e).__name__}: {msg})") from None
    return Path(folder)


# ---------------------------------------------------------------- reading checkpoints


def load_torch_bin(path: Path) -> dict:
    try:
        import torch
    except ImportError:
        raise ModelLoadError(
            f"{path} is a PyTorch checkpoint and torch is not installed; "
            "install torch (pip install torch) or provide model.safetensors"
        ) from None
    try:
        state = torch.load(str(path), map_location="cpu", weights_only=True)
    except Exception as e:
        raise ModelLoadError(f"{path} is not a readable PyTorch checkpoint ({first_line(e)})") from None
    return {k: mx.array(v.detach().float().numpy()) for k, v in state.items() if hasattr(v, "detach")}


def read_hf_weights(folder: Path) -> dict:
    """Weights of an HF folder: model.safetensors, sharded safetensors, or pytorch_model.bin."""
    single, index, torch_bin = folder / WEIGHTS, folder / "model.safetensors.index.json", folder / "pytorch_model.bin"
    if single.is_file():
        return load_safetensors(single)
    if index.is_file():
        try:
            shards = sorted(set(json.loads(index.read_text())["weight_map"].values()))
        except (json.JSONDecodeError, KeyError, AttributeError, UnicodeDecodeError):
            raise ModelLoadError(f"{index} is not a valid safetensors index") from None
        weights = {}
        for shard in shards:
            if not (folder / shard).is_file():
                raise ModelLoadError(f"{index} names shard {shard!r}, which is missing from {folder}")
            weights.update(load_safetensors(folder / shard))
        return weights
    if torch_bin.is_file():
        return load_torch_bin(torch_bin)
    raise ModelLoadError(f"{str(folder)!r} has no weights: expected {WEIGHTS} or pytorch_model.bin")


def read_hf_config(folder: Path) -> dict:
    path = folder / CONFIG
    if not path.is_file():
        raise ModelLoadError(f"{str(folder)!r} is missing {CONFIG}; expected a Hugging Face model folder")
    config = read_json(path)
    if isinstance(config.get("architecture"), dict):
        raise ModelLoadError(f"{str(folder)!r} is already a model-store folder; load it with mlx_specdec.load")
    archs = config.get("architectures") or []
    model_type = config.get("model_type")
    if model_type != "gpt_neo" or (archs and GPT_NEO_ARCH not in archs):
        found = ", ".join(map(str, archs)) or f"model_type {model_type!r}"
        raise ModelLoadError(
            f"{path} describes {found}; only {GPT_NEO_ARCH} (model_type 'gpt_neo') can be converted"
        )
    return config


def read_hf_gpt_neo(folder) -> tuple[Model, dict]:
    """(module with float32 weights, the HF config) from a Hugging Face GPT-Neo folder."""
    folder = Path(folder)
    config = read_hf_config(folder)
    model = Model(ModelArgs.from_dict(config))
    weights = model.sanitize(read_hf_weights(folder))
    check_weights(model, weights, str(folder))
    model.load_weights([(k, v.astype(mx.float32)) for k, v in weights.items()])
    mx.eval(model.parameters())
    return model, config


# ---------------------------------------------------------------- writing store folders


DTYPES = {"float16": mx.float16, "bfloat16": mx.bfloat16, "float32": mx.float32}  # mlx-lm's --dtype names


def stored_weights(model, dtype: str = "float16") -> dict:
    """The model's weights in the dtype to store; NaN/inf and values beyond float16's range (when storing
    float16) are refused."""
    if dtype not in DTYPES:
        raise SpecDecError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    out = {}
    for name, w in tree_flatten(model.parameters()):
        w32 = w.astype(mx.float32)
        if not mx.all(mx.isfinite(w32)).item():
            raise ModelLoadError(f"parameter {name!r} holds NaN or infinite values; the source weights are corrupt")
        peak = mx.abs(w32).max().item()
        if dtype == "float16" and peak > FP16_MAX:
            raise ModelLoadError(f"parameter {name!r} has values up to {peak}, beyond float16's range "
                                 "(--dtype bfloat16 or float32 keeps it)")
        out[name] = w.astype(DTYPES[dtype])
    return out


def fp16_weights(model) -> dict:
    return stored_weights(model, "float16")


def gpt_neo_card(name: str, config: dict, n_params: int) -> str:
    a = config["architecture"]
    kinds = a["attention_layers"]
    return "\n".join(
        [
            f"# {name}",
            "",
            f"GPT-Neo converted to MLX from `{config['source']}` by `python -m mlx_specdec.convert`.",
            "The port (mlx_specdec/models/gpt_neo.py) is checked against Hugging Face transformers'",
            "GPTNeoForCausalLM on random configurations (tests/test_gpt_neo.py). See the source",
            "repository for the license, training data and intended use.",
            "",
            "## Architecture",
            "",
            f"- parameters: {n_params:,} (tied embedding counted once)" if a["tie_word_embeddings"]
            else f"- parameters: {n_params:,}",
            f"- hidden {a['hidden_size']}, {a['num_layers']} layers ({', '.join(kinds)}), "
            f"{a['num_heads']} heads, MLP {a['intermediate_size'] or 4 * a['hidden_size']}, "
            f"{a['activation_function']}",
            f"- vocabulary {a['vocab_size']}, context {a['max_position_embeddings']} positions, "
            f"local window {a['window_size']}",
            f"- weights stored as {config['dtype']}; tokenizer fingerprint `{config['tokenizer_fingerprint']}`",
            "",
            "Load with `mlx_specdec.load(path)` (or `mlx_specdec.models.gpt_neo.load_gpt_neo`).",
            "",
        ]
    )


def convert_gpt_neo(src: str, out, *, overwrite: bool = False, dtype: str = "float16") -> Path:
    """Hugging Face GPT-Neo folder or hub repo id -> GPT-Neo store folder at `out` (weights stored as `dtype`)."""
    folder = resolve_source(src)
    if not folder.is_dir():
        raise SpecDecError(f"{src!r} is a file; a GPT-Neo source is a Hugging Face folder or hub repo id")
    return convert_hf_folder(folder, out, source=src, overwrite=overwrite, dtype=dtype)


def convert_hf_folder(folder, out, *, source: str | None = None, overwrite: bool = False,
                      dtype: str = "float16") -> Path:
    """A local Hugging Face GPT-Neo folder -> GPT-Neo store folder at `out`; `source` is recorded."""
    folder = Path(folder)
    src = source if source is not None else str(folder)
    model, _ = read_hf_gpt_neo(folder)
    tok_files = [f for f in TOKENIZER_FILES if (folder / f).is_file()]
    if not {"tokenizer.json", "vocab.json"} & set(tok_files):
        raise ModelLoadError(f"{str(folder)!r} has no tokenizer files (tokenizer.json or vocab.json + merges.txt)")
    weights = stored_weights(model, dtype)
    out = Path(out)

    def fill(tmp: Path) -> None:
        for f in tok_files:
            shutil.copyfile(folder / f, tmp / f)
        config = {
            "model_type": "gpt_neo",
            "architecture": model.args.to_dict(),
            "dtype": dtype,
            "source": src,
            "source_architecture": GPT_NEO_ARCH,
        }
        (tmp / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
        tokenizer = load_tokenizer(tmp, model.args.eos_token_id)
        n_tok = len(tokenizer)
        if n_tok > model.args.vocab_size:
            raise ModelLoadError(
                f"tokenizer in {str(folder)!r} has {n_tok} ids but the model's vocab_size is {model.args.vocab_size}"
            )
        config["tokenizer_fingerprint"] = tokenizer_fingerprint(tokenizer)
        config["parameters"] = sum(w.size for w in weights.values())  # a tied head is not a parameter
        (tmp / CONFIG).write_text(json.dumps(config, indent=2) + "\n")
        mx.save_safetensors(str(tmp / WEIGHTS), weights, metadata={"format": "mlx"})
        (tmp / "README.md").write_text(gpt_neo_card(out.name, config, config["parameters"]))

    return atomic_folder(out, fill, overwrite=overwrite)


# ---------------------------------------------------------------- StoryLM state dicts


def load_state_dict(path: Path) -> dict:
    if path.suffix == ".npz":
        try:
            with np.load(path) as data:
                return {k: mx.array(data[k]) for k in data.files}
        except Exception as e:
            raise ModelLoadError(f"{path} is not a readable .npz file ({first_line(e)})") from None
    if path.suffix == ".safetensors":
        return load_safetensors(path)
    raise SpecDecError(f"state-dict file {str(path)!r} has suffix {path.suffix!r}; expected .npz or .safetensors")


def _read_json(path, what: str):
    p = Path(path)
    if not p.is_file():
        raise SpecDecError(f"{what} file {str(p)!r} does not exist")
    try:
        return json.loads(p.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise SpecDecError(f"{what} file {str(p)!r} is not valid JSON ({e})") from None


def _few(names) -> str:
    names = list(names)
    return ", ".join(names[:3]) + (f", ... ({len(names)} in all)" if len(names) > 3 else "")


def map_state_dict(source: dict, key_map: dict | None, expected: dict, src_name: str) -> dict:
    """Apply a {source name: module name} map, checking it covers `expected` exactly, shapes included.

    Without a key map the source's own names must be the module's names; the
    errors then speak of the state dict, not of a map the user never gave.
    """
    if key_map is None:
        missing = [name for name in expected if name not in source]
        extra = [name for name in source if name not in expected]
        if missing or extra:
            what = f"lacks model weights {_few(missing)}" if missing else f"has tensors {_few(extra)} that are not model parameters"
            raise SpecDecError(f"{src_name} {what}; its names differ from the model's: pass --key-map")
        key_map = {name: name for name in expected}
    if not isinstance(key_map, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in key_map.items()):
        raise SpecDecError("key map must be a JSON object mapping source tensor names to module names")
    absent = [k for k in key_map if k not in source]
    if absent:
        raise SpecDecError(f"key map names source tensor(s) {_few(absent)} not found in {src_name}")
    unknown = [v for v in key_map.values() if v not in expected]
    if unknown:
        raise SpecDecError(f"key map targets {_few(unknown)}, which are not parameters of the model")
    seen: dict[str, str] = {}
    for k, v in key_map.items():
        if v in seen:
            raise SpecDecError(f"key map assigns {v!r} twice (from {seen[v]!r} and {k!r})")
        seen[v] = k
    unassigned = [name for name in expected if name not in seen]
    if unassigned:
        raise SpecDecError(f"key map leaves model weights unassigned: {_few(unassigned)}")
    out = {}
    for k, v in key_map.items():
        if tuple(source[k].shape) != tuple(expected[v].shape):
            raise SpecDecError(
                f"shape mismatch: source {k!r} is {tuple(source[k].shape)}, model {v!r} expects {tuple(expected[v].shape)}"
            )
        out[v] = source[k]
    return out


def convert_state_dict(src, out, *, key_map=None, config=None, tokenizer=None, overwrite: bool = False) -> Path:
    """A plain state dict + key map + StoryLM config + tokenizer.model -> StoryLM store folder."""
    from .models.store import save_model, storylm_config
    from .models.storylm import StoryLM

    src = Path(src)
    if not src.is_file():
        raise SpecDecError(f"state-dict file {str(src)!r} does not exist")
    if config is None:
        raise SpecDecError("converting a state dict needs --config (the StoryLM architecture JSON)")
    if tokenizer is None or not Path(tokenizer).is_file():
        raise SpecDecError(f"converting a state dict needs --tokenizer pointing at a tokenizer.model; got {tokenizer!r}")
    cfg = _read_json(config, "config")
    if isinstance(cfg, dict) and isinstance(cfg.get("architecture"), dict):
        cfg = cfg["architecture"]  # a store config.json works too
    if not isinstance(cfg, dict):
        raise SpecDecError(f"config file {str(config)!r} must hold a JSON object of StoryLM fields")
    model = StoryLM(storylm_config({"architecture": cfg}, f"config file {str(config)!r}"))
    source = load_state_dict(src)
    mapping = _read_json(key_map, "key map") if key_map is not None else None
    expected = dict(tree_flatten(model.parameters()))
    weights = map_state_dict(source, mapping, expected, str(src))
    model.load_weights([(k, v.astype(mx.float32)) for k, v in weights.items()])
    fp16_weights(model)  # range check before anything is written
    card = {
        "description": f"A StoryLM converted from the state dict `{src.name}` by `python -m mlx_specdec.convert`.",
        "converted_from": str(src),
    }
    return save_model(model, str(tokenizer), out, card=card, overwrite=overwrite)


# ---------------------------------------------------------------- command line


def default_out(src: str) -> Path:
    return Path("models") / Path(src.rstrip("/")).name.lower()


# ---------------------------------------------------------------- native MTP layers (--mtp-only)


INDEX = "model.safetensors.index.json"
HF_TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json",
                      "merges.txt", "tokenizer.model")


class _MTPSource:
    """A checkpoint's config and index, and its shards one at a time: from a local folder, or fetched from the
    hub file by file (only the shards asked for are downloaded)."""

    def __init__(self, src: str):
        self.src = src
        path = Path(src).expanduser()
        if path.exists():
            if not path.is_dir():
                raise SpecDecError(f"{src!r} is a file; --mtp-only reads a Hugging Face checkpoint folder or hub repo id")
            self.folder, self.repo = path, None
        else:
            if not REPO_ID.match(src) or src.startswith((".", "/", "~")):
                raise SpecDecError(f"source {src!r} does not exist; expected a checkpoint folder or a hub repo id")
            if hub_offline():
                raise SpecDecError(f"{src!r} is not a local folder and the hub is offline (HF_HUB_OFFLINE is set); "
                                   "download its config.json, index and MTP shards and pass the folder")
            import huggingface_hub as hub

            reason = hub_reachable(hub.constants.ENDPOINT)
            if reason is not None:
                raise SpecDecError(f"cannot reach the Hugging Face hub to read {src!r} ({reason}); pass a local folder")
            self.folder, self.repo = None, src
        self.shards_read: list[str] = []

    def file(self, name: str, required: bool = True) -> Path | None:
        if self.repo is None:
            path = self.folder / name
            if path.is_file():
                return path
            if required:
                raise ModelLoadError(f"{str(self.folder)!r} is missing {name}")
            return None
        import huggingface_hub as hub

        try:
            return Path(hub.hf_hub_download(self.repo, name))
        except Exception as e:  # noqa: BLE001 - missing file, gated repo, dropped connection
            if not required:
                return None
            raise SpecDecError(f"could not fetch {name} of {self.repo!r} from the hub "
                               f"({type(e).__name__}: {first_line(e)[:160]})") from None

    def shard(self, name: str) -> dict:
        path = self.file(name)
        self.shards_read.append(name)
        return load_safetensors(path)


def _weight_map(source: _MTPSource) -> tuple[dict, bool]:
    """{tensor name: shard file} from the index, or from the single model.safetensors; and whether it was indexed."""
    index = source.file(INDEX, required=False)
    if index is not None:
        try:
            weight_map = json.loads(index.read_text())["weight_map"]
        except (json.JSONDecodeError, KeyError, TypeError, UnicodeDecodeError):
            raise ModelLoadError(f"{index} is not a valid safetensors index (no weight_map)") from None
        if not isinstance(weight_map, dict):
            raise ModelLoadError(f"{index} is not a valid safetensors index (weight_map is not an object)")
        return weight_map, True
    single = source.file(WEIGHTS, required=False)
    if single is None:
        raise ModelLoadError(f"{source.src!r} has neither {INDEX} nor {WEIGHTS}")
    return {name: WEIGHTS for name in load_safetensors(single)}, False


def convert_mtp_only(src: str, out, *, dtype: str = "float16", q_bits: int | None = None, q_group_size: int = 64,
                     overwrite: bool = False) -> Path:
    """Extract a checkpoint's MTP layer(s) into a head folder that attaches to any mlx-lm conversion of the base.

    Reads config.json and the index, then only the shards that hold MTP tensors (fetching just those when
    `src` is a hub id). The weights are mapped to models.native_mtp's names the way mlx-lm maps the trunk's.
    """
    from .models import native_mtp as nm

    if dtype not in DTYPES:
        raise SpecDecError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    if q_bits is not None and q_bits not in (2, 3, 4, 5, 6, 8):
        raise SpecDecError(f"--q-bits must be one of 2, 3, 4, 5, 6, 8, got {q_bits!r}")
    source = _MTPSource(src)
    config = read_json(source.file(CONFIG))
    family = nm.family_for(config, f"{src}/config.json")
    weight_map, indexed = _weight_map(source)
    mtp_names = sorted(k for k in weight_map if nm.split_key(family, config, k) is not None)
    if not mtp_names:
        raise MissingMTPError(f"{src!r} ({family.name}) has no MTP tensors; expected {nm.mtp_key_description(family, config)}")
    shards = sorted({weight_map[k] for k in mtp_names})
    tensors = {}
    for shard in shards:
        held = source.shard(shard)
        missing = [k for k in mtp_names if weight_map[k] == shard and k not in held]
        if missing:
            raise ModelLoadError(f"shard {shard!r} of {src!r} lacks {missing[0]!r}, which its index places there")
        tensors.update({k: held[k] for k in mtp_names if weight_map[k] == shard})
    n_layers = 1 + max(nm.split_key(family, config, k)[0] for k in mtp_names)
    head_config = {"model_type": nm.NATIVE_TYPE, "family": family.name, "num_mtp_layers": n_layers,
                   "base_config": config}
    head = nm.build_head(head_config)
    weights = nm.module_weights(family, config, tensors)
    try:
        check_weights(head, weights, f"the MTP tensors of {src!r}")
    except ModelLoadError as e:
        raise MTPShapeError(str(e)) from None
    head.load_weights(list(weights.items()))
    stored = stored_weights(head, dtype)
    n_params = sum(v.size for v in stored.values())
    head.load_weights(list(stored.items()))
    if q_bits is not None:
        import mlx.nn as nn

        # mlx-lm's rule (utils.quantize_model): every layer that can be, whose input width the group divides;
        # MoE routers stay in --dtype (mlx-lm keeps Qwen's at 8 bits: routing is sensitive to rounding).
        def quantizable(path, m):
            return (hasattr(m, "to_quantized") and m.weight.shape[-1] % q_group_size == 0
                    and not path.endswith(("mlp.gate", "shared_expert_gate")))

        nn.quantize(head, group_size=q_group_size, bits=q_bits, class_predicate=quantizable)
        head_config["quantization"] = {"group_size": q_group_size, "bits": q_bits, "mode": "affine"}
        stored = dict(tree_flatten(head.parameters()))
    fingerprint, tokenizer_files = None, [f for f in HF_TOKENIZER_FILES if source.file(f, required=False) is not None]
    if tokenizer_files:
        from mlx_lm.tokenizer_utils import load as load_hf_tokenizer

        tok_dir = source.file(tokenizer_files[0]).parent
        try:
            fingerprint = nm.vocab_fingerprint(load_hf_tokenizer(tok_dir))
        except Exception as e:  # noqa: BLE001 - a broken tokenizer is named, not a traceback
            raise ModelLoadError(f"the tokenizer of {src!r} cannot be read ({type(e).__name__}: {first_line(e)[:120]})") \
                from None
    all_shards = sorted(set(weight_map.values()))
    head_config.update({
        "source": src, "reference": family.reference, "dtype": dtype, "tokenizer_fingerprint": fingerprint,
        "source_tensors": mtp_names, "shards_read": list(source.shards_read), "shards_total": len(all_shards),
        "indexed": indexed, "parameters": n_params,
    })
    out = Path(out)

    def fill(tmp: Path) -> None:
        mx.save_safetensors(str(tmp / nm.WEIGHTS), stored, metadata={"format": "mlx"})
        (tmp / CONFIG).write_text(json.dumps(head_config, indent=2) + "\n")
        (tmp / "README.md").write_text(native_mtp_card(out.name, head_config))

    return atomic_folder(out, fill, overwrite=overwrite)


def native_mtp_card(name: str, config: dict) -> str:
    quant = config.get("quantization")
    stored = f"{quant['bits']}-bit (group {quant['group_size']}, mlx-lm's affine quantisation)" if quant else config["dtype"]
    return "\n".join([
        f"# {name}",
        "",
        f"The multi-token-prediction layer that `{config['source']}` ships ({config['family']} family), extracted by",
        "`python -m mlx_specdec.convert SRC --mtp-only`. Attach it to any mlx-lm conversion of the same base",
        "(quantised ones included) and self-speculate:",
        "",
        "```bash",
        f"python -m mlx_specdec.generate --model <mlx-lm folder of the base> --draft-model path/to/{name} -k 3",
        "```",
        "",
        f"- layout read from: {config['reference']}",
        f"- MTP layers: {config['num_mtp_layers']}; {len(config['source_tensors'])} tensors read from "
        f"{len(config['shards_read'])} of {config['shards_total']} shard(s): {', '.join(config['shards_read'])}",
        f"- {config['parameters']:,} parameters, stored as {stored}. Copies of the base's embedding and output",
        "  head are not stored: the base's own are used",
        f"- tokenizer fingerprint: `{config['tokenizer_fingerprint']}`" if config["tokenizer_fingerprint"]
        else "- no tokenizer files in the source: the tokenizer is not checked on attach",
        "- compatibility with a base is checked against its architecture and config (hidden size, vocabulary,",
        "  layer count and types, tokenizer), never the weight bytes",
        "",
        "See the source repository for the license and intended use.",
        "",
    ])
