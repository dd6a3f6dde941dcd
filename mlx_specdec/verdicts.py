"""Where a round's verdict comes from: this process, or rank 0 of a sharded target.

A verdict strategy has three calls, in the round's order: `share(drafts)`
after drafting (a sharded target drafting on rank 0 sends its drafts to the
other ranks inside the round's graph), then `decide(...)` after the target's
pass: the verification rule and the round's single sync point, where the host
reads (accepted, token, the draft ids) to commit and emit. `drafting` says
whether this process runs the drafter.
"""

from __future__ import annotations

import random

import mlx.core as mx

from .distributed import resolve_draft_on
from .errors import SpecDecError
from .verify import greedy_verdict, sampled_verdict


def _rule(policy, drafts, logits, draft_probs, key):
    if policy.greedy:
        return greedy_verdict(drafts, logits)
    return sampled_verdict(policy, drafts, logits, draft_probs, key=key)


class LocalVerdicts:
    """One process: it drafts, verifies and reads its own verdict."""

    drafting = True

    def share(self, drafts: mx.array) -> mx.array:
        return drafts

    def decide(self, policy, drafts, logits, draft_probs, key) -> tuple[int, int, list[int]]:
        accepted, token = _rule(policy, drafts, logits, draft_probs, key)
        # The round's single sync point: drafting, verification and the verdict ran as one lazy graph.
        mx.eval(drafts, accepted, token)
        return accepted.item(), token.item(), drafts.tolist()


class RankZeroVerdicts:
    """A target sharded over processes (`distributed.Ranks`): every rank reads rank 0's verdict, whatever its
    own logits say. `draft_on` "root": rank 0 drafts and its drafts reach the others in `share`; "every":
    each rank drafts for itself and the verdict carries every rank's drafts, checked equal."""

    def __init__(self, ranks, draft_on: str):
        self.ranks, self.draft_on = ranks, draft_on
        self.drafting = ranks.is_root or draft_on == "every"
        self._own = None

    def share(self, drafts: mx.array) -> mx.array:
        self._own = drafts
        if self.draft_on == "root":
            # Queued now, so on every rank this collective runs before the pass's own: a
            # pipeline stage's recv does not depend on the drafts and could overtake it.
            drafts = self.ranks.agree(drafts)
            mx.async_eval(drafts)
        return drafts

    def decide(self, policy, drafts, logits, draft_probs, key) -> tuple[int, int, list[int]]:
        if policy.greedy or not self.ranks.is_root:
            # (Other ranks' verdicts are zeroed in decide: theirs only orders its collective after the pass.)
            accepted, token = greedy_verdict(drafts, logits)
        else:
            accepted, token = sampled_verdict(policy, drafts, logits, draft_probs, key=key)
        every = self.draft_on == "every"
        verdict = self.ranks.decide(accepted, token, self._own if every else None)
        mx.eval(drafts, verdict)
        accepted, token, *slots = verdict.tolist()
        if every:
            k_round = drafts.shape[0]
            self.ranks.check_drafts(slots, k_round)
            return accepted, token, slots[:k_round]
        return accepted, token, drafts.tolist()


def verdicts_for(ranks, k, policy, draft_on, drafter, seed):
    """`(verdicts, seed)` for a target (`ranks`: its process group, or None): under a sharded target k must
    be fixed, `draft_on` is resolved, and a sampled run without a seed takes rank 0's."""
    if ranks is None:
        return LocalVerdicts(), seed
    if k == "auto":
        raise SpecDecError("k='auto' is not available with a sharded target (each rank would time its own "
                           "rounds and pick its own k); pass a fixed k")
    draft_on = resolve_draft_on(draft_on, drafter)
    if not policy.greedy and seed is None:  # one key on every rank: rank 0 picks the seed
        seed = ranks.agree_int(random.SystemRandom().randrange(2**31))
    return RankZeroVerdicts(ranks, draft_on), seed
