"""The nature/animal/fable plots: length, filled templates, hero named, determinism."""

import random

import pytest

from mlx_specdec.data import plots_nature
from mlx_specdec.data.stories import Story, count_sentences

SEEDS = 60


def _write(plot, seed: str):
    s = Story(random.Random(seed))
    plot(s)
    return s, s.text()


def test_enough_plots():
    assert len(plots_nature.PLOTS) >= 22
    assert len({p.__name__ for p in plots_nature.PLOTS}) == len(plots_nature.PLOTS)


@pytest.mark.parametrize("plot", plots_nature.PLOTS, ids=lambda p: p.__name__)
def test_plot_shape(plot):
    name = plot.__name__
    for i in range(SEEDS):
        seed = f"t:{name}:{i}"
        s, text = _write(plot, seed)
        assert "A" in s.ctx, name
        n_sent, n_words = count_sentences(text), len(text.split())
        assert 3 <= n_sent <= 16, (seed, n_sent, text)
        assert 50 <= n_words <= 260, (seed, n_words, text)
        assert "{" not in text and "}" not in text, (seed, text)
        assert "  " not in text, (seed, text)
        assert s.ctx["A"].name.lower() in text.lower(), (seed, text)
        assert _write(plot, seed)[1] == text, seed
