"""Readers: a source (files, DataFrames, iterables) as a sequence of DataFrame chunks, one
materialised at a time, and the constants of chunking."""

import os
import sys
from pathlib import Path

import pandas as pd

from ..exceptions import InputError
from ..preprocessing.encoder import _arrow_frame

#: rows on which the cut points of numeric columns are computed (Chen et al. 2014, §4)
DEFAULT_SAMPLE_ROWS = 100_000
#: cells (rows x columns) per chunk when ``chunk_rows`` is not given: about 32 MB of codes
DEFAULT_CHUNK_CELLS = 1 << 23

PARQUET_SUFFIXES = (".parquet", ".pq", ".parq")
CSV_SUFFIXES = (".csv", ".tsv", ".txt")
COMPRESSION_SUFFIXES = (".gz", ".bz2", ".zip", ".xz", ".zst")


def default_chunk_rows(n_columns):
    """Rows per chunk for a table of ``n_columns`` columns (about 8 million cells)."""
    return int(min(1 << 20, max(1 << 12, DEFAULT_CHUNK_CELLS // max(int(n_columns), 1))))


def _progress_bar(progress, total, desc):
    if progress is None:
        progress = sys.stderr.isatty()
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
    """Parquet files or directories, scanned with :mod:`pyarrow.dataset` in batches."""

    reiterable = True

    def __init__(self, paths):
        import pyarrow as pa
        import pyarrow.dataset as ds

        self.paths = [os.fspath(p) for p in paths]
        self._scan_options = ds.ParquetFragmentScanOptions(pre_buffer=False)
        self._datasets = []
        for path in self.paths:
            _missing_file(path)
            try:
                dataset = ds.dataset(path, format="parquet")
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
                        frame = _arrow_frame(batch)
                        del batch
                        yield frame, path
                        del frame


class _CsvReader:
    """CSV files, read with ``pandas.read_csv(chunksize=...)``.

    Types are inferred chunk by chunk; pass ``csv_options={"dtype": {...}}`` to fix them.
    """

    reiterable = True

    def __init__(self, paths, options=None):
        self.paths = [os.fspath(p) for p in paths]
        self.options = dict(options or {})
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

    def frames(self, columns, chunk_rows):
        columns = list(columns)
        for path in self.paths:
            with pd.read_csv(path, chunksize=int(chunk_rows), usecols=columns,
                             **self.options) as chunks:
                for frame in chunks:
                    if frame.shape[0] == 0:
                        continue
                    frame = frame[columns]
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


def open_source(source, csv_options=None):
    """A reader over ``source`` (path, list of paths, DataFrame(s), callable or iterator)."""
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
    return _CsvReader(paths, csv_options)


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
