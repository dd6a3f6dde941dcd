"""The GGUF file's tokenizer rebuilt with Hugging Face `tokenizers`, tokenising as llama.cpp does.

Two vocabulary models (`tokenizer.ggml.model`):

* `gpt2`: byte-level BPE from the file's tokens and merges. llama.cpp splits
  the text with the regexes of its pre-tokenizer (`tokenizer.ggml.pre`; a
  span no regex matches stays a piece of its own), each regex in turn, then
  runs BPE inside each piece. Here each regex is an isolated `Split` in the
  same order, then a regex-free ByteLevel; `smollm` is llama.cpp's: digits one
  by one, then GPT-2's rule.
* `llama` (SentencePiece-style, with scores): llama.cpp merges, again and
  again, the adjacent pair whose concatenation is the highest-scoring token
  (leftmost on ties) and spells a piece left that is no token in bytes. That
  is BPE with one merge (a, b) for every token a + b whose halves are tokens,
  ranked by the score of a + b, and byte fallback; spaces become U+2581
  (and a leading one is added only when `add_space_prefix` is set).

Token types: control tokens (type 3) are special tokens (matched in text, as
llama.cpp does with parse_special, and skipped when decoding special tokens
is off); user-defined tokens (type 4) are matched in text always, as
llama.cpp does. `tokenizer_config.json` carries the chat template, bos/eos/
unk/pad and add_bos; `generation_config.json` lists the ids llama.cpp ends
generation on (eos, eot, and the control tokens it recognises by text).
"""

from __future__ import annotations

from ..errors import ModelLoadError
from .reader import GGUFFile

NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
SPM_SPACE = "\u2581"
GPT2_RULE = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)"
LLAMA3_RULE = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}"
               r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_RULE = (r"(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}"
              r"| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+")
# tokenizer.ggml.pre -> llama.cpp's regexes for it (llama-vocab.cpp), applied in order
PRE_TOKENIZERS = {
    "smollm": [r"\p{N}", GPT2_RULE],
    "starcoder": [r"\p{N}", GPT2_RULE],
    "gpt-2": [GPT2_RULE],
    "default": [r"[\p{P}\$\+<=>\^~\|]+", GPT2_RULE, r"\p{N}+", r"[0-9][0-9][0-9]"],
    "llama-bpe": [LLAMA3_RULE],
    "qwen2": [QWEN2_RULE],
}
# Control tokens llama.cpp ends generation on, recognised by their text (llama-vocab.cpp's EOG list, in part)
END_OF_GENERATION = ("<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|eom_id|>",
                     "<|end_of_text|>", "<EOT>")


def _vocabulary(f: GGUFFile) -> tuple[list[str], list[int]]:
    tokens = f.meta("tokenizer.ggml.tokens")
    types = f.meta("tokenizer.ggml.token_type") or [NORMAL] * len(tokens or ())
    if not tokens:
        raise ModelLoadError(f"{str(f.path)!r} has no tokenizer.ggml.tokens; cannot build its tokenizer")
    if len(types) != len(tokens):
        raise ModelLoadError(f"{str(f.path)!r}: {len(types)} token types for {len(tokens)} tokens")
    if len(set(tokens)) != len(tokens):
        seen, dup = set(), None
        for t in tokens:
            if t in seen:
                dup = t
                break
            seen.add(t)
        raise ModelLoadError(f"{str(f.path)!r}: token {dup!r} appears twice in the vocabulary; ids would be ambiguous")
    return list(tokens), list(types)


def _bpe_model(f: GGUFFile, tokens: list[str]):
    from tokenizers import Regex, decoders, models, pre_tokenizers

    pre = f.meta("tokenizer.ggml.pre", "default")
    if pre not in PRE_TOKENIZERS:
        raise ModelLoadError(f"{str(f.path)!r}: pre-tokenizer {pre!r} is not supported; expected one of "
                             f"{', '.join(PRE_TOKENIZERS)}")
    merges = f.meta("tokenizer.ggml.merges")
    if not merges:
        raise ModelLoadError(f"{str(f.path)!r} has a gpt2 vocabulary without tokenizer.ggml.merges")
    pairs = []
    for m in merges:
        left, sep, right = m.partition(" ")
        if not sep:
            raise ModelLoadError(f"{str(f.path)!r}: merge {m!r} is not two tokens separated by a space")
        pairs.append((left, right))
    vocab = {t: i for i, t in enumerate(tokens)}
    model = models.BPE(vocab=vocab, merges=pairs, fuse_unk=False, byte_fallback=False)
    splits = [pre_tokenizers.Split(Regex(rule), behavior="isolated") for rule in PRE_TOKENIZERS[pre]]
    pre_tokenizer = pre_tokenizers.Sequence(
        splits + [pre_tokenizers.ByteLevel(add_prefix_space=False, trim_offsets=False, use_regex=False)])
    return model, None, pre_tokenizer, decoders.ByteLevel()


