"""A drafter's corpus written by its target: sequence-level distillation.

    python -m mlx_specdec.distill --target models/storylm-5m --out runs/distill-storylm-5m
    python -m mlx_specdec.train --preset storylm-1m --init-from models/storylm-1m \\
        --corpus runs/distill-storylm-5m --no-yardstick --out models/storylm-1m-distilled

A drafter earns its keep by agreeing with the target, not by modelling the
stories well. So the drafter is trained on what the target itself writes
(DistillSpec, Zhou et al. 2023, measures this closing much of the acceptance
gap): each record is a story opening of random length (4 to 48 tokens, from
the corpus's own split) followed by the target's continuation of it, greedy
by default (what greedy speculative decoding has to match), or sampled at
`--temperature`.

The folder holds `train.jsonl` and `valid.jsonl` (one {"text": ...} per
line, the format `--corpus PATH` reads), `distill.json` (the settings and
the target's fingerprint) and a README. Batches are appended and flushed as
they finish; an interrupted run continues where it stopped when started again
with the same settings (a batch is a pure function of the settings and its
index), and a split file appears under its final name only when complete.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import mlx.core as mx
import numpy as np

from ..errors import SpecDecError
from ..models.folders import file_sha256

META = "distill.json"
FORMAT = "mlx-specdec distillation corpus v1"
SPLITS = ("train", "valid")
PROG = "python -m mlx_specdec.distill"


@dataclass
class DistillConfig:
    target: str
    out: str
    corpus: str = "bundled"  # where the story openings come from (its train and valid splits)
    train_stories: int = 4000
    valid_stories: int = 200
    min_prompt: int = 4  # opening length in tokens, BOS included, drawn per batch
    max_prompt: int = 48
    new_tokens: int = 192  # the target's continuation, cut at its first EOS
    batch_size: int = 32
    temperature: float = 0.0  # 0 = greedy
    seed: int = 0
    overwrite: bool = False
    quiet: bool = False

    LOCAL = ("out", "overwrite", "quiet")  # do not change what is written

    def settings(self) -> dict:
        return {k: v for k, v in asdict(self).items() if k not in self.LOCAL}

    def validate(self, context: int | None = None) -> None:
        for name in ("train_stories", "valid_stories", "new_tokens", "batch_size"):
            if getattr(self, name) < 1:
                raise SpecDecError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(self, name)}")
        if not 2 <= self.min_prompt <= self.max_prompt:
            raise SpecDecError(f"need 2 <= --min-prompt <= --max-prompt, got {self.min_prompt} and {self.max_prompt}")
        if self.temperature < 0:
            raise SpecDecError(f"--temperature must be >= 0, got {self.temperature}")
        if context is not None and self.max_prompt + self.new_tokens > context:
            raise SpecDecError(f"--max-prompt {self.max_prompt} + --new-tokens {self.new_tokens} exceeds the "
                               f"target's context of {context}")


def target_identity(folder: str) -> dict:
    """What a corpus depends on besides the settings: the target's weights and tokenizer."""
    folder = Path(folder)
    weights = sorted(folder.glob("*.safetensors"))
    if not (folder / "config.json").is_file() or not weights:
        raise SpecDecError(f"--target {str(folder)!r} is not a model folder (config.json and safetensors weights)")
    config = json.loads((folder / "config.json").read_text())
    return {"weights": {w.name: file_sha256(w)[:16] for w in weights},
            "tokenizer_fingerprint": config.get("tokenizer_fingerprint")}


