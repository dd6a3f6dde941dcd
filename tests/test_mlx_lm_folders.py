"""Any mlx-lm model pair: real model folders on disk, loaded through load()."""

import shutil
from pathlib import Path

import mlx.core as mx
from mlx.utils import tree_flatten
import numpy as np
import pytest
from mlx_lm.models import llama, qwen3
from mlx_lm.utils import save_config, save_model

from mlx_specdec import greedy_generate, load, speculative_generate
from mlx_specdec.errors import IncompatibleModelsError, ModelLoadError
from mlx_specdec.generate import speculative_stream
from mlx_specdec.loading import check_pair, load_pair

FIXTURE_TOKENIZER = Path(__file__).parent / "fixtures" / "gpt_neo" / "target"
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.json", "merges.txt")
VOCAB = 512


def make_folder(path: Path, family: str, hidden: int, layers: int, seed: int) -> Path:
    config = {
        "model_type": family, "hidden_size": hidden, "num_hidden_layers": layers,
        "intermediate_size": 2 * hidden, "num_attention_heads": 4, "num_key_value_heads": 2,
        "rms_norm_eps": 1e-5, "vocab_size": VOCAB, "tie_word_embeddings": True,
        "max_position_embeddings": 512, "rope_theta": 10000.0, "head_dim": hidden // 4,
    }
    module = {"llama": llama, "qwen3": qwen3}[family]
    mx.random.seed(seed)
    model = module.Model(module.ModelArgs.from_dict(config))
    # Sharpen the random logits so greedy chains have structure to agree on.
    model.update({"model": {"embed_tokens": {"weight": model.model.embed_tokens.weight * 4.0}}})
    model.set_dtype(mx.float16)  # as real checkpoints ship; load() must compute in fp32 on the CPU
    save_model(path, model)
    save_config(config, path / "config.json")
    for name in TOKENIZER_FILES:
        if (FIXTURE_TOKENIZER / name).exists():
            shutil.copy(FIXTURE_TOKENIZER / name, path / name)
    return path


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("mlx_lm_models")
    return {
        family: (
            make_folder(root / f"{family}-target", family, 64, 3, seed=1),
            make_folder(root / f"{family}-drafter", family, 32, 1, seed=2),
        )
        for family in ("llama", "qwen3")
    }


def test_load_casts_half_precision_weights_to_the_compute_dtype(folders):
    from mlx_specdec.models.folders import compute_dtype

    model, _ = load(folders["llama"][0])  # the folder holds float16 weights
    want = mx.float32 if mx.default_device() == mx.cpu else compute_dtype()
    assert {v.dtype for _, v in tree_flatten(model.parameters())} == {want}


@pytest.mark.parametrize("family", ["llama", "qwen3"])
@pytest.mark.parametrize("k", [1, 2, 4, 8])
def test_speculative_greedy_equals_plain_greedy_on_loaded_folders(folders, family, k):
    target, drafter, tokenizer = load_pair(str(folders[family][0]), str(folders[family][1]))
    for text in ["Once", "the cat sat on the mat and looked at the", "a b c d e f g h i j k l m n o p q"]:
        prompt = tokenizer.encode(text)
        expected = greedy_generate(target, prompt, 30)
        out, stats = speculative_generate(target, drafter, prompt, 30, k=k)
        assert out == expected
        reference, _ = speculative_generate(target, drafter, prompt, 30, k=k, strategy="recompute")
        assert reference == expected
        compiled, _ = speculative_generate(target, drafter, prompt, 30, k=k, strategy="compiled")
        assert compiled == expected
        assert stats.generated == 30


@pytest.mark.parametrize("family", ["llama", "qwen3"])
def test_eos_mid_block_and_cap_on_loaded_folders(folders, family):
    target, drafter, tokenizer = load_pair(str(folders[family][0]), str(folders[family][1]))
    prompt = tokenizer.encode("the cat")
    chain = greedy_generate(target, prompt, 40)
    eos = chain[9]
    expected = chain[: chain.index(eos) + 1]
    out, _ = speculative_generate(target, drafter, prompt, 40, k=4, eos_id=eos)
    assert out == expected
    for cap in (1, 6, 13):
        assert speculative_generate(target, drafter, prompt, cap, k=8)[0] == chain[:cap]


