"""Native MTP: the multi-token-prediction layers real checkpoints ship, on an mlx-lm base.

Every family shares one pattern (one "MTP layer" after the trunk):

    e = embed_norm(emb(x_{t+1}))          h = hidden_norm(h_t)      h_t: the trunk's final (normed) hidden state
    x = proj(concat(e, h))                2D -> D (MiMo concatenates h first)
    x = block(x)                          one full decoder layer of the base's own class, with its own KV cache
    logits = base output head(final_norm(x))

and differs in names, concatenation order, what the next depth is fed, and
the norm form. Each family below cites the reference it was read from (vLLM's
model_executor/models/*_mtp.py) and the mlx-lm module whose decoder layer the
block reuses, so the block's weights load under the same names as the trunk's.

Position t of the MTP layer pairs h_t with x_{t+1} (vLLM's proposer shifts the
input ids by one and keeps the target's positions), so its KV cache holds one
row per committed position; `drafters.NativeMTPDrafter` keeps it on the
accepted boundary. Depths past the shipped layer re-feed the layer's own
output, as the references' proposers do.

The head folder (`python -m mlx_specdec.convert SRC --mtp-only`):

    <head>/config.json       model_type "native_mtp", family, the source's config, tokenizer fingerprint, ...
    <head>/mtp.safetensors   the MTP layer's weights under this module's names (copies of the base's
                             embedding and output head are not stored: the base's are used)
    <head>/README.md         the card: source, tensors read, shards touched, what was run
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import mlx.core as mx
import mlx.nn as nn
from mlx_lm.models.base import create_attention_mask

from ..errors import (IncompatibleModelsError, ModelLoadError, MTPShapeError, SpecDecError,
                      UnknownMTPFamilyError)
from ..model_info import _arg, model_name, output_projection
from .folders import check_weights, load_safetensors, read_json

NATIVE_TYPE = "native_mtp"
WEIGHTS = "mtp.safetensors"
CONFIG = "config.json"


# ---------------------------------------------------------------- families


@dataclass(frozen=True)
class Family:
    name: str
    model_types: tuple[str, ...]  # config.json model_type values of the base
    reference: str  # where the layout was read
    module: str  # mlx_lm.models.<module>: the decoder layer class and its ModelArgs
    block_class: str
    block_index: str  # "next": num_hidden_layers + i; "full_attention": a full-attention index; "none"
    layout: str  # "next_n": model.layers.{N+i}.*; "mimo": model.mtp_layers.{i}.*; "qwen": mtp.*
    fusion: dict  # source name (within the MTP prefix) -> this module's name
    embed_first: bool  # concat(emb, h) (True) or concat(h, emb)
    refeed_normed: bool  # the next depth gets final_norm(x) (True) or x
    zero_first_embedding: bool  # the references zero the embedding at MTP position 0
    norm_offset: bool  # RMSNorm stored as w in x * (1 + w) (Qwen3-Next/Qwen3.5): +1 on conversion
    text_config: bool = False  # the base's sizes live in config["text_config"] (Qwen3.5)
    indexer_cache: bool = False  # the block's attention also caches indexer keys: CacheList(KVCache, KVCache)


_NEXT_N = {"enorm": "embed_norm", "hnorm": "hidden_norm", "eh_proj": "proj", "shared_head.norm": "final_norm"}
_MIMO = {"token_layernorm": "embed_norm", "hidden_layernorm": "hidden_norm", "input_proj": "proj",
         "final_layernorm": "final_norm"}
_QWEN = {"pre_fc_norm_embedding": "embed_norm", "pre_fc_norm_hidden": "hidden_norm", "fc": "proj", "norm": "final_norm"}

FAMILIES: dict[str, Family] = {f.name: f for f in [
    # DeepSeek-V3: vLLM deepseek_mtp.py, DeepSeekMultiTokenPredictorLayer: inputs_embeds[positions == 0] = 0;
    # eh_proj(cat([enorm(emb), hnorm(h)])); mtp_block = DeepseekV2DecoderLayer at index num_hidden_layers;
    # forward returns the un-normed residual stream (re-fed as is); compute_logits applies shared_head.norm
    # then shared_head.head (the DeepSeek-V3 report: the output head is shared with the main model).
    Family("deepseek_v3", ("deepseek_v3",), "vLLM model_executor/models/deepseek_mtp.py", "deepseek_v3",
           "DeepseekV3DecoderLayer", "next", "next_n", _NEXT_N, embed_first=True, refeed_normed=False,
           zero_first_embedding=True, norm_offset=False),
    # DeepSeek-V3.2: the same next-n layer (vLLM deepseek_mtp.py builds the V3.2 block with its indexer);
    # mlx-lm's DeepseekV32DecoderLayer caches the MLA latent and the indexer keys in a CacheList.
    Family("deepseek_v32", ("deepseek_v32",), "vLLM model_executor/models/deepseek_mtp.py", "deepseek_v32",
           "DeepseekV32DecoderLayer", "next", "next_n", _NEXT_N, embed_first=True, refeed_normed=False,
           zero_first_embedding=True, norm_offset=False, indexer_cache=True),
    # GLM-4.5/4.6: vLLM glm4_moe_mtp.py, Glm4MoeMultiTokenPredictorLayer: the same next-n layout and forward
    # as DeepSeek's (enorm, hnorm, eh_proj, shared_head), block = Glm4MoeDecoderLayer.
    Family("glm4_moe", ("glm4_moe",), "vLLM model_executor/models/glm4_moe_mtp.py", "glm4_moe",
           "DecoderLayer", "next", "next_n", _NEXT_N, embed_first=True, refeed_normed=False,
           zero_first_embedding=True, norm_offset=False),
    # GLM-4.7-Flash (glm4_moe_lite): vLLM glm4_moe_lite_mtp.py, Glm4MoeLiteMultiTokenPredictorLayer: the same
    # next-n forward; the block is Glm4MoeLiteDecoderLayer (MLA attention, kv_b_proj split by mlx-lm's sanitize).
    Family("glm4_moe_lite", ("glm4_moe_lite",), "vLLM model_executor/models/glm4_moe_lite_mtp.py", "glm4_moe_lite",
           "Glm4MoeLiteDecoderLayer", "next", "next_n", _NEXT_N, embed_first=True, refeed_normed=False,
           zero_first_embedding=True, norm_offset=False),
    # MiMo: vLLM mimo_mtp.py, MiMoMultiTokenPredictorLayer: inputs_embeds[positions == 0] = 0;
    # input_proj(cat([hidden_layernorm(h), token_layernorm(emb)])) -- hidden FIRST; mtp_block = Qwen2DecoderLayer
    # (mlx-lm's mimo.TransformerBlock); final_layernorm inside forward, so the next depth gets the normed
    # state; logits from the model's lm_head. Weights under model.mtp_layers.{i}.
    Family("mimo", ("mimo",), "vLLM model_executor/models/mimo_mtp.py", "mimo", "TransformerBlock", "none",
           "mimo", _MIMO, embed_first=False, refeed_normed=True, zero_first_embedding=True, norm_offset=False),
    # Qwen3-Next: vLLM qwen3_next_mtp.py, Qwen3NextMultiTokenPredictor: fc(cat([pre_fc_norm_embedding(emb),
    # pre_fc_norm_hidden(h)])); layers[i] = Qwen3NextDecoderLayer(layer_type="full_attention"); norm inside
    # forward (the next depth gets the normed state); no position-0 masking; logits from lm_head. Weights
    # under mtp.*; vLLM's Qwen3NextRMSNorm is GemmaRMSNorm, x * (1 + w), so w + 1 here, as mlx-lm's sanitize
    # does for the trunk's norms.
    Family("qwen3_next", ("qwen3_next",), "vLLM model_executor/models/qwen3_next_mtp.py", "qwen3_next",
           "Qwen3NextDecoderLayer", "full_attention", "qwen", _QWEN, embed_first=True, refeed_normed=True,
           zero_first_embedding=False, norm_offset=True),
    # Qwen3.5: vLLM qwen3_5_mtp.py follows qwen3_next_mtp.py (mtp.fc, mtp.pre_fc_norm_*, mtp.layers.0, mtp.norm);
    # the block is mlx-lm's qwen3_5.DecoderLayer over the checkpoint's text_config.
    Family("qwen3_5", ("qwen3_5", "qwen3_5_moe"), "vLLM model_executor/models/qwen3_5_mtp.py (as qwen3_next_mtp.py)",
           "qwen3_5", "DecoderLayer", "full_attention", "qwen", _QWEN, embed_first=True, refeed_normed=True,
           zero_first_embedding=False, norm_offset=True, text_config=True),
]}


def family_for(config: dict, where: str) -> Family:
    model_type = config.get("model_type")
    for family in FAMILIES.values():
        if model_type in family.model_types:
            return family
    known = sorted(t for f in FAMILIES.values() for t in f.model_types)
    raise UnknownMTPFamilyError(f"{where}: model_type {model_type!r} has no native MTP support; expected one of {known}")


def text_config(family: Family, config: dict) -> dict:
    if family.text_config and isinstance(config.get("text_config"), dict):
        return {"model_type": config.get("model_type"), **config["text_config"]}
    return config


def n_trunk_layers(family: Family, config: dict) -> int:
    return int(text_config(family, config)["num_hidden_layers"])


def split_key(family: Family, config: dict, key: str) -> tuple[int, str] | None:
    """(MTP layer index, name within the layer) of a checkpoint tensor, or None when it is not an MTP tensor.

    Qwen's fusion tensors (mtp.fc, mtp.pre_fc_norm_*, mtp.norm) are shared by its layers; they go with layer 0.
    """
    if family.layout == "next_n":
        m = re.match(r"model\.layers\.(\d+)\.(.+)$", key)
        if m and int(m.group(1)) >= n_trunk_layers(family, config):
            return int(m.group(1)) - n_trunk_layers(family, config), m.group(2)
        return None
    if family.layout == "mimo":
        m = re.match(r"model\.mtp_layers\.(\d+)\.(.+)$", key)
        return (int(m.group(1)), m.group(2)) if m else None
    m = re.match(r"(?:model\.(?:language_model\.)?)?mtp\.(.+)$", key)  # Qwen: mtp.* (a VL wrapper may prefix it)
    if not m:
        return None
    rest = m.group(1)
    layer = re.match(r"layers\.(\d+)\.(.+)$", rest)
    return (int(layer.group(1)), layer.group(2)) if layer else (0, rest)


def mtp_key_description(family: Family, config: dict) -> str:
    """What an MTP tensor of this family is called, for error messages."""
    if family.layout == "next_n":
        return f"model.layers.{n_trunk_layers(family, config)}.* (enorm, hnorm, eh_proj, shared_head, a decoder layer)"
    if family.layout == "mimo":
        return "model.mtp_layers.0.* (token_layernorm, hidden_layernorm, input_proj, final_layernorm, a decoder layer)"
    return "mtp.* (mtp.fc, mtp.pre_fc_norm_embedding, mtp.pre_fc_norm_hidden, mtp.layers.0.*, mtp.norm)"


# Copies of the base's own weights that the next-n layers carry: the base's are used instead.
SHARED_COPIES = ("embed_tokens.weight", "shared_head.head.weight")


# ---------------------------------------------------------------- the module


def _mlx_lm_module(family: Family):
    return importlib.import_module(f"mlx_lm.models.{family.module}")


def _block_args(family: Family, config: dict):
    module = _mlx_lm_module(family)
    cls = module.TextModelArgs if family.text_config else module.ModelArgs
    return cls.from_dict(text_config(family, config))


def make_block(family: Family, config: dict, index: int) -> nn.Module:
    """The base's own decoder-layer class, built as the reference builds the MTP block."""
    module, args = _mlx_lm_module(family), _block_args(family, config)
    cls = getattr(module, family.block_class)
    if family.block_index == "none":
        return cls(args)
    if family.block_index == "next":
        return cls(args, n_trunk_layers(family, config) + index)
    return cls(args, int(getattr(args, "full_attention_interval", 1)) - 1)  # a full-attention layer index


