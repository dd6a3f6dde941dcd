"""GGUF -> mlx-lm folder: each architecture's mapping, the exact repacking, the tokenizer rules and every refusal.

The round trips build a small random mlx-lm model, write it as llama.cpp's
converter would (Q/K rows permuted into interleaved pairs for llama, 1 added to
every Gemma norm, a tokenizer vocabulary in the file) with llama.cpp's own
`gguf` writer, convert it back and load it with `mlx_lm.load`: the logits must
be the original model's. The real checkpoints are checked against llama.cpp
itself in test_real_fidelity.py.
"""

from __future__ import annotations

import json
import shutil

import gguf
import mlx.core as mx
import numpy as np
import pytest
from gguf import quants
from mlx.utils import tree_flatten

from mlx_specdec.errors import SpecDecError
from mlx_specdec.from_gguf import convert_gguf
from mlx_specdec.from_gguf.archs import unpermute_rows
from mlx_specdec.from_gguf.quantized import affine_codes, pack
from mlx_specdec.from_gguf.tokenizer import spm_merges

HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FFN = 64, 3, 4, 2, 16, 96
IDS = [1, 5, 9, 200, 31, 7, 7, 64, 3, 250, 12, 90, 41, 18, 6, 77, 150, 2, 8, 33]


# ---------------------------------------------------------------- llama.cpp's side, written independently


