"""Parts a learner declares: Gaussian numeric children and hierarchical estimates.

A learner on the engine (:class:`seminaive.base.Learner`) lists the parts it takes in its
class attribute ``parts``::

    class MyLearner(Learner):
        parts = (GaussianChildren(), HierarchicalEstimates())

and the base calls every declared part at fixed points of the training protocol:

* ``Part.check_params`` -- when the parameters are checked (every part *kind*, declared
  or not, so that a parameter that turns on a part the learner does not declare is refused);
* ``Part.table_spec`` and ``Part.attach`` -- when the tables of a model are made
  (``begin_fit``; model files are checked against the spec);
* ``Part.needs_values`` -- whether counting needs the numeric values;
* ``Part.learn`` -- once the counts (and the learner's table preparation) are final,
  before the learner's own ``_learn_from_counts``;
* ``Part.scores`` -- when scoring rows (the first part that answers scores them);
* ``Part.learned_state`` / ``Part.restore`` -- when saving and loading.

A part holds no fitted state: what it learns lives on the learner's tables, so a part is
declared once, on the class, and shared by every instance.  Learners that keep their own
layout (the family learners of ``seminaive.structure``) declare the part with
``layout="families"``: the part then checks the parameters and provides the estimates'
settings (seeds, burn-in, density, shrinkage), and the learner stores and scores them.
"""

import numpy as np
from sklearn.utils import check_random_state

from .exceptions import TableTooLargeError
from .kernels.smoothing import Smoothing
from .tables import FLOOR_RATIO, binned
from .tables import gaussian as gaussian_kernels

#: the model-file key of the conditional estimates of the shared table
CONDITIONAL_KEY = "log_conditional"
#: the key model files written before the estimates had a neutral name hold them under
LEGACY_CONDITIONAL_KEY = "hdp_log_conditional"
#: the layouts a part serves: the shared frequency table, or the learner's own families
LAYOUTS = ("table", "families")


class Part:
    """A piece of a learner's model that several learners share (see the module docstring).

    Parameters
    ----------
    layout : {"table", "families"}, default="table"
        Where the part's counts and estimates live: in the shared
        :class:`~seminaive.tables.FrequencyTable` (the part stores and scores them), or in
        the learner's own per-family layout (the learner does).
    when : callable, optional
        ``when(learner) -> bool``: whether the part is available with the learner's other
        parameters (default: always).
    owner : str, optional
        How an error names the learners for which ``when`` is false (default: the class).

    Examples
    --------
    >>> from seminaive import AnDE, KDB
    >>> [type(part).__name__ for part in KDB.parts]
    ['GaussianChildren', 'HierarchicalEstimates']
    >>> AnDE.parts[1].when(AnDE(n="auto"))
    False
    """

    #: the parameter that turns the part on, and its values that do
    parameter = None
    values = ()

    def __init__(self, *, layout="table", when=None, owner=None):
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {list(LAYOUTS)}, got {layout!r}")
        self.layout = layout
        self.when = when
        self.owner = owner

    def __repr__(self):
        return f"{type(self).__name__}(layout={self.layout!r})"

    @classmethod
    def requested(cls, learner):
        """Whether the learner's parameters turn this kind of part on."""
        return learner.get_params(deep=False).get(cls.parameter) in cls.values

    def enabled(self, learner):
        """Whether the part takes part in the learner's model with its parameters."""
        return self.requested(learner)

    @classmethod
    def check_params(cls, learner, declared):
        """Refuse (``ValueError``) parameters that turn on a part the learner does not
        declare, or declares only with other parameters (``when``)."""
        if not cls.requested(learner):
            return
        if declared is None or (declared.when is not None and not declared.when(learner)):
            owner = type(learner).__name__
            if declared is not None and declared.owner is not None:
                owner = declared.owner
            raise ValueError(cls.refusal(learner, owner))

    @classmethod
    def refusal(cls, learner, owner):
        value = learner.get_params(deep=False)[cls.parameter]
        return f"{cls.parameter}={value!r} is not available for {owner}"

    # hooks the base calls (defaults: the part adds nothing)
    def table_spec(self, learner, encoder):
        """Entries of ``seminaive.base.Learner.table_spec`` this part sets."""
        return {}

    def attach(self, learner, table, encoder):
        """Prepare the new, empty ``table`` of a model (``begin_fit``)."""

    def needs_values(self, learner):
        """Whether counting needs the numeric values of the rows."""
        return False

    def learn(self, learner, source):
        """Estimate what the part needs from the final counts."""

    def scores(self, learner, X, codes):
        """Per-class log scores of the rows (None: the part does not score)."""
        return None

    def learned_state(self, learner):
        """Arrays the part learnt, for model files."""
        return {}

    def restore(self, learner, arrays):
        """Take the part's arrays of a model file (validated); return the others."""
        return arrays


