"""Command line: ``seminaive demo``, ``fit``, ``predict``, ``explain``, ``inspect``, ``compare``
and ``report``.

Exit status: 0 on success, 2 when the input is wrong (a missing file or column, an unknown
learner or parameter, a corrupt model file), with a message on standard error saying what to
change.
"""

import argparse
import ast
import inspect
import os
import stat
import sys
import textwrap

import numpy as np

from ._atomic import atomic_path, check_output
from ._docs import parameter_fragment
from ._params import InvalidParameterError, check_param, describe, parse_value
from ._version import __version__
from .ande import A2DE, AODE, NaiveBayes
from .datasets import load, load_kr_vs_kp, read_arff
from .evaluation import comparisons, findings, report, runner
from .evaluation.learners import LEARNERS, get_learner
from .evaluation.protocols import PROTOCOLS, make_tasks
from .exceptions import InputError, SeminaiveError
from .persistence import ESTIMATORS, load_model
from .streaming import predict_stream
from .streaming._readers import expand_patterns

#: output formats of ``seminaive predict``, by extension
PREDICTION_FORMATS = (".csv", ".parquet")


def _cross_validate(learner, X, y, folds, seed):
    """Per-fold (zero-one, RMSE, log loss, fit s, predict s) of a registered learner."""
    config = runner.RunConfig(datasets=["kr-vs-kp"], learners=[learner], seed=seed,
                       discretizer="mdl")
    classes = np.unique(y.to_numpy())
    rows = []
    for task in make_tasks("cv", "kr-vs-kp", y.to_numpy(), seed, folds=folds):
        result = runner.evaluate_task(learner, task, X, y, classes, config)[0]
        rows.append((result["zero_one"], result["rmse"], result["log_loss"],
                     result["train_time"] * result["train_size"],
                     result["test_time"] * result["test_size"]))
    return np.array(rows)


def demo(args):
    """10-fold cross-validation of NB, AODE and A2DE on a bundled UCI data set.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``seminaive demo`` (``folds``, ``seed``).

    Returns
    -------
    int
        The exit status, 0.
    """
    X, y = load_kr_vs_kp()
    print(f"Data: UCI Chess (King-Rook vs. King-Pawn), {X.shape[0]} rows, {X.shape[1]} nominal "
          f"attributes, {y.nunique()} classes (CC BY 4.0; see seminaive/datasets/data/README.md)")
    print(f"Protocol: stratified {args.folds}-fold cross-validation, seed {args.seed}; "
          "m-estimation (m = 1)\n")
    learners = {"NB": (NaiveBayes, "nb"), "AODE": (AODE, "aode"), "A2DE": (A2DE, "a2de")}
    # compile the numba kernels once so the timings measure learning, not compilation
    for cls, _ in learners.values():
        cls().fit(X.iloc[:50], y.iloc[:50]).predict_proba(X.iloc[:5])
    header = (f"{'learner':<8}{'0-1 loss':>10}{'RMSE':>9}{'log loss':>10}"
              f"{'fit (s)':>10}{'predict (s)':>13}")
    print(header)
    print("-" * len(header))
    for name, (_, key) in learners.items():
        res = _cross_validate(key, X, y, args.folds, args.seed)
        mean = res.mean(axis=0)
        print(f"{name:<8}{mean[0]:>10.4f}{mean[1]:>9.4f}{mean[2]:>10.4f}"
              f"{mean[3]:>10.4f}{mean[4]:>13.4f}")
    print("\nMeans over folds; fit / predict times are per fold. RMSE = sqrt(mean (1 - P(true "
          "class))^2), as in Webb et al. (2012).")
    return 0


def _split(text):
    return [t.strip() for t in text.split(",") if t.strip()]


