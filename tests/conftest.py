import mlx_specdec  # noqa: F401  (must come before mlx.core: binds OpenBLAS on Linux)

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import mlx.core as mx
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "models"

# k="auto"'s calibration file: the suite (and the commands it runs) never reads or writes the user's own.
# A test of the file itself points MLX_SPECDEC_CALIBRATION at its own path.
_CALIBRATION_DIR = tempfile.mkdtemp(prefix="specdec-calibration-")
atexit.register(shutil.rmtree, _CALIBRATION_DIR, True)
os.environ["MLX_SPECDEC_CALIBRATION"] = os.path.join(_CALIBRATION_DIR, "calibration.json")


@pytest.fixture(scope="module", autouse=True)
def _eager_module(request):
    """A module marked `eager` runs with `mx.compile` off: the mlx-lm architecture sweeps, whose compiled
    functions are mlx-lm's own. On a machine whose MLX kernel cache is empty (a fresh CI box) compiling their
    ~300 fused CPU kernels with the system compiler cost more than the tests themselves (test_archs_fixtures
    44 s against 7 s eager, test_native_mtp 61 s against 24, test_cache_families 138 s against 90; 2-core AMD
    EPYC). Our own compiled functions (the verdict, the sampler, the compiled state step, the MTP head's step,
    the training step) run compiled in every other module, and test_cache_families keeps a compiled spot check."""
    if request.node.get_closest_marker("eager") is None:
        yield
        return
    mx.disable_compile()
    try:
        yield
    finally:
        mx.enable_compile()


@pytest.fixture(scope="session")
def tiny_tokenizer(tmp_path_factory):
    """A small sentencepiece tokenizer trained on bundled stories (seconds)."""
    from mlx_specdec.data import iter_texts
    from mlx_specdec.models.tokenizer import StoryTokenizer

    path = tmp_path_factory.mktemp("tok") / "tokenizer.model"
    return StoryTokenizer.train(iter_texts("bundled", "train", n=400, seed=5), path, vocab_size=320)


@pytest.fixture(scope="session")
def tiny_store(tmp_path_factory, tiny_tokenizer):
    """Two random tiny StoryLMs saved as real model-store folders sharing one tokenizer."""
    from mlx_specdec.models.store import save_model
    from mlx_specdec.models.storylm import build, preset

    root = tmp_path_factory.mktemp("store")
    cfg = preset("storylm-tiny", vocab_size=tiny_tokenizer.vocab_size)
    target = save_model(build(cfg, seed=1), tiny_tokenizer, root / "target")
    drafter = save_model(build(cfg, seed=2), tiny_tokenizer, root / "drafter")
    return target, drafter


def shipped(name: str) -> Path:
    path = SHIPPED / name
    if not any((path / f).is_file() for f in ("model.safetensors", "head.safetensors")):
        pytest.skip(f"shipped model {name} is not in models/")
    return path
