"""Readers: a source (files, DataFrames, iterables) as a sequence of DataFrame chunks, one
materialised at a time, and the constants of chunking.

Files are read with pyarrow and stay in Arrow: CSV files with pyarrow's multithreaded
reader, string columns parsed as plain strings then dictionary-encoded by one hash pass over
their buffers (``seminaive.kernels.strings``, the columns on the threads); Parquet files
with their string columns read as dictionaries, as they are stored.  A chunk's string column
is then an Arrow dictionary array (its values coded through a lookup of the chunk's
dictionary, never row by row).  A plain all-string CSV file (no quotes, UTF-8, every column
typed as strings), or several such files of the same header, is read by
:func:`~seminaive.streaming.fit_stream` without string arrays: its fields coded as its lines
are split (:meth:`_ArrowCsvReader.plain_codes`, :meth:`_ArrowCsvReader.plain_codes_of`),
the codes counted directly (``_codes.PlainCodes``).

The type of every CSV column is decided once for the whole source: by the first block of the
first file, widened (integers to floats, numbers to strings) when a later block holds a value
the type cannot hold, in which case the reader says so (:class:`ColumnTypeChanged`) and the
pass that was reading starts again with the wider type.  A reader whose types are fixed (a
declared schema, or the types a model was fitted on) refuses such a value with an
:class:`~seminaive.exceptions.InputError` naming the column and the line.
"""

import glob
import io
import mmap
import os
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.csv as pa_csv

from ..exceptions import InputError
from ..kernels.csv_codes import code_csv_files, code_csv_parts, csv_values, line_parts
from ..preprocessing._strings import (
    MAX_HASHED_VALUES,
    dictionary_encode,
    is_string_type,
    with_nulls,
)
from ..preprocessing.encoder import _arrow_frame

#: rows on which the cut points of numeric columns are computed (Chen et al. 2014, §4)
DEFAULT_SAMPLE_ROWS = 100_000
#: cells (rows x columns) per chunk when ``chunk_rows`` is not given: about 32 MB of codes
DEFAULT_CHUNK_CELLS = 1 << 23

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zip", ".xz", ".zst")
#: compressions pyarrow reads (a ``.zip`` file is read with pandas)
ARROW_COMPRESSIONS = (".gz", ".bz2", ".zst")
#: parsed chunks of a file source are kept in memory for the passes after the first while
#: they take at most this many bytes (a 1,000,000 x 20 string table takes about 90 MB); the
#: default of :func:`keep_bytes`, which the environment variable ``SEMINAIVE_KEEP_BYTES``
#: or the ``keep_bytes`` argument of :func:`~seminaive.streaming.fit_stream` overrides
KEEP_BYTES = 1 << 29
#: the environment variable that sets the budget of kept chunks, in bytes
KEEP_BYTES_VARIABLE = "SEMINAIVE_KEEP_BYTES"
#: parts of a plain CSV file coded on the threads, per core (more parts than threads: a
#: thread that is held up leaves its last parts to the others)
PLAIN_PARTS_PER_CORE = 4
#: the type of a string column read from a CSV file
DICTIONARY = pa.dictionary(pa.int32(), pa.string())


def keep_bytes(value=None):
    """The memory budget, in bytes, of the parsed chunks a fit keeps so as not to parse a
    file again: ``value`` when given, else the environment variable
    ``SEMINAIVE_KEEP_BYTES``, else ``KEEP_BYTES`` (512 MiB).  0 keeps nothing: every
    pass parses the file again, and memory holds one chunk at a time.

    Parameters
    ----------
    value : int, optional
        A budget in bytes (a non-negative int).

    Returns
    -------
    int

    Examples
    --------
    >>> from seminaive.streaming import keep_bytes
    >>> keep_bytes(1 << 20)
    1048576
    """
    where = "keep_bytes"
    if value is None:
        value = os.environ.get(KEEP_BYTES_VARIABLE)
        where = KEEP_BYTES_VARIABLE
        if value is None or value.strip() == "":
            return int(KEEP_BYTES)
        try:
            value = int(value.strip().replace("_", ""))
        except ValueError:
            raise InputError(f"the environment variable {KEEP_BYTES_VARIABLE}={value!r} is not "
                             "a number of bytes: set it to a non-negative integer such as "
                             "268435456 (256 MiB), or unset it for the default") from None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise InputError(f"{where} must be a non-negative number of bytes, got {value!r}")
    return int(value)