def compare(args):
    """Run a comparison (cached, resumable) and write its report.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``seminaive compare``.

    Returns
    -------
    int
        The exit status: 0, or 2 for an unknown learner key, an output folder that is a
        file, or data that cannot be read (a missing file, an unknown data set or target
        column, a corrupt cached task file).
    """
    try:
        for key in _split(args.learners):
            get_learner(key)
    except KeyError as err:
        return _fail("compare", err.args[0])
    if not _split(args.data) or not _split(args.learners):
        return _fail("compare", "give at least one data set (--data) and one learner "
                                "(--learners)")
    out = args.out
    if os.path.exists(out) and not os.path.isdir(out):
        return _fail("compare", f"the output folder {out} is a file: give a folder (it is "
                                "created if missing)")
    for name in _split(args.data):  # read (and cached) before anything is created
        runner.load_dataset(name, args.max_rows, args.seed, args.target)
    os.makedirs(out, exist_ok=True)
    for name in ("raw.csv", "summary.csv", "config.json", "report.md"):
        check_output(os.path.join(out, name))
    overrides = {"folds": args.folds, "repeats": args.repeats}
    params = runner.protocol_parameters(args.protocol)
    overrides = {k: v for k, v in overrides.items() if k in params and v is not None}
    config = runner.RunConfig(datasets=_split(args.data), learners=_split(args.learners),
                              protocol=args.protocol, seed=args.seed,
                              discretizer=args.discretizer, n_bins=args.bins,
                              protocol_params=overrides, max_rows=args.max_rows,
                              target=args.target)
    raw = runner.run(config, out, n_jobs=args.jobs, progress=not args.quiet,
                     retry_failed=args.retry_failed)
    _write_csv(raw, os.path.join(out, "raw.csv"))
    failed = raw[raw["error"] != ""]
    if len(failed):
        print(f"{len(failed)} task(s) failed; see the 'error' column of {out}/raw.csv",
              file=sys.stderr)
    report.render([out], title=f"seminaive compare: {args.protocol}")
    _write_csv(report.summarise(out, raw), os.path.join(out, "summary.csv"))
    print(f"results: {out}/raw.csv, {out}/summary.csv, {out}/report.md, {out}/plots/")
    return 0


def _write_csv(frame, path):
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)


# ------------------------------------------------------------------ fit / predict / inspect
def _printable(text):
    """``text`` on one line, every character that is not printable escaped (a message may
    quote a model file or a data file: no terminal sequence from them reaches the
    terminal)."""
    text = " ".join(str(text).split("\n"))
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _message(err):
    if isinstance(err, OSError) and err.strerror:
        where = err.filename if err.filename is not None else ""
        return f"{where}: {err.strerror}" if where else err.strerror
    if isinstance(err, KeyError) and err.args:
        return str(err.args[0])
    return str(err) or type(err).__name__


def _fail(command, message):
    if isinstance(message, BaseException):
        message = _message(message)
    print(f"seminaive {command}: {_printable(message)}", file=sys.stderr)
    return 2


