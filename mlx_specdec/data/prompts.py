"""The fixed prompts (benchmark, examples): held-out story openings, versioned in prompts.json.

Most prompts are the first sentences of bundled *valid*-split stories with an
index far past anything the trainer reads (it validates on the first 2,000
valid stories and never trains on that split), so no model has seen them. A
few are hand-written openings in the same register. The file is committed and
versioned: a result file names the prompt-set version it was measured on, and
`python -m mlx_specdec.data.prompts --write` regenerates the file (bump VERSION when the
set changes on purpose).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import SpecDecError

PROMPTS_FILE = Path(__file__).with_name("prompts.json")
VERSION = 1
FIRST_VALID_INDEX = 10_000  # far past the trainer's 2,000 validation stories
STRIDE = 97  # spread the picks over many plot shapes
N_BUNDLED = 6

HAND_WRITTEN = [
    "Sam and his little sister went to the park on a sunny morning.",
    "The old cat sat by the window and watched the rain fall.",
    "Lily found a small red box under her bed.",
    "One day, a brave little duck wanted to swim across the big lake.",
]

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def opening(story: str, max_words: int = 30) -> str:
    """The first sentence of a story, plus the second while it stays short."""
    sentences = _SENTENCE_END.split(story.strip())
    text = sentences[0]
    if len(sentences) > 1 and len((text + " " + sentences[1]).split()) <= max_words:
        text = text + " " + sentences[1]
    return text


def build_prompts() -> dict:
    """The prompt set as written to prompts.json (deterministic)."""
    import random

    from mlx_specdec.data.generator import generate_story
    from mlx_specdec.data.stories import PLOTS as CLASSIC_PLOTS

    prompts = []
    for j in range(N_BUNDLED):
        i = FIRST_VALID_INDEX + j * STRIDE
        # The prompt set was drawn from the generator's first 38 plots, before
        # the corpus grew; regenerating story i from those plots alone keeps it.
        story = generate_story(random.Random(f"0:valid:{i}"), CLASSIC_PLOTS)
        prompts.append({"id": f"valid-{i}", "source": f"bundled valid split, seed 0, story {i}", "text": opening(story)})
    for j, text in enumerate(HAND_WRITTEN):
        prompts.append({"id": f"hand-{j}", "source": "hand-written", "text": text})
    return {
        "version": VERSION,
        "description": "Held-out story openings for the speculative-decoding benchmark",
        "prompts": prompts,
    }


def load_prompts(path: str | Path | None = None, n: int | None = None) -> tuple[int, list[dict]]:
    """(version, prompts) from a prompts file; the first n prompts when n is given."""
    path = Path(path) if path is not None else PROMPTS_FILE
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        raise SpecDecError(f"prompt file {str(path)!r} does not exist") from None
    except json.JSONDecodeError as e:
        raise SpecDecError(f"prompt file {str(path)!r} is not valid JSON ({e})") from None
    prompts = data.get("prompts") if isinstance(data, dict) else None
    if not prompts or not all(isinstance(p, dict) and isinstance(p.get("text"), str) and p["text"] for p in prompts):
        raise SpecDecError(f"prompt file {str(path)!r} must hold {{'prompts': [{{'id', 'text'}}, ...]}} with non-empty texts")
    return int(data.get("version", 0)), prompts[:n] if n is not None else prompts


def prompt_texts(n: int | None = None) -> list[str]:
    """The texts of the first n prompts of the shipped set: what the examples generate from."""
    return [p["text"] for p in load_prompts(n=n)[1]]


def main(argv=None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m mlx_specdec.data.prompts", description="Show or regenerate the benchmark prompts")
    p.add_argument("--write", action="store_true", help=f"regenerate {PROMPTS_FILE.name}")
    args = p.parse_args(argv)
    data = build_prompts()
    if args.write:
        PROMPTS_FILE.write_text(json.dumps(data, indent=2) + "\n")
        print(f"wrote {len(data['prompts'])} prompts (version {data['version']}) to {PROMPTS_FILE}")
    else:
        for prompt in data["prompts"]:
            print(f"{prompt['id']:>12}  {prompt['text']}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
