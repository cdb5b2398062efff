"""Evaluation protocols, the resumable runner, reports and the compare/report CLI."""

import os

import numpy as np
import pandas as pd
import pytest

from seminaive.cli import main
from seminaive.evaluation import protocols, report, runner
from seminaive.evaluation.learners import LEARNERS, get_learner


def test_curve_sizes_follow_seed_000_progression():
    # Adult: 48,842 rows, 1,000 test rows -> 23 ... 47,104 (Webb et al. 2012, §4.1)
    sizes = protocols.curve_sizes(48_842 - 1000)
    assert sizes[0] == 23 and sizes[-1] == 47_104
    assert all(b == 2 * a for a, b in zip(sizes, sizes[1:], strict=False))
    assert protocols.curve_sizes(22) == []


def test_cv_tasks_partition_rows_and_are_deterministic():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    tasks = protocols.make_tasks("cv", "toy", y, seed=3, folds=5, repeats=2)
    assert len(tasks) == 10
    for r in range(2):
        tests = np.concatenate([t.test for t in tasks if t.repeat == r])
        assert np.array_equal(np.sort(tests), np.arange(100))
        for t in tasks:
            assert not set(t.train) & set(t.test)
    # stratified: every test fold holds 10 / 6 / 4 of the classes
    assert all(np.bincount(y[t.test]).tolist() == [10, 6, 4] for t in tasks)
    again = protocols.make_tasks("cv", "toy", y, seed=3, folds=5, repeats=2)
    assert all(np.array_equal(a.test, b.test) for a, b in zip(tasks, again, strict=True))
    other = protocols.make_tasks("cv", "toy", y, seed=4, folds=5, repeats=2)
    assert not all(np.array_equal(a.test, b.test) for a, b in zip(tasks, other, strict=True))


def test_biasvar_is_50_times_two_fold():
    y = np.arange(40) % 2
    tasks = protocols.make_tasks("biasvar", "toy", y)
    assert len(tasks) == 100
    for r in range(50):
        pair = [t for t in tasks if t.repeat == r]
        assert len(pair) == 2
        assert np.array_equal(np.sort(np.concatenate([p.test for p in pair])), np.arange(40))


def test_biasvar1000_shares_its_test_set():
    y = np.arange(2500) % 3
    tasks = protocols.make_tasks("biasvar1000", "toy", y)
    assert len(tasks) == 10
    assert all(np.array_equal(t.test, tasks[0].test) for t in tasks)
    assert all(len(t.train) == 1000 and not set(t.train) & set(t.test) for t in tasks)
    with pytest.raises(ValueError, match="at least 2000"):
        protocols.make_tasks("biasvar1000", "small", np.arange(1500) % 2)


def test_curve_tasks_nested_training_sets():
    y = np.arange(1200) % 2
    tasks = protocols.make_tasks("curve", "toy", y, repeats=2)
    sizes = sorted({len(t.train) for t in tasks})
    assert sizes == [23, 46, 92, 184]
    r0 = [t for t in tasks if t.repeat == 0]
    assert all(set(a.train) <= set(b.train) for a, b in zip(r0, r0[1:], strict=False))
    assert all(len(t.test) == 1000 for t in tasks)


def test_unknown_protocol_parameter():
    with pytest.raises(ValueError, match="no parameter"):
        protocols.protocol_parameters("cv", sizes=3)
    with pytest.raises(ValueError, match="unknown protocol"):
        protocols.protocol_parameters("loo")


def test_registry_knows_comparators_and_states_their_input():
    for key in ("nb", "aode", "a2de", "rf10", "rf100", "tree", "cnb", "hgb"):
        assert key in LEARNERS
    assert LEARNERS["rf100"].input == "discretised"
    assert LEARNERS["rf100-raw"].input == "numeric"
    with pytest.raises(KeyError, match="unknown learner"):
        get_learner("nope")


def test_comparators_fit_on_mixed_data_with_missing_values():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"a": rng.normal(size=200), "b": rng.choice(["x", "y", "z"], 200)})
    X.loc[::7, "a"] = np.nan
    X.loc[::11, "b"] = None
    y = np.where(X["a"].fillna(0) > 0, "p", "n")
    for key in ("rf10", "rf10-raw", "tree", "cnb", "hgb", "hgb-raw"):
        model = get_learner(key).build(random_state=0)
        proba = model.fit(X, y).predict_proba(X)
        assert np.allclose(proba.sum(axis=1), 1.0)
        assert list(model.classes_) == ["n", "p"]


