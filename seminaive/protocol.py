"""The two protocols every training route goes through: :class:`Learner` and :class:`Source`.

Seven routes train a model: ``fit``, ``partial_fit``, ``fit_stream`` from files or
re-iterable chunks, ``fit_stream`` from a one-shot iterator, :func:`seminaive.dask.fit`,
``load`` then ``partial_fit``, and a refit of an instance that was used before.  They all
drive the learner through the public methods of :class:`Learner` (implemented once, by the
estimator base :class:`seminaive.base.Learner`) and replay the training data through a
:class:`Source`.  A learner implements the base's hooks (``_learn_from_counts``,
``_scores``...), never these methods, so every route gives the model ``fit`` gives:

1. ``check_params()`` -- before any data is read;
2. ``begin_fit(classes, encoder)`` -- **the one reset**: everything an earlier fit learnt is
   dropped (every attribute but the constructor's parameters), then the classes, the fitted
   encoder and empty tables are installed;
3. ``count_chunk(codes, y, w, values)`` for every chunk, ``merge_counts(table)`` for counts
   made elsewhere (a cluster's workers), or ``count_partial(X, y, w, classes)`` for a chunk
   counted incrementally (``partial_fit``: the first call begins the fit);
4. ``learn_from(source)`` -- everything beyond the counts, with a :class:`Source` that
   replays the training rows (or refuses with
   :class:`~seminaive.exceptions.InputError` when it cannot, as a one-shot iterator does).

Model files use ``learned_state()`` to write and ``table_spec(encoder)`` and
``restore_fit(classes, encoder, table, learned)`` to read; streamed predictions use
``joint_log_likelihood(X)``.

This module is the engine's layer: it names the methods, it implements none of them.
"""

from collections.abc import Callable, Iterator
from typing import Any, Protocol, runtime_checkable

__all__ = ["Learner", "Source"]


@runtime_checkable
class Source(Protocol):
    """Training data replayed chunk by chunk, as the tables counted it.

    Implemented by :class:`seminaive.sources.ArraySource` (in memory),
    ``seminaive.streaming.StreamSource`` (files and re-iterable chunks, re-read on every
    pass), ``seminaive.dask.DaskSource`` (a cluster's partitions) and
    :class:`seminaive.sources.OneShotSource` (a consumed iterator: every pass raises
    :class:`~seminaive.exceptions.InputError`).

    Attributes
    ----------
    n_rows : int
        Rows of the training data.
    sample_weight : object or None
        None when every row counts once; otherwise the weights (or the name of the column
        holding them).

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive.sources import ArraySource, OneShotSource
    >>> source = ArraySource(np.ones((5, 2), dtype=np.uint8), np.array([0, 1, 1, 0, 1]))
    >>> isinstance(source, Source), isinstance(OneShotSource(5), Source)
    (True, True)
    >>> source.map_reduce(lambda codes, y, w: int(y.sum()))
    3
    """

    n_rows: int
    sample_weight: Any

    def chunks(self, values: bool = False) -> Iterator[tuple]:
        """Yield ``(storage codes, class indices, weights or None)`` chunk by chunk (with
        ``values``, the centred numeric values of the Gaussian attributes as a fourth
        element)."""

    def map_reduce(self, fn: Callable, combine: Callable = ..., values: bool = False) -> Any:
        """``combine`` of ``fn(*chunk)`` over every chunk of :meth:`chunks` (None without
        rows)."""


@runtime_checkable
class Learner(Protocol):
    """What the training routes (``fit``, ``partial_fit``, streaming, Dask, model files)
    call on an estimator.  :class:`seminaive.base.Learner` implements every method once.

    Examples
    --------
    A driver of its own (here: two chunks counted, then one learning step) gives the model
    of ``fit``:

    >>> import numpy as np
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> from seminaive.sources import ArraySource
    >>> X, y = load_kr_vs_kp()
    >>> model = AODE()
    >>> isinstance(model, Learner)
    True
    >>> model.check_params()
    >>> model.begin_fit(np.unique(y), model.make_encoder().fit(X, y))
    >>> codes, y_idx = model.chunk_encoder()(X, y)
    >>> model.count_chunk(codes[:1000], y_idx[:1000])
    >>> model.count_chunk(codes[1000:], y_idx[1000:])
    >>> model.learn_from(ArraySource(codes, y_idx))
    >>> bool(np.allclose(model.predict_proba(X), AODE().fit(X, y).predict_proba(X)))
    True
    """

    def check_params(self) -> None:
        """Raise ``ValueError`` for an invalid parameter, before any data is read."""

    def make_encoder(self) -> Any:
        """An unfitted :class:`~seminaive.AttributeEncoder` configured by the
        estimator's parameters."""

    def reset(self) -> None:
        """Drop everything an earlier fit learnt (every attribute but the parameters)."""

    def begin_fit(self, classes: Any, encoder: Any) -> None:
        """:meth:`reset`, then install ``classes``, the fitted ``encoder`` and empty
        tables."""

    def chunk_encoder(self) -> Callable:
        """A picklable callable coding ``(X, labels)`` as the training data is coded."""

    def needs_values(self) -> bool:
        """Whether counting needs the numeric values (Gaussian children)."""

    def count_chunk(self, codes: Any, y: Any, w: Any = None, values: Any = None) -> None:
        """Add coded rows to the counts."""

    def merge_counts(self, table: Any) -> None:
        """Add counts made elsewhere over the same attributes."""

    def count_partial(self, X: Any, y: Any, w: Any = None, classes: Any = None, *,
                      route: str = "partial_fit") -> tuple:
        """Count one chunk incrementally (the first call begins the fit; ``route`` names
        the caller in warnings)."""

    def learn_from(self, source: Source) -> None:
        """Learn everything beyond the counts, replaying the data through ``source``."""

    def joint_log_likelihood(self, X: Any) -> Any:
        """Per-class log scores of rows (what predictions are made from)."""

    def table_spec(self, encoder: Any) -> dict:
        """What the tables hold for these parameters and this encoder (checked against a
        model file before anything is allocated)."""

    def learned_state(self) -> dict:
        """The arrays learnt beyond the counts, for model files."""

    def restore_fit(self, classes: Any, encoder: Any, table: Any, learned: dict) -> None:
        """Install a model read from a file (:meth:`reset` first); ``ValueError`` when the
        learned arrays do not fit the tables."""
