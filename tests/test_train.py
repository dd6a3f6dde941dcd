"""The trainer: it learns, it is deterministic, it resumes exactly after a SIGKILL, it refuses bad input."""

import csv
import math
import os
import signal
import subprocess
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (before mlx.core)
import numpy as np
import pytest

from mlx_specdec.errors import SpecDecError
from mlx_specdec.models.store import load_store
from mlx_specdec.cli.train import main
from mlx_specdec.train import TrainConfig, batch_rows, pack, train, train_ladder

ROOT = Path(__file__).resolve().parents[1]
VOCAB = 400


@pytest.fixture(scope="module")
def tok(tmp_path_factory):
    from mlx_specdec.data import iter_texts
    from mlx_specdec.models.tokenizer import StoryTokenizer

    path = tmp_path_factory.mktemp("tok") / "tokenizer.model"
    return StoryTokenizer.train(iter_texts("bundled", "train", n=300, seed=0), path, vocab_size=VOCAB)


def tiny(tmp_path, tok, **kw) -> TrainConfig:
    base = dict(preset="storylm-tiny", tokenizer=str(tok.path), run_dir=str(tmp_path / "run"),
                train_stories=300, valid_stories=40, seq_len=64, batch_size=8, lr=3e-3, warmup=5,
                max_steps=40, eval_every=20, eval_rows=16, ckpt_every=10, log_every=5, quiet=True)
    return TrainConfig(**{**base, **kw})


