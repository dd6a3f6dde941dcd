"""The bundled corpus across plot modules: the shape-held-out split and its streams."""

import hashlib
import random

import pytest

from mlx_specdec.data import generator, iter_texts
from mlx_specdec.data.stories import distinct_words
from mlx_specdec.errors import SpecDecError


def test_every_plot_module_contributes_and_names_are_unique():
    names = [fn.__name__ for m in generator.MODULES for fn in m.PLOTS]
    assert len(names) == len(set(names)) == len(generator.SHAPES) >= 150


def test_held_out_shapes_follow_the_name_hash_and_are_disjoint_from_training():
    held = set(generator.HELDOUT_SHAPES)
    assert held == {s for s in generator.SHAPES if hashlib.sha1(s.encode()).digest()[0] % 8 == 0}
    assert held.isdisjoint(generator.TRAIN_SHAPES)
    assert held | set(generator.TRAIN_SHAPES) == set(generator.SHAPES)
    assert 0.06 < len(held) / len(generator.SHAPES) < 0.2


def test_each_split_draws_only_its_own_shapes(monkeypatch):
    used = []
    for name, fn in list(generator.SHAPES.items()):
        def wrapped(s, _fn=fn, _name=name):
            used.append(_name)
            return _fn(s)
        monkeypatch.setitem(generator.SHAPES, name, wrapped)
    for split, allowed in (("train", generator.TRAIN_SHAPES), ("shapes", generator.HELDOUT_SHAPES)):
        used.clear()
        list(generator.iter_stories(split, 400))
        assert set(used) <= set(allowed)
        assert len(set(used)) >= 0.8 * len(allowed)  # and it does use (nearly) all of them


def test_splits_are_disjoint_regenerable_streams():
    shapes = list(generator.iter_stories("shapes", 50, seed=3))
    assert shapes == list(iter_texts("bundled", "shapes", 50, seed=3))
    plots = [generator.SHAPES[s] for s in generator.HELDOUT_SHAPES]
    assert generator.generate_story(random.Random("3:shapes:17"), plots) == shapes[17]
    assert set(shapes).isdisjoint(generator.iter_stories("train", 2000, seed=3))


def test_the_corpus_is_far_broader_than_the_first_38_plots():
    train = list(generator.iter_stories("train", 5000))
    assert len(distinct_words(train)) >= 3000


def test_unknown_split_and_shapes_of_a_file_corpus_are_refused(tmp_path):
    with pytest.raises(SpecDecError, match="split must be one of train, valid, shapes"):
        next(generator.iter_stories("test", 1))
    f = tmp_path / "s.txt"
    f.write_text("A story.\n<|endoftext|>\n")
    with pytest.raises(SpecDecError, match="only the bundled corpus has a 'shapes' split"):
        iter_texts(str(f), "shapes")
