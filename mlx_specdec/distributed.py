"""A target sharded across processes by mx.distributed (tensor or pipeline).

Every rank holds a shard of the target and runs every target pass: the
collectives inside a pass pair up across ranks, so every rank must issue the
same passes in the same order. What the host decides (the accepted boundary,
the correction or bonus token, the drafts fed to the pass, the seed) is taken
from rank 0: it is summed across ranks with the other ranks contributing
zeros, inside the round's lazy graph. The round keeps its single sync point,
and no floating-point difference between ranks can make them commit different
boundaries.

A process group of one is no group: `ranks_of(model)` is None, and the loop
runs exactly the single-process code, with no collective and no extra sync.
"""

from __future__ import annotations

from dataclasses import dataclass

import mlx.core as mx

from .errors import SpecDecError

SHARDINGS = ("tensor", "pipeline", "auto")
DRAFT_ON = ("root", "every")  # where a model drafter runs: on rank 0 only, or whole on every rank


@dataclass(frozen=True)
class Ranks:
    """The processes sharing one sharded target, and how it is split."""

    group: mx.distributed.Group
    sharding: str  # "tensor" or "pipeline"

    @property
    def rank(self) -> int:
        return self.group.rank()

    @property
    def size(self) -> int:
        return self.group.size()

    @property
    def is_root(self) -> bool:
        return self.group.rank() == 0

    def agree(self, x: mx.array) -> mx.array:
        """Rank 0's x (int32) on every rank, lazily.

        Other ranks contribute ``x * 0``, not a fresh zeros array: the sum then
        depends on their own x, so each rank's graph orders this collective after
        the ones x depends on (the target pass), as rank 0's does.
        """
        x = x.astype(mx.int32)
        return mx.distributed.all_sum(x if self.is_root else x * 0, group=self.group)

    def slot(self, x: mx.array) -> mx.array:
        """x (1-D int32) in this rank's slot of a (size * len(x)) array of zeros: summed
        across ranks, every rank sees every rank's x."""
        n = x.shape[0]
        out = mx.zeros((self.size * n,), dtype=mx.int32)
        return out.at[self.rank * n : (self.rank + 1) * n].add(x.astype(mx.int32)) if n else out

    def decide(self, accepted: mx.array, token: mx.array, own_drafts: mx.array | None = None) -> mx.array:
        """The round's verdict, as one tiny int32 array summed across ranks (lazily):
        [accepted, token] from rank 0, then, when given, every rank's own drafts in its
        slot (each rank drafted for itself: the host checks they agree)."""
        head = mx.stack([accepted.reshape(()), token.reshape(())]).astype(mx.int32)
        parts = [head if self.is_root else head * 0]
        if own_drafts is not None:
            parts.append(self.slot(own_drafts))
        return mx.distributed.all_sum(mx.concatenate(parts), group=self.group)

    def check_drafts(self, slots: list[int], k: int) -> None:
        """Every rank's drafts (from `decide`) must equal rank 0's, or the target pass mixed
        different tokens across ranks: stop every rank with the same error."""
        first = slots[:k]
        for r in range(1, self.size):
            mine = slots[r * k : (r + 1) * k]
            if mine != first:
                raise SpecDecError(
                    f"rank {r} drafted {mine} where rank 0 drafted {first}: the drafter does not compute the same "
                    "drafts on every rank (different hardware or MLX builds?); draft on rank 0 only (draft_on='root')"
                )

    def agree_int(self, value: int) -> int:
        """Rank 0's Python int on every rank (a blocking sync: for set-up, not per round)."""
        return int(self.agree(mx.array([value], dtype=mx.int32)).item())

    def barrier(self) -> None:
        mx.eval(mx.distributed.all_sum(mx.array([1], dtype=mx.int32), group=self.group))


def world():
    """mx.distributed's group of every process (a group of one when not launched by mlx.launch)."""
    return mx.distributed.init()


def ranks_of(model) -> Ranks | None:
    """The ranks a model is sharded over; None for a whole model (one process)."""
    return getattr(model, "_specdec_ranks", None)


def mark_sharded(model, group, sharding: str) -> None:
    object.__setattr__(model, "_specdec_ranks", Ranks(group, sharding))


def supported_shardings(model) -> tuple[str, ...]:
    """What mlx-lm's sharded_load can do with a model instance, in order of preference."""
    out = []
    if callable(getattr(model, "shard", None)):
        out.append("tensor")
    if callable(getattr(getattr(model, "model", None), "pipeline", None)):
        out.append("pipeline")
    return tuple(out)


def choose_sharding(requested: str, supported: tuple[str, ...], name: str) -> str:
    """The sharding to use: `requested`, or for "auto" tensor where supported, else pipeline."""
    if requested not in SHARDINGS:
        raise SpecDecError(f"sharding must be one of {', '.join(SHARDINGS)} or None, got {requested!r}")
    if not supported:
        raise SpecDecError(
            f"{name} supports neither tensor nor pipeline sharding (it has no shard() and no model.pipeline()); "
            "run it whole in one process"
        )
    if requested == "auto":
        return supported[0]
    if requested not in supported:
        raise SpecDecError(
            f"{name} does not support {requested} sharding (supported: {', '.join(supported)}); "
            f"pass --sharding {supported[0]}"
        )
    return requested


def resolve_draft_on(draft_on: str | None, drafter) -> str:
    """Where the drafter of a sharded target runs: "root" for a model drafter (the
    default; other ranks may pass None), "every" for anything else (an MTP head or
    prompt lookup: cheap, and only each rank knows how many drafts it proposes)."""
    if draft_on is not None and draft_on not in DRAFT_ON:
        raise SpecDecError(f"draft_on must be one of {', '.join(DRAFT_ON)} or None, got {draft_on!r}")
    # None (other ranks pass no drafter) or a bare model is a model drafter; a Drafter declares itself.
    speaks_protocol = drafter is not None and callable(getattr(drafter, "propose", None))
    model_drafter = not speaks_protocol or bool(getattr(drafter, "proposes_exactly_k", False))
    if draft_on is None:
        return "root" if model_drafter else "every"
    if draft_on == "root" and not model_drafter:
        raise SpecDecError(f"draft_on='root' needs a model drafter, which proposes exactly k tokens; "
                           f"{type(drafter).__name__} may propose fewer: use draft_on='every'")
    if drafter is None and draft_on == "every":
        raise SpecDecError("draft_on='every' runs the drafter on every rank: pass it on every rank")
    return draft_on


def peer_lost(error: BaseException) -> bool:
    """Whether an MLX error says a collective's peer went away (mx.distributed backends tag their errors)."""
    return isinstance(error, RuntimeError) and str(error).startswith(("[ring]", "[jaccl]", "[mpi]", "[nccl]"))
