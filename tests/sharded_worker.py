"""One rank of the sharded tests: run under ``mlx.launch -n 2 --backend ring``.

    python tests/sharded_worker.py TARGET DRAFTER SHARDING OUT_DIR

Each rank writes OUT_DIR/rank{r}.json: the single-process reference (the whole
target, plain greedy), sharded plain greedy, sharded speculative greedy with the
drafter on rank 0 and on every rank, the committed cache offsets after every round,
and sharded speculative sampling with a fixed seed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import mlx_specdec  # noqa: E402,F401  (binds OpenBLAS before mlx.core)
import mlx.core as mx  # noqa: E402

from mlx_specdec import greedy_generate, load, speculative_generate  # noqa: E402
from mlx_specdec.distributed import ranks_of  # noqa: E402
from mlx_specdec.generate import plain_stream, speculative_stream  # noqa: E402

PROMPT = [5, 17, 3, 99, 42, 7, 250, 11]
N = 40


def offsets(seq) -> list:
    """What each committed layer says its length is: KV offsets, and the sequence's own count."""
    kv = sorted({int(c.offset) for c in seq.cache if hasattr(c, "offset")})
    return [seq.committed, kv]


def main() -> None:
    target_path, drafter_path, sharding, out = sys.argv[1:5]
    group = mx.distributed.init()
    whole, _ = load(target_path)  # single-process semantics: no group on this model
    reference = greedy_generate(whole, PROMPT, N)
    del whole
    target, _ = load(target_path, sharding=sharding)
    ranks = ranks_of(target)
    assert ranks is not None and ranks.size == group.size(), "the target is not sharded"
    drafter, _ = load(drafter_path)

    record = {"rank": group.rank(), "size": group.size(), "sharding": ranks.sharding, "reference": reference}
    record["plain"] = greedy_generate(target, PROMPT, N)
    for draft_on in ("root", "every"):
        rounds = []
        ids = []
        for e in speculative_stream(target, drafter, PROMPT, N, k=4, draft_on=draft_on,
                                    on_commit=lambda seq, d: rounds.append(offsets(seq))):
            ids += e.ids
        record[f"spec_{draft_on}"] = ids
        record[f"offsets_{draft_on}"] = rounds
    record["sampled"], stats = speculative_generate(target, drafter, PROMPT, N, k=3, temperature=1.0, seed=7)
    record["sampled_accepted"] = stats.accepted
    record["plain_sampled"] = list(plain_stream(target, PROMPT, N, temperature=1.0, seed=7))
    Path(out, f"rank{group.rank()}.json").write_text(json.dumps(record))


if __name__ == "__main__":
    main()
