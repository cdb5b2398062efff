"""Weighted ensembles of sub-models: WAODE, MAPLMD, MAPLMG, BMAAODE (issue 5)."""

__all__ = []