class MTPLayer(nn.Module):
    def __init__(self, family: Family, config: dict, index: int):
        super().__init__()
        cfg = text_config(family, config)
        dim, eps = int(cfg["hidden_size"]), float(cfg.get("rms_norm_eps", 1e-6))
        self.embed_norm = nn.RMSNorm(dim, eps=eps)
        self.hidden_norm = nn.RMSNorm(dim, eps=eps)
        self.proj = nn.Linear(2 * dim, dim, bias=False)
        self.block = make_block(family, config, index)
        self.final_norm = nn.RMSNorm(dim, eps=eps)


class NativeMTPHead(nn.Module):
    """The shipped MTP layer(s); the base's embedding and output head are borrowed, never stored."""

    def __init__(self, family: Family, config: dict, n_layers: int = 1):
        super().__init__()
        self.family, self.config = family, config
        self.layers = [MTPLayer(family, config, i) for i in range(n_layers)]

    def make_cache(self):
        """The MTP layer's own cache, of the kind the base's model makes for the same decoder layer."""
        from mlx_lm.models.cache import CacheList, KVCache

        return CacheList(KVCache(), KVCache()) if self.family.indexer_cache else KVCache()

    @staticmethod
    def positions(cache):
        """The member of the cache whose offset counts positions (the KV cache itself, or a CacheList's first)."""
        return cache[0] if hasattr(cache, "caches") else cache

    def __call__(self, hidden: mx.array, emb: mx.array, cache=None, layer: int = 0):
        """hidden (B, T, D) trunk states h_t, emb (B, T, D) embeddings of x_{t+1} -> (normed, refeed).

        `normed` goes to the output head; `refeed` is what the next depth receives as its h.
        """
        f, L = self.family, self.layers[layer]
        kv = self.positions(cache) if cache is not None else None
        if f.zero_first_embedding:
            offset = kv.offset if kv is not None else 0
            first = (offset + mx.arange(emb.shape[1])) == 0
            emb = mx.where(first[None, :, None], mx.zeros_like(emb), emb)
        e, h = L.embed_norm(emb), L.hidden_norm(hidden)
        x = L.proj(mx.concatenate([e, h] if f.embed_first else [h, e], axis=-1))
        mask = create_attention_mask(x, kv, return_array=True)
        x = L.block(x, mask, cache)
        normed = L.final_norm(x)
        return normed, (normed if f.refeed_normed else x)