def openings(cfg: DistillConfig, tok, split: str):
    """(batch index, prompts as an int32 array [B, L]) for every batch of `split`, in order.

    The length L is drawn per batch from (seed, split, index); stories too short
    for it are passed over, so the stream, and every batch, is deterministic.
    """
    from ..data import iter_texts

    n = cfg.train_stories if split == "train" else cfg.valid_stories
    stories = (tok.encode(t, bos=True, eos=False) for t in iter_texts(cfg.corpus, split, seed=cfg.seed))
    done, index = 0, 0
    while done < n:
        rng = np.random.default_rng([cfg.seed, SPLITS.index(split), index])
        length = int(rng.integers(cfg.min_prompt, cfg.max_prompt + 1))
        rows = []
        for ids in stories:
            if len(ids) > length:
                rows.append(ids[:length])
                if len(rows) == min(cfg.batch_size, n - done):
                    break
        if not rows:
            raise SpecDecError(f"corpus {cfg.corpus!r} ran out of {split} stories longer than {length} tokens "
                               f"after {done} of {n}; ask for fewer stories")
        yield index, np.asarray(rows, np.int32)
        done += len(rows)
        index += 1


def continue_batch(model, prompts: np.ndarray, new_tokens: int, eos_id: int, temperature: float = 0.0,
                   key=None) -> list[list[int]]:
    """The target's continuations of a batch of equal-length prompts, each cut before its first EOS.

    One cached pass over the prompts, then one token a step for every row; each
    step is queued before the previous one is read (as the plain loop does).
    """
    cache = model.make_cache()
    logits = model(mx.array(prompts), cache)[:, -1, :]
    keys = mx.random.split(key, new_tokens) if temperature > 0 else None

    def pick(logits, i):
        if temperature == 0:
            return mx.argmax(logits, axis=-1)
        return mx.random.categorical(logits.astype(mx.float32) * (1.0 / temperature), key=keys[i])

    token = pick(logits, 0)
    steps = [token]
    mx.async_eval(token)
    finished = np.zeros(len(prompts), bool)
    for i in range(1, new_tokens):
        token = pick(model(token[:, None], cache)[:, -1, :], i)
        mx.async_eval(token)
        steps.append(token)
        if i % 32 == 0:  # stop early once every row has ended (one read every 32 steps)
            finished |= (np.array(mx.stack(steps[-32:], axis=1)) == eos_id).any(axis=1)
            if finished.all():
                break
    out = np.array(mx.stack(steps, axis=1)).tolist()
    return [row[: row.index(eos_id)] if eos_id in row else row for row in out]


def _open_folder(cfg: DistillConfig, meta: dict) -> None:
    def what(old: dict) -> str:
        changed = sorted(k for k in meta["settings"] if old.get("settings", {}).get(k) != meta["settings"][k])
        return "other settings (" + (", ".join(changed) or "the target's weights") + ")"

    open_corpus_folder(cfg.out, meta, meta_name=META, prog=PROG, keys=("settings", "target"),
                       ours=[META, "README.md"] + [f"{s}{x}" for s in SPLITS for x in (".jsonl", ".jsonl.partial")],
                       overwrite=cfg.overwrite, what=what)


