"""The fields of plain CSV bytes coded as the lines are split: every field's index among
the distinct byte strings of its column in order of first appearance, without building
string arrays.

A part of the file (whole lines) is split field by field; each field is looked up in a
small open-addressing hash table of its column's distinct byte strings (a string of at most
8 bytes is its own key, a longer one is keyed by the FNV-1a hash of its bytes and compared
byte by byte with its first occurrence, as :mod:`.strings` does for Arrow arrays).  The
parts of a file are coded on their own threads (:func:`._threads.parallel_calls`), each
with its own tables; their distinct values are then merged in one call
(:func:`merge_part_values`), and the caller maps the parts' codes through the tables it
gives.

Only plain CSV is read: a quote, a lone carriage return or a line with another number of
fields makes the part give up (status below), and the caller reads the file another way.
The raw byte strings are returned: which of them are missing values is the caller's
decision.
"""

import numpy as np

from ._jit import njit
from .strings import _GOLDEN, fnv_key, same_bytes, short_slot

#: status of :func:`code_csv_part`: a quote, a lone carriage return or a line of another
#: number of fields
BAD_LINE = -1
#: status of :func:`code_csv_part`: a column with more distinct values than allowed
TOO_MANY_VALUES = -2
#: status of :func:`code_csv_part`: more lines than the rows of ``codes``
TOO_MANY_ROWS = -3
#: a column's cache of :func:`_split_part` holds ``1 << CACHE_BITS`` fields of at most 7
#: bytes and their codes, each at a slot of its bytes and length (direct mapped)
CACHE_BITS = 6
#: an empty slot of the cache (no field of at most 7 bytes packs to it)
_NO_FIELD = np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, nogil=True)
def code_csv_part(data, start, end, sep, codes, slots, keys, lengths, firsts, found):
    """Split the lines of ``data[start:end]`` (whole lines, the last one possibly without
    a line end) into fields at byte ``sep`` and code them.

    Parameters
    ----------
    data : uint8 array
        The file's bytes.
    start, end : int
        The part: ``start`` at the beginning of a line, ``end`` after a line end or at the
        end of the data.
    sep : int
        The separator byte.
    codes : int32 array of shape (rows, n_cols)
        Receives, row by row, each field's index among its column's distinct strings.
    slots : int32 array of shape (n_cols, size), -1
        The hash tables (``size`` a power of two, at least twice ``max_values``).
    keys, lengths, firsts : arrays of shape (n_cols, max_values)
        Per distinct string: its key, its length and the offset in ``data`` of its first
        occurrence.
    found : int64 array of shape (n_cols,), 0
        Receives the number of distinct strings of every column.

    Returns
    -------
    int
        The number of rows coded (empty lines are skipped, as pyarrow does), or
        ``BAD_LINE``, ``TOO_MANY_VALUES`` or ``TOO_MANY_ROWS``.
    """
    return _split_part(data, start, end, sep, codes.shape[1], codes, True, slots, keys,
                       lengths, firsts, found)


@njit(cache=True, nogil=True)
def csv_part_values(data, start, end, sep, n_cols, slots, keys, lengths, firsts, found):
    """:func:`code_csv_part` without the codes: only each column's distinct strings
    (``slots``, ``keys``, ``lengths``, ``firsts`` and ``found`` as there), for a pass that
    needs the values and not the rows' codes.

    Returns
    -------
    int
        The number of rows (empty lines skipped), or ``BAD_LINE`` or ``TOO_MANY_VALUES``.
    """
    no_codes = np.empty((0, n_cols), dtype=np.uint16)
    return _split_part(data, start, end, sep, n_cols, no_codes, False, slots, keys, lengths,
                       firsts, found)


