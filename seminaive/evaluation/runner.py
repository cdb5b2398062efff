"""Run learners over protocol tasks, in parallel, with a resumable on-disk cache.

Every finished task -- one (data set, learner, protocol, repeat, fold) -- is written at once to
its own small file under ``<out>/raw/``; a run that is interrupted and started again skips the
tasks whose files exist, so it continues where it stopped.  The task file holds the task's
metrics and timings and, for the bias/variance protocols, the predicted class of every test
row.  Files are written to a temporary name and renamed, so a killed worker never leaves a
half-written result behind.
"""

import functools
import hashlib
import json
import os
import time
import warnings
import zipfile
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import metrics
from .._atomic import atomic_path, atomic_write_text
from ..datasets import load
from ..datasets.registry import is_file_name
from ..exceptions import InputError
from ..tables import counting
from .learners import get_learner
from .protocols import make_tasks, protocol_parameters

#: protocols whose per-row predictions are kept (for Kohavi-Wolpert bias and variance)
PREDICTION_PROTOCOLS = ("biasvar", "biasvar1000")
METRICS = ("zero_one", "rmse", "rmse_all", "log_loss", "auc")


@dataclass
class RunConfig:
    """Everything that determines the results of a comparison run.

    Parameters
    ----------
    datasets : list of str
        Data set names (:func:`seminaive.datasets.available`) or file paths.
    learners : list of str
        Learner keys (``seminaive.evaluation.learners.LEARNERS``).
    protocol : {"cv", "biasvar", "biasvar1000", "holdout", "curve"}, default="cv"
        The evaluation protocol.
    seed : int, default=0
        Seed of the splits and of the learners.
    discretizer : str, default="equal_frequency"
        How numeric columns are discretised (passed to every learner that takes it).
    n_bins : int, default=3
        Bins of equal-frequency discretisation.
    protocol_params : dict, optional
        Overrides of the protocol's parameters (e.g. ``{"folds": 5}``).
    max_rows : int, optional
        Subsample larger data sets to this many rows.
    target : str, optional
        The target column of the data files (default: each file's last column).

    Examples
    --------
    >>> from seminaive.evaluation.runner import RunConfig
    >>> RunConfig(["kr-vs-kp"], ["nb"], protocol_params={"folds": 2}).settings_key()
    'cv-seed0-equal_frequency3-folds2-repeats1'
    """

    datasets: list
    learners: list
    protocol: str = "cv"
    seed: int = 0
    discretizer: str = "equal_frequency"
    n_bins: int = 3
    protocol_params: dict = field(default_factory=dict)
    max_rows: int = None
    target: str = None

    def params(self):
        """The protocol's parameters: its defaults updated with ``protocol_params``.

        Returns
        -------
        dict
        """
        return protocol_parameters(self.protocol, **self.protocol_params)

    def settings_key(self):
        """Directory name that separates incompatible settings in the cache.

        Returns
        -------
        str
            E.g. ``"biasvar-seed0-equal_frequency3-folds2-repeats50"``.
        """
        p = self.params()
        parts = [self.protocol, f"seed{self.seed}", f"{self.discretizer}{self.n_bins}"]
        parts += [f"{k}{v:g}" if isinstance(v, float) else f"{k}{v}" for k, v in sorted(p.items())]
        if self.max_rows:
            parts.append(f"max{self.max_rows}")
        return "-".join(str(s) for s in parts)


@functools.lru_cache(maxsize=4)
def load_dataset(name, max_rows=None, seed=0, target=None):
    """(X, y) of a data set by name (cached per process); optionally a seeded row sample.

    Parameters
    ----------
    name : str
        A data set name or file path, as for :func:`seminaive.datasets.load`.
    max_rows : int, optional
        Sample at most this many rows.
    seed : int, default=0
        Seed of the row sample.
    target : str, optional
        The target column of a file (default: its last column).

    Returns
    -------
    X : pandas.DataFrame
    y : pandas.Series
    """
    X, y = load(name, target=target)
    X = X.reset_index(drop=True)
    y = pd.Series(np.asarray(y)).reset_index(drop=True)
    if max_rows and len(y) > max_rows:
        rng = np.random.default_rng(seed)
        keep = np.sort(rng.choice(len(y), size=max_rows, replace=False))
        X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
    return X, y