def _config(**kw):
    base = dict(datasets=["iris"], learners=["nb", "aode"], protocol="cv",
                protocol_params={"folds": 3})
    base.update(kw)
    return runner.RunConfig(**base)


def test_run_caches_every_task_and_resumes_after_interruption(tmp_path, monkeypatch):
    out = str(tmp_path / "res")
    config = _config()
    calls = []
    real = runner._run_one

    def flaky(learner, task, cfg, path):
        if len(calls) == 4:
            raise KeyboardInterrupt  # the run is interrupted after four tasks
        calls.append((learner, task.key))
        return real(learner, task, cfg, path)

    monkeypatch.setattr(runner, "_run_one", flaky)
    with pytest.raises(KeyboardInterrupt):
        runner.run(config, out, progress=False)
    todo, done = runner.plan(config, out)
    assert len(done) == 4 and len(todo) == 2
    stamps = {p: os.path.getmtime(p) for _, _, p in done}
    calls.clear()
    raw = runner.run(config, out, progress=False)
    assert len(calls) == 2  # only the unfinished tasks ran
    assert all(os.path.getmtime(p) == t for p, t in stamps.items())
    assert len(raw) == 6 and set(raw["learner"]) == {"nb", "aode"}
    assert (raw["error"] == "").all()
    # a completed run recomputes nothing
    calls.clear()
    runner.run(config, out, progress=False)
    assert calls == []


def test_results_are_deterministic_for_a_seed(tmp_path):
    a = runner.run(_config(), str(tmp_path / "a"), progress=False)
    b = runner.run(_config(), str(tmp_path / "b"), progress=False)
    cols = ["zero_one", "rmse", "log_loss", "auc"]
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_parallel_run_equals_serial(tmp_path):
    a = runner.run(_config(), str(tmp_path / "a"), progress=False)
    b = runner.run(_config(), str(tmp_path / "b"), n_jobs=2, progress=False)
    cols = ["dataset", "learner", "repeat", "fold", "zero_one", "rmse", "log_loss"]
    pd.testing.assert_frame_equal(a[cols].reset_index(drop=True),
                                  b[cols].reset_index(drop=True))


def test_biasvar_summary_has_kohavi_wolpert_terms(tmp_path):
    out = str(tmp_path / "bv")
    config = _config(protocol="biasvar", protocol_params={"repeats": 3})
    runner.run(config, out, progress=False)
    summary = report.summarise(out)
    assert set(summary["learner"]) == {"nb", "aode"}
    # without a noise term, bias + variance is the mean error over the repeats
    assert np.allclose(summary["bias"] + summary["variance"], summary["kw_error"])
    assert np.allclose(summary["kw_error"], summary["zero_one"])
    matrix, truth = runner.predictions(out, summary["settings"][0], "iris", "nb")
    assert matrix.shape == (150, 3) and (matrix >= 0).all() and (truth >= 0).all()


def test_failing_learner_is_recorded_not_fatal(tmp_path):
    from seminaive.evaluation.learners import LearnerSpec, register

    def make(random_state, discretizer, n_bins):
        from seminaive import AODE

        return AODE(max_table_bytes=10)  # always refuses its tables

    register(LearnerSpec("tiny-aode", "TinyAODE", make))
    try:
        raw = runner.run(_config(learners=["nb", "tiny-aode"]), str(tmp_path / "f"),
                         progress=False)
    finally:
        LEARNERS.pop("tiny-aode")
    failed = raw[raw["learner"] == "tiny-aode"]
    assert len(failed) == 3 and failed["error"].str.contains("TableTooLargeError").all()


