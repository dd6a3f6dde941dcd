"""Nothing lost, nothing cryptic: every writer keeps what it did not make, every bad input gets one line.

Each case of issue 11 has a test here; the command lines run as subprocesses
in temp folders where it matters (tracebacks printed by the interpreter, exit
codes, signals) and in-process where the behaviour is the same and a
subprocess would only add seconds. The sweep at the end drives more than 60
bad values through every command line and checks, for each, a non-zero exit,
no traceback, and every file that existed before byte-identical after.
"""

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import mlx_specdec  # noqa: F401  (before mlx.core)
import mlx.core as mx
import numpy as np
import pytest

from mlx_specdec import speculative_generate
from mlx_specdec.errors import ModelLoadError, SpecDecError, TrainingDiverged
from mlx_specdec.generate import greedy_generate
from mlx_specdec.cli.generate import main as generate_main
from tests.mocks import TableLM

ROOT = Path(__file__).resolve().parents[1]


def run(module, *args, cwd=None, timeout=120):
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def snapshot(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_kept(before: dict, root: Path) -> None:
    after = snapshot(root)
    lost = sorted(set(before) - set(after))
    assert not lost, f"deleted: {lost[:5]}"
    changed = sorted(k for k in before if after[k] != before[k])
    assert not changed, f"changed: {changed[:5]}"


def one_clean_line(err: str) -> None:
    assert "Traceback" not in err
    lines = [line for line in err.strip().splitlines() if line.strip()]
    assert len(lines) == 1, err


@pytest.fixture
def world(tmp_path, tiny_store, monkeypatch):
    """A working folder holding things a careless --out could destroy: user files and two models."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "notes.txt").write_text("my notes")
    (tmp_path / "notes" / "sub").mkdir()
    (tmp_path / "notes" / "sub" / "thesis.tex").write_text("\\section{Results}")
    (tmp_path / "paper.txt").write_text("a file, not a folder")
    for name, src in zip(("target", "drafter"), tiny_store):
        shutil.copytree(src, tmp_path / "models" / name)
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "log.csv").write_text("step,loss\n1,5.0\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# ---------------------------------------------------------------- writers never destroy what they did not make


@pytest.mark.slow
@pytest.mark.parametrize(
    "argv, message",
    [
        (["mlx_specdec.train", "--preset", "storylm-tiny", "--max-steps", "1", "--run-dir", "r", "--out", "notes"],
         "exists and is not a model folder"),
        (["mlx_specdec.train", "--preset", "storylm-tiny", "--max-steps", "1", "--run-dir", "run", "--out", "run"],
         "is --run-dir"),
        (["mlx_specdec.train", "--preset", "storylm-tiny", "--max-steps", "1", "--run-dir", "r",
          "--out", "models/target"], "already holds a model; pass --overwrite"),
        (["mlx_specdec.mtp", "train", "--base", "models/target", "--max-steps", "1", "--out", "models/target"],
         "is --base"),
        (["mlx_specdec.mtp", "train", "--base", "models/target", "--max-steps", "1", "--out", "models"],
         "contains --base"),
        (["mlx_specdec.convert", "src.npz", "--out", "paper.txt"], "is an existing file"),
        (["mlx_specdec.convert", "src.npz", "--out", "."], "is the working directory"),
    ],
)
def test_out_is_refused_before_anything_is_written(world, argv, message):
    before = snapshot(world)
    code, _, err = run(*argv, cwd=world)
    assert code == 2 and message in err
    one_clean_line(err)
    assert_kept(before, world)


def test_overwrite_replaces_only_a_model_folder(world, tiny_store):
    from mlx_specdec.models.store import save_model
    from mlx_specdec.models.storylm import build, preset

    tok = world / "models" / "target" / "tokenizer.model"
    model = build(preset("storylm-tiny", vocab_size=320), seed=7)
    with pytest.raises(SpecDecError, match="pass --overwrite"):
        save_model(model, tok, world / "models" / "target")
    with pytest.raises(SpecDecError, match="not a model folder"):
        save_model(model, tok, world / "notes", overwrite=True)
    save_model(model, tok, world / "models" / "target", overwrite=True)
    assert sorted(p.name for p in (world / "models").iterdir()) == ["drafter", "target"]  # no temp left


def test_a_failed_write_leaves_no_temp_folder(world, monkeypatch):
    from mlx_specdec.models import folders

    def fill(tmp):
        (tmp / "config.json").write_text("{}")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        folders.atomic_folder(world / "new", fill)
    assert not (world / "new").exists() and not [p for p in world.iterdir() if p.name.startswith(".new")]


@pytest.mark.slow
def test_unwritable_or_full_destinations_are_refused_first(world, monkeypatch):
    from mlx_specdec.models import folders

    code, _, err = run("mlx_specdec.train", "--preset", "storylm-tiny", "--max-steps", "1",
                       "--run-dir", "/proc/mlx-specdec-run", cwd=world)
    assert code == 2 and "--run-dir '/proc/mlx-specdec-run' is not writable" in err
    one_clean_line(err)
    monkeypatch.setattr(folders.shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**9, 10**9 - 10, 10))
    with pytest.raises(SpecDecError, match=r"MB free .* needed"):
        folders.check_out(world / "new", need_bytes=10**6)


# ---------------------------------------------------------------- training


def _tiny(tmp_path, tok, **kw):
    from mlx_specdec.train import TrainConfig

    base = dict(preset="storylm-tiny", tokenizer=str(tok.path), run_dir=str(tmp_path / "run"),
                train_stories=200, valid_stories=30, seq_len=32, batch_size=4, lr=3e-3, warmup=2,
                max_steps=12, eval_every=100, eval_rows=4, ckpt_every=4, log_every=1, quiet=True)
    return TrainConfig(**{**base, **kw})


def test_non_finite_loss_stops_keeping_the_last_good_checkpoint(tmp_path, monkeypatch, tiny_tokenizer):
    from mlx_specdec.errors import InterruptedRun
    from mlx_specdec.training import loop
    from mlx_specdec.training import storylm as train_lib

    tok = tiny_tokenizer
    real_update = loop.Progress.update

    def interrupt_at_7(self, step, info, left):
        if step == 7:
            raise KeyboardInterrupt
        real_update(self, step, info, left)

    monkeypatch.setattr(loop.Progress, "update", interrupt_at_7)
    with pytest.raises(InterruptedRun, match="interrupted at step 7"):
        train_lib.train(_tiny(tmp_path, tok))
    monkeypatch.setattr(loop.Progress, "update", real_update)
    ckpt = tmp_path / "run" / "ckpt.safetensors"
    good = ckpt.read_bytes()

    real_loss = train_lib.loss_fn
    monkeypatch.setattr(train_lib, "loss_fn", lambda m, x, y: real_loss(m, x, y) * mx.array(float("nan")))
    with pytest.raises(TrainingDiverged) as e:
        train_lib.train(_tiny(tmp_path, tok, resume=True, out=str(tmp_path / "model")))
    msg = str(e.value)
    assert "loss is nan at step 8" in msg and "(step 7) is kept" in msg and "--resume" in msg and "\n" not in msg
    assert ckpt.read_bytes() == good and not (tmp_path / "model").exists()


def test_weights_holding_nan_are_never_saved(tmp_path):
    import mlx.nn as nn
    import mlx.optimizers as optim

    from mlx_specdec.train import save_checkpoint

    model = nn.Linear(2, 2)
    model.weight = mx.array([[1.0, float("nan")], [0.0, 1.0]])
    with pytest.raises(TrainingDiverged, match="weight holds nan or inf"):
        save_checkpoint(tmp_path / "ckpt.safetensors", model, optim.AdamW(1e-3), {"step": 3})
    assert list(tmp_path.iterdir()) == []


def test_a_corrupted_checkpoint_is_named_with_the_recovery_command(tmp_path, tiny_tokenizer):
    from mlx_specdec.train import train

    tok = tiny_tokenizer
    train(_tiny(tmp_path, tok, max_steps=9))  # checkpoints at 4 and 8 (kept as prev), final at 9
    ckpt, prev = tmp_path / "run" / "ckpt.safetensors", tmp_path / "run" / "ckpt.prev.safetensors"
    assert prev.is_file()
    data = bytearray(ckpt.read_bytes())
    data[-6000:-1904] = bytes(4096)  # a 4 KB run of tensor bytes flipped to zero
    ckpt.write_bytes(bytes(data))
    with pytest.raises(SpecDecError) as e:
        train(_tiny(tmp_path, tok, max_steps=9, resume=True))
    msg = str(e.value)
    assert "is corrupted" in msg and f"mv {prev} {ckpt}" in msg and "--resume" in msg
    os.replace(prev, ckpt)  # the recovery the message names
    summary = train(_tiny(tmp_path, tok, max_steps=9, resume=True))
    assert summary["steps"] == 9 and math.isfinite(summary["valid_loss"])


def test_checkpoint_meta_without_max_steps_is_one_line(tmp_path):
    from mlx_specdec.train import CHECKPOINT_META, read_checkpoint_meta

    path = tmp_path / "ckpt.safetensors"
    mx.save_safetensors(str(path), {"model.w": mx.zeros(2)}, metadata={"meta": json.dumps({"step": 3})})
    with pytest.raises(SpecDecError, match="lacks 'max_steps' in its metadata; no earlier checkpoint"):
        read_checkpoint_meta(path, CHECKPOINT_META)


@pytest.mark.parametrize("flag, value", [("--weight-decay", "nan"), ("--grad-clip", "-1"), ("--lr", "inf"),
                                         ("--min-lr-ratio", "2"), ("--time-budget-min", "-inf"),
                                         ("--seed", "-1")])
def test_bad_hyperparameters_are_refused_when_parsed(flag, value, capsys):
    from mlx_specdec.cli.train import main

    with pytest.raises(SystemExit) as e:
        main(["--preset", "storylm-tiny", "--max-steps", "1", f"{flag}={value}"])
    err = capsys.readouterr().err
    assert e.value.code == 2 and flag in err and value in err
    one_clean_line(err)


# ---------------------------------------------------------------- generation


def test_any_python_int_is_a_seed(tiny_store, capsys):
    target, drafter = tiny_store
    for seed in ("-1", "99999999999999999999", str(-(2**70))):
        assert generate_main(["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "5",
                              "--temp", "1", "--seed", seed, "--json"]) == 0
        assert len(json.loads(capsys.readouterr().out)["ids"]) == 5
    ids, _ = speculative_generate(TableLM(8), TableLM(8, seed=1), [1], 4, temperature=1.0, seed=2**64 + 3)
    same, _ = speculative_generate(TableLM(8), TableLM(8, seed=1), [1], 4, temperature=1.0, seed=3)
    assert ids == same  # reduced modulo 2**64
    with pytest.raises(SpecDecError, match="seed must be an integer or None, got 1.5"):
        speculative_generate(TableLM(8), TableLM(8), [1], 4, temperature=1.0, seed=1.5)


@pytest.mark.parametrize("temp, message", [(math.inf, "temperature must be finite"),
                                           (math.nan, "temperature must be a number >= 0"),
                                           (1e-40, "too small to sample with; use 0 for greedy")])
def test_unsamplable_temperatures_are_refused(temp, message):
    with pytest.raises(SpecDecError, match=message):
        speculative_generate(TableLM(8), TableLM(8), [1], 4, temperature=temp)


@pytest.mark.slow
def test_prompts_that_cannot_be_encoded_get_one_line(tiny_store, capsys):
    target, _ = tiny_store
    code, out, err = run("mlx_specdec.generate", "--model", str(target), "--no-draft", "--prompt", "caf\udcff",
                         "--json")
    assert code == 2 and "prompt is not valid UTF-8 text" in err and json.loads(out)["exit_code"] == 2
    one_clean_line(err)
    assert generate_main(["--model", str(target), "--no-draft", "--prompt", "a\ud800b"]) == 2
    assert "not valid UTF-8" in capsys.readouterr().err


@pytest.mark.slow
def test_ctrl_c_during_imports_exits_130_without_a_traceback():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # -X importtime reports each import as it completes: the first mlx module means MLX is loading now.
    proc = subprocess.Popen([sys.executable, "-X", "importtime", "-m", "mlx_specdec.generate", "--max-tokens", "5"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        if line.rstrip().split("|")[-1].strip().split(".")[0] == "mlx":
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("drafter_kind", ["model", "head"])
def test_ctrl_c_while_generating_prints_what_was_generated_and_exits_130(tiny_store, drafter_kind):
    target, drafter = tiny_store
    module = "mlx_specdec.generate"
    args = ["--model", str(target), "--draft-model", str(drafter) if drafter_kind == "model" else "nowhere"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if drafter_kind == "head":  # no head for the tiny model: refused (exit 2), never a traceback
        code, _, err = run(module, *args, "--prompt", "Once")
        assert code == 2 and "Traceback" not in err
        return
    proc = subprocess.Popen([sys.executable, "-u", "-m", module, *args, "--max-tokens", "100", "--strategy",
                             "recompute"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stdout.read(20)  # the prompt and the first tokens are out: generation is running
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err
    assert first.startswith("Once upon a time") and "differs" not in err


@pytest.mark.parametrize("where", ["warm-up", "baseline"])
def test_ctrl_c_during_compare_gives_no_verdict(tiny_store, monkeypatch, capsys, where):
    import mlx_specdec.cli.generate as gen

    real_plain = gen.plain_stream
    calls = []

    def plain(*args, **kwargs):
        calls.append(1)
        if (where == "warm-up" and len(calls) == 1) or (where == "baseline" and len(calls) == 2):
            raise KeyboardInterrupt
        yield from real_plain(*args, **kwargs)

    monkeypatch.setattr(gen, "plain_stream", plain)
    target, drafter = tiny_store
    code = generate_main(["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "10",
                          "--compare", "--json"])
    out, err = capsys.readouterr()
    assert code == 130 and "differs" not in err
    record = json.loads(out)
    assert "compare" not in record and record.get("interrupted", True)


def test_json_is_strict_json():
    from mlx_specdec.cli.common import json_record

    text = json_record({"speedup": math.inf, "rates": [math.nan, 1.0]})
    assert json.loads(text) == {"speedup": None, "rates": [None, 1.0]}


# ---------------------------------------------------------------- model folders


def _edit_config(world, change, name="target"):
    path = world / "models" / name / "config.json"
    config = json.loads(path.read_text())
    change(config)
    path.write_text(json.dumps(config))
    return world / "models" / name


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda c: c.update(model_type="llama"), "says model_type 'llama', but the folder holds a StoryLM"),
        (lambda c: c["architecture"].update(norm_eps=-1), "norm_eps must be a finite number > 0, got -1"),
        (lambda c: c["architecture"].pop("n_heads"), "lacks required key(s) 'n_heads'"),
        (lambda c: c["architecture"].update(max_seq_len=0), "max_seq_len must be an integer >= 1, got 0"),
        (lambda c: c["architecture"].update(n_layers=-2), "n_layers must be an integer >= 1, got -2"),
        (lambda c: c["architecture"].update(dim="128"), "dim must be an integer >= 1, got '128'"),
    ],
)
def test_bad_config_json_is_named(world, change, message):
    folder = _edit_config(world, change)
    with pytest.raises(ModelLoadError) as e:
        mlx_specdec.load(str(folder))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_an_mtp_head_passed_as_model_is_told_where_it_goes(world, capsys):
    head = world / "head"
    head.mkdir()
    (head / "config.json").write_text(json.dumps({"model_type": "mtp_head", "architecture": {}}))
    mx.save_safetensors(str(head / "head.safetensors"), {"w": mx.zeros(1)})
    assert generate_main(["--model", str(head), "--no-draft"]) == 2
    assert "is an MTP head, not a model; pass it as --draft-model" in capsys.readouterr().err


def test_a_state_dict_without_key_map_speaks_of_its_names(tmp_path, tiny_store):
    from mlx_specdec import convert

    target, _ = tiny_store
    weights = dict(mx.load(str(target / "model.safetensors")))
    weights["extra.weight"] = weights.pop("model.norm.weight")
    mx.save_safetensors(str(tmp_path / "sd.safetensors"), weights)
    config = json.loads((target / "config.json").read_text())
    (tmp_path / "cfg.json").write_text(json.dumps(config["architecture"]))
    with pytest.raises(SpecDecError) as e:
        convert.convert_state_dict(tmp_path / "sd.safetensors", tmp_path / "out", config=tmp_path / "cfg.json",
                                   tokenizer=target / "tokenizer.model")
    assert "lacks model weights model.norm.weight" in str(e.value) and "pass --key-map" in str(e.value)
    assert "key map leaves" not in str(e.value)


def test_nan_weights_are_called_nan_not_out_of_range():
    import mlx.nn as nn

    from mlx_specdec.convert import fp16_weights

    layer = nn.Linear(2, 2)
    layer.weight = mx.array([[float("nan"), 0.0], [0.0, 0.0]])
    with pytest.raises(ModelLoadError, match="holds NaN or infinite values"):
        fp16_weights(layer)


# ---------------------------------------------------------------- the API


@pytest.mark.parametrize(
    "prompt, named",
    [("hello", "str"), (None, "NoneType"), ([[1, 2]], "[1, 2] (list)"), (np.ones((2, 2), np.int32), "2-D ndarray"),
     ([1.0, 2.0], "1.0 (float)"), (np.array([1.0, 2.0]), "float64"), ([True, 1], "True (bool)"),
     (mx.array([1.5]), "float32"), ({1, 2}, "set")],
)
def test_prompt_ids_must_be_a_1d_sequence_of_ints(prompt, named):
    with pytest.raises(SpecDecError) as e:
        greedy_generate(TableLM(8), prompt, 2)
    assert named in str(e.value)


@pytest.mark.parametrize("prompt", [[1, 2], (1, 2), np.array([1, 2]), np.array([1, 2], np.uint8),
                                    mx.array([1, 2]), [np.int64(1), 2]])
def test_integer_sequences_and_arrays_are_accepted(prompt):
    assert greedy_generate(TableLM(8), prompt, 3) == greedy_generate(TableLM(8), [1, 2], 3)


@pytest.mark.parametrize("eos_id", ["3", 3.0, True, -1, 8])
def test_eos_id_is_validated(eos_id):
    with pytest.raises(SpecDecError, match="eos_id must be None or an integer token id in"):
        speculative_generate(TableLM(8), TableLM(8), [1], 4, eos_id=eos_id)


# ---------------------------------------------------------------- bench


@pytest.mark.slow
def test_bench_refuses_a_name_with_separators_and_a_missing_requested_head(world, capsys):
    from bench.cli import main as bench_main

    before = snapshot(world)
    with pytest.raises(SystemExit) as e:
        bench_main(["--name", "../../x", "--out", "res"])
    assert e.value.code == 2 and "without path separators" in capsys.readouterr().err
    code = bench_main(["--target", "models/target", "--drafters", "mtp", "--mtp-head", "/nonexistent",
                       "--out", "res", "--quick", "--no-mlx-lm"])
    assert code == 2 and "--mtp-head '/nonexistent' does not exist" in capsys.readouterr().err
    assert bench_main(["--target", "models/target", "--out", "paper.txt", "--quick"]) == 2
    assert "is a file" in capsys.readouterr().err
    code, _, err = run("bench", "--quick", "--out", "/proc/mlx-specdec-bench", cwd=world)
    assert code == 2 and "not writable" in err
    one_clean_line(err)
    assert_kept(before, world)


# ---------------------------------------------------------------- the sweep


def _sweep_cases() -> list[list[str]]:
    gen = ["--model", "models/target", "--draft-model", "models/drafter", "--max-tokens", "4"]
    cases = []
    for flag, values in {
        "--temp": ["nan", "inf", "-inf", "-1", "1e-40", "x", ""],
        "--top-p": ["nan", "0", "1.5", "-0.1"],
        "--top-k": ["0", "-3", "1.5"],
        "-k": ["0", "-1", "x"],
        "--max-tokens": ["-1", "1e3", "100000"],
        "--seed": ["1.5", "x"],
        "--model": ["nowhere", "notes", "paper.txt", "run"],
        "--draft-model": ["nowhere", "notes"],
        "--prompt": ["", "\udcff"],
        "--strategy": ["paged"],
        "--min-p": ["nan", "-0.1", "1.5", "x"],
        "--kv-bits": ["7", "x"],
        "--kv-group-size": ["48"],
        "--max-kv-size": ["4", "0", "x"],
        "--chat-template-config": ["{bad", "[1]"],
        "--extra-eos-token": ["<not-a-piece>"],
    }.items():
        for value in values:
            extra = ["--temp", "1"] if flag in ("--top-p", "--top-k", "--seed") else []
            cases.append(["mlx_specdec.generate", *gen, *extra, flag, value])
    train = ["mlx_specdec.train", "--preset", "storylm-tiny", "--max-steps", "2", "--run-dir", "r"]
    for flag, values in {
        "--lr": ["nan", "inf", "0", "-1"], "--weight-decay": ["nan", "-1"], "--grad-clip": ["-1", "0", "nan"],
        "--min-lr-ratio": ["2", "nan"], "--time-budget-min": ["0", "inf"], "--warmup": ["-5"],
        "--seed": ["-1"], "--seq-len": ["0", "100000"], "--batch-size": ["0"], "--max-steps": ["0", "x"],
        "--preset": ["storylm-2b"], "--tokenizer": ["nowhere.model"],
        "--out": ["notes", ".", "paper.txt", "models/target", "r", "/proc/x"],
    }.items():
        for value in values:
            cases.append([*train, flag, value])
    mtp = ["mlx_specdec.mtp", "train", "--base", "models/target", "--max-steps", "2", "--run-dir", "mr"]
    for flag, values in {
        "--depth-decay": ["0", "1.5", "nan"], "--lr": ["nan", "-1"], "--grad-clip": ["-1"],
        "--depth": ["0"], "--seq-len": ["2"], "--out": ["models/target", "notes", ".", "models"],
        "--base": ["nowhere"],
    }.items():
        for value in values:
            cases.append([*mtp, flag, value])
    mgen = ["mlx_specdec.generate", "--model", "models/target", "--draft-model", "models/drafter"]
    for flag, value in [("--temp", "inf"), ("-k", "0"), ("--max-tokens", "-1"), ("--draft-model", "nowhere"),
                        ("--top-p", "nan")]:
        cases.append([*mgen, flag, value])
    mbench = ["bench.heads", "--base", "models/target", "--head", "models/drafter"]
    for flag, value in [("--depths", "1,x"), ("--depths", "0"), ("--prompts", "0"), ("--repeats", "-1")]:
        cases.append([*mbench, flag, value])
    conv = ["mlx_specdec.convert"]
    for argv in (["nowhere"], ["models/target", "--out", "c"], ["paper.txt", "--out", "c"],
                 ["x.npz", "--out", "notes"], ["x.npz", "--out", "."], ["models/target", "--out", "models/drafter"],
                 ["models/target/model.safetensors", "--config", "paper.txt", "--tokenizer",
                  "models/target/tokenizer.model", "--out", "c2"]):
        cases.append([*conv, *argv])
    bench = ["bench", "--quick", "--no-mlx-lm", "--out", "res"]
    for flag, value in [("--name", "../x"), ("--name", "a/b"), ("--temp", "nan"), ("--temp", "-1"),
                        ("--repeats", "0"), ("--k", "0"), ("--k", "x"), ("--max-tokens", "1"),
                        ("--drafters", "telepathy"), ("--target", "nowhere")]:
        cases.append([*bench, flag, value])
    return cases


SWEEP = _sweep_cases()


def _main_of(module):
    if module == "bench":
        from bench.cli import main
    elif module == "bench.heads":
        from bench.heads import main
    elif module == "mlx_specdec.generate":
        from mlx_specdec.cli.generate import main
    elif module == "mlx_specdec.train":
        from mlx_specdec.cli.train import main
    elif module == "mlx_specdec.mtp":
        from mlx_specdec.cli.mtp import main
    else:
        from mlx_specdec.cli.convert import main
    return main


def test_the_sweep_has_at_least_60_bad_values_through_every_cli():
    assert len(SWEEP) >= 60
    assert {c[0] for c in SWEEP} == {"mlx_specdec.generate", "mlx_specdec.train", "mlx_specdec.mtp",
                                     "mlx_specdec.convert", "bench", "bench.heads"}


@pytest.mark.parametrize("argv", SWEEP, ids=[" ".join(c[0:1] + c[-2:]) for c in SWEEP])
def test_sweep_bad_value_exits_nonzero_keeping_every_file(world, argv, capsys):
    """In-process: what `python -m` would run, minus the interpreter start (an escaping
    exception would be the traceback; the subprocess sample below checks the real thing)."""
    before = snapshot(world)
    try:
        code = _main_of(argv[0])(argv[1:])
    except SystemExit as e:  # argparse's refusal
        code = e.code
    err = capsys.readouterr().err
    assert code not in (0, None), err
    assert "Traceback" not in err and err.strip(), argv
    if os.environ.get("SHOW_SWEEP"):
        print(code, argv[0], argv[-2:], err.strip().splitlines()[-1], file=sys.__stderr__)
    assert_kept(before, world)


@pytest.mark.slow
def test_a_sample_of_the_sweep_as_real_processes(world):
    before = snapshot(world)
    for argv in SWEEP[::16]:
        code, _, err = run(*argv, cwd=world)
        assert code != 0 and "Traceback" not in err, (argv, err)
    assert_kept(before, world)


def test_exit_codes_are_the_same_everywhere(capsys):
    from mlx_specdec.cli.common import run_main
    from mlx_specdec.errors import InterruptedRun

    def raises(error):
        raise error

    assert run_main(raises, SpecDecError("bad value")) == 2
    assert run_main(raises, InterruptedRun("interrupted at step 3; checkpoint saved")) == 130
    assert run_main(raises, KeyboardInterrupt()) == 130
    assert run_main(raises, OSError(28, "No space left on device", "out/model.safetensors")) == 1
    err = capsys.readouterr().err.splitlines()
    assert err == ["error: bad value", "error: interrupted at step 3; checkpoint saved", "error: interrupted",
                   "error: No space left on device (out/model.safetensors)"]
