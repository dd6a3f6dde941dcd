"""`convert_gguf`: a GGUF checkpoint -> an mlx-lm model folder, written atomically.

The folder holds `config.json` (mlx-lm's own model_type, plus where it came
from), `model.safetensors`, `tokenizer.json`, `tokenizer_config.json`,
`generation_config.json` and a `README.md` card (file name, SHA-256, tensor
types, the command). `mlx_specdec.load`, `mlx_lm.load` and every command of
this project read it.

Weights are dequantised by llama.cpp's `gguf` package and stored in `dtype`
(float32 by default: the GGUF's values exactly, and what a CPU computes
fastest). With `quantized`, a tensor in a format MLX's affine quantisation
holds exactly keeps its codes, scales and biases (quantized.py); every other
matrix is stored at 8 bits; norms stay floating point.
"""

from __future__ import annotations

import json
from pathlib import Path

import mlx.core as mx
import numpy as np

from ..errors import ModelLoadError, SpecDecError
from ..models.folders import atomic_folder, check_out
from . import quantized as q
from .archs import Plan, mlx_lm_config, tensor_plans
from .reader import GGUFFile
from .tokenizer import build_tokenizer

DTYPES = {"float32": mx.float32, "float16": mx.float16, "bfloat16": mx.bfloat16}
WEIGHTS = "model.safetensors"


def _float(f: GGUFFile, plan: Plan, dtype) -> mx.array:
    w = f.weight(plan.gguf_name)
    if plan.rows is not None:
        w = w[plan.rows]
    if plan.shift:
        w = w - np.float32(plan.shift)
    if not np.all(np.isfinite(w)):
        raise ModelLoadError(f"{str(f.path)!r}: tensor {plan.gguf_name!r} holds NaN or infinite values")
    return mx.array(w).astype(dtype)


def _quantized(f: GGUFFile, plan: Plan, dtype) -> tuple[dict, dict] | None:
    """`({name: array}, {"group_size", "bits"})` for a matrix stored quantised, or None to keep it float."""
    t = f.tensor(plan.gguf_name)
    if len(t.shape) != 2 or not plan.hf_name.endswith(".weight") or plan.shift:
        return None
    prefix = plan.hf_name[: -len(".weight")]
    n_cols = int(t.shape[0])
    kind = t.tensor_type.name
    if kind in q.EXACT:
        codes, scales, biases, bits, group = q.affine_codes(kind, np.asarray(t.data), n_cols)
        packed = q.pack(codes, bits)
        if plan.rows is not None:
            packed, scales, biases = packed[plan.rows], scales[plan.rows], biases[plan.rows]
        arrays = {f"{prefix}.weight": mx.array(packed), f"{prefix}.scales": mx.array(scales).astype(dtype),
                  f"{prefix}.biases": mx.array(biases).astype(dtype)}
        return arrays, {"group_size": group, "bits": bits}
    group = next((g for g in (q.OTHER_GROUP, 32) if n_cols % g == 0), None)
    if group is None:
        return None
    w, scales, biases = mx.quantize(_float(f, plan, mx.float32), group_size=group, bits=q.OTHER_BITS)
    arrays = {f"{prefix}.weight": w, f"{prefix}.scales": scales.astype(dtype), f"{prefix}.biases": biases.astype(dtype)}
    return arrays, {"group_size": group, "bits": q.OTHER_BITS}


