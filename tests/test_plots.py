"""Every plot of the generator's added plot modules: length, filled templates, hero named, determinism;
and no plot name is defined twice across the modules (the classic plots have their own tests in
test_generator.py)."""

import random

import pytest

from mlx_specdec.data import generator, plots_home, plots_nature, plots_town, plots_wonder, stories

# module -> (at least this many plots, at most this many sentences, words a story must not use)
RULES = {
    plots_nature: (22, 16, ()),
    plots_home: (22, 16, ()),
    plots_town: (28, 15, ()),
    plots_wonder: (28, 15, ("Mr.", "Mrs.")),
}
SEEDS = 60
CASES = [pytest.param(m, plot, id=plot.__name__) for m in RULES for plot in m.PLOTS]


def _write(plot, seed: str) -> tuple[str, stories.Story]:
    s = stories.Story(random.Random(seed))
    plot(s)
    return s.text(), s


def test_every_module_is_in_the_generator_and_no_plot_name_is_defined_twice():
    assert set(RULES) | {stories} == set(generator.MODULES)
    names = [p.__name__ for m in generator.MODULES for p in m.PLOTS]
    assert len(set(names)) == len(names)
    for module, (at_least, _, _) in RULES.items():
        assert len(module.PLOTS) >= at_least, module.__name__


@pytest.mark.parametrize("module, plot", CASES)
def test_plot_stories_are_well_formed(module, plot):
    _, max_sentences, banned = RULES[module]
    name = plot.__name__
    for i in range(SEEDS):
        seed = f"t:{name}:{i}"
        text, s = _write(plot, seed)
        assert "A" in s.ctx, name
        n = stories.count_sentences(text)
        assert 3 <= n <= max_sentences, (name, i, n, text)
        w = len(text.split())
        assert 50 <= w <= 260, (name, i, w, text)
        assert "{" not in text and "}" not in text, (name, i, text)
        assert "  " not in text, (name, i, text)
        assert not [b for b in banned if b in text], (name, i, text)
        assert s.ctx["A"].name in text, (name, i, text)
        assert _write(plot, seed)[0] == text, (name, i)


def test_the_wonder_plots_bring_new_words():
    old = stories.distinct_words(_classic(3000))
    new = set()
    for plot in plots_wonder.PLOTS:
        for i in range(100):
            new |= stories.distinct_words([_write(plot, f"w:{plot.__name__}:{i}")[0]])
    assert len(new - old) >= 300


def _classic(n):
    """n stories of the generator's first 38 plots, as the training stream drew them before the corpus grew."""
    return [generator.generate_story(random.Random(f"0:train:{i}"), stories.PLOTS) for i in range(n)]
