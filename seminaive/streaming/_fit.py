"""Fitting from chunks: :class:`StreamSource` (the data re-read for a learner's extra
passes), :func:`fit_stream` and the one-shot iterator route."""

import os

import numpy as np
import pandas as pd
import pyarrow as pa

from ..exceptions import InputError
from ..preprocessing.encoder import _arrow_frame
from ..preprocessing.validation import check_target, distinct_labels
from ..sources import ChunkedSource, OneShotSource
from ._codes import KeptCodes, PlainCodes
from ._readers import (
    _NULL_STRINGS,
    DEFAULT_SAMPLE_ROWS,
    ColumnTypeChanged,
    _ArrowCsvReader,
    _check_same_columns,
    _is_path,
    _KeptChunks,
    _progress_bar,
    default_chunk_rows,
    open_source,
)
from ._readers import (
    keep_bytes as _keep_bytes,
)
from ._scan import (
    ScanSummary,
    _Layout,
    build_encoder,
    seed_of,
)

# --------------------------------------------------------------------------------------------
# Sources for the learners' extra passes
# --------------------------------------------------------------------------------------------


class StreamSource(ChunkedSource):
    """Training data re-read from its files or re-iterable chunks, encoded as counted.

    Same interface as :class:`seminaive.sources.ArraySource`: :meth:`chunks` yields
    ``(storage codes, class indices, weights or None)`` and :meth:`map_reduce` combines
    ``fn`` over them.  Every call reads the data again, one chunk at a time.
    """

    def __init__(self, estimator, reader, layout, chunk_rows, n_rows, progress=None):
        self._owner = type(estimator).__name__
        self._encode = estimator.chunk_encoder()
        self._reader = reader
        self._layout = layout
        self.chunk_rows = int(chunk_rows)
        self._n_rows = int(n_rows)
        self.progress = progress
        self.sample_weight = layout.weight  # the weight column's name, or None
        self.kept = None  # the coded chunks of the counting pass, replayed (see chunks)

    @property
    def n_rows(self):
        return self._n_rows

    def chunks(self, desc="extra pass", values=False):
        """Yield ``(codes, y, weights or None)`` chunk by chunk (with ``values``, the centred
        numeric values as a fourth element).  The chunks the counting pass coded
        (``kept``, those of a plain CSV file) are replayed without reading the file."""
        if self.kept is not None and not values:
            yield from self.kept
            return
        owner = self._owner
        first_row = 0
        with _progress_bar(self.progress, self._n_rows, desc) as bar:
            for frame, where in self._reader.frames(self._layout.columns, self.chunk_rows):
                X, y, w = self._layout.split(frame, where, owner, first_row)
                del frame
                first_row += X.shape[0]
                coded = self._encode(X, y, values)
                del X, y
                bar.update(coded[0].shape[0])
                yield (*coded[:2], w, *coded[2:])
                del coded, w
        if first_row != self._n_rows:
            raise InputError(f"the source changed between passes: it held {self._n_rows} rows "
                             f"and now {first_row}")


# --------------------------------------------------------------------------------------------
# fit_stream
# --------------------------------------------------------------------------------------------


