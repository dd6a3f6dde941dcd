"""Train the StoryLM ladder (and its hybrid presets) on the shared loop.

    python -m mlx_specdec.train --preset storylm-5m --out models/storylm-5m --time-budget-min 30
    python -m mlx_specdec.train --ladder --out models

One readable job in the nanoGPT manner, run by `training.loop`:

  stories -> tokens ([BOS] story [EOS], joined) -> fixed rows of seq_len+1
  AdamW, linear warmup then cosine decay, gradient-norm clipping,
  one compiled step (model + optimizer state in and out),
  validation on the held-out split every --eval-every steps,
  an atomic checkpoint every --ckpt-every steps, and at the end a model-store
  folder with a model card and greedy samples.

Determinism: the weights come from --seed, and the batch at step s is a pure
function of (seed, s): rows are visited in a per-epoch permutation drawn from
numpy's Generator(seed, epoch). Nothing in the step is random (no dropout),
so a checkpoint holding weights, optimizer state and step is the whole state:
a resumed run continues with exactly the losses an uninterrupted run has.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path

import mlx.core as mx
import mlx.nn as nn
import numpy as np
from mlx.utils import tree_flatten

from ..data.generator import HELDOUT_SHAPES
from ..errors import SpecDecError
from ..models.hybrid import HYBRID_PRESETS, architecture, build_hybrid, context_length
from ..models.storylm import PRESETS, build, num_parameters, preset
from . import loop
from .checkpoints import CKPT
from .data import corpus_description, encode_split, get_tokenizer, pack, tokenized_corpus

SAMPLE_PROMPTS = ("Once upon a time", "One day, a little", "Tom and his dog")
PROG = "python -m mlx_specdec.train"

# Per-preset defaults for --ladder (and for a single preset when a flag is not
# given): chosen for a 2-core CPU; see the model cards for what they reached.
PRESET_DEFAULTS = {
    "storylm-tiny": dict(lr=3e-3, batch_size=8, seq_len=64),
    "storylm-1m": dict(lr=2e-3, batch_size=16, seq_len=256, warmup=50, time_budget_min=12.0),
    "storylm-5m": dict(lr=1.5e-3, batch_size=16, seq_len=256, warmup=50, time_budget_min=32.0),
    # ~100 minutes beside the 1M/5M jobs on the 2-core CI machine; fewer, cheaper validations.
    "storylm-30m": dict(lr=1e-3, batch_size=16, seq_len=256, warmup=50, time_budget_min=100.0,
                        eval_every=50, eval_rows=32),
    # A hybrid (mlx-lm's lfm2) on storylm-5m's data settings and budget, so its losses are comparable.
    "storylm-5m-hybrid": dict(lr=1.5e-3, batch_size=16, seq_len=256, warmup=50, time_budget_min=32.0),
}


def preset_overrides(name: str, given) -> dict:
    """The preset's defaults for the flags not in `given`. A preset's time budget is a default length of
    run, so an explicit --max-steps replaces it rather than being cut short by it (a 300-step run once
    stopped at 210 on a slower machine); --max-steps with --time-budget-min keeps both limits."""
    over = {k: v for k, v in PRESET_DEFAULTS.get(name, {}).items() if k not in given}
    if "max_steps" in given:
        over.pop("time_budget_min", None)
    return over


def preset_context(name: str) -> int | None:
    """The context length of a StoryLM or hybrid preset; None for an unknown name."""
    if name in HYBRID_PRESETS:
        return context_length(HYBRID_PRESETS[name])
    return PRESETS[name].max_seq_len if name in PRESETS else None


def build_preset(name: str, vocab_size: int, seed: int):
    """A freshly initialised model for a StoryLM or hybrid preset."""
    if name in HYBRID_PRESETS:
        return build_hybrid(name, vocab_size=vocab_size, seed=seed)
    return build(preset(name, vocab_size=vocab_size), seed=seed)


@dataclass
class TrainConfig(loop.RunConfig):
    preset: str = "storylm-5m"
    tokenizer: str | None = None  # trained into the run dir when missing
    vocab_size: int = 4096
    tokenizer_stories: int = 50_000
    data_cache: str | None = None  # where tokenized rows are cached; default run dir
    sample_tokens: int = 80
    no_yardstick: bool = False  # else every validation scores the hand-written stories and the best weights are kept
    init_from: str | None = None  # a store folder of this preset whose weights start the run (continued training)

    LOCAL = loop.RunConfig.LOCAL + ("tokenizer", "data_cache")

    def restore(self, saved: dict) -> None:
        """As the loop's, and a resumed run finds its tokenizer and token cache where the checkpoint says they
        were, unless given again (they are paths on this machine, so only used while they still exist)."""
        super().restore(saved)
        for key in ("tokenizer", "data_cache"):
            if getattr(self, key) is None and saved.get(key) and Path(saved[key]).exists():
                setattr(self, key, saved[key])

    def validate(self) -> None:
        if preset_context(self.preset) is None:
            raise SpecDecError(f"unknown preset {self.preset!r}; expected one of {sorted({**PRESETS, **HYBRID_PRESETS})}")
        super().validate()
        if self.vocab_size < 1:
            raise SpecDecError(f"--vocab-size must be >= 1, got {self.vocab_size}")
        if self.warmup < 0:
            raise SpecDecError(f"--warmup must be >= 0, got {self.warmup}")
        max_len = preset_context(self.preset)
        if self.seq_len > max_len:
            raise SpecDecError(f"--seq-len {self.seq_len} exceeds {self.preset}'s context of {max_len}")
        if self.tokenizer is not None and not Path(self.tokenizer).is_file():
            raise SpecDecError(f"--tokenizer {self.tokenizer!r} is not a file")
        if self.init_from is not None and not (Path(self.init_from) / "config.json").is_file():
            raise SpecDecError(f"--init-from {self.init_from!r} is not a model folder (no config.json)")


def cfg_command(cfg: TrainConfig) -> str:
    """The single-model command that reproduces cfg (flags the CLI would not fill in itself)."""
    defaults = {**asdict(TrainConfig()), **PRESET_DEFAULTS.get(cfg.preset, {})}
    return loop.cfg_command(cfg, PROG, defaults, always=("preset",))


def load_data(cfg: TrainConfig, tok, cache_dir: Path, log=print) -> tuple[np.ndarray, np.ndarray]:
    train, valid = tokenized_corpus(cfg, tok, cache_dir, log)
    train_rows, valid_rows = pack([train], cfg.seq_len), pack([valid], cfg.seq_len)
    if len(train_rows) < cfg.batch_size:
        raise SpecDecError(
            f"corpus {cfg.corpus!r} gives {len(train_rows)} training rows of {cfg.seq_len + 1} tokens; "
            f"need at least --batch-size {cfg.batch_size}"
        )
    if len(valid_rows) < 1:
        raise SpecDecError(f"corpus {cfg.corpus!r} gives no validation row of {cfg.seq_len + 1} tokens")
    return train_rows, valid_rows


def loss_fn(model, x: mx.array, y: mx.array) -> mx.array:
    return nn.losses.cross_entropy(model(x), y, reduction="mean")


def evaluate(model, rows: np.ndarray, batch_size: int) -> float:
    total, count = 0.0, 0
    for i in range(0, len(rows), batch_size):
        chunk = mx.array(rows[i : i + batch_size].astype(np.int32))
        loss = nn.losses.cross_entropy(model(chunk[:, :-1]), chunk[:, 1:], reduction="sum")
        total += loss.item()
        count += chunk[:, 1:].size
    return total / count


def story_loss(model, stories: list[list[int]], batch_size: int = 8) -> float:
    """Mean nats per target token over whole stories, each scored alone ([BOS] story [EOS]).

    Stories are batched by length with right padding that no loss counts, so
    the figure does not depend on how rows are packed or on seq_len.
    """
    order = sorted(range(len(stories)), key=lambda i: len(stories[i]))
    total, count = 0.0, 0
    for i in range(0, len(order), batch_size):
        batch = [stories[j] for j in order[i : i + batch_size]]
        width = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), width), np.int32)
        mask = np.zeros((len(batch), width - 1), np.float32)
        for r, row in enumerate(batch):
            ids[r, : len(row)] = row
            mask[r, : len(row) - 1] = 1.0
        x = mx.array(ids)
        losses = nn.losses.cross_entropy(model(x[:, :-1]), x[:, 1:], reduction="none")
        total += (losses * mx.array(mask)).sum().item()
        count += int(mask.sum())
    return total / count


def yardstick_tokens(tok, max_len: int) -> list[list[int]]:
    """The hand-written yardstick, tokenized as training sees a story (cut to the context)."""
    from ..data.yardstick import yardstick_stories

    return [tok.encode(t, bos=True, eos=True)[: max_len + 1] for t in yardstick_stories()]


def shapes_tokens(tok, n: int, max_len: int, data_seed: int = 0) -> list[list[int]]:
    """n stories of the generator's held-out plot shapes (the bundled 'shapes' split)."""
    from ..data import iter_texts

    return [tok.encode(t, bos=True, eos=True)[: max_len + 1] for t in iter_texts("bundled", "shapes", n, data_seed)]


