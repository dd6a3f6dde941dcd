"""`python -m mlx_specdec.generate` on a chat model, as mlx-lm users know it: the
response only (never the templated prompt), no end-of-sequence text, the JSON
`prompt` is the text the user gave; `--compare` without a drafter says it
compares nothing. The chat runs use the real SmolLM2-135M-Instruct folder."""

import io
import json
import re
import sys

import pytest

from mlx_specdec.cli.generate import main
from tests.conftest import ROOT

SMOLLM2 = ROOT / "models" / "real" / "smollm2-135m-instruct"
TEXT = "Repeat exactly: the cat sat."
REPLY = "The cat sat."  # SmolLM2's greedy reply to TEXT, then <|im_end|>: 5 tokens, 2 prompt-lookup drafts accepted
IM_END = 2  # <|im_end|>, one of SmolLM2's eos ids {0, 2}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def smollm2():
    """The real folder, loaded once: every main() below gets this (model, tokenizer)
    from `load`, so a run costs its few decoded tokens, not a reload."""
    if not (SMOLLM2 / "model.safetensors").is_file():
        pytest.skip("models/real/smollm2-135m-instruct not converted: make real-models")
    from mlx_specdec.loading import load

    return load(SMOLLM2)


@pytest.fixture
def chat(smollm2, monkeypatch):
    """main(argv) on SmolLM2, with --model given and the loaded pair reused."""
    import mlx_specdec.loading as loading

    real_load = loading.load
    monkeypatch.setattr(loading, "load", lambda name, sharding=None: smollm2 if str(name) == str(SMOLLM2)
                        else real_load(name, sharding=sharding))

    def run(*args):
        return main(["--model", str(SMOLLM2), "--max-tokens", "8", *args])

    return run


def reply(tokenizer, ids):
    assert ids[-1] == IM_END, "the reply should end on <|im_end|> within --max-tokens"
    return tokenizer.decode(ids[:-1])


def test_json_prompt_is_the_text_read_and_text_omits_eos(chat, smollm2, monkeypatch, capsys):
    _, tok = smollm2
    assert chat("--draft-model", "prompt-lookup", "-k", "4", "--prompt", TEXT, "--json") == 0
    record = json.loads(capsys.readouterr().out)
    assert record["prompt"] == TEXT and record["chat_template"] is True
    assert record["prompt_tokens"] > len(tok.encode(TEXT))  # the template was applied, but is not the `prompt`
    assert record["ids"][-1] == IM_END and record["stats"]["generated"] == len(record["ids"])  # eos still counted
    assert record["text"] == reply(tok, record["ids"]) == REPLY
    assert "<|im_end|>" not in record["text"] and "<|im_start|>" not in record["text"]

    monkeypatch.setattr(sys, "stdin", io.StringIO(TEXT))
    assert chat("--no-draft", "--prompt", "-", "--json") == 0
    from_stdin = json.loads(capsys.readouterr().out)
    assert from_stdin["prompt"] == TEXT  # not "-", not the templated prompt
    assert from_stdin["ids"] == record["ids"] and from_stdin["text"] == record["text"]


@pytest.mark.slow
@pytest.mark.parametrize("drafter", [["--draft-model", "prompt-lookup", "-k", "4"], ["--no-draft"]],
                         ids=["prompt-lookup", "no-draft"])
def test_piped_output_is_the_response_only(chat, capsys, drafter):
    assert chat(*drafter, "--prompt", TEXT) == 0
    out = capsys.readouterr().out
    assert "<|im_start|>" not in out and "<|im_end|>" not in out
    assert out.startswith(REPLY + "\n# ")  # the reply, then the stats block: no system prompt, no template
    assert chat(*drafter, "--prompt", TEXT, "--verbose", "False") == 0
    assert capsys.readouterr().out == REPLY + "\n"  # mlx-lm's --verbose False: the response text only


def test_terminal_output_is_the_response_only(chat, capsys, monkeypatch):
    """In a terminal the accepted drafts are coloured (rich): still no template and no <|im_end|>."""
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)  # capsys's stdout, which TokenStream and rich use
    assert chat("--draft-model", "prompt-lookup", "-k", "4", "--prompt", TEXT) == 0
    out = capsys.readouterr().out
    assert "\x1b[" in out  # the coloured path ran
    plain = ANSI.sub("", out)
    assert "<|im_start|>" not in plain and "<|im_end|>" not in plain and "You are a helpful" not in plain
    legend, rest = plain.split("\n", 1)
    assert "accepted draft" in legend and rest.startswith(REPLY + "\n")


def test_compare_without_a_drafter_says_it_compares_nothing(tiny_store, capsys):
    target, _ = tiny_store
    assert main(["--model", str(target), "--no-draft", "--compare", "--max-tokens", "4", "--json"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ("note: --compare compares nothing with --no-draft: this run is plain decoding, "
                            "the baseline itself\n")
    assert "compare" not in json.loads(captured.out)
    assert main(["--model", str(target), "--compare", "--max-tokens", "4"]) == 0  # --model without --draft-model
    captured = capsys.readouterr()
    assert captured.err == ("note: --compare compares nothing without a --draft-model: this run is plain decoding, "
                            "the baseline itself\n")
    assert "speedup" not in captured.out and "plain decoding" in captured.out


def test_a_raw_prompt_is_still_shown_before_its_continuation(tiny_store, capsys, monkeypatch):
    """No chat template (StoryLM): the continuation follows the prompt, as before; the JSON
    `prompt` is the text read, from stdin too."""
    target, drafter = tiny_store
    assert main(["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "6", "--json",
                 "--prompt", "Once upon a time"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["chat_template"] is False and record["prompt"] == "Once upon a time"
    monkeypatch.setattr(sys, "stdin", io.StringIO("Once upon a time"))
    assert main(["--model", str(target), "--draft-model", str(drafter), "--max-tokens", "6", "--prompt", "-"]) == 0
    assert capsys.readouterr().out.startswith("Once upon a time")
