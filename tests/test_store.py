"""The model store: a saved folder loads back to the same model; every broken folder is one clear error."""

import json
import os

import mlx_specdec  # noqa: F401  (before mlx.core)
import mlx.core as mx
import pytest
from mlx.utils import tree_flatten

from mlx_specdec.errors import ModelLoadError
from mlx_specdec.models import store
from mlx_specdec.models.store import load_store, save_model
from mlx_specdec.models.storylm import StoryLM, StoryLMConfig, build, num_parameters, preset

VOCAB = 400


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    from mlx_specdec.data import iter_texts
    from mlx_specdec.models.tokenizer import StoryTokenizer

    path = tmp_path_factory.mktemp("tok") / "tokenizer.model"
    return StoryTokenizer.train(iter_texts("bundled", "train", n=300, seed=0), path, vocab_size=VOCAB)


@pytest.fixture(scope="module")
def model():
    return build(preset("storylm-tiny", vocab_size=VOCAB), seed=3)


@pytest.fixture
def folder(tmp_path, model, tok):
    return save_model(model, tok, tmp_path / "m", card={"corpus": "bundled", "steps": 7})


def one_line(excinfo) -> str:
    msg = str(excinfo.value)
    assert "\n" not in msg
    return msg


def test_saved_folder_has_the_four_files_and_config(folder, model, tok):
    assert sorted(p.name for p in folder.iterdir()) == ["README.md", "config.json", "model.safetensors", "tokenizer.model"]
    config = json.loads((folder / "config.json").read_text())
    assert config["model_type"] == "storylm"
    assert StoryLMConfig.from_dict(config["architecture"]) == model.args
    assert config["tokenizer_fingerprint"] == tok.fingerprint
    assert config["dtype"] == "float16"
    assert config["parameters"] == num_parameters(model)
    assert config["preset"] == "storylm-tiny"
    on_disk = mx.load(str(folder / "model.safetensors"))
    assert {v.dtype for v in on_disk.values()} == {mx.float16}
    assert (folder / "tokenizer.model").read_bytes() == tok.path.read_bytes()
    card = (folder / "README.md").read_text()
    assert "| corpus | bundled |" in card and "| steps | 7 |" in card and tok.fingerprint in card


def test_round_trip_gives_fp16_rounded_weights_and_same_logits(folder, model, tok):
    loaded, loaded_tok = load_store(folder)
    assert isinstance(loaded, StoryLM) and not loaded.training
    assert loaded_tok.fingerprint == tok.fingerprint
    want = dict(tree_flatten(model.parameters()))
    for k, v in tree_flatten(loaded.parameters()):
        assert v.dtype == mx.float32  # the CPU computes in fp32
        assert mx.array_equal(v, want[k].astype(mx.float16).astype(mx.float32)), k
    x = mx.array([[tok.bos_id, 50, 60, 70, 80]])
    assert mx.allclose(loaded(x), model(x), atol=2e-2)


def test_public_load_dispatches_store_folders_here(folder):
    model, tok = mlx_specdec.load(str(folder))
    assert isinstance(model, StoryLM) and tok.vocab_size == VOCAB


def test_save_replaces_an_existing_folder_and_leaves_no_temp(tmp_path, model, tok):
    out = tmp_path / "m"
    save_model(model, tok, out)
    (out / "stale.txt").write_text("from an older save")
    other = build(preset("storylm-tiny", vocab_size=VOCAB), seed=4)
    save_model(other, tok.path, out, overwrite=True)  # a tokenizer path works too
    assert not (out / "stale.txt").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["m"]
    loaded, _ = load_store(out)
    w = loaded.model.embed_tokens.weight
    assert mx.array_equal(w, other.model.embed_tokens.weight.astype(mx.float16).astype(mx.float32))


