"""Selecting sub-models: AODE-SR, FSS/BSE, ASAODE, SAODE, SWAODE, selective AnDE (issue 6)."""

__all__ = []