def greedy_sample(model, tok, prompt: str, max_tokens: int) -> str:
    """Cached greedy continuation, stopping at EOS; returns prompt + continuation."""
    cache = model.make_cache()
    ids = tok.encode(prompt, bos=True, eos=False)
    logits = model(mx.array([ids]), cache)
    out = []
    for _ in range(max_tokens):
        t = mx.argmax(logits[0, -1]).item()
        if t == tok.eos_id:
            break
        out.append(t)
        logits = model(mx.array([[t]]), cache)
    # Decode prompt and continuation together so sentencepiece spacing is right.
    return tok.decode([i for i in ids if i != tok.bos_id] + out)


SHAPES_STORIES = 500  # held-out-shape stories scored by --evaluate and during training


def _bundled(corpus: str) -> bool:
    from ..data import parse_corpus

    return parse_corpus(corpus)[0] == "bundled"


def evaluate_models(paths, corpus: str = "bundled", n_stories: int = 2000, seq_len: int = 256,
                    data_seed: int = 0, batch_size: int = 16, shapes_stories: int = SHAPES_STORIES) -> list[dict]:
    """Held-out losses of store models, every model on the same targets (per tokenizer).

    - valid_loss: the corpus's valid split, packed into rows as in training;
    - shapes_loss: whole stories of plot shapes no model trained on (bundled corpus only);
    - yardstick_loss: the hand-written stories no generator wrote and no model trained on.

    Weights are used as stored (fp16-rounded).
    """
    from ..models.store import load_any_store

    cfg = TrainConfig(corpus=corpus, data_seed=data_seed)
    by_tok, results = {}, []
    for path in paths:
        model, tok = load_any_store(path)
        if tok.fingerprint not in by_tok:
            by_tok[tok.fingerprint] = (
                pack(encode_split(cfg, tok, "valid", n_stories), seq_len),
                shapes_tokens(tok, shapes_stories, seq_len, data_seed) if _bundled(corpus) and shapes_stories else None,
                yardstick_tokens(tok, seq_len),
            )
        rows, shapes, yard = by_tok[tok.fingerprint]
        loss = evaluate(model, rows, batch_size)
        res = dict(model=str(path), parameters=num_parameters(model), valid_loss=loss,
                   perplexity=math.exp(loss), targets=int(rows.size - len(rows)))
        if shapes is not None:
            res["shapes_loss"] = story_loss(model, shapes, batch_size)
        res["yardstick_loss"] = story_loss(model, yard, batch_size)
        res["yardstick_targets"] = sum(len(ids) - 1 for ids in yard)
        results.append(res)
    return results



