"""Outputs that never lose data: on any failure the previous file is untouched and no
partial or temporary file remains (model files, predict_stream, experiment task files,
reports)."""

import contextlib
import os
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import seminaive
from seminaive import AODE
from seminaive.datasets import load_kr_vs_kp
from seminaive.streaming import predict_stream


@pytest.fixture(scope="module")
def fitted():
    X, y = load_kr_vs_kp()
    return AODE().fit(X, y), X, y


def _listing(directory):
    return sorted(os.listdir(directory))


def test_predict_stream_failing_midway_keeps_the_previous_output(fitted, tmp_path,
                                                                 monkeypatch):
    from seminaive.streaming import _predict as streaming  # where predict_stream looks

    model, X, _ = fitted
    out = tmp_path / "preds.parquet"
    predict_stream(model, X.iloc[:100], out, chunk_rows=50)
    before = pd.read_parquet(out)
    real = streaming.prediction_columns
    calls = []

    def fails_on_the_third_chunk(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the source failed midway")
        return real(*args, **kwargs)

    monkeypatch.setattr(streaming, "prediction_columns", fails_on_the_third_chunk)
    with pytest.raises(RuntimeError, match="midway"):
        predict_stream(model, X.iloc[:500], out, chunk_rows=100)
    assert len(calls) == 3  # two chunks were written before the failure
    pd.testing.assert_frame_equal(pd.read_parquet(out), before)
    assert _listing(tmp_path) == ["preds.parquet"]


def test_predict_stream_with_no_rows_writes_nothing(fitted, tmp_path):
    model, X, _ = fitted
    out = tmp_path / "preds.parquet"
    with pytest.raises(seminaive.exceptions.InputError, match="no rows"):
        predict_stream(model, X.iloc[:0], out)
    assert _listing(tmp_path) == []


def test_failed_save_keeps_the_previous_model(fitted, tmp_path, monkeypatch):
    model, X, _ = fitted
    path = tmp_path / "model.npz"
    model.save(path)
    expected = seminaive.load(path).predict_proba(X.iloc[:5])

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(OSError, match="disk full"):
        model.save(path)
    monkeypatch.undo()
    np.testing.assert_array_equal(seminaive.load(path).predict_proba(X.iloc[:5]), expected)
    assert _listing(tmp_path) == ["model.npz"]


def test_failed_task_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    from seminaive.evaluation import runner

    def broken(*args, **kwargs):
        raise OSError("disk full")

    path = tmp_path / "raw" / "r000-f00.npz"
    monkeypatch.setattr(np, "savez", broken)
    task = type("T", (), {"test": np.arange(3)})()
    with pytest.raises(OSError):
        runner._write_task(str(path), {"zero_one": 0.5}, task, np.zeros(3), np.zeros(3), True)
    assert _listing(path.parent) == []


# ---------------------------------------------------------------- only regular files
def test_refuses_a_folder_a_fifo_a_device_and_the_input(tmp_path):
    from seminaive._atomic import atomic_path, check_output

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = tmp_path / "data.csv"
    data.write_text("a,b\n1,2\n")
    cases = {tmp_path: "a folder", fifo: "a FIFO", "/dev/null": "a device"}
    for target, kind in cases.items():
        with pytest.raises(seminaive.exceptions.InputError, match=kind):
            with atomic_path(target):
                pytest.fail("the block must not run")
    with pytest.raises(seminaive.exceptions.InputError, match="it is the input"):
        check_output(data, inputs=[data])
    link = tmp_path / "link.csv"
    link.symlink_to(data)
    with pytest.raises(seminaive.exceptions.InputError, match="it is the input"):
        check_output(link, inputs=[data])
    with pytest.raises(seminaive.exceptions.InputError, match="does not exist; create it"):
        check_output(tmp_path / "missing" / "out.csv")
    assert data.read_text() == "a,b\n1,2\n" and _listing(tmp_path) == [
        "data.csv", "link.csv", "pipe"]
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_a_link_to_a_regular_file_is_kept_and_its_file_replaced(tmp_path):
    from seminaive._atomic import atomic_write_text

    real = tmp_path / "real.md"
    real.write_text("old")
    link = tmp_path / "link.md"
    link.symlink_to(real)
    atomic_write_text(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_modes_follow_the_replaced_file_or_the_umask(tmp_path):
    from seminaive._atomic import atomic_write_text

    old = os.umask(0o027)
    try:
        atomic_write_text(tmp_path / "new.txt", "x")
        assert os.stat(tmp_path / "new.txt").st_mode & 0o777 == 0o640
        os.umask(0o002)
        atomic_write_text(tmp_path / "other.txt", "x")
        assert os.stat(tmp_path / "other.txt").st_mode & 0o777 == 0o664
        os.chmod(tmp_path / "new.txt", 0o604)
        atomic_write_text(tmp_path / "new.txt", "y")
        assert os.stat(tmp_path / "new.txt").st_mode & 0o777 == 0o604
    finally:
        os.umask(old)


def test_stale_temporaries_of_the_same_target_are_swept(tmp_path):
    import time

    from seminaive._atomic import STALE_SECONDS, atomic_write_text

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead_pid = int(dead.stdout)  # that process has ended
    left = tmp_path / f".out.csv.tmp-{dead_pid}-0a1b2c3d"
    running = tmp_path / f".out.csv.tmp-{os.getppid()}-0a1b2c3d"  # a live writer's
    legacy_old = tmp_path / ".out.csv.tmp-op751dz3"
    legacy_new = tmp_path / ".out.csv.tmp-zz751dz3"
    other = tmp_path / f".other.csv.tmp-{dead_pid}-0a1b2c3d"
    same_id = tmp_path / f".out.csv.tmp-{os.getpid()}-0a1b2c3d"  # an earlier process's
    for path in (left, running, legacy_old, legacy_new, other, same_id):
        path.write_text("partial")
    past = time.time() - STALE_SECONDS - 60
    os.utime(legacy_old, (past, past))
    atomic_write_text(tmp_path / "out.csv", "done")
    assert _listing(tmp_path) == sorted(
        [running.name, legacy_new.name, other.name, "out.csv"])


def test_handlers_are_restored_and_threads_can_write(tmp_path):
    import threading

    from seminaive._atomic import atomic_path, atomic_write_text

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with atomic_path(tmp_path / "a.txt") as tmp:
        assert signal.getsignal(signal.SIGTERM) is not before[0]
        open(tmp, "w").close()
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before
    errors = []

    def write(i):
        try:
            atomic_write_text(tmp_path / f"t{i}.txt", str(i))
        except Exception as err:  # pragma: no cover - the assertion below reports it
            errors.append(err)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and (tmp_path / "t3.txt").read_text() == "3"
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


# The writer sets SIGINT as an interactive Python starts (KeyboardInterrupt), or ignored as
# a background job of a shell starts: the test command itself may run with SIGINT ignored,
# and a child inherits that.
_WRITER = """
import signal, sys, time
from seminaive._atomic import atomic_path
signal.signal(signal.SIGINT, signal.SIG_IGN if sys.argv[2] == "ignored"
              else signal.default_int_handler)
with atomic_path(sys.argv[1]) as tmp:
    with open(tmp, "w") as fh:
        fh.write("partial")
    print("writing", flush=True)
    time.sleep(60)
"""


@contextlib.contextmanager
def _writer(target, sigint):
    """A process in the middle of writing ``target`` (whose previous text is "previous"),
    SIGINT ``"interactive"`` or ``"ignored"``; killed on leaving the block."""
    target.write_text("previous")
    proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(target), sigint],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
        yield proc
    finally:
        proc.kill()


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGINT"])
def test_a_signal_removes_the_temporary_file(tmp_path, signame):
    target = tmp_path / "out.csv"
    with _writer(target, "interactive") as proc:
        assert len(_listing(tmp_path)) == 2  # the target and its temporary file
        proc.send_signal(getattr(signal, signame))
        proc.wait(timeout=60)
    if signame == "SIGTERM":
        assert proc.returncode == -signal.SIGTERM  # stopped as the signal stops it
    else:
        assert "KeyboardInterrupt" in proc.stderr.read()
    assert _listing(tmp_path) == ["out.csv"] and target.read_text() == "previous"


def test_an_ignored_sigint_stays_ignored_and_sigterm_still_cleans_up(tmp_path):
    target = tmp_path / "out.csv"
    with _writer(target, "ignored") as proc:
        proc.send_signal(signal.SIGINT)
        with pytest.raises(subprocess.TimeoutExpired):
            proc.wait(timeout=1)  # ignored before the write, so the write goes on
        assert len(_listing(tmp_path)) == 2
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGTERM
    assert _listing(tmp_path) == ["out.csv"] and target.read_text() == "previous"


def test_predict_stream_refuses_to_write_over_its_source(fitted, tmp_path):
    model, X, _ = fitted
    path = tmp_path / "rows.csv"
    X.iloc[:50].to_csv(path, index=False)
    before = path.read_bytes()
    with pytest.raises(seminaive.exceptions.InputError, match="it is the input"):
        predict_stream(model, str(path), path)
    assert path.read_bytes() == before and _listing(tmp_path) == ["rows.csv"]


def test_report_on_a_missing_folder_creates_nothing(tmp_path):
    from seminaive.evaluation import report

    with pytest.raises(seminaive.exceptions.InputError, match="no result folder"):
        report.render(str(tmp_path / "nowhere"))
    assert _listing(tmp_path) == []


def test_after_kill_9_the_next_write_sweeps_the_temporary_file(tmp_path):
    from seminaive._atomic import atomic_write_text

    target = tmp_path / "out.csv"
    with _writer(target, "interactive") as proc:
        proc.send_signal(signal.SIGKILL)  # no handler runs: the temporary file stays
        proc.wait(timeout=60)
    assert len(_listing(tmp_path)) == 2 and target.read_text() == "previous"
    atomic_write_text(target, "again")  # the same target written again
    assert _listing(tmp_path) == ["out.csv"] and target.read_text() == "again"
