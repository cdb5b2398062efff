"""First use: where the compiled kernels are cached, the notice printed when they are
compiled, and the warm-up of ``seminaive compare`` before its first timed fold."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

from seminaive import __version__
from seminaive.kernels import _cache

ROOT = Path(__file__).resolve().parents[2]


def test_cache_dir_env_override_and_version_key(tmp_path):
    key = _cache.cache_key()
    assert __version__ in key and f"numba{numba.__version__}" in key
    assert key.endswith(f"py{sys.version_info[0]}{sys.version_info[1]}")
    ours = _cache.cache_dir({"SEMINAIVE_CACHE_DIR": str(tmp_path),
                             "NUMBA_CACHE_DIR": "/elsewhere"})
    assert ours == tmp_path / key  # the package's variable wins
    numbas = _cache.cache_dir({"NUMBA_CACHE_DIR": str(tmp_path)})
    assert numbas == tmp_path / "seminaive" / key  # a user's numba cache is respected
    default = _cache.cache_dir({})
    assert default.name == key and "seminaive" in default.parts
    assert default != _cache.cache_dir({"SEMINAIVE_CACHE_DIR": str(tmp_path)})


def test_every_kernel_of_the_package_uses_the_package_cache():
    from numba.core.dispatcher import Dispatcher

    import seminaive  # noqa: F401  (every kernel module)
    from seminaive.kernels import _jit

    _jit.load()  # as the first call of a kernel: every kernel's dispatcher, rebound
    found = 0
    for name, module in list(sys.modules.items()):
        if not name.startswith("seminaive"):
            continue
        for obj in vars(module).values():
            assert not isinstance(obj, _jit.LazyKernel), (name, obj)
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == name:
                impl = obj._cache._impl
                assert isinstance(impl.locator, _cache.PackageCacheLocator), obj
                assert Path(impl.locator.get_cache_path()).is_relative_to(_cache.cache_dir())
                found += 1
    assert found > 50


def test_source_stamp_keys_on_the_kernel_sources():
    stamp = _cache._sources_stamp()
    assert isinstance(stamp, str) and len(stamp) == 64
    assert stamp == _cache._sources_stamp()  # computed once per process


_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import seminaive
    from seminaive.datasets import make_random_bn
    from seminaive.kernels import _cache

    X, y, _ = make_random_bn(60, n_attributes=3, n_values=2, random_state=0)
    seminaive.NaiveBayes().fit(X, y).predict_proba(X)
    seminaive.NaiveBayes().fit(X, y).predict_proba(X)
    from seminaive.tables import wide
    if wide._predict_scores_wide.signatures:
        print("_predict_scores_wide")
    print(json.dumps(str(_cache.cache_dir())))
""")


def _run_script(cache, notice="1"):
    env = dict(os.environ, SEMINAIVE_CACHE_DIR=str(cache), SEMINAIVE_COMPILE_NOTICE=notice,
               PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True,
                          env=env, timeout=1800, cwd=str(cache))
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_notice_once_on_a_cold_cache_then_quiet(tmp_path):
    """A fresh process with an empty cache says once that it compiles NaiveBayes's kernels
    (two fits, one line) and fills the cache; a second process, cached, says nothing."""
    first = _run_script(tmp_path)
    lines = [line for line in first.stderr.splitlines() if line.startswith("seminaive:")]
    assert lines == ["seminaive: compiling kernels for NaiveBayes "
                     "(first use; cached afterwards)..."]
    # the wide kernel, compiled with numba's parallel pipeline but no parfor, compiled
    # here (it scores these rows) without numba's warning that nothing was made parallel
    assert "_predict_scores_wide" in first.stdout
    assert "NumbaPerformanceWarning" not in first.stderr
    cache = Path(json.loads(first.stdout.strip().splitlines()[-1]))
    assert cache.parent == tmp_path and any(cache.rglob("*.nbi"))
    second = _run_script(tmp_path)
    assert "seminaive:" not in second.stderr


def test_notice_can_be_silenced(tmp_path):
    done = _run_script(tmp_path, notice="0")
    assert "seminaive:" not in done.stderr


_WARM_SCRIPT = textwrap.dedent("""
    import json, sys, tempfile
    from numba.core.dispatcher import Dispatcher
    from seminaive.evaluation import runner

    def signatures():
        total = 0
        for name, module in list(sys.modules.items()):
            if name.startswith("seminaive"):
                for obj in list(vars(module).values()):
                    if isinstance(obj, Dispatcher):
                        total += len(obj.overloads)
        return total

    timed = []
    evaluate = runner.evaluate_task

    def watched(*args, **kwargs):
        before = signatures()
        out = evaluate(*args, **kwargs)
        timed.append(signatures() - before)
        return out

    runner.evaluate_task = watched
    warm = sys.argv[1] == "warm"
    if not warm:
        runner.warm_up = lambda *args: None
    config = runner.RunConfig(["kr-vs-kp"], ["nb"], protocol_params={"folds": 2})
    runner.run(config, tempfile.mkdtemp(), progress=False)
    print(json.dumps(timed))
""")