BEST = "best"  # the early-stopping weights' prefix in a checkpoint


class StoryLMTask(loop.Task):
    """Next-token cross-entropy on rows of seq_len+1 tokens (inputs and shifted targets).

    Every validation also scores the hand-written yardstick; the weights with
    the lowest yardstick loss are kept (a reference, no copy) and are the ones
    saved when they beat the final weights: early stopping on text no model
    trains on. Checkpoints carry the best weights and their loss, so a resumed
    run keeps the best of the whole run, parts before the resume included.
    """

    fields = ["step", "tokens", "train_loss", "valid_loss", "yardstick_loss", "lr", "tokens_per_s", "elapsed_s"]

    def __init__(self, cfg: TrainConfig, vocab_size: int, valid_rows: np.ndarray, yardstick=None, init=None):
        self.cfg, self.vocab_size, self.all_valid = cfg, vocab_size, valid_rows
        self.yardstick = yardstick or []
        self.init = init  # weights the run starts from (--init-from), else the seeded initialisation
        self.tokens_per_step = cfg.batch_size * cfg.seq_len
        self.best: tuple[float, dict] | None = None
        self.reset()

    def reset(self) -> None:
        mx.random.seed(self.cfg.seed)
        self.module = build_preset(self.cfg.preset, self.vocab_size, self.cfg.seed)
        if self.init is not None:
            self.module.load_weights(list(self.init.items()))

    def loss(self, model, x):
        # loss_fn is looked up when the step is traced, so a test may replace it.
        value = loss_fn(model, x[:, :-1], x[:, 1:])
        return value, value[None]

    def evaluate(self, final: bool = False) -> dict:
        # Periodic checks use the first --eval-rows rows; the final one uses every row.
        rows = self.all_valid if final else self.all_valid[: self.cfg.eval_rows]
        out = {"valid_loss": evaluate(self.module, rows, self.cfg.batch_size)}
        if self.yardstick:
            out["yardstick_loss"] = story_loss(self.module, self.yardstick, self.cfg.batch_size)
            if self.best is None or out["yardstick_loss"] < self.best[0]:
                self.best = (out["yardstick_loss"], dict(tree_flatten(self.module.parameters())))
        return out

    def _best_is_current(self) -> bool:
        current = dict(tree_flatten(self.module.parameters()))
        return all(current[k] is v for k, v in self.best[1].items())

    def meta(self) -> dict:
        if self.best is None:
            return {}
        return {"best_yardstick_loss": self.best[0], "best_is_current": self._best_is_current()}

    def checkpoint_arrays(self) -> dict:
        # the best weights, unless they are the module's own (then the checkpoint holds them once)
        if self.best is None or self._best_is_current():
            return {}
        return {f"{BEST}.{k}": v for k, v in self.best[1].items()}

    def restore(self, meta: dict, arrays: dict) -> None:
        if "best_yardstick_loss" not in meta:
            return
        if meta["best_is_current"]:
            weights = dict(tree_flatten(self.module.parameters()))
        else:
            weights = {k[len(BEST) + 1:]: v for k, v in arrays.items() if k.startswith(BEST + ".")}
        self.best = (meta["best_yardstick_loss"], weights)

    def restore_best(self) -> bool:
        """Put back the weights that scored the lowest yardstick loss; False if the current ones are those."""
        if self.best is None or self._best_is_current():
            return False
        self.module.load_weights(list(self.best[1].items()))
        return True

    def info(self, train: dict, valid: dict) -> str:
        text = f"loss {train['train_loss']:.4f}"
        if valid:
            text += f" | valid {valid['valid_loss']:.4f}"
        if "yardstick_loss" in valid:
            text += f" | yardstick {valid['yardstick_loss']:.4f}"
        return text


