"""Each example runs in quick mode on the shipped models (skipped when they are absent)."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT, SHIPPED, shipped

EXAMPLES = ROOT / "examples"


def run_example(name: str, *args: str, timeout: int = 120) -> str:
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
    try:
        import mlx_specdec.mtp  # noqa: F401
    except ImportError:
        pytest.skip("mlx_specdec.mtp is not available")


def test_lossless_ladder_prints_identical_outputs(ladder):
    out = run_example("lossless_ladder.py")
    assert "LOSSLESS" in out
    assert out.count("identical to plain greedy: yes") == 2 and "NO" not in out


def test_acceptance_curve_sweeps_k_for_each_drafter(ladder, tmp_path):
    out = run_example("acceptance_curve.py", "--plot", str(tmp_path / "curve.png"))
    lines = [line.split() for line in out.splitlines() if line.startswith("storylm-1m ")]
    assert [row[1] for row in lines] == ["1", "4"]
    assert all(float(row[2]) >= 1.0 for row in lines)  # tokens per pass never below one


def test_wall_clock_reports_speed_next_to_tokens_per_pass(ladder):
    out = run_example("wall_clock.py")
    assert "tokens/s" in out and "tokens/pass" in out
    assert "best: k=4:" in out


def test_train_mtp_head_runs_a_few_steps(ladder):
    try:
        import mlx_specdec.mtp  # noqa: F401
    except ImportError:
        pytest.skip("mlx_specdec.mtp is not available")
    out = run_example("train_mtp_head.py")
    assert "5 steps" in out and "head loss x_t+2" in out


def test_self_speculation_five_line_loop_is_lossless(mtp_head):
    out = run_example("self_speculation.py")
    assert "identical to plain greedy: yes" in out
    assert "MTP head" in out and "storylm-1m" in out


def test_cost_model_prints_predictions_and_break_even(ladder):
    out = run_example("cost_model.py")
    assert "c = " in out and "v_4 = " in out
    assert out.count("break-even acceptance at k=4") == 2
