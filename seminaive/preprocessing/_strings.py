"""Arrow string columns coded without Python strings: every chunk's distinct values found by a
hash pass over its buffers (``seminaive.kernels.strings.hash_strings``), the chunks of
all columns on the threads at once.

Used for the string columns of files (a chunk becomes a dictionary array: its indices and
its few distinct values) and for in-memory ``string[pyarrow]`` columns (their values, and
their codes against a fitted encoder's values).

In-memory object columns (Python strings or any hashable objects) are coded by
:func:`factorize_objects`: the rows grouped by the object they point to
(``seminaive.kernels.objects.hash_pointers``, on the threads), the few distinct objects
hashed by ``pd.factorize``."""

import ctypes

import numpy as np
import pandas as pd
import pyarrow as pa

from ..kernels._threads import parallel_calls
from ..kernels.objects import hash_pointers
from ..kernels.strings import hash_strings, remap_codes

#: a chunk with more distinct values than this is coded by pyarrow instead
MAX_HASHED_VALUES = 1 << 12


def is_string_type(kind):
    """Whether a pyarrow type is a (large) string."""
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def chunks_of(arr):
    """The chunks of a pyarrow array or chunked array, as a list."""
    return list(arr.chunks) if isinstance(arr, pa.ChunkedArray) else [arr]


def _buffers(chunk):
    """``(offsets, data, valid)`` of a string chunk as NumPy views of its buffers (``valid``
    empty when the chunk has no null)."""
    bufs = chunk.buffers()
    n = len(chunk)
    kind = np.int32 if pa.types.is_string(chunk.type) else np.int64
    offsets = np.frombuffer(bufs[1], dtype=kind)[chunk.offset: chunk.offset + n + 1]
    data = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None and \
        bufs[2].size else np.zeros(1, dtype=np.uint8)
    valid = chunk.is_valid().to_numpy(zero_copy_only=False) if chunk.null_count else \
        np.zeros(0, dtype=np.bool_)
    return offsets, data, valid


def hash_chunks(chunks, outs, max_values=MAX_HASHED_VALUES):
    """Code every string chunk ``chunks[i]`` into ``outs[i]`` (int32, its length): a value's
    index among the chunk's distinct values in order of first appearance, -1 for a null.

    Returns, for every chunk, its distinct values as a pyarrow array of the chunk's type (in
    that order), or None when it holds more than ``max_values`` (its ``outs`` then hold
    nothing of use)."""
    calls, firsts, counts, todo = [], [], [], []
    for i, (chunk, out) in enumerate(zip(chunks, outs, strict=True)):
        if len(chunk) == 0:
            continue
        offsets, data, valid = _buffers(chunk)
        first = np.empty(max_values, dtype=np.int64)
        count = np.zeros(1, dtype=np.int64)
        calls.append((offsets, data, valid, int(max_values), out, first, count))
        firsts.append(first)
        counts.append(count)
        todo.append(i)
    if calls:
        parallel_calls(hash_strings, calls)
    values = [chunk.slice(0, 0) for chunk in chunks]
    for i, first, count in zip(todo, firsts, counts, strict=True):
        found = int(count[0])
        values[i] = None if found < 0 else chunks[i].take(pa.array(first[:found]))
    return values


def _pointers(values):
    """The object pointers of a contiguous 1-D object array, as an intp array over its
    memory (valid while ``values`` lives and is not written)."""
    n = values.size
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    buf = (ctypes.c_ssize_t * n).from_address(values.__array_interface__["data"][0])
    return np.frombuffer(buf, dtype=np.intp)


def factorize_objects(arrays, outs, max_values=MAX_HASHED_VALUES):
    """``pd.factorize(arrays[i])`` of every 1-D object array, split in two: the rows coded by
    the object they hold into ``outs[i]`` (int32, the array's length), and, returned for
    every array, ``(objects, uniques)`` such that ``pd.factorize(arrays[i])`` is
    ``(objects[outs[i]], uniques)``: the same codes (-1 for a missing value), the same
    uniques in the same order.

    The pointer pass (:func:`~seminaive.kernels.objects.hash_pointers`) runs on the threads
    for all arrays at once; then ``pd.factorize`` hashes each array's distinct objects, in
    the order they first occur, which is why its uniques come in the order of the whole
    array's.  An array with more than ``max_values`` distinct objects is factorised whole
    (``outs[i]`` its codes, ``objects`` the identity with a last entry -1, which index
    -1 gives).  None for an array whose values
    cannot be hashed (``pd.factorize`` raises TypeError): the caller codes it as before,
    with the error it reports."""
    keep, calls, firsts, counts = [], [], [], []
    for values, out in zip(arrays, outs, strict=True):
        values = np.ascontiguousarray(values)
        first = np.empty(max_values, dtype=np.int64)
        count = np.zeros(1, dtype=np.int64)
        keep.append(values)
        calls.append((_pointers(values), int(max_values), out, first, count))
        firsts.append(first)
        counts.append(count)
    if calls:
        parallel_calls(hash_pointers, calls)
    result = []
    for values, out, first, count in zip(keep, outs, firsts, counts, strict=True):
        found = int(count[0])
        try:
            if found >= 0:
                objects, uniques = pd.factorize(values[first[:found]])
            else:  # a new object in (almost) every row: its objects hashed as they are
                codes, uniques = pd.factorize(values)
                out[:] = codes
                objects = np.append(np.arange(len(uniques), dtype=np.intp), -1)
        except TypeError:  # unhashable values
            result.append(None)
            continue
        result.append((objects, uniques))
    return result


