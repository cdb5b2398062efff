"""Parameter documentation: one fragment per parameter, assembled into docstrings.

Every learner's "Parameters" section is assembled from its declaration: a class docstring
holds a line ``{parameters}`` where the section's entries go, and :func:`fill_doc` puts
there, in the order of the constructor's signature, the fragment (type line and
description, written once) of every parameter.  A parameter's fragment is the one of
:data:`PARAMETERS` under its own name -- the shared parameters of
:data:`seminaive.base.SHARED_PARAMETERS` are documented there, under the names they are
declared by -- unless the learner's ``_parameter_docs`` (next to its
``_parameter_constraints``, inherited along the class hierarchy) names another fragment of
:data:`PARAMETERS` (a variant worded for its family, e.g. ``"structure_smoothing"``) or
gives the fragment itself (a parameter only that learner has).  A parameter with no fragment,
or a fragment whose entry names another parameter, raises ``KeyError`` when the module
defining the class is imported, so an undocumented parameter cannot reach a user.  The
command line's ``seminaive fit --params LEARNER`` prints the same fragments
(:func:`parameter_fragment`).

Other docstrings (functions, attributes, references) name a fragment by a line holding only
``{name}`` (indented like the entries around it); :func:`fill_doc` replaces that line by the
fragment of that name, indented to match.  A group name (``{fitted_attributes}``) stands for
several fragments in a fixed order.  An unknown name raises ``KeyError`` at import too.
Nothing else in a docstring is touched (other braces, e.g. in doctests, stay as they are).

Example::

    @fill_doc
    class KDB(_FamilyLearner):
        '''k-dependence Bayesian classifier.

        Parameters
        ----------
        {parameters}
        '''

        _parameter_constraints = declare("k", INPUT_PARAMETERS, ...)
        _parameter_docs = {"smoothing": "family_smoothing", ...}
"""

import inspect
import re
import textwrap

#: the documentation of every parameter shared by several learners, by name
#: the text of ``density`` shared by the learners that take ``"kde"`` and those that do not
_DENSITY = """\
    The density of the Gaussian children (``numeric="gaussian"``; ignored otherwise; the
    default is ``"kde"`` for NaiveBayes, AODE, A2DE, A3DE, TAN, KDB and SKDB,
    ``"student"`` for the others: AnDE, whose ``n="auto"`` and learnt weights cannot
    score it, and the weighting and selection learners, which cannot).
    ``"plugin"``: the Gaussian at the estimated mean and variance (as scikit-learn's
    ``GaussianNB`` given the class alone; over-confident where a class or a parent cell has
    few rows).  ``"student"``: the posterior predictive of the
    normal-inverse-gamma prior behind those estimates (the prior BMAAODE integrates over;
    given the class alone it is centred on the moments of all classes), Student's t with
    m + N degrees of freedom (1 + N with Laplace smoothing), N the weight of the rows of
    the cell: heavier tails where a class or a parent cell has
    few rows, the plug-in Gaussian in the limit of many rows (see
    ``seminaive.tables.gaussian.normal_inverse_gamma_predictive``).  The leave-one-out
    passes of the selection learners and of the learned weights score the same density
    with the held-out row removed."""

# the kde paragraph of the density fragments: "kde" as an option or as the default
_KDE = """  ``"kde"``{which}: a kernel-smoothed binned density: the
    child is counted on a fixed grid of at most 33 bins, one per distinct quantile of the
    rows the cut points are fitted on (the counts add, so merging, Dask and model files
    are exact; ``partial_fit`` counts every chunk on the first chunk's grid, as it keeps the
    first chunk's cut points), smoothed over the bins with one bandwidth per attribute (6
    bins at 300 rows, narrower with more rows at the rate n^(-1/5); the 6 was chosen on the
    small numeric sets of ``benchmarks/bench_numeric.py``) and mixed towards the next
    coarser estimate with one m-estimate weight per attribute and parent order, chosen by
    the leave-one-out likelihood of the estimates (see ``seminaive.tables.binned``).  The
    coarser estimate of a cell: given the class alone, that of all classes; given parents,
    the mean of the estimates with one parent fewer (TAN, KDB and SKDB: the estimate given
    the parent chain one parent shorter, the parents most conditionally informative
    first, as their Gaussian estimates shrink).  SKDB's leave-one-out search scores these
    densities with the held-out row removed from every cell it is counted in (the grid,
    bandwidth and m-estimate weights stay those chosen on every row).{why}"""

