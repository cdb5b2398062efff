"""Lazy Bayesian rules, :class:`LBR` (Zheng & Webb 2000).

For each test row, LBR grows a conjunction W of attribute-value tests taken from the row
itself; the row is classified by a naive Bayes trained on the training rows that satisfy W,
using the attributes not in W (argmax_y P(y | W) prod_i P(x_i | y, W); Webb, Boughton &
Wang 2005).  W grows greedily while leave-one-out errors drop significantly (one-tailed
sign test).

Being lazy, LBR keeps its training rows: storage codes (uint8 for attributes with at most
255 values, int32 otherwise), class indices and, if given, weights; they are written into
the model file.  The search runs in numba (:mod:`seminaive.structure._lbr_kernels`), in
parallel over test rows.
"""

from numbers import Real
from typing import Literal

import numpy as np

from .._docs import fill_doc
from .._params import ArrayLike, Interval, RandomState, Transformer
from ..base import DEFAULT_MAX_TABLE_BYTES, INPUT_PARAMETERS, declare
from . import _lbr_kernels as kernels
from ._common import _StructureBase


def _concat_parts(left, right):
    return tuple(a + b for a, b in zip(left, right, strict=True))


@fill_doc
class LBR(_StructureBase):
    """Lazy Bayesian rules: a naive Bayes on the training rows that match a rule, per row.

    For each test row x, LBR grows a rule W, a conjunction of attribute-value tests taken
    from x itself, and classifies x by argmax_y P(y | W) prod_{i not in W} P(x_i | y, W): a
    naive Bayes trained on the training rows that satisfy W, over the attributes not in W
    (Zheng & Webb 2000).

    Acceptance rule (Zheng & Webb 2000, Table 1): starting from W = {} with the
    leave-one-out errors of naive Bayes on all the training rows D, every attribute A not in
    W whose test value v is observed is tried: D' = rows of D with A = v, a local naive
    Bayes on D' without A, its leave-one-out errors on D'.  A qualifies if the rows of D'
    it turns from wrong to right (wins) exceed those it turns from right to wrong (losses)
    with a one-tailed sign test P(X >= wins | Binomial(wins + losses, 1/2)) <= significance;
    the qualifying A with the fewest errors on D (lowest index on ties) joins W and D = D'.
    The search stops when no attribute qualifies.  A training row whose value of A is
    missing does not satisfy A = v.  Leave-one-out with weights: a row of weight w stands for
    w copies (one copy, min(w, 1), is left out; its result counts w times; the sign test
    rounds weighted counts to whole rows).

    With smoothing="laplace" the probabilities are those of Weka 3.6's
    weka.classifiers.lazy.LBR on data without missing training values (Weka counts a
    missing training value as the attribute's first value).

    Parameters
    ----------
    {parameters}

    Attributes
    ----------
    n_training_rows_ : int
        Training rows kept for classification (rows of weight 0 are not kept).
    {fitted_attributes}

    See Also
    --------
    LBR.conditioning_sets : the attributes of the rule W chosen for each row.
    seminaive.NaiveBayes : the model LBR starts every search from.

    Notes
    -----
    LBR has no ``min_count``.  ``table_`` holds the naive Bayes counts.  Classification
    costs O(t k a^2) per test row and iteration of the search (t training rows, k classes,
    a attributes); memory O(t a) for the kept rows.  :meth:`partial_fit` appends the
    chunk's rows, so it equals :meth:`fit` on all the chunks.

    References
    ----------
    {zheng2000}

    {webb2005}

    {webb2012}

    {cerquides2005}

    Examples
    --------
    >>> from seminaive import LBR
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> X, y = X.iloc[::8], y.iloc[::8]  # LBR searches at prediction time: keep it small
    >>> model = LBR().fit(X, y)
    >>> model.n_training_rows_
    400
    >>> model.conditioning_sets(X.iloc[:3]).shape  # one rule per row, over 36 attributes
    (3, 36)
    >>> bool(model.score(X.iloc[:100], y.iloc[:100]) > 0.9)
    True
    """

    #: not a parameter: LBR has no parent-frequency threshold
    min_count = 0
    _parameter_constraints = declare(
        [p for p in INPUT_PARAMETERS if p != "min_count"],
        significance=[Interval(Real, 0, 1, closed="neither")])
    _parameter_docs = {
        "significance": """
        significance : float, default=0.05
            Level of the one-tailed sign test that admits an attribute into W.
        """,
        "smoothing": "structure_smoothing",
    }

    def __init__(
        self,
        *,
        significance: float = 0.05,
        smoothing: Literal["m_estimate", "laplace"] = "m_estimate",
        m: float = 1.0,
        discretizer: Literal["mdl", "equal_frequency"] | Transformer = "mdl",
        n_bins: int = 3,
        missing: Literal["ignore", "value"] = "ignore",
        categorical_features: Literal["auto", "all", "none"] | ArrayLike = "auto",
        max_table_bytes: float | None = DEFAULT_MAX_TABLE_BYTES,
        random_state: RandomState = None,
    ) -> None:
        self.significance = significance
        self.smoothing = smoothing
        self.m = m
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.missing = missing
        self.categorical_features = categorical_features
        self.max_table_bytes = max_table_bytes
        self.random_state = random_state

    def _table_order(self):
        return 1


    def _learn_from_counts(self, source):
        def grab(codes, y, w):
            keep = slice(None) if w is None else np.asarray(w) > 0
            return ([np.asarray(codes)[keep]], [np.asarray(y, dtype=np.int64)[keep]],
                    [None if w is None else np.asarray(w, dtype=np.float64)[keep]])

        parts = source.map_reduce(grab, _concat_parts) or ([], [], [])
        codes, ys, ws = (list(p) for p in parts)
        if hasattr(self, "_train_codes"):
            codes.insert(0, self._train_codes)
            ys.insert(0, self._train_y)
            ws.insert(0, self._train_w)
        a = self.table_.n_attributes
        dtype = np.uint8 if self.table_.sizes.max() <= 255 else np.int32
        self._train_codes = np.ascontiguousarray(
            np.concatenate(codes) if codes else np.zeros((0, a)), dtype=dtype)
        self._train_y = np.concatenate(ys) if ys else np.zeros(0, dtype=np.int64)
        if all(w is None for w in ws):
            self._train_w = None
        else:
            self._train_w = np.concatenate(
                [np.ones(len(y)) if w is None else w for w, y in zip(ws, ys, strict=True)])
        self._prepare()

    def _prepare(self):
        """Layout of the local count arrays and naive Bayes' leave-one-out errors."""
        sizes = self.table_.sizes
        k = self.table_.n_classes
        self._uni_offsets = np.concatenate([[0], np.cumsum(sizes * k)[:-1]]).astype(np.int64)
        self._n_cells = int((sizes * k).sum())
        self.n_training_rows_ = int(self._train_y.size)
        self._base_wrong = np.zeros(self._train_y.size, dtype=np.bool_)
        if self._train_y.size:
            kernels.loo_naive_bayes_wrong(self._train_args(), float(self.m),
                                          self._laplace(), self._base_wrong)

    def _train_args(self):
        weighted = self._train_w is not None
        return kernels.Training(self._train_codes, self._train_y,
                                self._train_w if weighted else np.zeros(1), weighted,
                                self.table_.sizes, self._uni_offsets, self.table_.n_classes,
                                self._n_cells)

    def _search(self, X):
        codes = np.ascontiguousarray(self._storage_codes(X))
        k = self.table_.n_classes
        out = np.zeros((codes.shape[0], k), dtype=np.float64)
        chosen = np.zeros(codes.shape, dtype=bool)
        if codes.shape[0]:
            kernels.lbr_scores(self._train_args(), self._base_wrong, codes, float(self.m),
                               self._laplace(), float(self.significance), out, chosen)
        return out, chosen

    def _scores(self, X):
        return self._search(X)[0]

    def conditioning_sets(self, X):
        """The attributes of W (whose values the training rows must share) for every row.

        Returns
        -------
        ndarray of bool, shape (n_samples, n_features)
        """
        return self._search(X)[1]

    def _learned_state(self):
        state = {"train_codes": self._train_codes, "train_y": self._train_y}
        if self._train_w is not None:
            state["train_w"] = self._train_w
        return state

    def _set_learned_state(self, arrays):
        if not {"train_codes", "train_y"} <= set(arrays) or set(arrays) - {
                "train_codes", "train_y", "train_w"}:
            raise ValueError(f"unexpected learned arrays {sorted(arrays)}")
        codes, y = np.asarray(arrays["train_codes"]), np.asarray(arrays["train_y"])
        w = arrays.get("train_w")
        sizes, k = self.table_.sizes, self.table_.n_classes
        if codes.ndim != 2 or codes.shape[1] != sizes.size or codes.dtype.kind not in "iu":
            raise ValueError("training codes must be an integer matrix with one column per "
                             "attribute")
        if codes.size and (codes.min() < 0 or np.any(codes.max(axis=0) >= sizes)):
            raise ValueError("training codes out of the attributes' ranges")
        if y.shape != (codes.shape[0],) or y.dtype.kind not in "iu" or (
                y.size and (y.min() < 0 or y.max() >= k)):
            raise ValueError("training classes do not match the codes or the classes")
        if w is not None:
            w = np.asarray(w)
            if w.shape != y.shape or w.dtype != np.float64 or not np.all(np.isfinite(w)) \
                    or np.any(w <= 0):
                raise ValueError("training weights must be positive and one per row")
        totals = np.bincount(y, weights=w, minlength=k)
        if not np.allclose(totals, self.table_.block(()), rtol=1e-9, atol=1e-9):
            raise ValueError("the kept training rows do not match the class counts")
        dtype = np.uint8 if sizes.max() <= 255 else np.int32
        self._train_codes = np.ascontiguousarray(codes, dtype=dtype)
        self._train_y = y.astype(np.int64)
        self._train_w = None if w is None else w
        self._prepare()