def object_tables(items, known):
    """The tables that map the object codes of :func:`factorize_objects` to final codes:
    ``known[j]`` is the final code of ``uniques[j]`` (-1 unknown); a missing value and the
    -1 of a whole factorised array get -1 (the table's last entry)."""
    tables = []
    for (objects, _), codes in zip(items, known, strict=True):
        full = np.append(np.asarray(codes, dtype=np.int32), np.int32(-1))
        tables.append(np.append(full[objects], np.int32(-1)).astype(np.int32))
    return tables


def remap_chunks(outs, tables):
    """``outs[i][r] = tables[i][outs[i][r]]`` in place (the last entry of a table for -1),
    on the threads."""
    calls = [(out, table) for out, table in zip(outs, tables, strict=True) if out.size]
    if calls:
        parallel_calls(remap_codes, calls)


def with_nulls(arr, null_values):
    """A string array with its strings in ``null_values`` made nulls."""
    import pyarrow.compute as pc

    if not null_values:
        return arr
    listed = pa.array(sorted(null_values), type=arr.type)
    return pc.if_else(pc.is_in(arr, value_set=listed), pa.scalar(None, type=arr.type), arr)


#: a string column of a parsed file with at least this many rows is coded chunk by chunk
#: (a dictionary per chunk, no copy of its strings); a shorter one is combined first into
#: one chunk, coded by one hash pass (pieces of a small file measured most of the time in
#: Python)
CHUNKED_ROWS = 1 << 18


def dictionary_encode(columns, give_up=False, null_values=()):
    """Every string column of ``columns`` (pyarrow arrays or chunked arrays) as a dictionary
    array (int32 indices, each chunk's distinct values in order of first appearance),
    others as they are; the strings in ``null_values`` become nulls (left out of the
    dictionaries).  A column of at least :data:`CHUNKED_ROWS` rows keeps its chunks, each
    coded by its own hash pass with its own dictionary (combining them first copied every
    string of the file: a tenth of a string CSV's ``fit_stream``); a shorter column's
    chunks are combined first, one hash pass and one dictionary.  A column with more than
    :data:`MAX_HASHED_VALUES` distinct values in a chunk is encoded by
    :func:`pyarrow.compute.dictionary_encode`, or, with ``give_up``, is None (left to the
    caller)."""
    import pyarrow.compute as pc

    pieces, outs, where, strings = [], [], [], []
    for c, col in enumerate(columns):
        if not is_string_type(col.type):
            continue
        strings.append(c)
        if isinstance(col, pa.ChunkedArray) and (len(col) < CHUNKED_ROWS or col.num_chunks == 0):
            col = col.combine_chunks()
        for chunk in chunks_of(col):
            if len(chunk) == 0:
                continue
            pieces.append(chunk)
            outs.append(np.empty(len(chunk), dtype=np.int32))
            where.append(c)
    values = hash_chunks(pieces, outs, MAX_HASHED_VALUES)
    result = list(columns)
    failed = {c for c, dictionary in zip(where, values, strict=True) if dictionary is None}
    coded = {c: [] for c in strings}
    tables, remapped = [], []
    nulls = set(null_values)
    for c, chunk, out, dictionary in zip(where, pieces, outs, values, strict=True):
        if c in failed:
            continue
        # whether the codes hold a -1 (a null): not looked for row by row otherwise
        may_be_null = chunk.null_count > 0
        if nulls:
            listed = dictionary.to_pylist()
            null = np.array([v in nulls for v in listed], dtype=bool)
            if null.any():  # the null strings left out of the dictionary, coded -1
                table = np.full(len(listed) + 1, -1, dtype=np.int32)
                table[np.flatnonzero(~null)] = np.arange(int((~null).sum()), dtype=np.int32)
                tables.append(table)
                remapped.append(out)
                dictionary = dictionary.filter(pa.array(~null))
                may_be_null = True
        coded[c].append((out, dictionary, may_be_null))
    remap_chunks(remapped, tables)
    for c in coded:
        kind = columns[c].type
        if c in failed:
            column = columns[c]
            result[c] = None if give_up else pa.chunked_array(
                [pc.dictionary_encode(with_nulls(chunk, nulls)) for chunk in chunks_of(column)
                 if len(chunk)], type=pa.dictionary(pa.int32(), kind))
            continue
        arrays = []
        for out, dictionary, may_be_null in coded[c]:
            mask = out < 0 if may_be_null else None
            indices = pa.array(out, mask=mask) if mask is not None and mask.any() else \
                pa.array(out)
            arrays.append(pa.DictionaryArray.from_arrays(indices, dictionary))
        result[c] = pa.chunked_array(arrays, type=pa.dictionary(pa.int32(), kind))
    return result