PARAMETERS = {
    "n": """\
n : int or "auto", default=1
    Number of super-parent attributes: 0 is naive Bayes, 1 AODE, 2 A2DE, 3 A3DE, any n
    above that works too (n at least the number of attributes estimates P(y, x)
    directly).  ``"auto"`` chooses n in {0, 1, 2} together with the parent and child
    attributes by leave-one-out RMSE over one nested model space, n by the
    one-standard-error rule (sets ``n_``, ``n_parents_``, ``n_children_``, ``parents_``
    and ``children_``; ``aggregate="joint"`` and ``weights=None`` only).  With ``"auto"``,
    :meth:`partial_fit` keeps the choice made on the first chunk (later chunks are counted;
    a ``UserWarning`` says so): fit on all the rows to choose again.""",
    "smoothing": """\
smoothing : {"m_estimate", "laplace"}, default="m_estimate"
    m-estimation with a uniform prior (Webb et al. 2012, §2):
    P(y, x_s) = (N(y, x_s) + m / (k prod|X_s|)) / (N + m) and
    P(x_i | y, x_s) = (N(y, x_s, x_i) + m / |X_i|) / (N(y, x_s) + m); or Laplace
    estimates (Cerquides & de Màntaras 2005, eqs. 15-16; Weka's AODE):
    (N(y, x_s) + 1) / (N + k prod|X_s|) and (N(y, x_s, x_i) + 1) / (N(y, x_s) + |X_i|).
    With ``missing="ignore"`` every denominator counts only the rows in which the
    attributes it involves are observed.""",
    "ande_smoothing": """\
smoothing : {"m_estimate", "laplace", "hdp", "hls"}, default="m_estimate"
    m-estimation with a uniform prior (Webb et al. 2012, §2):
    P(y, x_s) = (N(y, x_s) + m / (k prod|X_s|)) / (N + m) and
    P(x_i | y, x_s) = (N(y, x_s, x_i) + m / |X_i|) / (N(y, x_s) + m); Laplace estimates
    (Cerquides & de Màntaras 2005, eqs. 15-16; Weka's AODE):
    (N(y, x_s) + 1) / (N + k prod|X_s|) and (N(y, x_s, x_i) + 1) / (N(y, x_s) + |X_i|); or
    ``"hdp"``: every P(x_i | y, x_s) is a hierarchical Dirichlet process conditioning on the
    class, then on the parents in increasing index order, estimated by collapsed Gibbs
    sampling of the table counts (Petitjean et al. 2018; one tree per sub-model and child,
    see :meth:`seminaive.FrequencyTable.hdp_tables`), with P(y, x_s) m-estimated
    (integer n, ``numeric="discretize"``); or ``"hls"``: the same trees estimated by
    hierarchical linear smoothing, a ridge-penalised log-linear model with one coefficient
    vector per node, the penalty of every level chosen by the evidence (Cooper, Webb &
    Schmidt 2025; see :mod:`seminaive.kernels.hls`, which
    states the departures), deterministic and much faster than the sampler.  With
    ``missing="ignore"`` every denominator counts only the rows in which the attributes it
    involves are observed.""",
    "m": """\
m : float, default=1.0
    The m of m-estimation (ignored with ``smoothing="laplace"``).""",
    "min_count": """\
min_count : float, default=1
    A parent combination x_s is used only if its training frequency is at least
    ``min_count``; a row in which no parent combination qualifies cascades to A(n-1)DE,
    down to naive Bayes (Webb et al. 2012, eq. 11).""",
    "aggregate": """\
aggregate : {"joint", "posterior", "vote"}, default="joint"
    How the sub-models are combined: the mean of their joint estimates P(y, x) (AnDE), of
    their posteriors P(y | x) (PAnDE), or the fraction of sub-models voting for each class
    (FAnDE, Feating; Webb et al. 2012, §4.4).  A sub-model whose top class scores are
    equal to within 1e-12 of their magnitude votes for the lowest class index among them.""",
    "discretizer": """\
discretizer : {"mdl", "equal_frequency"} or transformer, default="mdl"
    How numeric columns are discretised, on the training data only: Fayyad & Irani's
    supervised MDL method, equal-frequency bins (``n_bins``), or any scikit-learn
    transformer returning ordinal bin codes (e.g. ``KBinsDiscretizer(encode="ordinal")``).""",
    "eskdb_discretization": """\
discretization : {"per_member", "shared"}, default="per_member"
    With ``discretizer="mdl"``: every member draws its own randomised MDL cut points
    (Zhang, Petitjean & Buntine 2020; see
    :class:`~seminaive.preprocessing.RandomizedMDLDiscretizer`), or all members share the
    MDL cut points.  Other discretizers are always shared.""",
    "n_bins": """\
n_bins : int, default=3
    Bins per numeric column for ``discretizer="equal_frequency"``.""",
    "missing": """\
missing : {"ignore", "value"}, default="ignore"
    ``"ignore"`` leaves missing values out of counting and of classification (a value
    never seen in training is treated as missing); ``"value"`` makes a missing value a
    value of its own.""",
    "categorical_features": """\
categorical_features : "auto", "all", "none" or list, default="auto"
    Which columns are nominal: ``"auto"`` takes object, string, category and bool dtypes;
    a list gives column names, indices or a boolean mask.""",
    "max_table_bytes": """\
max_table_bytes : int or None, default=4 GiB
    The exact size of the tables is computed before anything is allocated; a model that
    would need more memory is refused with the estimate and what to change.  None: no
    limit.  The parent-major copy of the log tables that prediction reads (see ``dtype``
    of the AnDE family) counts too: when it would not fit, prediction uses the slower
    combination-major tables instead.""",
    "dtype": """\
dtype : {"float64", "float32"}, default="float64"
    Precision of the prediction tables.  Rows are scored from a parent-major copy of the
    smoothed log tables (one contiguous region per parent combination and parent value,
    see :mod:`seminaive.tables.wide`), an extra copy of about the size of the log
    conditionals that counts against ``max_table_bytes``; when it would not fit, the
    combination-major float64 tables are used instead.  ``"float32"`` halves that copy;
    the sums over the children are still accumulated in float64, so log-probabilities
    differ from float64 by the rounding of the table entries (about 1e-7 relative per
    entry).  Scores with ``numeric="gaussian"`` are float64.  The copy is not saved in
    model files: it is rebuilt at the first prediction after loading.""",
    "memory": """\
memory : {"refuse", "select", "select_dense"}, default="refuse"
    What to do when the tables for n would exceed ``max_table_bytes``.  ``"refuse"``: raise
    :class:`~seminaive.exceptions.TableTooLargeError` before allocating.  ``"select"``: the
    memory-constrained selective AnDE of Chen et al. (2017), in two passes over the data:
    the first counts every combination of up to n attributes (the tables of A(n-1)DE,
    kept for the parents' joints and the cascade) and ranks the attributes by their mutual
    information with the class; the parents are then the most informative attributes, as
    many as the budget holds (the exact size of the selective tables, computed before
    allocating), and the second pass counts the children of their combinations of n (every
    attribute is a child).  The full AnDE is learnt unchanged when it fits.  The children
    of a parent cell that no training row holds are never read (with ``min_count > 0``),
    so ``"select"`` stores the order n + 1 counts and log tables only for the parent cells
    that occur, parent-major, wherever that is smaller than the dense layout, and sizes the
    budget with the smaller layout (more parents fit); ``"select_dense"`` always keeps the
    dense layout.  Both give the same predictions.  Takes ``weights=None``,
    ``numeric="discretize"`` and m-estimate or Laplace smoothing.""",
    "random_state": """\
random_state : int, RandomState instance or None, default=None
    Seeds the sampling of rows on which cut points are computed (and any other random
    choice of the learner): the same value gives the same model.""",
    "max_sample_rows": """\
max_sample_rows : int or None, default=100_000
    If the data has more rows, cut points are computed on a random sample of this many
    rows drawn without replacement. ``None`` disables sampling.""",
    "sample_random_state": """\
random_state : int, RandomState instance or None, default=None
    Seed of the row sample.""",
    "discretizer_X": """\
X : array-like of shape (n_rows, n_features)
    Numeric data; NaN values are ignored.""",
    "discretizer_y": """\
y : array-like of shape (n_rows,)
    Class labels (any type).""",
    "partial_fit_kept": """\
:meth:`partial_fit` chooses on the first chunk and keeps that choice for later chunks:
their rows are counted (the estimates use every chunk), but the choice is not made again
from the newest chunk alone, and a ``UserWarning`` says so.  The model then differs from
:meth:`fit` on all the rows exactly when that fit would choose differently; call
:meth:`fit` or :meth:`fit_stream` on all the rows to choose again.""",
    "weights": """\
weights : None, "mi", "kl" or array-like, default=None
    Weights of the sub-models: None averages them uniformly; ``"mi"`` weights parent
    combination s by the mutual information I(X_s; Y) (WAODE-MI generalised to any n);
    ``"kl"`` weights parent value x_s by KL(P(Y | x_s) || P(Y)) (WAODE-KL); an array gives
    one non-negative weight per combination of n attributes, in the order of
    ``itertools.combinations(range(n_features_in_), n)``.""",
    # the structure learners (TAN, SP-TAN, KDB, LBR, HNB): one model, estimates P(x_i | y, pa)
    "structure_smoothing": """\
smoothing : {"m_estimate", "laplace"}, default="m_estimate"
    m-estimation with a uniform prior (Webb et al. 2012, §2):
    P(y) = (N(y) + m / |Y|) / (N + m) and
    P(x_i | y, pa) = (N(y, pa, x_i) + m / |X_i|) / (N(y, pa) + m); or Laplace estimates
    (Cerquides & López de Màntaras 2005, eqs. 15-16): (N(y) + 1) / (N + |Y|) and
    (N(y, pa, x_i) + 1) / (N(y, pa) + |X_i|).  Here pa is what x_i is conditioned on
    besides the class (its parent values; LBR: the tests of the rule).  With
    ``missing="ignore"`` every denominator counts only the rows in which x_i is observed.""",
    "family_smoothing": """\
smoothing : {"m_estimate", "laplace", "hdp", "hls"}, default="m_estimate"
    m-estimation with a uniform prior (Webb et al. 2012, §2):
    P(y) = (N(y) + m / |Y|) / (N + m) and
    P(x_i | y, pa) = (N(y, pa, x_i) + m / |X_i|) / (N(y, pa) + m); Laplace estimates
    (Cerquides & López de Màntaras 2005, eqs. 15-16): (N(y) + 1) / (N + |Y|) and
    (N(y, pa, x_i) + 1) / (N(y, pa) + |X_i|); or ``"hdp"``: every P(x_i | y, pa) is a
    hierarchical Dirichlet process that conditions on the class, then on each parent in
    turn (most conditionally informative first), estimated by collapsed Gibbs sampling of
    the table counts (Petitjean et al. 2018; see :mod:`seminaive.kernels.hdp`), with P(y)
    m-estimated; or ``"hls"``: the same trees estimated by hierarchical linear smoothing, a
    ridge-penalised log-linear model with one coefficient vector per node, the penalty of
    every level chosen by the evidence (Cooper, Webb & Schmidt 2025; see
    :mod:`seminaive.kernels.hls`, which states the departures), deterministic and much
    faster than the sampler.  Under ``"hdp"`` and ``"hls"`` a missing or unseen parent
    value stops the descent: the estimate is that of the deepest
    node the row reaches, and ``min_count`` is not used.
    With ``missing="ignore"`` every denominator counts only the rows in which x_i is
    observed.""",
    "n_iter": """\
n_iter : int, default=1000
    Gibbs iterations of the ``smoothing="hdp"`` sampler (ignored otherwise); its cost
    depends on the number of tree nodes, not on the number of rows.""",
    "burn_in": """\
burn_in : int or None, default=None
    Iterations of the sampler not averaged into the estimates; None: min(1000,
    n_iter // 10), as the reference implementation (Petitjean et al. 2018).""",
    "tying": """\
tying : {"level", "parent", "none", "single"}, default="level"
    Which nodes of a tree share a Dirichlet process concentration (each sampled from its
    posterior under a Gamma(2, 1) prior): the nodes of one level (the reference
    implementation's default), the children of one node, no tying, or all nodes.""",
    "structure_min_count": """\
min_count : float, default=1
    The observed parent values of an attribute are used only if their combination occurs
    at least ``min_count`` times in training; otherwise the attribute falls back to
    P(x_i | y), as AnDE cascades to a lower order (Webb et al. 2012, eq. 11).""",
    "structure_missing": """\
missing : {"ignore", "value"}, default="ignore"
    ``"ignore"``: a missing value of an attribute is left out of the product, and a
    missing parent value is dropped (the attribute is estimated given its observed
    parents, or by P(x_i | y)); the structure statistics use the rows in which the
    attributes involved are observed.  ``"value"``: missing is a value of its own.""",
    "k": """\
k : int, default=1
    Maximum number of attribute parents of each attribute; 0 is exactly naive Bayes.""",
    # selection learners
    "loss": """\
loss : {"rmse", "zero_one", "log_loss"}, default="rmse"
    Leave-one-out loss that selects the model: the root mean squared error of the true
    class's probability, sqrt(mean (1 - P(y | x))^2) (Chen et al. 2014, §3.3), the error
    rate, or the mean of -log P(y | x).""",
    "loss_zero_one": """\
loss : {"rmse", "zero_one", "log_loss"}, default="zero_one"
    Leave-one-out loss that selects the model: the error rate, the root mean squared error
    of the true class's probability (Chen et al. 2014, §3.3), or the mean of
    -log P(y | x).""",
    # the mixtures MAPLMD and MAPLMG
    "mixture_n": """\
n : int, default=1
    Parent order of the sub-models: 1 mixes the one-dependence estimators of AODE (as
    Cerquides & de Màntaras 2005 do), 2 the sub-models of A2DE, and so on.""",
    "max_iter": """\
max_iter : int, default=100
    Maximum number of optimiser iterations: an EM step is one pass over the training data
    (a SQUAREM step two or three); an L-BFGS-B iteration one pass per function evaluation
    (line search included).  Reaching it without converging raises scikit-learn's
    ``ConvergenceWarning``.""",
    "acceleration": """\
acceleration : {"squarem", None}, default="squarem"
    How the EM iterations are accelerated: SQUAREM (Varadhan & Roland 2008; step length
    SqS3, backtracked towards the plain EM step until the objective does not decrease), or
    None for plain EM.  Both converge to the same maximum; SQUAREM in far fewer passes.""",
    "tol": """\
tol : float, default=1e-7
    Convergence tolerance on the objective per training row (see Notes).""",
    "loo_cache_bytes": """\
loo_cache_bytes : int, default=64 MiB
    Keep the leave-one-out joints in memory (one extra pass, then iterations without
    reading the data) when rows x sub-models x classes x 8 bytes fit; 0 never caches, so
    memory stays bounded by one chunk whatever the number of rows.""",
    "numeric": """\
numeric : {"discretize", "gaussian"}, default="discretize"
    How numeric attributes are modelled.  ``"discretize"``: by their discretised values
    (``discretizer``).  ``"gaussian"``: as a child of a sub-model, by a Gaussian density
    given the class and the sub-model's parent values (Flores, Gámez, Martínez & Puerta
    2009 do this for AODE); as a parent, by its discretised value, with P(y, x_s) divided
    by the widths of its numeric parents' bins (the outer bins ending 3 standard
    deviations from the mean) so that every sub-model estimates the same joint density.
    Given the class alone, the maximum-likelihood mean and variance (as
    scikit-learn's ``GaussianNB``; with ``density="student"`` shrunk towards
    those of all classes, see ``density``); given parent values, they shrink towards the next
    coarser conditioning (the mean of the estimates with one parent fewer) with ``m``
    pseudo-rows (1 with Laplace smoothing); the variance is floored at (0.01 sd)^2 of the
    attribute (see :meth:`seminaive.tables.MomentTable.estimates`).
    The weight, sum and sum of squares are counted with the tables, so partial_fit,
    merging, fit_stream and Dask stay exact.  A missing child value adds no term; with
    ``missing="value"`` it adds log P(missing | y, x_s), and an observed one
    log (1 - P(missing | y, x_s)) besides its density.""",
    "density": "density : {\"plugin\", \"student\"}, default=\"student\"\n" + _DENSITY,
    "density_kde": ("density : {\"plugin\", \"student\", \"kde\"}, default=\"student\"\n"
                    + _DENSITY + _KDE.format(which="", why="""
    ``n="auto"`` and ``weights`` learnt by leave-one-out refuse it, which is why
    ``"student"`` is AnDE's default (AODE, NaiveBayes, A2DE, A3DE, TAN, KDB and SKDB
    default to ``"kde"``).""")),
    "density_kde_default": ("density : {\"plugin\", \"student\", \"kde\"}, default=\"kde\"\n"
                            + _DENSITY + _KDE.format(which=" (the default)", why="""  On
    the small numeric sets of ``benchmarks/bench_numeric.py`` its log loss is lower than MDL
    discretisation's for NaiveBayes, AODE, TAN, KDB and SKDB, also on the thirteen sets
    that played no part in choosing its bandwidth (docs/results.md; the Student-t and
    plug-in Gaussians lose to MDL there); the learners that cannot score it keep
    ``"student"``.""")),
    "numeric_structure": """\
numeric : {"discretize", "gaussian"}, default="discretize"
    How numeric attributes are modelled.  ``"discretize"``: by their discretised values
    (``discretizer``).  ``"gaussian"``: as a child, by a Gaussian density given the class
    and its parents' values (as a parent, by its discretised value).  The means and
    variances shrink along the parents, most conditionally informative first: given the
    class alone the maximum-likelihood estimates (as scikit-learn's ``GaussianNB``; shrunk
    towards those of all classes with the default ``density="student"``), given
    the first j parents the moments shrunk towards the estimate given the first j - 1 with
    ``m`` pseudo-rows (1 with Laplace smoothing), the variance floored at (0.01 sd)^2 of the
    attribute (:meth:`seminaive.tables.MomentTable.estimates`).  A row whose parent value is
    missing, or whose parent cell holds fewer than ``min_count`` rows with the child
    observed, uses the longest usable prefix of the parents.  A missing child value adds no
    term; with ``missing="value"`` it adds log P(missing | y, parents), and an observed one
    log (1 - P(missing | y, parents)) besides its density.  The moments are counted in one
    more pass over the data, per family, so partial_fit, fit_stream and Dask stay exact
    where the structure is.  With ``smoothing="hdp"`` the hierarchical Dirichlet process
    estimates the discrete tables only; the Gaussian children keep these moment estimates.""",
    # discriminatively learnt weights (WANBIA-C, ALR)
    "non_negative": """\
non_negative : bool, default=False
    Bound the weights below by 0 (L-BFGS-B bounds), so that no log-probability's evidence
    is reversed; unbounded by default.""",
    "cache_bytes": """\
cache_bytes : int, default=256 MiB
    Keep every training row's weighted log-probability terms in memory (one pass, then
    iterations without reading the data) when rows x terms x classes x 16 bytes fit; 0
    never keeps them, so memory stays bounded by one chunk and every function evaluation
    is a pass over the data.""",
    "l2": """\
l2 : float, default=1.0
    Strength of the penalty (l2 / 2) sum_j (w_j - 1)^2 added to the summed conditional log
    loss of the training rows: it pulls the weights towards the generative model (0 leaves
    them free; the penalty's weight relative to the data falls as rows are added).""",
    "max_iter_lbfgs": """\
max_iter : int, default=200
    Maximum number of L-BFGS iterations (each function evaluation is one pass over the
    training data); a ``ConvergenceWarning`` is issued when it stops before converging.
    0 keeps every weight at 1 (the generative model).""",
    "tol_lbfgs": """\
tol : float, default=1e-6
    Convergence tolerance on the largest gradient component of the objective per unit of
    row weight (L-BFGS-B's ``gtol``; ``ftol`` is ``tol * 1e-3``).""",
}