def _init_line(source: dict, tokens: int, corpus: str) -> str:
    """The card's "initialised from" line after the folder: what the source saw (all its stages), then
    the sum with this run's tokens."""
    seen, total = source["tokens_seen"], source["tokens_in_all"]
    if not seen:
        return "whose card does not say how many tokens it saw"
    named = "this corpus" if source["corpus"] in (None, corpus) else source["corpus"]
    stages = f"{seen:,} tokens of {named}" if total == seen else \
        f"{total:,} tokens in its stages, the last {seen:,} of them of {named}"
    return f"trained before on {stages} ({total + tokens:,} in all)"


def initial_weights(cfg: TrainConfig, tok) -> tuple[dict, dict]:
    """--init-from: the folder's weights (float32) and what its card says it was trained on.

    The folder must hold the same preset on the same tokenizer; its weights
    then start this run, and the card of the result names it.
    """
    from ..loading import load

    folder = Path(cfg.init_from)
    config = json.loads((folder / "config.json").read_text())
    if config.get("preset") != cfg.preset:
        raise SpecDecError(f"--init-from {cfg.init_from!r} holds preset {config.get('preset')!r}, not {cfg.preset!r}")
    if config.get("tokenizer_fingerprint") != tok.fingerprint:
        raise SpecDecError(f"--init-from {cfg.init_from!r} was trained with tokenizer "
                           f"{config.get('tokenizer_fingerprint')}, this run's is {tok.fingerprint}")
    model, _ = load(str(folder))
    weights = {k: v.astype(mx.float32) for k, v in tree_flatten(model.parameters())}
    card = (folder / "README.md").read_text() if (folder / "README.md").is_file() else ""
    seen = re.search(r"^\| tokens seen \| ([\d,]+) \|", card, re.M)
    corpus = re.search(r"^\| corpus \| (.+?) \|$", card, re.M)
    # a folder that was itself initialised from another says how many tokens it saw in all, stages included
    before = re.search(r"^\| initialised from \| .*\(([\d,]+) in all\) \|$", card, re.M)
    seen_n, before_n = (int(m.group(1).replace(",", "")) if m else None for m in (seen, before))
    return weights, {"folder": str(folder), "tokens_seen": seen_n, "corpus": corpus.group(1) if corpus else None,
                     "tokens_in_all": before_n or seen_n}