def convert_weights(f: GGUFFile, config: dict, dtype: str = "float32", quantized: bool = False):
    """`(weights, quantization)`: the mlx-lm state dict and, when quantised, mlx-lm's per-module config."""
    if dtype not in DTYPES:
        raise SpecDecError(f"dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    weights, layers = {}, {}
    for plan in tensor_plans(f, config):
        packed = _quantized(f, plan, DTYPES[dtype]) if quantized else None
        if packed is None:
            weights[plan.hf_name] = _float(f, plan, DTYPES[dtype])
        else:
            arrays, layers[plan.hf_name[: -len(".weight")]] = packed
            weights.update(arrays)
        mx.eval(list(weights.values())[-3:])  # dequantise tensor by tensor: peak memory stays one model
    if not layers:
        return weights, None
    common = max({(v["group_size"], v["bits"]) for v in layers.values()},
                 key=lambda gb: sum(1 for v in layers.values() if (v["group_size"], v["bits"]) == gb))
    quantization = {"group_size": common[0], "bits": common[1], "mode": "affine"}
    quantization.update({path: v for path, v in layers.items() if (v["group_size"], v["bits"]) != common})
    return weights, quantization


def card(f: GGUFFile, config: dict, name: str, dtype: str, quantized: bool, command: str | None) -> str:
    types = ", ".join(f"{k} x {v}" for k, v in sorted(f.type_counts().items(), key=lambda kv: -kv[1]))
    stored = "quantised: Q4_0/Q4_1/Q5_0/Q8_0/Q4_K kept exactly, other matrices 8-bit" if quantized \
        else f"dequantised to {dtype}"
    lines = [
        f"# {name}",
        "",
        f"An mlx-lm model folder converted from the GGUF file `{f.path.name}` by `mlx-specdec convert`.",
        "",
        f"- source: `{f.path.name}`, SHA-256 `{f.sha256}`",
        f"- GGUF name: {f.meta('general.name', '?')}; license: {f.meta('general.license', 'not stated')}",
        f"- architecture: {f.architecture} -> mlx-lm `{config['model_type']}`; {config['num_hidden_layers']} layers, "
        f"hidden {config['hidden_size']}, {config['num_attention_heads']} heads / {config['num_key_value_heads']} "
        f"KV heads, vocabulary {config['vocab_size']:,}",
        f"- tensor types in the file: {types}",
        f"- weights: {stored}",
        f"- tokenizer: {f.meta('tokenizer.ggml.model')} (pre-tokenizer {f.meta('tokenizer.ggml.pre', 'default')}), "
        "rebuilt with `tokenizers` to tokenise as llama.cpp does",
    ]
    if command:
        lines += ["", "Made with:", "", f"    {command}"]
    lines += ["", "The license and terms of the source checkpoint apply to this folder.", ""]
    return "\n".join(lines)


def convert_gguf(path, out, *, dtype: str = "float32", quantized: bool = False, sha256: str | None = None,
                 overwrite: bool = False, name: str | None = None, command: str | None = None) -> Path:
    """Convert the GGUF file at `path` into an mlx-lm folder at `out`; nothing is written on any failure."""
    out = check_out(out, overwrite=overwrite, protect={"the GGUF file": path})
    if dtype not in DTYPES:
        raise SpecDecError(f"--dtype must be one of {', '.join(DTYPES)}, got {dtype!r}")
    f = GGUFFile(path, sha256=sha256)
    config = mlx_lm_config(f)
    tokenizer, tokenizer_config, generation = build_tokenizer(f)
    weights, quantization = convert_weights(f, config, dtype, quantized)
    if quantization is not None:
        config["quantization"] = quantization
    config["gguf_source"] = {"file": f.path.name, "sha256": f.sha256, "architecture": f.architecture,
                             "tensor_types": f.type_counts(), "dtype": dtype, "quantized": quantized}

    def fill(tmp: Path) -> None:
        mx.save_safetensors(str(tmp / WEIGHTS), weights, metadata={"format": "mlx"})
        tokenizer.save(str(tmp / "tokenizer.json"))
        (tmp / "tokenizer_config.json").write_text(json.dumps(tokenizer_config, indent=2, ensure_ascii=False) + "\n")
        (tmp / "generation_config.json").write_text(json.dumps(generation, indent=2) + "\n")
        (tmp / "config.json").write_text(json.dumps(config, indent=2) + "\n")
        (tmp / "README.md").write_text(card(f, config, name or Path(out).name, dtype, quantized, command))

    return atomic_folder(Path(out), fill, overwrite=overwrite)