def task_path(out, config, dataset, learner, task_key):
    """Path of the cache file of one task.

    Parameters
    ----------
    out : str
        The result directory.
    config : RunConfig
        The run's settings.
    dataset, learner : str
        Data set name and learner key.
    task_key : str
        :attr:`seminaive.evaluation.protocols.Task.key`.

    Returns
    -------
    str
    """
    return os.path.join(out, "raw", config.settings_key(),
                        dataset_key(dataset, getattr(config, "target", None)), learner,
                        f"{task_key}.npz")


def dataset_key(name, target=None):
    """The name a data set's results are stored and reported under.

    A registered name is kept as it is.  A file path (absolute or relative) becomes its file
    name without the extension, then a short hash of its absolute path and ``target``, so
    that two files of the same name, or one file with two targets, never share results, and
    the key is a single directory name wherever the file lives.

    Parameters
    ----------
    name : str
        A data set name or file path.
    target : str, optional
        The target column of a file.

    Returns
    -------
    str

    Examples
    --------
    >>> dataset_key("kr-vs-kp")
    'kr-vs-kp'
    >>> key = dataset_key("/home/me/data/adult.parquet")
    >>> key.startswith("adult-") and "/" not in key
    True
    """
    if not is_file_name(name):
        return str(name)
    base = os.path.basename(str(name))
    stem = base[:-len(".arff.gz")] if base.lower().endswith(".arff.gz") else \
        os.path.splitext(base)[0]
    digest = hashlib.sha1(f"{os.path.abspath(name)}|{target}".encode()).hexdigest()[:8]
    return f"{stem}-{digest}"


def _proba_full(model, proba, classes):
    """Probabilities as columns of the data set's full class list (absent classes get 0)."""
    full = np.zeros((proba.shape[0], len(classes)))
    index = {c: i for i, c in enumerate(classes)}
    for j, c in enumerate(model.classes_):
        full[:, index[c]] = proba[:, j]
    return full


def evaluate_task(spec_key, task, X, y, classes, config):
    """Fit one learner on the task's training rows and score it on its test rows.

    Parameters
    ----------
    spec_key : str
        Learner key (:func:`seminaive.evaluation.learners.get_learner`).
    task : seminaive.evaluation.protocols.Task
        The train/test split.
    X : pandas.DataFrame
        The data set's attributes.
    y : pandas.Series
        Its class labels.
    classes : numpy.ndarray
        All class labels of the data set, sorted.
    config : RunConfig
        The run's settings (seed, discretiser, bins).

    Returns
    -------
    result : dict
        Metrics, per-instance times and set sizes (and ``chosen_n`` for ``AnDE(n="auto")``).
    prediction : numpy.ndarray
        Predicted class index of every test row.
    truth : numpy.ndarray
        True class index of every test row.
    """
    spec = get_learner(spec_key)
    model = spec.build(random_state=config.seed, discretizer=config.discretizer,
                       n_bins=config.n_bins)
    X_train, y_train = X.iloc[task.train], y.iloc[task.train].to_numpy()
    X_test, y_test = X.iloc[task.test], y.iloc[task.test].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        model.fit(X_train, y_train)
        train_seconds = time.perf_counter() - start
        start = time.perf_counter()
        proba = model.predict_proba(X_test)
        test_seconds = time.perf_counter() - start
    proba = _proba_full(model, np.asarray(proba, dtype=np.float64), classes)
    class_index = {c: i for i, c in enumerate(classes)}
    y_idx = np.array([class_index[v] for v in y_test], dtype=np.int64)
    pred_idx = np.argmax(proba, axis=1)
    result = {
        "zero_one": float(np.mean(pred_idx != y_idx)),
        "rmse": metrics.rmse(y_idx, proba, np.arange(len(classes))),
        "rmse_all": metrics.rmse_all_classes(y_idx, proba, np.arange(len(classes))),
        "log_loss": metrics.log_loss(y_idx, proba, np.arange(len(classes))),
        "auc": _safe_auc(y_idx, proba, len(classes)),
        "train_time": train_seconds / max(len(task.train), 1),
        "test_time": test_seconds / max(len(task.test), 1),
        "train_size": len(task.train),
        "test_size": len(task.test),
    }
    chosen_n = getattr(model, "n_", None)  # AnDE(n="auto"): the n it picked
    if isinstance(chosen_n, (int, np.integer)):
        result["chosen_n"] = int(chosen_n)
    return result, pred_idx.astype(np.int16), y_idx.astype(np.int16)