def train(cfg: TrainConfig, tok=None, invocation: str | None = None) -> dict:
    """Run (or resume) one training; returns a summary dict. Writes cfg.out if set."""
    cfg.validate()
    run_dir = Path(cfg.run_dir or f"runs/{cfg.preset}")
    say = (lambda *a: None) if cfg.quiet else (lambda m: print(m, flush=True))
    meta = loop.open_run(cfg, run_dir, protect={"--tokenizer": cfg.tokenizer, "--data-cache": cfg.data_cache},
                         required={"tokenizer_fingerprint": str})
    tok = tok or get_tokenizer(cfg, run_dir, say)
    if meta is not None and meta["tokenizer_fingerprint"] != tok.fingerprint:
        raise SpecDecError(f"--resume: checkpoint was trained with tokenizer {meta['tokenizer_fingerprint']}, "
                           f"this run's is {tok.fingerprint}")
    train_rows, valid_rows = load_data(cfg, tok, Path(cfg.data_cache or run_dir), say)
    yardstick = yardstick_tokens(tok, cfg.seq_len) if not cfg.no_yardstick else None
    init, source = initial_weights(cfg, tok) if cfg.init_from else (None, None)
    task = StoryLMTask(cfg, tok.vocab_size, valid_rows, yardstick, init)
    say(f"{cfg.preset}: {num_parameters(task.module):,} parameters, {len(train_rows):,} train rows of {cfg.seq_len}, "
        f"batches of {task.tokens_per_step:,} tokens, lr {cfg.lr:g}")
    summary = loop.run(task, cfg, run_dir=run_dir, train_rows=train_rows, meta=meta, say=say,
                       invocation=invocation or cfg_command(cfg),
                       base_meta=dict(tokenizer_fingerprint=tok.fingerprint, preset=cfg.preset,
                                      architecture=architecture(task.module)))
    invoked = summary.pop("invocation")
    summary = dict(preset=cfg.preset, **summary)
    if task.restore_best():
        summary.update(task.evaluate(final=True), kept="weights with the lowest yardstick loss (early stopping)")
        say(f"kept the weights with the lowest yardstick loss ({summary['yardstick_loss']:.4f})")
    if _bundled(cfg.corpus) and not cfg.no_yardstick:
        summary["shapes_loss"] = story_loss(task.module, shapes_tokens(tok, SHAPES_STORIES, cfg.seq_len, cfg.data_seed),
                                            cfg.batch_size)
    if cfg.out:
        model = task.module
        samples = [(p, greedy_sample(model, tok, p, cfg.sample_tokens)) for p in SAMPLE_PROMPTS]
        card = dict(
            preset=cfg.preset, corpus=corpus_description(cfg.corpus),
            train_stories=cfg.train_stories, tokens_seen=summary["tokens_seen"],
            **({"initialised_from": f"{source['folder']}, " + _init_line(source, summary["tokens_seen"],
                                                                          corpus_description(cfg.corpus))}
               if source else {}),
            steps=summary["steps"], batch=f"{cfg.batch_size} x {cfg.seq_len} tokens",
            optimizer=loop.optimizer_line(cfg),
            final_train_loss=summary["train_loss"], final_valid_loss=summary["valid_loss"],
            valid_loss_measured_on=f"{valid_rows.size - len(valid_rows):,} held-out next-token "
                                   f"targets ({cfg.valid_stories:,} valid-split stories)",
            **({"held_out_shapes_loss": summary["shapes_loss"],
                "held_out_shapes_measured_on": f"{SHAPES_STORIES} stories of the {len(HELDOUT_SHAPES)} plot shapes "
                                               "held out of training"} if "shapes_loss" in summary else {}),
            **({"yardstick_loss": summary["yardstick_loss"],
                "yardstick_measured_on": f"{len(yardstick or [])} hand-written stories "
                                         "(mlx_specdec/data/yardstick), never trained on"}
               if "yardstick_loss" in summary else {}),
            **({"kept": summary["kept"]} if "kept" in summary else {}),
            wall_time=loop.fmt_time(summary["wall_time_s"]), tokens_per_s_overall=summary["tokens_per_s"],
            machine=loop.machine(), seed=cfg.seed, invoked_as=invoked,
            command=cfg_command(cfg), samples=samples,
        )
        if cfg.preset in HYBRID_PRESETS:
            from ..models.hybrid import save_hybrid

            save_hybrid(model, tok, cfg.out, card=card, overwrite=cfg.overwrite)
        else:
            from ..models.store import save_model

            save_model(model, tok, cfg.out, card=card, overwrite=cfg.overwrite)
        (run_dir / "summary.json").write_text(json.dumps({**summary, "samples": samples}, indent=2))
        say(f"saved {cfg.out}")
        summary["samples"] = samples
    return summary


