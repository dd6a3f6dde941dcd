"""Bench rows on the real targets: plain, mlx-lm's plain and prompt lookup on chat prompts, llama.cpp beside.

    python -m bench.real --target smollm2-135m-instruct --out bench/results
    python -m bench.real --target gemma-3-270m --prompts 4 --repeats 1 --max-tokens 64 --out bench/results
    python -m bench.real --target smollm2-135m-instruct --llama-cpp-python /tmp/llamacpp/venv/bin/python
    python -m bench.real --prompts 1 --max-tokens 16 --repeats 1 --llama-cpp-python none --out /tmp/r  # smoke

Three prompt sets: the instruction set's held-out requests (`--sets heldout`, what an EAGLE-3 drafter trained on
the chat corpus is measured on) and two written below: a copy-heavy one (fix the spelling and write it
again, repeat a paragraph, copy a recipe or an email with one change, convert
a list or notes to another format: the answer mostly copies the request) and a
free-form one (questions, explanations, a short story). A chat target
(SmolLM2-135M-Instruct) gets them through its chat template; a base model
(Gemma 3 270M) gets plain-text prompts in the same two spirits. Generation
stops at the tokenizer's eos ids or at --max-tokens.

Systems: plain decoding (ours), mlx-lm's `generate_step` (plain), and our
prompt lookup at every --ks (fixed k and "auto"), all greedy, timed as
`python -m bench` times them (bench.run's discipline: a warm-up generation per
system, then passes that run every system on a prompt before the next one, in
an order rotated per prompt; one synchronised region per generation; rows
reduced by bench.run.reduce_rows: tokens/s, tokens per target pass,
acceptance, and the paired speedup over our plain run of the same prompt in
the same pass, median and quartiles). Every speculative output is checked
identical to plain greedy; a mismatch is recorded, reported, and exits 1.

llama.cpp as a peer (--llama-cpp-python PYTHON; default: this interpreter when
it can import llama_cpp, else none): bench/llama_cpp_peer.py runs under that
interpreter on the target's GGUF file with the same token ids and stop ids,
timing its plain greedy decoding and LlamaPromptLookupDecoding(num_pred_tokens=10)
paired per prompt. Its lookup is reported as a ratio over its own plain decoding,
beside ours over ours; the absolute speeds of the two engines (an fp32 MLX model
against a 4-bit llama.cpp one) are recorded in the file, never compared in the table.

Writes ``<out>/<date>-<machine>-real-<target>.{json,md}``; the README's
`real-targets` block is rendered from the newest file of each target
(`python -m bench.readme`). With --eagle3 FOLDER the drafter's rows join at
every k, with its acceptance per draft position and its step cost, into
``...-eagle3-<target>.{json,md}`` (the README's `eagle3` block). With --dflash
FOLDER a block drafter's rows join the same way (beside EAGLE-3's when both are
given, on the same prompts), with its acceptance per slot and the cost of one
drafter pass, into ``...-drafters-<target>.{json,md}`` (the README's `drafters`
block); --mtp-head FOLDER adds an MTP head's rows there too (the baseline: the
head trained on the same corpus, `python -m mlx_specdec.mtp train --corpus`). --temp T adds sampled rows at temperature T (plain ours and the feature
drafters, seeded per prompt), each paired against plain sampled decoding;
--no-lookup leaves prompt lookup out; --lookup-before adds it as it was before it resynchronised after an edit
(`PromptLookupDrafter(resync_ngram=0)`), at every k, beside it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

from .report import markdown_table, speedup_cell, where

ROOT = Path(__file__).resolve().parents[1]
PEER = Path(__file__).with_name("llama_cpp_peer.py")
TARGETS = ("smollm2-135m-instruct", "gemma-3-270m")  # the README's order
SETS = ("copy", "free", "heldout")
SET_TITLES = {"copy": "copy-heavy", "free": "free-form", "heldout": "held-out instructions"}


def _title(name: str, header: dict) -> str:
    chat = header.get("style") == "chat"
    if name == "heldout":
        return SET_TITLES[name] + (" (chat template)" if chat else " (in a plain-text frame, a base model)")
    return SET_TITLES[name] + (" chat" if chat else " text (plain-text prompts, a base model)")
NUM_PRED_TOKENS = 10  # llama-cpp-python's LlamaPromptLookupDecoding default

# ---------------------------------------------------------------- the prompts

_TYPOS = ("Teh old lighthouse stood at the edge of the cliff for more then a hundred years. Every nigth its "
          "keeper climbed the winding stairs, cleaned the big glass lens, and lit the lamp so that ships coud "
          "find there way home through the fog.")
_PARAGRAPH = ("Bees visit thousands of flowers every day. As they move from one flower to the next, they carry "
              "pollen on their legs and bodies, which helps plants make seeds and fruit. Without bees, many of "
              "the foods we eat, such as apples, almonds and blueberries, would be much harder to grow.")
_RECIPE = ("Pancakes\n- 1 cup of flour\n- 1 cup of milk\n- 1 egg\n- 2 tablespoons of oil\n- 1 tablespoon of sugar\n"
           "- a pinch of salt\nMix the flour, sugar and salt. Add the milk, the egg and the oil, and stir until "
           "smooth. Cook on a hot pan until golden on both sides.")
_EMAIL = ("Hi Sarah,\n\nThank you for your help last week. Could we meet on Tuesday at 10am in the small "
          "conference room to go over the budget for the spring project? Please bring the latest numbers and "
          "the list of suppliers.\n\nBest regards,\nTom")
_LIST = "- buy milk\n- call the dentist\n- water the plants\n- pay the electricity bill\n- pick up the kids at 4pm\n- book the train tickets"
_NOTES = ("Alice Martin, engineer, Paris, 34\nBen Okafor, designer, Lagos, 29\nChen Wei, teacher, Shanghai, 41\n"
          "Dana Cruz, nurse, Lima, 37\nEmil Berg, chef, Oslo, 45")

CHAT = {
    "copy": [
        ("typos", f"Fix the spelling mistakes in this text and write it out again:\n\n{_TYPOS}"),
        ("repeat", f"Repeat this paragraph exactly, word for word:\n\n{_PARAGRAPH}"),
        ("recipe", f"Copy this recipe, but use butter instead of oil:\n\n{_RECIPE}"),
        ("email", f"Rewrite this email with the meeting moved from Tuesday to Thursday. Keep everything else the "
                  f"same.\n\n{_EMAIL}"),
        ("numbered", f"Convert this list into a numbered list:\n\n{_LIST}"),
        ("table", f"Convert these notes into a markdown table with the columns Name, Job, City and Age:\n\n{_NOTES}"),
    ],
    "free": [
        ("seasons", "What causes the seasons on Earth?"),
        ("bicycle", "Explain how a bicycle stays upright when it moves."),
        ("robot", "Write a short story about a robot who learns to paint."),
        ("sleep", "Give me three tips for sleeping better."),
        ("sky", "Why is the sky blue?"),
        ("virus", "What is the difference between a virus and a bacterium?"),
    ],
}

BASE = {  # a base model continues text: the same requests as text whose natural continuation is the answer
    "copy": [
        ("typos", f"Text: {_TYPOS}\nThe same text, corrected:\n"),
        ("repeat", f"Paragraph: {_PARAGRAPH}\nThe same paragraph, repeated word for word:\n"),
        ("recipe", f"Recipe with oil:\n{_RECIPE}\n\nThe same recipe, with butter instead of oil:\n"),
        ("email", f"Email:\n{_EMAIL}\n\nThe same email, with the meeting moved from Tuesday to Thursday:\n"),
        ("numbered", f"List:\n{_LIST}\n\nThe same list, numbered:\n1."),
        ("table", f"Notes:\n{_NOTES}\n\nThe same notes as a markdown table:\n| Name | Job | City | Age |\n"),
    ],
    "free": [
        ("seasons", "Question: What causes the seasons on Earth?\nAnswer:"),
        ("bicycle", "A moving bicycle stays upright because"),
        ("robot", "Once upon a time, a small robot decided to learn to paint."),
        ("sleep", "Here are three tips for sleeping better:\n1."),
        ("sky", "Why is the sky blue? The short answer is that"),
        ("virus", "The difference between a virus and a bacterium is"),
    ],
}


def heldout_prompts(n: int | None) -> list[tuple[str, str]]:
    """The instruction set's held-out requests, from the end of its hash order: the chat corpus's validation
    split (training.chat_corpus) takes them from the start, so a drafter trained on that corpus has seen none."""
    import hashlib

    from mlx_specdec.data import instructions

    rows = sorted(instructions.load("heldout"), key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())
    return [(r["id"], r["text"]) for r in rows[::-1][:n]]


def prompt_ids(tok, set_name: str, n: int | None = None) -> tuple[str, list[dict]]:
    """('chat' or 'base', [{id, text, ids}]): the set through the chat template when the tokenizer has one (the
    held-out instructions as the chat corpus frames them: training.chat_corpus.chat_ids)."""
    chat = bool(getattr(tok, "has_chat_template", False))
    if set_name == "heldout":
        from mlx_specdec.training.chat_corpus import chat_ids

        return ("chat" if chat else "base"), [{"id": pid, "text": text, "ids": [int(t) for t in chat_ids(tok, text)]}
                                              for pid, text in heldout_prompts(n)]
    out = []
    for pid, text in (CHAT if chat else BASE)[set_name][:n]:
        if chat:
            ids = list(tok.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True))
        else:
            from mlx_specdec.generate import encode_prompt

            ids = encode_prompt(tok, text)
        out.append({"id": pid, "text": text, "ids": [int(t) for t in ids]})
    return ("chat" if chat else "base"), out


# ---------------------------------------------------------------- the systems (stopping at eos)

def build(target, eos: set[int], ks: list, with_mlx_lm: bool = True, eagle3=None, dflash=None,
          temperature: float = 0.0, with_lookup: bool = True, mtp=None, lookup_before: bool = False) -> list:
    """bench.systems' rows, every generation stopping at an eos id: plain ours, mlx-lm's generate_step,
    prompt lookup at each k, an EAGLE-3 drafter (`eagle3`, a loaded Eagle3Model), a block drafter (`dflash`,
    a loaded DFlashModel) and an MTP head (`mtp`, a loaded MTPHead: the baseline) at each k, all greedy; with
    `temperature` > 0 also plain ours and the drafters sampled at that temperature (seeded by prompt), each
    against plain sampled decoding. `lookup_before`: prompt lookup as it was before it resynchronised after an
    edit (resync_ngram=0) at each k too, the change measured side by side."""
    import mlx.core as mx

    from mlx_specdec.drafters import PromptLookupDrafter
    from mlx_specdec.generate import SpecStats, plain_stream, speculative_stream

    from .systems import Run, System, _mlx_lm, synchronised

    def policy(mode):
        return {"temperature": temperature if mode == "sampled" else 0.0}

    def ours_plain(mode):
        def run(prompt, max_tokens, seed):
            ids, seconds, peak, resident = synchronised(lambda: list(plain_stream(
                target, prompt, max_tokens, eos_id=eos, seed=seed, **policy(mode))))
            return Run(ids, seconds, target_passes=len(ids), peak_memory=peak, resident_memory=resident)

        return run

    def mlx_lm_plain():
        gen, make_sampler = _mlx_lm()
        sampler = make_sampler(temp=0.0)

        def go(prompt, max_tokens):
            out = []
            for t, _ in gen.generate_step(mx.array(prompt), target, max_tokens=max_tokens, sampler=sampler):
                out.append(int(t))
                if out[-1] in eos:
                    break
            return out

        def run(prompt, max_tokens, seed):
            ids, seconds, peak, resident = synchronised(lambda: go(prompt, max_tokens))
            return Run(ids, seconds, target_passes=len(ids), peak_memory=peak, resident_memory=resident)

        return run

    def speculative(k, make, mode="greedy"):
        def run(prompt, max_tokens, seed):
            stats, drafter = SpecStats(), make()  # a fresh drafter, outside the clock

            def go():
                return [t for e in speculative_stream(target, drafter, prompt, max_tokens, k=k, eos_id=eos, seed=seed,
                                                      stats=stats, **policy(mode)) for t in e.ids]

            ids, seconds, peak, resident = synchronised(go)
            return Run(ids, seconds, stats.target_passes, stats.drafted, stats.accepted, peak, resident)

        return run

    drafters = []
    if eagle3 is not None:
        from mlx_specdec.drafters.eagle3 import Eagle3Drafter

        drafters.append(("eagle3", lambda: Eagle3Drafter(eagle3)))
    if dflash is not None:
        from mlx_specdec.drafters.dflash import DFlashDrafter

        drafters.append(("dflash", lambda: DFlashDrafter(dflash)))
    if mtp is not None:
        from mlx_specdec.drafters import MTPDrafter

        drafters.append(("mtp", lambda: MTPDrafter(mtp)))
    modes = ["greedy"] + (["sampled"] if temperature > 0 else [])
    systems = []
    for mode in modes:
        systems.append(System(f"plain ours {mode}", "ours", mode, None, "plain", None, ours_plain(mode)))
        if mode == "greedy" and with_mlx_lm:
            systems.append(System("plain mlx-lm greedy", "mlx-lm", "greedy", None, "plain", None, mlx_lm_plain()))
        if mode == "greedy" and with_lookup:
            for k in ks:
                systems.append(System(f"ours prompt-lookup k={k} greedy", "ours", "greedy", "prompt-lookup", "lookup",
                                      k, speculative(k, PromptLookupDrafter)))
                if lookup_before:
                    systems.append(System(f"ours prompt-lookup-no-resync k={k} greedy", "ours", "greedy",
                                          "prompt-lookup", "lookup-no-resync", k,
                                          speculative(k, lambda: PromptLookupDrafter(resync_ngram=0))))
        for kind, make in drafters:
            for k in ks:
                systems.append(System(f"ours {kind} k={k} {mode}", "ours", mode, kind, kind, k,
                                      speculative(k, make, mode)))
    return systems


def drafter_profile(target, kind: str, drafter_model, prompts: list[list[int]], max_tokens: int, eos: set[int],
                    k: int) -> dict:
    """Untimed: a feature drafter's greedy acceptance per draft position at k over the prompts, and the cost of
    what it runs per draft as a fraction of one target step (medians of 20 synchronised calls each, after a
    warm-up): one model step for EAGLE-3 (`kind` "eagle3"), one pass drafting the whole block of k for a
    block drafter ("dflash"), one head step for an MTP head ("mtp": its module and the target's own output
    head over the whole vocabulary)."""
    import time

    import mlx.core as mx

    from mlx_specdec.drafters.dflash import DFlashDrafter
    from mlx_specdec.drafters.eagle3 import Eagle3Drafter
    from mlx_specdec.drafters.mtp import MTPDrafter, acceptance_by_depth
    from mlx_specdec.generate import speculative_generate
    from mlx_specdec.state import make_sequence

    make = {"eagle3": Eagle3Drafter, "dflash": DFlashDrafter, "mtp": MTPDrafter}[kind]
    rounds = []
    for ids in prompts:
        drafter = make(drafter_model)
        speculative_generate(target, drafter, ids, max_tokens, k=k, eos_id=eos)
        rounds += [r for r in drafter.rounds if r[0] > 0]
    seq = make_sequence(target, "auto")
    if kind != "mtp":
        seq.capture_features(drafter_model.config.target_layers)
    seq.prefill(prompts[0])
    token = mx.array([[prompts[0][-1]]])

    def median_time(step, n=20):
        step()
        times = []
        for _ in range(n):
            t0 = time.perf_counter()
            step()
            times.append(time.perf_counter() - t0)
        return sorted(times)[n // 2]

    def target_step():
        mx.eval(seq.extend(token[0]))
        seq.commit(1, token[0])

    if kind == "mtp":
        hidden = mx.zeros((1, 1, drafter_model.config.dim))

        def drafter_call():
            mx.eval(*drafter_model(hidden, token))
    elif kind == "eagle3":
        hidden, cache = mx.zeros((1, 1, drafter_model.config.hidden_size)), drafter_model.make_cache()

        def drafter_call():
            mx.eval(*drafter_model(token, hidden, cache=cache))
    else:
        cache = drafter_model.make_cache()
        width = len(drafter_model.config.target_layers) * drafter_model.config.target_hidden_size
        drafter_model.extend_context(mx.zeros((1, len(prompts[0]) - 1, width)), cache)  # a prompt's context

        def drafter_call():
            mx.eval(drafter_model(token[0], k, None, cache))

    t_target, t_drafter = median_time(target_step), median_time(drafter_call)
    return {"kind": kind, "k": k, "rounds": len(rounds), "acceptance": acceptance_by_depth(rounds, k),
            "tokens_per_round": (sum(a for _, a in rounds) + len(rounds)) / max(len(rounds), 1),
            "target_step_ms": 1000 * t_target, "drafter_step_ms": 1000 * t_drafter,
            "drafter_step_fraction": t_drafter / t_target}


def timed_passes(systems: list, prompts: list[list[int]], repeats: int, max_tokens: int, progress, label: str) -> dict:
    """runs[name][pass][prompt]: bench.run's interleaved passes (every system on a prompt before the next
    prompt, the order rotated per (pass, prompt))."""
    runs = {s.name: [[] for _ in range(repeats)] for s in systems}
    n = len(systems)
    for rep in range(repeats):
        progress.say(f"{label} pass {rep + 1}/{repeats}: {n} systems x {len(prompts)} prompts x {max_tokens} tokens")
        for i, ids in enumerate(prompts):
            shift = (rep * len(prompts) + i) * 7 % n
            for s in systems[shift:] + systems[:shift]:
                runs[s.name][rep].append(s.run(ids, max_tokens, i))
            progress.update(f"{label} pass {rep + 1}/{repeats}, prompt {i + 1}/{len(prompts)}")
    return runs


# ---------------------------------------------------------------- llama.cpp

def llama_python(choice: str | None) -> str | None:
    """The interpreter to run the peer with: the one given, this one when it has llama_cpp ('auto'), or None."""
    if choice in (None, "auto"):
        return sys.executable if importlib.util.find_spec("llama_cpp") is not None else None
    return None if choice == "none" else choice


def run_peer(python: str, gguf: str, prompts: list[list[int]], max_tokens: int, stop: list[int], repeats: int,
             threads: int = 2) -> dict:
    cmd = [python, str(PEER), "--gguf", gguf, "--max-tokens", str(max_tokens), "--repeats", str(repeats),
           "--stop-ids", ",".join(map(str, sorted(stop))), "--threads", str(threads),
           "--num-pred-tokens", str(NUM_PRED_TOKENS)]
    done = subprocess.run(cmd, input=json.dumps(prompts), capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"llama.cpp peer failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    return json.loads(done.stdout)


def reduce_peer(peer: dict, oracle: list[list[int]]) -> dict:
    """llama.cpp's two systems: tokens/s, tokens per pass, its lookup over its own plain paired per
    generation, whether its lookup equals its plain, and how many prompts match our greedy output."""
    from .run import quantiles

    runs = peer["runs"]
    out = {k: v for k, v in peer.items() if k != "runs"}
    tps = {name: [len(r["ids"]) / r["seconds"] for rep in reps for r in rep] for name, reps in runs.items()}
    rows = []
    for name, reps in runs.items():
        flat = [r for rep in reps for r in rep]
        generated, passes = sum(len(r["ids"]) for r in flat), sum(r["target_passes"] for r in flat)
        rows.append({
            "name": f"llama.cpp {name}", "system": name,
            "tokens_per_s": quantiles([sum(len(r["ids"]) for r in rep) / sum(r["seconds"] for r in rep) for rep in reps]),
            "speedup_vs_own_plain": quantiles([a / b for a, b in zip(tps[name], tps["plain"])]),
            "generated": generated, "target_passes": passes, "drafted": sum(r["drafted"] for r in flat),
            "tokens_per_pass": generated / passes if passes else 0.0,
            "identical_to_own_plain": all(r["ids"] == p["ids"] for r, p in zip(flat, (p for rep in runs["plain"] for p in rep))),
            "prompts_matching_ours": sum(r["ids"] == o for r, o in zip(reps[0], oracle)),
        })
    out["rows"] = rows
    out["outputs"] = [r["ids"] for r in runs["plain"][0]]
    return out


# ---------------------------------------------------------------- rendering

def _row_cells(r: dict) -> list[str]:
    acc = "-" if r.get("acceptance_rate") is None else f"{r['acceptance_rate']:.1%}"
    if r["impl"] == "ours" and r["kind"] == "plain":
        x = "1.00"
    elif r["identical_to_plain_greedy"] is False:
        x = "**output differs from plain greedy**"
    else:
        x = speedup_cell(r["speedup_vs_plain"])
    label = {"plain": "ours, plain" if r["impl"] == "ours" else "mlx-lm `generate_step`, plain",
             "lookup": "ours, prompt lookup", "lookup-no-resync": "ours, prompt lookup without resync (before)",
             "eagle3": "ours, EAGLE-3 drafter",
             "dflash": "ours, block drafter (DFlash)", "mtp": "ours, MTP head (baseline)"}[r["kind"]]
    if r.get("mode") == "sampled":
        label += f", t={r['temperature']:g}" if "temperature" in r else ", sampled"
    if r["impl"] == "ours" and r["kind"] == "plain" and r.get("mode") == "sampled":
        x = "1.00 (sampled baseline)"
    return [label, str(r["k"] or "-"), f"{r['tokens_per_s']['median']:.1f}", f"{r['tokens_per_pass']:.2f}", acc, x]


def _peer_cells(r: dict, peer: dict) -> list[str]:
    label = ("llama.cpp, plain" if r["system"] == "plain"
             else f"llama.cpp, `LlamaPromptLookupDecoding` ({peer['num_pred_tokens']} tokens)")
    x = "1.00 (its own)" if r["system"] == "plain" else f"{speedup_cell(r['speedup_vs_own_plain'])} (over its own plain)"
    if r["system"] != "plain" and not r["identical_to_own_plain"]:
        x += ", output differs from its plain"
    return [label, "-", "-", f"{r['tokens_per_pass']:.2f}", "-", x]


COLUMNS = ["system (greedy)", "k", "tokens/s", "tokens / target pass", "acceptance", "x plain [q1, q3]"]


def set_table(entry: dict) -> list[str]:
    rows = [_row_cells(r) for r in entry["rows"]]
    peer = entry.get("llama_cpp")
    if peer:
        rows += [_peer_cells(r, peer) for r in peer["rows"]]
    sampled = any(r.get("mode") == "sampled" for r in entry["rows"])
    return markdown_table(["system"] + COLUMNS[1:] if sampled else COLUMNS, rows, right=4)


def _summary(h: dict) -> str:
    s = h["settings"]
    style = "chat" if h["style"] == "chat" else "plain-text"
    modes = "greedy" + (f", and sampled at t={s['temperature']:g} against plain sampled decoding"
                        if s.get("temperature") else "")
    return (f"{h['target']} ({style} prompts), {h['date']}, {where(h)}, git {h['commit']}: "
            f"{_n(s['prompts'], 'prompt')} a set x at most {s['max_tokens']} new tokens (stopping at eos), "
            f"{_n(s['repeats'], 'timed pass', 'timed passes')}, {modes}; load average {_load(h)}")


def _n(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else many or one + 's'}"


def _load(h: dict) -> str:
    start, end = h.get("load_average"), h.get("load_average_end")
    fmt = lambda v: "/".join(f"{x:.1f}" for x in v) if v else "?"  # noqa: E731
    return f"{fmt(start)} at the start, {fmt(end)} at the end"


def _identical(entry: dict) -> str:
    bad = [r["name"] for r in entry["rows"] if r["identical_to_plain_greedy"] is False]
    return ("every output identical to plain greedy" if not bad
            else "OUTPUT DIFFERS from plain greedy for " + ", ".join(bad))


def _peer_note(peer: dict, n: int) -> str:
    plain = next(r for r in peer["rows"] if r["system"] == "plain")
    return (f"llama.cpp: llama-cpp-python {peer['llama_cpp']}, {peer['n_threads']} threads, on the GGUF file "
            f"(`{Path(peer['gguf']).name}`), the same token ids and stop ids; its plain greedy output equals ours on "
            f"{plain['prompts_matching_ours']} of {n} prompts (its weights stay quantised)")


def render(result: dict) -> str:
    h = result["header"]
    drafters = " and ".join(name for kind, name in (("eagle3", "EAGLE-3"), ("dflash", "a block drafter"),
                                                    ("mtp", "the MTP head")) if h.get(kind))
    title = f"feature drafters ({drafters}) beside plain" if drafters else "plain, mlx-lm and prompt lookup"
    lines = [f"# Real target {h['target']}: {title}" + (", llama.cpp beside" if any(
        e.get("llama_cpp") for e in result["sets"].values()) else ""), "",
             f"{_summary(h)}. `{h['command']}`. x plain: tokens/s over our plain decoding of the same prompt in "
             "the same pass (paired), median [quartiles, or min-max under 4 samples]; llama.cpp's rows over its "
             "own plain decoding, paired the same way.", ""]
    for name, entry in result["sets"].items():
        lines += [f"## {_title(name, h)} ({_identical(entry)})", "", *set_table(entry), ""]
        lines += [profile_line(p, h.get(p["kind"])) for p in profiles(entry)]
        lines += [""] if profiles(entry) else []
        peer = entry.get("llama_cpp")
        if peer:
            abs_ = ", ".join(f"{r['name']} {r['tokens_per_s']['median']:.1f} tokens/s" for r in peer["rows"])
            lines += [_peer_note(peer, len(entry["prompts"])) + f". Its absolute speeds (another engine, 4-bit "
                      f"weights: not comparable with the fp32 MLX rows): {abs_}.", ""]
        lines += ["| prompt | prompt tokens | tokens generated | plain greedy output (start) |", "|---|---:|---:|---|"]
        for p in entry["prompts"]:
            text = p["output"][:90].replace("\n", "\\n").replace("|", "\\|")
            lines.append(f"| {p['id']} | {p['prompt_tokens']} | {p['generated']} | {text} |")
        lines.append("")
    if result.get("notes"):
        lines += ["Notes:", "", *(f"- {n}" for n in result["notes"]), ""]
    return "\n".join(lines)


def readme_block(results: list[tuple[dict, str]]) -> str:
    """The README's `real-targets` block: per target (its newest results file, `source` repo-relative) and
    prompt set, the rows of the run, the command and a link."""
    out = []
    for result, source in results:
        h = result["header"]
        out += [f"**{h['target']}**: {_summary(h)}. From [`{source}`]({source}) (`{h['command']}`). "
                "x plain: paired per prompt against our plain decoding in the same pass, median [quartiles, or "
                "min-max under 4 samples]; llama.cpp's lookup against llama.cpp's own plain decoding.", ""]
        for name, entry in result["sets"].items():
            out += [f"{_title(name, h).capitalize()}, {_identical(entry)}"
                    + (f"; {_peer_note(entry['llama_cpp'], len(entry['prompts']))}" if entry.get("llama_cpp") else "")
                    + ":", "", *set_table(entry), ""]
            out += [line for p in profiles(entry) for line in (profile_line(p, h.get(p["kind"])), "")]
    return "\n".join(out).rstrip()


def profiles(entry: dict) -> list[dict]:
    """A set's drafter profiles (older files keep EAGLE-3's under "eagle3")."""
    if "profiles" in entry:
        return entry["profiles"]
    return [{"kind": "eagle3", **entry["eagle3"]}] if entry.get("eagle3") else []


def profile_line(e: dict, folder: str | None) -> str:
    """A feature drafter's profile in one sentence: acceptance per draft position, tokens per round, cost."""
    per = ", ".join(f"{a['conditional']:.0%}" for a in e["acceptance"] if a["proposed"])
    where_ = f" `{folder}`" if folder else ""
    if e.get("kind", "eagle3") == "eagle3":
        name, cost = f"EAGLE-3 drafter{where_}", "one drafter step"
    elif e["kind"] == "mtp":
        name, cost = f"MTP head{where_}", "one head step (its module and the target's output head)"
    else:
        name, cost = f"Block drafter{where_}", f"one drafter pass ({e['k']} drafts)"
    return (f"{name} at k={e['k']} over these prompts (untimed, greedy): acceptance per draft position given the "
            f"one before was accepted {per}; {e['tokens_per_round']:.2f} tokens per drafting round; {cost} "
            f"{e['drafter_step_ms']:.1f} ms = {e['drafter_step_fraction']:.3f} of a target step "
            f"({e['target_step_ms']:.1f} ms).")


