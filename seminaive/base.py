"""The estimator base of every learner on the frequency-table engine.

:class:`Learner` holds what every learner shares: input handling (encoder, classes, feature
names), counting (``fit``, ``partial_fit``, ``fit_stream``), prediction, persistence and
scikit-learn tags.  It implements the training protocol of :mod:`seminaive.protocol` once:
``fit``, ``partial_fit``, :func:`seminaive.streaming.fit_stream` and
:func:`seminaive.dask.fit` all call the same public methods (``check_params``,
``begin_fit``, ``count_chunk`` / ``merge_counts`` / ``count_partial``, ``learn_from``), and
``begin_fit`` holds the one reset every route goes through.

A learner is a subclass that implements a few hooks (see :class:`Learner` and
``docs/contributing.md``); it then gets streaming, Dask, persistence and the scikit-learn
checks without writing any of them.
"""

import warnings
from numbers import Integral, Real

import numpy as np
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import explanation, persistence
from ._docs import fill_doc
from ._params import Choices, HasMethods, Interval, check_params
from .exceptions import (
    InputError,
    ModelFileError,
    PartialFitWarning,
    TableTooLargeError,
    warn_user,
)
from .kernels.hdp import TYING
from .kernels.losses import LOSSES
from .kernels.smoothing import Smoothing
from .parts import PART_KINDS
from .preprocessing.encoder import AttributeEncoder, as_frame
from .preprocessing.validation import (
    check_sample_weight,
    check_target,
    check_weight_total,
    distinct_labels,
    encode_labels,
)
from .sources import ArraySource, ChunkEncoder
from .tables import TABLE_DTYPES, FrequencyTable, storage_codes

#: default of ``max_table_bytes``: 4 GiB
DEFAULT_MAX_TABLE_BYTES = 4 * 2**30


#: the declarations of the parameters several learners share, in scikit-learn's style
#: (``{name: [constraint, ...]}``, see :mod:`seminaive._params`): a learner's
#: ``_parameter_constraints`` takes the ones it has from here (:func:`declare`) and adds its
#: own.  The docstring entries (:mod:`seminaive._docs`) and ``seminaive fit --param`` agree
#: with them.
SHARED_PARAMETERS = {
    "smoothing": [Choices("m_estimate", "laplace")],
    "m": [Interval(Real, 0, None, closed="neither")],
    "min_count": [Interval(Real, 0, None, closed="left")],
    "aggregate": [Choices("joint", "posterior", "vote")],
    "discretizer": [Choices("mdl", "equal_frequency"), HasMethods(["fit", "transform"])],
    "n_bins": [Interval(Integral, 1, None, closed="left")],
    "missing": [Choices("ignore", "value")],
    "categorical_features": [Choices("auto", "all", "none"), "array-like"],
    "max_table_bytes": [Interval(Real, 0, None, closed="neither"), None],
    "random_state": ["random_state"],
    "numeric": [Choices("discretize", "gaussian")],
    "density": [Choices("plugin", "student")],
    "dtype": [Choices(*TABLE_DTYPES)],
    "n_iter": [Interval(Integral, 1, None, closed="left")],
    "burn_in": [Interval(Integral, 0, None, closed="left"), None],
    "tying": [Choices(*TYING)],
    "k": [Interval(Integral, 0, None, closed="left")],
    "loss": [Choices(*LOSSES)],
}

#: how a parameter reads in a model file written before it existed or before a value it held
#: was withdrawn: the value that gives the model the file was saved with.  A parameter missing
#: from the file, or stored as ``None`` where ``None`` is no longer accepted, takes it
#: (:meth:`Learner.params_from_file`).  A change of default adds its old value here.
EARLIER_DEFAULTS = {
    # files of learners with Gaussian children saved before ``density`` existed: their
    # children were plug-in Gaussians (the default is now the Student-t posterior predictive)
    "density": "plugin",
    # files that stored ``discretizer=None``, the earlier spelling of the MDL default
    "discretizer": "mdl",
}

#: ``smoothing`` of the learners that also estimate hierarchically (hierarchical Dirichlet
#: processes, hierarchical linear smoothing)
HDP_SMOOTHING = [Choices("m_estimate", "laplace", "hdp", "hls")]

#: ``density`` of the learners whose Gaussian children may also be kernel-smoothed binned
#: children (:mod:`seminaive.tables.binned`): NaiveBayes, the AnDE family and the family
#: learners (TAN, KDB, SKDB), beside the shared plug-in Gaussian and Student-t posterior
#: predictive
KDE_DENSITY = [Choices("plugin", "student", "kde")]