# parameters of the probability metrics (seminaive.metrics)
PARAMETERS.update({
    "metric_y_true": """\
y_true : array-like of shape (n,)
    True labels, each one of ``classes``.""",
    "metric_proba": """\
proba : array-like of shape (n, n_classes)
    Predicted class probabilities, columns in the order of ``classes``.""",
    "metric_classes": """\
classes : array-like of shape (n_classes,)
    The class labels (a fitted model's ``classes_``).""",
    # prediction on rows given by the user (estimators, Dask)
    "X_predict": """\
X : DataFrame or array-like of shape (n_samples, n_features)
    Rows to classify, with the columns of the training data; missing values and values
    never seen in training are left out.""",
    "dask_estimator": """\
estimator : fitted seminaive learner
    The model (sent to the workers).""",
    "dask_data": """\
data : dask.dataframe.DataFrame or dask.array.Array
    The rows to classify.""",
})

#: groups of fragments, in the order they appear in a Parameters section
GROUPS = {
    # the parameters every learner on the AnDE engine shares, in signature order
    "engine_parameters": ("smoothing", "m", "min_count", "aggregate", "discretizer",
                          "n_bins", "missing", "categorical_features", "max_table_bytes",
                          "random_state"),
    # the same without ``aggregate`` (single-model learners and fixed combination rules)
    "input_parameters": ("smoothing", "m", "min_count", "discretizer", "n_bins", "missing",
                         "categorical_features", "max_table_bytes", "random_state"),
    # the attributes every fitted learner has
    "fitted_attributes": ("classes_", "n_features_in_", "feature_names_in_", "encoder_",
                          "table_"),
    # the parameters of the structure learners with a parent set per attribute (TAN, SP-TAN,
    # KDB), in signature order
    "hdp_parameters": ("n_iter", "burn_in", "tying"),
    "family_parameters": ("family_smoothing", "m", "structure_min_count", "discretizer",
                          "n_bins", "structure_missing", "categorical_features",
                          "max_table_bytes", "random_state"),
    "structure_parameters": ("structure_smoothing", "m", "structure_min_count", "discretizer",
                             "n_bins", "structure_missing", "categorical_features",
                             "max_table_bytes", "random_state"),
    # the selected structure of every selection learner
    "selection_attributes": ("n_", "parents_", "children_", "parent_weights_"),
    # AnDE(memory="select")
    "memory_attributes": ("memory_parents_", "memory_mutual_information_", "memory_ranking_",
                          "table_bytes_"),
    # the nested (r, s) space of ASAODE, SAODE, SWAODE and SelectiveAnDE
    "nested_attributes": ("mutual_information_", "ranking_", "n_parents_", "n_children_",
                          "loo_loss_nested"),
    # the wrapper searches FSS and BSE
    "wrapper_attributes": ("loo_loss_wrapper", "loo_path_", "n_passes_wrapper"),
    "metric_parameters": ("metric_y_true", "metric_proba", "metric_classes"),
    "dask_predict_parameters": ("dask_estimator", "dask_data"),
    # the optimised mixtures MAPLMD and MAPLMG
    "mixture_parameters": ("mixture_n", "max_iter", "tol", "loo_cache_bytes"),
    "discriminative_parameters": ("l2", "max_iter_lbfgs", "tol_lbfgs", "non_negative",
                                  "cache_bytes"),
    "discriminative_attributes": ("coef_", "n_iter_lbfgs", "objective_", "n_passes_lbfgs"),
    "mixture_attributes": ("weights_mixture", "parent_combinations_", "objective_trace_",
                           "n_iter_", "n_passes_mixture"),
}