@njit(cache=True, nogil=True, inline="always")
def _split_part(data, start, end, sep, n_cols, codes, write, slots, keys, lengths, firsts,
                found):
    """:func:`code_csv_part` (``write`` True) or :func:`csv_part_values` (False: no code
    written, no row limit; ``write`` a constant of the caller, its tests folded away).

    A field of at most 7 bytes is first looked for in its column's cache: its bytes and
    its length packed in one word (the length in the top byte), at the slot of the word's
    multiplicative hash, beside its code; found there, its code is known in one load
    (instead of the hash table's slot, key and length), else the hash table gives it
    (:func:`_lookup`) and the cache slot takes it.  The codes are those of the table."""
    max_rows = codes.shape[0]
    cache = np.full((n_cols, 1 << CACHE_BITS, 2), _NO_FIELD, dtype=np.uint64)
    shift = np.uint64(64 - CACHE_BITS)
    max_values = keys.shape[1]
    mask = np.uint64(slots.shape[1] - 1)
    p = start
    row = 0
    top = max(sep, 34)
    while p < end:
        b = data[p]
        if b == 10:  # an empty line
            p += 1
            continue
        if b == 13:
            if p + 1 < end and data[p + 1] == 10:
                p += 2
                continue
            return BAD_LINE
        if write and row == max_rows:
            return TOO_MANY_ROWS
        for col in range(n_cols):
            s = p
            key = np.uint64(0)
            while p < end:
                b = data[p]
                # (one comparison for the bytes above every byte that ends a field)
                if b <= top and (b == sep or b == 10 or b == 13 or b == 34):
                    break
                key = (key << np.uint64(8)) | np.uint64(b)
                p += 1
            length = p - s
            last = col == n_cols - 1
            if p < end:
                b = data[p]
                if b == 34:
                    return BAD_LINE
                if b == sep:
                    if last:
                        return BAD_LINE
                    p += 1
                elif not last:
                    return BAD_LINE
                elif b == 13:
                    if p + 1 < end and data[p + 1] == 10:
                        p += 2
                    else:
                        return BAD_LINE
                else:
                    p += 1
            elif not last:
                return BAD_LINE
            if length <= 7:
                packed = key | (np.uint64(length) << np.uint64(56))
                h = (packed * _GOLDEN) >> shift
                if cache[col, h, 0] == packed:
                    k = np.int64(cache[col, h, 1])
                else:
                    k = _lookup(data, s, length, key, col, slots, keys, lengths, firsts,
                                found, mask, max_values)
                    if k < 0:
                        return TOO_MANY_VALUES
                    cache[col, h, 0] = packed
                    cache[col, h, 1] = np.uint64(k)
            else:
                k = _lookup(data, s, length, key, col, slots, keys, lengths, firsts, found,
                            mask, max_values)
                if k < 0:
                    return TOO_MANY_VALUES
            if write:
                codes[row, col] = k
        row += 1
    return row


@njit(cache=True, nogil=True, inline="always")
def _lookup(data, s, length, key, col, slots, keys, lengths, firsts, found, mask,
            max_values):
    """The index of the string of ``length`` bytes at ``s`` in column ``col``'s table,
    entered if new; -1 when the table is full."""
    if length > 8:
        key = fnv_key(data, s, length)
    slot = short_slot(key, length, mask)
    while True:
        k = slots[col, slot]
        if k < 0:
            break
        if keys[col, k] == key and lengths[col, k] == length:
            if length <= 8:
                return k
            if same_bytes(data, firsts[col, k], s, length):
                return k
        slot = (slot + np.uint64(1)) & mask
    k = found[col]
    if k == max_values:
        return -1
    slots[col, slot] = k
    keys[col, k] = key
    lengths[col, k] = length
    firsts[col, k] = s
    found[col] = k + 1
    return k


@njit(cache=True, nogil=True)
def _remap_rows(codes, col, table, out):
    """``out[i] = table[codes[i, col]]``."""
    for i in range(codes.shape[0]):
        out[i] = table[codes[i, col]]


