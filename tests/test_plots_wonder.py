"""The imagination/fantasy/humour plots: length, filled templates, hero named, determinism."""

import random

import pytest

from mlx_specdec.data import plots_home, plots_nature, stories
from mlx_specdec.data.plots_wonder import PLOTS


def _write(plot, seed: str) -> tuple[str, stories.Story]:
    s = stories.Story(random.Random(seed))
    plot(s)
    return s.text(), s


def test_enough_plots_and_no_name_clash():
    assert len(PLOTS) >= 28
    names = {p.__name__ for p in PLOTS}
    assert len(names) == len(PLOTS)
    others = {p.__name__ for p in stories.PLOTS + plots_home.PLOTS + plots_nature.PLOTS}
    assert not names & others


@pytest.mark.parametrize("plot", PLOTS, ids=lambda p: p.__name__)
def test_plot_stories_are_well_formed(plot):
    name = plot.__name__
    for i in range(60):
        seed = f"t:{name}:{i}"
        text, s = _write(plot, seed)
        assert "A" in s.ctx, name
        n = stories.count_sentences(text)
        assert 3 <= n <= 15, (name, i, n, text)
        w = len(text.split())
        assert 50 <= w <= 260, (name, i, w, text)
        assert "{" not in text and "}" not in text, (name, i, text)
        assert "  " not in text, (name, i, text)
        assert "Mr." not in text and "Mrs." not in text, (name, i, text)
        assert s.ctx["A"].name in text, (name, i, text)
        assert _write(plot, seed)[0] == text, (name, i)


def test_new_word_types():
    old = stories.distinct_words(_classic(3000))
    new = set()
    for plot in PLOTS:
        for i in range(100):
            new |= stories.distinct_words([_write(plot, f"w:{plot.__name__}:{i}")[0]])
    assert len(new - old) >= 300


def _classic(n):
    """n stories of the generator's first 38 plots, as the training stream drew them before the corpus grew."""
    import random

    from mlx_specdec.data.generator import generate_story

    return [generate_story(random.Random(f"0:train:{i}"), stories.PLOTS) for i in range(n)]