#: documentation of the attributes every fitted learner has
ATTRIBUTES = {
    "cut_points_": """\
cut_points_ : list of ndarray of float64
    Sorted cut points of each column (empty: one bin).""",
    "n_bins_": """\
n_bins_ : ndarray of int
    ``len(cut_points_[j]) + 1`` for each column.""",
    "discretizer_n_features_in_": """\
n_features_in_ : int
    Number of columns seen in ``fit``.""",
    "classes_": """\
classes_ : ndarray of shape (n_classes,)
    The class labels, sorted.""",
    "n_features_in_": """\
n_features_in_ : int
    Number of feature columns seen in fit.""",
    "feature_names_in_": """\
feature_names_in_ : ndarray of shape (n_features,)
    Column names seen in fit (only for a DataFrame with string column names).""",
    "encoder_": """\
encoder_ : AttributeEncoder
    Codes nominal values and discretises numeric columns as in training.""",
    "table_": """\
table_ : FrequencyTable
    The joint counts of the class with every attribute combination the learner uses.""",
    # attributes of the structure learners
    "mutual_info_": """\
mutual_info_ : ndarray of shape (n_features,)
    I(X_i; Y), the mutual information of every attribute with the class, in nats.""",
    "conditional_mutual_info_": """\
conditional_mutual_info_ : ndarray of shape (n_features, n_features)
    I(X_i; X_j | Y), the conditional mutual information of every pair of attributes given
    the class, in nats (symmetric, zero diagonal; maximum likelihood from the rows in which
    both attributes are observed).""",
}