#: the parameters of every learner on the engine, in signature order
ENGINE_PARAMETERS = ("smoothing", "m", "min_count", "aggregate", "discretizer", "n_bins",
                     "missing", "categorical_features", "max_table_bytes", "random_state")
#: the same without ``aggregate`` (single-model learners and fixed combination rules)
INPUT_PARAMETERS = tuple(p for p in ENGINE_PARAMETERS if p != "aggregate")
#: the parameters of ``smoothing="hdp"``
HDP_PARAMETERS = ("n_iter", "burn_in", "tying")


def _numeric_note(encoder):
    """What a refusal of the tables adds for the numeric columns of the fitted ``encoder``:
    their values are counted as bins (with ``categorical_features="auto"``, columns of
    numbers are numeric, however few their values); "" without numeric columns."""
    numeric = np.asarray(getattr(encoder, "numeric_columns_", ()), dtype=np.int64)
    if numeric.size == 0:
        return ""
    bins = np.asarray(encoder.n_values_)[numeric]
    return (f"{numeric.size} of the {len(encoder.n_values_)} attributes are numeric columns "
            f"counted as bins (mean {np.mean(bins):.1f} bins); categorical_features=\"auto\" "
            "takes columns of numbers as numeric: pass categorical_features=\"all\" (or a "
            "list) to count each of their values instead.")


def declare(*shared: str | tuple[str, ...], **own: list) -> dict:
    """A ``_parameter_constraints`` declaration: the shared parameters named, then a learner's
    own (``name=[constraint, ...]``, which may also narrow a shared one).

    Parameters
    ----------
    *shared : str or tuple of str
        Names (or groups such as :data:`ENGINE_PARAMETERS`) of :data:`SHARED_PARAMETERS`.
    **own : list
        The learner's own declarations.

    Returns
    -------
    dict
        ``{name: [constraint, ...]}``.

    Examples
    --------
    >>> from numbers import Integral
    >>> sorted(declare("m", k=[Interval(Integral, 0, None, closed="left")]))
    ['k', 'm']
    """
    names = [n for group in shared for n in ((group,) if isinstance(group, str) else group)]
    return {**{name: SHARED_PARAMETERS[name] for name in names}, **own}


