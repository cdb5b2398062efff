"""The codes of an all-nominal file kept from the scan, so that :func:`fit_stream` counts
without a second pass over the data.

When every feature of a file is a nominal column read as an Arrow dictionary (the string
columns of CSV and Parquet files), the scan codes every chunk as it reads it: each value
gets a provisional code, its index in the order of first appearance over the file (the
order in which the scan lists the values), found by a lookup of the chunk's few dictionary
values, never row by row.  Once the scan is over, the encoder is fitted as before
(:func:`~seminaive.streaming.build_encoder`: the values sorted, as :meth:`fit` lists them)
and a table per column maps the provisional codes to the model's storage codes; the table
is made by the fitted encoder itself, from a frame holding each value once and a null, so
that the codes are those the encoder gives the rows.  The chunks are then counted, in the
order and with the boundaries the counting pass would read them: the counts (and every
float sum over them) are those of the two-pass fit.

The codes take a byte per cell (four when a column holds more than 254 values) and are kept
while they fit in the memory budget of :func:`~seminaive.streaming.keep_bytes`; past it,
or at a chunk that is not all-nominal Arrow dictionaries, they are dropped and the counting
pass reads the data again.

A plain all-string CSV file (or several of the same header, read as the file holding
their lines in turn) skips the scan of parsed chunks altogether: its fields are
coded as its lines are split, part by part on the threads
(:meth:`~seminaive.streaming._readers._ArrowCsvReader.plain_codes`), and
:class:`PlainCodes` maps each part's codes once, through a table per column composed of the
part's values and the encoder's storage codes, into the chunks that are counted (and kept
for a learner's later passes): one map from a field's bytes to the model's code, no Arrow
array, no second map.
"""

import numpy as np
import pyarrow as pa

from ..kernels._threads import parallel_calls
from ..kernels.csv_codes import map_part_rows
from ..kernels.strings import map_codes
from ..preprocessing.encoder import _arrow_frame, _is_arrow_dictionary
from ..preprocessing.validation import encode_labels
from ..tables._layout import storage_codes

#: the largest number of values a column may hold for its provisional codes to take a byte
BYTE_VALUES = 254


def _arrow_pieces(series):
    """The Arrow dictionary arrays of a column of a chunk, in row order."""
    arr = series.array.__arrow_array__()
    return list(arr.chunks) if isinstance(arr, pa.ChunkedArray) else [arr]


class KeptCodes:
    """Provisional codes of the chunks of a scan (see the module's text).

    Parameters
    ----------
    budget : int
        Bytes the kept codes, labels and weights may take; past it they are dropped.

    Attributes
    ----------
    active : bool
        False once the codes were dropped (the counting pass then reads the data).
    """

    def __init__(self, budget):
        self.budget = int(budget)
        self.active = True
        self._bytes = 0
        self._chunks = []  # (codes, labels, weights or None)
        self._lookups = None  # per column: value -> provisional code (1, 2, ...)
        self._types = None  # per column: the Arrow type of its dictionary's values

    def drop(self):
        self.active = False
        self._chunks = []
        self._lookups = None

    def add(self, X, y, w, nominal):
        """Code chunk ``X`` (a frame of features) and keep its codes, labels ``y`` and
        weights ``w``; drops everything when the chunk is not all-nominal Arrow
        dictionaries or the budget is exceeded."""
        if not self.active:
            return
        a = X.shape[1]
        if not nominal.all() or not all(_is_arrow_dictionary(t) for t in X.dtypes):
            self.drop()
            return
        if self._lookups is None:
            self._lookups = [{} for _ in range(a)]
            self._types = [t.pyarrow_dtype.value_type for t in X.dtypes]
            self._names = list(X.columns)
        n = X.shape[0]
        byte = all(len(lookup) <= BYTE_VALUES for lookup in self._lookups)
        codes = np.empty((n, a), dtype=np.uint8 if byte else np.int32, order="F")
        calls = []  # the rows are mapped on the threads once every table is known
        for col in range(a):
            lookup = self._lookups[col]
            out = codes[:, col]
            start = 0
            for piece in _arrow_pieces(X.iloc[:, col]):
                size = len(piece)
                if size == 0:
                    continue
                if piece.type.value_type != self._types[col]:
                    self.drop()
                    return
                # provisional code of each dictionary value (0: null), the last entry for
                # the index -1 of a null row
                table = [0 if v is None else lookup.setdefault(v, len(lookup) + 1)
                         for v in piece.dictionary.to_pylist()]
                if byte and len(lookup) > BYTE_VALUES:  # the chunk is coded again, wider
                    return self._add_wide(X, y, w, nominal)
                table = np.array([*table, 0], dtype=codes.dtype)
                indices = piece.indices
                if indices.null_count:
                    indices = indices.fill_null(-1)
                calls.append((indices.to_numpy(zero_copy_only=False), table,
                              out[start:start + size]))
                start += size
        parallel_calls(map_codes, calls)
        self._bytes += codes.nbytes + getattr(y, "nbytes", 8 * n) + (0 if w is None else w.nbytes)
        if self._bytes > self.budget:
            self.drop()
            return
        self._chunks.append((codes, y, w))

    def _add_wide(self, X, y, w, nominal):
        """The chunk coded again with four-byte codes (the values met so far keep their
        provisional codes: only the dtype changes)."""
        return self.add(X, y, w, nominal)

    def remapped(self, encoder, classes, sizes, owner):
        """Yield ``(storage codes, class indices, weights or None)`` of every kept chunk, as
        :class:`~seminaive.sources.ChunkEncoder` codes it for the fitted ``encoder``."""
        tables = self._tables(encoder, sizes, owner)
        dtype = np.uint8 if int(sizes.max()) <= 255 else np.int32
        chunks = self._chunks
        self._chunks = []
        for codes, y, w in chunks:
            out = np.empty(codes.shape, dtype=dtype, order="F")
            parallel_calls(map_codes, [(codes[:, col], table.astype(dtype), out[:, col])
                                       for col, table in enumerate(tables)])
            del codes
            yield out, encode_labels(y, classes), w

    def _tables(self, encoder, sizes, owner):
        """Per column, the storage code of each provisional code (index 0: a null), made by
        the fitted encoder on a frame that holds every value once and a null."""
        return storage_tables(encoder, [list(lookup) for lookup in self._lookups],
                              self._types, self._names, sizes, owner)

    @property
    def n_chunks(self):
        return len(self._chunks)