def test_cli_compare_and_report_end_to_end(tmp_path, capsys):
    out = str(tmp_path / "cli")
    code = main(["compare", "--data", "iris,wine", "--learners", "nb,aode,a2de",
                 "--protocol", "biasvar", "--repeats", "2", "--out", out, "--quiet"])
    assert code == 0
    for name in ("raw.csv", "summary.csv", "report.md", "config.json"):
        assert os.path.getsize(os.path.join(out, name)) > 0
    raw = pd.read_csv(os.path.join(out, "raw.csv"))
    assert len(raw) == 2 * 3 * 2 * 2
    text = open(os.path.join(out, "report.md")).read()
    assert "W/D/L" in text and "A2DE" in text and "bias" in text
    pngs = [f for f in os.listdir(os.path.join(out, "plots")) if f.endswith(".png")]
    assert any(p.startswith("biasvar") for p in pngs) and any(p.startswith("cd") for p in pngs)
    os.remove(os.path.join(out, "report.md"))
    md = str(tmp_path / "results.md")
    assert main(["report", out, "--markdown", md, "--findings", "--title", "T"]) == 0
    text = open(md).read()
    assert text.startswith("# T") and "Headline findings of Webb et al. (2012)" in text
    assert "plots/" in text


def test_cli_rejects_unknown_learner(tmp_path, capsys):
    code = main(["compare", "--data", "iris", "--learners", "nb,zzz", "--out",
                 str(tmp_path), "--quiet"])
    assert code == 2
    assert "unknown learner" in capsys.readouterr().err


def test_learning_curve_report(tmp_path):
    out = str(tmp_path / "curve")
    config = runner.RunConfig(datasets=["led24"], learners=["nb", "aode"], protocol="curve",
                              protocol_params={"repeats": 2})
    runner.run(config, out, progress=False)
    curve = report.curves(out)
    assert sorted(curve["train_size"].unique())[:3] == [23, 46, 92]
    text = report.render([out], markdown_path=str(tmp_path / "r.md"))
    assert "Learning curves" in text and "curve-led24-zero_one-r2.png" in text


def test_failed_tasks_can_be_retried(tmp_path, monkeypatch):
    out = str(tmp_path / "retry")
    config = _config(learners=["nb"])
    real = runner.evaluate_task

    def broken(*args, **kw):
        raise RuntimeError("transient")

    monkeypatch.setattr(runner, "evaluate_task", broken)
    raw = runner.run(config, out, progress=False)
    assert (raw["error"] != "").all()
    monkeypatch.setattr(runner, "evaluate_task", real)
    assert len(runner.plan(config, out)[0]) == 0
    raw = runner.run(config, out, progress=False, retry_failed=True)
    assert (raw["error"] == "").all() and len(raw) == 3


def test_cli_report_as_a_section_of_an_existing_page(tmp_path, capsys):
    out = str(tmp_path / "cli")
    assert main(["compare", "--data", "iris", "--learners", "nb,nb-gauss,nb-ef3",
                 "--protocol", "biasvar", "--repeats", "1", "--discretizer", "mdl",
                 "--out", out, "--quiet"]) == 0
    page = tmp_path / "results.md"
    page.write_text("# Results\n\nEarlier content.\n")
    preamble = tmp_path / "preamble.md"
    preamble.write_text("Regenerate with\n\n```bash\n# a shell comment\nseminaive report\n```\n")
    args = ["report", out, "--markdown", str(page), "--section", "numeric",
            "--comparisons", "gaussian-children", "--title", "Numeric", "--preamble",
            str(preamble)]
    assert main(args) == 0
    text = page.read_text()
    assert text.startswith("# Results\n\nEarlier content.\n")
    assert "<!-- numeric -->\n## Numeric" in text and text.rstrip().endswith("<!-- /numeric -->")
    assert "#### Gaussian children against discretisation" in text
    assert "NB-G vs NB" in text and "Headline findings" not in text
    assert "\n# a shell comment\n" in text  # code blocks keep their lines
    assert "](plots/numeric/" in text and (tmp_path / "plots" / "numeric").is_dir()
    # rendering again replaces the section instead of appending a second one
    assert main(args) == 0
    again = page.read_text()
    assert again.count("<!-- numeric -->") == 1 and again == text
    assert main(["report", out, "--markdown", str(page), "--comparisons", "nope"]) == 2
    assert "unknown comparison" in capsys.readouterr().err


