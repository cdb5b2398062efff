"""The tables are used through their query API only: no module outside ``seminaive/tables/``
(the learners, the drivers, and the engine's other kernels alike) reads a table's layout
arrays, writes its counts or drops its caches itself.  The kernels that compute on the
layout (counting, scoring, the parent-major copy, the Gaussian children) live in the tables
package.  And the query API does what it says."""

import ast
import pickle
from pathlib import Path

import numpy as np
import pytest

from seminaive.tables import FrequencyTable, MomentTable, TableLayout

PACKAGE = Path(__file__).resolve().parents[2] / "seminaive"
OWNER = ("tables",)

#: the layout arrays of a table: only the tables package reads them by name
LAYOUT = frozenset({"order_first", "ext_first", "offsets", "combos", "sub_index"})


def _is_self(node):
    return isinstance(node, ast.Name) and node.id == "self"


def violations(source, filename="<string>"):
    """``(line, what)`` of every use of a table's internals in ``source``: a read of a
    layout array by name, a write to ``.counts`` (assigning the attribute, its items or
    slices; rebinding the module's own ``self.counts`` is not a table's), and a call of
    ``._changed()``."""
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Attribute) and node.attr in LAYOUT:
            found.append((node.lineno, f"reads .{node.attr}"))
        elif (isinstance(node, ast.Attribute) and node.attr == "counts"
              and isinstance(node.ctx, ast.Store) and not _is_self(node.value)):
            found.append((node.lineno, "writes .counts"))
        elif (isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store)
              and isinstance(node.value, ast.Attribute) and node.value.attr == "counts"):
            found.append((node.lineno, "writes into .counts"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "_changed"):
            found.append((node.lineno, "calls ._changed()"))
    return sorted(found)


def _learner_modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if parts[0] not in OWNER:
            yield path


def test_learner_modules_use_the_query_api_only():
    modules = list(_learner_modules())
    assert any(p.name == "ande.py" for p in modules)
    assert any(p.parts[-3:-1] == ("selection", "_kernels") for p in modules)
    assert any(p.parts[-2:] == ("kernels", "smoothing.py") for p in modules)
    assert not any("tables" in p.relative_to(PACKAGE).parts[:1] for p in modules)
    bad = [f"{path.relative_to(PACKAGE.parent)}:{line}: {what}"
           for path in modules for line, what in violations(path.read_text(), str(path))]
    assert not bad, ("use the tables' query API (seminaive/tables) instead of their layout "
                     "arrays:\n" + "\n".join(bad))


def test_the_scan_finds_every_kind_of_use():
    source = "\n".join([
        "def f(table, other, lay):",
        "    a = table.order_first[1]",  # 2
        "    b = lay.ext_first",  # 3
        "    c = table.offsets[0] + other.combos[0, 0]",  # 4
        "    d = table.sub_index",  # 5
        "    table.counts[:3] = 0.0",  # 6
        "    table.counts[3:] += 1.0",  # 7
        "    other.counts = table.counts",  # 8
        "    table._changed()",  # 9
        "    self.counts = table.counts",  # 10: the module's own attribute
        "    x = table.counts[0] + table.block_start(0)",  # 11: reads are fine
    ])
    assert violations(source) == [
        (2, "reads .order_first"), (3, "reads .ext_first"), (4, "reads .combos"),
        (4, "reads .offsets"), (5, "reads .sub_index"), (6, "writes into .counts"),
        (7, "writes into .counts"), (8, "writes .counts"), (9, "calls ._changed()")]


# ------------------------------------------------------------------------- the query API
def _table(max_order=3, n_values=(2, 3, 2), rows=None):
    rng = np.random.default_rng(3)
    X = rng.integers(0, np.array(n_values) + 1, size=(40, len(n_values)))  # 0: missing
    y = rng.integers(0, 2, size=40)
    table = FrequencyTable(list(n_values), 2, max_order)
    return table.add(X, y), X, y


def test_layout_unpacks_in_field_order():
    table, _, _ = _table()
    lay = table.layout()
    assert isinstance(lay, TableLayout)
    counts, offsets, combos, orders, sizes, k, order_first, ext_first, sub_index = lay
    assert counts is table.counts and sizes is table.sizes and k == 2
    assert [int(order_first[d + 1] - order_first[d]) for d in range(4)] == [1, 3, 3, 1]
    # the block of combination g, found through the layout and through the queries
    for g in range(int(order_first[-1])):
        assert table.block_start(g) == int(offsets[g])
        members = table.members(g)
        assert tuple(int(m) for m in combos[g, :int(orders[g])]) == members
        assert np.shares_memory(table.block_at(g), counts)
    assert table.block_start(table.combination_index([0, 2])) == int(
        offsets[table.combination_index([0, 2])])


def test_starts_of_orders():
    table, _, _ = _table(n_values=(2, 3, 2))
    k = 2
    sizes = [3, 4, 3]  # values + the missing slot
    # combinations: {} | 0 1 2 | 01 02 12 | 012
    assert [table.combination_start(d) for d in range(5)] == [0, 1, 4, 7, 8]
    cells = [1, sum(sizes), 3 * 4 + 3 * 3 + 4 * 3, 3 * 4 * 3]
    assert [table.count_start(d) for d in range(5)] == [k * c for c in np.cumsum([0] + cells)]
    assert table.count_start(4) == table.counts.size
    assert table.cell_start(2) * k == table.count_start(2)


def test_hdp_sizes():
    table, _, _ = _table()
    # one tree per combination and member: 3 of order 1, 3 x 2, 1 x 3
    assert table.n_hdp_trees() == 3 + 6 + 3
    assert table.n_hdp_trees(max_order=2) == 9
    # every order's block once per member
    blocks = [table.block_at(g).size * len(table.members(g))
              for g in range(table.n_combinations())]
    assert table.n_conditional_entries() == sum(blocks)


def test_install_and_add_counts_drop_the_caches():
    table, X, y = _table()
    before = table.scores(X, 1).copy()
    other = FrequencyTable([2, 3, 2], 2, 3)
    assert other.install_counts(table.counts, n_rows=table.n_rows) is other
    assert np.array_equal(other.counts, table.counts)
    assert not np.shares_memory(other.counts, table.counts)
    assert other.n_rows == table.n_rows
    np.testing.assert_array_equal(other.scores(X, 1), before)
    # only a part, then the rest added: the cached log tables follow the counts
    part = FrequencyTable([2, 3, 2], 2, 3)
    part.scores(X, 1)
    start = part.count_start(2)
    part.install_counts(table.counts[:start], n_rows=table.n_rows)
    assert np.all(part.counts[start:] == 0)
    part.add_counts(table.counts[start:], start)
    np.testing.assert_array_equal(part.scores(X, 1), before)
    with pytest.raises(ValueError, match="do not fit"):
        part.add_counts(np.ones(3), table.counts.size - 2)
    # without a copy, the table takes the array itself
    shared = FrequencyTable([2, 3, 2], 2, 3).install_counts(table.counts, copy=False)
    assert shared.counts is table.counts


def test_remapped_merges_values():
    table, X, y = _table(max_order=2)
    # attribute 1: values 1, 2 -> 1 and 3 -> 2; the others unchanged
    lut = np.array([[0, 1, 2, 0], [0, 1, 1, 2], [0, 1, 2, 0]])
    merged = table.remapped(lut, [2, 2, 2])
    X2 = X.copy()
    X2[:, 1] = lut[1][X[:, 1]]
    direct = FrequencyTable([2, 2, 2], 2, 2).add(X2, y)
    np.testing.assert_array_equal(merged.counts, direct.counts)
    assert merged.n_rows == table.n_rows == 40.0


def test_occupied_cells():
    table = FrequencyTable([2, 2], 2, 2)
    table.add(np.array([[1, 2], [1, 2], [0, 1], [2, 1]]), np.array([0, 1, 0, 0]))
    mask, first, per = table.occupied_cells(1)
    # attribute 0: missing (not occurring), 1, 2; attribute 1: missing, 1, 2
    assert first.tolist() == [0, 3, 6]
    assert mask.tolist() == [False, True, True, False, True, True]
    assert per.tolist() == [2, 2]
    mask, first, per = table.occupied_cells(2)
    assert np.flatnonzero(mask).tolist() == [1 * 3 + 2, 2 * 3 + 1]
    assert per.tolist() == [2]


def test_compact_counter_counts_the_stored_cells():
    rng = np.random.default_rng(0)
    X = rng.integers(1, 4, size=(60, 4))
    y = rng.integers(0, 2, size=60)
    parents = [0, 1]
    cells = 4 * 4  # the cells of the one parent pair, missing slots included
    occupied = np.zeros(cells, dtype=bool)
    occupied[X[:, 0] * 4 + X[:, 1]] = True  # every cell of the rows: counting adds none
    whole = FrequencyTable([3] * 4, 2, 3, parents=parents, occupied=occupied).add(X, y)
    empty = FrequencyTable([3] * 4, 2, 3, parents=parents, occupied=occupied)
    counter = pickle.loads(pickle.dumps(empty.compact_counter()))  # travels to workers
    counted = counter(X[:30], y[:30], None) + counter(X[30:], y[30:], np.ones(30))
    empty.install_compact_counts(counted)
    np.testing.assert_array_equal(empty.compact_counts, whole.compact_counts)
    with pytest.raises(ValueError, match="entries"):
        empty.install_compact_counts(counted[:-1])
    with pytest.raises(ValueError, match="compact"):
        FrequencyTable([3] * 4, 2, 3).install_compact_counts(counted)


def test_moment_estimate_start():
    moments = MomentTable([((), 1), ((0,), 1)], sizes=[3, 2], n_classes=2, numeric=[1])
    assert moments.estimate_start((), 1) == 0
    assert moments.estimate_start((0,), 1) == 2  # after the k (cell, class) pairs of ((), 1)
    mean, _ = moments.estimates(1.0)
    assert mean.size == 2 + 3 * 2
