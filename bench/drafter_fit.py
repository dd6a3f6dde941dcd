"""`python -m bench.drafter_fit`: a trained feature drafter on answers it learned from against answers it never saw.

    python -m bench.drafter_fit --corpus runs/smollm2-chat --rows 48 --out bench/results

The shipped SmolLM2 drafters (EAGLE-3 and block) scored as their trainers validate them (teacher-forced: the
target's top-1 at each draft depth or block slot, the drafts before it accepted) on two sets of the same size
from one chat corpus: answers from its train split, which every shipped drafter trained on, drawn with a fixed
seed, and its validation split, which none did. A drafter whose acceptance on the first set is far above the
second has learned its answers more than its target (too few answers for its size): more training on the same
answers will not raise what it drafts on new ones; more answers will. Needs the corpus (`make
chat-corpus-smollm2`) and the target (`make real-models`). Writes ``<out>/<date>-<machine>-drafter-fit.{json,md}``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import mlx_specdec  # noqa: F401  (binds OpenBLAS before mlx.core on Linux)
import numpy as np

from .report import markdown_table, where
from .run import save_results

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "models" / "real" / "smollm2-135m-instruct"
DRAFTERS = {"EAGLE-3": ROOT / "models" / "smollm2-135m-eagle3", "block (DFlash)": ROOT / "models" / "smollm2-135m-dflash"}
SEQ_LEN = 256  # the shipped drafters' --seq-len
EAGLE_STEPS = 4  # the EAGLE-3 drafter's --ttt-steps


def row_sets(corpus: str, n: int, seed: int = 0) -> dict:
    """{"train": n rows drawn from the train split, "valid": the first n of the validation split}."""
    from mlx_specdec.training.chat_corpus import read_corpus
    from mlx_specdec.training.eagle3 import conversation_rows

    train, valid = read_corpus(corpus, "train"), read_corpus(corpus, "valid")
    if len(train) < n or len(valid) < n:
        raise SystemExit(f"bench.drafter_fit: {corpus} has {len(train)} train and {len(valid)} valid answers; "
                         f"--rows {n} needs {n} of each")
    pick = np.random.default_rng(seed).choice(len(train), n, replace=False)
    return {"train": conversation_rows([train[i] for i in sorted(pick)], SEQ_LEN),
            "valid": conversation_rows(valid[:n], SEQ_LEN)}


def score(target, name: str, folder: Path, rows: np.ndarray) -> dict:
    """The trainer's validation of one drafter on `rows`: acceptance per depth (slot), and its loss."""
    import mlx.core as mx

    from mlx_specdec.features import tap
    from mlx_specdec.training.eagle3 import target_pass

    if name == "EAGLE-3":
        from mlx_specdec.models.eagle3_store import load_eagle3
        from mlx_specdec.training.eagle3 import evaluate

        model = load_eagle3(folder, target)
        layers = tap(target, model.config.target_layers)
        return evaluate(model, target, layers, model.draft_to_target, rows, EAGLE_STEPS, 8)
    from mlx_specdec.models.dflash_store import load_dflash
    from mlx_specdec.training.dflash import evaluate

    model = load_dflash(folder, target)
    layers = tap(target, model.config.target_layers)
    vocab = model.draft_to_target
    return evaluate(model, rows, lambda part: target_pass(target, layers, mx.array(part[:, 0]), vocab), 8)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.drafter_fit", description=__doc__.split("\n\n")[0])
    p.add_argument("--corpus", default=str(ROOT / "runs" / "smollm2-chat"), help="a chat corpus folder (default: %(default)s)")
    p.add_argument("--rows", type=int, default=48, help="answers in each set (the validation split has 48)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = p.parse_args(argv)
    if args.rows < 1:
        p.error("--rows must be at least 1")
    missing = [str(f.relative_to(ROOT)) for f in (TARGET, *DRAFTERS.values()) if not f.is_dir()]
    if missing or not Path(args.corpus).is_dir():
        p.error(f"needs {', '.join(missing or [args.corpus])} (make real-models, make chat-corpus-smollm2)")
    from mlx_specdec.loading import load

    target, _ = load(str(TARGET))
    sets = row_sets(args.corpus, args.rows)
    drafters = []
    for name, folder in DRAFTERS.items():
        out = {"drafter": name, "folder": str(folder.relative_to(ROOT))}
        for split, rows in sets.items():
            result = score(target, name, folder, rows)
            out[split] = {k: float(v) for k, v in result.items()}
            accs = [result[f"acc_{i}"] for i in range(1, 5)]
            print(f"{name} on {split} answers: acceptance " + " ".join(f"{a:.1%}" for a in accs), flush=True)
        drafters.append(out)
    corpus = Path(args.corpus).resolve()
    shown = corpus.relative_to(ROOT) if corpus.is_relative_to(ROOT) else corpus
    header = {"corpus": str(shown), "rows": args.rows, "seq_len": SEQ_LEN}
    print(save_results(args.out, "drafter-fit", header, {"drafters": drafters}, "bench.drafter_fit", argv, render))
    return 0


def _what(h: dict) -> str:
    return (f"Teacher-forced greedy acceptance at each draft depth (block slot), as the trainers validate: "
            f"{h['rows']} answers from the train split of `{h['corpus']}` (drawn with a fixed seed; every shipped "
            f"drafter trained on them) against its {h['rows']} validation answers (none did)")


def _table(result: dict) -> list[str]:
    rows = []
    for d in result["drafters"]:
        for split, label in (("train", "trained on"), ("valid", "never seen")):
            r = d[split]
            rows.append([d["drafter"], label, *(f"{r[f'acc_{i}']:.1%}" for i in range(1, 5)),
                         f"{r['valid_loss']:.3f}"])
    return markdown_table(["drafter", "answers", "depth 1", "depth 2", "depth 3", "depth 4", "loss"], rows, right=5)


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# The shipped SmolLM2 drafters on answers they trained on and answers they never saw ({h['date']}, "
             f"{where(h)}, git {h['commit']})", "", f"{_what(h)}. Command: `{h['command']}`.", ""]
    return "\n".join(lines + _table(result)) + "\n"


def readme_block(result: dict, source: str) -> str:
    """The README's `drafter-fit` block: the table, under what it measures and where it comes from."""
    h = result["header"]
    lines = [f"{_what(h)}; {h['date']}, {where(h)}, git {h['commit']}. From [`{source}`]({source}) "
             f"(`{h['command']}`).", ""]
    return "\n".join(lines + _table(result))


if __name__ == "__main__":
    raise SystemExit(main())
