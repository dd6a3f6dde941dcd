"""The README's figures and the MTP head card are what the committed results files render (bench.readme)."""

import json
import shutil
from pathlib import Path

import pytest

from bench import readme
from bench.report import block_markers, replace_block

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = ["bench-setup", "bench-table", "bench-figures", "mtp-head", "models-table", "blas-speed", "rollback-table",
          "sharded-table", "drafter-fit"]


def test_readme_blocks_equal_their_rendering():
    text = (ROOT / "README.md").read_text()
    for name in BLOCKS:
        start, end = block_markers(name)
        assert text.count(start) == 1 and text.count(end) == 1, name
    assert readme.render(text) == text, "README.md drifted from its committed sources: run python -m bench.readme"


def test_head_card_equals_its_rendering_from_bench_json():
    card = ROOT / "models" / readme.HEAD / "README.md"
    assert readme.render_head_card() == card.read_text(), "run python -m bench.heads --head models/storylm-5m-mtp --render"
    assert "python -m bench.heads " in card.read_text() and "mlx_specdec.mtp bench" not in card.read_text()


def test_readme_and_head_card_show_the_same_mtp_figures():
    bench = json.loads((ROOT / "models" / readme.HEAD / "bench.json").read_text())
    text, card = (ROOT / "README.md").read_text(), readme.render_head_card()
    for row in bench["rows"]:
        cell = f"| {row['tokens_per_s']:.1f} | {row['speedup']:.2f}x |"
        assert cell in text and cell in card, row["mode"]


def _copy_sources(tmp_path: Path) -> Path:
    """The files the README renders from, in a scratch tree."""
    for rel in ["bench/results", *(f"models/{m}" for m in readme.SHIPPED)]:
        src = ROOT / rel
        for path in src.iterdir():
            if path.suffix in (".json", ".md") or path.name.endswith(".safetensors"):
                (tmp_path / rel).mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, tmp_path / rel / path.name)
    return tmp_path


def test_a_changed_result_changes_the_readme(tmp_path):
    """The blocks are rendered, not checked for presence: editing a committed number moves the README."""
    root = _copy_sources(tmp_path)
    text = (ROOT / "README.md").read_text()
    source = readme.results_file(root)
    result = json.loads(source.read_text())
    plain = next(r for r in result["rows"] if r["name"] == "plain ours greedy")
    plain["tokens_per_s"]["median"] = 12345.6
    source.write_text(json.dumps(result))
    bench_path = root / "models" / readme.HEAD / "bench.json"
    bench = json.loads(bench_path.read_text())
    bench["rows"][-1]["speedup"] = 9.87
    bench_path.write_text(json.dumps(bench))
    rendered = readme.render(text, root)
    assert "12345.6" in rendered and "9.87x" in rendered and rendered != text


def test_replace_block_keeps_the_markers_and_refuses_a_missing_pair():
    start, end = block_markers("x")
    text = f"a\n{start}\nold\n{end}\nb\n"
    assert replace_block(text, "x", "new") == f"a\n{start}\nnew\n{end}\nb\n"
    assert replace_block(text, "x", "") == f"a\n{start}\n{end}\nb\n"
    with pytest.raises(ValueError):
        replace_block("no markers", "x", "new")
