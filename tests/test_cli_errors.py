"""Every wrong input on the command line, command by command: exit status 2 and one line on
standard error that says what to change, never a traceback; outputs checked before any work
and never written over a device, a folder or an input."""

import os
import stat
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import seminaive
from seminaive import NaiveBayes
from seminaive.cli import main

RNG = np.random.default_rng(0)
N = 300


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("cli-errors")
    frame = pd.DataFrame({"a": RNG.choice(["x", "y", "z"], N), "num": RNG.normal(size=N),
                          "label": RNG.choice(["p", "q"], N)})
    frame.to_csv(root / "train.csv", index=False)
    frame.drop(columns="label").to_csv(root / "test.csv", index=False)
    X, y = frame.drop(columns="label"), frame["label"]
    NaiveBayes().fit(X, y).save(root / "model.npz")
    (root / "garbage.npz").write_bytes(b"PK\x03\x04 not a model at all")
    os.mkfifo(root / "fifo.csv")
    os.mkfifo(root / "fifo.npz")
    (root / "folder.npz").mkdir()
    return root


def _run(argv, capsys):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.err


def _refused(argv, capsys, *fragments):
    code, err = _run(argv, capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("seminaive"), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err
    return err


def _listing(directory):
    return sorted(os.listdir(directory))


# ---------------------------------------------------------------------------------- fit
def test_fit_refusals(files, tmp_path, capsys):
    data = files / "train.csv"
    base = ["fit", data, "--target", "label", "--quiet"]
    _refused(base + ["--learner", "zz", "-o", tmp_path / "m.npz"], capsys,
             "unknown learner 'zz'", "KDB (kdb1, kdb2", "NaiveBayes (nb")
    _refused(base + ["--learner", "rf10", "-o", tmp_path / "m.npz"], capsys,
             "scikit-learn comparator")
    _refused(base + ["--learner", "nb", "--param", "max_table_bytes=1",
                     "-o", tmp_path / "m.npz"], capsys, "max_table_bytes")
    _refused(base + ["--learner", "AODE", "--param", "random_state={'a':1}",
                     "-o", tmp_path / "m.npz"], capsys, "random_state")
    _refused(base + ["--learner", "nb", "--param", "k", "-o", tmp_path / "m.npz"], capsys,
             "NAME=VALUE")
    _refused(base + ["--learner", "nb", "--param", "nonsense=1", "-o", tmp_path / "m.npz"],
             capsys, "has no parameter nonsense")
    _refused(base + ["--learner", "nb", "-o", tmp_path], capsys, "it is a folder")
    _refused(base + ["--learner", "nb", "-o", tmp_path / "missing" / "m.npz"], capsys,
             "does not exist; create it first")
    _refused(base + ["--learner", "nb", "-o", tmp_path / "m.csv"], capsys,
             "a model file is written as .npz")
    _refused(["fit", data, "--learner", "nb", "-o", tmp_path / "m.npz"], capsys, "--target")
    _refused(base[:1] + [files / "nothing.csv"] + base[2:] + ["--learner", "nb",
                                                              "-o", tmp_path / "m.npz"],
             capsys, "no such file", "(the data file)")
    _refused(["fit", files / "fifo.csv", "--target", "label", "--learner", "nb",
              "-o", tmp_path / "m.npz"], capsys, "not a regular file")
    _refused(["fit", data, "--target", "nope", "--learner", "nb", "-o", tmp_path / "m.npz",
              "--quiet"], capsys, "nope")
    _refused(base + ["--learner", "nb", "--chunk-rows", "0", "-o", tmp_path / "m.npz"],
             capsys, "too small")
    assert _listing(tmp_path) == []


def test_fit_checks_the_output_before_training(files, tmp_path, capsys, monkeypatch):
    def must_not_train(*args, **kwargs):
        raise AssertionError("trained before checking the output")

    monkeypatch.setattr(NaiveBayes, "fit_stream", must_not_train)
    _refused(["fit", files / "train.csv", "--target", "label", "--learner", "nb",
              "-o", tmp_path / "no" / "m.npz"], capsys, "does not exist")


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="needs /dev/null")
def test_a_device_is_never_replaced(files, capsys):
    before = os.stat("/dev/null")
    _refused(["fit", files / "train.csv", "--target", "label", "--learner", "nb",
              "-o", "/dev/null"], capsys)
    _refused(["predict", files / "model.npz", files / "test.csv", "-o", "/dev/null"],
             capsys)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_fit_writes_with_the_umask_mode(files, tmp_path, capsys):
    old = os.umask(0o022)
    try:
        assert main(["fit", str(files / "train.csv"), "--target", "label", "--learner",
                     "nb", "-o", str(tmp_path / "m.npz"), "--quiet"]) == 0
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "m.npz").st_mode & 0o777 == 0o644
    assert _listing(tmp_path) == ["m.npz"]