def test_cli_compare_on_absolute_and_relative_paths_with_target(tmp_path, monkeypatch, capsys):
    """A data file anywhere (absolute or relative path) and a target that is not the last
    column: results are kept under a one-directory key (file name + hash of its path and
    target), so the cache never lands inside the data path."""
    from seminaive.datasets import load_kr_vs_kp

    X, y = load_kr_vs_kp()
    rows = np.arange(0, len(X), 16)
    columns = list(X.columns[[20, 9, 32, 31, 14, 5]])  # the most informative first
    frame = X.iloc[rows][columns].assign(label=y.iloc[rows].to_numpy())
    frame = frame[["label", *columns]]  # the target first, not last
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    path = data_dir / "chess.parquet"
    frame.to_parquet(path)
    out = str(tmp_path / "out")
    code = main(["compare", "--data", str(path), "--target", "label", "--learners", "nb",
                 "--folds", "2", "--out", out, "--quiet"])
    assert code == 0
    raw = pd.read_csv(os.path.join(out, "raw.csv"))
    key = runner.dataset_key(str(path), "label")
    assert key.startswith("chess-") and "/" not in key
    assert set(raw["dataset"]) == {key} and raw["error"].isna().all()
    assert raw["zero_one"].mean() < 0.3  # the label was the target, not a feature
    # the same file by a relative path is the same data set
    monkeypatch.chdir(tmp_path)
    assert runner.dataset_key(os.path.join("data", "chess.parquet"), "label") == key
    assert runner.dataset_key(str(path), None) != key  # another target, other results
    # a missing file or target column: a clear message and exit status 2
    assert main(["compare", "--data", str(data_dir / "nope.parquet"), "--learners", "nb",
                 "--out", out, "--quiet"]) == 2
    assert main(["compare", "--data", str(path), "--target", "nope", "--learners", "nb",
                 "--out", out, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "seminaive compare:" in err and "nope" in err


def test_corrected_resampled_ttest_by_hand():
    from scipy import stats as sps

    from seminaive.evaluation.statistics import corrected_resampled_ttest

    a = np.array([0.21, 0.25, 0.19, 0.22, 0.24, 0.20, 0.23, 0.18, 0.26, 0.22])
    b = np.array([0.20, 0.22, 0.20, 0.19, 0.21, 0.19, 0.22, 0.17, 0.23, 0.20])
    d = a - b
    r = corrected_resampled_ttest(a, b, n_train=900, n_test=100)
    t = d.mean() / np.sqrt((1 / 10 + 100 / 900) * d.var(ddof=1))
    assert r["t"] == pytest.approx(t, rel=1e-12) and r["df"] == 9
    assert r["p"] == pytest.approx(2 * sps.t.sf(abs(t), 9), rel=1e-12)
    # without the overlap correction it is the paired t-test
    plain = corrected_resampled_ttest(a, b, n_train=1e12, n_test=1e-12)
    assert plain["p"] == pytest.approx(sps.ttest_rel(a, b).pvalue, rel=1e-9)
    assert r["p"] > plain["p"]  # the correction widens the interval
    assert corrected_resampled_ttest([1, 1], [1, 1], 9, 1)["p"] == 1.0


def test_one_data_set_report_uses_the_t_test_and_shows_spread(tmp_path):
    out = str(tmp_path / "one")
    assert main(["compare", "--data", "iris", "--learners", "nb,aode", "--folds", "5",
                 "--repeats", "2", "--out", out, "--quiet"]) == 0
    text = open(os.path.join(out, "report.md")).read()
    assert "Corrected resampled t-test" in text and "Win/draw/loss" not in text
    assert "(p=" in text and " ± " in text
    summary = pd.read_csv(os.path.join(out, "summary.csv"))
    assert {"zero_one_sd", "rmse_sd"} <= set(summary.columns)
    assert (summary["n_tasks"] == 10).all()


def test_biasvar_summary_skips_the_decomposition_of_partly_failed_learners(tmp_path,
                                                                          monkeypatch):
    out = str(tmp_path / "bvfail")
    config = _config(protocol="biasvar", protocol_params={"repeats": 2})
    real = runner.evaluate_task

    def flaky(spec_key, task, *args, **kw):
        if spec_key == "aode" and task.repeat == 1:
            raise RuntimeError("refused")
        return real(spec_key, task, *args, **kw)

    monkeypatch.setattr(runner, "evaluate_task", flaky)
    runner.run(config, out, progress=False)
    summary = report.summarise(out).set_index("learner")
    assert summary.loc["aode", "n_failed"] == 2 and np.isnan(summary.loc["aode", "bias"])
    assert np.isfinite(summary.loc["nb", "bias"])