def _input_file(path, what):
    """Refuse a data or model path that is not a regular file, before anything reads it (a
    FIFO would be opened twice and hang)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise InputError(f"no such file: {path} (the {what} file)") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"{path} is a folder, not a {what} file")
    if not stat.S_ISREG(mode):
        raise InputError(f"{path} is not a regular file (a FIFO, a device or a socket): the "
                         f"{what} is read more than once, so copy it to a file first")
    return path


def _data_files(path):
    """The files of a data argument, each a regular file (:func:`_input_file`): the path,
    or the files a pattern with wildcards matches, sorted (``"data/part-*.csv"``, as
    ``fit_stream`` reads it); a pattern of ARFF files must match one file (an ARFF file is
    read whole)."""
    files = expand_patterns(path)
    files = [files] if isinstance(files, str) else files
    for file in files:
        _input_file(file, "data")
    if len(files) > 1 and any(_is_arff(f) for f in files):
        raise InputError(f"{path} matches {len(files)} files: ARFF data is read whole, "
                         "from one file (or convert the files to CSV or Parquet)")
    return files


def _check_extension(path, allowed, what):
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in allowed:
        raise InputError(f"cannot write {path}: {what} is written as "
                         f"{' or '.join(allowed)} (by the extension); " + (
                             f"{ext} is not one of them" if ext else "the name has none"))


def _parse_params(pairs, estimator=None):
    """``NAME=VALUE`` strings as a dict.

    With ``estimator`` every value is read as the parameter's declaration
    (``_parameter_constraints``) expects it -- numbers, ``None``, ``True`` / ``False``,
    lists (``categorical_features=[SEX,AGE]``, bare words allowed), options as written --
    and checked against it (:class:`~seminaive.exceptions.InputError` naming the parameter
    and what to use).  Without, values are read as Python literals where they are one
    (``k=3``, ``m=0.5``, ``burn_in=None``), else kept as text (``smoothing=hdp``).
    """
    declared = getattr(estimator, "_parameter_constraints", {})
    owner = type(estimator).__name__
    params = {}
    for pair in pairs or []:
        name, sep, text = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise InputError(f"--param {pair!r}: use NAME=VALUE")
        if name in declared:
            value = parse_value(text, declared[name])
            try:
                check_param(owner, name, value, declared[name])
            except InvalidParameterError as err:
                raise InputError(f"--param {pair}: {err}") from None
        else:
            try:
                value = ast.literal_eval(text)
            except (ValueError, SyntaxError):
                value = text
        params[name] = value
    return params


def describe_params(learner: str) -> str:
    """What ``seminaive fit --params LEARNER`` prints: every parameter of a learner with its
    allowed values (from its declaration), its default and its description (the fragment
    its docstring's entry is assembled from, :func:`seminaive._docs.parameter_fragment`).

    Parameters
    ----------
    learner : str
        Class name or learner key, as ``--learner`` takes it.

    Returns
    -------
    str

    Examples
    --------
    >>> print(describe_params("KDB").splitlines()[1])
      k                     a non-negative integer; default 1
    """
    model = make_estimator(learner)
    declared = model._parameter_constraints
    values = model.get_params(deep=False)
    names = [p for p in inspect.signature(type(model).__init__).parameters if p in values]
    lines = [f"{learner} ({type(model).__name__}): --param NAME=VALUE with NAME one of"]
    for name in names:
        allowed = describe(declared[name]) if name in declared else "any value"
        text = f"{allowed}; default {values[name]!r}"
        lines.append(textwrap.fill(text, width=96, initial_indent=f"  {name:<22}",
                                   subsequent_indent=" " * 24))
        description = parameter_fragment(type(model), name).partition("\n")[2]
        for paragraph in textwrap.dedent(description).split("\n\n"):
            lines.append(textwrap.fill(paragraph, width=96, initial_indent=" " * 24,
                                       subsequent_indent=" " * 24))
    lines.append("Values: numbers, None, True / False, options as written, lists as [a,b] "
                 "(bare words allowed).")
    return "\n".join(lines)


class _ParamsAction(argparse.Action):
    """``--params LEARNER``: print the learner's parameters and exit (as ``--help``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            text = describe_params(values)
        except InputError as err:
            parser.exit(2, f"seminaive fit: {err}\n")
        print(text)
        parser.exit(0)


def make_estimator(learner, params=None):
    """A fresh seminaive learner from a class name (``AODE``, ``KDB``) or an experiment key
    (``aode``, ``kdb5-hdp``), with ``params`` set.

    Parameters
    ----------
    learner : str
        Class name (:data:`seminaive.persistence.ESTIMATORS`) or learner key
        (:data:`seminaive.evaluation.learners.LEARNERS`) of one of our learners.
    params : dict, optional
        Parameters to set; unknown names raise InputError listing the valid ones.

    Returns
    -------
    estimator

    Examples
    --------
    >>> make_estimator("KDB", {"k": 3}).k
    3
    >>> type(make_estimator("kdb5-hdp")).__name__, make_estimator("kdb5-hdp").smoothing
    ('KDB', 'hdp')
    """
    if learner in ESTIMATORS:
        model = ESTIMATORS[learner]()
    else:
        try:
            spec = get_learner(learner)
        except KeyError:
            listing = "; ".join(f"{cls} ({', '.join(keys)})" if keys else cls
                                for cls, keys in learner_keys().items())
            raise InputError(f"unknown learner {learner!r}: give a class name or a learner "
                             f"key (as seminaive compare takes it): {listing}") from None
        model = spec.build(discretizer="mdl")
        if type(model).__name__ not in ESTIMATORS:
            raise InputError(f"{learner!r} is a scikit-learn comparator: fit takes "
                             "seminaive learners only")
    params = dict(params or {})
    valid = model.get_params()
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise InputError(f"{type(model).__name__} has no parameter {', '.join(unknown)}; "
                         f"its parameters: {', '.join(sorted(valid))}")
    return model.set_params(**params)


def learner_keys():
    """Every seminaive learner class with the learner keys that build it.

    Returns
    -------
    dict
        ``{class name: [keys]}``, classes in alphabetical order (a class no key builds has
        an empty list).

    Examples
    --------
    >>> learner_keys()["AODE"]
    ['aode', 'aode-gauss', 'aode-ef3']
    """
    keys = {name: [] for name in sorted(ESTIMATORS)}
    for key, spec in LEARNERS.items():
        if spec.input != "raw":
            continue  # a scikit-learn comparator
        name = type(spec.build()).__name__
        if name in keys:
            keys[name].append(key)
    return keys


def _learners_epilog():
    lines = ["learners (class name: the keys of seminaive compare that build it; either "
             "is a valid --learner):"]
    for cls, keys in learner_keys().items():
        lines.append(textwrap.fill(", ".join(keys) or "-", width=96,
                                   initial_indent=f"  {cls:<15} ",
                                   subsequent_indent=" " * 18))
    lines.append("numeric attributes are discretised by MDL (Fayyad & Irani 1993), the "
                 "learners' default;\n--param discretizer=equal_frequency --param n_bins=3 "
                 "gives the three equal-frequency bins\nthat seminaive compare uses by "
                 "default.")
    return "\n".join(lines)


def _is_arff(path):
    return str(path).lower().endswith((".arff", ".arff.gz"))


def fit_command(args):
    """``seminaive fit DATA --target COL --learner KEY [--param NAME=VALUE ...] -o MODEL``.

    CSV and Parquet files are read chunk by chunk (:meth:`fit_stream`), so they may be
    larger than memory; ARFF files are read whole.  The model file is written atomically.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
        The exit status.
    """
    model = make_estimator(args.learner)
    model = make_estimator(args.learner, _parse_params(args.param, model))
    model.check_params()
    files = _data_files(args.data)
    check_output(args.output, inputs=files)  # before hours of training
    _check_extension(args.output, (".npz",), "a model file")
    if _is_arff(files[0]):
        X, y = load(files[0], target=args.target)
        model.fit(X, y)
    else:
        if args.target is None:
            raise InputError("give the class column with --target")
        model.fit_stream(args.data, args.target, chunk_rows=args.chunk_rows,
                         progress=not args.quiet)
    model.save(args.output)
    if not args.quiet:
        print(f"{type(model).__name__} fitted on {args.data}: {len(model.classes_)} classes, "
              f"{model.n_features_in_} attributes; model written to {args.output}")
    return 0


def _model_and_rows(args, what):
    """The model and the rows of ``seminaive predict`` / ``explain``, every path checked
    before anything is read (``what``: the output's content, for the extension's message)."""
    _input_file(args.model, "model")
    files = _data_files(args.data)
    check_output(args.output, inputs=[*files, args.model])
    _check_extension(args.output, PREDICTION_FORMATS, what)
    if getattr(args, "plots", None):
        os.makedirs(args.plots, exist_ok=True)
        check_output(os.path.join(args.plots, "summary_bar.png"), inputs=[*files, args.model])
    model = load_model(args.model)
    source = read_arff(files[0], target=False) if _is_arff(files[0]) else args.data
    return model, source


def predict_command(args):
    """``seminaive predict MODEL DATA -o OUT``: the class and class probabilities of every
    row, written chunk by chunk to CSV or Parquet (by the extension of OUT), atomically.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
        The exit status.
    """
    model, source = _model_and_rows(args, "the predictions")
    n = predict_stream(model, source, args.output, proba=not args.no_proba,
                       chunk_rows=args.chunk_rows, progress=not args.quiet)
    if not args.quiet:
        print(f"{n} rows predicted; written to {args.output}")
    return 0


def explain_command(args):
    """``seminaive explain MODEL DATA -o OUT``: the contribution of every attribute to every
    class's score for every row (:meth:`seminaive.base.Learner.explain_stream`), written
    chunk by chunk to CSV or Parquet (by the extension of OUT), atomically; with
    ``--plots DIR``, PNG figures of the first ``--plot-rows`` rows (summary bar and
    beeswarm, the waterfall of the first row) and the learned graph of a structure learner.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
        The exit status.
    """
    from .evaluation import explanation_plots as plots
    from .explanation import explain_stream
    from .streaming._readers import open_source

    model, source = _model_and_rows(args, "the explanations")
    try:
        summary = explain_stream(model, source, args.output, method=args.method,
                                 n_permutations=args.n_permutations, random_state=args.seed,
                                 chunk_rows=args.chunk_rows)
        written = []
        if args.plots:
            # the first rows only, read as the explanation read them
            reader = open_source(source)
            names = getattr(model, "feature_names_in_", None)
            frames = reader.frames(reader.columns() if names is None else list(names),
                                   args.plot_rows)
            head, _ = next(frames)
            frames.close()
            ex = model.explain(head, method=args.method, n_permutations=args.n_permutations,
                               random_state=args.seed)
            figures = {"summary_bar.png": lambda p: plots.plot_summary(ex, path=p),
                       "summary_beeswarm.png":
                           lambda p: plots.plot_summary(ex, kind="beeswarm", path=p),
                       "waterfall_row0.png": lambda p: plots.plot_waterfall(ex, 0, path=p)}
            if getattr(model, "structure_", None) is not None:
                figures["structure.png"] = lambda p: plots.plot_structure(model, path=p)
            for name, draw in figures.items():
                path = os.path.join(args.plots, name)
                draw(path)
                written.append(path)
    except (SeminaiveError, ValueError, OSError) as err:
        return _fail("explain", err)
    if not args.quiet:
        top = summary["feature_importances"].sort_values(ascending=False).head(5)
        print(f"{summary['n_rows']} rows explained ({', '.join(sorted(set(summary['methods'])))}"
              f"); written to {args.output}")
        print("mean |contribution| (nats), largest: "
              + ", ".join(f"{k} {v:.3f}" for k, v in top.items()))
        for path in written:
            print(f"plot written to {path}")
    return 0


def _shown(value):
    """A value taken from a model file as ``inspect`` prints it: as it is when it reads
    unambiguously, else quoted with every control character escaped (``'a, b, c'`` is one
    value; an ANSI or OSC sequence shows as ``\\x1b...``, never reaches the terminal)."""
    text = str(value)
    if (text and text.isprintable() and text == text.strip()
            and not any(c in text for c in ",'\"[]\\")):
        return text
    return repr(text)


def describe_model(model):
    """What ``seminaive inspect`` prints about a fitted model, as text.

    Parameters
    ----------
    model : fitted seminaive learner

    Returns
    -------
    str

    Examples
    --------
    >>> from seminaive import KDB
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> text = describe_model(KDB(k=1).fit(X, y))
    >>> print(text.splitlines()[0])
    KDB
    >>> "Parents" in text and "Tables" in text
    True
    """
    lines = [type(model).__name__]
    params = model.get_params()
    lines.append("Parameters: " + ", ".join(f"{k}={_printable(repr(v))}"
                                            for k, v in sorted(params.items())))
    classes = [_shown(c) for c in model.classes_]
    lines.append(f"Classes ({len(classes)}): " + ", ".join(classes))
    enc = model.encoder_
    names = (list(map(_shown, model.feature_names_in_)) if hasattr(model, "feature_names_in_")
             else [f"x{i}" for i in range(model.n_features_in_)])
    cuts = enc.cut_points() if len(enc.numeric_columns_) else []
    cut_of = dict(zip([int(c) for c in enc.numeric_columns_], cuts or [], strict=False))
    lines.append(f"Attributes ({len(names)}):")
    for i, name in enumerate(names):
        if i in cut_of:
            points = ", ".join(f"{c:.6g}" for c in cut_of[i])
            lines.append(f"  {name}: numeric, cut points [{points}]")
        elif i in set(int(c) for c in enc.numeric_columns_):
            lines.append(f"  {name}: numeric, {len(enc.categories_[i])} bins")
        else:
            values = [_shown(v) for v in enc.categories_[i]]
            shown = ", ".join(values[:12]) + (", ..." if len(values) > 12 else "")
            lines.append(f"  {name}: nominal, {len(values)} values [{shown}]")
    structure = getattr(model, "structure_", None)
    if structure is not None:
        lines.append("Parents (structure_):")
        rows = np.asarray(structure).reshape(len(names), -1)
        for i, row in enumerate(rows):
            parents = [names[p] for p in row if p >= 0]
            lines.append(f"  {names[i]} <- class" + "".join(f", {p}" for p in parents))
    for attr, label in (("k_", "Selected k"), ("n_selected_features_", "Selected attributes"),
                        ("n_", "Selected n"), ("root_", "Root")):
        if hasattr(model, attr):
            lines.append(f"{label}: {getattr(model, attr)}")
    for attr in ("selected_features_", "parents_", "children_"):
        if hasattr(model, attr):
            chosen = [names[int(i)] for i in np.asarray(getattr(model, attr)).ravel()]
            lines.append(f"{attr}: " + ", ".join(chosen))
    weights = getattr(model, "weights_", None)
    if weights is not None:
        w = np.asarray(weights, dtype=np.float64).ravel()
        lines.append(f"Weights ({w.size}): min {w.min():.4g}, max {w.max():.4g}, "
                     f"mean {w.mean():.4g}")
    if hasattr(model, "estimators_"):
        lines.append(f"Members: {len(model.estimators_)}")
        for j, member in enumerate(model.estimators_):
            lines.append(f"  member {j}: k={member.k_}, "
                         f"{member.n_selected_features_} attributes")
    table = model.table_
    lines.append(f"Tables: {table.counts.size} counts ({table.counts.nbytes / 2**20:.2f} MiB), "
                 f"attribute combinations up to order {table.max_order}, "
                 f"{float(table.n_rows):g} training rows")
    return "\n".join(lines)


def inspect_command(args):
    """``seminaive inspect MODEL``: the learner, its parameters, classes, attributes (values
    or cut points), the learnt structure, weights or selection, and the table sizes.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
        The exit status.
    """
    _input_file(args.model, "model")
    model = load_model(args.model)
    print(describe_model(model))
    return 0


def report_command(args):
    """Render the report again from cached raw results.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options of ``seminaive report``.

    Returns
    -------
    int
        The exit status: 0, or 2 for a result folder that does not exist, an unknown
        comparison key, or an output or preamble path that cannot be used.
    """
    for folder in args.dirs:
        if not os.path.isdir(folder):
            raise InputError(f"no result folder {folder}: give folders written by seminaive "
                             "compare" if not os.path.exists(folder) else
                             f"{folder} is not a folder: give folders written by seminaive "
                             "compare")
    preamble = None
    if args.preamble:
        with open(_input_file(args.preamble, "preamble")) as fh:
            preamble = fh.read()
    target = args.markdown or os.path.join(args.dirs[0], "report.md")
    check_output(target, inputs=[args.preamble])
    check = findings.paper_findings if args.findings else None
    if args.comparisons:
        keys = [k for k in args.comparisons.split(",") if k]
        known = {c.key for c in comparisons.PAPER_COMPARISONS}
        unknown = sorted(set(keys) - known)
        if unknown or not keys:
            raise InputError(f"unknown comparison(s) {', '.join(unknown) or '(none given)'}; "
                             f"known: {', '.join(sorted(known))}")
        chosen = [c for c in comparisons.PAPER_COMPARISONS if c.key in keys]

        def check(summary, curve, raw):
            return comparisons.render_comparisons(summary, chosen)
    text = report.render(args.dirs, markdown_path=args.markdown, title=args.title,
                         preamble=preamble, findings=check, section=args.section)
    print(f"wrote {target} ({len(text.splitlines())} lines)")
    return 0


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``seminaive fit: <what> (see seminaive fit --help)``,
    exit status 2."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {_printable(message)} (see {self.prog} --help)\n")