ATTRIBUTES.update({
    "n_": """\
n_ : int
    Parent order of the selected model.""",
    "parents_": """\
parents_ : ndarray of int
    Attributes that may act as (members of) super-parents.""",
    "memory_parents_": """\
parents_ : ndarray of int
    The attributes whose combinations of n are the parents, in increasing order (every
    attribute when the full model fits; only with ``memory="select"``).""",
    "memory_mutual_information_": """\
mutual_information_ : ndarray of shape (n_features,)
    I(X_i; Y) of each attribute, from the first pass's counts (only with
    ``memory="select"``).""",
    "memory_ranking_": """\
ranking_ : ndarray of int
    Attributes by decreasing mutual information, ties by column order: ``parents_`` are
    its first ``len(parents_)`` entries (only with ``memory="select"``).""",
    "table_bytes_": """\
table_bytes_ : int
    Exact bytes of the tables of the model learnt (counts, log tables and index, as
    :func:`seminaive.estimate_table_bytes` computes them, with ``occupied=`` for the
    compact layout, ``table_.compact``): at most ``max_table_bytes`` (only with
    ``memory="select"`` or ``"select_dense"``).""",
    "children_": """\
children_ : ndarray of int
    Attributes used as children.""",
    "parent_weights_": """\
parent_weights_ : ndarray of shape (n_features,)
    Weight of each attribute as a parent (1 unless weighted).""",
    "mutual_information_": """\
mutual_information_ : ndarray of shape (n_features,)
    I(X_i; Y), the mutual information of each attribute with the class, on the training
    counts.""",
    "ranking_": """\
ranking_ : ndarray of int
    Attributes by decreasing mutual information.""",
    "n_parents_": """\
n_parents_ : int
    The selected r: ``parents_`` are ``ranking_[:r]``.""",
    "n_children_": """\
n_children_ : int
    The selected s: ``children_`` are ``ranking_[:s]``.""",
    "loo_loss_nested": """\
loo_loss_ : ndarray of shape (n + 1, n_features + 1, n_features + 1)
    Leave-one-out loss of every model (order, r, s) of the space (NaN where undefined).""",
    "loo_loss_wrapper": """\
loo_loss_ : float
    Leave-one-out loss of the selected model.""",
    "loo_path_": """\
loo_path_ : ndarray
    Leave-one-out loss after each accepted move (the first entry: the start model).""",
    "n_passes_wrapper": """\
n_passes_ : int
    Passes over the training data made by the search.""",
    "weights_mixture": """\
weights_ : ndarray of shape (n_sub_models,)
    Mixture weights (positive, sum to 1), in the order of ``parent_combinations_``.""",
    "parent_combinations_": """\
parent_combinations_ : ndarray of shape (n_sub_models, n)
    Attribute indices of each sub-model's parents.""",
    "objective_trace_": """\
objective_trace_ : list of float
    Log supervised posterior (up to a constant) at each evaluated iterate.""",
    "n_iter_": """\
n_iter_ : int
    Optimiser iterations of the last fit or partial_fit.""",
    "coef_": """\
coef_ : ndarray of shape (n_weights,)
    The learnt weights, in the layout of ``weights`` (1 everywhere is the generative
    model).""",
    "n_iter_lbfgs": """\
n_iter_ : int
    L-BFGS iterations of the last fit or partial_fit.""",
    "objective_": """\
objective_ : float
    The regularised objective at the learnt weights, per unit of row weight.""",
    "n_passes_lbfgs": """\
n_passes_ : int
    Passes over the training data of the last fit or partial_fit: one per function
    evaluation, or 1 when the rows' terms were kept in memory (``cache_bytes``).""",
    "n_passes_mixture": """\
n_passes_ : int
    Passes over the training data of the last fit or partial_fit (iterations, line-search
    evaluations and, when caching, the pass that builds the cache).""",
})

