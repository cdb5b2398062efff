"""Super-parent TAN, SP-TAN (Keogh & Pazzani 1999).

Greedy search over one-parent structures scored by leave-one-out accuracy, starting from
naive Bayes:

1. evaluate the current classifier;
2. try every attribute s as *super-parent*: the parent of every orphan (attribute without
   an attribute parent) other than s and its ancestors; take the s with the best accuracy;
3. try every single arc from s to one of those orphans; if the best ("favourite child")
   improves on the current accuracy, add it and go to 1, otherwise stop.

Leave-one-out accuracy is computed from the frequency tables by subtracting each training
row from the counts it contributed (never by refitting), in a numba kernel over chunks of the
training rows (``source.map_reduce``).  Ties: lowest attribute index.
"""

from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, INPUT_PARAMETERS, declare
from . import _kernels as kernels
from ._common import PairStatistics, _FamilyLearner

#: rows of a chunk are split into this many blocks for the parallel accumulation
_ROW_BLOCKS = 16


def eligible_children(parents):
    """``eligible[s, c]``: c is an orphan, not s, and not an ancestor of s (no cycle)."""
    a = parents.size
    eligible = np.zeros((a, a), dtype=bool)
    orphans = parents < 0
    for s in range(a):
        eligible[s] = orphans
        eligible[s, s] = False
        p = parents[s]
        while p >= 0:
            eligible[s, p] = False
            p = parents[p]
    return eligible


def loo_tree_scores(stats, codes, y, w, parents, m, laplace, min_count):
    """Leave-one-out per-class log scores of training rows for a one-parent structure."""
    codes = np.ascontiguousarray(codes)
    out = np.empty((codes.shape[0], stats.n_classes), dtype=np.float64)
    weighted = w is not None
    w_arr = np.ascontiguousarray(w, dtype=np.float64) if weighted else np.zeros(1)
    kernels.loo_tree_scores(codes, np.ascontiguousarray(y, dtype=np.int64), w_arr, weighted,
                            np.ascontiguousarray(parents, dtype=np.int64), stats.kernel_args(),
                            float(m), bool(laplace), float(min_count), out)
    return out


def _add_tuples(left, right):
    return tuple(a + b for a, b in zip(left, right, strict=True))


def super_parent_search(stats, source, m, laplace, min_count):
    """The SP-TAN structure: parents (a,) and the history of accepted arcs
    (super-parent, child, weighted number of right leave-one-out predictions)."""
    a = stats.n_attributes
    parents = np.full(a, -1, dtype=np.int64)
    history = []
    pairs = stats.kernel_args()
    # every arc's log P(x_c | y, x_s), full and held out, once for the whole search
    block = np.outer(pairs.sizes, pairs.sizes) * pairs.k
    np.fill_diagonal(block, 0)
    tab_offsets = np.concatenate([[0], np.cumsum(block)])[:-1].reshape(a, a).astype(np.int64)
    full = np.zeros(int(block.sum()))
    held_out = np.zeros_like(full)
    kernels.pair_log_cond_tables(pairs, float(m), bool(laplace), tab_offsets, full, held_out)
    while True:
        eligible = eligible_children(parents)
        if not eligible.any():
            break
        trial = parents.copy()  # the structure this pass evaluates (parents changes later)

        def evaluate(codes, y, w, parents=trial, eligible=eligible):
            n = codes.shape[0]
            blocks = max(1, min(n, _ROW_BLOCKS))
            cur = np.zeros(blocks)
            sp = np.zeros((blocks, a))
            arc = np.zeros((blocks, a, a))
            if n:
                weighted = w is not None
                kernels.sptan_pass(np.ascontiguousarray(codes), np.asarray(y, dtype=np.int64),
                                   np.ascontiguousarray(w, dtype=np.float64) if weighted
                                   else np.zeros(1), weighted, parents, eligible, pairs,
                                   float(m), bool(laplace), float(min_count), (cur, sp, arc),
                                   (tab_offsets, full, held_out))
            return cur.sum(), sp.sum(axis=0), arc.sum(axis=0)

        result = source.map_reduce(evaluate, _add_tuples)
        if result is None:
            break
        current, sp, arc = result
        tolerance = 1e-9 * max(1.0, abs(current))
        has_children = eligible.any(axis=1)
        super_parent = int(np.argmax(np.where(has_children, sp, -np.inf)))
        child = int(np.argmax(np.where(eligible[super_parent], arc[super_parent], -np.inf)))
        if arc[super_parent, child] > current + tolerance:
            parents[child] = super_parent
            history.append((super_parent, child, float(arc[super_parent, child])))
        else:
            break
    return parents, history


