"""bench.real and its llama.cpp peer, without running either on a real model: the README block and the
results file render from a small synthetic result, the peer's arguments and its reduction, and the
eos-stopping systems on a table model."""

import json

import pytest

from bench import llama_cpp_peer as peer
from bench import readme
from bench.real import build, llama_python, prompt_ids, readme_block, reduce_peer, render, timed_passes


def _q(x, spread=0.1):
    return {"median": x, "min": x - spread, "max": x + spread, "q1": x - spread / 2, "q3": x + spread / 2,
            "samples": [x] * 4}


def _row(impl, kind, k, tps, per_pass, speedup, acc=None, identical=True):
    return {"name": f"{impl} {kind} k={k}", "impl": impl, "mode": "greedy", "kind": kind, "k": k,
            "drafter": "prompt-lookup" if k else None, "tokens_per_s": _q(tps), "tokens_per_pass": per_pass,
            "acceptance_rate": acc, "speedup_vs_plain": _q(speedup), "identical_to_plain_greedy": identical}


def _peer():
    return {"llama_cpp": "0.3.36", "gguf": "/x/SmolLM2.Q4_1.gguf", "n_threads": 2, "num_pred_tokens": 10, "rows": [
        {"name": "llama.cpp plain", "system": "plain", "tokens_per_s": _q(50.0), "speedup_vs_own_plain": _q(1.0),
         "tokens_per_pass": 1.0, "identical_to_own_plain": True, "prompts_matching_ours": 1},
        {"name": "llama.cpp lookup", "system": "lookup", "tokens_per_s": _q(40.0), "speedup_vs_own_plain": _q(0.8),
         "tokens_per_pass": 2.5, "identical_to_own_plain": True, "prompts_matching_ours": 1}]}


def _result():
    rows = [_row("ours", "plain", None, 10.0, 1.0, 1.0), _row("mlx-lm", "plain", None, 9.5, 1.0, 0.95),
            _row("ours", "lookup", 4, 25.0, 3.1, 2.5, 0.7), _row("ours", "lookup", "auto", 27.0, 3.4, 2.71, 0.8)]
    prompts = [{"id": "typos", "prompt_tokens": 90, "generated": 60, "output": "The old | lighthouse\nstood"}]
    return {"header": {"target": "smollm2-135m-instruct", "style": "chat", "date": "2026-12-02",
                       "machine": "linux-x86_64-cpu-2core", "cpu": "AMD EPYC", "commit": "abc1234",
                       "command": "python -m bench.real --target smollm2-135m-instruct", "load_average": [2.0, 2.5, 3.0],
                       "load_average_end": [1.0, 1.5, 2.0],
                       "settings": {"prompts": 4, "max_tokens": 96, "repeats": 1, "ks": [4, "auto"]}},
            "sets": {"copy": {"rows": rows, "prompts": prompts, "llama_cpp": _peer()},
                     "free": {"rows": rows[:2] + [_row("ours", "lookup", "auto", 9.9, 1.02, 0.99, 0.1, False)],
                              "prompts": prompts}},
            "notes": []}