def _safe_auc(y_idx, proba, n_classes):
    if len(np.unique(y_idx)) < 2:
        return float("nan")
    return float(metrics.auc(y_idx, proba, np.arange(n_classes)))


def _write_task(path, result, task, pred, truth, keep_predictions):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    arrays = {"metrics": np.frombuffer(json.dumps(result).encode(), dtype=np.uint8)}
    if keep_predictions:
        arrays["test_index"] = task.test.astype(np.int32)
        arrays["prediction"] = pred
        arrays["truth"] = truth
    with atomic_path(path, suffix=".npz") as tmp:
        np.savez(tmp, **arrays)


def read_task(path):
    """Read a cached task file.

    Parameters
    ----------
    path : str
        The file (:func:`task_path`).

    Returns
    -------
    result : dict
        The task's metrics.
    test_index, prediction, truth : numpy.ndarray or None
        Test rows, predicted and true class indices; None unless the protocol keeps
        predictions.
    """
    try:
        with np.load(path, allow_pickle=False) as archive:
            result = json.loads(archive["metrics"].tobytes().decode())
            if not isinstance(result, dict):
                raise ValueError("its metrics are not a record")
            if "prediction" in archive.files:
                return result, archive["test_index"], archive["prediction"], archive["truth"]
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
        raise InputError(f"the cached task file {path} is corrupt or truncated "
                         f"({type(err).__name__}: {err}); run the same compare command again "
                         "with --retry-failed to compute it again, or delete it") from None
    return result, None, None, None


#: rows per class of the warm-up fit
WARM_UP_ROWS = 8

_warmed = set()


def warm_up(spec_key, task, X, y, config):
    """Compile a learner's kernels before its first timed fold: fit it on a few training
    rows of the task (up to :data:`WARM_UP_ROWS` of every class) and predict a few test
    rows, with the settings of the timed fits, so that the timings measure learning and
    classification, not numba compiling (or reading its compile cache).  The learner is
    fitted twice: as usual, then counting in groups
    (:func:`seminaive.tables.counting.every_call_grouped`), as fits of ``GROUP_PLAN_ROWS``
    rows or more do, so that their kernel is compiled too.  A learner that
    fails on so few rows is left cold (its fold records its own error, if any).

    Parameters
    ----------
    spec_key : str
        Learner key (:func:`seminaive.evaluation.learners.get_learner`).
    task : seminaive.evaluation.protocols.Task
        The first task the learner is timed on.
    X : pandas.DataFrame
        The data set's attributes.
    y : pandas.Series
        Its class labels.
    config : RunConfig
        The run's settings (seed, discretiser, bins).
    """
    labels = y.iloc[task.train].to_numpy()
    rows = np.concatenate([task.train[labels == c][:WARM_UP_ROWS] for c in np.unique(labels)])
    model = get_learner(spec_key).build(random_state=config.seed,
                                        discretizer=config.discretizer, n_bins=config.n_bins)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model.fit(X.iloc[rows], y.iloc[rows].to_numpy())
            with counting.every_call_grouped():  # as fits of 32,768 rows and more count
                model.fit(X.iloc[rows], y.iloc[rows].to_numpy())
            model.predict_proba(X.iloc[task.test[:WARM_UP_ROWS]])
        except Exception:  # too few rows for this learner: it stays cold
            pass