def reference_drafts(head: NativeMTPHead, base, context_ids, depth: int):
    """The oracle: drafts (and their logits) from no-cache forwards of the MTP layer over the whole sequence.

    `context_ids` are the committed tokens, the last one not yet fed to the target. Pair t is (h_t, x_{t+1})
    with h from one full trunk pass; depth d > 1 appends (the layer's own re-fed output, d_{d-1}) and runs the
    whole sequence again.
    """
    from .mtp_head import as_ids, hidden_states

    ids = as_ids(context_ids)
    hidden = hidden_states(base, ids)[:-1]
    tokens = ids[1:]
    project, embed = output_projection(base), base.model.embed_tokens
    drafts, logits_out = [], []
    for _ in range(depth):
        normed, refeed = head(hidden[None], embed(tokens)[None])
        logits = project(normed[0, -1:])
        token = mx.argmax(logits, axis=-1).astype(mx.int32)
        drafts.append(token.item())
        logits_out.append(logits)
        hidden = mx.concatenate([hidden, refeed[0, -1:]])
        tokens = mx.concatenate([tokens, token])
    return drafts, mx.concatenate(logits_out)


# ---------------------------------------------------------------- checkpoints -> module names


def stack_experts(weights: dict) -> dict:
    """experts.{e}.{proj}.{param} -> switch_mlp.{proj}.{param}, stacked over e (mlx-lm's SwitchGLU layout)."""
    groups: dict[tuple[str, str], dict[int, mx.array]] = {}
    out = {}
    for key in [k for k in weights if k.endswith("experts.gate_up_proj")]:
        # Qwen3.5-MoE ships fused experts: gate_up_proj (E, 2I, D) and down_proj (E, D, I), as mlx-lm's
        # qwen3_5_moe.sanitize splits them.
        prefix = key[: -len("experts.gate_up_proj")]
        gate_up = weights[key]
        mid = gate_up.shape[-2] // 2
        out[f"{prefix}switch_mlp.gate_proj.weight"] = gate_up[..., :mid, :]
        out[f"{prefix}switch_mlp.up_proj.weight"] = gate_up[..., mid:, :]
        out[f"{prefix}switch_mlp.down_proj.weight"] = weights[f"{prefix}experts.down_proj"]
    fused = {k for k in weights if k.endswith(("experts.gate_up_proj", "experts.down_proj"))}
    for key, value in weights.items():
        if key in fused:
            continue
        m = re.match(r"(.*)experts\.(\d+)\.(\w+\.\w+)$", key)
        if m:
            groups.setdefault((m.group(1), m.group(3)), {})[int(m.group(2))] = value
        else:
            out[key] = value
    for (prefix, rest), experts in groups.items():
        if sorted(experts) != list(range(len(experts))):
            raise MTPShapeError(f"experts of {prefix!r} are numbered {sorted(experts)[:4]}...; expected 0..{len(experts) - 1}")
        out[f"{prefix}switch_mlp.{rest}"] = mx.stack([experts[e] for e in range(len(experts))])
    return out


