"""k=auto replayed: the adaptive rule against every fixed k, on recorded agreement and measured costs.

    python -m bench.auto_replay --target storylm-5m --drafters storylm-1m-distilled,prompt-lookup --prompt-set stories,copy
    python -m bench.auto_replay --target storylm-5m-hybrid --drafters storylm-1m-distilled-hybrid --prompts 8
    python -m bench.auto_replay --drafters prompt-lookup --prompt-set generated --prompts 40 --costs-from FILE.json

A fresh-process bench (`bench.fresh`) answers the issue's question but takes minutes per pair, and one
generation of 96 tokens on a StoryLM pair lasts half a second, so its ratios move with the machine's noise.
Greedy decoding makes the rule's environment replayable: the target's greedy text is the same whatever k is
chosen, and so is what a drafter proposes from a given prefix. For each position t of the text this records
`runs[t]`, how many of the drafter's k_max drafts from the prefix agree with the target's tokens from t on
(-1: it proposed nothing, as prompt lookup without a match: the round is a plain step). A round of k drafts
at t then accepts min(runs[t], k) and the next round starts after them and the target's own token, exactly as
the loop would (`tests/test_bench_auto_replay.py` checks the counts against the loop's own).

What rounds cost is measured once per pair on this machine, in the loop itself: a plain step (pipelined
`plain_stream`), a round of exactly k drafts at each k of the ladder (interpolated between them; files
from before that hold a line a + b k through k = 1, 4 and 16, and price every round on it), the target's prefill
of the prompt (what a model drafter's deferred start is priced at, `price_entry`), a model drafter's catch-up
over n tokens as a line, and a new block length's trace, taken as one plain step (measured 5-7 ms against
4.4 for the 5M, 40-55 ms against 61 for SmolLM2). Each text is then replayed under `AdaptiveK` as a fresh
process starts it (cold) and as one with a calibration entry does (calibrated: the snapshot of a first
generation on the set's next prompt, as bench.fresh writes it), and under every fixed k of the ladder.
Milliseconds of arithmetic per schedule, the same draws for every schedule: a change to the rule is
compared on the texts it failed on. The replay leaves out what the costs do not hold (a busy machine, cache
effects of one schedule on the next) and is no substitute for bench.fresh's processes. `--costs-from` prices
new texts with the costs an earlier file measured (a quiet machine's, or another cost regime's). Writes
``<out>/<date>-<machine>-auto-replay-<target>.{json,md}``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)

import mlx.core as mx

from mlx_specdec import greedy_generate
from mlx_specdec.adaptive import AdaptiveK
from mlx_specdec.schedules import FixedK
from mlx_specdec.api import eos_ids
from mlx_specdec.data.prompts import load_prompts, prompt_set_file
from mlx_specdec.drafters import PromptLookupDrafter
from mlx_specdec.errors import SpecDecError
from mlx_specdec.generate import plain_stream, speculative_stream
from mlx_specdec.loading import load
from mlx_specdec.sampling import SamplingPolicy
from mlx_specdec.schedules import start_calibrated

from .report import markdown_table, where
from .run import save_results
from .systems import synchronised

ROOT = Path(__file__).resolve().parents[1]
K_MAX = 16
FIXED = (1, 2, 4, 8, 16)  # AdaptiveK's ladder
SETTLE = 4  # a generation's first intervals (prefill, a drafter's start, first traces) are no round's cost
BUFFER_TOKENS = 32  # a compiled step's buffers grow every 32 tokens, and each size traces once per block length


def agreement(target, drafter, prompt: list[int], max_tokens: int, eos=None, k_max: int = K_MAX):
    """(the target's greedy text, runs, lengths): at each position t, how many drafts the drafter proposes
    from the prefix prompt + text[:t] when asked for k_max (lengths[t]; prompt lookup may find fewer) and how
    many of them agree with text[t:] (runs[t]; -1 where it proposes nothing). `drafter` is a model (its own
    greedy continuation is what a ModelDrafter drafts) or a prompt-lookup factory."""
    text = greedy_generate(target, prompt, max_tokens, eos_id=eos)
    runs, lengths = [], []
    for t in range(len(text)):
        prefix = prompt + text[:t]
        if hasattr(drafter, "parameters"):
            drafts = greedy_generate(drafter, prefix, k_max)
        else:
            lookup = drafter()
            lookup.prefill(prefix)
            ids, _ = lookup.propose(k_max, SamplingPolicy(), None)
            drafts = [int(v) for v in ids.tolist()]
        n = 0
        while n < len(drafts) and t + n < len(text) and drafts[n] == text[t + n]:
            n += 1
        runs.append(n if drafts else -1)
        lengths.append(len(drafts))
    return text, runs, lengths


@dataclass
class Costs:
    """Seconds, measured once per pair (see the module's docstring)."""

    plain: float  # a pipelined plain step
    round_a: float  # a verification round of k drafts: round_a + round_b * k
    round_b: float
    trace: float  # the first round of a block length (or of a grown buffer): this much more
    entry: float  # a model drafter's deferred start (0 for a drafter without a model)
    catch_a: float  # a model drafter's catch-up over n tokens: catch_a + catch_b * n (0 without a model)
    catch_b: float
    ratio: float | None  # what the loop tells the schedule before any round (step_cost_ratio)
    # A round's seconds measured at each k of the ladder ({"1": s, "2": s, ...}), interpolated between them;
    # None in files from before it was measured: the line round_a + round_b * k then prices every round.
    rounds: dict | None = None

    def round(self, k: int) -> float:
        if k == 0:
            return self.plain
        if not self.rounds:
            return self.round_a + self.round_b * k
        points = sorted((int(n), s) for n, s in self.rounds.items())
        if k <= points[0][0]:
            return points[0][1]
        for (k0, s0), (k1, s1) in zip(points, points[1:]):
            if k <= k1:
                return s0 + (s1 - s0) * (k - k0) / (k1 - k0)
        (k0, s0), (k1, s1) = points[-2:]
        return s1 + (s1 - s0) * (k - k1) / (k1 - k0)


def measure_costs(target, drafter, prompt: list[int], long: int = 72, repeats: int = 3) -> Costs:
    """A pair's costs on this machine, in the loop itself (end-of-sequence ignored): a plain step and a round
    at every k of the ladder are the median interval between the tokens (rounds) a stream yields, over
    `repeats` generations of `long` tokens less their first SETTLE (what a generation pays once: prefills,
    a drafter's start, the first traces), after one more as a warm-up. Every round drafts exactly its k
    (prompt lookup's rounds as `exactly_k` makes them); a round between two ks of the ladder is priced by
    interpolation (`Costs.round`). Both matter on a real target, whose verification grows concavely with k
    (SmolLM2: `rounds` in bench/results), so that a line through k = 1 and 16 priced the ks between too low;
    and prompt lookup timed as it drafts (rounds that found nothing are plain steps, others draft fewer than
    k) made SmolLM2's line 52.6 + 1.56 k ms where a round of k = 4 costs 75-98 (a plain step 46-53). The
    line a + b k through k = 1 and 16 is kept for what reads it (the file's older readers)."""
    def median(fn):
        fn()
        return statistics.median(synchronised(fn)[1] for _ in range(repeats))

    def interval(make_stream):
        gaps = []
        for run in range(repeats + 1):  # the first a warm-up
            last, seen = None, []
            for _ in make_stream():
                now = time.perf_counter()
                if last is not None:
                    seen.append(now - last)
                last = now
            gaps += seen[SETTLE:] if run else []
        return statistics.median(gaps)

    plain = interval(lambda: plain_stream(target, prompt, long))
    per_round = {k: interval(lambda k=k: speculative_stream(target, exactly_k(drafter), prompt, long, k=k))
                 for k in FIXED}
    b = max(0.0, (per_round[16] - per_round[1]) / 15)
    a = per_round[1] - b
    model = hasattr(drafter, "parameters")
    entry = median(lambda: mx.eval(target(mx.array([prompt]))[0])) if model else 0.0
    catch_a = catch_b = 0.0
    if model:
        from mlx_lm.models.cache import make_prompt_cache

        cache = make_prompt_cache(drafter)
        mx.eval(drafter(mx.array([prompt]), cache=cache))
        feed = {}
        for n in (1, 8):
            def step(n=n):
                mx.eval(drafter(mx.array([prompt[:n]]), cache=cache))
                for c in cache:
                    c.trim(n)
            feed[n] = median(step)
        catch_b = max(0.0, (feed[8] - feed[1]) / 7)
        catch_a = feed[1] - catch_b
    return Costs(plain, a, b, trace=plain, entry=entry, catch_a=catch_a, catch_b=catch_b,
                 ratio=None if model else 0.0, rounds={str(k): s for k, s in per_round.items()})


class _KLookups(PromptLookupDrafter):
    """Prompt lookup that looks up as ever and drafts k times token 0 whatever it finds (timing only): every
    round verifies k drafts, and nearly every round emits one token."""

    def lookup(self, k: int) -> list[int]:
        super().lookup(k)
        return [0] * k


def exactly_k(drafter):
    """A drafter of the loop's kind for `drafter` that drafts exactly k every round: a model as it is; prompt
    lookup as `_KLookups` (its n-gram settings kept). What a round of k costs, not what it finds."""
    made = make(drafter)
    if isinstance(made, PromptLookupDrafter):
        return _KLookups(made.max_ngram, made.min_ngram, made.vocab_size, made.resync_ngram)
    return made


def make(drafter):
    """A fresh drafter of the loop's kind for `drafter` (a model is its own: the loop wraps it)."""
    return drafter if hasattr(drafter, "parameters") else drafter()


class Shadow:
    """plain_steps.Shadow on a recorded text: the first draft previewed at position t agrees with the text
    where runs[t] > 0."""

    def __init__(self, text: dict, schedule):
        self.runs, self.schedule = text["runs"], schedule

    def token(self, t: int) -> None:
        if self.runs[t] >= 0:
            self.schedule.shadow(1, min(1, self.runs[t]))


def replay(schedule, text: dict, costs: Costs, max_tokens: int | None = None,
           look_ahead: bool = False, scored: bool = False) -> tuple[float, int, int, int]:
    """Run `schedule` over one recorded text as the loop runs its rounds: (seconds, tokens, target passes,
    accepted drafts).

    A round's k is capped within the tokens left; a round of k = 0 starts a run of pipelined plain steps, each
    asking the schedule for the next round's k before its token is read (a step is queued for k = 0, and for a
    drafter that knows when it has nothing to draft, `look_ahead`: prompt lookup, which also starts a run
    where it proposes nothing; when it would propose again, the step already queued runs first). The first
    round of each (k, buffer size) pays a trace and says so; a model drafter's first drafting round pays its
    deferred start, each later one its catch-up over the plain steps' tokens, charged as the loop charges them.
    `scored`: a drafter free to run (prompt lookup) is scored during plain steps, as the loop scores it
    (`Shadow`)."""
    runs, lengths, n = text["runs"], text.get("lengths") or [K_MAX] * len(text["runs"]), len(text["runs"])
    cap = max_tokens or n
    seen, seconds, t, passes, accepted_total, unseen, started, carried = set(), 0.0, 0, 0, 0, 0, False, None

    def cost(k: int) -> float:
        traced = (k, t // BUFFER_TOKENS) not in seen
        seen.add((k, t // BUFFER_TOKENS))
        return costs.round(k) + (costs.trace if traced else 0.0), traced

    if costs.entry and hasattr(schedule, "price_entry"):
        schedule.price_entry(costs.entry, text["prompt_tokens"])
    shadow = Shadow(text, schedule) if scored and getattr(schedule, "learns", False) else None
    while t < n:
        k = min(carried if carried is not None else schedule.choose(), cap - t - 1)
        carried = None
        if k == 0 or (look_ahead and runs[t] < 0):
            leave_with = None
            while t < n:
                k_next, queued = None, False
                if t + 1 < cap:
                    if leave_with is not None:
                        k_next = leave_with
                    else:
                        k_next = min(schedule.choose(), cap - t - 2)
                        queued = k_next == 0 or look_ahead
                if shadow is not None:
                    shadow.token(t)
                spent, traced = cost(0)
                schedule.update(0, 0, spent, traced=traced)
                seconds, t, passes, unseen = seconds + spent, t + 1, passes + 1, unseen + 1
                if not queued:
                    carried = k_next
                    break
                if k_next > 0 and t < n and runs[t] >= 0:
                    leave_with = k_next  # drafts again after the step in flight
            continue
        drafted = min(k, lengths[t])
        accepted = min(runs[t], drafted)
        if costs.entry and not started:
            started = True
            seconds += costs.entry
            if hasattr(schedule, "charge"):
                schedule.charge(costs.entry, text["prompt_tokens"] + t, budget=False)
        elif unseen and costs.catch_b:
            catch = costs.catch_a + costs.catch_b * unseen
            seconds += catch
            if hasattr(schedule, "charge"):
                schedule.charge(catch, unseen)
        unseen = 0
        spent, traced = cost(drafted)
        schedule.update(drafted, accepted, spent, traced=traced)
        seconds, t, passes, accepted_total = seconds + spent, t + accepted + 1, passes + 1, accepted_total + accepted
    return seconds, min(t, n), passes, accepted_total


def plain_seconds(runs: list[int], costs: Costs) -> float:
    """Plain decoding of the same text: a step a token, a trace at every buffer size."""
    return len(runs) * costs.plain + (len(runs) - 1) // BUFFER_TOKENS * costs.trace + costs.trace


def cold_schedule(costs: Costs) -> AdaptiveK:
    schedule = AdaptiveK()
    schedule.step_cost_ratio(costs.ratio)
    return schedule


def calibrated_schedule(snapshot: dict) -> AdaptiveK:
    """As schedules.for_pair starts a process that finds the pair's entry in the calibration file."""
    return start_calibrated(AdaptiveK(), AdaptiveK.restore(snapshot))


def replay_set(texts: list[dict], first: dict, costs: Costs, max_tokens: int, look_ahead: bool,
               scored: bool = False) -> list[dict]:
    """Every text under auto (cold, calibrated from `first`'s generation) and every fixed k."""
    opening = cold_schedule(costs)
    replay(opening, first, costs, max_tokens, look_ahead, scored)
    snapshot = opening.snapshot()
    rows = []
    for text in texts:
        runs = text["runs"]
        plain = plain_seconds(runs, costs)
        cold = cold_schedule(costs)
        seconds = {"auto, cold": replay(cold, text, costs, max_tokens, look_ahead, scored)[0],
                   "auto, calibrated": replay(calibrated_schedule(snapshot), text, costs, max_tokens, look_ahead,
                                              scored)[0]}
        for k in FIXED:
            seconds[f"k={k}"] = replay(FixedK(k), text, costs, max_tokens, look_ahead)[0]
        best = min(seconds[f"k={k}"] for k in FIXED)
        rows.append({"id": text["id"], "tokens": len(runs),
                     "x_plain": {name: plain / s for name, s in seconds.items()},
                     "of_best": {name: best / seconds[name] for name in ("auto, cold", "auto, calibrated")},
                     "cold_choices": "".join(str(min(k, 9)) for k in cold.history[:80])})
    return rows


GENERATED_FIRST = 30_000  # the generator's validation stories from here on: apart from every prompt set's


def prompt_set(tok, set_name: str, n: int) -> list[dict]:
    """[{id, ids}]: a StoryLM prompt set (stories, copy) as its text, or, for a real target's tokenizer (not
    StoryLM's), bench.real's sets (heldout, copy, free) as bench.real frames them: through the chat template
    where there is one, as plain text for a base model (Gemma 3 270M). `generated`: as many story openings as
    asked for (the stories set has ten), from the project's generator's validation split (seed 0, every 97th
    story from GENERATED_FIRST), the way the stories set was drawn."""
    from mlx_specdec.models.tokenizer import StoryTokenizer

    if not isinstance(tok, StoryTokenizer):
        from .real import prompt_ids

        return prompt_ids(tok, set_name, n)[1]
    if set_name == "generated":
        import random

        from mlx_specdec.data.generator import generate_story
        from mlx_specdec.data.prompts import STRIDE, opening

        indices = [GENERATED_FIRST + STRIDE * j for j in range(n)]
        return [{"id": f"valid-{i}", "ids": tok.encode(opening(generate_story(random.Random(f"0:valid:{i}"))))}
                for i in indices]
    _, prompts = load_prompts(prompt_set_file(set_name), n)
    return [{"id": str(p.get("id", i)), "ids": tok.encode(p["text"])} for i, p in enumerate(prompts)]


def _drafter(name: str, models: Path):
    if name == "prompt-lookup":
        return lambda: PromptLookupDrafter(min_ngram=1, max_ngram=3)
    path = Path(name) if Path(name).exists() else models / name
    model, _ = load(str(path))
    return model


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.auto_replay", description=__doc__.split("\n\n")[0])
    p.add_argument("--target", default="storylm-5m", help="a model in --models or a folder (models/real/NAME: a real target)")
    p.add_argument("--drafters", default="storylm-1m-distilled,prompt-lookup",
                   help="comma-separated: store models (models/NAME or a path) or prompt-lookup")
    p.add_argument("--prompt-set", default="stories,copy",
                   help="comma-separated prompt sets: stories, copy, generated (StoryLM; generated: --prompts story "
                        "openings from the generator's validation split); heldout, copy, free (a chat target)")
    p.add_argument("--prompts", type=int, default=6, help="prompts a set (one more calibrates)")
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--models", type=Path, default=ROOT / "models")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    p.add_argument("--unscored", action="store_true",
                   help="replay a free drafter (prompt lookup) as if plain steps did not score it (the rule before "
                        "plain_steps.Shadow): a before/after on the same texts and costs")
    p.add_argument("--costs-from", type=Path,
                   help="price rounds with the costs an earlier results file measured for the same drafter (and set, "
                        "where it has it) instead of measuring them now: new texts under a quiet machine's costs "
                        "(with --from: the recorded texts under those costs)")
    p.add_argument("--from", dest="source", type=Path,
                   help="replay the texts and costs a results file recorded, under the rule as it is now (no models "
                        "run: a change to the rule against the same inputs)")
    args = p.parse_args(argv)

    if args.source is not None:
        return rereplay(args, argv)
    try:
        target_path = Path(args.target) if Path(args.target).exists() else args.models / args.target
        target, tok = load(str(target_path))
        eos = eos_ids(tok)
        pairs = []
        for name in filter(None, args.drafters.split(",")):
            drafter = _drafter(name, args.models)
            for set_name in filter(None, args.prompt_set.split(",")):
                prompts = prompt_set(tok, set_name, args.prompts + 1)
                recorded = []
                for p_ in prompts:
                    ids = p_["ids"]
                    _, runs, lengths = agreement(target, drafter, ids, args.max_tokens, eos)
                    recorded.append({"id": p_["id"], "prompt_tokens": len(ids), "runs": runs,
                                     "lengths": lengths})
                costs = (recorded_costs(args.costs_from, name, set_name) if args.costs_from
                         else measure_costs(target, drafter, prompts[0]["ids"]))
                look_ahead = bool(getattr(make(drafter), "knows_when_idle", False))
                free = bool(getattr(make(drafter), "drafts_for_free", False))
                scored = free and not args.unscored
                rows = replay_set(recorded[:-1], recorded[-1], costs, args.max_tokens, look_ahead, scored)
                pairs.append({"drafter": name, "set": set_name, "costs": asdict(costs), "look_ahead": look_ahead,
                              "drafts_for_free": free, "scored": scored,
                              "texts": rows, "recorded": recorded})
                print(summary_line(pairs[-1]), flush=True)
    except SpecDecError as e:
        print(f"bench.auto_replay: {e}", file=sys.stderr)
        return 2
    header = {"target": Path(args.target).name, "max_tokens": args.max_tokens, "prompts": args.prompts,
              **({"costs_from": str(args.costs_from)} if args.costs_from else {})}
    print(save_results(args.out, f"auto-replay-{header['target']}", header, {"pairs": pairs}, "bench.auto_replay", argv, render))
    return 0


def recorded_costs(path: Path, drafter: str, set_name: str) -> Costs:
    """The costs `path` (a bench.auto_replay results file) measured for `drafter` on `set_name`, or on its
    first set where it did not run that one."""
    try:
        pairs = [p for p in json.loads(path.read_text())["pairs"] if p["drafter"] == drafter]
        pair = next((p for p in pairs if p["set"] == set_name), pairs[0] if pairs else None)
        if pair is None:
            raise SpecDecError(f"{path} holds no costs for {drafter}")
        return Costs(**pair["costs"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise SpecDecError(f"{path} is not a bench.auto_replay results file ({e})") from None


def rereplay(args, argv) -> int:
    """`--from FILE`: the recorded texts and measured costs of an earlier run, replayed under today's rule."""
    try:
        earlier = json.loads(args.source.read_text())
        pairs = earlier["pairs"]
        header = {**{k: earlier["header"][k] for k in ("target", "max_tokens", "prompts")},
                  **{k: earlier["header"][k] for k in ("costs_from",) if k in earlier["header"]},
                  "replayed_from": str(args.source)}
    except (OSError, ValueError, KeyError) as e:
        print(f"bench.auto_replay: {args.source} is not a bench.auto_replay results file ({e})", file=sys.stderr)
        return 2
    if args.costs_from:
        header["costs_from"] = str(args.costs_from)
    for pair in pairs:
        try:
            costs = recorded_costs(args.costs_from, pair["drafter"], pair["set"]) if args.costs_from else Costs(**pair["costs"])
        except SpecDecError as e:
            print(f"bench.auto_replay: {e}", file=sys.stderr)
            return 2
        pair["costs"] = asdict(costs)
        look_ahead = pair.get("look_ahead", pair["drafter"] == "prompt-lookup")  # (files before the field)
        free = pair.get("drafts_for_free", pair["drafter"] == "prompt-lookup")  # (files before the field)
        pair["scored"] = scored = free and not args.unscored
        pair["texts"] = replay_set(pair["recorded"][:-1], pair["recorded"][-1], costs, header["max_tokens"], look_ahead,
                                   scored)
        print(summary_line(pair), flush=True)
    print(save_results(args.out, f"auto-replay-{header['target']}", header, {"pairs": pairs}, "bench.auto_replay", argv, render))
    return 0


def summary(pair: dict) -> dict:
    """Medians over a set's texts (texts under 8 tokens left out: nothing to choose)."""
    rows = [r for r in pair["texts"] if r["tokens"] >= 8] or pair["texts"]
    names = list(rows[0]["x_plain"])
    return {"x_plain": {n: statistics.median(r["x_plain"][n] for r in rows) for n in names},
            "of_best": {n: statistics.median(r["of_best"][n] for r in rows) for n in ("auto, cold", "auto, calibrated")},
            "lowest_of_best": {n: min(r["of_best"][n] for r in rows) for n in ("auto, cold", "auto, calibrated")},
            "texts": len(rows)}


def summary_line(pair: dict) -> str:
    s = summary(pair)
    return (f"{pair['drafter']} on {pair['set']}: auto cold {s['x_plain']['auto, cold']:.2f}x "
            f"({s['of_best']['auto, cold']:.2f} of the best k), calibrated {s['x_plain']['auto, calibrated']:.2f}x "
            f"({s['of_best']['auto, calibrated']:.2f})")


def round_costs(costs: dict) -> str:
    """A round's measured cost, as the file holds it: at each k of the ladder, or as the line of older files."""
    if costs.get("rounds"):
        table = sorted((int(k), s) for k, s in costs["rounds"].items())
        return (f"a round at k = {' / '.join(str(k) for k, _ in table)}: "
                f"{' / '.join(f'{1e3 * s:.1f}' for _, s in table)}")
    return f"round {1e3 * costs['round_a']:.1f} + {1e3 * costs['round_b']:.2f} k"


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# k=auto replayed on {h['target']}'s greedy texts ({h['date']}, {where(h)}, git {h['commit']})", "",
             f"Each figure is a replay (`bench.auto_replay`'s docstring): the target's greedy text of at most "
             f"{h['max_tokens']} tokens and what the drafter proposes at each position, recorded once; round "
             f"costs measured once per pair in the loop on this machine; the schedule run over the text. Medians "
             f"over {h['prompts']} prompts a set (texts under 8 tokens left out); of best: over the best fixed k "
             f"on the same text, lowest in brackets. Command: `{h['command']}`"
             + (f" (the texts and costs recorded in `{h['replayed_from']}`)" if h.get("replayed_from") else "")
             + ".", ""]
    rows = []
    for pair in result["pairs"]:
        s = summary(pair)
        x = s["x_plain"]
        rows.append([pair["drafter"], pair["set"], s["texts"], f"{x['auto, cold']:.2f}x", f"{x['auto, calibrated']:.2f}x",
                     f"{s['of_best']['auto, cold']:.2f} [{s['lowest_of_best']['auto, cold']:.2f}]",
                     f"{s['of_best']['auto, calibrated']:.2f} [{s['lowest_of_best']['auto, calibrated']:.2f}]",
                     *(f"{x[f'k={k}']:.2f}x" for k in FIXED)])
    lines += markdown_table(["drafter", "set", "texts", "auto, cold", "auto, calibrated", "cold / best k",
                             "calibrated / best k", *(f"k={k}" for k in FIXED)], rows, right=10)
    measured = f"Costs measured (ms) by `{h['costs_from']}`'s run: " if h.get("costs_from") else "Costs measured (ms): "
    lines += ["", measured + "; ".join(
        f"{p['drafter']} ({p['set']}): plain {1e3 * p['costs']['plain']:.1f}, " + round_costs(p["costs"])
        for p in result["pairs"]), ""]
    free = [p for p in result["pairs"] if p.get("drafts_for_free", p["drafter"] == "prompt-lookup")]
    if free:
        lines += [("Prompt lookup is scored during plain steps (`plain_steps.Shadow`)." if all(p.get("scored") for p in free)
                   else "Prompt lookup is not scored during plain steps (`--unscored`: the rule before "
                        "`plain_steps.Shadow`)."), ""]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