def open_corpus_folder(out, meta: dict, *, meta_name: str, prog: str, keys: tuple[str, ...], ours: list[str],
                       overwrite: bool, what=lambda old: "other settings") -> None:
    """Make or reuse a corpus folder and write its meta file.

    A folder we did not write (no meta file) is never touched; one written with
    other `keys` (settings, target, ...) is replaced only with --overwrite, and
    then only the files this command writes (`ours`).
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SpecDecError(f"--out {str(out)!r} is an existing file; choose a new folder")
    if out.is_dir() and any(out.iterdir()):
        if not (out / meta_name).is_file():
            raise SpecDecError(f"--out {str(out)!r} exists and was not written by {prog}; choose a new folder")
        old = json.loads((out / meta_name).read_text())
        if {k: old.get(k) for k in keys} != {k: meta[k] for k in keys}:
            if not overwrite:
                raise SpecDecError(f"--out {str(out)!r} holds a corpus made with {what(old)}; "
                                   "pass --overwrite to replace it, or choose a new folder")
            for name in ours:
                (out / name).unlink(missing_ok=True)
    out.mkdir(parents=True, exist_ok=True)
    tmp = out / (meta_name + ".tmp")
    tmp.write_text(json.dumps(meta, indent=2) + "\n")
    os.replace(tmp, out / meta_name)


def _finished_lines(path: Path) -> int:
    """Complete lines of a partial file; a torn last line (a crash mid-write) is cut off."""
    if not path.is_file():
        return 0
    data = path.read_bytes()
    keep = data.rfind(b"\n") + 1
    if keep != len(data):
        with open(path, "r+b") as f:
            f.truncate(keep)
    return data[:keep].count(b"\n")


def write_corpus(cfg: DistillConfig, say=print) -> dict:
    """Write (or finish) the corpus folder; returns its distill.json."""
    from ..models.store import load_any_store

    cfg.validate()
    identity = target_identity(cfg.target)
    model, tok = load_any_store(cfg.target)
    context = getattr(getattr(model, "args", None), "max_seq_len", None)
    cfg.validate(context)
    meta = {"format": FORMAT, "settings": cfg.settings(), "target": identity, "command": command(cfg)}
    _open_folder(cfg, meta)
    out = Path(cfg.out)
    counts = {}
    for s_index, split in enumerate(SPLITS):
        final, partial = out / f"{split}.jsonl", out / f"{split}.jsonl.partial"
        want = cfg.train_stories if split == "train" else cfg.valid_stories
        if final.is_file():
            counts[split] = {"stories": _finished_lines(final)}
            continue
        have = _finished_lines(partial)
        t0, tokens, written = time.time(), 0, have
        with open(partial, "a", encoding="utf-8") as f:
            for index, prompts in openings(cfg, tok, split):
                end = index * cfg.batch_size + len(prompts)
                if end <= have:
                    continue  # written before the interruption
                key = mx.random.key(int(np.random.default_rng([cfg.seed, s_index, index, 1]).integers(2**31)))
                conts = continue_batch(model, prompts, cfg.new_tokens, tok.eos_id, cfg.temperature, key)
                skip = max(0, have - index * cfg.batch_size)  # a batch torn by the interruption
                for row, cont in list(zip(prompts.tolist(), conts))[skip:]:
                    f.write(json.dumps({"text": tok.decode(row[1:] + cont)}) + "\n")
                    tokens += len(cont)
                f.flush()
                os.fsync(f.fileno())
                written = end
                if not cfg.quiet:
                    rate = tokens / max(time.time() - t0, 1e-9)
                    say(f"{split}: {written:,}/{want:,} stories, {tokens:,} target tokens, {rate:,.0f} tokens/s")
        os.replace(partial, final)
        counts[split] = {"stories": written}
    meta["complete"] = counts
    (out / META).write_text(json.dumps(meta, indent=2) + "\n")
    (out / "README.md").write_text(readme(cfg, meta))
    (say if not cfg.quiet else (lambda *_: None))(f"wrote {out}: {counts['train']['stories']:,} train and {counts['valid']['stories']:,} valid stories")
    return meta


def command(cfg: DistillConfig) -> str:
    defaults = asdict(DistillConfig(target="", out=""))
    flags = [f"--target {cfg.target}", f"--out {cfg.out}"]
    flags += [f"--{k.replace('_', '-')} {v}" for k, v in cfg.settings().items()
              if k != "target" and v != defaults[k]]
    return " ".join([PROG] + flags)


def readme(cfg: DistillConfig, meta: dict) -> str:
    how = "greedy" if cfg.temperature == 0 else f"sampled at temperature {cfg.temperature:g}"
    return (
        f"# A distillation corpus written by {cfg.target}\n\n"
        f"{meta['complete']['train']['stories']:,} train and {meta['complete']['valid']['stories']:,} valid "
        f"records. Each is a story opening of {cfg.min_prompt} to {cfg.max_prompt} tokens from the "
        f"{cfg.corpus!r} corpus's own split, followed by the target's {how} continuation (up to "
        f"{cfg.new_tokens} tokens, cut at its end of story). Train a drafter on it with "
        f"`--corpus {cfg.out}`.\n\nWritten with:\n\n```\n{meta['command']}\n```\n"
    )