# ------------------------------------------------------------------------------ predict
def test_predict_refusals(files, tmp_path, capsys):
    model, data = files / "model.npz", files / "test.csv"
    _refused(["predict", files / "none.npz", data, "-o", tmp_path / "p.csv"], capsys,
             "no such file", "(the model file)")
    _refused(["predict", files / "folder.npz", data, "-o", tmp_path / "p.csv"], capsys,
             "is a folder")
    _refused(["predict", files / "fifo.npz", data, "-o", tmp_path / "p.csv"], capsys,
             "not a regular file")
    _refused(["predict", files / "garbage.npz", data, "-o", tmp_path / "p.csv"], capsys,
             "garbage.npz")
    _refused(["predict", model, files / "none.csv", "-o", tmp_path / "p.csv"], capsys,
             "no such file", "(the data file)")
    _refused(["predict", model, files / "fifo.csv", "-o", tmp_path / "p.csv"], capsys,
             "not a regular file")
    _refused(["predict", model, data, "-o", tmp_path / "p.tsv"], capsys,
             ".csv or .parquet", ".tsv is not one of them")
    _refused(["predict", model, data, "-o", tmp_path / "p"], capsys, "the name has none")
    _refused(["predict", model, data, "-o", tmp_path / "x" / "p.csv"], capsys,
             "does not exist")
    (tmp_path / "dir.csv").mkdir()
    _refused(["predict", model, data, "-o", tmp_path / "dir.csv"], capsys, "a folder")
    assert _listing(tmp_path) == ["dir.csv"]


def test_predict_never_overwrites_its_input(files, tmp_path, capsys):
    data = tmp_path / "rows.csv"
    data.write_bytes((files / "test.csv").read_bytes())
    before = data.read_bytes()
    _refused(["predict", files / "model.npz", data, "-o", data], capsys, "it is the input")
    assert data.read_bytes() == before and _listing(tmp_path) == ["rows.csv"]


def test_predict_names_the_column_and_row_of_a_text_value(files, tmp_path, capsys):
    frame = pd.read_csv(files / "test.csv").astype({"num": object})
    frame.loc[123, "num"] = "unknown"
    frame.to_csv(tmp_path / "bad.csv", index=False)
    err = _refused(["predict", files / "model.npz", tmp_path / "bad.csv",
                    "-o", tmp_path / "p.csv", "--quiet"], capsys,
                   "column 'num'", "line 125", "the value 'unknown' is not a double",
                   "leave it empty")
    assert "declare nominal columns in categorical_features" not in err
    assert _listing(tmp_path) == ["bad.csv"]


# ------------------------------------------------------------------------------ inspect
def test_inspect_refusals(files, capsys):
    _refused(["inspect", files / "none.npz"], capsys, "no such file", "(the model file)")
    _refused(["inspect", files / "folder.npz"], capsys, "is a folder")
    _refused(["inspect", files / "fifo.npz"], capsys, "not a regular file")
    _refused(["inspect", files / "garbage.npz"], capsys, "garbage.npz")


def test_inspect_escapes_and_quotes_values_from_the_file(tmp_path, capsys):
    hostile = "\x1b]0;owned\x07\x1b[31mred"
    X = pd.DataFrame({"colour": ["a, b, c", "d", hostile, "d"] * 5,
                      f"name{hostile}": ["u", "v"] * 10})
    y = [f"yes{hostile}", "no"] * 10
    NaiveBayes().fit(X, y).save(tmp_path / "m.npz")
    assert main(["inspect", str(tmp_path / "m.npz")]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b]0;owned\\x07" in out
    # one value that holds commas is quoted: it does not read as three values
    assert "colour: nominal, 3 values ['\\x1b]0;owned\\x07\\x1b[31mred', 'a, b, c', d]" in out
    assert "Classes (2): no, 'yes\\x1b" in out


# --------------------------------------------------------------------------------- demo
def test_demo_refusals(capsys):
    _refused(["demo", "--folds", "1"], capsys, "--folds", "give 2 or more")
    _refused(["demo", "--folds", "x"], capsys, "not an integer")


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"seminaive {seminaive.__version__}"
    with pytest.raises(SystemExit):
        main(["fit", "--help"])
    text = capsys.readouterr().out
    assert "kdb5-hdp" in text and "NaiveBayes" in text and "MDL" in text
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default: equal_frequency" in text and "default to MDL" in text
    assert "-o FOLDER, --output FOLDER, --out FOLDER" in text