#: full citations of the papers the learners implement, for References sections
REFERENCES = {
    "webb2012": """\
Webb, G. I., Boughton, J. R., Zheng, F., Ting, K. M. & Salem, H. (2012). Learning by
extrapolation from marginal to full-multivariate probability distributions: decreasingly
naive Bayesian classification. *Machine Learning* 86(2), 233-272.""",
    "webb2005": """\
Webb, G. I., Boughton, J. R. & Wang, Z. (2005). Not so naive Bayes: aggregating
one-dependence estimators. *Machine Learning* 58(1), 5-24.""",
    "chen2017": """\
Chen, S., Martínez, A. M., Webb, G. I. & Wang, L. (2017). Selective AnDE for large data
learning: a low-bias memory constrained approach. *Knowledge and Information Systems*
50(2), 475-503.  doi:10.1007/s10115-016-0937-9""",
    "chen2014": """\
Chen, S., Martínez, A. M., Webb, G. I. & Wang, L. (2014). Highly scalable attribute
selection for averaged one-dependence estimators. *PAKDD 2014*, LNCS 8444, 86-97.""",
    "cerquides2005": """\
Cerquides, J. & López de Màntaras, R. (2005). Robust Bayesian linear classifier ensembles.
*ECML 2005*, LNCS 3720, 72-83.""",
    "swaode2024": """\
Model Selection-Based Weighted AODE (SWAODE) (2024). *Mathematics* 12(15), 2306.""",
    "friedman1997": """\
Friedman, N., Geiger, D. & Goldszmidt, M. (1997). Bayesian network classifiers. *Machine
Learning* 29(2-3), 131-163.""",
    "keogh1999": """\
Keogh, E. J. & Pazzani, M. J. (1999). Learning augmented Bayesian classifiers: a
comparison of distribution-based and classification-based approaches. *Proceedings of the
Seventh International Workshop on Artificial Intelligence and Statistics (AISTATS 1999)*.""",
    "martinez2016": """\
Martínez, A. M., Webb, G. I., Chen, S. & Zaidi, N. A. (2016). Scalable learning of Bayesian
network classifiers. *Journal of Machine Learning Research* 17(44), 1-35.""",
    "zaidi2013": """\
Zaidi, N. A., Cerquides, J., Carman, M. J. & Webb, G. I. (2013). Alleviating naive Bayes
attribute independence assumption by attribute weighting. *Journal of Machine Learning
Research* 14, 1947-1988.""",
    "zaidi2016": """\
Zaidi, N. A., Webb, G. I., Carman, M. J., Petitjean, F. & Cerquides, J. (2016). ALRn:
accelerated higher-order logistic regression. *Machine Learning* 104(2-3), 151-194.""",
    "zaidi2017": """\
Zaidi, N. A., Webb, G. I., Carman, M. J., Petitjean, F., Buntine, W., Hynes, M. & De Sterck,
H. (2017). Efficient parameter learning of Bayesian network classifiers. *Machine Learning*
106(9-10), 1289-1329.""",
    "petitjean2018": """\
Petitjean, F., Buntine, W., Webb, G. I. & Zaidi, N. (2018). Accurate parameter estimation
for Bayesian network classifiers using hierarchical Dirichlet processes. *Machine Learning*
107(8-10), 1303-1331.""",
    "zhang2020": """\
Zhang, H., Petitjean, F. & Buntine, W. (2020). Achieving scalable and accurate
classification on large data: an ensemble of selective KDB with HDP. *Knowledge and
Information Systems* 62, 2020.""",
    "sahami1996": """\
Sahami, M. (1996). Learning limited dependence Bayesian classifiers. *Proceedings of the
Second International Conference on Knowledge Discovery and Data Mining (KDD-96)*, AAAI
Press.""",
    "zheng2000": """\
Zheng, Z. & Webb, G. I. (2000). Lazy learning of Bayesian rules. *Machine Learning* 41(1),
53-84.""",
    "zheng2006": """\
Zheng, F. & Webb, G. I. (2006). Efficient lazy elimination for averaged one-dependence
estimators. *Proceedings of the 23rd International Conference on Machine Learning (ICML
2006)*, 1113-1120.""",
    "zheng2012": """\
Zheng, F., Webb, G. I., Suraweera, P. & Zhu, L. (2012). Subsumption resolution: an
efficient and effective technique for semi-naive Bayesian learning. *Machine Learning*
87(1), 93-125.""",
    "fayyad1993": """\
Fayyad, U. M. & Irani, K. B. (1993). Multi-interval discretization of continuous-valued
attributes for classification learning. *IJCAI 1993*, 1022-1027.""",
    "jiang2006": """\
Jiang, L. & Zhang, H. (2006). Weightily averaged one-dependence estimators. *PRICAI 2006*,
LNAI 4099, 970-974.""",
    "jiang2009": """\
Jiang, L., Zhang, H. & Cai, Z. (2009). A novel Bayes model: hidden naive Bayes. *IEEE
Transactions on Knowledge and Data Engineering* 21(10), 1361-1371.""",
}

