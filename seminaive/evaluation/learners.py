"""Learners the experiment tools know by name: ours and the scikit-learn comparators.

Every entry is a :class:`LearnerSpec`: a short CLI key (``nb``, ``aode``, ``rf100``...), the
display label used in tables and plots, and a factory ``(random_state, discretizer, n_bins) ->
estimator``.  ``input`` states what the learner sees:

* ``"raw"``: the learner takes the raw mixed nominal/numeric columns itself (our learners
  discretise numeric columns inside each training fold with the chosen discretiser);
* ``"discretised"``: a comparator run on exactly the data our learners see -- the same
  discretiser fitted on the training fold, nominal values and bins as ordinal codes;
* ``"numeric"``: a comparator run on the raw data, nominal columns ordinal-coded, numeric
  columns untouched, missing values as NaN.

Our learners are looked up by class name in the estimator registry
(:data:`seminaive.persistence.ESTIMATORS`) when built, so registering a learner of a later
module is one line in :data:`LEARNERS`.
"""

from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin, clone
from sklearn.pipeline import make_pipeline

# the learner modules register every estimator class in ESTIMATORS when imported
from .. import ande, selection, structure, weighting  # noqa: F401
from ..persistence import ESTIMATORS
from ..preprocessing.encoder import AttributeEncoder, as_frame


@dataclass(frozen=True)
class LearnerSpec:
    """How to build one learner for an experiment.

    Parameters
    ----------
    key : str
        The command-line key (``seminaive compare --learners key,...``).
    label : str
        The name shown in reports.
    make : callable
        ``make(random_state, discretizer, n_bins)`` returns a fresh estimator.
    input : {"raw", "discretised", "numeric"}, default="raw"
        What the estimator is given: the raw columns (our learners discretise themselves),
        or the same discretised codes as our learners, or the raw numeric columns
        (scikit-learn comparators).
    description : str, default=""
        One line for listings.
    params : dict, optional
        Parameters recorded with the results.

    Examples
    --------
    >>> from seminaive.evaluation.learners import get_learner
    >>> spec = get_learner("aode")
    >>> spec.label, type(spec.build(random_state=0)).__name__
    ('AODE', 'AODE')
    """

    key: str
    label: str
    make: object  # callable(random_state, discretizer, n_bins) -> estimator
    input: str = "raw"
    description: str = ""
    params: dict = field(default_factory=dict)

    def build(self, random_state=None, discretizer="equal_frequency", n_bins=3):
        """A fresh, unfitted estimator.

        Parameters
        ----------
        random_state : int, optional
            Seed, for learners that take one.
        discretizer : str, default="equal_frequency"
            Discretiser of numeric attributes, for learners that take one.
        n_bins : int, default=3
            Bins of equal-frequency discretisation.

        Returns
        -------
        estimator
        """
        return self.make(random_state, discretizer, n_bins)


def _ours(class_name, **params):
    """Factory for a seminaive estimator given by class name (resolved at build time)."""

    def make(random_state, discretizer, n_bins):
        cls = ESTIMATORS[class_name]
        est = cls(**params)
        names = est.get_params()
        common = {"random_state": random_state, "discretizer": discretizer, "n_bins": n_bins}
        # parameters the spec fixes (e.g. a learner that always uses three equal-frequency
        # bins) win over the experiment's
        est.set_params(**{k: v for k, v in common.items() if k in names and k not in params})
        return est

    return make


