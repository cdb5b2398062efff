"""Single-model structure learners on the shared engine: TAN, SP-TAN, KDB, LBR, HNB (issue 4)."""

__all__ = []
