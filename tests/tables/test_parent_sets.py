"""Counting a compact selective table's children by sets of n + 1 parents
(``counting.count_parent_sets``): each set counted once and handed to the n + 1 parent
combinations that hold it, the same numbers bit for bit as counting every (parent
combination, child) (``counting.count_parent_cells``), which a brute-force count checks."""

import itertools
import pickle

import numpy as np
import pytest

from seminaive import A3DE
from seminaive.tables import FrequencyTable, counting


def _data(rng, n_attributes, n_rows, k, missing=0.15):
    n_values = rng.integers(1, 5, size=n_attributes)  # 1 to 4 values (extents 2 to 5)
    X = np.stack([rng.integers(1, v + 1, size=n_rows) for v in n_values], axis=1)
    X[rng.random(X.shape) < missing] = 0  # storage code 0: missing
    y = rng.integers(0, k, size=n_rows)
    return n_values, X, y


def _table(rng, n_values, k, n, parents):
    """A compact table whose stored cells are drawn at random, cells with a missing code
    included."""
    sizes = n_values + 1
    cells = sum(int(np.prod(sizes[list(c)])) for c in itertools.combinations(parents, n))
    occupied = rng.random(cells) < 0.6
    return FrequencyTable(n_values, k, n + 1, parents=parents, occupied=occupied)


def _job(table, X, y, w):
    counter = table.compact_counter()
    weighted = w is not None
    return counting.ParentSetJob(
        np.asfortranarray(X), y.astype(np.int32), w if weighted else np.zeros(1), weighted,
        counter.compact_combos, counter.cell_first, counter.slot_of, counter.sizes,
        int(counter.n_classes), counter.att_off, int(counter.count_region), counter.position,
        counter.binom)


def _brute_force(table, X, y, w):
    """The compact counts by definition: every row, every parent combination whose cell
    of the row is stored, every attribute at its code and the row's class."""
    counts = np.zeros(table.compact_counts.size)
    k, sizes = table.n_classes, table.sizes
    for j, members in enumerate(table.compact_combos):
        for r in range(X.shape[0]):
            cell = 0
            for a in members:
                cell = cell * sizes[a] + X[r, a]
            slot = table.slot_of[table.cell_first[j] + cell]
            if slot < 0:
                continue
            for i in range(sizes.size):
                counts[slot * table.count_region + table.att_off[i] + X[r, i] * k + y[r]] += (
                    1.0 if w is None else w[r])
    return counts


def _cases():
    rng = np.random.default_rng(7)
    for case in range(24):
        n = 1 + case % 3
        n_attributes = int(rng.integers(n + 2, 9))
        k = int(rng.integers(2, 4))
        n_rows = int(rng.integers(1, 120))
        n_values, X, y = _data(rng, n_attributes, n_rows, k)
        n_parents = int(rng.integers(n + 1, n_attributes))  # fewer than every attribute
        parents = np.sort(rng.choice(n_attributes, size=n_parents, replace=False))
        table = _table(rng, n_values, k, n, parents)
        w = rng.normal(1.0, 1.5, size=n_rows) if case % 2 else None  # negative ones too
        yield table, X, y, w


@pytest.mark.parametrize("workers", [1, 3])
def test_sets_count_what_the_cells_count_bit_for_bit(workers):
    for table, X, y, w in _cases():
        job = _job(table, X, y, w)
        cells = np.zeros(table.compact_counts.size)
        counting.count_parent_cells(job.X, job.y, job.w, job.weighted, job.p_combos,
                                    job.cell_first, job.slot_of, job.sizes, job.k,
                                    job.att_off, job.region, cells)
        sets = np.zeros(table.compact_counts.size)
        counting.count_parent_sets(job, sets, workers)
        assert np.array_equal(sets.view(np.int64), cells.view(np.int64))
        reference = _brute_force(table, X, y, w)
        if w is None:
            assert np.array_equal(sets, reference)
        else:
            np.testing.assert_allclose(sets, reference, rtol=1e-12, atol=1e-12)


