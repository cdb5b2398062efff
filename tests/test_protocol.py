"""The training protocol (:mod:`seminaive.protocol`): every learner implements it through the
base, the drivers call nothing else, and every source a route hands a learner behaves the
same way."""

import ast
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import seminaive
from seminaive import AODE, InputError, persistence
from seminaive.parts import GaussianChildren, HierarchicalEstimates, Part
from seminaive.persistence import ESTIMATORS
from seminaive.protocol import Learner, Source

PACKAGE = Path(seminaive.__file__).parent


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_every_learner_implements_the_protocol_once(name):
    """Through the base: no learner overrides a protocol method (its hooks are the base's
    private ones), so every route runs the same steps."""
    cls = ESTIMATORS[name]
    assert isinstance(cls(), Learner)
    methods = [m for m in vars(Learner) if not m.startswith("_")]
    assert len(methods) >= 10
    for method in methods:
        owner = next(k for k in cls.__mro__ if method in vars(k))
        assert owner is seminaive.base.Learner, (name, method, owner)


#: the hooks of the base a learner may override (docs/contributing.md, "Adding a learner")
HOOKS = {"_order", "_table_order", "_check_params", "_learn_from_counts", "_scores",
         "_learned_state", "_set_learned_state", "_prepare_tables", "_new_table",
         "_make_encoder", "_parameter_constraints", "parts", "_table_options",
         "_table_orders", "_table_counts_only"}
#: public methods a learner may wrap (a warning, then the base's): partial_fit of the
#: discriminative learners; scikit-learn's generated metadata-request setters
WRAPPED = {"partial_fit", "set_fit_request", "set_partial_fit_request", "set_score_request"}
#: methods that were hooks of the base before Gaussian children and hierarchical estimates
#: became parts: no learner may define them again
FORMER_PART_HOOKS = {"_supports_gaussian", "_supports_hdp", "_hdp_seeds", "_hdp_burn_in",
                     "_gaussian_owner", "_hdp_owner", "_gaussian_attributes", "_moment_order",
                     "_gaussian_missing_codes", "_numeric_values", "_gaussian_scores",
                     "_gaussian_kappa", "_gaussian_loo", "_bin_log_widths", "_install_hdp"}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_learners_override_only_hooks_and_declare_their_parts(name):
    """What a learner changes of the base is a hook of the contributing guide; Gaussian
    children and hierarchical estimates are parts it declares (``parts``), exactly when its
    parameters can turn them on."""
    cls = ESTIMATORS[name]
    base = seminaive.base.Learner
    below = cls.__mro__[:cls.__mro__.index(base)]
    overridden = {m for k in below for m in vars(k) if m in vars(base)
                  and not m.startswith("__")}
    assert overridden <= HOOKS | WRAPPED, (name, sorted(overridden - HOOKS - WRAPPED))
    defined = {m for k in cls.__mro__ for m in vars(k)}
    assert not defined & FORMER_PART_HOOKS, (name, sorted(defined & FORMER_PART_HOOKS))
    for part in cls.parts:
        assert isinstance(part, Part), (name, part)
    kinds = [type(part) for part in cls.parts]
    assert len(set(kinds)) == len(kinds), name
    constraints = cls._parameter_constraints
    smoothing = [v for c in constraints.get("smoothing", []) for v in getattr(c, "order", ())]
    assert ("numeric" in constraints) == any(isinstance(p, GaussianChildren)
                                             for p in cls.parts), name
    assert ("hdp" in smoothing) == any(isinstance(p, HierarchicalEstimates)
                                       for p in cls.parts), name


def test_a_parameter_asking_for_an_undeclared_part_is_refused(monkeypatch):
    """The base checks every kind of part: a learner that does not declare it (or whose
    ``when`` is false) refuses the parameter that would turn it on, naming itself."""
    # the class registers itself for model files: keep it out of the registry other tests read
    monkeypatch.setattr(persistence, "ESTIMATORS", dict(persistence.ESTIMATORS))

    class NoParts(AODE):
        parts = ()

    with pytest.raises(ValueError, match="numeric='gaussian' is not available for NoParts"):
        NoParts(numeric="gaussian").check_params()
    NoParts().check_params()
    with pytest.raises(ValueError, match="smoothing='hdp' is not available for AnDE with"):
        seminaive.AnDE(n="auto", smoothing="hdp").check_params()
    with pytest.raises(ValueError, match="burn_in must be None"):
        seminaive.KDB(smoothing="hdp", n_iter=5, burn_in=5).check_params()


