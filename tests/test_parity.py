"""Parity with mlx-lm for instruct models: chat template, end-of-sequence set,
stream_generate/generate, min-p and --kv-bits, on a tiny offline HF tokenizer
with a chat template and random mlx-lm llama folders built in the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import mlx.core as mx
import pytest

from mlx_specdec import generate, greedy_generate, load, stream_generate
from mlx_specdec.api import GenerationResponse, eos_ids
from mlx_specdec.errors import SpecDecError
from tests.hf_chat import make_model_folder

ROOT = Path(__file__).resolve().parents[1]
TEXT = "Hello there, how are you?"


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    root = tmp_path_factory.mktemp("chat_models")
    return make_model_folder(root / "target", seed=1), make_model_folder(root / "drafter", seed=3, hidden=32, layers=1)


@pytest.fixture(scope="module")
def loaded(folders):
    from mlx_lm import load as mlx_lm_load

    target, tok = mlx_lm_load(str(folders[0]))
    drafter, _ = mlx_lm_load(str(folders[1]))
    return target, drafter, tok


def cli(*args, stdin=None):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    proc = subprocess.run([sys.executable, "-m", "mlx_specdec.generate", *args], input=stdin, capture_output=True,
                          text=True, timeout=180, env=env, cwd=ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def prompt_ids(argv, tok):
    from mlx_specdec.cli.generate import _parser, _prompt_ids

    return _prompt_ids(_parser().parse_args(argv), tok)


# --- chat template -----------------------------------------------------------


def test_chat_template_is_applied_by_default_with_mlx_lm_ids(loaded):
    _, _, tok = loaded
    assert tok.has_chat_template
    ids, templated = prompt_ids(["--prompt", TEXT], tok)
    assert templated
    assert ids == tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True)


def test_system_prompt_and_chat_template_config_reach_the_template(loaded):
    _, _, tok = loaded
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": TEXT}]
    ids, _ = prompt_ids(["--prompt", TEXT, "--system-prompt", "Be brief.", "--chat-template-config",
                         '{"greeting": "Sure!"}'], tok)
    assert ids == tok.apply_chat_template(messages, add_generation_prompt=True, greeting="Sure!")
    assert tok.decode(ids).endswith("assistant\nSure!")


def test_ignore_chat_template_sends_the_raw_prompt(loaded):
    _, _, tok = loaded
    ids, templated = prompt_ids(["--prompt", TEXT, "--ignore-chat-template"], tok)
    assert not templated and ids == tok.encode(TEXT)


def test_prompt_dash_reads_stdin_and_json_keeps_prompt_tokens(folders, loaded):
    _, _, tok = loaded
    code, out, err = cli("--model", str(folders[0]), "--no-draft", "--prompt", "-", "--max-tokens", "4", "--json",
                         stdin=TEXT)
    assert code == 0, err
    record = json.loads(out)
    want = tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True)
    assert record["prompt_tokens"] == len(want) and record["chat_template"] is True
    code, out, err = cli("--model", str(folders[0]), "--no-draft", "--prompt", "-", "--ignore-chat-template",
                         "--max-tokens", "4", "--json", stdin=TEXT)
    assert code == 0, err
    assert json.loads(out)["prompt_tokens"] == len(tok.encode(TEXT))


@pytest.mark.parametrize("flag, value, message", [
    ("--chat-template-config", "{bad", "--chat-template-config is not valid JSON"),
    ("--chat-template-config", "[1]", "--chat-template-config must be a JSON object"),
    ("--extra-eos-token", "<not-a-token>", "is not a token of this tokenizer"),
    ("--max-kv-size", "4", "--max-kv-size: expected an integer >= 5"),
])
def test_bad_parity_flags_get_one_line_and_exit_2(folders, flag, value, message):
    code, out, err = cli("--model", str(folders[0]), "--no-draft", "--max-tokens", "2", flag, value)
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# --- end-of-sequence set -----------------------------------------------------


def test_eos_ids_are_the_tokenizers_eos_token_ids(loaded):
    _, _, tok = loaded
    assert eos_ids(tok) == {tok.convert_tokens_to_ids("<|endoftext|>"), tok.convert_tokens_to_ids("<|im_end|>")}


def test_cli_stops_on_an_extra_eos_token_mid_block(folders, loaded):
    target, _, tok = loaded
    prompt = tok.apply_chat_template([{"role": "user", "content": TEXT}], add_generation_prompt=True)
    chain = greedy_generate(target, prompt, 30)
    stop = chain[9]
    code, out, err = cli("--model", str(folders[0]), "--draft-model", str(folders[0]), "-k", "4", "--prompt", TEXT,
                         "--max-tokens", "30", "--json", "--extra-eos-token", tok.convert_ids_to_tokens(stop))
    assert code == 0, err
    assert json.loads(out)["ids"] == chain[: chain.index(stop) + 1]


# --- stream_generate / generate ---------------------------------------------


def _mlx_lm_stream(model, tok, prompt, n, **kw):
    from mlx_lm import stream_generate as mlx_lm_stream_generate

    return list(mlx_lm_stream_generate(model, tok, prompt, max_tokens=n, **kw))


@pytest.mark.parametrize("prompt_kind", ["text", "ids"])
@pytest.mark.parametrize("k", [1, 3])
def test_stream_generate_equals_mlx_lm_greedy_with_a_drafter(loaded, prompt_kind, k):
    target, drafter, tok = loaded
    prompt = TEXT if prompt_kind == "text" else tok.encode(TEXT)
    theirs = _mlx_lm_stream(target, tok, prompt, 40)
    for draft in (drafter, target):
        ours = list(stream_generate(target, tok, prompt, max_tokens=40, draft_model=draft, num_draft_tokens=k))
        assert all(isinstance(r, GenerationResponse) for r in ours)
        assert [r.token for r in ours] == [r.token for r in theirs]
        assert "".join(r.text for r in ours) == "".join(r.text for r in theirs)
        assert ours[-1].finish_reason == theirs[-1].finish_reason == "length"
        assert ours[-1].generation_tokens == 40 and ours[-1].prompt_tokens == theirs[-1].prompt_tokens
        assert ours[-1].stats.generated == 40
        if draft is target:  # the target drafting for itself: every draft accepted
            assert ours[-1].stats.target_passes == -(-40 // (k + 1)) and sum(r.from_draft for r in ours) > 0


def test_stream_generate_stops_like_mlx_lm_on_every_eos_id(loaded):
    target, drafter, tok = loaded
    chain = [r.token for r in _mlx_lm_stream(target, tok, TEXT, 30)]
    saved = set(tok.eos_token_ids)
    tok.eos_token_ids = saved | {chain[12]}
    try:
        theirs = _mlx_lm_stream(target, tok, TEXT, 30)
        ours = list(stream_generate(target, tok, TEXT, max_tokens=30, draft_model=target, num_draft_tokens=4))
    finally:
        tok.eos_token_ids = saved
    assert [r.token for r in ours] == [r.token for r in theirs] == chain[: chain.index(chain[12]) + 1]
    assert "".join(r.text for r in ours) == "".join(r.text for r in theirs)
    assert ours[-1].finish_reason == theirs[-1].finish_reason == "stop"


def test_generate_returns_mlx_lm_text(loaded):
    from mlx_lm import generate as mlx_lm_generate

    target, drafter, tok = loaded
    assert generate(target, tok, TEXT, max_tokens=25, draft_model=drafter) == mlx_lm_generate(target, tok, TEXT,
                                                                                             max_tokens=25)


def test_stream_generate_kv_bits_equals_mlx_lm_quantized_cache_greedy(loaded):
    target, drafter, tok = loaded
    theirs = _mlx_lm_stream(target, tok, TEXT, 40, kv_bits=8, kv_group_size=32, quantized_kv_start=0)
    for draft in (None, drafter, target):
        ours = list(stream_generate(target, tok, TEXT, max_tokens=40, draft_model=draft, num_draft_tokens=4,
                                    kv_bits=8, kv_group_size=32, quantized_kv_start=0))
        assert [r.token for r in ours] == [r.token for r in theirs]


@pytest.mark.parametrize("start", [0, 15, 20, 5000])
def test_kv_bits_turns_quantized_where_mlx_lm_does(loaded, start):
    """mlx-lm quantizes once the cache holds quantized_kv_start rows (its default 5000):
    positions before that see full-precision keys, later ones quantized keys. A block
    never straddles that position, so every k gives mlx-lm's tokens."""
    target, drafter, tok = loaded
    # 2 bits: coarse enough that where the cache turns quantized changes mlx-lm's tokens.
    theirs = [r.token for r in _mlx_lm_stream(target, tok, TEXT, 40, kv_bits=2, kv_group_size=32,
                                               quantized_kv_start=start)]
    # The target drafting for itself is always accepted, so its blocks would straddle
    # the start (a test of that fails without the engine's block limit).
    for draft in (drafter, target):
        for k in (1, 4, 8):
            ours = [r.token for r in stream_generate(target, tok, TEXT, max_tokens=40, draft_model=draft,
                                                     num_draft_tokens=k, kv_bits=2, kv_group_size=32,
                                                     quantized_kv_start=start)]
            assert ours == theirs, (start, k)