def test_readme_block_pins_the_rows_the_command_and_the_link():
    block = readme_block([(_result(), "bench/results/x-real-smollm2-135m-instruct.json")])
    assert block.startswith(
        "**smollm2-135m-instruct**: smollm2-135m-instruct (chat prompts), 2026-12-02, linux-x86_64-cpu-2core "
        "(AMD EPYC), git abc1234: 4 prompts a set x at most 96 new tokens (stopping at eos), 1 timed pass, greedy; "
        "load average 2.0/2.5/3.0 at the start, 1.0/1.5/2.0 at the end. From "
        "[`bench/results/x-real-smollm2-135m-instruct.json`](bench/results/x-real-smollm2-135m-instruct.json) "
        "(`python -m bench.real --target smollm2-135m-instruct`).")
    lines = block.splitlines()
    assert ("Copy-heavy chat, every output identical to plain greedy; llama.cpp: llama-cpp-python 0.3.36, 2 threads, "
            "on the GGUF file (`SmolLM2.Q4_1.gguf`), the same token ids and stop ids; its plain greedy output equals "
            "ours on 1 of 1 prompts (its weights stay quantised):") in lines
    assert "| system (greedy) | k | tokens/s | tokens / target pass | acceptance | x plain [q1, q3] |" in lines
    assert "|---|---|---:|---:|---:|---:|" in lines
    assert "| ours, plain | - | 10.0 | 1.00 | - | 1.00 |" in lines
    assert "| mlx-lm `generate_step`, plain | - | 9.5 | 1.00 | - | 0.95x [0.90, 1.00] |" in lines
    assert "| ours, prompt lookup | auto | 27.0 | 3.40 | 80.0% | 2.71x [2.66, 2.76] |" in lines
    assert "| llama.cpp, plain | - | - | 1.00 | - | 1.00 (its own) |" in lines
    assert ("| llama.cpp, `LlamaPromptLookupDecoding` (10 tokens) | - | - | 2.50 | - | 0.80x [0.75, 0.85] "
            "(over its own plain) |") in lines
    # a greedy mismatch is reported, never shown as a speedup
    assert "Free-form chat, OUTPUT DIFFERS from plain greedy for ours lookup k=auto:" in lines
    assert "| ours, prompt lookup | auto | 9.9 | 1.02 | 10.0% | **output differs from plain greedy** |" in lines
    assert "40.0" not in block  # llama.cpp's absolute tokens/s stay in the file, out of the table


def test_an_eagle3_run_renders_its_rows_and_its_profile():
    result = _result()
    rows = result["sets"]["copy"]["rows"][:1] + [_row("ours", "eagle3", 4, 12.0, 1.9, 1.2, 0.3)]
    profile = {"k": 6, "acceptance": [{"proposed": 10, "conditional": 0.3}, {"proposed": 3, "conditional": 0.25},
                                      {"proposed": 0, "conditional": None}],
               "tokens_per_round": 1.4, "drafter_step_ms": 4.0, "drafter_step_fraction": 0.065, "target_step_ms": 61.5}
    result["header"]["eagle3"] = "models/smollm2-135m-eagle3"
    result["sets"] = {"heldout": {"rows": rows, "prompts": result["sets"]["copy"]["prompts"], "eagle3": profile}}
    text = render(result)
    assert "## held-out instructions (chat template)" in text
    assert "| ours, EAGLE-3 drafter | 4 |" in text
    assert "acceptance per draft position given the one before was accepted 30%, 25%;" in text
    assert "0.065 of a target step (61.5 ms)" in text
    assert "ours, EAGLE-3 drafter" in readme_block([(result, "bench/results/x-eagle3-smollm2-135m-instruct.md")])


