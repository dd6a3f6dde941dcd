#!/usr/bin/env bash
# `pip install .` into a fresh venv, then run the installed `mlx-specdec` command
# away from the checkout (no shipped models there): on a tiny random mlx-lm model
# with a chat-template tokenizer, the default models' message, and bench's.
#   scripts/check_install.sh [venv-dir]        (make install-check; needs PyPI)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VENV=${1:-$(mktemp -d)/venv}
WORK=$(mktemp -d)
PYTHON=${PYTHON:-python3}

if [ -x "$VENV/bin/python" ]; then  # a venv given again: this checkout's package replaces the last one
  "$VENV/bin/pip" install -q "$ROOT" && "$VENV/bin/pip" install -q --force-reinstall --no-deps "$ROOT"
else
  "$PYTHON" -m venv "$VENV" && "$VENV/bin/pip" install -q "$ROOT"
fi
cd "$WORK"

# The model folder is built with the checkout's test helper (it imports no mlx_specdec).
"$VENV/bin/python" - "$ROOT" "$WORK/model" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from tests.hf_chat import make_model_folder
make_model_folder(Path(sys.argv[2]), seed=1)
PY

fail() { echo "install check FAILED: $*" >&2; exit 1; }

out=$("$VENV/bin/mlx-specdec" generate --model "$WORK/model" --draft-model "$WORK/model" --prompt "Hello there" \
      --max-tokens 8 --json) || fail "mlx-specdec generate exited $?"
echo "$out" | "$VENV/bin/python" -c 'import json,sys; r=json.load(sys.stdin); assert len(r["ids"]) == 8 and r["chat_template"], r' \
  || fail "unexpected record: $out"
"$VENV/bin/python" -m mlx_specdec.generate --model "$WORK/model" --no-draft --max-tokens 4 --verbose F >/dev/null \
  || fail "python -m mlx_specdec.generate"

set +e
err=$("$VENV/bin/mlx-specdec" generate --max-tokens 4 2>&1 >/dev/null); code=$?
set -e
[ "$code" = 2 ] && [[ "$err" == *"pass --model <folder>"* ]] || fail "default models message ($code): $err"
set +e
err=$("$VENV/bin/mlx-specdec" bench 2>&1 >/dev/null); code=$?
set -e
[ "$code" = 2 ] && [[ "$err" == *"not installed"* ]] || fail "bench message ($code): $err"
"$VENV/bin/mlx-specdec" doctor >/dev/null || fail "mlx-specdec doctor"
echo "install check passed: $VENV"