def fit_stream(estimator, source, target, *, features=None, sample_weight=None,
               chunk_rows=None, sample_rows=DEFAULT_SAMPLE_ROWS, classes=None,
               csv_options=None, progress=None, keep_bytes=None):
    """Fit ``estimator`` on data read chunk by chunk: a scan, then a counting pass (none
    when the scan kept the codes of an all-nominal file; the engine of
    ``estimator.fit_stream``, whose docstring describes every parameter).

    Parameters
    ----------
    estimator : seminaive learner
        Fitted in place.
    source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
        Parquet or CSV files (a path string with wildcards, ``"data/part-*.csv"``: the
        files it matches, sorted, as ``glob.glob`` with ``**`` for any depth; a
        pattern that matches nothing raises an ``InputError`` naming it), DataFrames, or
        an iterable of DataFrames.
    target : str
        Column holding the class labels.
    features : list of str, optional
        Feature columns (default: every column but the target and the weights).
    sample_weight : str, optional
        Column holding non-negative row weights.
    chunk_rows : int, optional
        Rows per chunk.
    sample_rows : int or None, default=100_000
        Rows sampled for the cut points of numeric columns (None: all).
    classes : array-like, optional
        Every class, for a one-shot iterator.
    csv_options : dict, optional
        Keyword arguments of ``pandas.read_csv``.
    progress : bool, optional
        Show progress bars (default: when stderr is a terminal).
    keep_bytes : int, optional
        Memory budget, in bytes, of the parsed chunks of a file kept from the first pass
        for the others (then the file is parsed once); a file whose chunks take more is
        parsed again by every pass, one chunk in memory at a time.  Default: the
        environment variable ``SEMINAIVE_KEEP_BYTES``, else 512 MiB
        (:func:`~seminaive.streaming.keep_bytes`).

    Returns
    -------
    estimator

    Examples
    --------
    >>> import os, tempfile
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> from seminaive.streaming import fit_stream
    >>> X, y = load_kr_vs_kp()
    >>> path = os.path.join(tempfile.mkdtemp(), "train.parquet")
    >>> X.assign(label=y).to_parquet(path)
    >>> model = fit_stream(AODE(), path, target="label", chunk_rows=1000)
    >>> bool((model.predict_proba(X) == AODE().fit(X, y).predict_proba(X)).all())
    True
    """
    estimator.check_params()
    if sample_rows is not None and (isinstance(sample_rows, bool) or int(sample_rows) < 1):
        raise InputError(f"sample_rows must be a positive int or None, got {sample_rows!r}")
    if chunk_rows is not None and (isinstance(chunk_rows, bool) or int(chunk_rows) < 1):
        raise InputError(f"chunk_rows must be a positive int or None, got {chunk_rows!r}")
    budget = _keep_bytes(keep_bytes)  # checked before any reading
    reader = open_source(source, csv_options)  # a pattern: the files it matches, sorted
    if hasattr(reader, "decide_types"):
        reader.decide_types = True  # _scan starts a pass again when a type is widened
    owner = type(estimator).__name__
    columns = reader.columns()
    layout = None
    if columns is not None:
        where = _describe(getattr(reader, "paths", source))  # a pattern: its first file
        layout = _Layout(columns, target, features, where, sample_weight)
        if chunk_rows is None:
            chunk_rows = default_chunk_rows(len(layout.columns))
    if chunk_rows is None:  # only used to slice a single DataFrame
        chunk_rows = default_chunk_rows(source.shape[1] if isinstance(source, pd.DataFrame)
                                        else 1)
    if not reader.reiterable:
        return _fit_one_shot(estimator, reader, target, features, sample_weight, classes,
                             owner, progress)
    if classes is not None:
        raise InputError("classes is only for one-shot iterators: a source that can be read "
                         "twice gives its classes in the first pass")
    if getattr(reader, "paths", None) is not None:
        # the counting pass does not parse the files again (within the memory budget)
        reader = _KeptChunks(reader, budget)
    # a plain all-string CSV file: its fields coded as its lines are split, no scan of
    # parsed chunks, no counting pass (see _codes.PlainCodes)
    scanned = _scan_plain(estimator, reader, layout, chunk_rows, sample_rows, owner, progress)
    if scanned is None:
        # an all-nominal file is coded by the scan: no counting pass (see _codes)
        kept = getattr(reader, "dictionaries_used", False)
        scanned = _scan(estimator, reader, layout, target, features, sample_weight,
                        chunk_rows, sample_rows, owner, progress, budget if kept else None)
    summary, codes = scanned
    layout = summary.layout
    _fix_types(reader)  # the types the scan decided are those the model is fitted on
    estimator.begin_fit(summary.classes(), build_encoder(estimator, summary, sample_rows))
    source = StreamSource(estimator, reader, layout, chunk_rows, summary.n_rows, progress)
    values = estimator.needs_values()
    if codes is not None and codes.active and not values:
        chunks = codes.remapped(estimator.encoder_, estimator.classes_,
                                estimator.table_.sizes, owner)
    else:
        chunks = source.chunks(desc="pass 2/2: counting", values=values)
    for chunk in chunks:
        estimator.count_chunk(*chunk)
        del chunk
    if isinstance(codes, PlainCodes) and not values:
        source.kept = codes.kept  # the passes after the counts read them
    del codes
    estimator.learn_from(source)
    return estimator