def _numeric(encoder):
    return np.asarray(encoder.numeric_columns_, dtype=np.int64)


class GaussianChildren(Part):
    """Numeric attributes as Gaussian children (``numeric="gaussian"``).

    Every numeric attribute is a child whose density given its parents (and the class) is a
    Gaussian of the shrunk moments of its parents' cell (``seminaive.tables.MomentTable``),
    or with ``density="student"`` the Student-t posterior predictive of the
    normal-inverse-gamma prior (``seminaive.tables.gaussian.normal_inverse_gamma_predictive``),
    or with ``density="kde"`` a kernel-smoothed density of its counts on a fixed grid
    (:mod:`seminaive.tables.binned`; not for the leave-one-out kernels of the shared
    table, :meth:`loo`).
    With ``layout="table"`` the moments of every parent combination up to the learner's order
    are kept in the shared table and scored by it (AnDE and the learners on its tables).

    Parameters
    ----------
    layout, when, owner
        As in :class:`Part`.

    Examples
    --------
    >>> from seminaive import AODE, NaiveBayes
    >>> part = AODE.parts[0]
    >>> part
    GaussianChildren(layout='table')
    >>> part.enabled(AODE(numeric="gaussian")), part.density(AODE(numeric="gaussian"))
    (True, 'kde')
    >>> part.kappa(NaiveBayes(m=2.0))
    2.0
    """

    parameter = "numeric"
    values = ("gaussian",)

    @classmethod
    def refusal(cls, learner, owner):
        return f"numeric='gaussian' is not available for {owner}: use numeric='discretize'"

    # ------------------------------------------------------------------ what it reads
    def attributes(self, learner, encoder=None):
        """Indices of the numeric attributes modelled as Gaussian children (empty with
        ``numeric="discretize"``)."""
        if not self.enabled(learner):
            return np.empty(0, dtype=np.int64)
        return _numeric(learner.encoder_ if encoder is None else encoder)

    def moment_order(self, learner):
        """Highest parent order of the moments the shared table keeps (None: the learner
        keeps its children's moments itself)."""
        return learner._order() if self.layout == "table" else None

    def density(self, learner):
        """``"plugin"``, ``"student"`` or ``"kde"`` (learners without a ``density``
        parameter: plug-in)."""
        return learner.get_params(deep=False).get("density", "plugin")

    def kappa(self, learner):
        """Pseudo-rows of the estimates' shrinkage (m; 1 with Laplace)."""
        return Smoothing.from_params(learner.smoothing, learner.m).kappa

    def missing_codes(self, learner):
        """Storage code of the value for missing of every Gaussian attribute
        (``missing="value"`` and missing values in training), 0 elsewhere."""
        codes = np.zeros(learner.table_.n_attributes, dtype=np.int64)
        numeric = self.attributes(learner)
        own = learner.encoder_.missing_code_[numeric]
        codes[numeric] = np.where(own >= 0, own + 1, 0)
        return codes

    def bin_log_widths(self, learner):
        """log widths of the numeric parents' bins (``MomentTable.bin_log_widths``)."""
        encoder = learner.encoder_
        return learner.table_.moments.bin_log_widths(encoder.cut_points(),
                                                     encoder.numeric_center_,
                                                     encoder.n_values_)

    def loo(self, learner, max_parents):
        """The ``seminaive.tables.gaussian.GaussianLoo`` of the table's moments for
        parent orders up to ``max_parents`` (an empty one without Gaussian children), for
        the leave-one-out kernels."""
        table = learner.table_
        if not self.needs_values(learner) or table.moments is None:
            return gaussian_kernels.no_gaussian_loo(table.n_attributes)
        if self.density(learner) == "kde":
            raise ValueError(_kde_refusal(type(learner).__name__))
        numeric = table.moments.numeric
        gaussian = np.full(table.n_attributes, -1, dtype=np.int64)
        gaussian[numeric] = np.arange(numeric.size)
        cuts = learner.encoder_.cut_points()
        center = learner.encoder_.numeric_center_
        width = max([1] + ([len(c) for c in cuts] if cuts is not None else []))
        cut_array = np.zeros((numeric.size, width))
        n_cuts = np.full(numeric.size, -1, dtype=np.int64)
        if cuts is not None:
            for j, c in enumerate(cuts):
                cut_array[j, :len(c)] = np.asarray(c, dtype=np.float64) - center[j]
                n_cuts[j] = len(c)
        starts = table.moment_starts(max_parents)
        return gaussian_kernels.GaussianLoo(
            gaussian, self.missing_codes(learner), starts, table.moments.sums,
            self.kappa(learner), FLOOR_RATIO, cut_array, n_cuts,
            int(min(max_parents, table.moment_parents)) + 1,
            self.density(learner) == "student")

    # ------------------------------------------------------------------ the hooks
    def table_spec(self, learner, encoder):
        order = self.moment_order(learner)
        if order is None:
            return {}
        return {"moment_numeric": self.attributes(learner, encoder), "moment_order": int(order)}

    def attach(self, learner, table, encoder):
        numeric = self.attributes(learner, encoder)
        order = self.moment_order(learner)
        if numeric.size and order is not None:
            table.attach_moments(numeric, order)
            if self.density(learner) == "kde":
                quantiles = getattr(encoder, "numeric_grid_", None)
                if quantiles is None:
                    raise ValueError("density='kde' needs an encoder fitted by this version "
                                     "(numeric_grid_): fit the model again")
                edges, n_bins = binned.grid_edges(quantiles, encoder.numeric_center_)
                need = table.moments.sums.nbytes // 3 * int(n_bins.max(initial=1))
                budget = table.max_table_bytes
                if budget is not None and (need + table.counts.nbytes
                                           + table.moments.sums.nbytes > budget):
                    raise TableTooLargeError(
                        f"the binned counts of density='kde' ({need:,} bytes) would exceed "
                        f"max_table_bytes={budget:,} with the counts and moments: use a lower "
                        "order, density='student', or raise max_table_bytes")
                table.moments.attach_grid(edges, n_bins)

    def needs_values(self, learner):
        return self.enabled(learner) and _numeric(learner.encoder_).size > 0

    def scores(self, learner, X, codes, log_weights=None):
        """AnDE scores with Gaussian children from the shared table (None with
        ``layout="families"`` or without Gaussian children)."""
        if self.layout != "table" or not self.needs_values(learner):
            return None
        return learner.table_.gaussian_scores(
            codes, learner.encoder_.numeric_values(X, type(learner).__name__),
            self.bin_log_widths(learner), learner._order(), learner.smoothing, learner.m,
            learner.min_count, learner.aggregate, missing_code=self.missing_codes(learner),
            log_weights=log_weights, density=self.density(learner))