DRIVERS = sorted([*(PACKAGE / "streaming").glob("*.py"), PACKAGE / "dask.py",
                  PACKAGE / "persistence.py"])


@pytest.mark.parametrize("path", DRIVERS, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_drivers_call_only_public_methods_of_the_learner(path):
    """The drivers reach a learner only through the protocol: no ``estimator._x`` /
    ``model._x`` call."""
    tree = ast.parse(path.read_text())
    private = sorted({f"{node.value.id}.{node.attr}" for node in ast.walk(tree)
                      if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id in ("estimator", "model", "est")
                      and node.attr.startswith("_")})
    assert private == []


def test_reset_drops_everything_an_earlier_fit_learnt():
    X = pd.DataFrame({"a": ["x", "y", "x", "y"], "b": [1.0, 2.0, 3.0, 4.0]})
    model = seminaive.KDB(k=1).fit(X, [0, 1, 0, 1])
    model._something_learnt = 1
    model.reset()
    assert set(vars(model)) == set(model.get_params())


# --------------------------------------------------------------------------------------------
# Sources: the one each route hands learn_from, through one test
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    n = 150
    y = rng.integers(0, 2, n)
    X = pd.DataFrame({"c": [f"v{v}" for v in (y + rng.integers(0, 2, n)) % 3],
                      "u": rng.normal(y, 1.0, n)})
    X.loc[rng.random(n) < 0.1, "u"] = np.nan
    return X, pd.Series(np.array(["a", "b"])[y]), rng.integers(0, 3, n).astype(float)


def _captured(route, X, y, w, tmp_path, monkeypatch):
    """The model and the source that ``route`` hands ``learn_from``."""
    model = AODE(numeric="gaussian")
    seen = []
    original = AODE.learn_from

    def capture(self, source):
        seen.append(source)
        return original(self, source)

    monkeypatch.setattr(AODE, "learn_from", capture)
    table = X.assign(target=y.to_numpy(), weight=w)
    if route == "fit":
        model.fit(X, y, sample_weight=w)
    elif route == "stream":
        table.to_parquet(tmp_path / "t.parquet", row_group_size=40)
        model.fit_stream(tmp_path / "t.parquet", target="target", sample_weight="weight",
                         chunk_rows=40, sample_rows=None, progress=False)
    elif route == "dask":
        dd = pytest.importorskip("dask.dataframe")
        import dask

        import seminaive.dask

        with dask.config.set(scheduler="synchronous"):
            seminaive.dask.fit(model, dd.from_pandas(table, npartitions=3), target="target",
                               sample_weight="weight")
    else:
        model.fit_stream(iter([table.iloc[:70], table.iloc[70:]]), target="target",
                         sample_weight="weight", progress=False)
    monkeypatch.undo()
    return model, seen[-1]


@pytest.mark.parametrize("route", ["fit", "stream", "dask", "one_shot"])
def test_every_source_follows_the_protocol(route, data, tmp_path, monkeypatch):
    X, y, w = data
    model, source = _captured(route, X, y, w, tmp_path, monkeypatch)
    assert isinstance(source, Source)
    assert source.n_rows == len(X)
    if route == "one_shot":
        for call in (lambda: list(source.chunks()), lambda: list(source.chunks(values=True)),
                     lambda: source.map_reduce(len), lambda: source.map_reduce(len, values=True)):
            with pytest.raises(InputError, match="another pass"):
                call()
        return
    codes, y_idx, values = model.chunk_encoder()(X, y, values=True)

    def rows(c, t, weights, *rest):
        return [(c, t, np.ones(len(t)) if weights is None else np.asarray(weights), *rest)]

    for with_values in (False, True):
        parts = source.map_reduce(rows, values=with_values)
        got_codes = np.concatenate([p[0] for p in parts])
        got_y = np.concatenate([p[1] for p in parts])
        got_w = np.concatenate([p[2] for p in parts])
        chunked = list(source.chunks(values=with_values))
        assert sum(len(c[1]) for c in chunked) == len(got_y)
        assert len(chunked[0]) == (4 if with_values else 3)
        np.testing.assert_array_equal(got_codes, codes)
        np.testing.assert_array_equal(got_y, y_idx)
        np.testing.assert_array_equal(got_w, w)
        if with_values:
            np.testing.assert_array_equal(np.concatenate([p[3] for p in parts]), values)