def default_chunk_rows(n_columns):
    """Rows per chunk for a table of ``n_columns`` columns (about 8 million cells)."""
    return int(min(1 << 20, max(1 << 12, DEFAULT_CHUNK_CELLS // max(int(n_columns), 1))))


class _NoBar:
    """The progress bar of a fit without one (tqdm not imported: about 0.15 s)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        pass


def _progress_bar(progress, total, desc):
    """A tqdm bar of rows, or a bar that shows nothing (``progress`` False, or None and
    stderr not a terminal)."""
    if progress is None:
        progress = sys.stderr.isatty()
    if not progress:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="rows", unit_scale=True, disable=not progress,
                leave=False)


# --------------------------------------------------------------------------------------------
# Readers: a source as a sequence of DataFrame chunks, one materialised at a time
# --------------------------------------------------------------------------------------------


def _file_format(path):
    p = Path(path)
    if p.is_dir():
        return "parquet"
    if p.exists() and not p.is_file():
        # a FIFO or a device: a fit reads its file more than once, so it would hang
        raise InputError(f"{os.fspath(path)} is not a regular file (a FIFO, a device or a "
                         "socket): the data is read more than once, so copy it to a file first")
    suffixes = [s.lower() for s in p.suffixes]
    if suffixes and suffixes[-1] in COMPRESSION_SUFFIXES:
        suffixes = suffixes[:-1]
    last = suffixes[-1] if suffixes else ""
    if last in PARQUET_SUFFIXES:
        return "parquet"
    if last in CSV_SUFFIXES:
        return "csv"
    raise InputError(f"cannot tell the format of {os.fspath(path)!r} from its name: name "
                     f"Parquet files {'/'.join(PARQUET_SUFFIXES)} and CSV files "
                     f"{'/'.join(CSV_SUFFIXES)} (optionally compressed), or pass DataFrames")


def _missing_file(path):
    if not os.path.exists(path):
        raise InputError(f"{os.fspath(path)!r}: no such file or directory")


class _ParquetReader:
    """Parquet files or directories, scanned with :mod:`pyarrow.dataset` in batches; string
    columns are read as dictionaries (as Parquet stores them), and stay in Arrow."""

    reiterable = True
    #: every value of a chunk's dictionary occurs in the file (Parquet's dictionary pages)
    dictionaries_used = True

    def __init__(self, paths):
        import pyarrow.dataset as ds

        self.paths = [os.fspath(p) for p in paths]
        self._scan_options = ds.ParquetFragmentScanOptions(pre_buffer=False)
        self._datasets = []
        self._undeclared = set()
        for path in self.paths:
            _missing_file(path)
            try:
                dataset = ds.dataset(path, format="parquet")
                strings = [f.name for f in dataset.schema
                           if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
                if strings:
                    # read as dictionaries: their values coded by a lookup per chunk
                    self._undeclared.update(strings)
                    dataset = ds.dataset(path, format=ds.ParquetFileFormat(
                        read_options=ds.ParquetReadOptions(dictionary_columns=strings)))
            except (pa.ArrowException, OSError) as err:
                raise InputError(f"{path!r} could not be read as Parquet: {err}") from err
            self._datasets.append(dataset)

    def columns(self):
        first = self._datasets[0].schema.names
        if not first:
            raise InputError(f"{self.paths[0]!r} holds no columns (an empty file or directory)")
        for path, dataset in zip(self.paths[1:], self._datasets[1:], strict=True):
            _check_same_columns(first, dataset.schema.names, path, self.paths[0])
        return list(first)

    def n_rows(self):
        return int(sum(d.count_rows() for d in self._datasets))

    def frames(self, columns, chunk_rows):
        for path, dataset in zip(self.paths, self._datasets, strict=True):
            # row group by row group, without read-ahead: a dataset scan reads row groups
            # ahead of a slower consumer (about 170 MB for 20 x 10^6 rows of 21 columns),
            # this stays at about one row group (under 30 MB)
            for fragment in dataset.get_fragments():
                for row_group in fragment.split_by_row_group():
                    batches = row_group.to_batches(
                        schema=dataset.schema, columns=list(columns),
                        batch_size=int(chunk_rows), batch_readahead=0,
                        fragment_scan_options=self._scan_options)
                    for batch in batches:
                        if batch.num_rows == 0:
                            continue
                        # as to_pandas() types the columns, strings left in Arrow
                        frame = _arrow_frame(batch, self._undeclared)
                        del batch
                        yield frame, path
                        del frame


class PlainCsv:
    """The fields of a plain CSV file coded by
    :func:`~seminaive.kernels.csv_codes.code_csv_parts` (see
    :meth:`_ArrowCsvReader.plain_codes`).

    Attributes
    ----------
    names : list of str
        The file's columns.
    groups : list
        The file's rows in order, in groups counted chunk by chunk on their own: a list of
        parts ``(codes, tables)``, ``codes`` the uint16 array (rows, columns) of each
        field's index among its part's distinct values of its column and ``tables[col]``
        (a row of an int32 array (columns, width)) their indices in ``values[col]`` (its
        first entries; the others 0) (the codes of a file kept in memory: one group),
        or a :class:`PlainBlock` (lines of a file too large for its codes to be kept,
        coded again whenever they are read).
    values : list
        Per column, its distinct strings in order of first appearance over the file (None
        for a column not read).  The first row holds the first value of every column.
    n_rows : int
    """

    def __init__(self, names, groups, values, n_rows):
        self.names = list(names)
        self.groups = groups
        self.values = values
        self.n_rows = int(n_rows)
        self._nonnull = {}

    @property
    def kept(self):
        """Whether every group's codes are in memory (no :class:`PlainBlock`)."""
        return all(isinstance(group, list) for group in self.groups)

    @property
    def parts(self):
        """The parts of the groups kept in memory, in order."""
        return [part for group in self.groups if isinstance(group, list) for part in group]

    @classmethod
    def concatenated(cls, plains):
        """The codes of several files of the same columns as those of the file that holds
        their lines one after the other: each column's values in order of first appearance
        over the files in turn, each part's tables of the columns read mapped into them
        (those of the other columns are left as they are); each file's groups stay
        groups (the counting pass reads its chunks file by file)."""
        first = plains[0]
        lookups = [None if v is None else {} for v in first.values]
        groups = []
        for plain in plains:
            maps = [None if lookup is None else np.array(
                [lookup.setdefault(v, len(lookup)) for v in plain.values[col]], dtype=np.int32)
                for col, lookup in enumerate(lookups)]
            for group in plain.groups:
                if isinstance(group, list):
                    groups.append(_mapped(group, maps))
                else:
                    group.maps = maps
                    groups.append(group)
        values = [None if lookup is None else list(lookup) for lookup in lookups]
        return cls(first.names, groups, values, sum(p.n_rows for p in plains))

    def nonnull(self, col):
        """``(table, kept)``: the values of column ``col`` that are not null strings
        (``kept``, in order of first appearance) and the int32 index in ``kept`` of each
        of its values (-1: a null string, as pyarrow's reader reads it); made once a
        column (the scan and the counting pass both ask; read only)."""
        got = self._nonnull.get(col)
        if got is None:
            values = self.values[col]
            table = np.full(len(values), -1, dtype=np.int32)
            kept = []
            for k, v in enumerate(values):
                if v not in _NULL_STRINGS:
                    table[k] = len(kept)
                    kept.append(v)
            got = self._nonnull[col] = (table, kept)
        return got


def _mapped(parts, maps):
    """The parts ``(codes, tables)`` with each column's row of ``tables`` (the int32 array
    (n_cols, width) of :func:`~seminaive.kernels.csv_codes.code_csv_parts`) through the
    column's map (None: kept as it is), one take a part."""
    if not parts:
        return []
    width = max(tables.shape[1] for _, tables in parts)
    n_cols = parts[0][1].shape[0]
    size = max([width] + [m.size for m in maps if m is not None])
    table = np.zeros((n_cols, size), dtype=np.int32)
    for col, m in enumerate(maps):
        if m is None:
            table[col] = np.arange(size, dtype=np.int32)
        else:
            table[col, :m.size] = m
    return [(codes, np.take_along_axis(table, tables, axis=1)) for codes, tables in parts]


def _plain_parts_count():
    """Parts a plain CSV file (or block) is coded in: ``PLAIN_PARTS_PER_CORE`` a core."""
    return PLAIN_PARTS_PER_CORE * max(1, min(8, os.cpu_count() or 1))


class PlainBlock:
    """Whole lines ``[lo, hi)`` of a plain CSV file whose codes are not kept: its fields
    coded again (:func:`~seminaive.kernels.csv_codes.code_csv_parts`) whenever the block is
    read, their tables mapped through ``lookups`` into the values of the file (and, for
    several files, through ``maps`` into the values of all of them).

    Parameters
    ----------
    path : str
    lo, hi : int
        The block's bytes.
    n_cols : int
    rows : int
        The rows of the block (another number when it is read again is an
        :class:`~seminaive.exceptions.InputError`: the file changed).
    lookups : list
        Per column, a dict from each value's bytes to its index in the file's values
        (None: a column not read).
    """

    def __init__(self, path, lo, hi, n_cols, rows, lookups):
        self.path, self.lo, self.hi = path, int(lo), int(hi)
        self.n_cols, self.rows, self.lookups = int(n_cols), int(rows), lookups
        self.maps = None

    def parts(self):
        """The block's parts ``(codes, tables)``, as :attr:`PlainCsv.groups` holds them."""
        changed = InputError(f"{self.path!r} changed while it was read: read it again")
        try:
            with open(self.path, "rb") as handle:
                data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError) as err:
            raise changed from err
        if len(data) < self.hi:
            raise changed
        got = code_csv_parts(data, self.n_cols, start=self.lo, end=self.hi,
                             n_parts=_plain_parts_count(), max_values=MAX_HASHED_VALUES)
        del data
        if got is None or sum(codes.shape[0] for codes, _ in got[0]) != self.rows:
            raise changed
        parts, raw = got
        maps = []
        for col, lookup in enumerate(self.lookups):
            if lookup is None:
                maps.append(None)
                continue
            try:
                m = np.array([lookup[v] for v in raw[col]], dtype=np.int32)
            except KeyError:
                raise changed from None
            maps.append(m if self.maps is None else self.maps[col][m])
        return _mapped(parts, maps)


#: the fewest bytes of a block of a plain CSV file coded block by block (a block is else a
#: quarter of the memory budget)
PLAIN_BLOCK_BYTES = 1 << 20


def _plain_blocks(path, data, start, n_cols, cols, budget, advance=None):
    """Pass 1 of a plain CSV file coded block by block (blocks of a quarter of the
    ``budget``, at least ``PLAIN_BLOCK_BYTES``, cut after line ends): the values of the
    columns ``cols`` in order of first appearance over the file, collected without the
    codes (:func:`~seminaive.kernels.csv_codes.csv_values`; a block's lines are coded
    when it is read, :class:`PlainBlock`); ``advance``, if given, called with the rows of
    every block.

    Returns
    -------
    (groups, raw, n_rows) or None
        ``groups`` the :class:`PlainBlock` of every block, ``raw[col]`` the distinct byte
        strings of column ``col`` (None for a column not read); None when the file is not
        plain CSV or a column has more than ``MAX_HASHED_VALUES`` values.
    """
    block = max(PLAIN_BLOCK_BYTES, budget // 4)
    lookups = [{} if col in cols else None for col in range(n_cols)]
    groups = []
    n_rows = 0
    for lo, hi in line_parts(data, max(1, -(-(len(data) - start) // block)), start):
        # the values alone: the codes are made when the block is counted
        got = csv_values(data, n_cols, start=lo, end=hi, n_parts=_plain_parts_count(),
                         max_values=MAX_HASHED_VALUES)
        if got is None:
            return None
        raw, rows = got
        for col in cols:
            lookup = lookups[col]
            for v in raw[col]:
                lookup.setdefault(v, len(lookup))
            if len(lookup) > MAX_HASHED_VALUES:
                return None
        groups.append(PlainBlock(path, lo, hi, n_cols, rows, lookups))
        n_rows += rows
        if advance is not None:
            advance(rows)
    return groups, [None if lookup is None else list(lookup) for lookup in lookups], n_rows


class ColumnTypeChanged(Exception):  # noqa: N818 - a signal to restart a pass, not an error
    """A CSV column's type was widened: the pass that was reading must start again."""


def _arrow_error_column(err, names):
    """The column a pyarrow CSV conversion error names (None if it names none)."""
    match = re.search(r"CSV column #(\d+)", str(err))
    if match is None or int(match.group(1)) >= len(names):
        return None
    return names[int(match.group(1))]


def _invalid_value(err):
    match = re.search(r"invalid value '(.*)'", str(err))
    return None if match is None else match.group(1)


def _settled_type(kind):
    """The type a CSV column inferred as ``kind`` is declared with (None: kept as it is)."""
    if pa.types.is_null(kind):
        return pa.float64()  # no value yet: numbers with NaN, as pandas reads it
    if (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_boolean(kind)
            or pa.types.is_string(kind) or pa.types.is_large_string(kind)
            or pa.types.is_dictionary(kind)):
        return kind
    return DICTIONARY  # dates and times: kept as the strings pandas would read


def _wider_type(kind, value):
    """The type a column of type ``kind`` takes to hold ``value`` as well, or None."""
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or \
            pa.types.is_dictionary(kind):
        return None
    if value is not None and (pa.types.is_integer(kind) or pa.types.is_null(kind)
                              or pa.types.is_floating(kind)):
        try:
            float(value)
        except ValueError:
            return DICTIONARY
        return None if pa.types.is_floating(kind) else pa.float64()
    return DICTIONARY


#: :attr:`_PlainFile.coded` of a file whose fields are not coded yet
_NOT_CODED = object()


class _PlainFile:
    """A CSV file opened by :meth:`_ArrowCsvReader._plain_open` for
    :meth:`_ArrowCsvReader.plain_codes`: its columns (``names``), those read (``wanted``),
    its bytes (``data``, a memory map), where its lines start after the header
    (``start``), its size, and ``coded``: what
    :func:`~seminaive.kernels.csv_codes.code_csv_parts` gives of its lines when they were
    coded with those of other files (``_NOT_CODED``: not yet)."""

    def __init__(self, names, wanted, data, start, size):
        self.names, self.wanted, self.data = names, wanted, data
        self.start, self.size = int(start), int(size)
        self.coded = _NOT_CODED


class _ArrowCsvReader:
    """CSV files read with pyarrow's block reader; string columns dictionary-encoded as they
    are parsed, every column's type decided once for all files (see the module's text).

    Parameters
    ----------
    paths : list of str
    column_types : dict, optional
        Declared pyarrow types of columns.
    fixed : bool, default=False
        The declared types are final: a value they cannot hold is an InputError (naming the
        column and the line) instead of a widening.
    """

    reiterable = True
    #: every value of a chunk's dictionary occurs in the file (built by the parser)
    dictionaries_used = True
    #: read a plain all-string file by coding its fields as its lines are split
    #: (:meth:`_read_plain`) in the frames it yields; off: at 1M x 20 fit_stream measured
    #: the same time as by pyarrow's parse and dictionary pass (NB 0.33 s, AODE 0.40-0.43 s,
    #: same process), its codes being mapped twice and indexed once more into Arrow
    #: dictionary arrays
    plain_reads = False
    #: fit_stream of a plain all-string file counts the codes of :meth:`plain_codes`
    #: directly (``_codes.PlainCodes``), without frames
    plain_fits = True

    def __init__(self, paths, column_types=None, fixed=False):
        self.paths = [os.fspath(p) for p in paths]
        self.types = dict(column_types or {})
        self.fixed = bool(fixed)
        self.keep_bytes = None  # the memory budget (None: that of keep_bytes())
        self._advance = None  # plain_codes_of's progress (rows coded)
        self._names = {}
        self._one_line = set()  # the paths whose header _header read from its first line
        for path in self.paths:
            _missing_file(path)

    def _open(self, path, columns, block_size, declared=True):
        from pyarrow import csv

        read = csv.ReadOptions(use_threads=True, block_size=int(block_size))
        convert = self._convert_options(columns, declared)
        try:
            return csv.open_csv(path, read_options=read, convert_options=convert)
        except pa.ArrowInvalid as err:
            self._refuse_or_widen(err, path, 0)
            raise InputError(f"{path!r} could not be read as CSV: {err}") from err
        except (pa.ArrowException, OSError) as err:
            raise InputError(f"{path!r} could not be read as CSV: {err}") from err

    def _convert_options(self, columns, declared):
        """pyarrow's conversion options: the declared types of ``columns`` (all: None), a
        column declared as a dictionary parsed as plain strings (:func:`_encode_strings`
        codes them after the parse, faster than pyarrow's own dictionary encoding while
        parsing, which measured twice a plain parse)."""
        from pyarrow import csv

        # strings_can_be_null=False: the null strings of a string column ("", "NA", ...)
        # are made nulls by _encode_strings on the few values of its dictionary, not by the
        # parser on every value (a parse of strings that can be null measured up to 1.7x)
        return csv.ConvertOptions(
            column_types={k: _parse_type(v) for k, v in self.types.items() if declared and (
                columns is None or k in columns)},
            include_columns=None if columns is None else list(columns),
            strings_can_be_null=False)

    def _header(self, path):
        if path not in self._names:
            names = _header_line_names(path)
            if names is not None:
                self._one_line.add(path)
            else:  # a header that the first line alone cannot give
                reader = self._open(path, None, 1 << 16, declared=False)
                names = list(reader.schema.names)
                reader.close()
            self._names[path] = names
        return self._names[path]

    def columns(self):
        first = self._header(self.paths[0])
        for path in self.paths[1:]:
            _check_same_columns(first, self._header(path), path, self.paths[0])
        return first

    def n_rows(self):
        return None

    def _block_size(self, chunk_rows):
        """Bytes per block for about ``chunk_rows`` rows (from the first lines' length)."""
        try:
            with _open_text(self.paths[0]) as handle:
                head = handle.read(1 << 16)
        except OSError:
            head = b""
        lines = head.count(b"\n")
        per_row = len(head) / lines if lines > 1 else 64
        return int(min(1 << 26, max(1 << 16, chunk_rows * per_row)))

    def _read_whole(self, path, columns):
        """The whole file as one table (pyarrow's multithreaded reader, which infers every
        column's type from all its values), or None when the file is too large to hold."""
        from pyarrow import csv

        if Path(path).suffix.lower() in COMPRESSION_SUFFIXES:
            return None
        size = os.path.getsize(path)
        budget = keep_bytes() if self.keep_bytes is None else self.keep_bytes
        if size > budget // 2:
            return None
        read = csv.ReadOptions(use_threads=True, block_size=int(
            min(1 << 26, max(1 << 20, size // (4 * (os.cpu_count() or 1))))))
        try:
            return csv.read_csv(path, read_options=read,
                                convert_options=self._convert_options(columns, True))
        except pa.ArrowInvalid as err:
            self._refuse_or_widen(err, path, 0)
            raise InputError(f"{path!r} could not be read as CSV: {err}") from err
        except (pa.ArrowException, OSError) as err:
            raise InputError(f"{path!r} could not be read as CSV: {err}") from err

    def plain_codes(self, path, columns=None, empty=False, blocks=False, opened=None):
        """The fields of a plain all-string CSV file coded as its lines are split
        (:func:`~seminaive.kernels.csv_codes.code_csv_parts`, the file memory-mapped, its
        parts on the threads), without string arrays, or None (then pyarrow reads it)
        unless the file is plain CSV (no quote in its lines, ``,``-separated, ``\n`` or
        ``\r\n`` line ends, UTF-8, no byte order mark, a header on its first line) whose
        every column (of ``columns``; all: None) is one pyarrow types as strings (its type
        inferred from its distinct values, as the whole-file read infers it from all of
        them) with at most ``MAX_HASHED_VALUES`` values.  A file within the memory
        budget (its bytes under half of it, and two bytes a field) has its codes kept; a
        larger one is coded block by block, its blocks coded again when they are read
        (:class:`PlainBlock`).  A column an earlier file of the reader typed
        as strings is not inferred again (pyarrow reads it with that type).

        Parameters
        ----------
        path : str
        columns : list of str, optional
        empty : bool, default=False
            Give the (empty) codes of a file of a header alone, rather than None.
        blocks : bool, default=False
            Code the file block by block (:func:`_plain_blocks`), its codes not kept, as a
            file is coded when it is larger than half the budget or its codes take more
            than the budget.
        opened : _PlainFile, optional
            The file opened by :meth:`_plain_open` for ``path`` and ``columns``, and its
            fields already coded (:attr:`_PlainFile.coded`, with the other files of a
            batch, :meth:`plain_codes_of`): not coded again unless ``blocks``.

        Returns
        -------
        PlainCsv or None
        """
        budget = keep_bytes() if self.keep_bytes is None else self.keep_bytes
        if opened is None:
            opened = self._plain_open(path, columns)
            if opened is None:
                return None
        names, wanted, data, start = opened.names, opened.wanted, opened.data, opened.start
        cols = [names.index(name) for name in wanted]
        got = None
        if not blocks and opened.size <= budget // 2:
            got = opened.coded if opened.coded is not _NOT_CODED else code_csv_parts(
                data, len(names), start=start, n_parts=_plain_parts_count(),
                max_values=MAX_HASHED_VALUES)
            opened.coded = _NOT_CODED
            if got is None:
                return None
            parts, raw = got
            n_rows = sum(codes.shape[0] for codes, _ in parts)
            groups = [parts]
            if 2 * n_rows * len(names) + n_rows * len(wanted) > budget:
                got = parts = groups = None  # the codes do not fit: coded block by block
            elif self._advance is not None:
                self._advance(n_rows)
        if got is None:
            got = _plain_blocks(path, data, start, len(names), cols, budget,
                                self._advance)
            if got is None:
                return None
            groups, raw, n_rows = got
        del data, opened
        values = {}
        for col in cols:
            try:
                values[col] = [v.decode("utf-8") for v in raw[col]]
            except UnicodeDecodeError:
                return None
        # a column an earlier file typed as strings is read as strings (as pyarrow reads it
        # with the type declared); a file without rows types no column
        undecided = [col for col in cols if self.types.get(names[col]) is None]
        if n_rows == 0:
            if not empty:
                return None
        elif not all(_inferred_as_strings([raw[col] for col in undecided])):
            return None
        if n_rows:
            for name in wanted:
                self.types.setdefault(name, pa.string())
        return PlainCsv(names, groups, [values.get(col) for col in range(len(names))],
                        n_rows)

    def _plain_open(self, path, columns):
        """``path`` memory-mapped after the checks of :meth:`plain_codes` that need no
        field of it (its suffix, size, header, the declared types of ``columns``, a byte
        order mark): a :class:`_PlainFile`, or None when the file cannot be plain."""
        if Path(path).suffix.lower() in COMPRESSION_SUFFIXES:
            return None
        size = os.path.getsize(path)
        if size == 0:
            return None
        names = self._header(path)
        wanted = list(names) if columns is None else list(columns)
        if len(names) < 2 or len(set(names)) != len(names) or any(
                n not in names for n in wanted):
            return None
        for name in wanted:
            kind = self.types.get(name)
            if kind is not None and not (is_string_type(kind) or (
                    pa.types.is_dictionary(kind) and is_string_type(kind.value_type))):
                return None
        if path not in self._one_line:  # a header on more than one line
            return None
        with open(path, "rb") as handle:
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        if hasattr(data, "madvise") and hasattr(mmap, "MADV_SEQUENTIAL"):
            data.madvise(mmap.MADV_SEQUENTIAL)
        end = data.find(b"\n")
        if data[:3] == b"\xef\xbb\xbf":
            return None
        if end < 0:  # a header without a line end: no rows
            end = len(data) - 1
        return _PlainFile(names, wanted, data, end + 1, size)

    def _code_batch(self, paths, columns, budget):
        """The files of ``paths`` from the first, while their bytes together are within
        half the ``budget`` (the most one file coded whole may take), opened
        (:meth:`_plain_open`) and their fields coded in one batch on the threads
        (:func:`~seminaive.kernels.csv_codes.code_csv_files`): the :class:`_PlainFile` of
        each (None for a file that cannot be plain, which ends the batch); the first file
        is always opened, and coded when it is within half the budget."""
        batch, total = [], 0
        for path in paths:
            size = os.path.getsize(path) if os.path.exists(path) else 0
            if batch and total + size > budget // 2:
                break
            opened = self._plain_open(path, columns)
            batch.append(opened)
            if opened is None:
                break
            total += size
        coding = [opened for opened in batch if opened is not None
                  and opened.size <= budget // 2]
        if coding:
            got = code_csv_files([opened.data for opened in coding], len(coding[0].names),
                                 starts=[opened.start for opened in coding],
                                 n_parts=_plain_parts_count() * len(coding),
                                 max_values=MAX_HASHED_VALUES)
            for opened, coded in zip(coding, got, strict=True):
                opened.coded = coded
        return batch

    def plain_codes_of(self, paths, columns=None, advance=None):
        """:meth:`plain_codes` of several files of the same header, as the codes of the
        file that holds their lines one after the other (:meth:`PlainCsv.concatenated`; a
        file of a header alone adds no rows), or None (the types :meth:`plain_codes`
        decided forgotten) when a file is not plain or the files have other headers.  The
        files are coded in batches (:meth:`_code_batch`: files of at most half the memory
        budget together), the parts of a batch's files together on the threads.  A file
        whose codes, with those of the files before it, exceed the memory budget is
        coded block by block.

        Parameters
        ----------
        paths : list of str
        columns : list of str, optional
        advance : callable, optional
            Called with the number of rows of every file (or block) coded: a progress
            bar's ``update``.

        Returns
        -------
        PlainCsv or None
        """
        types = dict(self.types)
        budget = keep_bytes() if self.keep_bytes is None else self.keep_bytes
        plains = []
        used = 0  # bytes of the codes kept so far
        batch = []
        try:
            for k, path in enumerate(paths):
                self._advance = advance
                if not batch:
                    batch = self._code_batch(paths[k:], columns, budget)
                opened = batch.pop(0)
                # (positional: empty, not in blocks, the opened file)
                plain = None if opened is None else self.plain_codes(
                    path, columns, len(paths) > 1, False, opened)
                if plain is not None and plain.kept:
                    n_read = sum(v is not None for v in plain.values)
                    size = plain.n_rows * (2 * len(plain.names) + n_read)
                    if used + size > budget:  # the files' codes together do not fit
                        self._advance = None  # (its rows were counted)
                        plain = self.plain_codes(path, columns, len(paths) > 1, True)
                    else:
                        used += size
                if plain is None or (plains and plain.names != plains[0].names):
                    self.types = types
                    return None
                plains.append(plain)
        finally:
            self._advance = None
        if len(plains) == 1:
            return plains[0]
        return PlainCsv.concatenated(plains)

    def _read_plain(self, path, columns):
        """The whole file as one table of dictionary columns from :meth:`plain_codes`:
        the table :meth:`_read_whole` and :func:`_encode_strings` give, or None (then they
        read it) when :meth:`plain_codes` gives up."""
        plain = self.plain_codes(path, columns)
        if plain is None or not plain.kept:
            return None
        wanted = list(plain.names) if columns is None else list(columns)
        arrays = []
        for name in wanted:
            col = plain.names.index(name)
            table, kept = plain.nonnull(col)
            indices = np.empty(plain.n_rows, dtype=np.int32)
            row = 0
            for codes, tables in plain.parts:
                if not codes.shape[0]:
                    continue
                indices[row:row + codes.shape[0]] = table[tables[col]][codes[:, col]]
                row += codes.shape[0]
            nulls = indices < 0
            arrays.append(pa.DictionaryArray.from_arrays(
                pa.array(indices, mask=nulls if nulls.any() else None),
                pa.array(kept, pa.string())))
        return pa.table(arrays, names=wanted)

    def frames(self, columns, chunk_rows):
        chunk_rows = int(chunk_rows) if chunk_rows else 1 << 16
        block_size = None
        for path in self.paths:
            coded = self._read_plain(path, columns) if self.plain_reads else None
            if coded is not None:  # the fields coded as the lines were split
                for start in range(0, coded.num_rows, chunk_rows):
                    frame = _arrow_frame(coded.slice(start, chunk_rows), set(coded.column_names))
                    yield frame, path
                    del frame
                del coded
                continue
            table = self._read_whole(path, columns)
            if table is not None:
                settle = {f.name: _settled_type(f.type) for f in table.schema
                          if f.name not in self.types}
                self.types.update(settle)
                changed = [n for n in settle if settle[n] != table.schema.field(n).type]
                if changed:
                    table = table.cast(pa.schema([
                        pa.field(f.name, _parse_type(settle.get(f.name, f.type)))
                        for f in table.schema]))
                table, undeclared = _encode_strings(table)
                for start in range(0, table.num_rows, chunk_rows):
                    frame = _arrow_frame(table.slice(start, chunk_rows), undeclared)
                    yield frame, path
                    del frame
                del table
                continue
            if block_size is None:
                block_size = self._block_size(chunk_rows)
            reader = self._open(path, columns, block_size)
            settle = {f.name: _settled_type(f.type) for f in reader.schema
                      if f.name not in self.types}
            if settle:  # the first block decides the types the others are read with
                self.types.update(settle)
                if any(settle[name] != reader.schema.field(name).type for name in settle):
                    reader.close()
                    reader = self._open(path, columns, block_size)
            first_row = 0
            with reader:
                while True:
                    try:
                        batch = reader.read_next_batch()
                    except StopIteration:
                        break
                    except pa.ArrowInvalid as err:
                        self._refuse_or_widen(err, path, first_row)
                        raise InputError(f"{path!r} could not be read as CSV after row "
                                         f"{first_row}: {err}") from err
                    batch, undeclared = _encode_strings(pa.Table.from_batches([batch]))
                    for start in range(0, batch.num_rows, chunk_rows):
                        part = batch.slice(start, chunk_rows)
                        frame = _arrow_frame(part, undeclared)
                        del part
                        yield frame, path
                        del frame
                    first_row += batch.num_rows
                    del batch

    def _refuse_or_widen(self, err, path, first_row):
        """Widen the column a conversion error names and raise :class:`ColumnTypeChanged`,
        or (types fixed) raise an InputError naming the column and the line."""
        if "Empty CSV file" in str(err):
            raise InputError(f"{path!r} is empty: no header and no rows") from err
        name = _arrow_error_column(err, self._names.get(path, ()))
        if name is None:
            return
        kind = self.types.get(name)
        value = _invalid_value(err)
        wider = None if kind is None or self.fixed else _wider_type(kind, value)
        if wider is not None:
            self.types[name] = wider
            raise ColumnTypeChanged(name)
        line = self._line_of(path, name, kind, first_row)
        where = f"line {line}" if line is not None else f"a line after row {first_row}"
        advice = (f" (give a {kind}, or leave it empty: a missing value)" if self.fixed
                  else ", or read the column as strings")
        raise InputError(
            f"{path!r}, column {name!r}, {where}: the value {value!r} is not a {kind} as the "
            f"column's other values are (its type was decided "
            f"{'by the model or the declared types' if self.fixed else 'from the whole file'}"
            f"): correct the value{advice}") from err

    def _line_of(self, path, name, kind, first_row):
        """The line (1 = the header) of the first value of column ``name`` that is not a
        ``kind``, or None."""
        from pyarrow import compute as pc
        from pyarrow import csv

        if kind is None:
            return None
        reader = csv.open_csv(path, convert_options=csv.ConvertOptions(
            include_columns=[name], column_types={name: pa.string()},
            strings_can_be_null=True))
        row = 0
        for batch in reader:
            values = batch.column(0)
            for i in range(0, len(values), 4096):
                part = values.slice(i, 4096)
                try:
                    pc.cast(part, kind.value_type if pa.types.is_dictionary(kind) else kind)
                except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                    for j, v in enumerate(part.to_pylist()):
                        try:
                            pc.cast(pa.array([v], pa.string()), kind)
                        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                            return row + i + j + 2
            row += len(values)
        return None


#: the strings pyarrow's CSV reader reads as nulls by default (``""``, ``"NA"``, ``"null"``,
#: ...): those of a string column are made nulls after the parse
_NULL_STRINGS = frozenset(pa_csv.ConvertOptions().null_values)


def _inferred_as_strings(columns):
    """Whether pyarrow's CSV reader types each column holding the byte strings of
    ``columns`` (a list per column, and no others) as strings: its inference widens a type
    on a value it cannot hold, so that the distinct values decide the type of a column.
    One read of a small CSV text whose column ``j`` lists ``columns[j]`` (its first value
    repeated down to the longest list: repeating a value changes no inferred type), of the
    columns that hold no value :func:`_surely_text` says is text (its column is then typed
    as strings, whatever its other values: the inference only ever widens a type)."""
    if not columns:
        return []
    if any(not values for values in columns):  # no row
        return [False] * len(columns)
    todo = [j for j, values in enumerate(columns) if not any(map(_surely_text, values))]
    if len(todo) < len(columns):
        out = [True] * len(columns)
        if todo:
            for j, typed in zip(todo, _inferred_as_strings([columns[j] for j in todo]),
                                strict=True):
                out[j] = typed
        return out
    rows = max(len(values) for values in columns)
    names = ",".join(f"c{j}" for j in range(len(columns))).encode()
    lines = [b",".join(values[i] if i < len(values) else values[0] for values in columns)
             for i in range(rows)]
    try:
        table = pa_csv.read_csv(io.BytesIO(names + b"\n" + b"\n".join(lines) + b"\n"))
    except pa.ArrowException:
        return [False] * len(columns)
    if table.num_columns != len(columns):
        return [False] * len(columns)
    return [is_string_type(field.type) for field in table.schema]


def _surely_text(value):
    """Whether the byte string ``value`` (valid UTF-8) is a field no type of pyarrow's CSV
    inference but strings holds: it starts with an ASCII letter and holds an ASCII digit
    (``v0``, ``c12``).  A null (``NA``, ``null``, ``nan``, ...), a boolean (``true``), a
    number (``inf``, ``1e5``) or a date or time (which start with a digit) is never
    both."""
    return value[:1].isalpha() and any(48 <= c <= 57 for c in value)


def _parse_type(kind):
    """The type pyarrow parses a CSV column of type ``kind`` with: plain strings for a
    dictionary (coded after the parse by :func:`_encode_strings`)."""
    return kind.value_type if pa.types.is_dictionary(kind) else kind


def _encode_strings(table):
    """The string columns of a parsed table as dictionary columns (each chunk's distinct
    values found by one hash pass over its buffers, the columns on the threads), and the
    names of those columns; a column with more than
    ``MAX_HASHED_VALUES`` (``seminaive.preprocessing._strings``) distinct values in a chunk
    stays plain strings."""
    names = [f.name for f in table.schema if is_string_type(f.type)]
    if not names:
        return table, set()
    coded = dictionary_encode([table.column(n) for n in names], give_up=True,
                              null_values=_NULL_STRINGS)
    done = set()
    for name, column in zip(names, coded, strict=True):
        if column is None:  # too many values for a dictionary: plain strings
            column = with_nulls(table.column(name), _NULL_STRINGS)
        else:
            done.add(name)
        table = table.set_column(table.schema.get_field_index(name), name, column)
    return table, done


def _header_line_names(path):
    """The column names of a CSV file parsed from its first line alone (a fifth of the time
    of opening pyarrow's block reader on the file, which starts its threads and reads a
    whole block: a fixed cost of every fit and prediction of a file), or None when the
    first line ends inside a quoted name (which then spans lines) or cannot be read that
    way.  Quoted names on one line (``"a","b"``, as ``pyarrow.csv.write_csv`` writes a
    header) are read from the line."""
    from pyarrow import csv

    try:
        with _open_text(path) as handle:
            head = handle.read(1 << 16)
    except OSError:
        return None
    end = head.find(b"\n")
    line = head if end < 0 else head[:end + 1]
    if not line.strip() or not _ends_outside_quotes(line) or (
            end < 0 and len(head) == 1 << 16):
        return None
    names = _plain_header(line)
    if names is not None:
        return names
    try:
        reader = csv.open_csv(pa.BufferReader(line), read_options=csv.ReadOptions(
            use_threads=False))
    except (pa.ArrowException, OSError):
        return None
    names = list(reader.schema.names)
    reader.close()
    return names


def _plain_header(line):
    """The names of a header line split at its commas, as pyarrow's parser reads them,
    when the line is plain (no quote, no carriage return but one before its line end, no
    byte order mark, UTF-8, every name non-empty): without starting pyarrow's reader (a
    third of a millisecond a file); None for any other line."""
    body = line[:-1] if line.endswith(b"\n") else line
    if body.endswith(b"\r"):
        body = body[:-1]
    if not body or b'"' in body or b"\r" in body or body.startswith(b"\xef\xbb\xbf"):
        return None
    try:
        names = body.decode("utf-8").split(",")
    except UnicodeDecodeError:
        return None
    return names if all(names) else None


def _ends_outside_quotes(line):
    """Whether the bytes ``line`` end outside a quoted field, as pyarrow's CSV parser reads
    them with its default options (a ``"`` at the start of a field opens a quoted field,
    ``""`` within it is a quote, a ``"`` elsewhere is an ordinary character)."""
    quoted, start, i, n = False, True, 0, len(line)
    while i < n:
        c = line[i]
        if quoted:
            if c == 34:  # '"'
                if i + 1 < n and line[i + 1] == 34:
                    i += 1
                else:
                    quoted = False
        elif c == 34 and start:
            quoted = True
        start = not quoted and c == 44  # ','
        i += 1
    return not quoted


def _open_text(path):
    """The file's bytes (decompressed for the compressions pyarrow reads)."""
    if Path(path).suffix.lower() in ARROW_COMPRESSIONS:
        return pa.CompressedInputStream(pa.OSFile(os.fspath(path)),
                                        pa.Codec.detect(os.fspath(path)).name)
    return open(path, "rb")


def _pandas_kind(dtype):
    """``"bool"``, ``"int"``, ``"float"`` or ``"object"``: how a column pandas parsed is
    typed for the decision of :class:`_CsvReader`."""
    if pd.api.types.is_bool_dtype(dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(dtype):
        return "int"
    if pd.api.types.is_float_dtype(dtype):
        return "float"
    return "object"


def _wider_kind(decided, found):
    """The kind a column decided as ``decided`` takes when a chunk reads as ``found`` (the
    same kind when it holds the chunk as it is)."""
    if decided == found or (decided == "float" and found == "int"):
        return decided
    if {decided, found} == {"int", "float"}:
        return "float"
    return "object"


class _CsvReader:
    """CSV files with ``csv_options`` (keyword arguments of ``pandas.read_csv``) or zipped,
    read with ``pandas.read_csv(chunksize=...)``.

    Every column's type is decided once for the whole source, as :class:`_ArrowCsvReader`
    does: by the first chunk, widened (integers to floats, numbers to strings) when a later
    chunk holds a value the type cannot hold, in which case the reader raises
    :class:`ColumnTypeChanged` and the pass that was reading starts again; a column decided
    as strings is then read as strings (``"01"`` stays ``"01"``) in every chunk.  Once the
    types are final (``fixed``), a chunk that contradicts them is an
    :class:`~seminaive.exceptions.InputError` naming the column and the rows.  Columns given
    a ``dtype`` in ``csv_options`` keep it.
    """

    reiterable = True

    def __init__(self, paths, options=None, column_types=None):
        self.paths = [os.fspath(p) for p in paths]
        self.options = dict(options or {})
        self.kinds = {}  # column -> "bool" / "int" / "float" / "object", decided once
        self.fixed = False
        # decided only by a reader whose passes restart on ColumnTypeChanged (fit_stream
        # sets it); the types of a model (predictions): its string columns read as strings,
        # the others as they come (the encoder codes numbers by value, a NaN as missing)
        self.decide_types = False
        for name, kind in (column_types or {}).items():
            if pa.types.is_dictionary(kind) or pa.types.is_string(kind):
                self.kinds[name] = "object"
        declared = self.options.get("dtype")
        self._declared = declared if isinstance(declared, dict) else None
        self._all_declared = declared is not None and not isinstance(declared, dict)
        for path in self.paths:
            _missing_file(path)

    def _header(self, path):
        try:
            return list(pd.read_csv(path, nrows=0, **self.options).columns)
        except pd.errors.EmptyDataError as err:
            raise InputError(f"{path!r} is empty: no header and no rows") from err

    def columns(self):
        first = self._header(self.paths[0])
        for path in self.paths[1:]:
            _check_same_columns(first, self._header(path), path, self.paths[0])
        return first

    def n_rows(self):
        return None

    def _read_options(self):
        options = dict(self.options)
        if self._all_declared:
            return options
        strings = {name: object for name, kind in self.kinds.items() if kind == "object"}
        if strings:
            options["dtype"] = {**strings, **(self._declared or {})}
        return options

    def _settle(self, frame, path, first_row):
        """The chunk with every column in its decided type (deciding the undecided ones)."""
        if self._all_declared or not self.decide_types:
            return frame
        declared = self._declared or {}
        casts = {}
        for name in frame.columns:
            if name in declared:
                continue
            found = _pandas_kind(frame[name].dtype)
            decided = self.kinds.setdefault(name, found)
            wider = _wider_kind(decided, found)
            if wider == decided == "object" and found != "object":
                # decided after the file was opened: the chunk's numbers lost their text
                # ("01" read as 1); read again with the column declared as strings
                raise ColumnTypeChanged(name)
            if wider != decided:
                if self.fixed:
                    raise InputError(
                        f"{path!r}, column {name!r}, rows from {first_row}: values that are "
                        f"not {decided} as the column's other values are (its type was "
                        "decided from the whole file): correct them, or give the column's "
                        "type with csv_options={'dtype': {...}}")
                self.kinds[name] = wider
                raise ColumnTypeChanged(name)
            if decided == "float" and found == "int":
                casts[name] = np.float64
        return frame.astype(casts) if casts else frame

    def frames(self, columns, chunk_rows):
        columns = list(columns)
        for path in self.paths:
            first_row = 0
            with pd.read_csv(path, chunksize=int(chunk_rows), usecols=columns,
                             **self._read_options()) as chunks:
                for frame in chunks:
                    if frame.shape[0] == 0:
                        continue
                    frame = self._settle(frame[columns], path, first_row)
                    first_row += frame.shape[0]
                    yield frame, path
                    del frame


class _FrameReader:
    """DataFrames from a DataFrame (sliced), a list, a factory callable or an iterator."""

    def __init__(self, source):
        self._pending = None
        if isinstance(source, pd.DataFrame):
            self._factory, self.reiterable = None, True
        elif callable(source):
            self._factory, self.reiterable = source, True
        elif iter(source) is source:
            self._factory, self.reiterable = None, False
        else:
            self._factory, self.reiterable = None, True
        self._source = source
        self._used = False

    def columns(self):
        return None  # known from the first chunk

    def n_rows(self):
        if isinstance(self._source, pd.DataFrame):
            return int(self._source.shape[0])
        return None

    def _iterate(self, chunk_rows):
        source = self._source
        if isinstance(source, pd.DataFrame):
            for start in range(0, source.shape[0], int(chunk_rows)):
                yield source.iloc[start: start + int(chunk_rows)]
            return
        if self._factory is not None:
            source = self._factory()
        elif not self.reiterable:
            if self._used:
                raise InputError("this source is a one-shot iterator and has already been "
                                 "read: pass a list of DataFrames, a callable returning a "
                                 "fresh iterator, or files")
            self._used = True
        yield from source

    def frames(self, columns, chunk_rows):
        index = 0
        for item in self._iterate(chunk_rows):
            where = f"chunk {index}"
            index += 1
            if not isinstance(item, pd.DataFrame):
                raise InputError(f"{where} of the source is a {type(item).__name__}, not a "
                                 "DataFrame: an iterable source must yield DataFrames that "
                                 "hold the features and the target column")
            frame = _select(item, columns, where) if columns is not None else item
            del item
            if frame.shape[0] == 0:
                continue
            yield frame, where
            del frame


def _is_path(obj):
    return isinstance(obj, (str, os.PathLike))


#: the characters that make a path string a pattern of :func:`expand_patterns`
_WILDCARDS = re.compile(r"[*?[]")


def expand_patterns(source):
    """``source`` with every path string holding a wildcard (``*``, ``?``, ``[...]``;
    ``**`` for any depth of folders, :func:`glob.glob`) replaced by the paths it matches,
    in sorted order (a string that names an existing file or folder is taken as it is).
    A list of paths is expanded pattern by pattern, in its order; any other source is
    returned as it is.

    Raises
    ------
    InputError
        A pattern matches nothing (the error names it).

    Examples
    --------
    >>> import os, tempfile
    >>> from seminaive.streaming._readers import expand_patterns
    >>> folder = tempfile.mkdtemp()
    >>> for name in ("b.csv", "a.csv", "c.txt"):
    ...     open(os.path.join(folder, name), "w").close()
    >>> [os.path.basename(p) for p in expand_patterns(os.path.join(folder, "*.csv"))]
    ['a.csv', 'b.csv']
    """
    if isinstance(source, str):
        return _expand_pattern(source) if _is_pattern(source) else source
    if (isinstance(source, (list, tuple)) and source and all(_is_path(p) for p in source)
            and any(_is_pattern(p) for p in source)):
        return [path for p in source
                for path in (_expand_pattern(p) if _is_pattern(p) else [p])]
    return source


def _is_pattern(path):
    return (isinstance(path, str) and _WILDCARDS.search(path) is not None
            and not os.path.exists(path))


def _expand_pattern(pattern):
    paths = sorted(glob.glob(pattern, recursive=True))
    if not paths:
        raise InputError(f"no file matches the pattern {pattern!r}")
    return paths


def open_source(source, csv_options=None, column_types=None):
    """A reader over ``source`` (path, list of paths, DataFrame(s), callable or iterator);
    ``column_types`` (pyarrow types by column name) are final for a CSV file.  A path with
    wildcards is the files it matches, sorted (:func:`expand_patterns`): every route that
    reads files (``fit_stream``, ``predict_stream``, ``explain_stream``, the command line)
    opens them here."""
    source = expand_patterns(source)  # "data/part-*.csv": the files, sorted
    if _is_path(source):
        paths = [source]
    elif isinstance(source, (list, tuple)) and source and all(_is_path(p) for p in source):
        paths = list(source)
    elif isinstance(source, (list, tuple)) and any(_is_path(p) for p in source):
        raise InputError("a list source must hold only paths or only DataFrames")
    else:
        if isinstance(source, (list, tuple)) and not source:
            raise InputError("the source is an empty list: there is no data")
        if not (isinstance(source, pd.DataFrame) or callable(source)
                or hasattr(source, "__iter__")):
            raise InputError(f"cannot read data from a {type(source).__name__}: pass a Parquet "
                             "or CSV path, a list of paths, DataFrames, or an iterable of "
                             "DataFrames")
        return _FrameReader(source)
    formats = {_file_format(p) for p in paths}
    if len(formats) > 1:
        raise InputError("a list of files must be all Parquet or all CSV, got both")
    if formats == {"parquet"}:
        if csv_options:
            raise InputError("csv_options are for CSV files; the source is Parquet")
        return _ParquetReader(paths)
    if csv_options or any(Path(p).suffix.lower() in COMPRESSION_SUFFIXES
                          and Path(p).suffix.lower() not in ARROW_COMPRESSIONS for p in paths):
        return _CsvReader(paths, csv_options, column_types)
    return _ArrowCsvReader(paths, column_types, fixed=column_types is not None)


class _KeptChunks:
    """A file reader whose chunks are kept in memory, while they take at most ``budget``
    bytes (default: :func:`keep_bytes`), by the first pass that reads them all: the passes
    after it do not parse the files again."""

    reiterable = True

    def __init__(self, reader, budget=None):
        self._reader = reader
        self.paths = reader.paths
        self.budget = keep_bytes(budget)
        if hasattr(reader, "keep_bytes"):
            reader.keep_bytes = self.budget  # a CSV file read whole only if it fits
        self._kept = None  # (columns, chunk_rows, [(frame, where), ...]) of a complete pass
        self.dictionaries_used = getattr(reader, "dictionaries_used", False)

    def columns(self):
        return self._reader.columns()

    def n_rows(self):
        if self._kept is not None:
            return int(sum(frame.shape[0] for frame, _ in self._kept[2]))
        return self._reader.n_rows()

    def frames(self, columns, chunk_rows):
        key = (None if columns is None else list(columns), chunk_rows)
        if self._kept is not None and self._kept[:2] == key:
            yield from self._kept[2]
            return
        kept, size = [], 0
        for frame, where in self._reader.frames(columns, chunk_rows):
            if kept is not None:
                size += int(frame.memory_usage(index=False).sum())
                if size <= self.budget:
                    kept.append((frame, where))
                else:
                    kept = None
            yield frame, where
            del frame
        if kept is not None:
            self._kept = (*key, kept)


def _check_same_columns(expected, got, where, first_where):
    if set(got) == set(expected) and len(got) == len(expected):
        return
    missing = [c for c in expected if c not in got]
    extra = [c for c in got if c not in expected]
    raise InputError(f"{where} does not have the columns of {first_where}: missing "
                     f"{missing[:10]}, unexpected {extra[:10]}; every file / chunk must hold "
                     "the same columns")


def _select(frame, columns, where):
    """``frame[columns]``, or an error naming the missing columns."""
    present = set(frame.columns)
    missing = [c for c in columns if c not in present]
    if missing:
        raise InputError(f"{where} lacks the column(s) {missing[:10]} (it has "
                         f"{list(frame.columns)[:20]}); every chunk must hold the columns "
                         "the model uses")
    if list(frame.columns) == list(columns):
        return frame
    return frame[list(columns)]