def _run_one(spec_key, task, config, path):
    """Worker: load the data (cached per process), warm the learner up (once per process,
    learner and data set), evaluate, write the task file."""
    X, y = load_dataset(task.dataset, config.max_rows, config.seed, config.target)
    classes = np.unique(y.to_numpy())
    if (spec_key, task.dataset) not in _warmed:
        _warmed.add((spec_key, task.dataset))
        warm_up(spec_key, task, X, y, config)
    try:
        result, pred, truth = evaluate_task(spec_key, task, X, y, classes, config)
    except Exception as err:  # a learner that fails on a data set is recorded, not fatal
        result = {"error": f"{type(err).__name__}: {err}", "train_size": len(task.train),
                  "test_size": len(task.test)}
        pred = np.full(len(task.test), -1, dtype=np.int16)
        truth = np.full(len(task.test), -1, dtype=np.int16)
    _write_task(path, result, task, pred, truth, config.protocol in PREDICTION_PROTOCOLS)
    return spec_key, task.dataset, task.key


def _failed(path):
    """A task recorded as failed, or a task file that cannot be read (truncated, corrupt)."""
    try:
        return "error" in read_task(path)[0]
    except InputError:
        return True


def plan(config, out, retry_failed=False):
    """All (learner, task, path) of a run, and which of them are already done.

    Parameters
    ----------
    config : RunConfig
        The run's settings.
    out : str
        The result directory.
    retry_failed : bool, default=False
        Count a task recorded as failed as not done.

    Returns
    -------
    todo, done : list of tuple
        ``(learner, task, path)`` of the tasks to run and of those already cached.
    """
    todo, done = [], []
    for dataset in config.datasets:
        X, y = load_dataset(dataset, config.max_rows, config.seed, config.target)
        tasks = make_tasks(config.protocol, dataset, y.to_numpy(), config.seed,
                           **config.protocol_params)
        for learner in config.learners:
            for task in tasks:
                path = task_path(out, config, dataset, learner, task.key)
                finished = os.path.exists(path) and not (retry_failed and _failed(path))
                (done if finished else todo).append((learner, task, path))
    return todo, done


def run(config, out, n_jobs=1, progress=True, retry_failed=False):
    """Evaluate every learner on every task not yet in the cache; return the raw results.

    Parameters
    ----------
    config : RunConfig
        Data sets, learners, protocol and settings to evaluate.
    out : str
        Output directory (the cache lives in ``out/raw``).
    n_jobs : int
        Parallel worker processes (joblib).  Timings are per instance and measured inside the
        workers; with several workers sharing cores they are inflated alike for all learners.
    progress : bool
        Show a progress bar (tqdm).
    retry_failed : bool
        Run again the tasks recorded as failed (by default they are kept as failures).

    Returns
    -------
    pandas.DataFrame
        The raw results, one row per (task, learner) (see :func:`collect`).

    Examples
    --------
    >>> import tempfile
    >>> from seminaive.evaluation.runner import RunConfig, run
    >>> config = RunConfig(["kr-vs-kp"], ["nb", "aode"], protocol_params={"folds": 2})
    >>> raw = run(config, tempfile.mkdtemp(), progress=False)
    >>> raw.groupby("learner")["zero_one"].mean().round(2).to_dict()
    {'aode': 0.09, 'nb': 0.12}
    """
    from joblib import Parallel, delayed
    from tqdm.auto import tqdm

    for learner in config.learners:
        get_learner(learner)  # fail fast on unknown names
    if os.path.exists(out) and not os.path.isdir(out):
        raise InputError(f"the output folder {out} is a file: give a folder")
    os.makedirs(out, exist_ok=True)
    settings = {"datasets": config.datasets, "learners": config.learners,
                "protocol": config.protocol, "seed": config.seed,
                "discretizer": config.discretizer, "n_bins": config.n_bins,
                "protocol_params": config.params(), "max_rows": config.max_rows,
                "settings_key": config.settings_key()}
    atomic_write_text(os.path.join(out, "config.json"), json.dumps(settings, indent=2))
    todo, done = plan(config, out, retry_failed)
    bar = tqdm(total=len(todo) + len(done), initial=len(done), disable=not progress,
               desc=f"{config.protocol}", unit="task")
    if n_jobs == 1:
        for learner, task, path in todo:
            _run_one(learner, task, config, path)
            bar.update()
    else:
        env = os.environ.get("NUMBA_NUM_THREADS")
        os.environ["NUMBA_NUM_THREADS"] = "1"  # one kernel thread per worker process
        try:
            jobs = (delayed(_run_one)(learner, task, config, path)
                    for learner, task, path in todo)
            for _ in Parallel(n_jobs=n_jobs, return_as="generator_unordered")(jobs):
                bar.update()
        finally:
            if env is None:
                os.environ.pop("NUMBA_NUM_THREADS", None)
            else:
                os.environ["NUMBA_NUM_THREADS"] = env
    bar.close()
    return collect(out)


