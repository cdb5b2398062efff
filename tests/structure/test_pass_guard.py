"""The budget check during a counting pass (:class:`seminaive.structure._sparse.PassGuard`):
exact node counts only when the keys have doubled since the last one that fitted, and the
pass still stopped soon after its trees exceed the budget."""

import numpy as np
import pytest

from seminaive.exceptions import TableTooLargeError
from seminaive.structure import _sparse


def _pass(n_rows, chunk, seed=0):
    """The per-chunk keys of a pass: three count trees of two and three parents over
    uniform codes (almost every row its own deep prefix)."""
    rng = np.random.default_rng(seed)
    sizes = np.array([9, 9, 9, 9, 9], dtype=np.int64)
    codes = rng.integers(0, 9, (n_rows, 5)).astype(np.uint8)
    y = rng.integers(0, 2, n_rows)
    trees = [(0, 1, 2), (3, 1, 2, 4), (4, 0, 3)]
    parts = [_sparse.count_keys(codes[s:s + chunk], y[s:s + chunk], None, trees, sizes)
             for s in range(0, n_rows, chunk)]
    return trees, sizes, parts


def _bytes(trees, sizes, result):
    return sum(_sparse.occurring_nodes(keys, tree, sizes) * (
        _sparse.NODE_BYTES + 8 * int(sizes[tree[0]]))
        for tree, (keys, _) in zip(trees, result, strict=True))


def _run(guard, parts):
    """The chunks and merges of a pass, in order, as ``map_reduce`` gives them to the
    guard; returns the merged keys."""
    merged = guard(parts[0])
    for part in parts[1:]:
        merged = guard(_sparse.merge_keys(merged, guard(part)))
    return merged


def test_exact_counts_only_as_the_keys_double(monkeypatch):
    """A pass that fits (the cheap bound does not: every chunk and merge undecided) counts
    nodes exactly only when the keys have doubled since the last count: a few times, not
    on every one of its 40 chunks and 39 merges; with GROWTH = 0, every time (772d4ba)."""
    trees, sizes, parts = _pass(20_000, 500)
    whole = _run(lambda r: r, parts)
    need = _bytes(trees, sizes, whole)
    cheap = sum((1 + len(t) * k.size) * (_sparse.NODE_BYTES + 8 * int(sizes[t[0]]))
                for t, (k, _) in zip(trees, whole, strict=True))
    assert cheap > need
    calls = []
    real = _sparse.occurring_nodes

    def counting(keys, tree, sizes):
        calls.append(int(np.size(keys)))
        return real(keys, tree, sizes)

    monkeypatch.setattr(_sparse, "occurring_nodes", counting)
    counts = {}
    for growth in (0, 2):
        calls.clear()
        guard = _sparse.PassGuard([(t, sizes) for t in trees], 0, need, "w", "o")
        guard.GROWTH = growth
        result = _run(guard, parts)
        for (ka, ca), (kb, cb) in zip(result, whole, strict=True):
            np.testing.assert_array_equal(ka, kb)
            np.testing.assert_array_equal(ca, cb)
        counts[growth] = len(calls) // len(trees)
    assert counts[0] > 40
    # at most one count per doubling of the keys from the first chunk's (the first count
    # is at a chunk or merge at least as large)
    total = sum(k.size for k, _ in whole)
    first = sum(k.size for k, _ in parts[0])
    assert 1 <= counts[2] <= 1 + int(np.ceil(np.log2(total / first)))


@pytest.mark.parametrize("share", [0.3, 0.5, 0.8])
def test_the_pass_stops_soon_after_the_budget(share):
    """Over budget from some merge on: the pass is stopped by the time its keys are at
    most twice those of the first merge over the budget (and one chunk's), never after
    the pass; the refusal words it as before."""
    trees, sizes, parts = _pass(20_000, 500)
    whole = _run(lambda r: r, parts)
    budget = int(share * _bytes(trees, sizes, whole))
    merged, first_over = parts[0], None
    for part in parts[1:]:
        merged = _sparse.merge_keys(merged, part)
        if first_over is None and _bytes(trees, sizes, merged) > budget:
            first_over = sum(k.size for k, _ in merged)
    assert first_over is not None
    guard = _sparse.PassGuard([(t, sizes) for t in trees], 0, budget, "the model", "less")
    seen = []

    def watching(result):
        seen.append(sum(k.size for k, _ in result))
        return guard(result)

    with pytest.raises(TableTooLargeError, match="counting pass was stopped there"):
        _run(watching, parts)
    chunk = max(sum(k.size for k, _ in p) for p in parts)
    assert seen[-1] <= 2 * first_over + chunk