def storage_tables(encoder, values, types, names, sizes, owner):
    """Per column, the storage code of a null (index 0) and of each of its ``values``
    (index ``k + 1`` for ``values[col][k]``): the codes the fitted ``encoder`` gives the
    rows of a frame (columns ``names`` of Arrow dictionaries of ``types``) that holds every
    value once and a null, taken from its
    :meth:`~seminaive.AttributeEncoder.dictionary_codes` (the table it codes such a
    column through) where the encoder has one, else by encoding that frame."""
    dictionary_codes = getattr(encoder, "dictionary_codes", None)
    if dictionary_codes is not None and list(encoder.column_names_) == list(names) and bool(
            np.all(encoder.nominal_)):
        dtype = np.uint8 if sizes.max() <= 255 else np.int32
        out = []
        for col, column in enumerate(values):
            codes = dictionary_codes(col, column)
            table = np.empty(len(column) + 1, dtype=dtype)
            table[0] = codes[-1] + 1  # a null
            np.add(codes[:-1], 1, out=table[1:], casting="unsafe")
            out.append(table)
        return out
    a = len(values)
    rows = 1 + max(len(v) for v in values)
    columns = []
    for column, kind in zip(values, types, strict=True):
        k = len(column)
        indices = np.zeros(rows, dtype=np.int32)
        indices[1:k + 1] = np.arange(k, dtype=np.int32)
        mask = np.zeros(rows, dtype=bool)
        mask[0] = True
        columns.append(pa.DictionaryArray.from_arrays(pa.array(indices, mask=mask),
                                                      pa.array(column, type=kind)))
    keys = [str(c) for c in range(a)]
    frame = _arrow_frame(pa.table(columns, names=keys), set(keys))
    frame.columns = list(names)
    coded = storage_codes(encoder.encode(frame, owner), sizes)
    return [np.ascontiguousarray(coded[:len(column) + 1, col])
            for col, column in enumerate(values)]