def _fix_types(reader):
    inner = getattr(reader, "_reader", reader)
    if hasattr(inner, "fixed"):
        inner.fixed = True


def _describe(source):
    if _is_path(source):
        return repr(os.fspath(source))
    if isinstance(source, (list, tuple)) and source and _is_path(source[0]):
        return repr(os.fspath(source[0]))
    return "the first chunk"


def _scan_plain(estimator, reader, layout, chunk_rows, sample_rows, owner, progress=None):
    """Pass 1 of a plain all-string CSV file read by coding its fields as its lines are
    split (:meth:`~seminaive.streaming._readers._ArrowCsvReader.plain_codes`): the summary
    :func:`_scan` would give, from each column's distinct values, and the codes
    (:class:`PlainCodes`); None (then :func:`_scan` reads the file) for any other source:
    a weight column, a column that is not strings, a missing class label, a feature the
    encoder does not take as nominal, or a file the reader gives up on.  Several files of
    the same header are read as the file holding their lines one after the other
    (:meth:`~seminaive.streaming._readers._ArrowCsvReader.plain_codes_of`).  ``progress``:
    a bar of the rows coded, file by file (block by block for a file coded in blocks)."""
    inner = getattr(reader, "_reader", None)
    if (layout is None or layout.weight is not None or not isinstance(
            inner, _ArrowCsvReader) or not inner.plain_fits):
        return None
    with _progress_bar(progress, None, "pass 1/2: values (plain CSV)") as bar:
        plain = inner.plain_codes_of(inner.paths, layout.columns, bar.update)
    if plain is None or plain.n_rows == 0:
        return None
    names = plain.names
    ycol = names.index(layout.target)
    labels = plain.values[ycol]
    if any(label in _NULL_STRINGS for label in labels):
        return None  # the pyarrow route says which rows lack a label
    y = check_target(pd.Categorical.from_codes(np.arange(len(labels)), categories=pd.Index(
        labels, dtype=object), validate=False), len(labels), owner)
    # the first row (it holds the first value of every column): the sample of an
    # all-nominal scan (it gives the encoder the types)
    columns, values, missing = [], [], []
    for name in layout.features:
        col = names.index(name)
        index, kept = plain.nonnull(col)
        first = index[0]
        columns.append(pa.DictionaryArray.from_arrays(
            pa.array([first], pa.int32(), mask=np.array([first < 0])),
            pa.array(kept, pa.string())))
        values.append(kept)
        missing.append(bool((index < 0).any()))
    sample = _arrow_frame(pa.table(columns, names=layout.features), set(layout.features))
    nominal = estimator.make_encoder().nominal_mask(sample)
    if not nominal.all():
        return None
    summary = ScanSummary(nominal, sample_rows, estimator.missing == "value")
    summary.n_rows = plain.n_rows
    summary.labels = distinct_labels(y)
    summary.values = [dict.fromkeys(kept) for kept in values]
    summary.categorical[:] = False
    if summary.track_missing:
        summary.has_missing = np.array(missing, dtype=bool)
    summary.sample = sample
    summary.sample_y = np.array([labels[0]], dtype=object)
    summary.sample_keys = np.zeros(1)
    summary.sample_order = np.zeros(1, dtype=np.int64)
    summary.layout = layout
    budget = inner.keep_bytes if inner.keep_bytes is not None else _keep_bytes()
    return summary, PlainCodes(plain, layout.features, layout.target, chunk_rows, budget)


