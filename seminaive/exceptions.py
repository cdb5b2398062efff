"""Exceptions raised by seminaive, each naming what was wrong and what to do."""


class SeminaiveError(Exception):
    """Base class of every error raised by seminaive."""


class InputError(SeminaiveError, ValueError):
    """The data given to fit / predict is unusable (empty, NaN target, wrong columns, ...)."""


class TableTooLargeError(SeminaiveError, MemoryError):
    """The frequency tables would exceed ``max_table_bytes``; raised before allocating."""


class ModelFileError(SeminaiveError, ValueError):
    """A model file is corrupt, truncated, of another format or of an unsupported version."""


class InputTypeError(InputError, TypeError):
    """The data is of a kind seminaive cannot use at all (sparse matrix, unhashable values).

    Both an :class:`InputError` (so a ``ValueError``) and a ``TypeError``, as scikit-learn
    expects for sparse input.
    """