@pytest.mark.parametrize("mode", ["warm", "cold"])
def test_compare_warms_up_before_the_first_timed_fold(mode):
    """No kernel is compiled or read from the compile cache inside a timed fold once the
    learner is warmed up (without the warm-up, the first fold would load them)."""
    done = subprocess.run([sys.executable, "-c", _WARM_SCRIPT, mode], capture_output=True,
                          text=True, timeout=1800, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    added = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(added) == 2
    if mode == "warm":
        assert added == [0, 0]
    else:  # the check above can fail: this is what it sees without the warm-up
        assert added[0] > 0 and added[1] == 0


_GROUPED_SCRIPT = textwrap.dedent("""
    import json, sys
    from types import SimpleNamespace
    import numpy as np, pandas as pd
    from seminaive.evaluation import runner
    from seminaive.evaluation.learners import get_learner
    from seminaive.tables import counting

    rng = np.random.default_rng(3)
    n = counting.GROUP_PLAN_ROWS + 1000  # a fit that counts in groups
    X = pd.DataFrame({f"a{j}": pd.Categorical(rng.choice(list("pqrst"), n))
                      for j in range(6)})
    y = pd.Series(rng.choice(["u", "v"], n))
    task = SimpleNamespace(train=np.arange(n), test=np.arange(50), dataset="synthetic")
    config = runner.RunConfig(["synthetic"], ["aode"])
    if sys.argv[1] == "warm":
        runner.warm_up("aode", task, X, y, config)
    warmed = len(counting._count_groups.overloads)
    plans = []
    plan_of = counting._plan_of
    counting._plan_of = lambda *a, **k: plans.append(1) or plan_of(*a, **k)
    get_learner("aode").build(random_state=0).fit(X, y.to_numpy())
    print(json.dumps([warmed, len(counting._count_groups.overloads), len(plans)]))
""")


@pytest.mark.parametrize("mode", ["warm", "cold"])
def test_the_warm_up_compiles_the_grouped_counting(mode):
    """The warm-up fit of a few rows counts in groups, as a fit of ``GROUP_PLAN_ROWS`` rows
    does: that fit then compiles nothing more of the grouped counting (its kernel's
    signatures, those of the warm-up); without the warm-up, the fit compiles it."""
    done = subprocess.run([sys.executable, "-c", _GROUPED_SCRIPT, mode], capture_output=True,
                          text=True, timeout=1800, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert done.returncode == 0, done.stderr[-3000:]
    warmed, after, plans = json.loads(done.stdout.strip().splitlines()[-1])
    assert plans >= 1  # the large fit counted in groups
    if mode == "warm":
        assert warmed >= 1 and after == warmed
    else:  # the check above can fail: this is what it sees without the warm-up
        assert warmed == 0 and after >= 1


def test_warm_up_called_once_per_learner_and_data_set(monkeypatch, tmp_path):
    from seminaive.evaluation import runner

    calls = []
    monkeypatch.setattr(runner, "_warmed", set())
    monkeypatch.setattr(runner, "warm_up", lambda key, task, *rest: calls.append(
        (key, task.dataset, task.fold)))
    config = runner.RunConfig(["kr-vs-kp"], ["nb", "aode"], protocol_params={"folds": 2})
    runner.run(config, str(tmp_path), progress=False)
    assert sorted(calls) == [("aode", "kr-vs-kp", 0), ("nb", "kr-vs-kp", 0)]


def test_notice_names_each_learner_whose_kernels_compile(monkeypatch, capsys):
    """One line per learner in whose fit or predict a kernel of the package compiles (the
    outermost estimator on the stack), none for a learner already named, and a line
    without a name for kernels compiled outside any learner."""
    from types import SimpleNamespace

    import seminaive
    from seminaive.tables import counting

    monkeypatch.setattr(_cache, "_noticed", set())
    monkeypatch.setenv(_cache.NOTICE_ENV, "1")
    listener = _cache._CompileNotice()
    ours = SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=counting.regrid.py_func)})
    theirs = SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=len)})

    def fit(self, inner=None):  # a learner's method: ``self`` is on the stack
        if inner is not None:
            return fit(inner)
        listener.on_start(ours)
        listener.on_start(theirs)  # not a kernel of the package: no notice

    fit(seminaive.NaiveBayes())
    fit(seminaive.AODE())
    fit(seminaive.NaiveBayes())  # named already
    fit(seminaive.KDB(), inner=seminaive.NaiveBayes())  # the outermost learner is named
    listener.on_start(ours)  # outside any learner
    lines = capsys.readouterr().err.splitlines()
    assert lines == [f"seminaive: compiling kernels{what} (first use; cached afterwards)..."
                     for what in (" for NaiveBayes", " for AODE", " for KDB", "")]


def test_a_kernel_compiling_on_a_worker_thread_is_named_after_the_callers_learner():
    """The loops that run on Python threads (:mod:`seminaive.kernels._threads`) may compile a
    kernel in a worker thread: its learner is found on the stack of the thread that
    started the loop."""
    import threading

    import seminaive
    from seminaive.kernels import _caller, _threads

    seen = []

    def kernel(part):
        seen.append((part, threading.current_thread() is threading.main_thread(),
                     (lambda: _cache._learner_name())()))

    def fit(self):
        _threads.parallel_calls(kernel, [(0,), (1,), (2,), (3,)])

    fit(seminaive.AODE())
    assert sorted(part for part, _, _ in seen) == [0, 1, 2, 3]
    assert {name for _, _, name in seen} == {"AODE"}
    if numba.get_num_threads() > 1:  # some part ran on a worker thread
        assert not all(main for _, main, _ in seen)
    assert _caller.caller_frame() is None  # not in a worker thread
