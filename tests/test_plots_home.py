"""The home/family/school plots: length, filled templates, hero named, determinism."""

import random

import pytest

from mlx_specdec.data import stories
from mlx_specdec.data.plots_home import PLOTS


def _write(plot, seed: str) -> tuple[str, stories.Story]:
    s = stories.Story(random.Random(seed))
    plot(s)
    return s.text(), s


def test_enough_plots_and_no_name_clash():
    assert len(PLOTS) >= 22
    names = {p.__name__ for p in PLOTS}
    assert len(names) == len(PLOTS)
    assert not names & {p.__name__ for p in stories.PLOTS}


@pytest.mark.parametrize("plot", PLOTS, ids=lambda p: p.__name__)
def test_plot_stories_are_well_formed(plot):
    name = plot.__name__
    for i in range(60):
        seed = f"t:{name}:{i}"
        text, s = _write(plot, seed)
        assert "A" in s.ctx, name
        n = stories.count_sentences(text)
        assert 3 <= n <= 16, (name, i, n, text)
        w = len(text.split())
        assert 50 <= w <= 260, (name, i, w, text)
        assert "{" not in text and "}" not in text, (name, i, text)
        assert "  " not in text, (name, i, text)
        assert s.ctx["A"].name in text, (name, i, text)
        assert _write(plot, seed)[0] == text, (name, i)
