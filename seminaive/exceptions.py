"""Exceptions raised by seminaive, each naming what was wrong and what to do."""


class SeminaiveError(Exception):
    """Base class of every error raised by seminaive.

    Examples
    --------
    >>> import pandas as pd
    >>> from seminaive import AODE, SeminaiveError
    >>> try:
    ...     AODE().fit(pd.DataFrame({"a": []}), [])
    ... except SeminaiveError as err:
    ...     print(type(err).__name__)
    InputError
    """


class InputError(SeminaiveError, ValueError):
    """The data given to fit / predict is unusable (empty, NaN target, wrong columns, ...).

    It is also a ``ValueError``, as scikit-learn expects.

    Examples
    --------
    >>> from seminaive import AODE, InputError
    >>> try:
    ...     AODE().fit([["a"], ["b"]], ["yes", None])
    ... except InputError as err:
    ...     print(str(err).split(":")[0])
    y contains 1 missing value(s) (NaN/None), e.g. at rows [1]
    """


class TableTooLargeError(SeminaiveError, MemoryError):
    """The frequency tables would exceed ``max_table_bytes``; raised before allocating.

    It is also a ``MemoryError``.

    Examples
    --------
    >>> from seminaive import A2DE, TableTooLargeError
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> try:
    ...     A2DE(max_table_bytes=1_000_000).fit(X, y)
    ... except TableTooLargeError:
    ...     print("refused before allocating")
    refused before allocating
    """


class ModelFileError(SeminaiveError, ValueError):
    """A model file is corrupt, truncated, of another format or of an unsupported version.

    Examples
    --------
    >>> import os, tempfile
    >>> import seminaive
    >>> path = os.path.join(tempfile.mkdtemp(), "model.npz")
    >>> with open(path, "wb") as fh:
    ...     _ = fh.write(b"PK not really a model")
    >>> try:
    ...     seminaive.load(path)
    ... except seminaive.ModelFileError:
    ...     print("refused")
    refused
    """


class InputTypeError(InputError, TypeError):
    """The data is of a kind seminaive cannot use at all (sparse matrix, unhashable values).

    Both an :class:`InputError` (so a ``ValueError``) and a ``TypeError``, as scikit-learn
    expects for sparse input.
    """
