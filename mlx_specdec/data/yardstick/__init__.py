"""The human-written yardstick: short stories written by hand, for held-out loss only.

Never train on these stories, and never tune against them except to choose when
to stop training. See README.md beside this file.
"""

from __future__ import annotations

from importlib import resources

__all__ = ["parse_stories", "yardstick_stories"]

SEPARATOR = "---"


def yardstick_stories() -> list[str]:
    """The yardstick stories, in file order, each stripped of surrounding whitespace."""
    return parse_stories(resources.files(__name__).joinpath("stories.txt").read_text(encoding="utf-8"))


def parse_stories(text: str) -> list[str]:
    """Stories separated by lines holding only `---`, stripped, empty ones dropped."""
    stories: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip() == SEPARATOR:
            stories.append("\n".join(current).strip())
            current = []
        else:
            current.append(line)
    stories.append("\n".join(current).strip())
    return [s for s in stories if s]
