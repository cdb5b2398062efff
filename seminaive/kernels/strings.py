"""Arrow string arrays coded in one pass over their buffers: every value's index among the
distinct values in order of first appearance (what :func:`pyarrow.compute.dictionary_encode`
gives), with a small open-addressing hash table of the distinct values (a short string
is its own key, a longer one is keyed by the FNV-1a hash of its bytes).

Nominal columns hold few distinct values, most of them short: a pass over the offsets and the
bytes with a table that stays in the first level of the cache costs a few nanoseconds a
value, and one call per column (or per chunk of a column) runs on its own thread
(:func:`._threads.parallel_calls`).  A column with more distinct values than the caller
allows is given up (the caller codes it another way)."""

import numpy as np

from ._jit import njit

_FNV_OFFSET = np.uint64(14695981039346656037)
_FNV_PRIME = np.uint64(1099511628211)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def hash_strings(offsets, data, valid, max_values, codes, first, found_out):
    """``codes[i]``: the index of string ``i`` (bytes ``offsets[i] .. offsets[i + 1] - 1`` of
    ``data``) among the distinct strings in order of first appearance, -1 where
    ``valid[i]`` is False (an empty ``valid``: no nulls); ``first[k]``: the row where the
    ``k``-th distinct string first occurs.

    A string of at most 8 bytes is its own key (its bytes packed in an integer, with its
    length): found by one comparison, no byte of the table's strings read again, which
    measured seven times as fast as hashing every string's bytes.  A longer string is keyed
    by the FNV-1a hash of its bytes and compared byte by byte with the string of a matching
    key.  ``found_out[0]``: the number of distinct strings, or -1 (``codes`` then partly
    written) when there are more than ``max_values``."""
    n = codes.shape[0]
    size = 16
    while size < 4 * max_values:
        size *= 2
    mask = np.uint64(size - 1)
    slots = np.full(size, -1, dtype=np.int32)
    keys = np.empty(max_values, dtype=np.uint64)
    lengths = np.empty(max_values, dtype=np.int64)
    found = 0
    check_valid = valid.shape[0] > 0
    for i in range(n):
        if check_valid and not valid[i]:
            codes[i] = -1
            continue
        s = offsets[i]
        e = offsets[i + 1]
        length = np.int64(e - s)
        if length > 8:
            k = _long_string(offsets, data, i, s, length, slots, mask, keys, lengths, first,
                             found)
            if k == found:
                if found == max_values:
                    found_out[0] = -1
                    return
                found += 1
        else:
            key = np.uint64(0)
            for p in range(s, e):
                key = (key << np.uint64(8)) | np.uint64(data[p])
            slot = short_slot(key, length, mask)
            while True:
                k = slots[slot]
                if k < 0 or (keys[k] == key and lengths[k] == length):
                    break
                slot = (slot + np.uint64(1)) & mask
            if k < 0:
                if found == max_values:
                    found_out[0] = -1
                    return
                k = found
                slots[slot] = k
                keys[k] = key
                lengths[k] = length
                first[k] = i
                found += 1
        codes[i] = k
    found_out[0] = found



@njit(cache=True, nogil=True, inline="always")
def fnv_key(data, s, length):
    """The 64-bit FNV-1a hash of the ``length`` bytes of ``data`` from ``s``."""
    key = _FNV_OFFSET
    for p in range(s, s + length):
        key = (key ^ np.uint64(data[p])) * _FNV_PRIME
    return key


@njit(cache=True, nogil=True, inline="always")
def same_bytes(data, a, b, length):
    """Whether the ``length`` bytes of ``data`` from ``a`` and from ``b`` are the same."""
    for p in range(length):
        if data[a + p] != data[b + p]:
            return False
    return True


@njit(cache=True, nogil=True, inline="always")
def short_slot(key, length, mask):
    """The first slot of a string of at most 8 bytes (``key``: its bytes, or its
    :func:`fnv_key` when longer) of ``length`` bytes, in a table of ``mask + 1`` slots."""
    return (((key + np.uint64(length)) * _GOLDEN) >> np.uint64(40)) & mask

@njit(cache=True, nogil=True)
def _long_string(offsets, data, i, s, length, slots, mask, keys, lengths, first, found):
    """The index of the long string ``i`` (``length`` bytes from ``s``) in the table of
    :func:`hash_strings`, entered as the ``found``-th one if it is new."""
    key = fnv_key(data, s, length)
    slot = ((key * _GOLDEN) >> np.uint64(40)) & mask
    while True:
        k = slots[slot]
        if k < 0:
            break
        if keys[k] == key and lengths[k] == length:
            if same_bytes(data, offsets[first[k]], s, length):
                return k
        slot = (slot + np.uint64(1)) & mask
    if found < keys.shape[0]:
        slots[slot] = found
        keys[found] = key
        lengths[found] = length
        first[found] = i
    return found


@njit(cache=True, nogil=True)
def remap_codes(codes, table):
    """``codes[i] = table[codes[i]]`` in place, ``table[-1]`` (its last entry) for -1."""
    last = table.shape[0] - 1
    for i in range(codes.shape[0]):
        c = codes[i]
        codes[i] = table[c if c >= 0 else last]


@njit(cache=True, nogil=True)
def map_codes(codes, table, out):
    """``out[i] = table[codes[i]]``, ``table[-1]`` (its last entry) for a negative code: the
    codes of a chunk's dictionary mapped to other codes, into another array (of another
    dtype)."""
    last = table.shape[0] - 1
    for i in range(codes.shape[0]):
        c = codes[i]
        out[i] = table[c if c >= 0 else last]
