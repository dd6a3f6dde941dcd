"""`python -m mlx_specdec.doctor`: what MLX will run on here, and how fast."""

from __future__ import annotations

import json
import platform
import sys

from ..doctor import report
from .common import Parser


def main(argv=None) -> int:
    parser = Parser(prog="python -m mlx_specdec.doctor", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print a JSON record")
    args = parser.parse_args(argv)
    info = report()
    if args.json:
        print(json.dumps(info, indent=2))
        return 0
    slow = platform.system() == "Linux" and info["matmul_gflops_fp32_512"] < 30
    advice = "slow BLAS: install libopenblas0-pthread for ~30x faster CPU matmuls" if slow else None
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table(title="mlx-specdec doctor", show_header=False)
        for name, value in info.items():
            table.add_row(name, str(value))
        console = Console()
        console.print(table)
        if advice:
            console.print(f"[yellow]{advice}[/yellow]")
    else:
        for name, value in info.items():
            print(f"{name}: {value}")
        if advice:
            print(advice)
    return 0
