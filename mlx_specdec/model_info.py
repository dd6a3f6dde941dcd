"""What the engine reads off a model: its architecture name, vocabulary size,
context window and output projection, for mlx-lm's classes (arguments in
``.args`` or ``.config``, wrappers with a nested ``text_config``) and ours alike.
"""

from __future__ import annotations

from mlx_lm.models.cache import make_prompt_cache

from . import caches
from .errors import IncompatibleModelsError


def _arg(model, name):
    """A model argument, also from a wrapper's nested ``text_config``."""
    sources = []
    for args in (getattr(model, "args", None), getattr(model, "config", None)):  # plamo, baichuan: .config
        if args is not None:
            sources += [args, args.get("text_config") if isinstance(args, dict) else getattr(args, "text_config", None)]
    for source in sources:
        if isinstance(source, dict):
            value = source.get(name)
        else:
            value = getattr(source, name, None)
        if value is not None:
            return value
    return None


def model_name(model) -> str:
    """The architecture a user recognises (mlx-lm's classes are all called Model)."""
    name = getattr(model, "model_type", None) or _arg(model, "model_type")
    if not isinstance(name, str):
        module = type(model).__module__
        name = module.rsplit(".", 1)[-1] if module.startswith("mlx_lm.") else type(model).__name__
    return name


def trunk_geometry(model) -> dict:
    """The sizes a drafter built to sit on this target copies (hidden_size, intermediate_size, heads, head_dim,
    rms_norm_eps, rope_theta, max_position_embeddings), under mlx-lm's names, from mlx-lm's arguments or
    StoryLM's (dim, hidden_dim, n_heads, norm_eps, max_seq_len)."""
    def first(*names, default=None):
        for name in names:
            value = _arg(model, name)
            if value is not None:
                return value
        return default

    hidden = first("hidden_size", "dim")
    heads = first("num_attention_heads", "n_heads")
    if hidden is None or heads is None:
        raise IncompatibleModelsError(f"{model_name(model)} does not say its hidden size and attention heads")
    return dict(hidden_size=int(hidden), intermediate_size=int(first("intermediate_size", "hidden_dim")),
                num_attention_heads=int(heads), num_key_value_heads=int(first("num_key_value_heads", default=heads)),
                head_dim=int(first("head_dim", default=hidden // heads)),
                rms_norm_eps=float(first("rms_norm_eps", "norm_eps", default=1e-5)),
                rope_theta=float(first("rope_theta", default=10000.0)),
                max_position_embeddings=int(first("max_position_embeddings", "max_seq_len", default=8192)))


def layer_weights(model) -> int | None:
    """About how many weights the decoder layers hold (what a step reads besides the embedding and head):
    layers x (4 hidden^2 + 3 hidden x intermediate), from the model's arguments; None where they do not
    say. Counted from the sizes, so a quantized model counts as its full-precision self."""
    layers = _arg(model, "num_hidden_layers") or _arg(model, "n_layers")
    hidden = _arg(model, "hidden_size") or _arg(model, "dim")
    inner = _arg(model, "intermediate_size") or _arg(model, "hidden_dim")
    if not all(isinstance(v, int) and v > 0 for v in (layers, hidden, inner)):
        return None
    return layers * (4 * hidden * hidden + 3 * hidden * inner)


def model_vocab_size(model) -> int | None:
    size = _arg(model, "vocab_size")
    return int(size) if size is not None else None


def output_projection(model):
    """The map from trunk hidden states to logits (untied head or tied embedding)."""
    inner = getattr(model, "language_model", None)  # VL wrappers (qwen3_5): the text model holds the head
    if inner is not None and getattr(inner, "model", None) is getattr(model, "model", None):
        return output_projection(inner)
    head = getattr(model, "lm_head", None)
    if head is not None:
        return head
    return model.model.embed_tokens.as_linear


def model_context_window(model) -> int | None:
    """Positions the model was built for; None when nothing bounds it.

    A model made only of recurrent layers (every cache an ArraysCache) has no
    positional limit, whatever a config default says (mamba2's 2056).
    """
    try:
        leaves = [type(m).__name__ for c in make_prompt_cache(model) for m in caches.members(c)]
    except Exception:  # noqa: BLE001 - a model whose cache cannot be built here has a window if it says so
        leaves = []
    if leaves and all(name == "ArraysCache" for name in leaves):
        return None
    for name in ("max_seq_len", "max_position_embeddings", "n_positions", "n_ctx"):
        value = _arg(model, name)
        if value:
            return int(value)
    return None


def token_embedding(target):
    """The target's token embedding module (model.embed_tokens), as a drafter that shares it reads it."""
    trunk = getattr(target, "model", None)
    embed = getattr(trunk, "embed_tokens", None) or getattr(target, "embed_tokens", None)
    if embed is None:
        raise IncompatibleModelsError(f"{type(target).__name__} exposes no token embedding (model.embed_tokens) "
                                      "for a drafter to share")
    return embed
