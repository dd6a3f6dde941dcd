"""Drafters: whatever proposes the next k tokens, behind one protocol (`protocol.py`).

| module | drafter |
|---|---|
| `protocol.py` | `Drafter` (the base class: the calls the loop makes, the declarations it reads), `DeclaredDrafter` |
| `model.py` | `ModelDrafter`: a separate, smaller model sharing the target's token ids; `as_drafter` |
| `lookup.py` | `PromptLookupDrafter`: copies what followed the latest earlier occurrence of the last n tokens |
| `mtp.py` | `MTPDrafter` (an MTP head) and `NativeMTPDrafter` (a checkpoint's own MTP layer), on the target's trunk |
| `eagle3.py` | `Eagle3Drafter`: an EAGLE-3 draft model on three target layers' features from the verification pass |
| `dflash.py` | `DFlashDrafter`: a block drafter (DFlash): a whole block of drafts from one pass over the target's features |
"""

from .dflash import DFlashDrafter
from .eagle3 import Eagle3Drafter
from .lookup import PromptLookupDrafter
from .model import ModelDrafter, as_drafter
from .mtp import DEFAULT_DRAFT_DEPTH, MTPDrafter, NativeMTPDrafter, acceptance_by_depth
from .protocol import EMPTY, DeclaredDrafter, Drafter, is_drafter

__all__ = ["DEFAULT_DRAFT_DEPTH", "DFlashDrafter", "EMPTY", "DeclaredDrafter", "Drafter", "Eagle3Drafter", "MTPDrafter", "ModelDrafter",
           "NativeMTPDrafter", "PromptLookupDrafter", "acceptance_by_depth", "as_drafter", "is_drafter"]