def read_log(run_dir) -> list[dict]:
    with open(Path(run_dir) / "log.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_pack_cuts_joined_documents_into_rows():
    rows = pack([[1, 2, 3], [4, 5], [6, 7, 8, 9]], seq_len=3)
    assert rows.tolist() == [[1, 2, 3, 4], [5, 6, 7, 8]]


def test_batches_are_a_pure_function_of_step_and_cover_each_epoch():
    n, b = 10, 4
    seen = np.concatenate([batch_rows(n, b, s, seed=1) for s in range(5)])  # 20 rows = 2 epochs
    assert sorted(seen[:10].tolist()) == list(range(10))
    assert sorted(seen[10:20].tolist()) == list(range(10))
    assert seen[:10].tolist() != seen[10:20].tolist()  # a fresh permutation per epoch
    assert batch_rows(n, b, 3, seed=1).tolist() == seen[12:16].tolist()
    assert batch_rows(n, b, 3, seed=2).tolist() != seen[12:16].tolist()


def test_loss_decreases_and_model_is_saved_with_card(tmp_path, tok):
    out = tmp_path / "model"
    summary = train(tiny(tmp_path, tok, max_steps=60, out=str(out), sample_tokens=10))
    log = read_log(tmp_path / "run")
    losses = [float(r["train_loss"]) for r in log]
    assert [int(r["step"]) for r in log] == list(range(5, 61, 5))
    assert losses[0] > math.log(VOCAB) - 0.3
    assert losses[-1] < losses[0] - 1.0
    assert summary["valid_loss"] < losses[0] - 1.0
    assert summary["steps"] == 60 and summary["tokens_seen"] == 60 * 8 * 64
    model, loaded_tok = load_store(out)
    assert loaded_tok.fingerprint == tok.fingerprint and model.args.vocab_size == VOCAB
    # The stored (fp16-rounded) model scores the same held-out rows about the same.
    from mlx_specdec.train import evaluate_models

    (ev,) = evaluate_models([out], n_stories=40, seq_len=64)
    assert ev["targets"] == summary_targets(tmp_path) and abs(ev["valid_loss"] - summary["valid_loss"]) < 0.01
    card = (out / "README.md").read_text()
    for needle in ("Once upon a time", "One day, a little", "Tom and his dog", "final valid loss",
                   "tokens seen", "wall time", "machine", "python -m mlx_specdec.train"):
        assert needle in card, needle


def summary_targets(tmp_path) -> int:
    import re

    card = (tmp_path / "model" / "README.md").read_text()
    return int(re.search(r"valid loss measured on \| ([\d,]+) held-out", card).group(1).replace(",", ""))


def test_two_runs_with_the_same_seed_have_identical_losses(tmp_path, tok):
    train(tiny(tmp_path / "a", tok, max_steps=15))
    train(tiny(tmp_path / "b", tok, max_steps=15))
    a, b = read_log(tmp_path / "a" / "run"), read_log(tmp_path / "b" / "run")
    assert [r["train_loss"] for r in a] == [r["train_loss"] for r in b]


def _cli(cfg: TrainConfig) -> list[str]:
    args = [sys.executable, "-m", "mlx_specdec.train"]
    for k in ("preset", "tokenizer", "run_dir", "train_stories", "valid_stories", "seq_len", "batch_size",
              "lr", "warmup", "max_steps", "eval_every", "eval_rows", "ckpt_every", "log_every"):
        args += ["--" + k.replace("_", "-"), str(getattr(cfg, k))]
    return args


@pytest.mark.slow
def test_resume_after_sigkill_continues_with_identical_losses(tmp_path, tok):
    steps, every = 150, 10
    ref = tiny(tmp_path / "ref", tok, max_steps=steps, ckpt_every=every, log_every=1, eval_every=100)
    train(ref)
    cfg = tiny(tmp_path / "killed", tok, max_steps=steps, ckpt_every=every, log_every=1, eval_every=100)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(_cli(cfg), cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    log = Path(cfg.run_dir) / "log.csv"
    # The run prints `step N | ...` once row N is in log.csv: wait for that line, not for a clock.
    for line in proc.stdout:
        if line.startswith("step ") and int(line.split()[1]) > 30:  # past a few checkpoints
            break
    assert proc.poll() is None, f"run ended before it could be killed: {proc.stderr.read()[-300:]}"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    killed_at = len(log.read_text().splitlines()) - 1  # steps logged before the kill
    assert killed_at < steps
    from mlx_specdec.train import read_checkpoint_meta

    resumed_from = read_checkpoint_meta(Path(cfg.run_dir) / "ckpt.safetensors")["step"]
    assert killed_at - every <= resumed_from <= killed_at and resumed_from % every == 0

    summary = train(TrainConfig(**{**cfg.__dict__, "resume": True}))
    logged_steps = [int(r["step"]) for r in read_log(cfg.run_dir)]
    assert logged_steps == list(range(1, steps + 1))  # rows past the checkpoint were replaced, none twice
    want = read_log(ref.run_dir)
    got = read_log(cfg.run_dir)
    assert [(r["step"], r["train_loss"], r["valid_loss"], r["lr"]) for r in got] == [
        (r["step"], r["train_loss"], r["valid_loss"], r["lr"]) for r in want
    ]
    assert summary["steps"] == steps


class Killed(BaseException):
    """Stands in for SIGKILL: nothing in the trainer catches it."""


def _die_at(monkeypatch, step, exc):
    import mlx_specdec.training.loop as T  # the shared loop draws every batch

    real = T.batch_rows

    def batch_rows_or_die(n_rows, batch_size, s, seed):
        if s == step:
            raise exc
        return real(n_rows, batch_size, s, seed)

    monkeypatch.setattr(T, "batch_rows", batch_rows_or_die)


def test_resume_loses_at_most_the_steps_since_the_last_checkpoint(tmp_path, tok, monkeypatch):
    from mlx_specdec.train import read_checkpoint_meta

    ref = tiny(tmp_path / "ref", tok, max_steps=40, ckpt_every=10, log_every=1)
    train(ref)
    cfg = tiny(tmp_path / "k", tok, max_steps=40, ckpt_every=10, log_every=1)
    with monkeypatch.context() as m:
        _die_at(m, 27, Killed())  # dies while fetching step 28's batch: 27 steps done
        with pytest.raises(Killed):
            train(cfg)
    assert len(read_log(cfg.run_dir)) == 27
    assert read_checkpoint_meta(Path(cfg.run_dir) / "ckpt.safetensors")["step"] == 20  # 7 steps lost
    train(TrainConfig(**{**cfg.__dict__, "resume": True}))
    assert read_log(cfg.run_dir) == [{**r, "tokens_per_s": g["tokens_per_s"], "elapsed_s": g["elapsed_s"]}
                                     for r, g in zip(read_log(ref.run_dir), read_log(cfg.run_dir))]


def test_ctrl_c_saves_a_checkpoint_and_says_how_to_resume(tmp_path, tok, monkeypatch):
    from mlx_specdec.train import read_checkpoint_meta

    cfg = tiny(tmp_path, tok, max_steps=40, ckpt_every=10)
    with monkeypatch.context() as m:
        _die_at(m, 13, KeyboardInterrupt())
        with pytest.raises(SpecDecError, match="interrupted at step 13; checkpoint saved, continue with --resume"):
            train(cfg)
    assert read_checkpoint_meta(Path(cfg.run_dir) / "ckpt.safetensors")["step"] == 13


def test_time_budget_stops_gracefully_then_validates_and_saves(tmp_path, tok):
    out = tmp_path / "model"
    cfg = tiny(tmp_path, tok, max_steps=10**6, time_budget_min=0.02, out=str(out), sample_tokens=5)
    summary = train(cfg)
    assert summary["stop_reason"] == "time budget"
    assert 0 < summary["steps"] < 10**6 and math.isfinite(summary["valid_loss"])
    assert summary["wall_time_s"] >= cfg.time_budget_min * 60  # stopped because the budget was spent
    assert (out / "model.safetensors").is_file()
    # Resuming a run whose budget is spent trains nothing more: it re-validates and re-saves.
    again = train(TrainConfig(**{**cfg.__dict__, "resume": True, "overwrite": True}))  # --out exists now
    assert again["steps"] == summary["steps"] and again["valid_loss"] == summary["valid_loss"]


def test_time_budget_alone_calibrates_the_schedule_length(tmp_path, tok, monkeypatch):
    from mlx_specdec.training import loop

    real, seen = loop.calibrate_steps, []

    def calibrate(task, cfg, rows, budget_s):
        seen.append((budget_s, real(task, cfg, rows, budget_s)))
        return 13

    monkeypatch.setattr(loop, "calibrate_steps", calibrate)
    summary = train(tiny(tmp_path, tok, max_steps=None, time_budget_min=10.0))
    (budget_s, measured), = seen
    assert budget_s == 600.0 and measured >= 1  # the budget, in seconds, reached the calibration
    assert summary["max_steps"] == summary["steps"] == 13 and summary["stop_reason"] == "max_steps"


def test_ladder_trains_presets_with_one_shared_tokenizer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = TrainConfig(vocab_size=VOCAB, tokenizer_stories=200, train_stories=200, valid_stories=40,
                      max_steps=5, warmup=2, eval_rows=8, sample_tokens=5, quiet=True)
    (res,) = train_ladder(cfg, ["storylm-tiny"], "models", explicit={"max_steps", "warmup"})
    shared = tmp_path / "runs" / "ladder" / "tokenizer.model"
    assert shared.is_file()
    _, tok = load_store(tmp_path / "models" / "storylm-tiny")
    assert tok.path.read_bytes() == shared.read_bytes()
    assert res["steps"] == 5


def test_an_explicit_max_steps_is_not_cut_short_by_the_presets_time_budget(monkeypatch):
    """storylm-1m's preset budgets 12 minutes; `--max-steps 300` alone trains 300 steps wherever that takes
    (the budget once stopped such a run at 210 steps), and the card's command says no budget."""
    from mlx_specdec.cli import train as cli
    from mlx_specdec.training.storylm import cfg_command, preset_overrides

    seen = []
    monkeypatch.setattr(cli, "train", lambda cfg, invocation=None: seen.append(cfg))
    main(["--preset", "storylm-1m", "--max-steps", "300"])
    main(["--preset", "storylm-1m", "--max-steps", "300", "--time-budget-min", "5"])
    main(["--preset", "storylm-1m"])
    assert [(c.max_steps, c.time_budget_min) for c in seen] == [(300, None), (300, 5.0), (None, 12.0)]
    assert "--time-budget-min" not in cfg_command(seen[0]) and "--max-steps 300" in cfg_command(seen[0])
    assert "--time-budget-min 5.0" in cfg_command(seen[1])
    assert preset_overrides("storylm-1m", {"max_steps"})["lr"] == 2e-3  # the other defaults still apply
    assert "time_budget_min" not in preset_overrides("storylm-1m", {"max_steps"})


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(preset="storylm-2m"), "unknown preset 'storylm-2m'"),
        (dict(seq_len=500), "--seq-len 500 exceeds storylm-tiny's context of 128"),
        (dict(batch_size=0), "--batch-size must be >= 1, got 0"),
        (dict(max_steps=None, time_budget_min=None), "give --max-steps or --time-budget-min"),
        (dict(lr=-1.0), "--lr must be > 0, got -1.0"),
        (dict(tokenizer="/no/such/tokenizer.model"), "--tokenizer '/no/such/tokenizer.model' is not a file"),
        (dict(resume=True), "--resume: no checkpoint at"),
        (dict(train_stories=2, batch_size=64), "need at least --batch-size 64"),
    ],
)
def test_bad_inputs_are_one_line_errors(tmp_path, tok, change, message):
    with pytest.raises(SpecDecError) as e:
        train(tiny(tmp_path, tok, **change))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_existing_checkpoint_without_resume_is_refused(tmp_path, tok):
    train(tiny(tmp_path, tok, max_steps=3))
    with pytest.raises(SpecDecError, match="exists: pass --resume"):
        train(tiny(tmp_path, tok, max_steps=3))