_FRAGMENTS = {**PARAMETERS, **ATTRIBUTES, **REFERENCES}
_PLACEHOLDER = re.compile(r"^([ \t]*)\{(\w+)\}[ \t]*$", re.MULTILINE)


def _expand(name):
    if name in GROUPS:
        return "\n".join(_FRAGMENTS[part] for part in GROUPS[name])
    return _FRAGMENTS[name]


def parameter_fragment(cls, name):
    """The documentation fragment (type line and description) of parameter ``name`` of the
    learner class ``cls``: the one its ``_parameter_docs`` (looked up along the class
    hierarchy) names or gives, else the one of :data:`PARAMETERS` under ``name``.

    Parameters
    ----------
    cls : type
        A learner class.
    name : str
        One of its constructor's parameters.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        When the parameter has no fragment, or its fragment documents another name.

    Examples
    --------
    >>> class Learner:
    ...     _parameter_docs = {"smoothing": "structure_smoothing"}
    >>> parameter_fragment(Learner, "m").splitlines()[0]
    'm : float, default=1.0'
    >>> parameter_fragment(Learner, "smoothing").splitlines()[0]
    'smoothing : {"m_estimate", "laplace"}, default="m_estimate"'
    """
    key = name
    for klass in cls.__mro__:
        own = vars(klass).get("_parameter_docs") or {}
        if name in own:
            key = own[name]
            break
    text = PARAMETERS[key] if key in PARAMETERS else textwrap.dedent(key).strip()
    if "\n" not in text and key not in PARAMETERS:
        raise KeyError(f"{cls.__name__}: no documentation fragment for parameter {name!r} "
                       f"(add one to seminaive._docs.PARAMETERS under that name, or to the "
                       f"class's _parameter_docs)")
    if not text.startswith(f"{name} :"):
        raise KeyError(f"{cls.__name__}: the fragment {key!r} given for parameter {name!r} "
                       f"documents {text.split(' :', 1)[0]!r}")
    return text