class OrdinalCodes(TransformerMixin, BaseEstimator):
    """Columns as numbers for a scikit-learn comparator.

    ``discretise=True``: the codes our learners count (same discretiser, fitted on the
    training data), missing as NaN.  ``discretise=False``: nominal columns ordinal-coded in
    order of first appearance, numeric columns as they are, missing as NaN.

    Parameters
    ----------
    discretise : bool, default=True
        Discretise numeric columns, or pass them through.
    discretizer : str, default="equal_frequency"
        The discretiser.
    n_bins : int, default=3
        Bins of equal-frequency discretisation.
    random_state : int, optional
        Seed of the discretiser.
    """

    def __init__(self, discretise=True, discretizer="equal_frequency", n_bins=3,
                 random_state=None):
        self.discretise = discretise
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.random_state = random_state

    def fit(self, X, y=None):
        """Fit the encoder (and discretiser) on the training data.

        Parameters
        ----------
        X : array-like or pandas.DataFrame
            Training attributes.
        y : array-like, optional
            Class labels (used by supervised discretisers).

        Returns
        -------
        OrdinalCodes
            ``self``.
        """
        self.encoder_ = AttributeEncoder(
            discretizer=self.discretizer, n_bins=self.n_bins, random_state=self.random_state)
        self.encoder_.fit(X, y)
        return self

    def transform(self, X):
        """The columns as floats, missing as NaN.

        Parameters
        ----------
        X : array-like or pandas.DataFrame
            Attributes.

        Returns
        -------
        numpy.ndarray of shape (n, n_attributes)
        """
        codes = self.encoder_.transform(X).astype(np.float64)
        codes[codes < 0] = np.nan
        if self.discretise:
            return codes
        frame = as_frame(X)
        numeric = self.encoder_.numeric_columns_
        for col in numeric:
            codes[:, col] = pd.to_numeric(frame.iloc[:, col], errors="coerce").to_numpy(
                dtype=np.float64, na_value=np.nan)
        return codes


class _Comparator(ClassifierMixin, BaseEstimator):
    """A scikit-learn classifier behind :class:`OrdinalCodes` (keeps ``classes_``)."""

    def __init__(self, model=None, discretise=True, discretizer="equal_frequency", n_bins=3,
                 random_state=None):
        self.model = model
        self.discretise = discretise
        self.discretizer = discretizer
        self.n_bins = n_bins
        self.random_state = random_state

    def fit(self, X, y):
        model = clone(self.model)
        if "random_state" in model.get_params():
            model.set_params(random_state=self.random_state)
        self.pipeline_ = make_pipeline(
            OrdinalCodes(self.discretise, self.discretizer, self.n_bins, self.random_state),
            model)
        self.pipeline_.fit(X, y)
        self.classes_ = self.pipeline_.classes_
        return self

    def predict(self, X):
        return self.pipeline_.predict(X)

    def predict_proba(self, X):
        return self.pipeline_.predict_proba(X)


def _sklearn(factory, discretise):
    def make(random_state, discretizer, n_bins):
        return _Comparator(factory(), discretise, discretizer, n_bins, random_state)

    return make


def _rf(n):
    from sklearn.ensemble import RandomForestClassifier

    return lambda: RandomForestClassifier(n_estimators=n, n_jobs=1)


def _tree():
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier()


def _categorical_nb():

    return _NaNCategoricalNB()


class _NaNCategoricalNB(ClassifierMixin, BaseEstimator):
    """scikit-learn's CategoricalNB with missing codes mapped to an extra category."""

    def fit(self, X, y):
        from sklearn.naive_bayes import CategoricalNB

        X = np.where(np.isnan(X), -1, X).astype(np.int64) + 1
        self.model_ = CategoricalNB(alpha=1.0, min_categories=X.max(axis=0) + 2).fit(X, y)
        self.classes_ = self.model_.classes_
        return self

    def _codes(self, X):
        X = np.where(np.isnan(X), -1, X).astype(np.int64) + 1
        limit = self.model_.n_categories_ - 1
        return np.minimum(X, limit)

    def predict(self, X):
        return self.model_.predict(self._codes(X))

    def predict_proba(self, X):
        return self.model_.predict_proba(self._codes(X))


def _hist_gb():
    from sklearn.ensemble import HistGradientBoostingClassifier

    return HistGradientBoostingClassifier()


