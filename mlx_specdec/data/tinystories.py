"""Readers for TinyStories in the forms people keep it on disk, and the hub fetch.

Formats:
- .txt: stories separated by `<|endoftext|>` (the TinyStories / TinyStoriesV2
  train and valid files);
- .json: a list of objects with a "text" or "story" field (or a list of strings),
  like the data00.json... shards of TinyStories_all_data;
- .jsonl: one such object per line;
- a directory holding such files: the split's files are picked by name
  (*train* for "train"; *valid*, *validation*, *val*, *dev* for "valid").

The hub download runs only when a caller asks for corpus "hub" or
"hub:<repo>"; offline it fails with a one-line error instead of waiting.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Iterator

from ..errors import SpecDecError

SEPARATOR = "<|endoftext|>"
HUB_REPO = "roneneldan/TinyStories"
HUB_FILES = {"train": "TinyStoriesV2-GPT4-train.txt", "valid": "TinyStoriesV2-GPT4-valid.txt"}
STORY_SUFFIXES = (".txt", ".json", ".jsonl")
_TEXT_FIELDS = ("text", "story")
# A .txt without a single separator in its first MiB is not a TinyStories file.
_MAX_UNSEPARATED = 1 << 20

_SPLIT_WORDS = {
    "train": re.compile(r"train", re.I),
    "valid": re.compile(r"valid|(?<![a-z])val(?![a-z])|(?<![a-z])dev(?![a-z])", re.I),
}


def normalise_split(split: str) -> str:
    if split in ("train", "valid"):
        return split
    if split in ("validation", "val", "dev"):
        return "valid"
    raise SpecDecError(f"split must be 'train' or 'valid', got {split!r}")


# ---------------------------------------------------------------------------
# Single files
# ---------------------------------------------------------------------------


def read_txt(path: str | Path) -> Iterator[str]:
    """Stories from a text file whose stories are separated by `<|endoftext|>`."""
    path = Path(path)
    buf: list[str] = []
    size = 0
    seen_separator = False
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if SEPARATOR in line:
                seen_separator = True
                parts = line.split(SEPARATOR)
                buf.append(parts[0])
                for part in parts[1:]:
                    story = "".join(buf).strip()
                    if story:
                        yield story
                    buf, size = [part], len(part)
                continue
            buf.append(line)
            size += len(line)
            if not seen_separator and size > _MAX_UNSEPARATED:
                raise SpecDecError(
                    f"{str(path)!r} has no {SEPARATOR!r} separator in its first MiB; "
                    f"expected TinyStories text with one {SEPARATOR} line between stories"
                )
    story = "".join(buf).strip()
    if story:
        yield story


def _text_of(item, path: Path, where: str) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for k in _TEXT_FIELDS:
            v = item.get(k)
            if isinstance(v, str):
                return v
    raise SpecDecError(
        f"{str(path)!r} {where}: expected an object with a 'text' or 'story' string field, got {_describe(item)}"
    )


def _describe(item) -> str:
    if isinstance(item, dict):
        return f"an object with keys {sorted(item)[:6]}"
    return type(item).__name__


def read_json(path: str | Path) -> Iterator[str]:
    """Stories from a JSON list of {"text"|"story": ...} objects (or strings)."""
    path = Path(path)
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise SpecDecError(f"{str(path)!r} is not valid JSON ({e}); expected a list of story objects") from None
    if isinstance(data, dict):
        # tolerate {"data": [...]} / {"train": [...]}-style wrappers holding one list
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise SpecDecError(f"{str(path)!r} holds a JSON object; expected a list of story objects")
        data = lists[0]
    if not isinstance(data, list):
        raise SpecDecError(f"{str(path)!r} holds a JSON {type(data).__name__}; expected a list of story objects")
    for i, item in enumerate(data):
        text = _text_of(item, path, f"item {i}").strip()
        if text:
            yield text


def read_jsonl(path: str | Path) -> Iterator[str]:
    """Stories from JSON Lines: one {"text"|"story": ...} object per line."""
    path = Path(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                item = json.loads(line)
            except json.JSONDecodeError as e:
                raise SpecDecError(f"{str(path)!r} line {lineno} is not valid JSON ({e.msg})") from None
            text = _text_of(item, path, f"line {lineno}").strip()
            if text:
                yield text


def read_file(path: str | Path) -> Iterator[str]:
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".txt":
        return read_txt(path)
    if suffix == ".json":
        return read_json(path)
    if suffix == ".jsonl":
        return read_jsonl(path)
    raise SpecDecError(f"{str(path)!r} has suffix {suffix or '(none)'!r}; expected one of .txt, .json, .jsonl")


# ---------------------------------------------------------------------------
# Picking files for a split
# ---------------------------------------------------------------------------


def _names_split(name: str) -> str | None:
    hits = [s for s, rx in _SPLIT_WORDS.items() if rx.search(name)]
    return hits[0] if len(hits) == 1 else None


def split_files(path: str | Path, split: str) -> list[Path]:
    """The files of `path` (a file or a directory) that hold `split`."""
    path = Path(path)
    split = normalise_split(split)
    if path.is_file():
        named = _names_split(path.name)
        if named is None or named == split:
            return [path]
        # asked for valid but given ...-train.txt: use the sibling file when it exists
        siblings = [p for p in sorted(path.parent.iterdir())
                    if p.is_file() and p.suffix.lower() == path.suffix.lower()
                    and _names_split(p.name) == split
                    and _SPLIT_WORDS[named].sub("", path.name) == _SPLIT_WORDS[split].sub("", p.name)]
        if siblings:
            return siblings[:1]
        raise SpecDecError(
            f"{str(path)!r} is a {named} file and no matching {split} file lies beside it; "
            f"pass the {split} file or its directory"
        )
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in STORY_SUFFIXES)
        if not files:
            raise SpecDecError(f"directory {str(path)!r} holds no .txt, .json or .jsonl files")
        chosen = [p for p in files if _names_split(p.name) == split]
        if chosen:
            return chosen
        if split == "train" and all(_names_split(p.name) is None for p in files):
            return files  # e.g. the data00.json ... data49.json shards, all training data
        want = "*train*" if split == "train" else "*valid*, *validation*, *val* or *dev*"
        raise SpecDecError(f"directory {str(path)!r} has no {split} file; expected a name like {want}")
    raise SpecDecError(f"corpus path {str(path)!r} does not exist")


def iter_path(path: str | Path, split: str = "train", n: int | None = None) -> Iterator[str]:
    """Stories of `split` from a file or directory, in file order; at most n."""
    files = split_files(path, split)
    count = 0
    if n is not None and n <= 0:
        return
    for f in files:
        for story in read_file(f):
            yield story
            count += 1
            if n is not None and count >= n:
                return
    if count == 0:
        names = ", ".join(repr(str(f)) for f in files)
        raise SpecDecError(f"no stories found in {names}; expected TinyStories text, JSON or JSONL")


# ---------------------------------------------------------------------------
# Hub
# ---------------------------------------------------------------------------


def _offline() -> bool:
    return os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on")


def hub_file(split: str = "train", repo: str = HUB_REPO) -> Path:
    """Local path of the TinyStoriesV2 file of `split`, downloading it if needed and online."""
    split = normalise_split(split)
    filename = HUB_FILES[split]
    try:
        from huggingface_hub import hf_hub_download
    except ImportError:
        raise SpecDecError("corpus 'hub' needs the huggingface_hub package (pip install huggingface-hub)") from None
    offline = _offline()
    try:
        # huggingface_hub reads HF_HUB_OFFLINE only at import, so pass it explicitly;
        # the short etag timeout keeps an unreachable hub from stalling a run.
        local = hf_hub_download(repo_id=repo, filename=filename, repo_type="dataset",
                                local_files_only=offline, etag_timeout=10)
    except Exception as e:  # network, auth, missing file: all end up as one line
        if offline:
            raise SpecDecError(
                f"corpus 'hub:{repo}' needs {filename}, which is not cached and HF_HUB_OFFLINE is set; "
                f"go online once or use corpus 'bundled' or a local path"
            ) from None
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise SpecDecError(f"could not download {filename} from dataset {repo!r}: {reason[:200]}") from None
    return Path(local)


def iter_hub(split: str = "train", n: int | None = None, repo: str = HUB_REPO) -> Iterator[str]:
    return iter_path(hub_file(split, repo), split, n)