def test_cli_kv_bits_equals_mlx_lm_quantized_cache_greedy(folders, loaded):
    target, _, tok = loaded
    theirs = [r.token for r in _mlx_lm_stream(target, tok, TEXT, 30, kv_bits=4, kv_group_size=32,
                                               quantized_kv_start=0)]
    code, out, err = cli("--model", str(folders[0]), "--draft-model", str(folders[1]), "--prompt", TEXT,
                         "--ignore-chat-template", "--max-tokens", "30", "--json", "--kv-bits", "4",
                         "--kv-group-size", "32", "--quantized-kv-start", "0")
    assert code == 0, err
    assert json.loads(out)["ids"] == theirs


def test_stream_generate_refuses_what_it_cannot_do_exactly(loaded):
    from mlx_lm.sample_utils import make_sampler

    target, drafter, tok = loaded
    with pytest.raises(SpecDecError, match="sampler function"):
        list(stream_generate(target, tok, TEXT, max_tokens=4, draft_model=drafter, sampler=make_sampler(0.7)))
    with pytest.raises(SpecDecError, match="max_kv_size must be an integer >= 5"):
        list(stream_generate(target, tok, TEXT, max_tokens=4, max_kv_size=3))
    with pytest.raises(SpecDecError, match="does not take"):
        list(stream_generate(target, tok, TEXT, max_tokens=4, adapter_path="x"))