_SPECS = [
    LearnerSpec("nb", "NB", _ours("NaiveBayes"), description="naive Bayes, A0DE"),
    LearnerSpec("aode", "AODE", _ours("AODE"), description="A1DE (Webb et al. 2012)"),
    LearnerSpec("a2de", "A2DE", _ours("A2DE"), description="A2DE (Webb et al. 2012)"),
    LearnerSpec("a3de", "A3DE", _ours("A3DE"), description="A3DE (Webb et al. 2012)"),
    LearnerSpec("pa2de", "PA2DE", _ours("A2DE", aggregate="posterior"),
                description="A2DE averaging posteriors (Webb et al. 2012, §4.4)"),
    LearnerSpec("fa2de", "FA2DE", _ours("A2DE", aggregate="vote"),
                description="A2DE voting, Feating of NB (Webb et al. 2012, §4.4)"),
    # numeric attributes: Gaussian children, or a fixed discretisation
    *[LearnerSpec(f"{key}-gauss", f"{label}-G", _ours(cls, numeric="gaussian"),
                  description=f"{label}, numeric children Gaussian, parents discretised")
      for key, label, cls in (("nb", "NB", "NaiveBayes"), ("aode", "AODE", "AODE"),
                              ("a2de", "A2DE", "A2DE"))],
    *[LearnerSpec(f"{key}-ef3", f"{label}-EF3",
                  _ours(cls, discretizer="equal_frequency", n_bins=3),
                  description=f"{label}, three equal-frequency bins whatever --discretizer")
      for key, label, cls in (("nb", "NB", "NaiveBayes"), ("aode", "AODE", "AODE"),
                              ("a2de", "A2DE", "A2DE"))],
    # single-model structure learners
    LearnerSpec("tan", "TAN", _ours("TAN"), description="tree-augmented naive Bayes"),
    LearnerSpec("sptan", "SP-TAN", _ours("SPTAN"), description="super-parent TAN"),
    *[LearnerSpec(f"kdb{k}", f"KDB{k}", _ours("KDB", k=k), description=f"KDB, k={k}")
      for k in range(1, 6)],
    *[LearnerSpec(f"skdb{k}", f"SKDB{k}", _ours("SKDB", k=k),
                  description=f"selective KDB, k <= {k} (Martínez et al. 2016)")
      for k in (1, 2, 3, 5)],
    *[LearnerSpec(f"kdb{k}-hdp", f"KDB{k}-HDP", _ours("KDB", k=k, smoothing="hdp"),
                  description=f"KDB, k={k}, HDP estimates (Petitjean et al. 2018)")
      for k in range(1, 6)],
    LearnerSpec("skdb5-hdp", "SKDB5-HDP", _ours("SKDB", k=5, smoothing="hdp"),
                description="selective KDB, k <= 5, HDP estimates"),
    LearnerSpec("eskdb", "ESKDB", _ours("ESKDB"),
                description="20 selective KDBs (k <= 5), HDP estimates (Zhang et al. 2020)"),
    LearnerSpec("eskdb-shared", "ESKDB-shared", _ours("ESKDB", discretization="shared"),
                description="ESKDB with one discretisation shared by the members"),
    LearnerSpec("lbr", "LBR", _ours("LBR"), description="lazy Bayesian rules"),
    LearnerSpec("hnb", "HNB", _ours("HNB"), description="hidden naive Bayes"),
    # weighted sub-models
    LearnerSpec("waode-mi", "WAODE-MI", _ours("WAODE", weights="mi"),
                description="AODE with mutual-information weights"),
    LearnerSpec("waode-kl", "WAODE-KL", _ours("WAODE", weights="kl"),
                description="AODE with Kullback-Leibler weights"),
    LearnerSpec("maplmd", "MAPLMD", _ours("MAPLMD"),
                description="Cerquides & de Màntaras 2005, §3.2, EM"),
    LearnerSpec("maplmg", "MAPLMG", _ours("MAPLMG"),
                description="Cerquides & de Màntaras 2005, §3.2"),
    LearnerSpec("bmaaode", "BMAAODE", _ours("BMAAODE"),
                description="Cerquides & de Màntaras 2005, §5"),
    LearnerSpec("wanbiac", "WANBIA-C", _ours("WANBIAC"),
                description="naive Bayes, attribute weights by conditional log loss"),
    LearnerSpec("wanbiac-p", "WANBIA-C-P", _ours("WANBIAC", weights="parameter"),
                description="naive Bayes, one weight per parameter (Zaidi et al. 2017)"),
    *[LearnerSpec(f"alr{n}-{w.replace('_', '')}", f"ALR{n}-{w}", _ours("ALR", n=n, weights=w),
                  description=f"weighted A{n}JE, weights per {w}")
      for n in (1, 2) for w in ("model", "parent_value", "class", "parent_value_class")],
    LearnerSpec("a2de-mi", "A2DE-MI", _ours("AnDE", n=2, weights="mi"),
                description="A2DE with mutual-information weights"),
    # selected sub-models
    LearnerSpec("aodesr", "AODE-SR", _ours("AODESR", variant="lazy"),
                description="AODE with lazy subsumption resolution"),
    LearnerSpec("aodesr-eager", "AODE-ESR", _ours("AODESR", variant="eager")),
    LearnerSpec("aodesr-near", "AODE-NSR", _ours("AODESR", variant="near")),
    LearnerSpec("fssaode", "FSS-AODE", _ours("FSSAODE")),
    *[LearnerSpec(f"bseaode-{m.replace('_', '')}", f"BSE-AODE-{m.upper()}",
                  _ours("BSEAODE", mode=m)) for m in ("pe", "ce", "p_and_ce", "p_or_ce")],
    LearnerSpec("asaode", "ASAODE", _ours("ASAODE"), description="Chen et al. 2014"),
    LearnerSpec("saode", "SAODE", _ours("SAODE"), description="the SWAODE paper (2024)"),
    LearnerSpec("swaode", "SWAODE", _ours("SWAODE"), description="the SWAODE paper (2024)"),
    LearnerSpec("sa2de", "SA2DE", _ours("SelectiveAnDE", n=2),
                description="selective A2DE (nested parent-pair x child space)"),
    LearnerSpec("ande-auto", "AnDE-auto", _ours("AnDE", n="auto"),
                description="AnDE choosing n in {0, 1, 2} by leave-one-out"),
    # scikit-learn comparators
    LearnerSpec("rf10", "RF10", _sklearn(_rf(10), True), "discretised",
                "scikit-learn RandomForest, 10 trees, on the discretised data"),
    LearnerSpec("rf100", "RF100", _sklearn(_rf(100), True), "discretised",
                "scikit-learn RandomForest, 100 trees, on the discretised data"),
    LearnerSpec("rf10-raw", "RF10-raw", _sklearn(_rf(10), False), "numeric",
                "scikit-learn RandomForest, 10 trees, on the raw data"),
    LearnerSpec("rf100-raw", "RF100-raw", _sklearn(_rf(100), False), "numeric",
                "scikit-learn RandomForest, 100 trees, on the raw data"),
    LearnerSpec("tree", "DecisionTree", _sklearn(_tree, True), "discretised",
                "scikit-learn DecisionTree on the discretised data"),
    LearnerSpec("cnb", "CategoricalNB", _sklearn(_categorical_nb, True), "discretised",
                "scikit-learn CategoricalNB (Laplace) on the discretised data"),
    LearnerSpec("hgb", "HistGB", _sklearn(_hist_gb, True), "discretised",
                "scikit-learn HistGradientBoosting on the discretised data"),
    LearnerSpec("hgb-raw", "HistGB-raw", _sklearn(_hist_gb, False), "numeric",
                "scikit-learn HistGradientBoosting on the raw data"),
]