def _scan(estimator, reader, layout, target, features, weight, chunk_rows, sample_rows,
          owner, progress, budget=None):
    """Pass 1: labels, nominal value sets, missing flags and the row sample of all chunks;
    started again when a CSV column's type is widened by a later block (so that every chunk
    is summarised with the type decided for the whole source).  With a ``budget`` (bytes),
    also the provisional codes of an all-nominal source (:class:`KeptCodes`, None
    without).  Returns ``(summary, codes)``."""
    while True:
        codes = None if budget is None else KeptCodes(budget)
        try:
            summary = _scan_once(estimator, reader, layout, target, features, weight,
                                 chunk_rows, sample_rows, owner, progress, codes)
            return summary, codes
        except ColumnTypeChanged:
            continue


def _scan_once(estimator, reader, layout, target, features, weight, chunk_rows, sample_rows,
               owner, progress, codes=None):
    seed = seed_of(estimator.random_state)
    track_missing = estimator.missing == "value"
    summary = None
    nominal = None
    first_row = 0
    read_columns = layout.columns if layout is not None else None
    # a file reader's dictionaries hold only values its rows hold
    used = bool(getattr(reader, "dictionaries_used", False))
    with _progress_bar(progress, reader.n_rows(), "pass 1/2: values and sample") as bar:
        index = -1
        # (no enumerate: it would keep the previous chunk alive while the next is read)
        for frame, where in reader.frames(read_columns, chunk_rows):
            index += 1
            if layout is None:
                layout = _Layout(frame.columns, target, features, where, weight)
                first_columns = list(frame.columns)
            elif read_columns is None:
                _check_same_columns(first_columns, list(frame.columns), where, "chunk 0")
            X, y, w = layout.split(frame, where, owner, first_row)
            del frame
            if nominal is None:
                nominal = estimator.make_encoder().nominal_mask(X)
                summary = ScanSummary(nominal, sample_rows, track_missing)
            part = ScanSummary.of_chunk(X, y, index, seed, nominal, sample_rows, track_missing,
                                        threshold=summary.threshold(), sample_weight=w,
                                        dictionaries_used=used)
            if codes is not None:
                codes.add(X, y, w, nominal)
            first_row += X.shape[0]
            bar.update(X.shape[0])
            del X, y, w
            summary = summary.merged(part)
            del part
    if summary is None or summary.n_rows == 0:
        raise InputError(f"the source {_describe_reader(reader)} holds no rows: there is "
                         "nothing to learn from")
    summary.layout = layout
    return summary


def _describe_reader(reader):
    paths = getattr(reader, "paths", None)
    return repr(paths[0]) if paths and len(paths) == 1 else ("(files)" if paths else "")


def _fit_one_shot(estimator, reader, target, features, weight, classes, owner, progress):
    """A one-shot iterator: counted chunk by chunk as :meth:`partial_fit` counts (encoder
    fitted on the first chunk, later nominal values appended, a chunk that fails leaves the
    counts as they were), then one learning step."""
    estimator.reset()
    layout = None
    n_rows = 0
    with _progress_bar(progress, None, "counting (one pass)") as bar:
        for frame, where in reader.frames(None, 0):
            if layout is None:
                layout = _Layout(frame.columns, target, features, where, weight)
                first_columns = list(frame.columns)
            else:
                _check_same_columns(first_columns, list(frame.columns), where, "chunk 0")
            X, y, w = layout.split(frame, where, owner, n_rows)
            del frame
            if n_rows == 0:
                labels = distinct_labels(y) if classes is None else np.unique(
                    np.asarray(classes))
                if labels.size == 0:
                    raise InputError("classes is empty: list all classes that will ever appear")
            else:
                labels = None
                unknown = np.setdiff1d(distinct_labels(y), estimator.classes_)
                if unknown.size:
                    raise InputError(
                        f"{where} holds classes {unknown[:5].tolist()} not seen in the first "
                        "chunk of a one-shot iterator: pass classes=[...] (every class) to "
                        "fit_stream, or a source that can be read twice")
            estimator.count_partial(X, y, w, labels, route="fit_stream")
            n_rows += X.shape[0]
            bar.update(X.shape[0])
            del X, y, w
    if n_rows == 0:
        raise InputError("the iterator yielded no rows: there is nothing to learn from")
    estimator.learn_from(OneShotSource(n_rows))
    return estimator