# ------------------------------------------------------------------------ compare, report
def test_compare_and_report_refusals(files, tmp_path, capsys):
    data = str(files / "train.csv")
    _refused(["compare", "--data", data, "--learners", "nb,zz", "-o", tmp_path / "r"],
             capsys, "unknown learner 'zz'")
    (tmp_path / "file").write_text("x")
    _refused(["compare", "--data", data, "--learners", "nb", "-o", tmp_path / "file"],
             capsys, "is a file")
    _refused(["compare", "--data", "no-such-set", "--learners", "nb", "-o", tmp_path / "r"],
             capsys, "no-such-set")
    assert not (tmp_path / "r").exists()  # nothing created for a run that cannot start
    _refused(["compare", "--data", data, "--learners", "nb", "--folds", "1",
              "-o", tmp_path / "r"], capsys, "give 2 or more")
    _refused(["report", tmp_path / "nowhere"], capsys, "no result folder")
    assert not (tmp_path / "nowhere").exists()
    (tmp_path / "empty").mkdir()
    _refused(["report", tmp_path / "empty", "--comparisons", "nope"], capsys,
             "unknown comparison(s) nope")
    _refused(["report", tmp_path / "empty", "-o", tmp_path / "no" / "r.md"], capsys,
             "does not exist")
    _refused(["report", tmp_path / "empty", "--preamble", tmp_path / "none.md"], capsys,
             "(the preamble file)")
    assert _listing(tmp_path / "empty") == []


def test_compare_cache_truncated_then_retried(files, tmp_path, capsys):
    out = tmp_path / "run"
    argv = ["compare", "--data", str(files / "train.csv"), "--target", "label",
            "--learners", "nb", "--folds", "2", "--quiet", "--output", str(out)]
    old = os.umask(0o022)
    try:
        assert main(argv) == 0
    finally:
        os.umask(old)
    capsys.readouterr()
    for name in ("raw.csv", "summary.csv", "config.json", "report.md"):
        assert os.stat(out / name).st_mode & 0o777 == 0o644
    leftovers = [os.path.join(d, f) for d, _, names in os.walk(out) for f in names
                 if ".tmp-" in f]
    assert leftovers == []
    tasks = sorted(str(p) for p in out.rglob("r000-f*.npz"))
    assert len(tasks) == 2
    expected = pd.read_csv(out / "raw.csv")
    with open(tasks[0], "r+b") as fh:
        fh.truncate(40)
    _refused(argv, capsys, tasks[0], "--retry-failed")
    _refused(["report", str(out)], capsys, tasks[0])
    assert main(argv + ["--retry-failed"]) == 0
    again = pd.read_csv(out / "raw.csv")
    pd.testing.assert_frame_equal(again.drop(columns=["train_time", "test_time"]),
                                  expected.drop(columns=["train_time", "test_time"]))


def test_report_output_aliases(files, tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    for option in ("-o", "--output", "--markdown"):
        target = tmp_path / f"r{option.strip('-')}.md"
        assert main(["report", str(tmp_path / "empty"), option, str(target)]) == 0
        assert target.read_text() == "# Results\n"


def test_the_installed_command_exits_2_without_a_traceback(tmp_path):
    result = subprocess.run([sys.executable, "-m", "seminaive.cli", "inspect",
                             str(tmp_path / "missing.npz")], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == (f"seminaive inspect: no such file: {tmp_path}/missing.npz "
                             "(the model file)\n")


@pytest.mark.slow  # two predict processes on 60,000 rows each: minutes on a busy machine
@pytest.mark.parametrize("signame", ["SIGTERM", "SIGKILL"])
def test_a_stopped_predict_leaves_no_temporary_file_once_run_again(files, tmp_path, signame):
    import signal
    import time

    rows = pd.DataFrame({"a": RNG.choice(["x", "y", "z"], 60_000),
                         "num": RNG.normal(size=60_000)})
    rows.to_csv(tmp_path / "big.csv", index=False)
    out = tmp_path / "p.csv"
    argv = [sys.executable, "-m", "seminaive.cli", "predict", str(files / "model.npz"),
            str(tmp_path / "big.csv"), "-o", str(out), "--chunk-rows", "200", "--quiet"]
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while not any(".p.csv.tmp-" in n for n in os.listdir(tmp_path)):
            assert proc.poll() is None and time.time() < deadline, "no temporary file seen"
            time.sleep(0.02)
        proc.send_signal(getattr(signal, signame))
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == -getattr(signal, signame)
    left = [n for n in os.listdir(tmp_path) if ".tmp-" in n]
    assert len(left) == (1 if signame == "SIGKILL" else 0) and not out.exists()
    assert subprocess.run(argv, capture_output=True).returncode == 0  # the same command
    assert _listing(tmp_path) == ["big.csv", "p.csv"]
    assert len(pd.read_csv(out)) == 60_000
