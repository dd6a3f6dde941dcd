"""StoryTokenizer: a small sentencepiece model shared by every StoryLM.

Speculative decoding only works when drafter and target give token ids the
same meaning, so a tokenizer is identified by the sha256 of its .model file
(its fingerprint) and pairs with different fingerprints are refused.

Choices, and why:
- BPE rather than unigram: encoding is a fixed sequence of merges, the same
  algorithm as the Llama-family sentencepiece models people load with mlx-lm,
  and on our regular corpus it trains in seconds.
- byte_fallback with identity normalisation and no whitespace folding: any
  text, including emoji, tabs, newlines and runs of spaces, decodes back to
  exactly the string that was encoded.
- fixed special ids pad=0, unk=1, bos=2, eos=3, so model code can rely on them.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tempfile
from pathlib import Path
from typing import Iterable

from ..errors import IncompatibleModelsError, ModelLoadError, SpecDecError

PAD_ID, UNK_ID, BOS_ID, EOS_ID = 0, 1, 2, 3

# Stories are fed to the trainer one per "sentence"; TinyStories has a few long ones.
_MAX_TEXT_BYTES = 16384


class StoryTokenizer:
    """A sentencepiece model file plus the ids and fingerprint the project relies on."""

    def __init__(self, path: str | Path):
        import sentencepiece as spm

        self.path = Path(path)
        if not self.path.is_file():
            raise ModelLoadError(f"tokenizer file {str(self.path)!r} does not exist; expected a sentencepiece .model file")
        data = self.path.read_bytes()
        sp = spm.SentencePieceProcessor()
        try:
            sp.LoadFromSerializedProto(data)
        except Exception:  # sentencepiece raises RuntimeError/OSError with multi-line text
            raise ModelLoadError(
                f"tokenizer file {str(self.path)!r} is not a valid sentencepiece model ({len(data)} bytes)"
            ) from None
        if sp.get_piece_size() == 0:
            raise ModelLoadError(f"tokenizer file {str(self.path)!r} holds an empty vocabulary")
        self.sp = sp
        self.fingerprint = hashlib.sha256(data).hexdigest()[:16]
        self.vocab_size = sp.get_piece_size()
        self.pad_id, self.unk_id = sp.pad_id(), sp.unk_id()
        self.bos_id, self.eos_id = sp.bos_id(), sp.eos_id()
        self._skip = {i for i in (self.pad_id, self.bos_id, self.eos_id) if i >= 0}

    # -- mlx-lm compatibility: its generators read these names -------------
    @property
    def bos_token_id(self) -> int:
        return self.bos_id

    @property
    def eos_token_id(self) -> int:
        return self.eos_id

    @property
    def eos_token_ids(self) -> set[int]:
        return {self.eos_id}

    def __len__(self) -> int:
        return self.vocab_size

    def __repr__(self) -> str:
        return f"StoryTokenizer({str(self.path)!r}, vocab_size={self.vocab_size}, fingerprint={self.fingerprint})"

    # -- encode / decode ------------------------------------------------------
    def encode(self, text: str, bos: bool = True, eos: bool = False) -> list[int]:
        if not isinstance(text, str):
            raise SpecDecError(f"encode expects a str, got {type(text).__name__}")
        ids = self.sp.encode(text)
        if bos:
            ids = [self.bos_id] + ids
        if eos:
            ids = ids + [self.eos_id]
        return ids

    def decode(self, ids) -> str:
        """Text of `ids` (a list of ints or an mx.array); bos/eos/pad are skipped."""
        if hasattr(ids, "tolist"):
            ids = ids.tolist()
        if isinstance(ids, int):
            ids = [ids]
        n = self.vocab_size
        out = []
        for i in ids:
            i = int(i)
            if i in self._skip:
                continue
            if not 0 <= i < n:
                raise SpecDecError(f"token id {i} is outside the vocabulary [0, {n})")
            out.append(i)
        return self.sp.decode(out)

    def id_to_piece(self, i: int) -> str:
        return self.sp.id_to_piece(int(i))

    # -- training -------------------------------------------------------------
    @classmethod
    def train(
        cls,
        texts: Iterable[str],
        out_path: str | Path,
        vocab_size: int = 4096,
        max_texts: int | None = None,
    ) -> "StoryTokenizer":
        """Train a BPE model on `texts` and write it to `out_path` (atomically)."""
        import sentencepiece as spm

        if not isinstance(vocab_size, int) or vocab_size < 300:
            # 256 byte pieces + 4 specials + the alphabet must fit
            raise SpecDecError(f"vocab_size must be an integer >= 300 (byte fallback needs 260 ids), got {vocab_size!r}")
        if max_texts is not None and max_texts < 1:
            raise SpecDecError(f"max_texts must be a positive integer or None, got {max_texts!r}")
        out_path = Path(out_path)

        count = 0

        def sentences():
            # counts what the trainer saw and never pulls a text past max_texts
            nonlocal count
            it = iter(texts)
            while max_texts is None or count < max_texts:
                t = next(it, None)
                if t is None:
                    return
                if not isinstance(t, str):
                    raise SpecDecError(f"tokenizer training texts must be str, got {type(t).__name__}")
                if t:
                    count += 1
                    yield t

        model = io.BytesIO()
        try:
            spm.SentencePieceTrainer.train(
                sentence_iterator=sentences(),
                model_writer=model,
                model_type="bpe",
                vocab_size=vocab_size,
                pad_id=PAD_ID, unk_id=UNK_ID, bos_id=BOS_ID, eos_id=EOS_ID,
                byte_fallback=True,
                character_coverage=0.9995,
                normalization_rule_name="identity",
                remove_extra_whitespaces=False,
                split_digits=True,
                max_sentence_length=_MAX_TEXT_BYTES,
                num_threads=max(1, min(4, os.cpu_count() or 1)),
                minloglevel=2,
            )
        except RuntimeError as e:
            msg = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            if count == 0:
                raise SpecDecError("cannot train a tokenizer: no texts were given") from None
            need = re.search(r"required_chars\. (\d+) vs (\d+)", msg)
            if need:
                raise SpecDecError(
                    f"vocab_size {vocab_size} is too small for these texts: byte fallback, the special "
                    f"pieces and their characters need at least {need.group(2)}"
                ) from None
            raise SpecDecError(
                f"sentencepiece could not train a {vocab_size}-piece tokenizer on {count} texts: {msg}"
            ) from None
        if count == 0:
            raise SpecDecError("cannot train a tokenizer: no texts were given")

        out_path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=out_path.parent, prefix=out_path.name, suffix=".tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(model.getvalue())
        os.replace(tmp, out_path)
        return cls(out_path)


def check_same_tokenizer(target_fp: str, draft_fp: str, target_name: str, draft_name: str) -> None:
    """Refuse a drafter whose token ids mean something else than the target's."""
    if target_fp != draft_fp:
        raise IncompatibleModelsError(
            f"drafter {draft_name!r} (tokenizer {draft_fp}) and target {target_name!r} "
            f"(tokenizer {target_fp}) use different tokenizers; a drafter must share the "
            f"target's tokenizer (same tokenizer.model fingerprint)"
        )


def load_folder_tokenizer(folder: Path, config: dict, name: str = "tokenizer.model") -> StoryTokenizer:
    """The tokenizer of a store folder, refused in one line when it is junk or not the one config.json names."""
    path = Path(folder) / name
    try:
        tok = StoryTokenizer(str(path))
    except ModelLoadError:
        raise
    except Exception as e:  # sentencepiece raises RuntimeError/OSError on junk
        raise ModelLoadError(f"{path} is not a valid tokenizer ({type(e).__name__})") from None
    want = config.get("tokenizer_fingerprint")
    if want != tok.fingerprint:
        raise ModelLoadError(f"tokenizer fingerprint mismatch in {str(folder)!r}: config.json says {want!r}, "
                             f"{name} is {tok.fingerprint!r}")
    return tok