def test_a_drafters_run_renders_block_and_eagle3_rows_greedy_and_sampled_with_both_profiles():
    result = _result()
    sampled_plain = {**_row("ours", "plain", None, 9.0, 1.0, 1.0), "mode": "sampled", "temperature": 0.7,
                     "identical_to_plain_greedy": None}
    sampled = {**_row("ours", "dflash", 7, 11.0, 1.6, 1.22, 0.2), "mode": "sampled", "temperature": 0.7,
               "identical_to_plain_greedy": None}
    rows = result["sets"]["copy"]["rows"][:1] + [_row("ours", "eagle3", 4, 12.0, 1.9, 1.2, 0.3),
                                                 _row("ours", "dflash", 7, 13.0, 2.1, 1.3, 0.25),
                                                 sampled_plain, sampled]
    acceptance = [{"proposed": 10, "conditional": 0.4}, {"proposed": 4, "conditional": 0.5}]
    profiles = [{"kind": "eagle3", "k": 7, "acceptance": acceptance, "tokens_per_round": 1.4, "drafter_step_ms": 4.0,
                 "drafter_step_fraction": 0.065, "target_step_ms": 61.5},
                {"kind": "dflash", "k": 7, "acceptance": acceptance, "tokens_per_round": 1.6, "drafter_step_ms": 9.0,
                 "drafter_step_fraction": 0.146, "target_step_ms": 61.5}]
    result["header"].update(eagle3="models/smollm2-135m-eagle3", dflash="models/smollm2-135m-dflash")
    result["header"]["settings"]["temperature"] = 0.7
    result["sets"] = {"heldout": {"rows": rows, "prompts": result["sets"]["copy"]["prompts"], "profiles": profiles}}
    text = render(result)
    assert "| system | k | tokens/s | tokens / target pass | acceptance | x plain [q1, q3] |" in text
    assert "| ours, block drafter (DFlash) | 7 | 13.0 | 2.10 | 25.0% | 1.30x [1.25, 1.35] |" in text
    assert "| ours, plain, t=0.7 | - | 9.0 | 1.00 | - | 1.00 (sampled baseline) |" in text
    assert "| ours, block drafter (DFlash), t=0.7 | 7 | 11.0 | 1.60 | 20.0% | 1.22x [1.17, 1.27] |" in text
    assert "and sampled at t=0.7 against plain sampled decoding" in text
    assert ("Block drafter `models/smollm2-135m-dflash` at k=7 over these prompts (untimed, greedy): acceptance per "
            "draft position given the one before was accepted 40%, 50%; 1.60 tokens per drafting round; one drafter "
            "pass (7 drafts) 9.0 ms = 0.146 of a target step (61.5 ms).") in text
    assert "EAGLE-3 drafter `models/smollm2-135m-eagle3` at k=7" in text
    block = readme_block([(result, "bench/results/x-drafters-smollm2-135m-instruct.md")])
    assert "ours, block drafter (DFlash), t=0.7" in block and "Block drafter `models/smollm2-135m-dflash`" in block


def test_a_drafters_run_renders_the_mtp_baseline_row_and_profile():
    result = _result()
    rows = result["sets"]["copy"]["rows"][:1] + [_row("ours", "mtp", 3, 11.0, 1.5, 1.1, 0.25)]
    profile = {"kind": "mtp", "k": 3, "acceptance": [{"proposed": 10, "conditional": 0.4},
                                                    {"proposed": 4, "conditional": 0.25}],
               "tokens_per_round": 1.5, "drafter_step_ms": 12.0, "drafter_step_fraction": 0.195, "target_step_ms": 61.5}
    result["header"]["mtp"] = "runs/smollm2-135m-mtp"
    result["sets"] = {"heldout": {"rows": rows, "prompts": result["sets"]["copy"]["prompts"], "profiles": [profile]}}
    text = render(result)
    assert "feature drafters (the MTP head) beside plain" in text
    assert "| ours, MTP head (baseline) | 3 | 11.0 | 1.50 | 25.0% | 1.10x [1.05, 1.15] |" in text
    assert ("MTP head `runs/smollm2-135m-mtp` at k=3 over these prompts (untimed, greedy): acceptance per draft "
            "position given the one before was accepted 40%, 25%; 1.50 tokens per drafting round; one head step (its "
            "module and the target's output head) 12.0 ms = 0.195 of a target step (61.5 ms).") in text