_QWEN_NORMS = (".input_layernorm.weight", ".post_attention_layernorm.weight", ".q_norm.weight", ".k_norm.weight")


def module_weights(family: Family, config: dict, tensors: dict) -> dict:
    """Checkpoint MTP tensors (their real names) -> this module's parameter names, transformed as mlx-lm
    transforms the trunk's (experts stacked, fp8 dequantised and kv_b_proj split for MLA, Qwen norms + 1)."""
    per_layer: dict[int, dict] = {}
    for key, value in tensors.items():
        where = split_key(family, config, key)
        if where is None:
            continue
        index, name = where
        if name in SHARED_COPIES:
            continue
        per_layer.setdefault(index, {})[name] = value
    out = {}
    for index, names in sorted(per_layer.items()):
        if family.layout == "next_n":  # the whole layer, fusion tensors included (DeepSeek's fp8 scales)
            names = _sanitize_like_the_trunk(family, config, names)
        block = {k: v for k, v in names.items() if k.rsplit(".", 1)[0] not in family.fusion}
        fusion = {k: v for k, v in names.items() if k not in block}
        if family.layout != "next_n":
            block = stack_experts(block)
        for name, value in block.items():
            if family.norm_offset and value.ndim == 1 and any(("." + name).endswith(s) for s in _QWEN_NORMS):
                value = value + 1.0
            out[f"layers.{index}.block.{name}"] = value
        for name, value in fusion.items():
            stem, param = name.rsplit(".", 1)
            if family.norm_offset and value.ndim == 1 and stem != "fc":
                value = value + 1.0
            out[f"layers.{index}.{family.fusion[stem]}.{param}"] = value
    return out