def test_sampled_stream_generate_is_reproducible_and_takes_min_p(loaded):
    target, drafter, tok = loaded
    run = lambda: [r.token for r in stream_generate(target, tok, TEXT, max_tokens=20, draft_model=drafter,  # noqa: E731
                                                     temp=0.8, top_p=0.9, min_p=0.05, seed=3)]
    assert run() == run()


def test_our_load_and_stream_generate_on_a_store_model(tiny_store):
    model, tok = load(tiny_store[0])
    drafter, _ = load(tiny_store[1])
    out = list(stream_generate(model, tok, "Once upon a time", max_tokens=12, draft_model=drafter))
    ids = tok.encode("Once upon a time", bos=True)
    want = greedy_generate(model, ids, 12, eos_id=tok.eos_token_ids)
    assert [r.token for r in out] == want
    assert "".join(r.text for r in out) == tok.decode([t for t in want if t not in tok.eos_token_ids])
    assert mx.get_peak_memory() >= 0


# --- platform, entry points, one-line load errors ---------------------------


def _run_python(code: str):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("MLX_SPECDEC_BLAS", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


GENERATE_TWICE = ("from mlx_specdec import greedy_generate\nfrom tests.mocks import TableLM\n"
                  "m = TableLM(8)\ngreedy_generate(m, [1, 2], 3)\ngreedy_generate(m, [1, 2], 3)\n")


@pytest.mark.slow
def test_bundled_blas_after_an_early_mlx_import_warns_once_in_one_line():
    from mlx_specdec import _platform

    if sys.platform != "linux" or not any(Path(c).exists() for c in _platform._CANDIDATES if c.startswith("/")):
        pytest.skip("needs Linux with a system OpenBLAS to compare against")
    late = _run_python("import mlx.core\nimport mlx_specdec\n" + GENERATE_TWICE)
    assert late.returncode == 0, late.stderr
    lines = [line for line in late.stderr.splitlines() if "bundled BLAS" in line]
    assert len(lines) == 1 and "import mlx_specdec first" in lines[0] and "LD_PRELOAD=" in lines[0]
    early = _run_python("import mlx_specdec\nimport mlx.core\n" + GENERATE_TWICE)
    assert early.returncode == 0 and "BLAS" not in early.stderr


def test_a_failing_transformers_config_check_is_one_line(folders, monkeypatch, capsys):
    """huggingface_hub / pydantic validation errors are not ValueError: the tokenizer's
    config check must still end in one line, exit 2."""
    import transformers

    class StrictDataclassValidationError(Exception):
        pass

    def refuse(*args, **kwargs):
        raise StrictDataclassValidationError("Validation error for field 'layer_types':\n  bad value\n  more")

    monkeypatch.setattr(transformers.AutoConfig, "from_pretrained", refuse)
    from mlx_specdec.cli.generate import main

    assert main(["--model", str(folders[0]), "--no-draft", "--max-tokens", "2"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err and "layer_types" in err


def test_mlx_specdec_command_dispatches_and_explains(capsys):
    from mlx_specdec.cli.main import main

    assert main(["nope"]) == 2 and "unknown command 'nope'" in capsys.readouterr().err
    assert main(["--help"]) == 0 and "generate" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["doctor", "--help"])
    assert exit_.value.code == 0


@pytest.mark.skipif(os.environ.get("MLX_SPECDEC_INSTALL_CHECK") != "1",
                    reason="needs PyPI: set MLX_SPECDEC_INSTALL_CHECK=1 (or run make install-check)")
def test_pip_install_runs_the_installed_command(tmp_path):
    proc = subprocess.run([str(ROOT / "scripts" / "check_install.sh"), str(tmp_path / "venv")],
                          capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr[-2000:]
