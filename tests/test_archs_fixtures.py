"""Sanity checks for the tiny mlx-lm architecture fixtures in tests/archs.py."""

import glob
import importlib
import os
import re

import pytest

import archs

pytestmark = pytest.mark.eager  # mlx-lm's architectures, run with mx.compile off (tests/conftest.py)

NAMES = list(archs.ARCHS)
N_NEW = archs.WINDOW + 40  # 40 tokens past every window (and past the 12-token prompt)


def _module_of(cfg: dict) -> str:
    from mlx_lm.utils import _get_classes

    model_cls, _ = _get_classes(dict(cfg))
    return model_cls.__module__.rsplit(".", 1)[-1]


def test_registry_is_consistent():
    assert set(archs.EXPECTED_KINDS) == set(archs.ARCHS)
    assert set(archs.DRAFT_NOISE) == set(archs.ARCHS)
    assert not set(archs.UNSUPPORTED) & set(archs.ARCHS)
    assert archs.WINDOW == 8
    for name, cfg in archs.ARCHS.items():
        assert "model_type" in cfg, name


def test_every_non_plain_cache_module_is_covered():
    """Every mlx_lm.models module that defines (or inherits) make_cache is either
    built by some ARCHS entry or listed in UNSUPPORTED."""
    import mlx_lm.models as pkg

    covered = {_module_of(cfg) for cfg in archs.ARCHS.values()} | set(archs.UNSUPPORTED)
    missing = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(pkg.__file__), "*.py"))):
        mod_name = os.path.basename(path)[:-3]
        src = open(path).read()
        # Candidates: defines make_cache, or its Model subclasses another model's
        # (importing every module is not safe: olmo.py exits without ai2-olmo).
        if "def make_cache" not in src and not re.search(r"^class Model\((?!nn\.Module\))", src, re.M):
            continue
        mod = importlib.import_module(f"mlx_lm.models.{mod_name}")
        if not hasattr(getattr(mod, "Model", None), "make_cache"):
            continue
        if mod_name not in covered:
            missing.append(mod_name)
    assert not missing, f"modules with make_cache but no fixture: {missing}"


@pytest.mark.parametrize("name", NAMES)
def test_arch_builds_and_generates_past_the_window(name):
    model = archs.build(name)
    assert archs.cache_kinds(model) == archs.EXPECTED_KINDS[name]
    toks = archs.oracle_greedy(model, archs.PROMPT, N_NEW)
    assert len(toks) == N_NEW
    vocab = archs.ARCHS[name].get("vocab_size") or archs.VOCAB
    assert all(0 <= t < vocab for t in toks)
    assert len(set(toks)) >= 8, f"degenerate greedy continuation: {toks}"


@pytest.mark.parametrize("name", ["gemma3_text", "qwen3_next", "falcon_h1"])
def test_drafter_mostly_agrees(name):
    target = archs.build(name)
    drafter = archs.drafter_of(target)
    assert type(drafter) is type(target)
    assert 0.5 <= archs.agreement(target, drafter) < 1.0


def test_build_is_deterministic():
    a = archs.oracle_greedy(archs.build("mamba2", seed=3), archs.PROMPT, 16)
    b = archs.oracle_greedy(archs.build("mamba2", seed=3), archs.PROMPT, 16)
    c = archs.oracle_greedy(archs.build("mamba2", seed=4), archs.PROMPT, 16)
    assert a == b and a != c


def test_caller_map_sees_shared_and_nested_caches():
    cm = archs.caller_map(archs.build("gemma3n"))  # KV-shared layers reuse cache objects
    assert cm["0"][0].endswith("layers.0") and any(r.endswith("layers.2") for r in cm["0"])
    cm = archs.caller_map(archs.build("falcon_h1"))  # CacheList children go to sub-modules
    assert cm["0"] == ["model.layers.0"]
    assert cm["0.0"][0] == "model.layers.0.mamba" and cm["0.1"] == ["model.layers.0.self_attn"]