@fill_doc
class SPTAN(_FamilyLearner):
    """Super-parent TAN: a one-parent structure grown greedily by leave-one-out accuracy.

    A one-parent Bayesian network classifier, argmax_y P(y) prod_i P(x_i | y, x_pa(i)) with
    at most one attribute parent pa(i) per attribute (a forest), grown greedily from naive
    Bayes by the super-parent / favourite-child search (Keogh & Pazzani 1999): try every
    attribute s as the parent of every orphan (attribute without an attribute parent) that
    is not an ancestor of s, keep the best s, then add the single arc from s to its
    "favourite child" if it improves the accuracy; stop when no arc does.  Every step is
    scored by leave-one-out accuracy on the training data, computed from the counts by
    removing each row (a row of weight w stands for w copies: one copy, min(w, 1), is
    removed and the result counts w times); ties go to the lowest attribute index.

    :meth:`partial_fit` searches on the first chunk and keeps the structure for later
    chunks, whose rows are counted (the one-parent families are read from the pair counts,
    which hold every chunk); a ``UserWarning`` says that :meth:`fit` on all the rows may
    choose differently (the search's leave-one-out needs every row).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    structure_ : ndarray of shape (n_features,)
        Parent attribute of every attribute, -1 for none.
    search_history_ : list of (int, int, float)
        Accepted arcs in order: (super-parent, favourite child, weighted number of right
        leave-one-out predictions after adding the arc).
    {fitted_attributes}

    See Also
    --------
    TAN : a one-parent tree chosen by conditional mutual information.
    KDB : up to k attribute parents per attribute.

    References
    ----------
    {keogh1999}

    {webb2005}

    {webb2012}

    {cerquides2005}

    Examples
    --------
    >>> from seminaive import SPTAN
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> X, y = X.iloc[::8], y.iloc[::8]  # a sample of 400 rows keeps the search short
    >>> model = SPTAN().fit(X, y)
    >>> model.search_history_[0][:2]  # the first arc: (super-parent, favourite child)
    (20, 32)
    >>> int(model.structure_[32])
    20
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    _parameter_constraints = declare(INPUT_PARAMETERS)
    _parameter_docs = {
        "smoothing": "structure_smoothing",
        "min_count": "structure_min_count",
        "missing": "structure_missing",
    }

    def __init__(
        self,
        *,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
    ) -> None:
        self.smoothing = smoothing
        self.m = m
        self.min_count = min_count
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state

    def _learn_from_counts(self, source):
        stats = PairStatistics(self.table_)
        if self._keeps_choice("structure_"):
            self._warn_choice_kept("structure")
            self._install(stats, self.structure_[:, None])
            return
        parents, history = super_parent_search(stats, source, self.m, self._laplace(),
                                               self.min_count)
        self.structure_ = parents
        self.search_history_ = history
        self._install(stats, parents[:, None])
        self._mark_choice()

    def _learned_state(self):
        return {"parents": self._parents}

    def _set_learned_state(self, arrays):
        parents = self._check_loaded_parents(arrays, max_parents=1)
        if parents.shape[1] != 1:
            raise ValueError("an SP-TAN structure has at most one parent per attribute")
        self.structure_ = parents[:, 0].copy()
        self.search_history_ = []
        self._install(PairStatistics(self.table_), parents)
