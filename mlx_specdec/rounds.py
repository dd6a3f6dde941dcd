"""What a round produces and what it counts: `Emission` (its tokens and their kinds) and `SpecStats`."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SpecStats:
    """Counters of one generation.

    accepted counts accepted draft tokens that were emitted; generated counts
    every emitted token, corrections and bonuses included; target_passes counts
    verification passes (prompt prefill is not counted: it emits nothing).
    """

    target_passes: int = 0
    drafted: int = 0
    accepted: int = 0
    generated: int = 0
    accepted_per_round: list[int] = field(default_factory=list, repr=False)
    drafted_per_round: list[int] = field(default_factory=list, repr=False)

    @property
    def acceptance_rate(self) -> float:
        return self.accepted / self.drafted if self.drafted else 0.0

    @property
    def tokens_per_pass(self) -> float:
        return self.generated / self.target_passes if self.target_passes else 0.0

    def count_round(self, drafted: int, accepted: int, emitted: int) -> None:
        """One round: one target pass, `drafted` drafts of which `accepted` agreed, `emitted` tokens out
        (an EOS may cut the accepted drafts short: only the emitted ones count as accepted)."""
        self.target_passes += 1
        self.drafted += drafted
        self.accepted += min(accepted, emitted)
        self.generated += emitted
        self.accepted_per_round.append(accepted)
        self.drafted_per_round.append(drafted)

    def add(self, other: SpecStats) -> SpecStats:
        """Fold another generation's counters into these (totals over prompts); returns self."""
        for name in ("target_passes", "drafted", "accepted", "generated"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.accepted_per_round += other.accepted_per_round
        return self

    def as_dict(self) -> dict:
        return {
            "target_passes": self.target_passes,
            "drafted": self.drafted,
            "accepted": self.accepted,
            "generated": self.generated,
            "acceptance_rate": self.acceptance_rate,
            "tokens_per_pass": self.tokens_per_pass,
        }


@dataclass
class Emission:
    """Tokens committed by one round, in order, each with what produced it:
    'draft' (an accepted draft), 'correction' (the target's token at the first
    rejection), 'bonus' (the target's token after full acceptance) or 'target'
    (a round without drafts)."""

    ids: list[int]
    kinds: list[str]


def round_emission(draft_ids: list[int], accepted: int, token: int, k_round: int, eos: frozenset) -> Emission:
    """The accepted drafts, then the target's own token (a correction, or the bonus after a full
    acceptance); cut after the first EOS of the set."""
    last_kind = "target" if k_round == 0 else ("bonus" if accepted == k_round else "correction")
    ids, kinds = draft_ids[:accepted] + [token], ["draft"] * accepted + [last_kind]
    cut = next((i + 1 for i, t in enumerate(ids) if t in eos), None)
    return Emission(ids[:cut], kinds[:cut]) if cut is not None else Emission(ids, kinds)