#: every learner known to the experiment tools, by CLI key
LEARNERS = {spec.key: spec for spec in _SPECS}


def register(spec):
    """Add (or replace) a learner; returns the spec.

    Parameters
    ----------
    spec : LearnerSpec
        The learner; its ``key`` becomes usable on the command line.

    Returns
    -------
    LearnerSpec

    Examples
    --------
    >>> from seminaive import AnDE
    >>> from seminaive.evaluation.learners import LEARNERS, LearnerSpec, get_learner, register
    >>> spec = register(LearnerSpec("a4de", "A4DE", lambda rs, disc, bins: AnDE(n=4)))
    >>> get_learner("a4de").label
    'A4DE'
    >>> del LEARNERS["a4de"]
    """
    LEARNERS[spec.key] = spec
    return spec


def get_learner(key):
    """The :class:`LearnerSpec` of a command-line key (case-insensitive).

    Parameters
    ----------
    key : str
        A key of ``LEARNERS``, e.g. ``"nb"``, ``"aode"``, ``"rf100"``.

    Returns
    -------
    LearnerSpec

    Examples
    --------
    >>> from seminaive.evaluation.learners import get_learner
    >>> get_learner("A2DE").description
    'A2DE (Webb et al. 2012)'
    """
    try:
        return LEARNERS[key.lower()]
    except KeyError:
        raise KeyError(f"unknown learner {key!r}; known: {', '.join(sorted(LEARNERS))}") \
            from None
