"""The command lines: thin layers over the library, one module per command.

    python -m mlx_specdec.generate   cli/generate.py   speculative or plain decoding
    python -m mlx_specdec.train      cli/train.py      the StoryLM ladder
    python -m mlx_specdec.mtp train  cli/mtp.py        an MTP head on a frozen base
    python -m mlx_specdec.distill    cli/distill.py    a drafter's corpus written by its target
    python -m mlx_specdec.convert    cli/convert.py    GPT-Neo / state-dict ports into the store
    python -m mlx_specdec.doctor     cli/doctor.py     what this machine gives MLX

Library modules never import this package. A library module run with
`python -m` hands over here before its own imports (`run_module`), so a
Ctrl-C while MLX loads is one line and exit 130 (common.quiet_interrupts).
"""

from __future__ import annotations

import importlib
import sys

from .common import quiet_interrupts


def run_module(name: str) -> None:
    """Run `mlx_specdec.cli.<name>.main()` as the process: never returns."""
    quiet_interrupts()
    main = importlib.import_module(f"{__name__}.{name}").main
    sys.exit(main())