def llama_cpp_permute(w: np.ndarray, n_head: int) -> np.ndarray:
    """llama.cpp's convert_hf_to_gguf permutation of Q/K rows (rotate-half -> interleaved pairs)."""
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def byte_level_vocab() -> tuple[list[str], list[str]]:
    """GPT-2's 256 byte characters, three control tokens first, and a few merges."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), 256))
    cs, n = bs[:], 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    chars = [chr(c) for c in cs]
    merges = ["Ġ t", "h e", "Ġt he", "i n", "Ġ a"]
    return ["<|endoftext|>", "<|im_start|>", "<|im_end|>"] + chars + ["Ġt", "he", "Ġthe", "in", "Ġa"], merges


def spm_vocab() -> tuple[list[str], list[float], list[int]]:
    """A SentencePiece-style vocabulary: controls, 256 byte tokens, letters and merged pieces with scores."""
    pieces = ["▁", "a", "b", "c", "d", "e", "t", "h", "ab", "bc", "abc", "▁a", "▁ab", "th", "the", "▁the", "he", "cd"]
    tokens = ["<pad>", "<eos>", "<bos>", "<unk>", "<start_of_turn>", "<end_of_turn>", "\n"]
    types = [3, 3, 3, 2, 3, 3, 4]
    tokens += [f"<0x{b:02X}>" for b in range(256)]
    types += [6] * 256
    tokens += pieces
    types += [1] * len(pieces)
    scores = [0.0] * 7 + [0.0] * 256 + [-float(i) for i in range(len(pieces))]
    return tokens, scores, types


def _mlx_lm_model(family: str, vocab: int):
    from mlx_lm.models import gemma3_text, llama, qwen2, qwen3

    common = dict(hidden_size=HIDDEN, num_hidden_layers=6 if family == "gemma3" else LAYERS, intermediate_size=FFN, num_attention_heads=HEADS,
                  num_key_value_heads=KV_HEADS, rms_norm_eps=1e-5, vocab_size=vocab)
    if family == "llama":
        return llama.Model(llama.ModelArgs(model_type="llama", rope_theta=50000.0, **common))
    if family == "qwen2":
        return qwen2.Model(qwen2.ModelArgs(model_type="qwen2", rope_theta=50000.0, **common))
    if family == "qwen3":
        return qwen3.Model(qwen3.ModelArgs(model_type="qwen3", max_position_embeddings=512, head_dim=HEAD_DIM,
                                           tie_word_embeddings=True, rope_theta=50000.0, **common))
    model = gemma3_text.Model(gemma3_text.ModelArgs(
        model_type="gemma3_text", head_dim=HEAD_DIM, rope_theta=1e6, rope_local_base_freq=10000.0,
        query_pre_attn_scalar=HEAD_DIM, sliding_window=8, sliding_window_pattern=6, max_position_embeddings=512,
        **common))
    model.sanitize({})  # no lm_head: tied, as the 270M is
    return model


GGUF_LAYER = {  # Hugging Face module (under model.layers.N) -> llama.cpp tensor
    "input_layernorm": "attn_norm", "post_attention_layernorm": "ffn_norm", "self_attn.q_proj": "attn_q",
    "self_attn.k_proj": "attn_k", "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
    "self_attn.q_norm": "attn_q_norm", "self_attn.k_norm": "attn_k_norm", "mlp.gate_proj": "ffn_gate",
    "mlp.up_proj": "ffn_up", "mlp.down_proj": "ffn_down",
}
GEMMA_LAYER = {**GGUF_LAYER, "pre_feedforward_layernorm": "ffn_norm", "post_attention_layernorm": "post_attention_norm",
               "post_feedforward_layernorm": "post_ffw_norm"}


def write_gguf(path, family: str, *, qtype=None, arch: str | None = None, extra_tensor=None):
    """A random model of `family` written as llama.cpp writes one; returns the mlx-lm model it holds."""
    if family == "gemma3":
        tokens, scores, types = spm_vocab()
    else:
        tokens, merges = byte_level_vocab()
        types, scores = [3, 3, 3] + [1] * (len(tokens) - 3), None
    mx.random.seed(3)
    model = _mlx_lm_model(family, len(tokens))
    rng = np.random.default_rng(4)
    params = {k: np.array(v) for k, v in tree_flatten(model.parameters())}
    for k in params:
        if k.endswith("norm.weight"):  # distinct norms: a missing shift or swapped norm must show
            params[k] = (params[k] + rng.normal(0, 0.3, params[k].shape)).astype(np.float32)
    params["model.embed_tokens.weight"] *= 4.0
    model.load_weights(list({k: mx.array(v) for k, v in params.items()}.items()))
    arch_name = arch or family
    w = gguf.GGUFWriter(str(path), arch_name)
    w.add_name(f"tiny-{family}")
    w.add_block_count(6 if family == "gemma3" else LAYERS)  # Gemma: llama.cpp's default pattern, one global layer
    w.add_context_length(512)
    w.add_embedding_length(HIDDEN)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_layer_norm_rms_eps(1e-5)
    if family == "gemma3":
        w.add_rope_freq_base(1e6)
        w.add_key_length(HEAD_DIM)
        w.add_value_length(HEAD_DIM)
        w.add_sliding_window(8)
        w.add_tokenizer_model("llama")
        w.add_token_scores(scores)
        w.add_add_bos_token(True)
        w.add_add_space_prefix(False)
        w.add_bos_token_id(2)
        w.add_eos_token_id(1)
        w.add_unk_token_id(3)
    else:
        w.add_rope_freq_base(50000.0)
        w.add_rope_dimension_count(HIDDEN // HEADS)
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("smollm")
        w.add_token_merges(merges)
        w.add_add_bos_token(False)
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_chat_template("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                            "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    w.add_token_list(tokens)
    w.add_token_types(types)
    layer_map = GEMMA_LAYER if family == "gemma3" else GGUF_LAYER
    for name, value in params.items():
        if name == "lm_head.weight":
            gname = "output.weight"
        elif name == "model.embed_tokens.weight":
            gname = "token_embd.weight"
        elif name == "model.norm.weight":
            gname = "output_norm.weight"
        else:
            _, _, index, rest = name.split(".", 3)
            module, kind = rest.rsplit(".", 1)
            gname = f"blk.{index}.{layer_map[module]}.{kind}"
        if family == "llama" and gname.startswith("blk.") and gname.split(".")[2] in ("attn_q", "attn_k"):
            value = llama_cpp_permute(value, HEADS if ".attn_q." in gname else KV_HEADS)
        if family == "gemma3" and gname.endswith("norm.weight"):
            value = value + 1.0
        if qtype is not None and value.ndim == 2:
            w.add_tensor(gname, quants.quantize(value, qtype), raw_dtype=qtype)
        else:
            w.add_tensor(gname, np.ascontiguousarray(value, dtype=np.float32))
    if extra_tensor is not None:
        w.add_tensor(*extra_tensor[:2], raw_dtype=extra_tensor[2] if len(extra_tensor) > 2 else None)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return model


def logits(model, ids=IDS):
    return np.array(model(mx.array(ids)[None])[0].astype(mx.float32))


# ---------------------------------------------------------------- round trips


@pytest.mark.parametrize("family", ["llama", "qwen2", "qwen3", "gemma3"])
def test_a_gguf_written_as_llama_cpp_does_converts_back_to_the_same_model(tmp_path, family):
    from mlx_lm import load as mlx_lm_load

    original = write_gguf(tmp_path / "m.gguf", family)
    folder = convert_gguf(tmp_path / "m.gguf", tmp_path / "out")
    model, tok = mlx_lm_load(str(folder))
    expected_type = "gemma3_text" if family == "gemma3" else family
    assert json.loads((folder / "config.json").read_text())["model_type"] == expected_type
    np.testing.assert_allclose(logits(model), logits(original), rtol=1e-4, atol=1e-4)
    assert {f.name for f in folder.iterdir()} == {"config.json", "model.safetensors", "tokenizer.json",
                                                  "tokenizer_config.json", "generation_config.json", "README.md"}


def test_the_unpermutation_is_the_inverse_of_llama_cpps_permutation():
    w = np.arange(8 * 48 * 3).reshape(8 * 48, 3)
    for heads in (1, 3, 8):
        assert np.array_equal(llama_cpp_permute(w, heads)[unpermute_rows(w.shape[0], heads)], w)


def test_an_unpermuted_llama_would_be_caught(tmp_path, monkeypatch):
    """The round trip can fail: converting without the unpermutation changes the logits."""
    import mlx_specdec.from_gguf.archs as archs
    from mlx_lm import load as mlx_lm_load

    original = write_gguf(tmp_path / "m.gguf", "llama")
    monkeypatch.setitem(archs.ARCHITECTURES, "llama", archs.ARCHITECTURES["llama"][:2] + (False, 0.0))
    model, _ = mlx_lm_load(str(convert_gguf(tmp_path / "m.gguf", tmp_path / "out")))
    assert np.abs(logits(model) - logits(original)).max() > 1e-2


@pytest.mark.parametrize("qtype", ["Q4_0", "Q4_1", "Q5_0", "Q8_0"])
def test_quantized_keeps_the_blocks_exactly(tmp_path, qtype):
    from mlx_lm import load as mlx_lm_load

    kind = gguf.GGMLQuantizationType[qtype]
    write_gguf(tmp_path / "m.gguf", "llama", qtype=kind)
    reader = gguf.GGUFReader(str(tmp_path / "m.gguf"))
    for t in reader.tensors:
        if t.tensor_type == kind:
            ref = quants.dequantize(t.data, t.tensor_type)
            codes, scales, biases, bits, group = affine_codes(qtype, np.asarray(t.data), ref.shape[1])
            ours = mx.dequantize(mx.array(pack(codes, bits)), mx.array(scales), mx.array(biases),
                                 group_size=group, bits=bits)
            assert np.array_equal(np.array(ours), ref), t.name
    fp32 = logits(mlx_lm_load(str(convert_gguf(tmp_path / "m.gguf", tmp_path / "fp32")))[0])
    folder = convert_gguf(tmp_path / "m.gguf", tmp_path / "q", quantized=True)
    config = json.loads((folder / "config.json").read_text())
    assert config["quantization"]["bits"] == {"Q5_0": 5, "Q8_0": 8}.get(qtype, 4)
    quantized = logits(mlx_lm_load(str(folder))[0])
    np.testing.assert_allclose(quantized, fp32, rtol=1e-4, atol=1e-4)  # the same values, another kernel


def test_q4_k_blocks_repack_exactly():
    """Q4_K (Gemma's attention output, in the real file): random super-blocks, every byte pattern of the 6-bit
    scales and mins and the nibbles, against gguf's own dequantiser."""
    rng = np.random.default_rng(0)
    rows, blocks = 16, 4  # 16 rows of 1024 inputs
    raw = rng.integers(0, 256, size=(rows, blocks, 144), dtype=np.uint8)
    scale = rng.uniform(1e-3, 1e-1, size=(rows, blocks, 2)).astype(np.float16)  # d and dmin, finite
    raw[..., 0:4] = scale.view(np.uint8).reshape(rows, blocks, 4)
    raw = raw.reshape(rows, blocks * 144)
    ref = quants.dequantize(raw, gguf.GGMLQuantizationType.Q4_K)
    codes, scales, biases, bits, group = affine_codes("Q4_K", raw, ref.shape[1])
    ours = mx.dequantize(mx.array(pack(codes, bits)), mx.array(scales), mx.array(biases), group_size=group, bits=bits)
    assert ref.shape == (rows, 1024) and np.array_equal(np.array(ours), ref)


# ---------------------------------------------------------------- the tokenizer


def llama_cpp_spm(text: str, tokens: list[str], scores: list[float]) -> list[int]:
    """llama.cpp's SPM tokenizer (llm_tokenizer_spm_session), transcribed: merge the best-scoring adjacent pair
    (leftmost on ties) while one forms a token; spell what is left in byte tokens."""
    ids = {t: i for i, t in enumerate(tokens)}
    symbols = list(text.replace(" ", "▁"))
    while True:
        best = None
        for i in range(len(symbols) - 1):
            merged = symbols[i] + symbols[i + 1]
            if merged in ids and (best is None or scores[ids[merged]] > scores[ids[best[1]]]):
                best = (i, merged)
        if best is None:
            break
        symbols[best[0]: best[0] + 2] = [best[1]]
    out = []
    for s in symbols:
        out += [ids[s]] if s in ids else [ids[f"<0x{b:02X}>"] for b in s.encode()]
    return out


def test_the_spm_tokenizer_merges_as_llama_cpp_does(tmp_path):
    write_gguf(tmp_path / "m.gguf", "gemma3")
    folder = convert_gguf(tmp_path / "m.gguf", tmp_path / "out")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    tokens, scores, _ = spm_vocab()
    rng = np.random.default_rng(0)
    alphabet = list("abcdeth ") + ["é", "中"]
    for _ in range(300):
        text = "".join(rng.choice(alphabet, size=rng.integers(1, 14)))
        assert tok.encode(text, add_special_tokens=False).ids == llama_cpp_spm(text, tokens, scores), text
        assert tok.decode(tok.encode(text, add_special_tokens=False).ids) == text
    assert tok.encode("ab").ids[0] == 2  # add_bos: <bos> first
    assert tok.encode("a<start_of_turn>b\nc", add_special_tokens=False).ids == [
        tokens.index("a"), 4, tokens.index("b"), 6, tokens.index("c")]  # control and user-defined matched whole


def test_spm_merges_rank_by_the_merged_tokens_score():
    tokens, scores, types = spm_vocab()
    merges = spm_merges(tokens, types, scores)
    assert merges.index(("a", "b")) < merges.index(("b", "c")) < merges.index(("ab", "c"))
    assert ("a", "bc") in merges and ("▁", "the") in merges and ("▁the", "x") not in merges


def test_the_byte_level_tokenizer_splits_digits_one_by_one_and_keeps_specials(tmp_path):
    write_gguf(tmp_path / "m.gguf", "llama")
    folder = convert_gguf(tmp_path / "m.gguf", tmp_path / "out")
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    ids = tok.encode("<|im_start|>the 2024", add_special_tokens=False).ids
    tokens, _ = byte_level_vocab()
    assert [tokens[i] for i in ids] == ["<|im_start|>", "the"[:1], "he", "Ġ", "2", "0", "2", "4"]
    config = json.loads((folder / "tokenizer_config.json").read_text())
    assert config["eos_token"] == "<|im_end|>" and config["add_bos_token"] is False and "chat_template" in config
    assert json.loads((folder / "generation_config.json").read_text())["eos_token_id"] == [0, 2]


# ---------------------------------------------------------------- refusals: one line, nothing written


def _refused(tmp_path, src, match, **kwargs):
    out = tmp_path / "out"
    with pytest.raises(SpecDecError, match=match) as info:
        convert_gguf(src, out, **kwargs)
    assert "\n" not in str(info.value)
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_an_unknown_architecture_is_refused(tmp_path):
    write_gguf(tmp_path / "m.gguf", "llama", arch="mamba")
    _refused(tmp_path, tmp_path / "m.gguf", "architecture 'mamba' is not supported")


def test_an_unknown_tensor_is_refused_by_name(tmp_path):
    write_gguf(tmp_path / "m.gguf", "llama", extra_tensor=("blk.0.ffn_gate_exps.weight", np.zeros((4, 64), np.float32)))
    _refused(tmp_path, tmp_path / "m.gguf", "blk.0.ffn_gate_exps.weight")


def test_a_tensor_type_without_a_dequantiser_is_refused(tmp_path):
    raw = np.zeros((259, 2 * 40), np.uint8)  # Q8_1: 40 bytes per 32 values; gguf has no dequantiser for it
    write_gguf(tmp_path / "m.gguf", "llama", extra_tensor=("output.weight", raw, gguf.GGMLQuantizationType.Q8_1))
    _refused(tmp_path, tmp_path / "m.gguf", "type Q8_1")


def test_a_truncated_file_is_refused(tmp_path):
    write_gguf(tmp_path / "m.gguf", "llama")
    data = (tmp_path / "m.gguf").read_bytes()
    (tmp_path / "cut.gguf").write_bytes(data[: len(data) - 1000])
    _refused(tmp_path, tmp_path / "cut.gguf", "truncated")
    (tmp_path / "head.gguf").write_bytes(data[:200])
    _refused(tmp_path, tmp_path / "head.gguf", "truncated or corrupt")


def test_a_checksum_mismatch_or_a_file_that_is_not_gguf_is_refused(tmp_path):
    write_gguf(tmp_path / "m.gguf", "llama")
    _refused(tmp_path, tmp_path / "m.gguf", "does not match the expected", sha256="0" * 64)
    (tmp_path / "x.gguf").write_bytes(b"PK\x03\x04 not a gguf")
    _refused(tmp_path, tmp_path / "x.gguf", "is not a GGUF file")
    _refused(tmp_path, tmp_path / "missing.gguf", "does not exist")


def test_an_existing_folder_is_not_replaced_without_overwrite(tmp_path):
    write_gguf(tmp_path / "m.gguf", "llama")
    folder = convert_gguf(tmp_path / "m.gguf", tmp_path / "out")
    before = (folder / "model.safetensors").stat().st_mtime_ns
    with pytest.raises(SpecDecError, match="already holds a model"):
        convert_gguf(tmp_path / "m.gguf", folder)
    assert (folder / "model.safetensors").stat().st_mtime_ns == before
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep me")
    with pytest.raises(SpecDecError, match="not a model folder"):
        convert_gguf(tmp_path / "m.gguf", tmp_path / "notes", overwrite=True)
    assert (tmp_path / "notes" / "mine.txt").read_text() == "keep me"


def test_the_command_line_converts_and_refuses_in_one_line(tmp_path, capsys):
    from mlx_specdec.cli.convert import main

    write_gguf(tmp_path / "m.gguf", "qwen3")
    assert main([str(tmp_path / "m.gguf"), "--out", str(tmp_path / "out"), "--dtype", "float16"]) == 0
    assert "mlx-lm qwen3" in capsys.readouterr().out
    assert json.loads((tmp_path / "out" / "config.json").read_text())["gguf_source"]["dtype"] == "float16"
    shutil.copy(tmp_path / "m.gguf", tmp_path / "n.gguf")
    assert main([str(tmp_path / "n.gguf"), "--out", str(tmp_path / "o2"), "--sha256", "1" * 64]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not match" in err and not (tmp_path / "o2").exists()
    assert main([str(tmp_path / "n.gguf"), "--out", str(tmp_path / "o3"), "--key-map", "x.json"]) == 2
