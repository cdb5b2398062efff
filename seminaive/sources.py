"""Training data replayed chunk by chunk, for learners that need passes after counting.

A *source* (:class:`seminaive.protocol.Source`) yields (storage codes, class indices,
weights) chunks and offers ``map_reduce(fn, combine, values=False)``; learners written
against it (leave-one-out selection, weight optimisation, structure statistics) run
unchanged on in-memory arrays (:class:`ArraySource`), on files streamed from disk
(:class:`seminaive.streaming.StreamSource`) and on a Dask cluster
(:class:`seminaive.dask.DaskSource`).  A consumed one-shot iterator is a source too
(:class:`OneShotSource`): every pass over it raises :class:`~seminaive.exceptions.InputError`.
"""

import operator

import numpy as np

from .exceptions import InputError
from .preprocessing.validation import encode_labels
from .tables import storage_codes

__all__ = ["ArraySource", "ChunkedSource", "OneShotSource"]

#: default rows per chunk: bounds the memory of per-row intermediate arrays
DEFAULT_CHUNK_ROWS = 65_536


class ChunkedSource:
    """Base of the sources that replay their chunks in the client: :meth:`map_reduce` over
    :meth:`chunks` (a subclass implements :meth:`chunks` and ``n_rows``)."""

    #: None, or the weights of the rows (or the name of their column)
    sample_weight = None

    def chunks(self, values=False):  # pragma: no cover - abstract
        raise NotImplementedError

    def map_reduce(self, fn, combine=operator.add, values=False):
        """``combine`` of ``fn(codes, y, w)`` (with ``values``: ``fn(codes, y, w, numeric
        values)``) over all chunks, in order (None when there are no rows)."""
        result = None
        first = True
        for chunk in self.chunks(values=values):
            part = fn(*chunk)
            del chunk
            result = part if first else combine(result, part)
            first = False
        return result


class OneShotSource(ChunkedSource):
    """A one-shot iterator that has been consumed: no pass can be replayed.

    Every pass (:meth:`~seminaive.protocol.Source.chunks`, :meth:`map_reduce`) raises
    :class:`~seminaive.exceptions.InputError`, whatever its arguments: a learner that needs
    a second pass over the training data cannot learn from a one-shot iterator.

    Parameters
    ----------
    n_rows : int
        Rows the iterator yielded.

    Examples
    --------
    >>> source = OneShotSource(10)
    >>> try:
    ...     source.map_reduce(len, values=True)
    ... except InputError as err:
    ...     print(str(err)[:54])
    this learner needs another pass over the training data
    """

    def __init__(self, n_rows):
        self.n_rows = int(n_rows)

    def chunks(self, values=False, **kwargs):
        raise InputError(
            "this learner needs another pass over the training data, but the source is a "
            "one-shot iterator that has already been read: pass a list of DataFrames, a "
            "callable that returns a fresh iterator of DataFrames, or Parquet / CSV files")

    def map_reduce(self, fn, combine=operator.add, values=False):
        self.chunks(values=values)


class ArraySource(ChunkedSource):
    """In-memory training data as a source.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_attributes)
        Storage codes (0 = missing, 1..v values), as counted into the tables.
    y : ndarray of shape (n_rows,)
        Class indices into ``classes_``.
    sample_weight : ndarray of shape (n_rows,) or None
        Row weights (None: every row counts once).
    chunk_rows : int, default=65536
        Rows per chunk.
    values : ndarray of shape (n_rows, n_numeric) or None
        Centred values of the numeric attributes modelled as Gaussians (see
        :meth:`seminaive.AttributeEncoder.numeric_values`), passed on by
        ``chunks(values=True)`` and ``map_reduce(..., values=True)``.

    Examples
    --------
    >>> import numpy as np
    >>> source = ArraySource(np.ones((5, 2), dtype=np.uint8), np.array([0, 1, 1, 0, 1]),
    ...                      chunk_rows=2)
    >>> source.map_reduce(lambda codes, y, w: int(y.sum()))
    3
    >>> [codes.shape[0] for codes, _, _ in source.chunks()]
    [2, 2, 1]
    """

    def __init__(self, codes, y, sample_weight=None, chunk_rows=DEFAULT_CHUNK_ROWS,
                 values=None):
        self.codes = codes
        self.values = values
        self.y = np.asarray(y, dtype=np.int64)
        self.sample_weight = None if sample_weight is None else np.asarray(
            sample_weight, dtype=np.float64)
        self.chunk_rows = int(chunk_rows)

    @property
    def n_rows(self):
        return int(self.y.shape[0])

    def chunks(self, values=False):
        """Yield ``(codes, y, sample_weight_or_None)`` for consecutive row blocks (with
        ``values``: ``(codes, y, sample_weight_or_None, numeric values)``)."""
        if values and self.values is None:
            raise ValueError("this source holds no numeric values")
        for start in range(0, self.n_rows, self.chunk_rows):
            stop = min(start + self.chunk_rows, self.n_rows)
            w = None if self.sample_weight is None else self.sample_weight[start:stop]
            if values:
                yield self.codes[start:stop], self.y[start:stop], w, self.values[start:stop]
            else:
                yield self.codes[start:stop], self.y[start:stop], w


class ChunkEncoder:
    """A chunk of features and labels as (storage codes, class indices), coded as a fitted
    estimator codes its training data.

    Holds only the fitted encoder, the classes and the table extents, so that it is cheap to
    send to the workers of a cluster.  Obtained from an estimator with
    ``estimator.chunk_encoder()``.

    Parameters
    ----------
    encoder : AttributeEncoder
        The estimator's fitted ``encoder_``.
    classes : ndarray
        The estimator's ``classes_``.
    sizes : ndarray of int
        Extents of the attributes in the estimator's table (``table_.sizes``).
    owner : str
        The estimator's name, for error messages.
    """

    def __init__(self, encoder, classes, sizes, owner):
        self.encoder = encoder
        self.classes = classes
        self.sizes = sizes
        self.owner = owner

    def __call__(self, X, y, values=False):
        """``(codes, y_idx)`` of features ``X`` and validated labels ``y`` (with ``values``:
        ``(codes, y_idx, centred numeric values)``)."""
        codes = storage_codes(self.encoder.encode(X, self.owner), self.sizes)
        if values:
            return codes, encode_labels(y, self.classes), self.encoder.numeric_values(
                X, self.owner)
        return codes, encode_labels(y, self.classes)
