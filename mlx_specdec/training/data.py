"""Training data: tokenize a corpus once, cache it, cut it into rows; batch s is a pure function of s."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

import numpy as np

from ..errors import SpecDecError


def get_tokenizer(cfg, run_dir: Path, log=print):
    from ..data import iter_texts
    from ..models.tokenizer import StoryTokenizer

    if cfg.tokenizer:
        return StoryTokenizer(cfg.tokenizer)
    path = run_dir / "tokenizer.model"
    if path.is_file():
        return StoryTokenizer(str(path))
    log(f"training a {cfg.vocab_size}-token tokenizer on {cfg.tokenizer_stories:,} stories -> {path}")
    texts = iter_texts(cfg.corpus, "train", n=cfg.tokenizer_stories, seed=cfg.data_seed)
    return StoryTokenizer.train(texts, str(path), vocab_size=cfg.vocab_size)


def pack(token_lists, seq_len: int) -> np.ndarray:
    """Join documents and cut them into rows of seq_len+1 (inputs and shifted targets)."""
    flat = np.fromiter((t for ids in token_lists for t in ids), dtype=np.int32)
    n_rows = len(flat) // (seq_len + 1)
    return flat[: n_rows * (seq_len + 1)].reshape(n_rows, seq_len + 1)


def encode_split(cfg, tok, split: str, n: int):
    from ..data import iter_texts

    for text in iter_texts(cfg.corpus, split, n=n, seed=cfg.data_seed):
        # BOS starts a story as prompts start at generation; EOS ends it so the
        # model learns where stories stop.
        yield tok.encode(text, bos=True, eos=True)


def corpus_files_stamp(corpus: str) -> list:
    """What a corpus's text depends on besides its spec, so a cache made from older text is not reused:
    for a corpus read from files, each split file's name, size and modification time (a corpus written
    again in place); for the bundled one, the digest of its written stories (stories added or edited)."""
    from ..data import parse_corpus
    from ..data.tinystories import split_files
    from ..data.written import written_digest

    kind = parse_corpus(corpus)[0]
    if kind == "bundled":
        return [["written", written_digest()]]
    if kind != "path":
        return []
    stamp = []
    for split in ("train", "valid"):
        try:
            files = split_files(corpus, split)
        except SpecDecError:
            continue  # a missing split is reported where it is read
        stamp += [[str(f), f.stat().st_size, f.stat().st_mtime_ns] for f in files]
    return stamp


def corpus_description(corpus: str) -> str:
    """A corpus as a model card names it: its spec, and for the bundled corpus which written stories it held
    (their number and digest: the same spec read other stories before set13-set24 were added)."""
    from ..data import parse_corpus
    from ..data.written import written_digest, written_stories

    if parse_corpus(corpus)[0] == "bundled":
        return f"{corpus} ({len(written_stories()):,} written stories, digest {written_digest()})"
    return corpus


def tokenized_corpus(cfg, tok, cache_dir: Path, log=print) -> tuple[np.ndarray, np.ndarray]:
    """The train and valid splits as flat token arrays, cached in `cache_dir`.

    `cfg` needs corpus, train_stories, valid_stories and data_seed (the StoryLM
    and MTP trainers both pass theirs); the cache key includes the tokenizer.
    """
    key = json.dumps([cfg.corpus, cfg.train_stories, cfg.valid_stories, cfg.data_seed, tok.fingerprint]
                     + corpus_files_stamp(cfg.corpus))
    path = cache_dir / f"tokens-{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if path.is_file():
        with np.load(path) as z:
            return z["train"], z["valid"]
    t0 = time.time()
    train = np.concatenate([np.asarray(x, np.uint16) for x in encode_split(cfg, tok, "train", cfg.train_stories)])
    valid = np.concatenate([np.asarray(x, np.uint16) for x in encode_split(cfg, tok, "valid", cfg.valid_stories)])
    cache_dir.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    try:
        np.savez(tmp, train=train, valid=valid)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    log(f"tokenized {len(train):,} train / {len(valid):,} valid tokens in {time.time() - t0:.0f}s -> {path}")
    return train, valid


def batch_rows(n_rows: int, batch_size: int, step: int, seed: int) -> np.ndarray:
    """Row indices of batch `step`: epochs are seeded permutations, read in order."""
    start = step * batch_size
    idx = []
    while len(idx) < batch_size:
        epoch, pos = divmod(start + len(idx), n_rows)
        perm = np.random.default_rng([seed, epoch]).permutation(n_rows)
        idx.extend(perm[pos : pos + batch_size - len(idx)].tolist())
    return np.asarray(idx)

