"""Object columns (NumPy arrays of Python objects) grouped by object identity in one pass over
their pointers, without touching an object.

A nominal column of Python strings rarely holds a new object per row: ``pd.read_csv(...,
dtype=object)`` makes one object per distinct string of each block it parses, and columns
built from a list of labels (``labels[codes]``, ``np.where``, ``astype(object)`` of a
categorical) repeat the label objects.  Rows that hold the same object hold the same value,
so hashing the few distinct objects (``pd.factorize``) and the row's pointer (an integer,
here, without the GIL) codes the column at the rate of an integer pass instead of the rate
of the hash table of Python objects.  A column with more distinct objects than the caller
allows (a new object per row) is given up (the caller hashes its objects)."""

import numpy as np

from ._jit import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, nogil=True)
def hash_pointers(pointers, max_values, codes, first, found_out):
    """``codes[i]``: the index of ``pointers[i]`` among the distinct pointers in order of
    first appearance; ``first[k]``: the row where the ``k``-th distinct pointer first
    occurs; ``found_out[0]``: the number of distinct pointers, or -1 (``codes`` then partly
    written) when there are more than ``max_values``.

    An open-addressing table of ``4 * max_values`` slots (rounded up to a power of two),
    keyed by the pointer multiplied by the golden ratio (Fibonacci hashing: the low bits of
    a heap address are mostly zero)."""
    n = codes.shape[0]
    size = 16
    bits = 4
    while size < 4 * max_values:
        size *= 2
        bits += 1
    mask = np.uint64(size - 1)
    shift = np.uint64(64 - bits)
    slots = np.full(size, -1, dtype=np.int32)
    keys = np.empty(max(max_values, 1), dtype=np.uint64)
    found = 0
    last_key = np.uint64(0)
    last = -1
    for i in range(n):
        key = np.uint64(pointers[i])
        if last >= 0 and key == last_key:  # runs of one object: no probe
            codes[i] = last
            continue
        slot = ((key * _GOLDEN) >> shift) & mask
        while True:
            k = slots[slot]
            if k < 0 or keys[k] == key:
                break
            slot = (slot + np.uint64(1)) & mask
        if k < 0:
            if found == max_values:
                found_out[0] = -1
                return
            k = found
            slots[slot] = k
            keys[k] = key
            first[k] = i
            found += 1
        codes[i] = k
        last = k
        last_key = key
    found_out[0] = found
