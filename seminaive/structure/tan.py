"""Tree-augmented naive Bayes, :class:`TAN` (Friedman, Geiger & Goldszmidt 1997).

Every attribute has the class and at most one other attribute as parents, and a row is
classified by argmax_y P(y) prod_i P(x_i | y, parent(x_i)) (Webb, Boughton & Wang 2005).
The tree is the maximum weighted spanning tree of the complete graph whose edge weights are
the conditional mutual information I(X_i; X_j | Y), read from the pair tables of the shared
frequency table; it is directed away from a root.  Root: the attribute with the highest
mutual information with the class (lowest index on ties), so that the model does not depend
on the column order; Weka's TAN instead directs the edges in the order its greedy search
adds them.
"""

from typing import Literal

import numpy as np
from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

from .._docs import fill_doc
from .._params import ArrayLike, RandomState, Transformer
from ..base import (
    DEFAULT_MAX_TABLE_BYTES,
    HDP_PARAMETERS,
    HDP_SMOOTHING,
    INPUT_PARAMETERS,
    KDE_DENSITY,
    declare,
)
from ._common import (
    GAUSSIAN_FAMILIES,
    HIERARCHICAL_FAMILIES,
    PairStatistics,
    _FamilyLearner,
)


def maximum_spanning_tree(weights, root=0):
    """Parent of every node (-1 for the root) in a maximum weighted spanning tree.

    ``weights`` is a symmetric (a, a) matrix; every pair is an edge, zero weights included
    (SciPy's ``minimum_spanning_tree`` reads a zero entry as "no edge", so it is given the
    positive costs ``max(weights) + 1 - weights``, whose minimum spanning trees are the
    maximum spanning trees of ``weights``).
    """
    weights = np.asarray(weights, dtype=np.float64)
    a = weights.shape[0]
    parents = np.full(a, -1, dtype=np.int64)
    if a < 2:
        return parents
    cost = np.triu(weights.max() + 1.0 - weights, k=1)
    tree = minimum_spanning_tree(cost)
    tree = tree + tree.T
    _, predecessors = breadth_first_order(tree, root, directed=False,
                                          return_predecessors=True)
    parents[:] = predecessors
    parents[parents < 0] = -1
    return parents


@fill_doc
class TAN(_FamilyLearner):
    """Tree-augmented naive Bayes: each attribute has at most one attribute parent, a tree.

    Classifies by argmax_y P(y) prod_i P(x_i | y, x_pa(i)), where pa(i) is the single
    attribute parent of X_i (none for the root).  The tree is the maximum weighted spanning
    tree of the complete graph on the attributes with edge weights I(X_i; X_j | Y)
    (Friedman, Geiger & Goldszmidt 1997), computed from the pair tables (rows in which both
    attributes are observed) and directed away from the attribute with the highest
    I(X_i; Y) (lowest index on ties).  Probabilities come from the same pair counts; with
    ``numeric="gaussian"`` a numeric child's density given the class and its parent is
    estimated from the cells that rows reach (see ``density``).
    :meth:`partial_fit` re-learns the tree from the updated counts, so it equals :meth:`fit`
    on all the chunks.

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    structure_ : ndarray of shape (n_features,)
        Parent attribute of every attribute, -1 for the root.
    root_ : int
        The root of the tree: the attribute with the highest I(X_i; Y).
    {conditional_mutual_info_}
    {mutual_info_}
    {fitted_attributes}

    See Also
    --------
    SPTAN : a one-parent structure chosen by leave-one-out accuracy instead.
    KDB : up to k attribute parents per attribute.
    seminaive.AODE : averages the one-dependence models in which one super-parent is the
        parent of every other attribute.

    References
    ----------
    {petitjean2018}

    {friedman1997}

    {webb2005}

    {webb2012}

    {cerquides2005}

    Examples
    --------
    >>> from seminaive import TAN
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> model = TAN().fit(X, y)
    >>> model.classes_.tolist()
    ['nowin', 'won']
    >>> int(model.root_), int(model.structure_[model.root_])
    (20, -1)
    >>> bool(model.score(X, y) > 0.9)
    True
    """

    parts = (GAUSSIAN_FAMILIES, HIERARCHICAL_FAMILIES)
    _parameter_constraints = declare(INPUT_PARAMETERS, "numeric", HDP_PARAMETERS, "density",
                                     smoothing=HDP_SMOOTHING, density=KDE_DENSITY)
    _parameter_docs = {
        "smoothing": "family_smoothing",
        "min_count": "structure_min_count",
        "missing": "structure_missing",
        "numeric": "numeric_structure",
        "density": "density_kde_default",
    }

    def __init__(
        self,
        *,
        smoothing: Literal["m_estimate", "laplace", "hdp", "hls"] = "m_estimate",
        m: float = 1.0,
        min_count: float = 1,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
        numeric: Literal["discretize", "gaussian"] = "discretize",
        n_iter: int = 1000,
        burn_in: int | None = None,
        tying: Literal["none", "parent", "level", "single"] = "level",
        density: Literal["plugin", "student", "kde"] = "kde",
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
        self.numeric = numeric
        self.n_iter = n_iter
        self.burn_in = burn_in
        self.tying = tying
        self.density = density

    def _learn_from_counts(self, source):
        stats = PairStatistics(self.table_)
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        self.root_ = int(np.argmax(stats.mi))
        self.structure_ = maximum_spanning_tree(stats.cmi, self.root_)
        self._install(stats, self.structure_[:, None])
        self._learn_moments(source)

    def _learned_state(self):
        return {"parents": self._parents, **self._moment_state(), **self._hdp_state()}

    def _set_learned_state(self, arrays):
        arrays = self._take_hdp_state(arrays)
        parents = self._check_loaded_parents(arrays, max_parents=1)
        if parents.shape[1] != 1 or (parents < 0).sum() != 1:
            raise ValueError("a TAN structure has one parent per attribute and one root")
        stats = PairStatistics(self.table_)
        self.mutual_info_ = stats.mi
        self.conditional_mutual_info_ = stats.cmi
        self.structure_ = parents[:, 0].copy()
        self.root_ = int(np.flatnonzero(self.structure_ < 0)[0])
        self._install(stats, parents)
        self._restore_moments(arrays)
