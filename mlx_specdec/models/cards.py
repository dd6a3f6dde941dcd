"""Model cards: the README.md of a model-store folder and of an MTP head folder.

Every figure on a card is rendered from what the trainer or the benchmark
wrote (the training summary, the head's bench.json), never typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

PLOT = "curves.png"
BENCH = "bench.json"


def fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 100 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def _table(title: str, rows) -> list[str]:
    return [f"## {title}", "", "| | |", "|---|---|", *(f"| {k.replace('_', ' ')} | {fmt(v)} |" for k, v in rows), ""]


def render_card(name: str, config: dict, card: dict, architecture_lines: list[str]) -> str:
    """The model card: what the model is, how it was trained, what it writes."""
    card = dict(card)
    lines = [
        f"# {name}",
        "",
        card.get(
            "description",
            "A StoryLM: a small llama-style decoder (pre-norm RMSNorm, RoPE, SwiGLU, "
            "tied embeddings) trained on children's stories, part of the mlx-specdec ladder.",
        ),
        "",
        "## Architecture",
        "",
        f"- parameters: {config['parameters']:,} (tied embedding counted once)",
        f"- preset: {config.get('preset')}",
        *architecture_lines,
        f"- weights stored as {config['dtype']}; tokenizer fingerprint `{config['tokenizer_fingerprint']}`",
        "",
    ]
    samples = card.pop("samples", None)
    command = card.pop("command", None)
    invoked = card.pop("invoked_as", None)
    rows = [(k, v) for k, v in card.items() if k not in {"description", "preset"}]
    if rows:
        lines += _table("Training", rows)
    if invoked:
        lines += ["Trained with:", "", "```", invoked, "```", ""]
    if command and command != invoked:
        lines += ["The same run for this model alone:", "", "```", command, "```", ""]
    if samples:
        lines += ["## Greedy samples", ""]
        for prompt, text in samples:
            lines += [f"**{prompt}**", "", "> " + text.replace("\n", " ").strip(), ""]
    return "\n".join(lines)


WHY_THE_HEAD_TRAILS = (
    "Why the head trails the base: both predict x_{t+2}, but the base reads it from h_{t+1}, which every trunk "
    "layer computed by attending over the whole context with x_{t+1} in place, while the head sees h_t (a summary "
    "shaped to predict x_{t+1}) and x_{t+1}'s embedding through one MLP block, with no attention back into the "
    "context; it is also smaller and trained briefly. Greedy acceptance (`agree d1`, accept@1 below) is higher "
    "than `acc d1` because a draft only has to match the base's choice, not the data: where the base is wrong, "
    "the head is often wrong the same way."
)


def render_head_card(name: str, config: dict, card: dict, folder: Path | None = None) -> str:
    """The card of an MTP head folder; its measured section comes from the folder's bench.json."""
    arch = config["architecture"]
    style = "one module re-fed its own features (EAGLE-style)" if arch["n_modules"] == 1 else \
        f"{arch['n_modules']} modules, one per depth (DeepSeek-style)"
    lines = [
        f"# {name}",
        "",
        (f"A multi-token-prediction head for `{config['base']}`: from the frozen trunk's final hidden state h_t "
         "and the embedding of x_{t+1} it predicts x_{t+2}, reusing the base's embedding and output projection "
         "(not stored here). It drafts for its own base with no extra trunk pass (`MTPDrafter`)."),
        "",
        "## Architecture",
        "",
        (f"- RMSNorm(h) ++ RMSNorm(emb) -> linear {2 * arch['dim']}->{arch['dim']} -> {arch['n_blocks']} residual "
         f"SwiGLU block(s) (width {arch['hidden_dim']}) -> RMSNorm -> the base's output projection"),
        f"- {style}; trained depth {arch['depth']}",
        f"- {config['parameters']:,} parameters, stored as {config['dtype']}",
        f"- base tokenizer `{config['base_tokenizer_fingerprint']}`, base weights `{config['base_weights_fingerprint']}`"
        + (f" (model.safetensors sha256 `{config['base_weights_sha256'][:16]}…`)" if config.get("base_weights_sha256") else ""),
        "",
    ]
    card = dict(card)
    invoked = card.pop("invoked_as", None)
    final = card.pop("final", None)
    if card:
        lines += _table("Training", card.items())
    if final:
        lines += _table("Final validation (the held-out tokens above)", final.items())
        lines += [("`acc d1` is the head's two-ahead top-1 accuracy (x_{t+2} from h_t and x_{t+1}); "
                       "`acc d2`/`acc d3` re-feed its own features with x_{t+2}/x_{t+3} and score x_{t+3}/x_{t+4}; "
                       "`base acc` is the base's one-ahead top-1 accuracy on the same targets as `acc d1` (x_{t+2} "
                       "from h_{t+1}); `agree d1` is how often the head's top-1 equals the base's there."), "",
                  WHY_THE_HEAD_TRAILS, ""]
    if invoked:
        lines += ["Trained with:", "", "```", invoked, "```", ""]
    if folder is not None and (folder / PLOT).is_file():
        lines += [f"![training curves]({PLOT})", ""]
    bench = None
    if folder is not None and (folder / BENCH).is_file():
        bench = json.loads((folder / BENCH).read_text())
    if bench:
        lines += render_bench(bench, name, config['base'])
    return "\n".join(lines)