def _kde_refusal(owner):
    return (f"density='kde' is not available for {owner}: it is made for NaiveBayes and "
            "the AnDE family (AODE, A2DE, AnDE), and for TAN, KDB and SKDB; use "
            "density='student' or 'plugin'")


class HierarchicalEstimates(Part):
    """Hierarchical estimates of the conditionals: ``smoothing="hdp"`` (hierarchical
    Dirichlet processes, Petitjean et al. 2018) or ``smoothing="hls"`` (hierarchical linear
    smoothing, Cooper, Webb & Schmidt 2025).

    With ``layout="table"`` the estimates of every conditional of the shared table are made
    once the counts are final and installed with
    ``seminaive.tables.FrequencyTable.install_conditional``; they are stored in model
    files under ``CONDITIONAL_KEY`` (files that hold them under
    ``LEGACY_CONDITIONAL_KEY`` still load).

    Parameters
    ----------
    layout, when, owner
        As in :class:`Part`.

    Examples
    --------
    >>> from seminaive import AnDE
    >>> part = AnDE.parts[1]
    >>> part.burn_in(AnDE(n_iter=50)), part.burn_in(AnDE(n_iter=50, burn_in=3))
    (5, 3)
    >>> part.seeds(AnDE(random_state=0), 2).shape
    (2,)
    """

    parameter = "smoothing"
    values = ("hdp", "hls")

    @classmethod
    def refusal(cls, learner, owner):
        value = learner.get_params(deep=False)[cls.parameter]
        return (f"smoothing={value!r} is not available for {owner}: use "
                "smoothing='m_estimate' or 'laplace'")

    @classmethod
    def check_params(cls, learner, declared):
        super().check_params(learner, declared)
        params = learner.get_params(deep=False)
        burn_in = params.get("burn_in")
        if burn_in is not None and burn_in >= params["n_iter"]:
            raise ValueError(f"burn_in must be None or an integer in [0, n_iter), got "
                             f"burn_in={burn_in!r} with n_iter={params['n_iter']!r}")

    def kind(self, learner):
        """``"hdp"`` or ``"hls"``."""
        return learner.smoothing

    def seeds(self, learner, n_trees):
        """One seed per HDP tree, from ``random_state``."""
        rng = check_random_state(learner.random_state)
        return rng.randint(0, 2 ** 62, size=n_trees, dtype=np.int64).astype(np.uint64)

    def burn_in(self, learner):
        """The sampler's burn-in: ``burn_in``, or by default min(1000, n_iter / 10)."""
        burn_in = learner.get_params(deep=False).get("burn_in")
        return min(1000, int(learner.n_iter) // 10) if burn_in is None else int(burn_in)

    def estimate(self, learner, table):
        """The log-conditional estimates of every conditional of ``table``."""
        if self.kind(learner) == "hls":
            return table.hls_tables()
        return table.hdp_tables(int(learner.n_iter), self.burn_in(learner), learner.tying,
                                self.seeds(learner, table.n_hdp_trees()))

    # ------------------------------------------------------------------ the hooks
    def learn(self, learner, source):
        if self.layout == "table" and self.enabled(learner):
            table = learner.table_
            table.install_conditional(self.estimate(learner, table), kind=self.kind(learner))

    def learned_state(self, learner):
        if self.layout != "table" or not self.enabled(learner):
            return {}
        return {CONDITIONAL_KEY: learner.table_.conditional}

    def restore(self, learner, arrays):
        if self.layout != "table":
            return arrays
        arrays = dict(arrays)
        found = [key for key in (CONDITIONAL_KEY, LEGACY_CONDITIONAL_KEY) if key in arrays]
        if len(found) > 1 or bool(found) != self.enabled(learner):
            raise ValueError(f"{CONDITIONAL_KEY} must be in the model file exactly when "
                             "smoothing='hdp' or 'hls'")
        if found:
            learner.table_.install_conditional(arrays.pop(found[0]), kind=self.kind(learner))
        return arrays


#: every kind of part, checked against every learner's parameters
PART_KINDS = (GaussianChildren, HierarchicalEstimates)