@njit(cache=True, nogil=True)
def map_part_rows(codes, lo, hi, cols, tables, out, ycol, ytable, y):
    """Rows ``lo:hi`` of a part's codes through per-column tables, into a chunk's arrays:
    ``out[i - lo, j] = tables[j, codes[i, cols[j]]]`` and
    ``y[i - lo] = ytable[codes[i, ycol]]``, a column at a time (the codes of
    :func:`code_csv_parts` and ``out`` are laid out a column at a time)."""
    for j in range(cols.shape[0]):
        col = cols[j]
        for i in range(lo, hi):
            out[i - lo, j] = tables[j, codes[i, col]]
    for i in range(lo, hi):
        y[i - lo] = ytable[codes[i, ycol]]


def line_parts(data, n_parts, start=0, end=None):
    """``n_parts`` (or fewer) ``(start, end)`` pieces of ``data[start:end]`` (``end``
    after a line end, or None: the end of the data) cut after line ends (``data``: bytes,
    or a memory map of a file's bytes)."""
    n = len(data) if end is None else int(end)
    bounds = [start]
    for j in range(1, n_parts):
        cut = max(start + j * (n - start) // n_parts, bounds[-1])
        at = data.find(b"\n", cut, n)
        if at < 0:
            break
        bounds.append(at + 1)
    bounds.append(n)
    return [(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]


#: distinct values a column's hash table holds on a part's first try (a part that meets
#: more is coded again with tables of ``max_values``): small tables stay in the cache
FIRST_VALUES = 256


def code_csv_parts(data, n_cols, *, start=0, end=None, sep=b",", n_parts=2, max_values=4096):
    """Code the lines of plain CSV bytes ``data[start:]`` (no header) part by part, each
    part's fields by their order of first appearance in the part, and merge the parts'
    distinct values in order of first appearance over the whole of the bytes.

    Parameters
    ----------
    data : bytes or mmap.mmap
        The bytes (whole lines from ``start``, the last one possibly without a line end).
    n_cols : int
        The number of fields of every line.
    start : int, default=0
        Where the lines begin (after a header).
    end : int, optional
        Where they end (after a line end; default: the end of the data): a block of a
        file coded on its own.
    sep : bytes, default=b","
        The one-byte separator.
    n_parts : int, default=2
        Parts coded on their own threads.
    max_values : int, default=4096
        The most distinct values a column may hold (at most 65536: the codes take two
        bytes).

    Returns
    -------
    (parts, values) or None
        ``parts``: per part, ``(codes, tables)``: ``codes`` the uint16 array of shape (rows,
        n_cols) (a column's codes contiguous) of each field's index among its part's
        distinct values of its column, ``tables`` the int32 array (n_cols, width) whose row
        ``col`` holds their indices in ``values[col]`` (its first entries, as many as the
        part's values of the column; the others 0), ``values[col]`` the column's distinct
        byte strings in order of first appearance over the whole of the bytes; None when
        the bytes are not plain CSV of ``n_cols`` fields (a quote, a lone carriage return,
        another number of fields) or a column has more than ``max_values`` values.
    """
    return code_csv_files([data], n_cols, starts=[start], ends=[end], sep=sep,
                          n_parts=n_parts, max_values=max_values)[0]


def code_csv_files(datas, n_cols, *, starts=None, ends=None, sep=b",", n_parts=2,
                   max_values=4096):
    """:func:`code_csv_parts` of several buffers (the lines of several files of ``n_cols``
    fields), the parts of all of them coded in one batch on the threads: one wait for the
    threads instead of one a buffer, and no thread idle at the end of each buffer.  The
    ``n_parts`` parts are shared among the buffers in proportion to their bytes (at least
    one each); each buffer's values are merged on their own (the same parts, codes and
    values as :func:`code_csv_parts` of the buffer alone with its share of the parts).

    Parameters
    ----------
    datas : list of bytes or mmap.mmap
    n_cols : int
    starts, ends : list of int, optional
        Per buffer, as ``start`` and ``end`` of :func:`code_csv_parts` (default: 0 and
        None).
    sep : bytes, default=b","
    n_parts : int, default=2
        Parts over all the buffers.
    max_values : int, default=4096

    Returns
    -------
    list
        Per buffer, what :func:`code_csv_parts` gives: ``(parts, values)`` or None.

    Examples
    --------
    >>> from seminaive.kernels.csv_codes import code_csv_files
    >>> [values for _, values in code_csv_files([b"a,x\\nb,x\\n", b"b,y\\n"], 2)]
    [[[b'a', b'b'], [b'x']], [[b'b'], [b'y']]]
    """
    if max_values > 1 << 16:
        raise ValueError("max_values: at most 65536 (two-byte codes)")
    segments = _segments(datas, starts, ends, n_parts)
    out = []
    for data, parts in zip(datas, _split_parts(segments, n_cols, sep, max_values, True),
                           strict=True):
        merged = None if parts is None else _merged_values(data, parts, n_cols, max_values)
        if merged is None:
            out.append(None)
            continue
        tables, values = merged
        out.append(([(codes[:int(status[0])], tables[p])
                     for p, (codes, _, status) in enumerate(parts)], values))
    return out


def _segments(datas, starts, ends, n_parts):
    """``(data, start, end, parts)`` of every buffer: ``n_parts`` shared in proportion to
    the bytes (at least one a buffer)."""
    starts = [0] * len(datas) if starts is None else list(starts)
    ends = [None] * len(datas) if ends is None else list(ends)
    sizes = [max(0, (len(d) if e is None else int(e)) - int(s))
             for d, s, e in zip(datas, starts, ends, strict=True)]
    total = max(1, sum(sizes))
    return [(data, int(start), end, max(1, round(n_parts * size / total)))
            for data, start, end, size in zip(datas, starts, ends, sizes, strict=True)]


def csv_values(data, n_cols, *, start=0, end=None, sep=b",", n_parts=2, max_values=4096):
    """The distinct values of every column of the lines of plain CSV bytes, in order of
    first appearance over ``data[start:end]``, and the number of rows: what
    :func:`code_csv_parts` gives (the same values, in the same order; the same give-ups)
    without writing the codes (:func:`csv_part_values`), for a pass that only collects
    the values.

    Returns
    -------
    (values, n_rows) or None
        ``values[col]``: the column's distinct byte strings in order of first appearance;
        None as :func:`code_csv_parts`.

    Examples
    --------
    >>> from seminaive.kernels.csv_codes import csv_values
    >>> csv_values(b"a,x\\nb,x\\na,y\\n", 2)
    ([[b'a', b'b'], [b'x', b'y']], 3)
    """
    parts = _split_parts([(data, start, end, n_parts)], n_cols, sep, max_values, False)[0]
    if parts is None:
        return None
    merged = _merged_values(data, parts, n_cols, max_values)
    if merged is None:
        return None
    return merged[1], sum(int(status[0]) for _, _, status in parts)


def _merged_values(data, parts, n_cols, max_values):
    """The distinct values of the parts of :func:`_split_parts` merged in order of first
    appearance over the parts in turn (:func:`merge_part_values`, one call for every part
    and column): ``(tables, values)``, ``tables[p]`` the int32 array (n_cols, width) of the
    index in ``values[col]`` of each of part ``p``'s values of column ``col`` (its first
    ``found`` entries; the others 0), ``values[col]`` the column's distinct byte strings;
    None when a column has more than ``max_values`` values."""
    n_parts = len(parts)
    found = np.zeros((n_parts, n_cols), dtype=np.int64)
    for p, (_, tables, _) in enumerate(parts):
        found[p] = tables[4]
    width = max(1, int(found.max(initial=0)))
    keys = np.zeros((n_parts, n_cols, width), dtype=np.uint64)
    lengths = np.zeros((n_parts, n_cols, width), dtype=np.int64)
    firsts = np.zeros((n_parts, n_cols, width), dtype=np.int64)
    for p, (_, (_, k, n, f, _), _) in enumerate(parts):
        w = min(width, k.shape[1])
        keys[p, :, :w] = k[:, :w]
        lengths[p, :, :w] = n[:, :w]
        firsts[p, :, :w] = f[:, :w]
    cap = max(1, min(int(max_values), int(found.sum(axis=0).max(initial=0))))
    size = 16
    while size < 2 * cap:
        size *= 2
    slots = np.full((n_cols, size), -1, dtype=np.int32)
    g_keys = np.empty((n_cols, cap), dtype=np.uint64)
    g_lengths = np.empty((n_cols, cap), dtype=np.int64)
    g_firsts = np.empty((n_cols, cap), dtype=np.int64)
    g_found = np.zeros(n_cols, dtype=np.int64)
    tables = np.zeros((n_parts, n_cols, width), dtype=np.int32)
    if not merge_part_values(np.frombuffer(data, dtype=np.uint8), keys, lengths, firsts,
                             found, slots, g_keys, g_lengths, g_firsts, g_found, tables):
        return None
    values = [[data[f:f + n] for f, n in zip(g_firsts[col, :g_found[col]].tolist(),
                                             g_lengths[col, :g_found[col]].tolist(),
                                             strict=True)]
              for col in range(n_cols)]
    return tables, values


@njit(cache=True, nogil=True)
def merge_part_values(data, keys, lengths, firsts, found, slots, g_keys, g_lengths, g_firsts,
                      g_found, tables):
    """Merge the distinct values of the parts of a file (each part's tables of
    :func:`code_csv_part`, stacked: ``keys``, ``lengths`` and ``firsts`` of shape
    (n_parts, n_cols, width), ``found`` (n_parts, n_cols)) in order of first appearance
    over the parts in turn, into one table a column (``slots``, ``g_keys``, ``g_lengths``,
    ``g_firsts`` and ``g_found``, as :func:`code_csv_part`'s, of at most
    ``g_keys.shape[1]`` values): ``tables[p, col, i]`` receives the index of part ``p``'s
    ``i``-th value of column ``col`` among the column's merged values.  The values are
    compared as the parts compare them (the bytes of a value of at most 8 bytes are its
    key; a longer one's FNV-1a hash, then its bytes).

    Returns
    -------
    bool
        False when a column has more values than ``g_keys.shape[1]``.
    """
    max_values = g_keys.shape[1]
    mask = np.uint64(slots.shape[1] - 1)
    for p in range(keys.shape[0]):
        for col in range(keys.shape[1]):
            for i in range(found[p, col]):
                k = _lookup(data, firsts[p, col, i], lengths[p, col, i], keys[p, col, i], col,
                            slots, g_keys, g_lengths, g_firsts, g_found, mask, max_values)
                if k < 0:
                    return False
                tables[p, col, i] = k
    return True


def _split_parts(segments, n_cols, sep, max_values, write):
    """The parts of the buffers ``segments`` (``(data, start, end, n_parts)`` each: the
    bytes ``data[start:end]`` in ``n_parts`` parts) split on the threads, all in one batch,
    with the codes (``write``: :func:`code_csv_part`) or without
    (:func:`csv_part_values`): per segment, per part, ``(codes or None, (slots, keys,
    lengths, firsts, found), status)``, or None for a segment whose bytes are not plain CSV
    or that has a column of more than ``max_values`` values in a part.  A part first gets
    tables of ``FIRST_VALUES`` values a column, and is split again with tables of
    ``max_values`` if it meets more."""
    from ._threads import parallel_calls

    pieces = []  # (segment, array, lo, hi) of every part
    for s, (data, start, end, n_parts) in enumerate(segments):
        array = np.frombuffer(data, dtype=np.uint8)
        pieces.extend((s, array, lo, hi) for lo, hi in line_parts(data, n_parts, start, end))
    first = min(FIRST_VALUES, max_values)
    parts = [None] * len(pieces)
    failed = set()  # the segments given up
    todo = list(range(len(pieces)))
    while todo:
        calls = []
        for p in todo:
            _, array, lo, hi = pieces[p]
            size = 16
            while size < 2 * first:
                size *= 2
            tables = (np.full((n_cols, size), -1, dtype=np.int32),
                      np.empty((n_cols, first), dtype=np.uint64),
                      np.empty((n_cols, first), dtype=np.int64),
                      np.empty((n_cols, first), dtype=np.int64),
                      np.zeros(n_cols, dtype=np.int64))
            status = np.empty(1, dtype=np.int64)
            if write:
                # at least a byte a field: never more rows than that; pages never written
                # are never allocated (laid out a column at a time, as the chunks are
                # counted)
                codes = np.empty(((hi - lo) // n_cols + 1, n_cols), dtype=np.uint16,
                                 order="F")
                calls.append((array, lo, hi, sep[0], codes, *tables, status))
            else:
                codes = None
                calls.append((array, lo, hi, sep[0], n_cols, *tables, status))
            parts[p] = (codes, tables, status)
        parallel_calls(_code_part_into if write else _part_values_into, calls)
        again = []
        for p in todo:
            status = int(parts[p][2][0])
            if status == BAD_LINE or (status == TOO_MANY_VALUES and first == max_values):
                failed.add(pieces[p][0])
            elif status == TOO_MANY_VALUES:
                again.append(p)
        todo = [p for p in again if pieces[p][0] not in failed]
        first = max_values
    out = [None if s in failed else [] for s in range(len(segments))]
    for (s, _, _, _), part in zip(pieces, parts, strict=True):
        if s not in failed:
            out[s].append(part)
    return out


def code_csv(data, n_cols, *, sep=b",", n_parts=2, max_values=65536):
    """Code the lines of plain CSV bytes (no header), column by column, in order of first
    appearance over the whole of ``data``.

    Parameters
    ----------
    data : bytes
        Whole lines of CSV (the last one possibly without a line end).
    n_cols : int
        The number of fields of every line.
    sep : bytes, default=b","
        The one-byte separator.
    n_parts : int, default=2
        Parts coded on their own threads.
    max_values : int, default=65536
        The most distinct values a column may hold.

    Returns
    -------
    (codes, values) or None
        ``codes``: int32 array of shape (rows, n_cols), each field's index in ``values[col]``,
        the list of the column's distinct byte strings in order of first appearance; None
        when the bytes are not plain CSV of ``n_cols`` fields (a quote, a lone carriage
        return, another number of fields) or a column has more than ``max_values`` values.

    Examples
    --------
    >>> from seminaive.kernels.csv_codes import code_csv
    >>> codes, values = code_csv(b"a,x\\r\\nb,x\\na,y", 2)
    >>> codes.tolist(), values
    ([[0, 0], [1, 0], [0, 1]], [[b'a', b'b'], [b'x', b'y']])
    """
    from ._threads import parallel_calls

    got = code_csv_parts(data, n_cols, sep=sep, n_parts=n_parts, max_values=max_values)
    if got is None:
        return None
    parts, values = got
    total = sum(codes.shape[0] for codes, _ in parts)
    out = np.empty((total, n_cols), dtype=np.int32, order="F")  # a column at a time
    row = 0
    remaps = []
    for codes, tables in parts:
        rows = codes.shape[0]
        for col in range(n_cols):
            remaps.append((codes, col, tables[col], out[row:row + rows, col]))
        row += rows
    parallel_calls(_remap_rows, remaps)
    return out, values


@njit(cache=True, nogil=True)
def _code_part_into(data, start, end, sep, codes, slots, keys, lengths, firsts, found,
                    status):
    """:func:`code_csv_part`, its status written to ``status[0]``."""
    status[0] = code_csv_part(data, start, end, sep, codes, slots, keys, lengths, firsts,
                              found)


@njit(cache=True, nogil=True)
def _part_values_into(data, start, end, sep, n_cols, slots, keys, lengths, firsts, found,
                      status):
    """:func:`csv_part_values`, its status written to ``status[0]``."""
    status[0] = csv_part_values(data, start, end, sep, n_cols, slots, keys, lengths, firsts,
                                found)