def bench_depths(bench: dict) -> list[int]:
    """The draft depths a head's bench.json measured ("MTP depth d" rows)."""
    return [int(r["mode"].rsplit(" ", 1)[1]) for r in bench["rows"] if r["mode"].startswith("MTP depth ")]


def bench_command(bench: dict, head: str, base: str) -> str:
    """The command that measures `bench`'s settings again (`python -m bench.heads`, from a source checkout)."""
    depths = ",".join(str(d) for d in bench_depths(bench))
    return (f"python -m bench.heads --base models/{base} --head models/{head} --prompts {bench['prompts']} "
            f"--prompt-tokens {bench['prompt_tokens']} --max-tokens {bench['max_tokens']} "
            f"--repeats {bench['repeats']} --depths {depths} --save")


def bench_table(bench: dict) -> list[str]:
    """A head's self-speculation table, one row per mode of its bench.json."""
    lines = ["| mode | tokens/target pass | acceptance | accept@1 | accept@2 | accept@3 | tokens/s | speedup | equal to greedy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for row in bench["rows"]:
        acc = {a["depth"]: a["rate"] for a in row.get("by_depth", [])}
        cells = [f"{acc[d]:.1%}" if d in acc else "-" for d in (1, 2, 3)]
        overall = f"{row['acceptance_rate']:.1%}" if row.get("acceptance_rate") is not None else "-"
        lines.append(
            f"| {row['mode']} | {row['tokens_per_pass']:.2f} | {overall} | {' | '.join(cells)} | "
            f"{row['tokens_per_s']:.1f} | {row['speedup']:.2f}x | {'yes' if row['identical'] else 'NO'} |"
        )
    return lines


def bench_settings(bench: dict) -> str:
    return (f"{bench['prompts']} held-out prompts ({bench['prompt_tokens']} tokens of bundled valid stories), "
            f"{bench['max_tokens']} new tokens each, greedy; tokens/s are medians of {bench['repeats']} "
            f"synchronised repeats, summed over prompts")


def render_bench(bench: dict, head: str, base: str) -> list[str]:
    """The measured section of a head's card, from its bench.json."""
    return ["## Self-speculation (measured)", "",
            f"{bench_settings(bench)}. Machine: {bench['machine']}.", "",
            *bench_table(bench),
            "", "accept@i: fraction of rounds proposing a draft at position i in which it was accepted.", "",
            f"Rendered from `{BENCH}`. Reproduce:", "", "```", bench_command(bench, head, base), "```", ""]