def test_the_mtp_baseline_runs_exactly_and_is_profiled_on_a_real_head():
    from bench.real import drafter_profile
    from bench.run import Progress, reduce_rows
    from mlx_specdec.loading import load
    from mlx_specdec.models.head_store import load_head
    from tests.conftest import shipped

    target, tok = load(str(shipped("storylm-5m")))
    head = load_head(shipped("storylm-5m-mtp"), target, tok)
    prompts = [tok.encode("Once upon a time, there was a little girl named Lily."), tok.encode("Tom had a red ball.")]
    systems = build(target, {tok.eos_id}, [3], with_mlx_lm=False, with_lookup=False, mtp=head)
    rows = reduce_rows(systems, timed_passes(systems, prompts, 1, 24, Progress(0), "t"), {"v_k": {}}, {})
    assert [(r["kind"], r["k"]) for r in rows] == [("plain", None), ("mtp", 3)]
    assert rows[1]["identical_to_plain_greedy"] and rows[1]["tokens_per_pass"] > 1
    profile = drafter_profile(target, "mtp", head, prompts, 24, {tok.eos_id}, 3)
    assert profile["kind"] == "mtp" and len(profile["acceptance"]) == 3 and profile["rounds"] > 0
    assert 0 < profile["drafter_step_fraction"] < 1


def test_results_markdown_records_llama_cpps_absolute_speeds_and_the_outputs():
    text = render(_result())
    assert "llama.cpp plain 50.0 tokens/s, llama.cpp lookup 40.0 tokens/s" in text
    assert "| typos | 90 | 60 | The old \\| lighthouse\\nstood |" in text
    assert "## copy-heavy chat (every output identical to plain greedy)" in text


def test_readme_takes_the_newest_file_of_each_target_and_the_main_results_ignore_them(tmp_path):
    results = tmp_path / "bench" / "results"
    results.mkdir(parents=True)
    for name in ("2026-12-01-m-real-gemma-3-270m", "2026-12-02-m-real-gemma-3-270m", "2026-12-01-m-real-smollm2-135m-instruct",
                 "2026-12-01-m"):
        (results / f"{name}.json").write_text("{}")
    assert [p.name for p in readme.real_files(tmp_path)] == [
        "2026-12-01-m-real-smollm2-135m-instruct.json", "2026-12-02-m-real-gemma-3-270m.json"]
    assert readme.results_file(tmp_path).name == "2026-12-01-m.json"


def test_peer_arguments():
    args = peer.parse_args(["--gguf", "f.gguf", "--stop-ids", "0, 2", "--max-tokens", "8"])
    assert (args.gguf, args.stop_ids, args.max_tokens, args.repeats, args.threads, args.num_pred_tokens,
            args.prompts) == ("f.gguf", [0, 2], 8, 1, 2, 10, "-")
    for bad in (["--stop-ids", "a"], ["--repeats", "0"], []):
        with pytest.raises(SystemExit):
            peer.parse_args((["--gguf", "f.gguf"] if bad else []) + bad)
    assert peer.read_prompts("[[1, 2], [3]]") == [[1, 2], [3]]
    for text in ("[]", "[[]]", "[[1, -2]]", "[[1.5]]", '{"a": 1}', "[[true]]"):
        with pytest.raises(ValueError):
            peer.read_prompts(text)


