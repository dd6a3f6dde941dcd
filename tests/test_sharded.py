"""A target sharded by mx.distributed: two processes over loopback (mlx.launch -n 2 --backend ring).

Each launch runs tests/sharded_worker.py on both ranks; every subprocess has a
timeout, and its whole process group is killed on expiry, so a hang fails the
test instead of stalling the run.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mlx_specdec import load
from mlx_specdec.distributed import choose_sharding, ranks_of
from mlx_specdec.errors import SpecDecError
from tests.sharded_models import FAMILIES, make_pair

ROOT = Path(__file__).resolve().parents[1]
WORKER = ROOT / "tests" / "sharded_worker.py"
LAUNCH_TIMEOUT = 150  # s: two processes importing mlx-lm on a shared 2-core machine


def _launcher() -> list[str]:
    script = Path(sys.executable).parent / "mlx.launch"
    return [str(script)] if script.exists() else [sys.executable, "-m", "mlx._distributed_utils.launch"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(command: list[str], timeout: float = LAUNCH_TIMEOUT, **popen) -> subprocess.CompletedProcess:
    """`mlx.launch -n 2 --backend ring` on localhost; kills its whole process group on timeout."""
    cmd = [*_launcher(), "-n", "2", "--backend", "ring", "--starting-port", str(_free_port()), "--", *command]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
                         start_new_session=True, **popen)
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"mlx.launch did not finish within {timeout} s: {' '.join(command)}")
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    root = tmp_path_factory.mktemp("sharded_models")
    return {name: make_pair(root, name) for name in FAMILIES}


def _run_worker(pairs, name, tmp_path) -> list[dict]:
    target, drafter = pairs[name]
    sharding = FAMILIES[name][1]
    done = launch([sys.executable, str(WORKER), str(target), str(drafter), sharding, str(tmp_path)])
    records = []
    for r in range(2):
        path = tmp_path / f"rank{r}.json"
        assert path.exists(), f"rank {r} wrote nothing:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
        records.append(json.loads(path.read_text()))
    return records


def _check_ranks(records: list[dict], sharding: str) -> None:
    zero, one = records
    assert [r["sharding"] for r in records] == [sharding, sharding] and zero["size"] == 2
    reference = zero["reference"]  # the whole target in one process, plain greedy
    assert len(reference) == 40 and len(set(reference)) > 10  # a chain with structure, not one repeated token
    for rec in records:
        assert rec["plain"] == reference, "sharded plain greedy differs from single-process greedy"
        for draft_on in ("root", "every"):
            assert rec[f"spec_{draft_on}"] == reference, f"sharded speculative greedy ({draft_on}) differs"
    for draft_on in ("root", "every"):
        # Every rank lands on the same committed boundary after every round, and every
        # KV layer of a rank sits at that boundary.
        assert zero[f"offsets_{draft_on}"] == one[f"offsets_{draft_on}"]
        for committed, kv in zero[f"offsets_{draft_on}"]:
            assert kv in ([committed], [])
        steps = [b[0] - a[0] for a, b in zip(zero[f"offsets_{draft_on}"], zero[f"offsets_{draft_on}"][1:])]
        assert max(steps) > 1 and min(steps) < 5, f"no partial acceptance exercised: {steps}"
    assert zero["sampled"] == one["sampled"] and len(zero["sampled"]) == 40
    assert zero["plain_sampled"] == one["plain_sampled"]
    assert zero["sampled_accepted"] > 0


@pytest.mark.slow
def test_tensor_parallel_qwen3_speculative_equals_single_process_greedy(pairs, tmp_path):
    _check_ranks(_run_worker(pairs, "qwen3", tmp_path), "tensor")


@pytest.mark.slow
def test_pipeline_parallel_qwen3_moe_speculative_equals_single_process_greedy(pairs, tmp_path):
    _check_ranks(_run_worker(pairs, "qwen3_moe", tmp_path), "pipeline")


@pytest.mark.slow
def test_hybrid_pipeline_qwen3_next_speculative_equals_single_process_greedy(pairs, tmp_path):
    # gated delta-rule layers on one stage, attention + delta-rule on the other: each
    # rank rolls its own recurrent layers back by replay, with no collective
    _check_ranks(_run_worker(pairs, "qwen3_next", tmp_path), "pipeline")


@pytest.mark.slow
def test_cli_under_mlx_launch_prints_one_record_from_rank_0(pairs):
    target, drafter = pairs["qwen3"]
    done = launch([sys.executable, "-m", "mlx_specdec.generate", "--model", str(target), "--draft-model", str(drafter),
                   "--ignore-chat-template", "--prompt", "Once upon a time", "--max-tokens", "24", "--compare",
                   "--json"])
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, done.stdout + done.stderr
    record = json.loads(lines[0])
    assert record["sharding"] == {"kind": "tensor", "processes": 2, "draft_on": "root"}
    assert record["compare"]["identical"] is True and len(record["ids"]) == 24


def _rank_pids(launcher_pid: int) -> dict[int, int]:
    pids = subprocess.run(["pgrep", "-P", str(launcher_pid)], capture_output=True, text=True).stdout.split()
    out = {}
    for pid in pids:
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        except OSError:
            continue
        for e in env:
            if e.startswith(b"MLX_RANK="):
                out[int(e.split(b"=")[1])] = int(pid)
    return out


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="finds the ranks' processes through /proc")
def test_ctrl_c_on_one_rank_stops_every_rank(pairs):
    target, drafter = pairs["qwen3"]
    cmd = [*_launcher(), "-n", "2", "--backend", "ring", "--starting-port", str(_free_port()), "--",
           sys.executable, "-m", "mlx_specdec.generate", "--model", str(target), "--draft-model", str(drafter),
           "--ignore-chat-template", "--prompt", "Once", "--max-tokens", "3500"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)), start_new_session=True)
    try:
        deadline = time.time() + 90
        ranks = {}
        while time.time() < deadline and len(ranks) < 2:
            time.sleep(1)
            ranks = _rank_pids(p.pid)
        assert len(ranks) == 2, "the two ranks did not start"
        time.sleep(8)  # into generation (imports and loading take a few seconds here)
        os.kill(ranks[1], signal.SIGINT)
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail("a rank hung after Ctrl-C on another")
    for pid in ranks.values():
        assert not Path(f"/proc/{pid}").exists() or b"zombie" in Path(f"/proc/{pid}/status").read_bytes().lower()
    assert "rank 1 exited with code 130" in err
    assert "Traceback" not in err


def test_sharding_in_one_process_is_the_whole_model(pairs):
    model, _ = load(pairs["qwen3"][0], sharding="auto")
    assert ranks_of(model) is None  # the single-process loop: no collective, no extra sync


def test_unsupported_sharding_is_refused_by_name(tiny_store):
    with pytest.raises(SpecDecError, match="StoryLM does not support pipeline sharding"):
        load(tiny_store[0], sharding="pipeline")
    with pytest.raises(SpecDecError, match="supports neither tensor nor pipeline"):
        choose_sharding("auto", (), "lfm2")
    with pytest.raises(SpecDecError, match="sharding must be one of"):
        load(tiny_store[0], sharding="rows")
    assert choose_sharding("auto", ("tensor", "pipeline"), "qwen3_5") == "tensor"
    assert choose_sharding("auto", ("pipeline",), "qwen3_next") == "pipeline"