@pytest.mark.parametrize("strategy", ["cache", "compiled"])
@pytest.mark.parametrize("family", ["llama", "qwen3"])
def test_committed_kv_equals_target_only_decoding_after_every_round(folders, family, strategy):
    target, drafter, tokenizer = load_pair(str(folders[family][0]), str(folders[family][1]))
    prompt = tokenizer.encode("the quick brown fox")
    emitted: list[int] = []
    snapshots = []

    def snapshot(target_seq, _drafter):
        n = target_seq.committed
        snapshots.append((n, [(np.array(c.keys[..., :n, :]), np.array(c.values[..., :n, :])) for c in target_seq.cache]))

    rounds = 0
    for emission in speculative_stream(target, drafter, prompt, 24, k=4, on_commit=snapshot, strategy=strategy):
        emitted.extend(emission.ids)
        n, layers = snapshots[-1]
        committed = prompt + emitted
        assert n == len(committed) - 1  # the last emitted token is pending
        # Target-only decoding of the same prefix, one token at a time.
        from mlx_lm.models.cache import make_prompt_cache

        cache = make_prompt_cache(target)
        for t in committed[:-1]:
            target(mx.array([[t]]), cache=cache)
        for (keys, values), c in zip(layers, cache):
            np.testing.assert_allclose(keys, np.array(c.keys[..., :n, :]), atol=2e-5)
            np.testing.assert_allclose(values, np.array(c.values[..., :n, :]), atol=2e-5)
        rounds += 1
    assert rounds >= 2 and emitted == greedy_generate(target, prompt, 24)


def test_missing_folder_and_missing_weights_are_one_line_errors(tmp_path):
    with pytest.raises(ModelLoadError, match="model path 'no/such/dir/here' does not exist"):
        load("no/such/dir/here")
    (tmp_path / "config.json").write_text('{"model_type": "llama"}')
    with pytest.raises(ModelLoadError, match=r"has no \*.safetensors weights"):
        load(tmp_path)


def test_offline_hub_id_gives_a_clear_message(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelLoadError, match="'someone/some-model' is not a local folder and the hub is disabled"):
        load("someone/some-model")


def test_vocabulary_mapping_mismatch_is_refused(folders, tmp_path):
    _, tokenizer = load(folders["llama"][0])
    shuffled = tmp_path / "shuffled"
    shutil.copytree(folders["llama"][1], shuffled)
    import json

    spec = json.loads((shuffled / "tokenizer.json").read_text())
    vocab = spec["model"]["vocab"]
    a, b = sorted(vocab, key=vocab.get)[100:102]
    vocab[a], vocab[b] = vocab[b], vocab[a]
    (shuffled / "tokenizer.json").write_text(json.dumps(spec))
    (shuffled / "vocab.json").write_text(json.dumps(vocab))
    _, other = load(shuffled)
    with pytest.raises(IncompatibleModelsError, match="map token .* to different ids"):
        check_pair(tokenizer, other, "target-dir", "shuffled-dir")


def test_hugging_face_gpt_neo_folder_loads_through_conversion(tmp_path, monkeypatch):
    monkeypatch.setenv("MLX_SPECDEC_CACHE", str(tmp_path))
    target, tok = load(Path(__file__).parent / "fixtures" / "gpt_neo" / "target")
    drafter, dtok = load(Path(__file__).parent / "fixtures" / "gpt_neo" / "drafter")
    check_pair(tok, dtok, "target", "drafter")
    prompt = tok.encode("the cat")
    assert speculative_generate(target, drafter, prompt, 12, k=3)[0] == greedy_generate(target, prompt, 12)
    assert len(list(tmp_path.iterdir())) == 2  # converted once each, cached