class PlainCodes:
    """The codes of plain CSV files (:class:`~seminaive.streaming._readers.PlainCsv`)
    counted as :class:`KeptCodes` are: each part's codes mapped once, through a table per
    column composed of the part's values and the fitted encoder's storage codes, into
    chunks of ``chunk_rows`` rows (the files whose codes are kept running on from one into
    the next, as one file of their rows; block by block for a file coded in blocks), which
    are kept (``kept``) for a learner's passes after the counts while they take at most
    ``budget`` bytes; past it, ``kept`` makes the chunks again from the codes (a block's
    coded again) whenever it is read.

    Parameters
    ----------
    plain : PlainCsv
    features : list of str
    target : str
    chunk_rows : int
    budget : int, optional
        Bytes the kept chunks may take (default: no limit).
    """

    active = True

    def __init__(self, plain, features, target, chunk_rows, budget=None):
        self._plain = plain
        self._cols = np.array([plain.names.index(f) for f in features], dtype=np.int64)
        self._ycol = plain.names.index(target)
        self._names = list(features)
        self.chunk_rows = int(chunk_rows)
        self.budget = np.inf if budget is None else int(budget)
        self._n_rows = plain.n_rows
        self._nonnull = [plain.nonnull(int(col)) for col in self._cols]
        self.kept = []  # the chunks remapped (storage codes: a byte or four a cell)

    @property
    def n_chunks(self):
        return sum(len(self._bounds(rows)) for rows in self._group_rows())

    def _group_rows(self):
        return [group.rows if not isinstance(group, list) else
                sum(codes.shape[0] for codes, _ in group)
                for group in _runs(self._plain.groups)]

    def _bounds(self, rows):
        """``(start, stop)`` of the chunks of a group of ``rows`` rows."""
        return [(start, min(rows, start + self.chunk_rows))
                for start in range(0, rows, self.chunk_rows)]

    def remapped(self, encoder, classes, sizes, owner):
        """Yield ``(storage codes, class indices, None)`` of every chunk, as
        :class:`~seminaive.sources.ChunkEncoder` codes it for the fitted ``encoder``."""
        plain = self._plain
        storage = storage_tables(encoder, [kept for _, kept in self._nonnull],
                                 [pa.string()] * len(self._names), self._names, sizes, owner)
        self._dtype = np.uint8 if int(sizes.max()) <= 255 else np.int32
        # per column, the storage code of each of its values (index: the value's)
        self._storage = [store[index + 1] for store, (index, _) in
                         zip(storage, self._nonnull, strict=True)]
        labels = np.asarray(plain.values[self._ycol], dtype=object)
        self._ycodes = encode_labels(labels, classes).astype(np.int32)
        self._groups = plain.groups
        self._plain = None
        kept, size = [], 0
        for chunk in self._chunks():
            if kept is not None:
                size += chunk[0].nbytes + chunk[1].nbytes
                if size <= self.budget:
                    kept.append(chunk)
                else:
                    kept = None
            yield chunk
            del chunk
        if kept is None:
            self.kept = _Replay(self)
        else:
            self.kept = kept
            self._groups = None

    def _chunks(self):
        """The chunks, group by group (a block's parts coded again)."""
        dtype = self._dtype
        # per feature, the storage code of each of its values (padded with 0)
        storage = np.zeros((self._cols.size, max([1] + [t.size for t in self._storage])),
                           dtype=dtype)
        for j, table in enumerate(self._storage):
            storage[j, :table.size] = table
        ycodes = np.zeros(max(1, self._ycodes.size), dtype=np.int32)
        ycodes[:self._ycodes.size] = self._ycodes
        for group in _runs(self._groups):
            group = group if isinstance(group, list) else group.parts()
            parts = []  # per part: its first row, rows, codes, and its tables
            first = 0
            for codes, local in group:
                # each feature's values (local's rows) through its storage codes, and the
                # class's through the class codes: one take each
                tables = np.take_along_axis(storage, local[self._cols], axis=1)
                ytable = ycodes[local[self._ycol]]
                parts.append((first, codes.shape[0], codes, tables, ytable))
                first += codes.shape[0]
            del group
            for start, stop in self._bounds(first):
                out = np.empty((stop - start, self._cols.size), dtype=dtype, order="F")
                y = np.empty(stop - start, dtype=np.int32)
                calls = []
                for at, rows, codes, tables, ytable in parts:
                    lo, hi = max(start, at), min(stop, at + rows)
                    # about two calls a thread: the parts are of about the same size
                    for a, b in _halves(lo, hi):
                        calls.append((codes, a - at, b - at, self._cols, tables,
                                      out[a - start:b - start], self._ycol, ytable,
                                      y[a - start:b - start]))
                parallel_calls(map_part_rows, calls)
                yield out, y, None
                del out, y
            del parts


def _runs(groups):
    """The groups with each run of consecutive groups kept in memory (lists of parts, the
    files whose codes are kept) joined into one: their chunks run on from one file into the
    next (their parts' tables index the values of all the files), so that several small
    files are counted in chunks of ``chunk_rows`` rows as one file of their rows is."""
    out, run = [], []
    for group in groups:
        if isinstance(group, list):
            run.extend(group)
            continue
        if run:
            out.append(run)
            run = []
        out.append(group)
    if run:
        out.append(run)
    return out


class _Replay:
    """The chunks of :class:`PlainCodes` made again whenever they are read (those that
    did not fit in the budget)."""

    def __init__(self, codes):
        self._codes = codes

    def __iter__(self):
        return self._codes._chunks()


def _halves(lo, hi):
    """``[lo, hi)`` in two (none when empty)."""
    if hi <= lo:
        return []
    mid = (lo + hi) // 2
    return [(lo, mid), (mid, hi)] if mid > lo else [(lo, hi)]