# ---------------------------------------------------------------- main

def _ks(text: str) -> list:
    from mlx_specdec.adaptive import SCHEDULES

    ks = [k.strip() if k.strip() in SCHEDULES else int(k) for k in text.split(",") if k.strip()]
    if not ks or any(isinstance(k, int) and k < 1 for k in ks):
        raise ValueError(f"--ks must list integers >= 1 or a schedule ({', '.join(SCHEDULES)}), got {text!r}")
    return ks


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.real", description=__doc__.splitlines()[0])
    p.add_argument("--target", default="smollm2-135m-instruct", help="a real target (models/real/NAME) or a folder")
    p.add_argument("--sets", default="copy,free", help="prompt sets, comma-separated from copy,free,heldout (default "
                                                     "copy,free; heldout: the instruction set's held-out requests)")
    p.add_argument("--prompts", type=int, default=6, help="prompts per set (default 6, every one)")
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument("--ks", default="2,4,8,auto")
    p.add_argument("--warmup-tokens", type=int, default=16)
    p.add_argument("--no-mlx-lm", action="store_true", help="skip mlx-lm's generate_step row")
    p.add_argument("--eagle3", default=None, help="an EAGLE-3 drafter folder: its rows at each k beside lookup's, and "
                                                  "its acceptance per draft position and step cost")
    p.add_argument("--dflash", default=None, help="a block drafter folder (ours or z-lab's layout): its rows at each "
                                                  "k beside the others, its acceptance per slot and pass cost")
    p.add_argument("--mtp-head", dest="mtp", default=None, help="an MTP head folder for the target (the baseline "
                   "the feature drafters are measured against): its rows at each k, acceptance per depth and step cost")
    p.add_argument("--temp", type=float, default=0.0, help="also run plain ours and the feature drafters sampled at "
                                                           "this temperature (seeded per prompt), against plain sampled")
    p.add_argument("--no-lookup", action="store_true", help="skip prompt lookup's rows")
    p.add_argument("--lookup-before", action="store_true",
                   help="also prompt lookup without its resynchronisation after an edit (resync_ngram=0), at each k")
    p.add_argument("--llama-cpp-python", default="auto",
                   help="interpreter with llama_cpp for the peer rows; 'auto' (default): this one when it imports "
                        "llama_cpp; 'none': skip them")
    p.add_argument("--gguf", default=None, help="the GGUF file for llama.cpp (default: the installed real model's)")
    p.add_argument("--out", default=".", help="output folder (default: the working directory)")
    args = p.parse_args(argv)

    from mlx_specdec.errors import SpecDecError
    from mlx_specdec.loading import load

    from .run import Progress, reduce_rows, save_results

    try:
        ks = _ks(args.ks)
        sets = [s.strip() for s in args.sets.split(",") if s.strip()]
        if not sets or any(s not in SETS for s in sets):
            raise ValueError(f"--sets must list some of {', '.join(SETS)}, got {args.sets!r}")
        if args.prompts < 1 or args.repeats < 1 or args.max_tokens < 2:
            raise ValueError("--prompts and --repeats must be >= 1, --max-tokens >= 2")
        if not 0 <= args.temp < 100:
            raise ValueError(f"--temp must be in [0, 100), got {args.temp}")
        target, tok = load(args.target)
        name = Path(args.target).name
        python = llama_python(args.llama_cpp_python)
        gguf = args.gguf
        if python and gguf is None:
            from mlx_specdec.from_gguf.packages import locate

            gguf = str(locate(name)[0])
    except (SpecDecError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import os

    eos = {int(t) for t in tok.eos_token_ids}
    loaded = {}
    for kind, folder in (("eagle3", args.eagle3), ("dflash", args.dflash), ("mtp", args.mtp)):
        if not folder:
            continue
        try:
            if kind == "eagle3":
                from mlx_specdec.models.eagle3_store import load_eagle3 as load_drafter
            elif kind == "dflash":
                from mlx_specdec.models.dflash_store import load_dflash as load_drafter
            else:
                from mlx_specdec.models.head_store import load_head

                load_drafter = lambda folder, target: load_head(folder, target, tok)  # noqa: E731
            loaded[kind] = load_drafter(folder, target)
        except SpecDecError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    systems = build(target, eos, ks, with_mlx_lm=not args.no_mlx_lm, eagle3=loaded.get("eagle3"),
                    dflash=loaded.get("dflash"), temperature=args.temp, with_lookup=not args.no_lookup,
                    mtp=loaded.get("mtp"), lookup_before=args.lookup_before)
    progress = Progress(len(systems) + args.repeats * args.prompts * len(sets))
    load_start = list(os.getloadavg()) if hasattr(os, "getloadavg") else None
    body, notes, style = {"sets": {}}, [], None
    first = None
    for set_name in sets:
        style, prompts = prompt_ids(tok, set_name, args.prompts)
        ids = [q["ids"] for q in prompts]
        if first is None:  # warm-up, untimed
            first = ids[0]
            for s in systems:
                progress.update(f"warm-up {s.name}")
                s.run(first, min(args.warmup_tokens, args.max_tokens), 0)
        runs = timed_passes(systems, ids, args.repeats, args.max_tokens, progress, set_name)
        rows = reduce_rows(systems, runs, {"v_k": {}}, {})
        for r in rows:
            if r["mode"] == "sampled":
                r["temperature"] = args.temp
        oracle = [r.ids for r in runs["plain ours greedy"][0]]
        entry = {"rows": rows, "prompts": [
            {"id": q["id"], "text": q["text"], "prompt_tokens": len(q["ids"]), "generated": len(o),
             "output": tok.decode(o), "ids": q["ids"]} for q, o in zip(prompts, oracle)]}
        if loaded:
            deepest = max((k for k in ks if isinstance(k, int)), default=6)
            entry["profiles"] = [drafter_profile(target, kind, model, ids, args.max_tokens, eos, deepest)
                                 for kind, model in loaded.items()]
        if python:
            progress.say(f"{set_name}: llama.cpp peer ({python})")
            try:
                entry["llama_cpp"] = reduce_peer(run_peer(python, gguf, ids, args.max_tokens, sorted(eos),
                                                          args.repeats), oracle)
            except (RuntimeError, OSError, ValueError) as e:
                notes.append(f"{set_name}: no llama.cpp rows ({e})")
        body["sets"][set_name] = entry
    progress.close()
    if not python:
        notes.append("no llama.cpp rows: no interpreter with llama_cpp (--llama-cpp-python)")
    body["notes"] = notes
    header = {"target": name, "style": style, "eos_ids": sorted(eos), "load_average": load_start,
              "settings": {"prompts": max(len(e["prompts"]) for e in body["sets"].values()),
                           "max_tokens": args.max_tokens, "repeats": args.repeats,
                           "ks": ks, "sets": sets, "warmup_tokens": args.warmup_tokens, "temperature": args.temp}}
    for kind in loaded:
        header[kind] = getattr(args, kind)
    try:
        import mlx_lm

        header["mlx_lm"] = mlx_lm.__version__
    except (ImportError, AttributeError):
        pass
    # A drafter run is a file of its own (the README's eagle3 or drafters block), beside the real-targets one.
    label = "drafters" if args.dflash or args.mtp else "eagle3" if args.eagle3 else "real"
    print(save_results(args.out, f"{label}-{name}", header, body, "bench.real", argv, render))
    bad = [f"{s}: {r['name']}" for s, e in body["sets"].items() for r in e["rows"] if r["identical_to_plain_greedy"] is False]
    if bad:
        print(f"error: greedy output differs from plain greedy for {', '.join(bad)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