def test_failed_save_keeps_the_previous_folder(tmp_path, model, tok, monkeypatch):
    out = save_model(model, tok, tmp_path / "m")
    before = {p.name: p.read_bytes() for p in out.iterdir()}

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(store.mx, "save_safetensors", boom)
    with pytest.raises(OSError, match="disk full"):
        save_model(build(preset("storylm-tiny", vocab_size=VOCAB), seed=9), tok, out, overwrite=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert [p.name for p in tmp_path.iterdir()] == ["m"]


def test_save_refuses_a_tokenizer_of_another_vocabulary(tmp_path, tok):
    with pytest.raises(ModelLoadError, match="vocab_size 400 != model vocab_size 512") as e:
        save_model(build(preset("storylm-tiny", vocab_size=512)), tok, tmp_path / "m")
    one_line(e)


def test_missing_path_and_file_path_are_refused(tmp_path):
    with pytest.raises(ModelLoadError, match="does not exist") as e:
        load_store(tmp_path / "nope")
    one_line(e)
    (tmp_path / "f").write_text("x")
    with pytest.raises(ModelLoadError, match="is not a directory") as e:
        load_store(tmp_path / "f")
    one_line(e)


@pytest.mark.parametrize("name", ["config.json", "model.safetensors", "tokenizer.model"])
def test_missing_file_is_named(folder, name):
    (folder / name).unlink()
    with pytest.raises(ModelLoadError, match=f"missing {name}") as e:
        load_store(folder)
    one_line(e)


def test_truncated_weights_are_corrupt(folder):
    w = folder / "model.safetensors"
    w.write_bytes(w.read_bytes()[: w.stat().st_size // 2])
    with pytest.raises(ModelLoadError, match="corrupt or truncated") as e:
        load_store(folder)
    one_line(e)


def _edit_config(folder, **changes):
    config = json.loads((folder / "config.json").read_text())
    for k, v in changes.items():
        if k in config["architecture"]:
            config["architecture"][k] = v
        else:
            config[k] = v
    (folder / "config.json").write_text(json.dumps(config))


def test_config_shape_mismatch_names_parameter_and_both_shapes(folder):
    _edit_config(folder, hidden_dim=128)
    with pytest.raises(ModelLoadError) as e:
        load_store(folder)
    msg = one_line(e)
    assert "'model.layers.0.mlp.gate_proj.weight'" in msg and "(128, 32)" in msg and "(96, 32)" in msg


def test_config_with_more_layers_than_weights_names_the_missing_parameter(folder):
    _edit_config(folder, n_layers=3)
    with pytest.raises(ModelLoadError, match="lacks parameter 'model.layers.2.") as e:
        load_store(folder)
    one_line(e)


def test_unknown_model_type_is_refused(folder):
    _edit_config(folder, model_type="gpt2")
    with pytest.raises(ModelLoadError, match="unknown model_type 'gpt2'") as e:
        load_store(folder)
    one_line(e)


def test_tokenizer_fingerprint_mismatch_is_refused(folder, tok):
    _edit_config(folder, tokenizer_fingerprint="0123456789abcdef")
    with pytest.raises(ModelLoadError, match="fingerprint mismatch") as e:
        load_store(folder)
    msg = one_line(e)
    assert "0123456789abcdef" in msg and tok.fingerprint in msg


def test_invalid_json_and_bad_architecture_are_refused(folder):
    (folder / "config.json").write_text("{not json")
    with pytest.raises(ModelLoadError, match="not valid JSON") as e:
        load_store(folder)
    one_line(e)
    (folder / "config.json").write_text(json.dumps({"model_type": "storylm", "architecture": {"depth": 3}}))
    with pytest.raises(ModelLoadError, match="depth") as e:
        load_store(folder)
    one_line(e)


def test_junk_tokenizer_file_is_refused(folder):
    (folder / "tokenizer.model").write_bytes(os.urandom(64))
    with pytest.raises(ModelLoadError, match="tokenizer") as e:
        load_store(folder)
    one_line(e)