def test_cli_prints_one_line_error_and_exits_2(tmp_path, capsys):
    code = main(["--preset", "nope", "--max-steps", "3", "--run-dir", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("error: unknown preset 'nope'") and err.count("\n") == 1


def test_story_loss_scores_each_story_alone_and_ignores_padding():
    import mlx.core as mx
    import mlx.nn as nn

    from mlx_specdec.train import build_preset, story_loss

    model = build_preset("storylm-tiny", 50, seed=0)
    stories = [[1, 5, 7, 9, 2], [1, 3, 2], [1, 4, 4, 4, 4, 4, 8, 2]]
    total = count = 0.0
    for ids in stories:
        x = mx.array([ids])
        total += nn.losses.cross_entropy(model(x[:, :-1]), x[:, 1:], reduction="sum").item()
        count += len(ids) - 1
    for batch_size in (1, 2, 8):
        assert story_loss(model, stories, batch_size) == pytest.approx(total / count, rel=1e-5)


def test_training_keeps_the_weights_that_scored_best_on_the_yardstick(tmp_path, monkeypatch):
    """Early stopping: when later validations score worse, the saved model is the best one seen."""
    from mlx.utils import tree_flatten

    from mlx_specdec.training import storylm

    scripted = iter([3.0, 1.0, 2.0])  # validations at steps 5, 10 and 15 (the final one sees step 15's weights)
    by_weights = {}  # the score each set of weights got, by the identity of its first array

    def fake(model, stories, batch_size=8):
        key = id(tree_flatten(model.parameters())[0][1])
        if key not in by_weights:
            by_weights[key] = next(scripted, 9.0)  # 9.0: the held-out-shapes figure at the end
        return by_weights[key]

    monkeypatch.setattr(storylm, "story_loss", fake)
    cfg = storylm.TrainConfig(preset="storylm-tiny", max_steps=15, eval_every=5, train_stories=200, valid_stories=20,
                              vocab_size=400, tokenizer_stories=200, seq_len=32, batch_size=4, quiet=True,
                              run_dir=str(tmp_path / "run"), out=str(tmp_path / "model"))
    summary = storylm.train(cfg)
    assert summary["kept"].startswith("weights with the lowest yardstick loss")
    assert summary["yardstick_loss"] == 1.0  # the step-10 weights, evaluated again after the restore
    assert "yardstick loss | 1.0000" in (tmp_path / "model" / "README.md").read_text()


def test_resuming_a_spent_run_saves_the_early_stopped_weights_again(tmp_path, monkeypatch):
    """The best weights travel in the checkpoint: re-saving a finished run (--resume --overwrite) writes the
    model the first run wrote, not its last weights; a run stopped after its best step keeps that best too."""
    import mlx.core as mx
    from mlx.utils import tree_flatten

    from mlx_specdec.training import storylm

    scores, by_weights = [3.0, 1.0, 2.0, 2.5], {}  # validations at steps 5, 10, 15, 20

    def fake(model, stories, batch_size=8):
        key = id(tree_flatten(model.parameters())[0][1])
        if key not in by_weights:
            by_weights[key] = scores.pop(0) if scores else 9.0  # any weights met later score worse
        return by_weights[key]

    def saved(folder):
        return dict(mx.load(str(folder / "model.safetensors")))

    monkeypatch.setattr(storylm, "story_loss", fake)
    base = dict(preset="storylm-tiny", eval_every=5, ckpt_every=5, train_stories=200, valid_stories=20,
                vocab_size=400, tokenizer_stories=200, seq_len=32, batch_size=4, quiet=True)
    # one run of 20 steps, its best at step 10
    whole = storylm.TrainConfig(**base, max_steps=20, run_dir=str(tmp_path / "a"), out=str(tmp_path / "a-model"))
    assert storylm.train(whole)["yardstick_loss"] == 1.0
    first = saved(tmp_path / "a-model")
    again = storylm.train(storylm.TrainConfig(**{**whole.__dict__, "resume": True, "overwrite": True}))
    assert again["steps"] == 20 and again["kept"].startswith("weights with the lowest yardstick loss")
    assert_same(saved(tmp_path / "a-model"), first)
    # the same run stopped at step 13 (Ctrl-C, after its best) and resumed: the best came back from the checkpoint
    scores[:] = [3.0, 1.0]
    cut = storylm.TrainConfig(**base, max_steps=20, run_dir=str(tmp_path / "b"), out=str(tmp_path / "b-model"))
    with monkeypatch.context() as m:
        _die_at(m, 13, KeyboardInterrupt())
        with pytest.raises(SpecDecError, match="interrupted at step 13"):
            storylm.train(cut)
    resumed = storylm.train(storylm.TrainConfig(**{**cut.__dict__, "resume": True}))
    assert resumed["steps"] == 20 and resumed["kept"].startswith("weights with the lowest yardstick loss")
    assert_same(saved(tmp_path / "b-model"), first)


def assert_same(weights: dict, reference: dict) -> None:
    assert weights.keys() == reference.keys()
    assert all(np.array_equal(np.array(weights[k]), np.array(reference[k])) for k in reference)


def test_a_calibrated_run_saves_the_module_it_trained(tmp_path, monkeypatch):
    """--time-budget-min calibrates on probe steps, then resets the task to a fresh module: the loop
    must train (and the trainer save) that fresh module, not the probe's (a head shipped untrained once).

    The loop reads a fake clock (0.05 s a reading), so the calibrated length and the budget's stop do not
    depend on the machine's load (on the wall clock a loaded machine calibrated too few steps to learn)."""
    import math
    import types

    from mlx_specdec.train import TrainConfig, evaluate_models, train
    from mlx_specdec.training import loop

    readings = iter(range(10**9))
    monkeypatch.setattr(loop, "time", types.SimpleNamespace(perf_counter=lambda: 0.05 * next(readings)))
    cfg = TrainConfig(preset="storylm-tiny", time_budget_min=0.15, eval_every=10, train_stories=300,
                      valid_stories=30, vocab_size=400, tokenizer_stories=300, seq_len=32, batch_size=8, quiet=True,
                      run_dir=str(tmp_path / "run"), out=str(tmp_path / "model"), no_yardstick=True)
    summary = train(cfg)
    assert summary["stop_reason"] == "time budget" and summary["steps"] >= 100, summary["steps"]
    (saved,) = evaluate_models([tmp_path / "model"], n_stories=30, seq_len=32, shapes_stories=0)
    assert abs(saved["valid_loss"] - summary["valid_loss"]) < 0.05
    assert saved["valid_loss"] < math.log(400) - 0.5  # trained, not the fresh initialisation (~ln 400)


def test_init_from_continues_a_stored_model_and_its_card_says_so(tmp_path, tok):
    """--init-from: the run starts from a store folder's weights (its first loss is the stored model's,
    not the fresh initialisation's), and the card names the folder and counts both runs' tokens."""
    from mlx_specdec.data.written import written_digest, written_stories
    from mlx_specdec.training.data import corpus_description

    first = tmp_path / "first"
    summary = train(tiny(tmp_path / "a", tok, max_steps=40, out=str(first), sample_tokens=4, no_yardstick=True))
    more = train(tiny(tmp_path / "b", tok, max_steps=10, log_every=1, seed=1, out=str(tmp_path / "more"),
                      sample_tokens=4, no_yardstick=True, init_from=str(first)))
    fresh = train(tiny(tmp_path / "c", tok, max_steps=1, log_every=1, seed=1, no_yardstick=True))
    continued_first = float(read_log(tmp_path / "b" / "run")[0]["train_loss"])
    assert continued_first < summary["train_loss"] + 0.3 and continued_first < fresh["train_loss"] - 1.0
    assert more["valid_loss"] < summary["valid_loss"] + 0.05
    card = (tmp_path / "more" / "README.md").read_text()
    assert f"| initialised from | {first}, trained before on {40 * 8 * 64:,} tokens of this corpus " \
           f"({50 * 8 * 64:,} in all) |" in card
    assert f"--init-from {first}" in card
    assert "--no-yardstick --" in card and "--no-yardstick True" not in card  # a switch is written bare
    other = train(tiny(tmp_path / "d", tok, max_steps=2, corpus="bundled:written=0.6", out=str(tmp_path / "other"),
                       sample_tokens=2, no_yardstick=True, init_from=str(first)))
    assert other["steps"] == 2
    other_card = (tmp_path / "other" / "README.md").read_text()
    assert f"trained before on {40 * 8 * 64:,} tokens of {corpus_description('bundled')} ({42 * 8 * 64:,} in all)" \
        in other_card
    # a third stage counts every stage before it, not only the last
    third = train(tiny(tmp_path / "e", tok, max_steps=3, out=str(tmp_path / "third"), sample_tokens=2,
                       no_yardstick=True, init_from=str(tmp_path / "more")))
    assert third["steps"] == 3
    assert f"trained before on {50 * 8 * 64:,} tokens in its stages, the last {10 * 8 * 64:,} of them of this " \
           f"corpus ({53 * 8 * 64:,} in all) |" in (tmp_path / "third" / "README.md").read_text()
    # a bundled corpus is named with the written stories it held (the same spec read fewer before set13-24)
    assert f"| corpus | bundled:written=0.6 ({len(written_stories()):,} written stories, digest {written_digest()}) |" \
        in other_card


@pytest.mark.parametrize("preset, message", [("storylm-1m", "holds preset 'storylm-tiny', not 'storylm-1m'"),
                                             (None, "is not a model folder (no config.json)")])
def test_init_from_refuses_another_preset_or_a_non_model(tmp_path, tok, preset, message):
    first = tmp_path / "first"
    train(tiny(tmp_path / "a", tok, max_steps=2, out=str(first), sample_tokens=2, no_yardstick=True))
    source = str(first) if preset else str(tmp_path)
    with pytest.raises(SpecDecError) as e:
        train(tiny(tmp_path / "b", tok, preset=preset or "storylm-tiny", init_from=source))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_resume_finds_the_tokenizer_the_checkpoint_names(tmp_path, tok):
    """--resume without --tokenizer uses the tokenizer the run started with (it is not retrained into the
    run folder, which would then refuse the checkpoint for its other fingerprint)."""
    cfg = tiny(tmp_path, tok, max_steps=6, ckpt_every=3, eval_every=100)
    first = train(TrainConfig(**{**cfg.__dict__, "max_steps": 3}))
    assert first["steps"] == 3
    resumed = train(TrainConfig(**{**cfg.__dict__, "tokenizer": None, "resume": True, "max_steps": None}))
    assert resumed["steps"] == 3  # the checkpoint's schedule: it had finished
    assert not (tmp_path / "run" / "tokenizer.model").exists()
