"""`python -m bench.drafter_fit`: a trained feature drafter on answers it learned from against answers it never saw.

    python -m bench.drafter_fit --corpus runs/smollm2-chat --rows 48 --out bench/results
    python -m bench.drafter_fit --target models/real/gemma-3-270m --drafters models/real/gemma-3-270m-eagle3 \
        --corpus runs/gemma-chat

Feature drafters (EAGLE-3 and block drafter folders; by default the shipped SmolLM2 ones) scored as their
trainers validate them (teacher-forced: the target's top-1 at each draft depth or block slot, the drafts before
it accepted) on two sets of the same size from the chat corpus they trained on: answers from its train split,
drawn with a fixed seed, and its validation split, which no trainer draws from. A drafter whose acceptance on
the first set is far above the second has learned its answers more than its target (too few answers for its
size): more training on the same answers will not raise what it drafts on new ones; more answers will. One
that agrees about as rarely on both has not learned what its answers could teach it yet: more steps (or a
larger drafter) first. Needs the corpus (`make chat-corpus-smollm2`) and the target (`make real-models`).
Writes ``<out>/<date>-<machine>-drafter-fit.{json,md}``.
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
DRAFTERS = (ROOT / "models" / "smollm2-135m-eagle3", ROOT / "models" / "smollm2-135m-dflash")
KINDS = {"eagle3": "EAGLE-3", "dflash": "block (DFlash)"}
SEQ_LEN = 256  # rows cut at this many tokens (the shipped drafters' --seq-len)
EAGLE_STEPS = 4  # the EAGLE-3 drafter's --ttt-steps


def row_sets(corpus: str, n: int, seed: int = 0) -> dict:
    """{"train": n rows drawn from the train split, "valid": the first n of the validation split}."""
    from mlx_specdec.training.chat_corpus import read_corpus
    from mlx_specdec.training.eagle3 import conversation_rows, seeded_draw

    train, valid = read_corpus(corpus, "train"), read_corpus(corpus, "valid")
    if len(train) < n or len(valid) < n:
        raise SystemExit(f"bench.drafter_fit: {corpus} has {len(train)} train and {len(valid)} valid answers; "
                         f"--rows {n} needs {n} of each")
    return {"train": conversation_rows([train[i] for i in seeded_draw(len(train), n, seed)], SEQ_LEN),
            "valid": conversation_rows(valid[:n], SEQ_LEN)}


def kind_of(folder: Path) -> str | None:
    """"eagle3" or "dflash" for a drafter folder either loader reads (ours or a published layout); else None."""
    from mlx_specdec.models.dflash_store import is_dflash_folder
    from mlx_specdec.models.eagle3_store import is_eagle3_folder

    return "eagle3" if is_eagle3_folder(folder) else "dflash" if is_dflash_folder(folder) else None


def score(target, kind: str, folder: Path, rows: np.ndarray) -> dict:
    """The trainer's validation of one drafter on `rows`: acceptance per depth (slot), and its loss."""
    import mlx.core as mx

    from mlx_specdec.features import tap
    from mlx_specdec.model_info import model_vocab_size
    from mlx_specdec.training.eagle3 import target_pass

    if kind == "eagle3":
        from mlx_specdec.models.eagle3_store import load_eagle3
        from mlx_specdec.training.eagle3 import evaluate

        model = load_eagle3(folder, target)
        layers = tap(target, model.config.target_layers)
        return evaluate(model, target, layers, model.draft_to_target, rows, EAGLE_STEPS, 8)
    from mlx_specdec.models.dflash_store import load_dflash
    from mlx_specdec.training.dflash import evaluate

    model = load_dflash(folder, target)
    layers = tap(target, model.config.target_layers)
    vocab = model.draft_to_target  # None: the target's own head (z-lab's layout), the whole vocabulary
    if vocab is None:
        vocab = mx.arange(model_vocab_size(target))
    return evaluate(model, rows, lambda part: target_pass(target, layers, mx.array(part[:, 0]), vocab), 8)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.drafter_fit", description=__doc__.split("\n\n")[0])
    p.add_argument("--target", type=Path, default=TARGET, help="the drafters' target folder (default: SmolLM2)")
    p.add_argument("--drafters", default=",".join(str(d) for d in DRAFTERS),
                   help="comma-separated EAGLE-3 or block drafter folders (default: the shipped SmolLM2 ones)")
    p.add_argument("--corpus", default=str(ROOT / "runs" / "smollm2-chat"), help="a chat corpus folder (default: %(default)s)")
    p.add_argument("--rows", type=int, default=48, help="answers in each set (the validation split has 48)")
    p.add_argument("--out", type=Path, default=ROOT / "bench" / "results")
    args = p.parse_args(argv)
    if args.rows < 1:
        p.error("--rows must be at least 1")
    folders = [Path(f.strip()) for f in args.drafters.split(",") if f.strip()]
    missing = [str(f) for f in (args.target, *folders, Path(args.corpus)) if not f.is_dir()]
    if missing:
        p.error(f"not found: {', '.join(missing)} (make real-models, make chat-corpus-smollm2)")
    kinds = [kind_of(f) for f in folders]
    if None in kinds:
        p.error(f"{folders[kinds.index(None)]} is neither an EAGLE-3 nor a block drafter folder")
    from mlx_specdec.loading import load

    target, _ = load(str(args.target))
    sets = row_sets(args.corpus, args.rows)
    drafters = []
    for kind, folder in zip(kinds, folders):
        name = KINDS[kind]
        out = {"drafter": name, "folder": _shown(folder)}
        for split, rows in sets.items():
            result = score(target, kind, folder, rows)
            out[split] = {k: float(v) for k, v in result.items()}
            accs = [result[f"acc_{i}"] for i in range(1, 5)]
            print(f"{name} on {split} answers: acceptance " + " ".join(f"{a:.1%}" for a in accs), flush=True)
        drafters.append(out)
    header = {"target": _shown(args.target), "corpus": _shown(Path(args.corpus)), "rows": args.rows, "seq_len": SEQ_LEN}
    print(save_results(args.out, "drafter-fit", header, {"drafters": drafters}, "bench.drafter_fit", argv, render))
    return 0


def _shown(path: Path) -> str:
    """A path as the results show it: relative to the repository where it lies inside it."""
    path = path.resolve()
    return str(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)


def _what(h: dict) -> str:
    return (f"Teacher-forced greedy acceptance at each draft depth (block slot), as the trainers validate: "
            f"{h['rows']} answers from the train split of `{h['corpus']}` (drawn with a fixed seed; the drafters "
            f"trained on that split) against its {h['rows']} validation answers (which no trainer draws from)")


def _table(result: dict) -> list[str]:
    rows = []
    for d in result["drafters"]:
        for split, label in (("train", "trained on"), ("valid", "never seen")):
            r = d[split]
            rows.append([d["drafter"], f"`{d['folder']}`", label, *(f"{r[f'acc_{i}']:.1%}" for i in range(1, 5)),
                         f"{r['valid_loss']:.3f}"])
    return markdown_table(["drafter", "folder", "answers", "depth 1", "depth 2", "depth 3", "depth 4", "loss"], rows,
                          right=5)


def render(result: dict) -> str:
    h = result["header"]
    lines = [f"# Feature drafters on answers they trained on and answers they never saw ({h['date']}, "
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
