"""Exceptions raised by seminaive, each naming what was wrong and what to do; and
:func:`warn_user`, which attributes a warning to the user's own line."""

import os
import sys
import warnings

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_user(message, category=UserWarning):
    """Issue a warning attributed to the first calling frame outside seminaive.

    A fixed ``stacklevel`` points into the library whenever the call path changes (a
    ``partial_fit`` reached through ``fit_stream``, a subclass, a Dask fit); this walks the
    stack instead, as ``skip_file_prefixes`` does on Python 3.12, so that the warning names
    the line of the user's code (or of the first other library on the way) that called
    seminaive.

    Parameters
    ----------
    message : str
        The warning's text.
    category : type of Warning, default=UserWarning
        The warning's class.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_user("something to know")
    >>> caught[0].filename.startswith(_PACKAGE_DIR)
    False
    """
    frame = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)


class PartialFitWarning(UserWarning):
    """``partial_fit`` (or a one-shot iterator, counted the same way) makes a model that
    differs from ``fit`` on all the rows, and the warning says how and what to do.

    Examples
    --------
    >>> issubclass(PartialFitWarning, UserWarning)
    True
    """


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