def collect(out):
    """All cached task results under ``out/raw`` as one tidy DataFrame.

    Columns: settings, protocol, dataset, learner, repeat, fold, the metrics of
    ``METRICS``, train_time and test_time (seconds per instance), train_size, test_size,
    error (message of a failed task, else empty).

    Parameters
    ----------
    out : str
        A directory written by :func:`run`.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import tempfile
    >>> from seminaive.evaluation.runner import RunConfig, collect, run
    >>> out = tempfile.mkdtemp()
    >>> _ = run(RunConfig(["kr-vs-kp"], ["nb"], protocol_params={"folds": 2}), out,
    ...         progress=False)
    >>> len(collect(out))  # one row per (learner, fold)
    2
    """
    rows = []
    root = os.path.join(out, "raw")
    if not os.path.isdir(root):
        return pd.DataFrame()
    for settings in sorted(os.listdir(root)):
        for dataset in sorted(os.listdir(os.path.join(root, settings))):
            for learner in sorted(os.listdir(os.path.join(root, settings, dataset))):
                folder = os.path.join(root, settings, dataset, learner)
                for name in sorted(os.listdir(folder)):
                    if not name.endswith(".npz") or ".tmp-" in name:
                        continue
                    result = read_task(os.path.join(folder, name))[0]
                    repeat, fold = name[:-4].split("-")
                    rows.append({"settings": settings, "protocol": settings.split("-")[0],
                                 "dataset": dataset, "learner": learner,
                                 "repeat": int(repeat[1:]), "fold": int(fold[1:]),
                                 **result})
    frame = pd.DataFrame(rows)
    if "error" not in frame:
        frame["error"] = ""
    frame["error"] = frame["error"].fillna("")
    return frame


def predictions(out, settings, dataset, learner):
    """Predictions of a bias/variance run of one learner on one data set.

    Parameters
    ----------
    out : str
        The result directory.
    settings : str
        The settings key (:meth:`RunConfig.settings_key`).
    dataset, learner : str
        Data set name and learner key.

    Returns
    -------
    tuple of (numpy.ndarray, numpy.ndarray) or None
        ``(matrix, truth)``: ``matrix`` is (n_rows, n_repeats) predicted class indices, -1
        where a row was not predicted in a repeat, and ``truth`` the true class index of every
        row (-1 for rows never tested).  None if the run kept no predictions.
    """
    folder = os.path.join(out, "raw", settings, dataset, learner)
    parts = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".npz") and ".tmp-" not in name:
            repeat = int(name[1:4])
            _, index, pred, truth = read_task(os.path.join(folder, name))
            if index is not None:
                parts.append((repeat, index, pred, truth))
    if not parts:
        return None
    n_rows = max(int(p[1].max()) for p in parts) + 1
    n_repeats = max(p[0] for p in parts) + 1
    matrix = np.full((n_rows, n_repeats), -1, dtype=np.int64)
    truth_all = np.full(n_rows, -1, dtype=np.int64)
    for repeat, index, pred, truth in parts:
        matrix[index, repeat] = pred
        truth_all[index] = truth
    return matrix, truth_all