def test_peer_refuses_bad_prompts_in_one_line_before_loading_anything(tmp_path, capsys):
    bad = tmp_path / "p.json"
    bad.write_text("[[1, 2], []]")
    assert peer.main(["--gguf", "missing.gguf", "--prompts", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: prompts must be") and "\n" not in err


def test_reduce_peer_pairs_lookup_with_its_own_plain_per_generation():
    def run(ids, seconds, passes, drafted=0):
        return {"ids": ids, "seconds": seconds, "target_passes": passes, "drafted": drafted}

    raw = {"llama_cpp": "0.3.36", "gguf": "g", "n_threads": 2, "num_pred_tokens": 10, "runs": {
        "plain": [[run([1, 2, 3, 4], 2.0, 4), run([5, 6], 1.0, 2)]],
        "lookup": [[run([1, 2, 3, 4], 1.0, 2, 6), run([5, 6], 2.0, 2, 3)]]}}
    out = reduce_peer(raw, [[1, 2, 3, 4], [5, 7]])
    plain, lookup = out["rows"]
    assert lookup["speedup_vs_own_plain"]["samples"] == [2.0, 0.5]
    assert lookup["tokens_per_pass"] == 1.5 and lookup["drafted"] == 9 and lookup["identical_to_own_plain"]
    assert plain["prompts_matching_ours"] == 1 and plain["tokens_per_s"]["median"] == 2.0
    assert out["outputs"] == [[1, 2, 3, 4], [5, 6]] and "runs" not in out


def test_llama_python_choice(monkeypatch):
    import importlib.util

    assert llama_python("none") is None
    assert llama_python("/opt/py") == "/opt/py"
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    assert llama_python("auto") is None and llama_python(None) is None


class _Tok:
    def __init__(self, chat):
        self.has_chat_template = chat

    def apply_chat_template(self, messages, add_generation_prompt):
        assert add_generation_prompt and messages[0]["role"] == "user"
        return [7, 8, 9]

    def encode(self, text):
        return [1, len(text)]


def test_a_chat_tokenizer_gets_the_chat_set_through_its_template_and_a_base_one_plain_text():
    style, prompts = prompt_ids(_Tok(True), "copy", 2)
    assert style == "chat" and [p["ids"] for p in prompts] == [[7, 8, 9]] * 2 and prompts[0]["id"] == "typos"
    style, prompts = prompt_ids(_Tok(False), "free")
    assert style == "base" and len(prompts) == 6 and prompts[0]["text"].startswith("Question:")


def test_the_held_out_set_is_none_of_the_chat_corpus_and_framed_as_the_corpus_frames_it():
    from mlx_specdec.training.chat_corpus import BASE_FRAME, ChatCorpusConfig, records

    cfg = ChatCorpusConfig(target="t", out="o")  # the corpus's defaults: its validation split
    seen = {r["id"] for r in records(cfg, "train")} | {r["id"] for r in records(cfg, "valid")}
    style, prompts = prompt_ids(_Tok(False), "heldout", 8)
    assert style == "base" and len(prompts) == 8 and not seen & {p["id"] for p in prompts}
    assert prompts[0]["ids"] == [1, len(BASE_FRAME.format(text=prompts[0]["text"]))]


def test_the_systems_stop_at_eos_and_reduce_with_the_harness():
    from bench.run import Progress, reduce_rows
    from mlx_specdec.generate import greedy_generate
    from tests.mocks import TableLM

    target = TableLM(8, seed=3)
    prompt = [1, 2, 3, 1, 2]
    free = greedy_generate(target, prompt, 12)
    eos = {free[4]}
    systems = build(target, eos, [2, "auto"], with_mlx_lm=False)
    runs = timed_passes(systems, [prompt, [4, 5]], 2, 12, Progress(0), "t")
    rows = reduce_rows(systems, runs, {"v_k": {}}, {})
    assert [r["k"] for r in rows] == [None, 2, "auto"]
    assert all(r["identical_to_plain_greedy"] for r in rows)
    first = runs["plain ours greedy"][0][0].ids
    assert first[-1] in eos and len(first) <= 5 and json.dumps(rows)


def test_lookup_before_adds_the_drafter_without_resync_at_each_k():
    """--lookup-before: prompt lookup with resync_ngram=0 beside it at every k, exact, labelled as the before."""
    from bench.real import _row_cells
    from bench.run import Progress, reduce_rows
    from tests.mocks import TableLM

    systems = build(TableLM(8, seed=3), {7}, [2, "auto"], with_mlx_lm=False, lookup_before=True)
    assert [(s.kind, s.k) for s in systems] == [("plain", None), ("lookup", 2), ("lookup-no-resync", 2),
                                                 ("lookup", "auto"), ("lookup-no-resync", "auto")]
    runs = timed_passes(systems, [[1, 2, 3, 1, 2]], 1, 12, Progress(0), "t")
    rows = reduce_rows(systems, runs, {"v_k": {}}, {})
    assert all(r["identical_to_plain_greedy"] for r in rows)
    assert _row_cells(rows[2])[0] == "ours, prompt lookup without resync (before)"
