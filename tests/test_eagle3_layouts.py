"""The published EAGLE-3 layouts, loaded onto the kind of target they are published for (a Llama: SmolLM2).

Each checkpoint is written in exactly its layout (names, config keys, layer
ids in that layout's convention, d2t int64 and t2d bool) and read twice: by
`load_eagle3` and by an independent NumPy reading of the reference code
(tests/eagle3_reference.py). Their context-pass logits must agree; the same
checkpoint with its ids moved by one layer must not, so a loader that got the
off-by-one between the conventions wrong fails here.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import mlx.core as mx
import numpy as np
import pytest
from mlx.utils import tree_flatten

from mlx_specdec import greedy_generate, load, speculative_generate
from mlx_specdec.drafters.eagle3 import Eagle3Drafter
from mlx_specdec.errors import ModelLoadError, SpecDecError
from mlx_specdec.features import capture, features, tap
from mlx_specdec.models.eagle3 import Eagle3Config, Eagle3Model, default_target_layers
from mlx_specdec.models.eagle3_layouts import layout_of, write_published
from mlx_specdec.models.eagle3_store import is_eagle3_folder, load_eagle3
from mlx_specdec.sampling import GREEDY
from tests import eagle3_reference as ref

ROOT = Path(__file__).resolve().parents[1]
SMOLLM2 = ROOT / "models" / "real" / "smollm2-135m-instruct"
TEXT = "Copy this list: apples, pears, plums, cherries, and then say which one is red."

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def smollm2():
    if not (SMOLLM2 / "model.safetensors").is_file():
        pytest.skip("models/real/smollm2-135m-instruct not converted: make real-models")
    return load(str(SMOLLM2))


def random_drafter(target, **flags) -> Eagle3Model:
    a = target.args
    cfg = Eagle3Config(hidden_size=a.hidden_size, intermediate_size=a.intermediate_size,
                       num_attention_heads=a.num_attention_heads, num_key_value_heads=a.num_key_value_heads,
                       head_dim=a.head_dim, vocab_size=a.vocab_size, draft_vocab_size=4096,
                       target_layers=default_target_layers(a.num_hidden_layers), rope_theta=a.rope_theta,
                       rms_norm_eps=a.rms_norm_eps, **flags)
    mx.random.seed(7)
    model = Eagle3Model(cfg)
    vocab = np.sort(np.random.default_rng(7).choice(a.vocab_size, 4096, replace=False))
    model.d2t = mx.array(vocab.astype(np.int32)) - mx.arange(4096, dtype=mx.int32)
    if cfg.fc_norm or cfg.norm_before_fc:  # norms that are not all ones, so a missing one shows
        for name, p in model.parameters().items():
            if name in ("fc_norm", "input_norm"):
                for norm in (p if isinstance(p, list) else [p]):
                    norm["weight"] = 1 + 0.5 * mx.random.normal(norm["weight"].shape)
        model.update(model.parameters())
    return model


def ours(folder, target, ids):
    drafter = load_eagle3(folder, target)
    layers = tap(target, drafter.config.target_layers)
    with capture() as sink:
        target(mx.array(ids[:-1])[None])
    logits, _ = drafter(mx.array(ids[1:])[None], drafter.fuse(features(sink, layers))[None])
    return np.array(logits[0], dtype=np.float32), np.array(drafter.draft_to_target)


def reference(folder, target, ids):
    states = ref.hf_hidden_states(target, ids[:-1])
    return ref.context_logits(folder, states, np.array(target.model.embed_tokens.weight, dtype=np.float32), ids[1:])


def moved_by_one(folder: Path, out: Path) -> Path:
    """The ids one layer off: up for Speculators; down for the EAGLE layout (up would start the list at 2, which
    is read as the inputs form and names the same tensors)."""
    shutil.copytree(folder, out)
    config = json.loads((out / "config.json").read_text())
    holder, step = (config["eagle_config"], -1) if "eagle_config" in config else (config, 1)
    holder["eagle_aux_hidden_state_layer_ids"] = [i + step for i in holder["eagle_aux_hidden_state_layer_ids"]]
    (out / "config.json").write_text(json.dumps(config))
    return out


CASES = {
    "speculators": ("speculators", {}, None),
    "speculators, new trainer's norms": ("speculators", dict(norm_before_residual=True, norm_before_fc=True), None),
    "speculators, fc_norm": ("speculators", dict(fc_norm=True), None),
    "speculators, no ids": ("speculators", {}, "drop ids"),
    "specforge": ("eagle", {}, None),
    "eagle template, no ids": ("eagle", {}, "eagle template"),
    "eagle, ids in the capture form": ("eagle", {}, "capture ids"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_published_layout_is_read_as_its_reference_reads_it(smollm2, tmp_path, case):
    target, tok = smollm2
    layout, flags, variant = CASES[case]
    folder = write_published(random_drafter(target, **flags), tmp_path / "d", layout)
    config = json.loads((folder / "config.json").read_text())
    if variant == "drop ids":
        del config["eagle_aux_hidden_state_layer_ids"]
    if variant == "capture ids":  # [2, 15, 27]: inputs of those layers, the tensors SpecForge names [1, 14, 26]
        config["eagle_config"]["eagle_aux_hidden_state_layer_ids"] = [2, 15, 27]
    if variant == "eagle template":
        config["architectures"] = ["LlamaForCausalLM"]
        del config["eagle_config"]
    (folder / "config.json").write_text(json.dumps(config))
    assert layout_of(folder) == layout and is_eagle3_folder(folder)
    ids = list(tok.encode(TEXT))
    mine, mine_map = ours(folder, target, ids)
    theirs, their_map = reference(folder, target, ids)
    np.testing.assert_array_equal(mine_map, their_map)
    np.testing.assert_allclose(mine, theirs, atol=2e-3, rtol=2e-3)
    if variant is None:
        moved = moved_by_one(folder, tmp_path / "moved")
        wrong, _ = ours(moved, target, ids)
        assert np.abs(wrong - theirs).max() > 0.1  # one layer off is visible: the comparison has power
        np.testing.assert_allclose(wrong, reference(moved, target, ids)[0], atol=2e-3, rtol=2e-3)


def test_speculation_with_a_published_layout_is_plain_greedy(smollm2, tmp_path):
    target, tok = smollm2
    folder = write_published(random_drafter(target), tmp_path / "d", "speculators")
    ids = list(tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True))
    out, stats = speculative_generate(target, Eagle3Drafter(load_eagle3(folder, target)), ids, 24, k=3)
    assert out == greedy_generate(target, ids, 24) and stats.drafted > 0


def test_bad_published_checkpoints_are_refused_in_one_line(smollm2, tmp_path):
    target, _ = smollm2
    folder = write_published(random_drafter(target), tmp_path / "d", "speculators")
    config = json.loads((folder / "config.json").read_text())
    config["transformer_layer_config"]["num_hidden_layers"] = 2
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match="2 draft layers; only one is supported"):
        load_eagle3(folder, target)
    folder = write_published(random_drafter(target), tmp_path / "e", "eagle")
    weights = dict(mx.load(str(folder / "model.safetensors")))
    weights["t2d"] = mx.zeros(weights["t2d"].shape, dtype=mx.bool_)
    mx.save_safetensors(str(folder / "model.safetensors"), weights)
    with pytest.raises(ModelLoadError, match="t2d and d2t disagree"):
        load_eagle3(folder, target)


# ---------------------------------------------------------------- the shipped SmolLM2 drafter

SHIPPED_DRAFTER = ROOT / "models" / "smollm2-135m-eagle3"


@pytest.fixture(scope="module")
def shipped_drafter(smollm2):
    if not (SHIPPED_DRAFTER / "model.safetensors").is_file():
        pytest.skip("models/smollm2-135m-eagle3 is not in models/")
    return load_eagle3(SHIPPED_DRAFTER, smollm2[0])


@pytest.mark.parametrize("k", [4, "auto"])
def test_the_shipped_drafter_on_smollm2_is_plain_greedy_and_accepted(smollm2, shipped_drafter, k):
    target, tok = smollm2
    text = TEXT if k == "auto" else "Explain in two sentences why bread rises."  # a request of each kind
    ids = list(tok.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True))
    out, stats = speculative_generate(target, Eagle3Drafter(shipped_drafter), ids, 32, k=k)
    assert out == greedy_generate(target, ids, 32)
    if k != "auto":  # auto may rightly turn to plain steps where drafting does not pay on this machine
        assert stats.accepted > 0


def test_sampling_with_the_shipped_drafter_keeps_smollm2s_distribution(smollm2, shipped_drafter):
    """As test_real_targets' chi-square: every token of a sampled generation (temperature 1, top-k 8) through
    its randomised probability integral transform under SmolLM2's own conditional; drafts from the reduced
    draft vocabulary, q zero outside it."""
    from mlx_specdec.sampling import SamplingPolicy
    from tests.test_distribution import assert_drawn_from_target

    target, tok = smollm2
    ids = list(tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True))
    n = 100
    out, stats = speculative_generate(target, Eagle3Drafter(shipped_drafter), ids, n, k=4, temperature=1.0, top_k=8,
                                      seed=0)
    assert len(out) == n and 0 < stats.accepted < stats.drafted
    assert_drawn_from_target(target, ids, out, SamplingPolicy(temperature=1.0, top_k=8))


# ---------------------------------------------------------------- corpus and trainer, end to end on SmolLM2


def test_corpus_and_training_from_the_command_line(smollm2, tmp_path, monkeypatch):
    """`eagle corpus` answers instructions with the target, finishes an interrupted split byte for byte and
    refuses a folder it did not write; `eagle train` trains a drafter folder that generation takes as
    --draft-model; `eagle export` writes it in a published layout that loads back to the same drafts."""
    from mlx_specdec.cli.main import main

    target, tok = smollm2
    corpus = tmp_path / "corpus"
    args = ["eagle", "corpus", "--target", str(SMOLLM2), "--out", str(corpus), "--limit", "3", "--valid", "2",
            "--max-new", "8", "--batch-size", "2", "--quiet"]
    assert main(args) == 0
    train = (corpus / "train.jsonl").read_text()
    records = [json.loads(line) for line in train.splitlines()]
    assert len(records) == 3 and all(0 < len(r["answer"]) <= 8 for r in records)
    first = records[0]
    assert first["answer"] == greedy_generate(target, first["prompt"], len(first["answer"]))
    lines = train.splitlines(keepends=True)
    (corpus / "train.jsonl").unlink()
    (corpus / "train.jsonl.partial").write_text(lines[0] + lines[1][:10])  # a crash mid-line
    assert main(args) == 0
    assert (corpus / "train.jsonl").read_text() == train
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    assert main(args[:5] + [str(foreign)] + args[6:]) == 2
    assert [p.name for p in foreign.iterdir()] == ["notes.txt"]

    out = tmp_path / "drafter"
    assert main(["eagle", "train", "--base", str(SMOLLM2), "--corpus", str(corpus), "--out", str(out),
                 "--run-dir", str(tmp_path / "run"), "--max-steps", "2", "--batch-size", "2", "--seq-len", "64",
                 "--draft-vocab", "512", "--ttt-steps", "2", "--eval-rows", "2", "--quiet"]) == 0
    config = json.loads((out / "config.json").read_text())
    assert config["model_type"] == "eagle3" and config["architecture"]["target_layers"] == [1, 14, 26]
    assert "Trained with:" in (out / "README.md").read_text()
    # the final validation also scores as many training rows (a seeded draw), and the card shows both rows
    trained = config["card"]["train_acceptance"]
    assert list(trained) == list(config["card"]["acceptance"]) == ["acc_1", "acc_2"]
    assert all(0.0 <= v <= 1.0 for v in trained.values())
    assert "| accepted, training answers | " + " | ".join(f"{v:.1%}" for v in trained.values()) + " |" in (
        out / "README.md").read_text()
    ids = list(tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True))
    drafter = load_eagle3(out, target)
    mine, _ = speculative_generate(target, Eagle3Drafter(drafter), ids, 12, k=3)
    assert mine == greedy_generate(target, ids, 12)
    assert main(["eagle", "export", str(out), "--layout", "eagle", "--out", str(tmp_path / "x")]) == 0
    exported = load_eagle3(tmp_path / "x", target)
    seq_a, seq_b = Eagle3Drafter(drafter), Eagle3Drafter(exported)
    from mlx_specdec.state import make_sequence

    for d in (seq_a, seq_b):
        seq = make_sequence(target, "cache")
        seq.capture_features(d.feature_layers)
        d.bind(target, seq)
        seq.prefill(ids)
        d.prefill(ids)
    assert np.array(seq_a.propose(4, GREEDY, None)[0]).tolist() == np.array(seq_b.propose(4, GREEDY, None)[0]).tolist()


def test_a_sampled_corpus_and_a_second_stage_started_from_a_trained_drafter(smollm2, tmp_path):
    """`eagle corpus --temp T --seed S` samples its answers, the same for the same seed (a batch is a function of
    the settings and its index), and a greedy corpus's settings read as before the flags existed; `eagle train
    --init` starts from a trained drafter (its weights, architecture and draft vocabulary), reads several corpora's
    train splits (--corpus a,b) and validates on --valid-corpus; its card says what it started from."""
    from mlx_specdec.cli.main import main
    from mlx_specdec.training.eagle3 import Eagle3TrainConfig, train

    def corpus(out, *extra):
        assert main(["eagle", "corpus", "--target", str(SMOLLM2), "--out", str(tmp_path / out), "--limit", "3",
                     "--valid", "2", "--max-new", "8", "--batch-size", "2", "--quiet", *extra]) == 0
        return tmp_path / out

    greedy, sampled = corpus("greedy"), corpus("sampled", "--temp", "1.0", "--seed", "3")
    again = corpus("again", "--temp", "1.0", "--seed", "3")
    assert (sampled / "train.jsonl").read_bytes() == (again / "train.jsonl").read_bytes()
    answers = {name: [json.loads(line)["answer"] for line in (folder / "train.jsonl").read_text().splitlines()]
               for name, folder in (("greedy", greedy), ("sampled", sampled))}
    assert answers["sampled"] != answers["greedy"]
    settings = {name: json.loads((f / "corpus.json").read_text())["settings"] for name, f in
                (("greedy", greedy), ("sampled", sampled))}
    assert "temp" not in settings["greedy"] and "seed" not in settings["greedy"]
    assert (settings["sampled"]["temp"], settings["sampled"]["seed"]) == (1.0, 3)
    assert "sampled (temperature 1, seed 3)" in (sampled / "README.md").read_text()

    common = ["--base", str(SMOLLM2), "--batch-size", "2", "--seq-len", "64", "--ttt-steps", "2", "--eval-rows", "2",
              "--quiet"]
    first, passes = tmp_path / "first", tmp_path / "passes"
    assert main(["eagle", "train", "--corpus", str(greedy), "--out", str(first), "--run-dir", str(tmp_path / "r1"),
                 "--max-steps", "2", "--draft-vocab", "512", "--target-cache-dir", str(passes), *common]) == 0
    stored = {p: p.stat().st_mtime_ns for p in passes.glob("*/*.safetensors")}
    assert len(stored) >= 2  # the 2 validation rows at least
    start = load_eagle3(first, smollm2[0])
    cfg = Eagle3TrainConfig(base=str(SMOLLM2), corpus=f"{greedy},{sampled}", valid_corpus=str(greedy),
                            init=str(first), out=str(tmp_path / "second"), run_dir=str(tmp_path / "r2"), max_steps=1,
                            lr=1e-12, warmup=0, batch_size=2, seq_len=64, ttt_steps=2, eval_rows=2,
                            draft_vocab=1024, quiet=True, target_cache_dir=str(passes))  # (vocabulary: --init's)
    summary = train(cfg, *smollm2)
    # The second stage has the first's target layers and vocabulary: the same pass, read back, never rewritten.
    assert len(list(passes.iterdir())) == 1 and summary["target_passes"]["read"] >= 2
    assert all(p.stat().st_mtime_ns == t for p, t in stored.items())
    trained = dict(tree_flatten(summary["drafter"].parameters()))
    for name, value in tree_flatten(start.parameters()):
        assert np.allclose(np.array(trained[name].astype(mx.float32)), np.array(value.astype(mx.float32)), atol=1e-6), name
    second = tmp_path / "second"
    config = json.loads((second / "config.json").read_text())
    assert config["architecture"] == json.loads((first / "config.json").read_text())["architecture"]
    assert config["card"]["conversations"] == 6 and config["card"]["init"]["folder"] == str(first)
    assert config["card"]["init"]["steps"] == 2
    assert f"started from: the drafter in {first} (trained 2 steps" in (second / "README.md").read_text()

    foreign = tmp_path / "foreign"  # a drafter trained for another target is refused, in one line
    shutil.copytree(first, foreign)
    meta = json.loads((foreign / "config.json").read_text())
    meta["target_identity"] = {"weights": {"model.safetensors": "0000"}, "tokenizer_fingerprint": None}
    (foreign / "config.json").write_text(json.dumps(meta))
    assert main(["eagle", "train", "--corpus", str(greedy), "--init", str(foreign), "--out", str(tmp_path / "x"),
                 "--run-dir", str(tmp_path / "r3"), "--max-steps", "1", *common]) == 2
    assert not (tmp_path / "x").exists()


def test_a_limit_that_takes_the_whole_split_is_the_whole_split(tmp_path):
    """A corpus written with --limit 1120 (every one of the split's 1,111 instructions, the old make target) is
    the corpus the default writes: the command finishes or reuses it instead of refusing its folder."""
    from mlx_specdec.data import instructions
    from mlx_specdec.training.chat_corpus import META, ChatCorpusConfig, _open_folder

    n = len(instructions.load("train"))
    assert ChatCorpusConfig(target="t", out="o", limit=n + 9).settings()["limit"] is None
    assert ChatCorpusConfig(target="t", out="o", limit=n).settings()["limit"] is None
    assert ChatCorpusConfig(target="t", out="o", limit=n - 1).settings()["limit"] == n - 1
    cfg = ChatCorpusConfig(target="t", out=str(tmp_path))
    meta = {"format": "x", "settings": cfg.settings(), "target": {"weights": {}}, "instructions": {"version": 1}}
    (tmp_path / META).write_text(json.dumps({**meta, "settings": {**meta["settings"], "limit": n + 9}}))
    (tmp_path / "train.jsonl").write_text("{}\n")
    _open_folder(cfg, meta)  # the same corpus: kept
    assert (tmp_path / "train.jsonl").read_text() == "{}\n"
    (tmp_path / META).write_text(json.dumps({**meta, "settings": {**meta["settings"], "limit": n - 1}}))
    with pytest.raises(SpecDecError, match="other settings"):
        _open_folder(cfg, meta)
