"""Training data replayed chunk by chunk, for learners that need passes after counting.

A *source* yields (storage codes, class indices, weights) chunks and offers
``map_reduce(fn, combine)``; learners written against it (leave-one-out selection, weight
optimisation, structure statistics) run unchanged on in-memory arrays, on files streamed from
disk and on a Dask cluster.
"""

import operator

import numpy as np

from .preprocessing.validation import encode_labels
from .tables import storage_codes

__all__ = ["ArraySource"]

#: default rows per chunk: bounds the memory of per-row intermediate arrays
DEFAULT_CHUNK_ROWS = 65_536


class ArraySource:
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
        :meth:`seminaive.preprocessing.AttributeEncoder.numeric_values`), passed on by
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

    def map_reduce(self, fn, combine=operator.add, values=False):
        """``combine`` of ``fn(codes, y, w)`` (with ``values``: ``fn(codes, y, w, numeric
        values)``) over all chunks (None when there are no rows)."""
        result = None
        for i, chunk in enumerate(self.chunks(values)):
            part = fn(*chunk)
            result = part if i == 0 else combine(result, part)
        return result


class ChunkEncoder:
    """A chunk of features and labels as (storage codes, class indices), coded as a fitted
    estimator codes its training data.

    Holds only the fitted encoder, the classes and the table extents, so that it is cheap to
    send to the workers of a cluster.  Obtained from an estimator with
    ``estimator._chunk_encoder()``.

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