class Learner(ClassifierMixin, BaseEstimator):
    """Shared implementation of every learner on the frequency-table engine.

    It implements the training protocol (:class:`seminaive.protocol.Learner`) once; the
    public methods of that protocol are not hooks and are not overridden.

    Input handling (encoder, classes, feature names), counting (fit / partial_fit),
    prediction, persistence and scikit-learn tags live here.  A learner customises it through
    a few hooks:

    * ``_order`` -- the parent order n (AnDE) and ``_table_order`` -- the highest
      order of attribute combinations counted (default ``n + 1``);
    * ``_learn_from_counts`` -- called after the counting pass with a *source* that
      replays the training data chunk by chunk, for learners that derive a structure or
      weights (TAN, KDB, selection, weighting); the default does nothing;
    * ``_scores`` -- per-class log scores of rows (default: AnDE over the tables);
    * ``_learned_state`` / ``_set_learned_state`` -- arrays learnt beyond the counts,
      stored in model files;
    * ``_prepare_tables`` -- tables made again from the counts before the parts and
      ``_learn_from_counts`` learn from them (default: none).

    Gaussian children and hierarchical estimates are not hooks but *parts* the learner
    declares in its class attribute ``parts`` (:mod:`seminaive.parts`); the base calls them
    when it checks the parameters, makes the tables, learns, scores, saves and loads.

    Subclasses with their own parameters write an explicit ``__init__`` with type hints
    (scikit-learn needs the signature) that assigns every argument unchanged
    (``self.k = k``), and declare every parameter in ``_parameter_constraints`` (shared ones
    from ``seminaive.base.SHARED_PARAMETERS`` through ``declare``); ``_check_params`` validates
    them.  A public subclass is registered for model files by its class name when it is
    defined.

    Every route begins a model with :meth:`begin_fit`, whose :meth:`reset` drops whatever
    an earlier fit learnt: a used instance refitted through any route is the fresh model.

    Examples
    --------
    >>> import numpy as np
    >>> from seminaive import KDB
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> isinstance(KDB(), Learner)
    True
    >>> used = KDB(k=2).fit(X.iloc[:300, :5], y[:300])      # other columns, fewer rows
    >>> refit = used.fit_stream([X.assign(label=y)], target="label", progress=False)
    >>> bool(np.array_equal(refit.predict_proba(X), KDB(k=2).fit(X, y).predict_proba(X)))
    True
    """

    #: ``{name: [constraint, ...]}``, scikit-learn's style (see :mod:`seminaive._params`)
    _parameter_constraints: dict = {}
    #: the parts the learner declares (:mod:`seminaive.parts`: Gaussian children,
    #: hierarchical estimates), called at fixed points of the protocol
    parts: tuple = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__name__.startswith("_"):
            persistence.register(cls)

    def _order(self):
        raise NotImplementedError

    def _table_order(self):
        """Highest order of attribute combinations the table counts (n + 1 for AnDE)."""
        return self._order() + 1

    def _prepare_tables(self, source):
        """Make the tables again from the counts before anything is learnt from them (e.g.
        count the children of selected parents, ``memory="select"``); the default keeps
        them.  ``source`` is that of :meth:`_learn_from_counts`."""

    def _learn_from_counts(self, source):
        """Derive anything beyond the counts once ``self.table_`` holds the training data.

        ``source`` (:class:`seminaive.sources.ArraySource` or a streamed / distributed
        equivalent) replays the training rows as (storage codes, class indices, weights)
        chunks: ``source.map_reduce(fn, combine)`` applies ``fn`` to every chunk and
        combines the results, so a learner that needs extra passes (leave-one-out scores,
        optimiser iterations) runs unchanged on arrays, files and clusters.  After
        :meth:`partial_fit` the source holds only the chunk just added.
        """

    def _learned_state(self):
        """Arrays learnt beyond the counts (name -> ndarray), written to model files."""
        return {}

    def _set_learned_state(self, arrays):
        """Restore :meth:`_learned_state` from a model file; validate before trusting it
        (raise ValueError when the arrays do not fit the tables)."""
        if arrays:
            raise ValueError(f"unexpected learned arrays {sorted(arrays)}")

    # ------------------------------------------------------------------------- validation
    def _check_params(self):
        """Check the parameters: each against its declaration (``_parameter_constraints``,
        :func:`seminaive._params.check_params`), then the rules that involve several
        parameters or the learner's configuration.  Raises ``ValueError`` naming the
        parameter and what to use."""
        check_params(self)
        for kind in PART_KINDS:  # every kind: a parameter may ask for a part not declared
            kind.check_params(self, self._part(kind))

    def _part(self, kind):
        """The part of class ``kind`` this learner declares in ``parts``, or None."""
        for part in type(self).parts:
            if isinstance(part, kind):
                return part
        return None

    def _chunk_values(self, frame):
        """Centred numeric values of a chunk when counting needs them (a part's), else
        None."""
        if not self.needs_values():
            return None
        return self.encoder_.numeric_values(frame, type(self).__name__)

    def _make_encoder(self):
        params = self.get_params(deep=False)
        return AttributeEncoder(discretizer=self.discretizer, n_bins=self.n_bins,
                                missing=self.missing,
                                categorical_features=self.categorical_features,
                                random_state=self.random_state,
                                # the grid of binned children (density="kde")
                                numeric_grid=(params.get("numeric") == "gaussian"
                                              and params.get("density") == "kde"))

    def _encode_target(self, y):
        return encode_labels(y, self.classes_)

    def _new_table(self, n_values, n_classes, encoder=None):
        """An empty table for attributes of ``n_values`` values and ``n_classes`` classes
        (refused before allocating if it would exceed ``max_table_bytes``); ``encoder``:
        the fitted encoder the table is made for (a learner may plan with it)."""
        return FrequencyTable(n_values, n_classes, self._table_order(), self.max_table_bytes,
                              budget_options=self._table_options,
                              counts_only=self._table_counts_only)

    # ---------------------------------------------------------------------------- fitting
    def fit(self, X, y, sample_weight=None):
        """Count the training data into the frequency tables (one pass).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Nominal and numeric columns; NaN / None are missing values.
        y : array-like of shape (n_samples,)
            Class labels (strings or numbers, no missing values).
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights (a weight of 2 counts a row twice, a weight of 0 leaves the
            row out).  With integer weights the cut points of numeric columns are those of
            the data with rows repeated; with other weights they are computed on the rows
            of positive weight, unweighted.  The weights of all the rows a model counts
            (over every ``partial_fit`` chunk too) must sum to at most ``2**53``, the largest
            total the float64 counts hold exactly; larger weights raise ``InputError``.

        Returns
        -------
        self
            The fitted estimator.
        """
        self.check_params()
        frame = as_frame(X)
        y = check_target(y, frame.shape[0], type(self).__name__)
        w = check_sample_weight(sample_weight, frame.shape[0])
        encoder = self.make_encoder()
        # the codes the encoder makes as it finds the values (storage codes, as the tables
        # take them): the data is not coded a second time
        codes = encoder.fit_encode(frame, y, sample_weight=w)
        self.begin_fit(distinct_labels(y), encoder)
        y_idx = encode_labels(y, self.classes_)
        values = self._chunk_values(frame)
        self.count_chunk(codes, y_idx, w, values)
        self.learn_from(ArraySource(codes, y_idx, w, values=values))
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add a chunk of training data to the counts.

        The first call must list every class (``classes``).  Nominal values first seen in a
        later chunk extend the tables (appended after the known values); numeric cut points
        are fixed by the first chunk.  The counts are those of one :meth:`fit` on all the
        chunks whenever both see the same value lists in the same order (e.g. columns given
        as pandas Categoricals, or all values present in the first chunk) and the same cut
        points (no numeric columns, or cut points supplied up front as a fitted
        ``discretizer``).  When numeric columns are cut at points the first chunk fixed, the
        second chunk raises a :class:`~seminaive.exceptions.PartialFitWarning` (once per
        model): ``fit`` on all the rows would place them on every row.  A chunk that cannot
        be counted (e.g. a class not declared) leaves the model as it was.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A chunk of rows, with the columns of the first chunk.
        y : array-like of shape (n_samples,)
            Class labels of the chunk.
        classes : array-like, optional
            Every class that will ever appear; required on the first call.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights, as in :meth:`fit`.

        Returns
        -------
        self
            The estimator with the chunk counted.
        """
        frame = as_frame(X)
        y = check_target(y, frame.shape[0], type(self).__name__)
        w = check_sample_weight(sample_weight, frame.shape[0])
        codes, y_idx, values = self.count_partial(frame, y, w, classes)
        self.learn_from(ArraySource(codes, y_idx, w, values=values))
        return self

    # ---------------------------------------------- the training protocol (seminaive.protocol)
    #: attributes that are configuration, not learnt state, although they are not
    #: constructor parameters (kept by :meth:`reset`)
    _kept_by_reset = ()
    #: what a refusal of the tables over ``max_table_bytes`` advises besides raising it
    #: (None: AnDE's, a smaller n, fewer attributes, fewer bins)
    _table_options = None
    #: whether the budget of the tables counts their counts only (the learner never builds
    #: their log tables: the structure learners)
    _table_counts_only = False
    #: what scikit-learn's own machinery sets on an estimator (metadata requests, output
    #: configuration, the callbacks a meta-estimator hands its steps before their fit):
    #: never learnt state, always kept by :meth:`reset`
    _sklearn_prefixes = ("_metadata_request", "_sklearn", "_skl_", "_parent_callback",
                         "_callback", "_propagated_callbacks")

    def check_params(self):
        """Raise ``ValueError`` for an invalid parameter (every route calls it before reading
        any data)."""
        self._check_params()

    @classmethod
    def params_from_file(cls, params):
        """The constructor parameters of a model file, read by this version.

        A parameter the file does not hold (it was saved before the parameter existed), or
        holds as ``None`` where ``None`` is no longer accepted, takes its value from
        ``seminaive.base.EARLIER_DEFAULTS``, the value that gives the model the file was saved with;
        other missing parameters take today's defaults.

        Parameters
        ----------
        params : dict
            The parameters stored in the file.

        Returns
        -------
        dict
            The parameters to construct the learner with.

        Examples
        --------
        >>> from seminaive import NaiveBayes
        >>> NaiveBayes.params_from_file({"numeric": "gaussian"})["density"]
        'plugin'
        """
        params = dict(params)
        own = cls().get_params()
        for name, earlier in EARLIER_DEFAULTS.items():
            if name in own and params.get(name) is None:
                params[name] = earlier
        return params

    def make_encoder(self):
        """An unfitted :class:`~seminaive.AttributeEncoder` configured by the
        parameters (discretiser, bins, missing values, nominal columns)."""
        return self._make_encoder()

    def reset(self):
        """Forget everything an earlier fit learnt: every attribute but the constructor's
        parameters, the configuration named by ``_kept_by_reset`` and what scikit-learn's
        own machinery set (``_sklearn_prefixes``: metadata requests, output configuration,
        a meta-estimator's callbacks).

        :meth:`begin_fit` calls it, so every route that starts a model (``fit``,
        ``fit_stream``, Dask, the first ``partial_fit`` call, a one-shot iterator) starts
        from the same empty state, whatever the instance learnt before.  A learner needs no
        reset of its own: state it adds is dropped because it is not a parameter.
        """
        params = set(self.get_params(deep=False))
        kept = set(type(self)._kept_by_reset)
        for name in list(vars(self)):
            if name not in params and name not in kept \
                    and not name.startswith(self._sklearn_prefixes):
                delattr(self, name)

    def begin_fit(self, classes, encoder):
        """Start a model: :meth:`reset`, then take ``classes`` (sorted labels) and the
        fitted ``encoder``, and make empty tables for them (refused before allocating, and
        before the reset, when they would exceed ``max_table_bytes``)."""
        try:
            table = self._new_table(encoder.n_values_, len(classes), encoder)
        except TableTooLargeError as error:
            note = _numeric_note(encoder)
            if not note:
                raise
            raise TableTooLargeError(f"{error} {note}") from None
        for part in type(self).parts:
            part.attach(self, table, encoder)
        self.reset()
        self.classes_ = classes
        self.encoder_ = encoder
        self._sync_feature_attrs()
        self.table_ = table
        self._fit_token = object()  # identifies this fit; partial_fit keeps it

    def table_spec(self, encoder):
        """What the tables of a model with these parameters and this fitted ``encoder``
        hold: ``{"order": highest order of the counted combinations, "moment_numeric":
        attributes whose Gaussian moments the table keeps, "moment_order": their parent
        order or None}``, and ``"orders"``, the orders a table may have, when
        ``_table_orders`` names several (model files are checked against it before anything is
        allocated)."""
        spec = {"order": int(self._table_order()),
                "moment_numeric": np.empty(0, dtype=np.int64), "moment_order": None}
        orders = self._table_orders(encoder)
        if orders is not None:
            spec["orders"] = orders
        for part in type(self).parts:
            spec.update(part.table_spec(self, encoder))
        return spec

    def _table_orders(self, encoder):
        """The orders a model file's table may have when there are several (a tuple), or
        None: only ``_table_order()``."""
        return None

    def learned_state(self):
        """The arrays learnt beyond the counts (name -> ndarray), for model files: the
        learner's (``_learned_state``) and its parts'."""
        state = self._learned_state()
        for part in type(self).parts:
            state.update(part.learned_state(self))
        return state

    def restore_fit(self, classes, encoder, table, learned):
        """Install a model read from a file: :meth:`reset`, then ``classes``, ``encoder``,
        ``table`` and the ``learned`` arrays (:meth:`learned_state`), which the learner
        validates (``ValueError`` when they do not fit the tables)."""
        self.reset()
        self.classes_ = classes
        self.encoder_ = encoder
        self.table_ = table
        for part in type(self).parts:
            learned = part.restore(self, learned)
        self._set_learned_state(learned)
        self._sync_feature_attrs()
        # a structure, selection or weights read from the file is kept by partial_fit
        self._fit_token = object()
        self._mark_choice()

    def chunk_encoder(self):
        """A picklable callable ``(X frame, labels) -> (storage codes, class indices)`` that
        codes a chunk as the training data was coded."""
        return ChunkEncoder(self.encoder_, self.classes_, self.table_.sizes,
                            type(self).__name__)

    def needs_values(self):
        """Whether counting needs the numeric values (for a part, e.g. Gaussian children)."""
        return any(part.needs_values(self) for part in type(self).parts)

    def count_chunk(self, codes, y_idx, sample_weight=None, values=None):
        """Add coded rows (and, for Gaussian children, their centred numeric values) to the
        counts."""
        check_weight_total(len(codes) if sample_weight is None else float(np.sum(sample_weight)),
                           self.table_.n_rows)
        self.table_.add(codes, y_idx, sample_weight, values)

    def merge_counts(self, table):
        """Add the counts of another table over the same attributes (e.g. from a worker)."""
        check_weight_total(table.n_rows, self.table_.n_rows)
        self.table_.merge(table)

    def learn_from(self, source):
        """Learn everything beyond the counts (the learner's ``_learn_from_counts`` hook),
        replaying the training data through ``source`` (a :class:`seminaive.protocol.Source`):
        first the learner's ``_prepare_tables`` (tables made again from the counts, e.g. a
        selection of parents for memory), then every part's ``learn`` (e.g. hierarchical
        estimates of the final counts), then ``_learn_from_counts``."""
        self._prepare_tables(source)
        for part in type(self).parts:
            part.learn(self, source)
        self._learn_from_counts(source)

    # -------------------------------------------------------- choices kept by partial_fit
    def _keeps_choice(self, attribute):
        """Whether a choice made by leave-one-out or search (selection, structure) is kept
        rather than made again: true in :meth:`partial_fit` after the chunk it was made on
        (and after loading), false in every fresh fit.  ``attribute`` is one the choice sets.

        Learners whose choice needs evidence over all rows keep it in later chunks: the
        counts hold every chunk, but a choice re-made from the newest chunk alone would not
        be the one :meth:`fit` makes on all the rows (and could drop counted rows).
        """
        return (hasattr(self, attribute)
                and getattr(self, "_chosen_in", None) is getattr(self, "_fit_token", None))

    def _mark_choice(self):
        """Record that the choice was made in the current fit (see :meth:`_keeps_choice`)."""
        self._chosen_in = getattr(self, "_fit_token", None)

    def _warn_choice_kept(self, what):
        warn_user(f"{type(self).__name__}.partial_fit keeps the {what} chosen on the "
                      "first chunk (the counts hold every chunk); fit on all the rows may "
                      "choose differently: call fit (or fit_stream) on all of them to choose "
                      "again", UserWarning)

    def count_partial(self, frame, y, w, classes=None, *, route="partial_fit"):
        """Count one chunk of validated data incrementally (the body of :meth:`partial_fit`
        without the learning step); returns the chunk's ``(codes, y_idx)``.

        The first call needs ``classes``.  ``route`` names the route in the warning of a
        chunk counted with the first chunk's cut points (``"fit_stream"`` for a one-shot
        iterator).  The encoder, the codes and the table's extents
        change together or not at all: a chunk that cannot be counted leaves the model as it
        was.
        """
        first = not hasattr(self, "table_")
        if first:
            self.check_params()
            if classes is None:
                raise InputError("classes must be passed on the first call to partial_fit: "
                                 "list all classes that will ever appear, e.g. "
                                 "partial_fit(X, y, classes=np.unique(y_all))")
            classes = np.unique(np.asarray(classes))
            if classes.size == 0:
                raise InputError("classes is empty: list all classes that will ever appear")
            encoder = self.make_encoder()
        else:
            encoder = self.encoder_
            check_weight_total(len(y) if w is None else float(np.sum(w)), self.table_.n_rows)
            if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
                raise InputError(f"classes={np.unique(classes).tolist()} is not the same as on "
                                 f"the first call to partial_fit: {self.classes_.tolist()}")
        y_idx = encode_labels(y, classes if first else self.classes_)
        owner = type(self).__name__
        saved = None if first else encoder.snapshot()
        try:
            # codes beyond the table's extents must never reach the counting kernels
            encoder.update(frame, y, w, owner)
            with warnings.catch_warnings():
                # already warned about by update
                warnings.filterwarnings("ignore", message="X (does not have valid|has) feature")
                codes = encoder.encode(frame, owner)
            if first:
                self.begin_fit(classes, encoder)
            else:
                self.table_.grow(encoder.n_values_)
        except BaseException:
            if saved is not None:
                encoder.restore(saved)
            raise
        codes = storage_codes(codes, self.table_.sizes)
        values = self._chunk_values(frame)
        self.count_chunk(codes, y_idx, w, values)
        if not first:
            self._warn_first_chunk_cuts(route)
        return codes, y_idx, values

    def _warn_first_chunk_cuts(self, route="partial_fit"):
        """Once per model, when a chunk after the first is counted with cut points that the
        first chunk fixed: the model differs from ``fit`` on all the rows (which places the
        cut points, and centres the Gaussian children, on all of them)."""
        encoder = self.encoder_
        numeric = encoder.numeric_columns_
        params = self.get_params(deep=False)
        # the grid of binned children (density="kde") is the first chunk's, cut points or not
        binned = params.get("numeric") == "gaussian" and params.get("density") == "kde"
        if numeric.size == 0 or (encoder.cut_points_supplied() and not binned) or getattr(
                self, "_warned_first_chunk_cuts", False):
            return
        self._warned_first_chunk_cuts = True
        names = [str(encoder.column_names_[c]) for c in numeric[:5]]
        more = f" and {numeric.size - 5} more" if numeric.size > 5 else ""
        rest = ("fit on all the rows" if route == "partial_fit" else
                "pass a source that can be read twice (a file, or a callable that returns a "
                "new iterator), whose scan pass places them on every row")
        warn_user(
            f"{type(self).__name__}.{route}: the cut points of the numeric columns "
            f"{names}{more} were fixed on the first chunk, so this model differs from fit on "
            f"all the rows (which places them on every row). To make {route} equal fit, "
            "fix the cut points up front: pass a fitted discretiser, e.g. "
            f"discretizer=MDLDiscretizer().fit(X_numeric, y), or {rest}"
            + (" (density='kde' places its grid on the first chunk even then)"
               if binned else "") + ".",
            PartialFitWarning)

    def fit_stream(self, source, target, *, features=None, sample_weight=None,
                   chunk_rows=None, sample_rows=100_000, classes=None, csv_options=None,
                   progress=None):
        """Fit on data read chunk by chunk, larger than memory.

        A scan reads every chunk and keeps the class labels, the values of every nominal
        column and a random sample of ``sample_rows`` rows for the cut points of numeric
        columns (as Chen et al. 2014, §4, do); a counting pass then counts every chunk into
        the tables.  A file whose features are all nominal strings (CSV or Parquet) is read
        once: the scan codes its chunks and, while their codes fit in the memory budget of
        :func:`~seminaive.streaming.keep_bytes`, counts them without reading the file
        again; the parsed chunks of other files are likewise kept within that budget.
        Plain all-string CSV files (no quotes, UTF-8; one file or several of the same
        header, read as their lines one after the other) are coded as their lines are
        split, without parsing them into strings; a file too large for its codes to be
        kept is coded block by block, once for its values and once for its counts.
        Memory: the tables, one chunk and the sample, plus what the budget keeps.
        Learners with extra passes re-read the source chunk by chunk.  See
        :mod:`seminaive.streaming`.

        Parameters
        ----------
        source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
            Parquet file or directory (``*.parquet``), CSV file (``*.csv``), a list of such
            files, DataFrames, a callable returning a fresh iterator of DataFrames, or a
            one-shot iterator of DataFrames (read once: encoder fitted on the first chunk as
            in :meth:`partial_fit`; a learner needing an extra pass raises an error).  A
            path string with wildcards (``*``, ``?``, ``[...]``, ``**`` for any depth of
            folders), e.g. ``"data/part-*.csv"``, stands for the files it matches in sorted
            order (an ``InputError`` naming it when it matches none); a string naming an
            existing file is that file.
        target : str
            Column holding the class labels.
        features : list of str, optional
            Feature columns (default: every column but the target and the weights).
        sample_weight : str, optional
            Column holding non-negative row weights: the counts are those of
            ``fit(X, y, sample_weight=w)`` (the cut points are fitted with the sampled rows'
            weights).
        chunk_rows : int, optional
            Rows per chunk (default: about 8 million values per chunk).
        sample_rows : int or None, default=100_000
            Rows sampled for the cut points (None: all rows, kept in memory).  With at least
            as many rows as the data the cut points, and so the counts, are those of
            :meth:`fit` on all the rows.
        classes : array-like, optional
            Every class, for a one-shot iterator whose first chunk may lack some.
        csv_options : dict, optional
            Keyword arguments of ``pandas.read_csv`` (e.g. ``{"sep": ";", "dtype": ...}``).
        progress : bool, optional
            Show progress bars (default: when stderr is a terminal).

        Returns
        -------
        self
        """
        from . import streaming  # imported where used: not at package import

        return streaming.fit_stream(self, source, target, features=features,
                          sample_weight=sample_weight, chunk_rows=chunk_rows,
                          sample_rows=sample_rows, classes=classes, csv_options=csv_options,
                          progress=progress)

    def predict_stream(self, source, out, *, proba=True, chunk_rows=None, csv_options=None,
                       progress=None):
        """Predict data read chunk by chunk and write the results to a Parquet file.

        Parameters
        ----------
        source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
            As in :meth:`fit_stream` (a path string with wildcards is the files it
            matches, sorted); the model's feature columns are read (extra columns, e.g.
            the target, are ignored when the model was fitted with column names).
        out : str or path
            File written with columns ``prediction`` and, with ``proba``,
            ``proba_<class>`` for every class (equal to :meth:`predict` and
            :meth:`predict_proba`): CSV when its name ends in ``.csv``, Parquet in
            ``.parquet`` or ``.pq``; any other name is refused.
        proba : bool, default=True
        chunk_rows, csv_options, progress
            As in :meth:`fit_stream`.

        Returns
        -------
        n_rows : int
            Rows predicted and written.
        """
        from . import streaming  # imported where used: not at package import

        return streaming.predict_stream(self, source, out, proba=proba, chunk_rows=chunk_rows,
                              csv_options=csv_options, progress=progress)

    def _sync_feature_attrs(self):
        self.n_features_in_ = self.encoder_.n_features_in_
        if hasattr(self.encoder_, "feature_names_in_"):
            self.feature_names_in_ = self.encoder_.feature_names_in_
        else:
            self.__dict__.pop("feature_names_in_", None)

    # ------------------------------------------------------------------------- prediction
    def _storage_codes(self, X):
        check_is_fitted(self, "table_")
        # column names are checked as scikit-learn does: an array is taken positionally
        # (with a warning if the model was fitted on named columns)
        codes = self.encoder_.encode(X, type(self).__name__)
        return storage_codes(codes, self.table_.sizes)

    def _scores(self, X):
        codes = self._storage_codes(X)
        for part in type(self).parts:
            scores = part.scores(self, X, codes)
            if scores is not None:
                return scores
        return self.table_.scores(codes, self._order(), self.smoothing, self.m,
                                  self.min_count, self.aggregate,
                                  dtype=getattr(self, "dtype", "float64"))

    def _smoothing_spec(self):
        """The estimators' parameters (``smoothing``, ``m``) read once, as a
        :class:`~seminaive.kernels.smoothing.Smoothing`."""
        return Smoothing.from_params(self.smoothing, self.m)

    @fill_doc
    def predict_log_proba(self, X):
        """Log of P(y | x) for every class (log-sum-exp normalised).

        Parameters
        ----------
        {X_predict}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        scores = self._scores(X)
        with np.errstate(invalid="ignore"):
            return scores - logsumexp(scores, axis=1, keepdims=True)

    @fill_doc
    def predict_proba(self, X):
        """P(y | x) for every class; rows sum to 1.

        Parameters
        ----------
        {X_predict}

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        return np.exp(self.predict_log_proba(X))

    @fill_doc
    def predict(self, X):
        """The most probable class of each row.

        Parameters
        ----------
        {X_predict}

        Returns
        -------
        ndarray of shape (n_samples,)
            Labels from ``classes_``.
        """
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]

    def joint_log_likelihood(self, X):
        """Unnormalised per-class log scores (log of the AnDE estimate of P(y, x) with
        ``aggregate="joint"``).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
        """
        return self._scores(X)

    def explain(self, X, *, method="auto", n_permutations=32, random_state=None,
                centred=True):
        """Additive contributions of every attribute to every class's log posterior.

        The value of a set of attributes is the model's own prediction with the others
        missing; the contributions are their Shapley values (exact for naive Bayes, for the
        single networks TAN and KDB and for up to 12 attributes; sampled with a standard
        error above), so that
        ``base_values + values.sum(axis=1)`` equals :meth:`predict_log_proba` up to a
        constant per row.  See :mod:`seminaive.explanation`.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows to explain.
        method : {"auto", "additive", "structure", "exact", "sampled"}, default="auto"
            The scheme (:func:`seminaive.explanation.explain`).
        n_permutations : int, default=32
            Permutations per row when sampled (even, at least 4).
        random_state : int, Generator or None, default=None
            Seed of the sampled permutations.
        centred : bool, default=True
            Centre the scores over the classes.

        Returns
        -------
        seminaive.explanation.Explanation
            ``values`` (rows x attributes x classes), ``base_values`` (rows x classes),
            ``data``, ``feature_names``; ``to_shap()`` makes a ``shap.Explanation``.
        """
        return explanation.explain(self, X, method=method, n_permutations=n_permutations,
                                   random_state=random_state, centred=centred)

    def explain_stream(self, source, out, *, method="auto", n_permutations=32,
                       random_state=None, centred=True, chunk_rows=None, csv_options=None):
        """Explain data read chunk by chunk and write the contributions to a file.

        Parameters
        ----------
        source : path, list of paths, DataFrame, list of DataFrames, callable or iterator
            As in :meth:`predict_stream`.
        out : str or path
            Parquet file (CSV when it ends in ``.csv``) with ``base_<class>`` and
            ``<feature>__<class>`` columns.
        method, n_permutations, random_state, centred
            As in :meth:`explain`.
        chunk_rows, csv_options
            As in :meth:`predict_stream`.

        Returns
        -------
        dict
            ``n_rows``, ``feature_importances`` and the scheme of every chunk
            (:func:`seminaive.explanation.explain_stream`).
        """
        return explanation.explain_stream(
            self, source, out, method=method, n_permutations=n_permutations,
            random_state=random_state, centred=centred, chunk_rows=chunk_rows,
            csv_options=csv_options)

    # ------------------------------------------------------------------------ persistence
    def save(self, path):
        """Write the fitted model to ``path`` (npz + JSON header; loading runs no code).

        The file is written beside ``path`` and renamed into place: an interrupted save
        leaves no partial model.

        Parameters
        ----------
        path : str or path-like
            Conventionally ``*.npz``.
        """
        persistence.save_model(self, path)

    @classmethod
    def load(cls, path):
        """Read a model written by :meth:`save`; refuses corrupt or foreign files.

        Parameters
        ----------
        path : str or path-like
            A model file.

        Returns
        -------
        estimator
            An instance of this class (:class:`~seminaive.exceptions.ModelFileError` if the
            file holds another learner, or is corrupt).
        """
        model = persistence.load_model(path)
        if not isinstance(model, cls):
            found = type(model).__name__
            raise ModelFileError(f"{path} holds a model of class {found}, not {cls.__name__}: "
                                 f"load it with {found}.load or seminaive.load")
        return model

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags


#: the former name of :class:`Learner`
_BaseAnDE = Learner
