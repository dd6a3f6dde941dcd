"""A chat target's self-distillation corpus: its own answers to the project's instruction set.

    mlx-specdec eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat

A feature drafter (EAGLE-3, a block drafter) is trained to predict what its
target says, so its corpus is the target's own answers: every instruction of
the train split (`data.instructions`) through the target's chat template,
answered greedily (what greedy speculative decoding has to match) by mlx-lm's
`batch_generate` in batches, cut at the end-of-turn token. With `--temp T` the
answers are sampled at temperature T instead (`--seed` picks the draw): a second
corpus of the same instructions, other answers, for a trainer given both
(`--corpus runs/smollm2-chat,runs/smollm2-chat-t07`) and for a drafter that has
to follow the target's sampled text. A few held-out
instructions are answered too, as the validation split (the bench's held-out
prompts are the rest of that split; the drafter never trains on them).

Each line of `train.jsonl` / `valid.jsonl` is {"id", "category", "prompt":
[ids], "answer": [ids]}: token ids, not text, so the trainer sees exactly the
target's tokens. Batches are appended and flushed as they finish; run the
command again with the same flags to finish an interrupted corpus (a batch is
a pure function of the settings and its index). A folder this command did not
write is never touched.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..errors import SpecDecError
from .distill import _finished_lines, open_corpus_folder, target_identity

META = "corpus.json"
FORMAT = "mlx-specdec chat corpus v1"
SPLITS = ("train", "valid")
PROG = "mlx-specdec eagle corpus"
KEYS = ("settings", "target", "instructions")  # what makes two corpora the same corpus


@dataclass
class ChatCorpusConfig:
    target: str
    out: str
    limit: int | None = None  # train instructions answered (None: all of the split)
    valid: int = 48  # held-out instructions answered for validation
    max_new: int = 256
    batch_size: int = 32
    temp: float = 0.0  # 0: greedy answers; else sampled at this temperature
    seed: int = 0  # the sampled answers' draw (each batch seeded from it and its index)
    overwrite: bool = False
    quiet: bool = False

    LOCAL = ("out", "overwrite", "quiet")

    def settings(self) -> dict:
        greedy = ("temp", "seed") if self.temp == 0 else ()  # (a greedy corpus's settings as before they existed)
        out = {k: v for k, v in asdict(self).items() if k not in self.LOCAL + greedy}
        out["limit"] = whole_split(out["limit"])
        return out

    def validate(self) -> None:
        for name in ("valid", "max_new", "batch_size"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if not self.temp >= 0:
            raise SpecDecError(f"--temp must be >= 0, got {self.temp}")
        if self.limit is not None and self.limit < 1:
            raise SpecDecError(f"--limit must be >= 1, got {self.limit}")


def whole_split(limit: int | None) -> int | None:
    """--limit as the instructions it takes: None where it takes the whole train split (a corpus written with
    --limit 1120 before the split's 1,111 became the default is the same corpus)."""
    from ..data import instructions

    return None if limit is not None and limit >= len(instructions.load("train")) else limit


BASE_FRAME = "Request: {text}\n\nResponse:\n"  # a base model (no chat template) answers a request as text


def chat_ids(tokenizer, text: str) -> list[int]:
    """One user turn through the target's chat template, ready for the answer; for a base model (Gemma-3-270M
    has no template) the request in a plain-text frame whose natural continuation is the answer."""
    if getattr(tokenizer, "has_chat_template", False):
        return list(tokenizer.apply_chat_template([{"role": "user", "content": text}], add_generation_prompt=True))
    return list(tokenizer.encode(BASE_FRAME.format(text=text)))


def records(cfg: ChatCorpusConfig, split: str) -> list[dict]:
    from ..data import instructions

    # In a fixed order by hash of the id, so a --limit (or --valid) takes every category, not the file's first.
    rows = sorted(instructions.load("train" if split == "train" else "heldout"),
                  key=lambda r: hashlib.sha256(r["id"].encode()).hexdigest())
    return rows[: cfg.limit if split == "train" else cfg.valid]


def _open_folder(cfg: ChatCorpusConfig, meta: dict) -> None:
    path = Path(cfg.out) / META
    if path.is_file():  # an earlier --limit that took the whole split reads as the whole split
        try:
            old = json.loads(path.read_text())
            old["settings"]["limit"] = whole_split(old["settings"]["limit"])
            if {k: old.get(k) for k in KEYS} == {k: meta[k] for k in KEYS}:
                return
        except (ValueError, KeyError, TypeError):
            pass  # not ours, or damaged: open_corpus_folder says so
    open_corpus_folder(cfg.out, meta, meta_name=META, prog=PROG, keys=KEYS,
                       ours=[META, "README.md"] + [f"{s}{x}" for s in SPLITS for x in (".jsonl", ".jsonl.partial")],
                       overwrite=cfg.overwrite, what=lambda old: "other settings, another target or instruction set")


def answer_batch(model, tokenizer, prompts: list[list[int]], max_new: int, temp: float = 0.0,
                 seed: int = 0) -> list[list[int]]:
    """The target's answers (mlx-lm's batch_generate), each cut before its end-of-turn token: greedy, or
    sampled at `temp` from MLX's generator seeded with `seed` (the same batch and seed, the same answers)."""
    import mlx.core as mx
    from mlx_lm.generate import batch_generate
    from mlx_lm.sample_utils import make_sampler

    options = {}
    if temp > 0:
        mx.random.seed(seed)
        options["sampler"] = make_sampler(temp)
    return [list(ids) for ids in batch_generate(model, tokenizer, prompts, max_tokens=max_new,
                                                return_token_ids=True, **options).token_ids]


def write_corpus(cfg: ChatCorpusConfig, say=print) -> dict:
    """Write (or finish) the corpus folder; returns its corpus.json."""
    from ..data import instructions
    from ..loading import load

    cfg.validate()
    identity = target_identity(cfg.target)
    model, tokenizer = load(cfg.target)
    meta = {"format": FORMAT, "settings": cfg.settings(), "target": identity,
            "instructions": {"version": instructions.VERSION}, "command": command(cfg)}
    _open_folder(cfg, meta)
    out = Path(cfg.out)
    counts = {}
    for split in SPLITS:
        final, partial = out / f"{split}.jsonl", out / f"{split}.jsonl.partial"
        todo = records(cfg, split)
        if final.is_file():
            counts[split] = {"answers": _finished_lines(final)}
            continue
        have = _finished_lines(partial)
        t0, tokens = time.time(), 0
        with open(partial, "a", encoding="utf-8") as f:
            for start in range(have, len(todo), cfg.batch_size):
                batch = todo[start : start + cfg.batch_size]
                prompts = [chat_ids(tokenizer, r["text"]) for r in batch]
                seed = (cfg.seed * len(SPLITS) + SPLITS.index(split)) * 1_000_003 + start  # a batch's own draw
                answers = answer_batch(model, tokenizer, prompts, cfg.max_new, cfg.temp, seed)
                for r, p, a in zip(batch, prompts, answers):
                    f.write(json.dumps({"id": r["id"], "category": r["category"], "prompt": p, "answer": a}) + "\n")
                    tokens += len(a)
                f.flush()
                os.fsync(f.fileno())
                if not cfg.quiet:
                    rate = tokens / max(time.time() - t0, 1e-9)
                    say(f"{split}: {start + len(batch):,}/{len(todo):,} answers, {tokens:,} tokens, "
                        f"{rate:,.0f} tokens/s")
        os.replace(partial, final)
        counts[split] = {"answers": len(todo)}
    meta["complete"] = counts
    tmp = out / (META + ".tmp")
    tmp.write_text(json.dumps(meta, indent=2) + "\n")
    os.replace(tmp, out / META)
    (out / "README.md").write_text(readme(cfg, meta))
    if not cfg.quiet:
        say(f"wrote {out}: {counts['train']['answers']:,} train and {counts['valid']['answers']:,} valid answers")
    return meta


def read_corpus(folder, split: str) -> list[dict]:
    """The records of a finished split."""
    path = Path(folder) / f"{split}.jsonl"
    if not (Path(folder) / META).is_file():
        raise SpecDecError(f"{str(folder)!r} is not a chat corpus ({META} missing); write one with {PROG}")
    if not path.is_file():
        raise SpecDecError(f"{str(path)!r} is missing: the corpus is unfinished; run {PROG} again to finish it")
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def corpus_target(folder) -> dict:
    return json.loads((Path(folder) / META).read_text())["target"]


def corpus_folders(spec: str) -> list[str]:
    """--corpus "a,b": the corpus folders a trainer reads (several: their train splits together)."""
    folders = [f.strip() for f in str(spec).split(",") if f.strip()]
    if not folders:
        raise SpecDecError("--corpus names no corpus folder")
    return folders


def read_corpora(spec: str, split: str) -> list[dict]:
    """The records of `split` of every corpus in --corpus "a,b", in that order."""
    return [r for folder in corpus_folders(spec) for r in read_corpus(folder, split)]


def corpora_target(spec: str) -> dict:
    """The target that wrote every corpus in `spec` (refused where two were written by different targets)."""
    folders = corpus_folders(spec)
    first = corpus_target(folders[0])
    for folder in folders[1:]:
        if corpus_target(folder) != first:
            raise SpecDecError(f"--corpus: {folder!r} was written by another target than {folders[0]!r}")
    return first


def token_counts(rows: list[dict], vocab_size: int) -> np.ndarray:
    """How often each target token occurs in the answers (what a drafter drafts)."""
    counts = np.zeros(vocab_size, np.int64)
    for r in rows:
        np.add.at(counts, np.asarray(r["answer"], np.int64), 1)
    return counts


def command(cfg: ChatCorpusConfig) -> str:
    defaults = asdict(ChatCorpusConfig(target="", out=""))
    flags = [f"--target {cfg.target}", f"--out {cfg.out}"]
    flags += [f"--{k.replace('_', '-')} {v}" for k, v in cfg.settings().items()
              if k != "target" and v != defaults[k] and v is not None]
    return " ".join([PROG] + flags)


def readme(cfg: ChatCorpusConfig, meta: dict) -> str:
    from ..data import instructions

    c = meta["complete"]
    how = "greedy" if cfg.temp == 0 else f"sampled (temperature {cfg.temp:g}, seed {cfg.seed})"
    return (f"# A chat corpus written by {cfg.target}\n\n"
            f"{c['train']['answers']:,} train and {c['valid']['answers']:,} valid records: the target's {how} "
            f"answers (up to {cfg.max_new} tokens) to the instruction set version {instructions.VERSION} "
            f"(`mlx_specdec/data/instructions`), through its chat template. Token ids, one record a line.\n\n"
            f"Written with:\n\n```\n{meta['command']}\n```\n")
