import sys

from mlx_specdec.cli.common import quiet_interrupts

quiet_interrupts()  # Ctrl-C while MLX loads: one line and exit 130, not a traceback

from .cli import main  # noqa: E402

sys.exit(main())
