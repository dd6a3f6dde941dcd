"""Each example runs in quick mode on the shipped models (skipped when they are absent)."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT, SHIPPED, shipped

EXAMPLES = ROOT / "examples"
pytestmark = pytest.mark.slow


def run_example(name: str, *args: str, timeout: int = 300) -> str:
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES / name), "--quick", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=timeout,
    )
    assert proc.returncode == 0, f"{name} exited {proc.returncode}:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    return proc.stdout


@pytest.fixture
def ladder():
    shipped("storylm-1m")
    shipped("storylm-5m")


@pytest.fixture
def mtp_head(ladder):
    if not (SHIPPED / "storylm-5m-mtp" / "head.safetensors").is_file():
        pytest.skip("the shipped MTP head models/storylm-5m-mtp is not there")


def test_lossless_ladder_prints_identical_outputs(ladder):
    out = run_example("lossless_ladder.py")
    assert out.count("identical to plain greedy: yes") == 2 and "NO" not in out
    assert "LOSSLESS" in out


def test_train_mtp_head_trains_five_steps_and_reports_each_validation(ladder):
    out = run_example("train_mtp_head.py")
    steps = [row[0] for row in map(str.split, out.splitlines()[1:]) if len(row) == 4 and row[0].isdigit()]
    assert steps == ["5"]  # --quick validates once, at its last step
    assert "5 steps" in out


def test_self_speculation_is_lossless_by_hand_and_in_the_engine(mtp_head):
    out = run_example("self_speculation.py")
    assert out.count("identical to plain greedy: yes") == 4 and "NO" not in out  # the loop, then k = 1, 2, 3