def _sanitize_like_the_trunk(family: Family, config: dict, block: dict) -> dict:
    """Run the mlx-lm model's own sanitize on an MTP layer as if it were trunk layer 0: it stacks the experts
    and, for DeepSeek-V3, dequantises fp8 weights (weight_scale_inv) and splits kv_b_proj as the trunk's are."""
    from types import SimpleNamespace

    module = _mlx_lm_module(family)
    fake = SimpleNamespace(args=_block_args(family, config))
    renamed = {f"model.layers.0.{k}": v for k, v in block.items()}
    sanitized = module.Model.sanitize(fake, renamed)
    return {k[len("model.layers.0."):]: v for k, v in sanitized.items() if k.startswith("model.layers.0.")}


# ---------------------------------------------------------------- compatibility and loading


COMPARED = ("hidden_size", "vocab_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
            "head_dim", "full_attention_interval", "layer_types", "kv_lora_rank", "q_lora_rank", "n_routed_experts",
            "num_experts", "moe_intermediate_size", "intermediate_size")


def vocab_fingerprint(tokenizer) -> str | None:
    """sha256 (16 hex) of the token -> id table; None when the tokenizer exposes none."""
    table = None
    for obj in (tokenizer, getattr(tokenizer, "_tokenizer", None)):  # mlx-lm's TokenizerWrapper, or HF's own
        if callable(getattr(obj, "get_vocab", None)):
            table = obj.get_vocab()
            break
    if table is None:
        return None
    return hashlib.sha256(json.dumps(sorted(table.items())).encode()).hexdigest()[:16]