def parameter_names(cls):
    """The constructor parameters of ``cls``, in signature order."""
    return [p.name for p in list(inspect.signature(cls.__init__).parameters.values())[1:]
            if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def parameters_section(cls):
    """The entries of the "Parameters" section of learner class ``cls``: the fragment of
    every constructor parameter (:func:`parameter_fragment`), in signature order.

    Parameters
    ----------
    cls : type
        A learner class.

    Returns
    -------
    str
    """
    return "\n".join(parameter_fragment(cls, name) for name in parameter_names(cls))


def fill_docstring(doc, cls=None):
    """``doc`` with every ``{name}`` line replaced by its fragment(s), indented to match.

    Parameters
    ----------
    doc : str
        A docstring.
    cls : type, optional
        The class it documents: a ``{parameters}`` line becomes its parameters' entries
        (:func:`parameters_section`).

    Returns
    -------
    str

    Examples
    --------
    >>> print(fill_docstring('''Parameters
    ... ----------
    ... {m}'''))
    Parameters
    ----------
    m : float, default=1.0
        The m of m-estimation (ignored with ``smoothing="laplace"``).
    """

    def replace(match):
        indent, name = match.groups()
        if name == "parameters":
            if cls is None:
                raise KeyError("{parameters} is filled in class docstrings only")
            return textwrap.indent(parameters_section(cls), indent)
        return textwrap.indent(_expand(name), indent)

    return _PLACEHOLDER.sub(replace, doc)


def fill_doc(obj):
    """Class or function decorator: fill the fragments into ``obj.__doc__`` (a class's
    ``{parameters}`` line: the entries of its constructor's parameters)."""
    if obj.__doc__:
        obj.__doc__ = fill_docstring(obj.__doc__, obj if isinstance(obj, type) else None)
    return obj
