"""Honest incremental learning: learners whose choice (selection, structure, members) needs
leave-one-out or search over all the rows keep the choice made on the first chunk, count
every later chunk (no row is dropped), and warn; a fresh fit chooses again."""

import warnings

import numpy as np
import pytest
from sparse_cases import family_blocks

from seminaive import (
    ASAODE,
    BSEAODE,
    ESKDB,
    FSSAODE,
    KDB,
    MAPLMD,
    MAPLMG,
    SAODE,
    SKDB,
    SPTAN,
    SWAODE,
    AnDE,
    SelectiveAnDE,
)
from seminaive.datasets import load_kr_vs_kp

CHOICE = {  # learner -> attributes holding its choice
    "SelectiveAnDE": ("n_", "parents_", "children_"), "ASAODE": ("parents_", "children_"),
    "SAODE": ("parents_", "children_"), "SWAODE": ("parents_", "children_", "parent_weights_"),
    "FSSAODE": ("parents_", "children_"), "BSEAODE": ("parents_", "children_"),
    "AnDE": ("n_", "parents_", "children_"), "SPTAN": ("structure_",),
    "SKDB": ("k_", "n_selected_features_", "candidates_", "order_"),
    "KDB": ("structure_",), "ESKDB": ("orders_",),
}


@pytest.fixture(scope="module")
def chunks():
    X, y = load_kr_vs_kp()
    rows = np.random.default_rng(0).permutation(len(X))[:900]
    X, y = X.iloc[rows, :14].reset_index(drop=True), y.iloc[rows].reset_index(drop=True)
    return X, y


@pytest.mark.parametrize("make", [
    lambda: SelectiveAnDE(n=2), ASAODE, SAODE, SWAODE, FSSAODE, BSEAODE,
    lambda: AnDE(n="auto"), SPTAN, lambda: SKDB(k=2), lambda: KDB(k=2),
    lambda: ESKDB(n_estimators=2, k=2, n_iter=20, random_state=0),
], ids=lambda f: type(f()).__name__)
def test_choice_kept_and_every_row_counted(make, chunks):
    X, y = chunks
    first, rest = slice(0, 60), slice(60, None)
    model = make().partial_fit(X.iloc[first], y.iloc[first], classes=np.unique(y))
    name = type(model).__name__
    kept = {a: np.copy(getattr(model, a)) for a in CHOICE[name]}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model.partial_fit(X.iloc[rest], y.iloc[rest])
    messages = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
    full = make().fit(X, y)
    for a, value in kept.items():
        np.testing.assert_array_equal(getattr(model, a), value)
    np.testing.assert_array_equal(model.table_.counts, full.table_.counts)
    if name != "KDB":  # KDB warns only when the structure would change
        assert any(f"{name}.partial_fit keeps" in m for m in messages), messages
    # the kept choice scores with all the counts: the same as the fresh model when the
    # fresh fit chooses the same
    same = all(np.array_equal(getattr(full, a), v) for a, v in kept.items())
    if same and name not in ("ESKDB",):
        np.testing.assert_allclose(model.predict_proba(X), full.predict_proba(X), atol=1e-10)
    # a fit after partial_fit chooses afresh, without warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        again = model.fit(X, y)
    for a in CHOICE[name]:
        np.testing.assert_array_equal(getattr(again, a), getattr(full, a))


def test_kdb_family_counts_hold_every_chunk(chunks):
    X, y = chunks
    model = KDB(k=3)
    for part in np.array_split(np.arange(len(y)), 4):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            model.partial_fit(X.iloc[part], y.iloc[part], classes=np.unique(y))
    fixed = model.structure_
    blocks = family_blocks(model)
    total = sum(block.sum() for block in blocks.values())
    n_families = len(blocks)
    assert total == pytest.approx(n_families * len(y))  # every row in every family
    assert fixed.shape == (X.shape[1], 3)


@pytest.mark.parametrize("cls", [MAPLMD, MAPLMG])
def test_mixture_weights_from_later_chunks_warn(cls, chunks):
    X, y = chunks
    model = cls(max_iter=5).partial_fit(X.iloc[:300], y.iloc[:300], classes=np.unique(y))
    with pytest.warns(UserWarning, match=f"{cls.__name__}.partial_fit learns the weights"):
        model.partial_fit(X.iloc[300:], y.iloc[300:])