def test_the_sets_reach_every_parent_combination_of_their_members():
    """A parent child before a combination's last member is counted at another
    combination (the set's first n members) and handed over: removing that hand-over
    would leave such entries at zero, which the brute force does not."""
    rng = np.random.default_rng(3)
    n_values, X, y = _data(rng, 6, 200, 2, missing=0.0)
    table = FrequencyTable(n_values, 2, 4, parents=[0, 1, 2, 3, 4],
                           occupied=np.ones(sum(int(np.prod(n_values[list(c)] + 1))
                                                for c in itertools.combinations(range(5), 3)),
                                            dtype=bool))
    sets = np.zeros(table.compact_counts.size)
    counting.count_parent_sets(_job(table, X, y, None), sets, 2)
    reference = _brute_force(table, X, y, None)
    assert np.array_equal(sets, reference)
    # parent combination (1, 2, 3), child 0: only the sets (0, 1, 2, 3) rooted at (0, 1, 2)
    j = [tuple(c) for c in table.compact_combos.tolist()].index((1, 2, 3))
    held = reference.reshape(-1, table.count_region)[
        table.slot_of[table.cell_first[j]:table.cell_first[j + 1]]]
    assert held[:, table.att_off[0]:table.att_off[1]].sum() == 200  # every row, once


def test_combination_rank_is_the_lexicographic_index():
    for m, n in [(1, 1), (5, 1), (6, 2), (7, 3), (9, 4)]:
        _, binom = counting.parent_positions(np.arange(m), m, n)
        for rank, combo in enumerate(itertools.combinations(range(m), n)):
            assert counting._combination_rank(np.array(combo, dtype=np.int64), binom) == rank


def test_the_counter_counts_by_sets_when_it_pays(monkeypatch):
    """The picklable counter of a compact table (the second pass of ``memory="select"``)
    counts the same numbers as the table's own ``add`` whichever kernel it picks."""
    rng = np.random.default_rng(11)
    n_values, X, y = _data(rng, 8, 300, 3)
    parents = [0, 2, 3, 5, 6, 7]
    sizes = n_values + 1
    cells = sum(int(np.prod(sizes[list(c)])) for c in itertools.combinations(parents, 3))
    occupied = np.ones(cells, dtype=bool)
    whole = FrequencyTable(n_values, 3, 4, parents=parents, occupied=occupied).add(X, y)
    counter = pickle.loads(pickle.dumps(
        FrequencyTable(n_values, 3, 4, parents=parents, occupied=occupied).compact_counter()))
    picked = []
    for name in ("count_parent_sets", "count_parent_cells"):
        kernel = getattr(counting, name)
        monkeypatch.setattr(counting, name, lambda *a, kernel=kernel, name=name: (
            picked.append(name), kernel(*a))[1])
    for gain in (1e9, 0.0):  # always worth it, never
        monkeypatch.setattr(counting, "PARENT_SET_GAIN", gain)
        w = rng.random(300)
        assert np.array_equal(counter(X, y, None), whole.compact_counts)
        weighted = FrequencyTable(n_values, 3, 4, parents=parents, occupied=occupied)
        assert np.array_equal(counter(X, y, w), weighted.add(X, y, w).compact_counts)
    # the counter by sets twice, then by cells; the table's own add always by cells
    sets, cells = "count_parent_sets", "count_parent_cells"
    assert picked == [sets, sets, cells] + [cells, cells, cells]


def test_a3de_memory_select_counts_its_children_as_the_table_adds_them():
    """A3DE(memory="select") in the compact layout (its second pass by sets, 3,000 rows)
    against a table of the same parents and stored cells counted by ``add`` (by cells)."""
    rng = np.random.default_rng(5)
    n_values = rng.integers(2, 5, size=9)
    X = np.stack([rng.integers(0, v, size=3000) for v in n_values], axis=1)
    X[:v_max_rows(n_values)] = np.arange(v_max_rows(n_values))[:, None] % n_values  # all seen
    y = rng.integers(0, 2, size=3000)
    model = A3DE(memory="select", max_table_bytes=2_000_000,
                 categorical_features="all").fit(X, y)
    table = model.table_
    assert table.compact and 3 <= table.parents.size < 9
    twin = FrequencyTable(n_values, 2, 4, parents=table.parents, occupied=table.occupied)
    twin.add(X + 1, y)  # storage codes: value + 1
    assert np.array_equal(twin.compact_counts, table.compact_counts)


def v_max_rows(n_values):
    return int(np.max(n_values))
