"""Selecting sub-models: AODE-SR, FSS/BSE, ASAODE, SAODE, SWAODE, selective AnDE."""

from .nested import ASAODE, SAODE, SWAODE, SelectiveAnDE
from .subsumption import AODESR
from .wrapper import BSEAODE, FSSAODE

__all__ = ["AODESR", "ASAODE", "BSEAODE", "FSSAODE", "SAODE", "SWAODE", "SelectiveAnDE"]
