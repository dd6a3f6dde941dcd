"""llama.cpp as a peer: plain greedy and its prompt-lookup decoding on the same token ids, timed.

    /tmp/llamacpp/venv/bin/python bench/llama_cpp_peer.py --gguf FILE.gguf --max-tokens 96 \\
        --stop-ids 0,2 --repeats 2 < prompts.json      # a JSON list of prompts, each a list of token ids

Runs under an interpreter that has llama-cpp-python (`llama_cpp`); it imports
nothing of mlx_specdec (bench.real starts it and reduces what it prints). The
prompts arrive as token ids, not text, so llama.cpp and MLX see one prompt.
Two engines load the file, one plain and one with
`LlamaPromptLookupDecoding(num_pred_tokens=N)`; both decode greedily
(temperature 0, top-k 1), stop at a stop id (kept in the output, as ours does)
or at --max-tokens. After a warm-up generation each, every pass runs plain
then lookup (the order alternating per prompt) on each prompt, so a lookup run
and the plain run it is paired with are seconds apart. Every generation starts
from an empty KV cache (no prefix reuse across runs) and is one
`time.perf_counter` region. Prints JSON on stdout: per system, per pass, per
prompt, the ids, seconds, evaluation calls (target passes: the prompt's
counts as one) and drafted tokens.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

SYSTEMS = ("plain", "lookup")


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="llama_cpp_peer.py", description=__doc__.splitlines()[0])
    p.add_argument("--gguf", required=True, help="the GGUF file")
    p.add_argument("--prompts", default="-", help="JSON file of prompts, each a list of token ids (default: stdin)")
    p.add_argument("--max-tokens", type=int, default=96)
    p.add_argument("--stop-ids", default="", help="comma-separated token ids that end a generation")
    p.add_argument("--repeats", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--num-pred-tokens", type=int, default=10, help="LlamaPromptLookupDecoding's num_pred_tokens")
    p.add_argument("--n-ctx", type=int, default=2048)
    args = p.parse_args(argv)
    if args.max_tokens < 1 or args.repeats < 1 or args.threads < 1 or args.num_pred_tokens < 1:
        p.error("--max-tokens, --repeats, --threads and --num-pred-tokens must be >= 1")
    try:
        args.stop_ids = [int(x) for x in args.stop_ids.split(",") if x.strip()]
    except ValueError:
        p.error(f"--stop-ids must be comma-separated integers, got {args.stop_ids!r}")
    return args


def read_prompts(text: str) -> list[list[int]]:
    """A JSON list of non-empty lists of non-negative token ids."""
    prompts = json.loads(text)
    if not (isinstance(prompts, list) and prompts and all(
            isinstance(p, list) and p and all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in p)
            for p in prompts)):
        raise ValueError("prompts must be a non-empty JSON list of non-empty lists of token ids")
    return prompts


class Engine:
    """One Llama, counting its evaluation calls and the tokens its draft model proposed."""

    def __init__(self, path: str, args, lookup: bool):
        from llama_cpp import Llama
        from llama_cpp.llama_speculative import LlamaPromptLookupDecoding

        engine = self
        self.drafted = 0

        class Counted(LlamaPromptLookupDecoding):
            def __call__(self, input_ids, **kw):
                out = super().__call__(input_ids, **kw)
                engine.drafted += len(out)
                return out

        draft = Counted(num_pred_tokens=args.num_pred_tokens) if lookup else None
        self.llm = Llama(model_path=path, n_ctx=args.n_ctx, n_threads=args.threads, n_threads_batch=args.threads,
                         seed=0, verbose=False, draft_model=draft)
        self.evals = 0
        original = self.llm.eval

        def counted(tokens):
            self.evals += 1
            return original(tokens)

        self.llm.eval = counted

    def run(self, prompt: list[int], max_tokens: int, stop: set[int]) -> dict:
        self.llm.reset()  # no prefix reuse: every generation prefills its whole prompt, as ours does
        self.evals = self.drafted = 0
        ids = []
        start = time.perf_counter()
        gen = self.llm.generate(prompt, top_k=1, top_p=1.0, min_p=0.0, temp=0.0, repeat_penalty=1.0, reset=True)
        for token in gen:
            ids.append(int(token))
            if token in stop or len(ids) >= max_tokens:
                break
        gen.close()
        seconds = time.perf_counter() - start
        return {"ids": ids, "seconds": seconds, "target_passes": self.evals, "drafted": self.drafted}


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        prompts = read_prompts(sys.stdin.read() if args.prompts == "-" else open(args.prompts).read())
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    import llama_cpp

    engines = {"plain": Engine(args.gguf, args, lookup=False), "lookup": Engine(args.gguf, args, lookup=True)}
    stop = set(args.stop_ids)
    for engine in engines.values():  # warm-up, untimed
        engine.run(prompts[0], min(16, args.max_tokens), stop)
    runs = {name: [[] for _ in range(args.repeats)] for name in SYSTEMS}
    for rep in range(args.repeats):
        for i, prompt in enumerate(prompts):
            order = SYSTEMS if (rep * len(prompts) + i) % 2 == 0 else SYSTEMS[::-1]
            for name in order:
                runs[name][rep].append(engines[name].run(prompt, args.max_tokens, stop))
    print(json.dumps({"llama_cpp": llama_cpp.__version__, "gguf": args.gguf, "n_threads": args.threads,
                      "num_pred_tokens": args.num_pred_tokens, "max_tokens": args.max_tokens,
                      "stop_ids": args.stop_ids, "repeats": args.repeats, "runs": runs}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