class _Help(argparse.RawDescriptionHelpFormatter):
    """Help that states every default (where the text does not already) and keeps the
    learner listing's lines."""

    def _get_help_string(self, action):
        text = action.help or ""
        if ("default" not in text and action.default is not None and action.default is not False
                and action.default is not argparse.SUPPRESS and action.option_strings):
            text += " (default: %(default)s)"
        return text


def _int_at_least(low):
    """An argparse type: an integer of at least ``low``."""

    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is too small: give {low} or more")
        return value

    parse.__name__ = f"integer >= {low}"
    return parse


def build_parser():
    """The ``seminaive`` argument parser (every subcommand).

    Returns
    -------
    argparse.ArgumentParser

    Examples
    --------
    >>> build_parser().parse_args(["report", "results", "-o", "r.md"]).markdown
    'r.md'
    """
    parser = _Parser(prog="seminaive",
                     description="Semi-naive Bayesian classification (AnDE).")
    parser.add_argument("--version", action="version", version=f"seminaive {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name, **kwargs):
        return sub.add_parser(name, formatter_class=_Help, **kwargs)

    p_demo = command("demo", help="cross-validate NB, AODE and A2DE on bundled data",
                     description="Cross-validate NB, AODE and A2DE on the bundled UCI Chess "
                                 "data (all attributes nominal).")
    p_demo.add_argument("--folds", type=_int_at_least(2), default=10,
                        help="folds of the cross-validation")
    p_demo.add_argument("--seed", type=int, default=0, help="seed of the folds")
    p_demo.set_defaults(func=demo)

    p_fit = command("fit", help="fit a learner on a data file and save the model",
                    description="Fit a learner on a CSV, Parquet or ARFF file (CSV and "
                                "Parquet are streamed: larger than memory is fine) and write "
                                "the model file (.npz).",
                    epilog=_learners_epilog())
    p_fit.add_argument("data", help="training data: .csv, .parquet or .arff (a quoted "
                       "pattern, 'data/part-*.csv': the files it matches, sorted)")
    p_fit.add_argument("--target", default=None,
                       help="class column (required for CSV and Parquet; ARFF: the last "
                            "attribute when not given)")
    p_fit.add_argument("--learner", required=True,
                       help="class name (AODE, KDB, ...) or learner key (aode, kdb5-hdp, "
                            "...): see the list below")
    p_fit.add_argument("--param", action="append", metavar="NAME=VALUE",
                       help="a parameter of the learner, e.g. --param k=3 or --param "
                            "categorical_features=[SEX,AGE] (repeatable; --params LEARNER "
                            "lists them)")
    p_fit.add_argument("--params", action=_ParamsAction, metavar="LEARNER",
                       help="list the parameters of LEARNER with their allowed values and "
                            "defaults, and exit")
    p_fit.add_argument("-o", "--output", required=True, help="model file to write (.npz)")
    p_fit.add_argument("--chunk-rows", type=_int_at_least(1), default=None,
                       help="rows per chunk (default: from the number of columns)")
    p_fit.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p_fit.set_defaults(func=fit_command)

    p_pred = command("predict", help="predict a data file with a saved model",
                     description="Write the predicted class and the class probabilities of "
                                 "every row, chunk by chunk, to CSV or Parquet (by the "
                                 "output's extension: .csv or .parquet).")
    p_pred.add_argument("model", help="model file written by seminaive fit or model.save")
    p_pred.add_argument("data", help="rows to predict: .csv, .parquet or .arff (or a quoted "
                        "pattern of files, as for fit)")
    p_pred.add_argument("-o", "--output", required=True, help=".csv or .parquet to write")
    p_pred.add_argument("--no-proba", action="store_true", help="only the predicted class")
    p_pred.add_argument("--chunk-rows", type=_int_at_least(1), default=None,
                        help="rows per chunk (default: from the number of columns)")
    p_pred.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    p_pred.set_defaults(func=predict_command)

    p_exp = command("explain", help="explain the predictions of a data file",
                    description="Write the contribution of every attribute to every class's "
                                "score for every row (Shapley values with the model's own "
                                "missing-value handling), chunk by chunk, to CSV or Parquet "
                                "(by the output's extension).")
    p_exp.add_argument("model", help="model file written by seminaive fit or model.save")
    p_exp.add_argument("data", help="rows to explain: .csv, .parquet or .arff (or a quoted "
                       "pattern of files, as for fit)")
    p_exp.add_argument("-o", "--output", required=True, help=".csv or .parquet to write")
    p_exp.add_argument("--method", default="auto",
                       choices=["auto", "additive", "structure", "exact", "sampled"],
                       help="scheme (default auto: additive for naive Bayes, structure for TAN "
                            "and KDB, exact up to 12 attributes, sampled above)")
    p_exp.add_argument("--n-permutations", type=_int_at_least(2), default=32,
                       help="permutations per row when sampled (even; default 32)")
    p_exp.add_argument("--seed", type=int, default=0,
                       help="seed of the sampled permutations (default 0)")
    p_exp.add_argument("--chunk-rows", type=_int_at_least(1), default=None,
                       help="rows per chunk")
    p_exp.add_argument("--plots", default=None, metavar="DIR",
                       help="also write PNG plots (summary, waterfall, structure) to DIR")
    p_exp.add_argument("--plot-rows", type=_int_at_least(1), default=1000,
                       help="rows (the first ones) the plots show (default 1000)")
    p_exp.add_argument("--quiet", action="store_true", help="no summary")
    p_exp.set_defaults(func=explain_command)

    p_ins = command("inspect", help="describe a saved model",
                    description="Print a saved model's learner, parameters, classes, "
                                "attributes, structure and table sizes (values are quoted "
                                "where they could be misread, and control characters "
                                "escaped).")
    p_ins.add_argument("model", help="model file")
    p_ins.set_defaults(func=inspect_command)

    p_cmp = command(
        "compare", help="compare learners on data sets with the papers' protocols",
        description="Evaluate learners on data sets; raw results are cached per task in "
                    "OUTPUT/raw so an interrupted run resumes where it stopped.")
    p_cmp.add_argument("--data", required=True,
                       help="comma-separated data set names (seminaive.datasets.available()) "
                            "or .arff/.csv/.parquet paths")
    p_cmp.add_argument("--target", default=None,
                       help="target column of data files (default: the last column)")
    p_cmp.add_argument("--learners", required=True,
                       help="comma-separated learner keys, e.g. nb,aode,a2de,rf100 (seminaive "
                            "fit --help lists the keys of our learners)")
    p_cmp.add_argument("--protocol", choices=PROTOCOLS, default="cv",
                       help="evaluation protocol")
    p_cmp.add_argument("-o", "--output", "--out", dest="out", required=True, metavar="FOLDER",
                       help="output folder (created if missing)")
    p_cmp.add_argument("--folds", type=_int_at_least(2), default=None,
                       help="folds (cv, biasvar; default: the protocol's)")
    p_cmp.add_argument("--repeats", type=_int_at_least(1), default=None,
                       help="repeats of the protocol (default: the protocol's)")
    p_cmp.add_argument("--seed", type=int, default=0, help="seed of the splits and learners")
    p_cmp.add_argument("--discretizer", choices=("equal_frequency", "mdl"),
                       default="equal_frequency",
                       help="discretiser of numeric attributes (Webb et al. 2012: three-bin "
                            "equal frequency; Chen et al. 2014: MDL); default: equal_frequency "
                            "(seminaive fit and the learners default to MDL)")
    p_cmp.add_argument("--bins", type=_int_at_least(2), default=3,
                       help="bins for equal_frequency")
    p_cmp.add_argument("--max-rows", type=_int_at_least(1), default=None,
                       help="use a seeded random sample of at most this many rows (default: "
                            "all rows)")
    p_cmp.add_argument("--jobs", type=_int_at_least(1), default=1,
                       help="parallel worker processes")
    p_cmp.add_argument("--quiet", action="store_true", help="no progress bar")
    p_cmp.add_argument("--retry-failed", action="store_true",
                       help="run again the tasks recorded as failed (and those whose cached "
                            "file is truncated or corrupt)")
    p_cmp.set_defaults(func=compare)

    p_rep = command("report", help="render the report from cached raw results",
                    description="Render the markdown report and plots again from the cached "
                                "results of seminaive compare.")
    p_rep.add_argument("dirs", nargs="+", help="result folders of seminaive compare")
    p_rep.add_argument("-o", "--output", "--markdown", dest="markdown", default=None,
                       metavar="MARKDOWN",
                       help="report path (default: DIR/report.md of the first folder)")
    p_rep.add_argument("--title", default="Results", help="the report's first heading")
    p_rep.add_argument("--preamble", default=None, help="markdown file placed after the title")
    p_rep.add_argument("--findings", action="store_true",
                       help="check the papers' findings and comparison tables against the results")
    p_rep.add_argument("--comparisons", default=None,
                       help="only these comparison tables (comma-separated keys of "
                            "seminaive.evaluation.comparisons.PAPER_COMPARISONS)")
    p_rep.add_argument("--section", default=None,
                       help="write the report as this named section of the output (between "
                            "<!-- NAME --> markers), keeping the rest of the file")
    p_rep.set_defaults(func=report_command)
    return parser


def main(argv=None):
    """Entry point of the ``seminaive`` command.

    Every wrong input -- a missing, unreadable or non-regular file, an output path that
    cannot be written, a bad option or parameter, a corrupt model or cache file, tables over
    the memory budget -- ends with exit status 2 and one line on standard error saying what
    to change, never a traceback.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status of the subcommand.
    """
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (SeminaiveError, OSError, ValueError) as err:
        return _fail(args.command, err)


if __name__ == "__main__":
    sys.exit(main())