def spm_merges(tokens: list[str], types: list[int], scores: list[float]) -> list[tuple[str, str]]:
    """Every (a, b) whose concatenation is a token and whose halves are tokens, best-scoring result first."""
    ids = {t: i for i, t in enumerate(tokens)}
    ranked = []
    for i, piece in enumerate(tokens):
        if types[i] == BYTE or len(piece) < 2:
            continue
        for cut in range(1, len(piece)):
            left, right = piece[:cut], piece[cut:]
            if left in ids and right in ids:
                ranked.append((-scores[i], i, cut, left, right))
    ranked.sort()
    return [(left, right) for *_, left, right in ranked]


def _spm_model(f: GGUFFile, tokens: list[str], types: list[int]):
    from tokenizers import decoders, models, normalizers

    scores = f.meta("tokenizer.ggml.scores")
    if not scores or len(scores) != len(tokens):
        raise ModelLoadError(f"{str(f.path)!r}: a llama (SentencePiece) vocabulary needs one score per token")
    vocab = {t: i for i, t in enumerate(tokens)}
    unk_id = f.meta("tokenizer.ggml.unknown_token_id")
    unk = tokens[unk_id] if isinstance(unk_id, int) and 0 <= unk_id < len(tokens) else None
    has_bytes = sum(1 for t in types if t == BYTE) == 256
    model = models.BPE(vocab=vocab, merges=spm_merges(tokens, types, list(scores)), unk_token=unk,
                       fuse_unk=True, byte_fallback=has_bytes)
    steps = [normalizers.Replace(" ", SPM_SPACE)]
    decode = [decoders.Replace(SPM_SPACE, " "), decoders.ByteFallback(), decoders.Fuse()]
    if f.meta("tokenizer.ggml.add_space_prefix", True):
        steps.insert(0, normalizers.Prepend(SPM_SPACE))
        decode.append(decoders.Strip(" ", 1, 0))
    return model, normalizers.Sequence(steps), None, decoders.Sequence(decode)


def _special(f: GGUFFile, tokens: list[str], what: str) -> str | None:
    i = f.meta(f"tokenizer.ggml.{what}_token_id")
    return tokens[i] if isinstance(i, int) and 0 <= i < len(tokens) else None


def end_of_generation_ids(f: GGUFFile, tokens: list[str], types: list[int]) -> list[int]:
    ids = [f.meta(f"tokenizer.ggml.{what}_token_id") for what in ("eos", "eot", "eom")]
    ids += [i for i, t in enumerate(tokens) if t in END_OF_GENERATION and types[i] == CONTROL]
    return sorted({i for i in ids if isinstance(i, int) and 0 <= i < len(tokens)})


def build_tokenizer(f: GGUFFile):
    """`(tokenizer, tokenizer_config, generation_config)`: a `tokenizers.Tokenizer` and the two JSON objects."""
    from tokenizers import AddedToken, Tokenizer, processors

    tokens, types = _vocabulary(f)
    kind = f.meta("tokenizer.ggml.model")
    if kind == "gpt2":
        model, normalizer, pre_tokenizer, decoder = _bpe_model(f, tokens)
    elif kind == "llama":
        model, normalizer, pre_tokenizer, decoder = _spm_model(f, tokens, types)
    else:
        raise ModelLoadError(f"{str(f.path)!r}: tokenizer model {kind!r} is not supported; expected gpt2 or llama")
    tok = Tokenizer(model)
    if normalizer is not None:
        tok.normalizer = normalizer
    if pre_tokenizer is not None:
        tok.pre_tokenizer = pre_tokenizer
    tok.decoder = decoder
    tok.add_special_tokens([AddedToken(t, special=True, normalized=False) for t, k in zip(tokens, types)
                            if k == CONTROL])
    tok.add_tokens([AddedToken(t, special=False, normalized=False) for t, k in zip(tokens, types)
                    if k == USER_DEFINED])
    bos, eos = _special(f, tokens, "bos"), _special(f, tokens, "eos")
    add_bos = bool(f.meta("tokenizer.ggml.add_bos_token", kind == "llama"))
    add_eos = bool(f.meta("tokenizer.ggml.add_eos_token", False))
    if (add_bos and bos is None) or (add_eos and eos is None):
        raise ModelLoadError(f"{str(f.path)!r} asks to add a bos/eos token it does not name")
    if add_bos or add_eos:
        single = ([f"{bos}:0"] if add_bos else []) + ["$A:0"] + ([f"{eos}:0"] if add_eos else [])
        pair = single + ["$B:1"]
        special = [(t, tokens.index(t)) for t, on in ((bos, add_bos), (eos, add_eos)) if on]
        tok.post_processor = processors.TemplateProcessing(single=single, pair=pair, special_tokens=special)
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "bos_token": bos,
        "eos_token": eos,
        "unk_token": _special(f, tokens, "unknown"),
        "pad_token": _special(f, tokens, "padding"),
        "add_bos_token": add_bos,
        "add_eos_token": add_eos,
        "clean_up_tokenization_spaces": False,
        "model_max_length": int(f.arch_meta("context_length", 4096)),
    }
    template = f.meta("tokenizer.chat_template")
    if template:
        config["chat_template"] = template
    config = {k: v for k, v in config.items() if v is not None}
    generation = {"eos_token_id": end_of_generation_ids(f, tokens, types)}
    if bos is not None:
        generation["bos_token_id"] = tokens.index(bos)
    return tok, config, generation
