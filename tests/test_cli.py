"""`python -m mlx_specdec.generate`: output, JSON record, exit codes, one-line errors."""

import json
import subprocess
import sys

import pytest

from mlx_specdec.cli.generate import main


def run_cli(*args):
    proc = subprocess.run(
        [sys.executable, "-m", "mlx_specdec.generate", *args], capture_output=True, text=True, timeout=120
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_json_record_and_compare_on_a_store_pair(tiny_store, capsys):
    target, drafter = tiny_store
    code = main(["--model", str(target), "--draft-model", str(drafter), "--prompt", "Once upon a time",
                 "--max-tokens", "20", "-k", "3", "--compare", "--json"])
    assert code == 0
    record = json.loads(capsys.readouterr().out)
    assert record["stats"]["generated"] == len(record["ids"]) <= 20
    assert record["compare"]["identical"] is True
    assert record["k"] == 3 and record["draft_model"] == str(drafter)


def test_plain_text_when_not_a_terminal(tiny_store, capsys):
    target, drafter = tiny_store
    assert main(["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "8"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Once upon a time")
    assert "\x1b[" not in out  # no colour codes in a pipe
    assert "tokens per target pass" in out


def test_no_draft_runs_plain_decoding(tiny_store, capsys):
    target, _ = tiny_store
    assert main(["--model", str(target), "--no-draft", "--max-tokens", "5", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["draft_model"] is None and record["stats"]["target_passes"] == len(record["ids"])


def test_sampled_generation_is_reproducible_with_a_seed(tiny_store, capsys):
    target, drafter = tiny_store
    common = ["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "15", "--temp", "1.0", "--json"]
    runs = {}
    for seed in ("3", "3", "4"):
        assert main(common + ["--seed", seed]) == 0
        runs.setdefault(seed, []).append(json.loads(capsys.readouterr().out)["ids"])
    assert runs["3"][0] == runs["3"][1] and len(runs["3"][0]) == 15
    assert runs["4"][0] != runs["3"][0]  # the seed is used, not ignored


@pytest.mark.slow
@pytest.mark.parametrize(
    "args, message",
    [
        (["-k", "0"], "--num-draft-tokens must be >= 1, got 0"),
        (["--max-tokens", "-3"], "--max-tokens must be >= 0, got -3"),
        (["--temp", "-1"], "temperature must be a number >= 0, got -1.0"),
        (["--temp", "1", "--top-p", "1.5"], r"top_p must be in (0, 1], got 1.5"),
        (["--prompt", ""], "--prompt is empty"),
        (["--max-tokens", "100000"], "exceeds the context window"),
    ],
)
def test_bad_arguments_exit_nonzero_with_one_line(tiny_store, args, message):
    target, drafter = tiny_store
    code, out, err = run_cli("--model", str(target), "--draft-model", str(drafter), *args)
    assert code == 2
    assert err.strip().startswith("error: ") and message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_missing_and_corrupt_models_exit_nonzero_with_one_line(tiny_store, tmp_path):
    target, _ = tiny_store
    code, _, err = run_cli("--model", str(tmp_path / "nope"), "--no-draft")
    assert code == 2 and "does not exist" in err and "Traceback" not in err
    broken = tmp_path / "broken"
    broken.mkdir()
    for f in target.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    weights = broken / "model.safetensors"
    weights.write_bytes(weights.read_bytes()[: weights.stat().st_size // 2])
    code, _, err = run_cli("--model", str(broken), "--no-draft")
    assert code == 2 and "corrupt or truncated" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_tokenizer_mismatch_is_refused_naming_both(tiny_store, tmp_path):
    from mlx_specdec.data import iter_texts
    from mlx_specdec.models.store import save_model
    from mlx_specdec.models.storylm import build, preset
    from mlx_specdec.models.tokenizer import StoryTokenizer

    target, _ = tiny_store
    other_tok = StoryTokenizer.train(iter_texts("bundled", "train", n=300, seed=9), tmp_path / "t.model", vocab_size=400)
    other = save_model(build(preset("storylm-tiny", vocab_size=400), seed=3), other_tok, tmp_path / "other")
    code, _, err = run_cli("--model", str(target), "--draft-model", str(other))
    assert code == 2 and str(other) in err and str(target) in err and "Traceback" not in err


def test_ctrl_c_prints_what_was_generated_and_the_stats(tiny_store, capsys, monkeypatch):
    import mlx_specdec.cli.generate as gen

    real_stream = gen.speculative_stream

    def interrupted_after_two_rounds(*args, **kwargs):
        for i, emission in enumerate(real_stream(*args, **kwargs)):
            yield emission
            if i == 1:
                raise KeyboardInterrupt  # what Ctrl-C raises inside the loop

    monkeypatch.setattr(gen, "speculative_stream", interrupted_after_two_rounds)
    target, drafter = tiny_store
    code = main(["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "50"])
    out = capsys.readouterr().out
    assert code == 130
    assert "(interrupted)" in out and "target passes: 2" in out


@pytest.mark.slow
@pytest.mark.parametrize("drafter", [None, "prompt-lookup"])
def test_the_default_pair_and_prompt_lookup_from_the_command_line(drafter, capsys):
    """No --model and no --draft-model: the shipped 5M with its own MTP head drafting (loading.DEFAULT_DRAFTER)."""
    from tests.conftest import shipped

    shipped("storylm-5m")
    if drafter is None:
        shipped("storylm-5m-mtp")
    pair = [] if drafter is None else ["--model", "storylm-5m", "--draft-model", drafter]
    code = main([*pair, "--max-tokens", "40", "-k", "3", "--compare", "--json",
                 "--prompt", "Once upon a time, there was a little girl named Lily."])
    record = json.loads(capsys.readouterr().out)
    assert code == 0 and record["compare"]["identical"] is True
    assert record["model"] == "storylm-5m" and record["draft_model"] == (drafter or "storylm-5m-mtp")
    assert record["stats"]["generated"] == len(record["ids"])
    if drafter is None:
        assert record["stats"]["tokens_per_pass"] > 1.3


def test_k_defaults_to_auto_and_a_seeded_sampled_run_pins_it(tiny_store, capsys):
    """-k auto is the default; seeded sampling pins k = 4 (auto's choices follow the clock, so the seed
    would not reproduce the text); -k N pins it anywhere."""
    from mlx_specdec.api import eos_ids
    from mlx_specdec.loading import load

    target, drafter = tiny_store
    eos = eos_ids(load(str(target))[1])
    common = ["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "12", "--json"]
    for extra, k in (([], "auto"), (["--temp", "1.0"], "auto"), (["--temp", "1.0", "--seed", "1"], 4),
                     (["-k", "2"], 2)):
        assert main(common + extra) == 0
        record = json.loads(capsys.readouterr().out)
        ids = record["ids"]
        # 12 tokens, or fewer ending at the end-of-sequence token (an unseeded sampled run may draw it)
        assert record["k"] == k and (len(ids) == 12 or (len(ids) < 12 and ids[-1] in eos)), extra