def train_ladder(cfg: TrainConfig, presets: list[str], out_root: str, explicit: set[str],
                 invocation: str | None = None) -> list[dict]:
    """Train several presets sharing ONE tokenizer and one tokenized corpus.

    With --resume each preset continues its checkpoint when it has one (a
    finished one just re-validates and re-saves) and starts fresh otherwise.
    """
    shared = Path(cfg.run_dir or "runs/ladder")
    configs = []
    for name in presets:  # every preset's flags and outputs are checked before the first one trains
        over = preset_overrides(name, explicit)
        run_dir = Path("runs") / name
        c = TrainConfig(**{**asdict(cfg), **over, "preset": name, "tokenizer": None,
                           "run_dir": str(run_dir), "data_cache": str(shared),
                           "out": str(Path(out_root) / name),
                           "resume": cfg.resume and (run_dir / CKPT).is_file()})
        c.validate()
        loop.guard_outputs(c.out, run_dir, overwrite=c.overwrite, protect={"the ladder's shared run folder": shared})
        configs.append(c)
    shared.mkdir(parents=True, exist_ok=True)
    base = TrainConfig(**{**asdict(cfg), "run_dir": str(shared)})
    tok = get_tokenizer(base, shared)
    results = []
    for c in configs:
        c.tokenizer = str(tok.path)
        results.append(train(c, tok, invocation))
    return results