def check_compatible(head_config: dict, base, tokenizer, head_name: str, base_name: str) -> None:
    """Refuse a head for another base, naming both: architecture, sizes, layer types and tokenizer
    (never the weight bytes: a 4-bit conversion of the same base is the same base)."""
    family = FAMILIES[head_config["family"]]
    source = head_config.get("source", "?")
    base_type = model_name(base)
    if base_type not in family.model_types:
        raise IncompatibleModelsError(
            f"MTP head {head_name!r} (from {source}) is for {family.name}; the base {base_name!r} is {base_type}")
    cfg = text_config(family, head_config["base_config"])
    for key in COMPARED:
        want, have = cfg.get(key), _arg(base, key)
        if want is None or have is None:
            continue
        if (list(want) if isinstance(want, (list, tuple)) else want) != (list(have) if isinstance(have, (list, tuple)) else have):
            raise IncompatibleModelsError(
                f"MTP head {head_name!r} (from {source}) expects {key} {want!r}; the base {base_name!r} has {have!r}")
    want_tok = head_config.get("tokenizer_fingerprint")
    have_tok = vocab_fingerprint(tokenizer) if tokenizer is not None else None
    if want_tok is not None and have_tok is not None and want_tok != have_tok:
        raise IncompatibleModelsError(
            f"MTP head {head_name!r} (from {source}) has tokenizer {want_tok}; the base {base_name!r} has {have_tok}")


def is_native_head_folder(path) -> bool:
    path = Path(path)
    if not (path / WEIGHTS).is_file() or not (path / CONFIG).is_file():
        return False
    try:
        return json.loads((path / CONFIG).read_text()).get("model_type") == NATIVE_TYPE
    except (OSError, ValueError):
        return False


def build_head(config: dict) -> NativeMTPHead:
    family = FAMILIES.get(config.get("family"))
    if family is None:
        raise UnknownMTPFamilyError(f"MTP head family {config.get('family')!r} is unknown; expected one of {sorted(FAMILIES)}")
    n = int(config.get("num_mtp_layers", 1))
    return NativeMTPHead(family, config["base_config"], n)


def quantize_predicate(weights: dict) -> Callable:
    return lambda path, module: hasattr(module, "to_quantized") and f"{path}.scales" in weights


def load_native_head(path, base, tokenizer=None, *, base_name: str = "the base") -> NativeMTPHead:
    """A head folder onto an mlx-lm base (any conversion of the same checkpoint, quantised ones included)."""
    path = Path(path)
    config = read_json(path / CONFIG)
    if config.get("model_type") != NATIVE_TYPE:
        raise ModelLoadError(f"{path / CONFIG} does not describe a native MTP head (model_type {NATIVE_TYPE!r})")
    for key in ("family", "base_config"):
        if key not in config:
            raise ModelLoadError(f"{path / CONFIG} lacks {key!r}")
    check_compatible(config, base, tokenizer, str(path), base_name)
    head = build_head(config)
    if len(head.layers) != 1:
        raise SpecDecError(f"MTP head {str(path)!r} has {len(head.layers)} MTP layers; drafting supports checkpoints "
                           "with one (DeepSeek-V3, GLM-4.5, MiMo-7B, Qwen3-Next and Qwen3.5 ship one)")
    weights = load_safetensors(path / WEIGHTS)
    quant = config.get("quantization")
    if quant:
        nn.quantize(head, group_size=quant["group_size"], bits=quant["bits"], class_predicate=quantize_predicate(weights))
    try:
        check_weights(head, weights, str(path / WEIGHTS))
    except ModelLoadError as e:
        raise MTPShapeError(str(e)) from None
    head.load_weights(list(weights.items()))
    if mx.default_device() == mx.cpu:  # half-precision matmuls on the CPU skip BLAS
        head.set_dtype(mx.float32, lambda t: t in (mx.float16, mx.bfloat16))
    mx.eval(head.parameters())
    return head
