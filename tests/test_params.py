"""Parameter declarations: every parameter of every learner is declared, checked against its
declaration with an error naming it, documented as declared, and read by the command line
as declared."""

import ast
import inspect
import re
import subprocess
import sys
import types
import typing
from numbers import Integral

import numpy as np
import pytest
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    InvalidParameterError,
    Options,
    generate_invalid_param_val,
    generate_valid_param,
    make_constraint,
)

from seminaive import AODE, KDB
from seminaive._docs import PARAMETERS, fill_doc, parameter_fragment
from seminaive._params import (
    ArrayLike,
    Choices,
    RandomState,
    Transformer,
    describe,
    is_valid,
    parse_value,
)
from seminaive.base import HDP_SMOOTHING, KDE_DENSITY, SHARED_PARAMETERS
from seminaive.cli import _parse_params, describe_params, main, make_estimator
from seminaive.exceptions import InputError
from seminaive.persistence import ESTIMATORS

LEARNERS = sorted(ESTIMATORS)
X = np.array([["a", "x"], ["b", "y"], ["a", "y"], ["b", "x"]] * 5, dtype=object)
Y = np.array([0, 1] * 10)


def _cases():
    """(learner, parameter) for every declared parameter of every registered learner."""
    return [(name, param) for name in LEARNERS
            for param in sorted(ESTIMATORS[name]().get_params(deep=False))]


@pytest.mark.parametrize("name", LEARNERS)
def test_every_parameter_is_declared_and_its_default_is_valid(name):
    cls = ESTIMATORS[name]
    params = cls().get_params(deep=False)
    declared = cls._parameter_constraints
    assert set(declared) == set(params), (
        f"{name}: undeclared {sorted(set(params) - set(declared))}, declared but not "
        f"parameters {sorted(set(declared) - set(params))}")
    for param, value in params.items():
        assert is_valid(value, declared[param]), f"{name}.{param}: default {value!r}"
    cls()._check_params()


def test_shared_parameters_are_declared_once():
    """A learner with a shared parameter takes its declaration unless it narrows or widens
    it on purpose (the smoothing of the HDP learners, ...)."""
    own = {"smoothing", "density"}  # HDP_SMOOTHING; the AnDE family adds density="kde"
    for name in LEARNERS:
        declared = ESTIMATORS[name]._parameter_constraints
        for param, constraints in declared.items():
            if param in SHARED_PARAMETERS and param not in own:
                assert constraints is SHARED_PARAMETERS[param], f"{name}.{param}"


def test_widened_parameters_are_declared_once():
    """The widened ``smoothing`` and ``density`` have one declaration each, in
    :mod:`seminaive.base`, that every learner taking the wider values shares."""
    widened = {"smoothing": HDP_SMOOTHING, "density": KDE_DENSITY}
    takers = {param: [] for param in widened}
    for name in LEARNERS:
        declared = ESTIMATORS[name]._parameter_constraints
        for param, shared in widened.items():
            if param in declared and declared[param] is not SHARED_PARAMETERS[param]:
                assert declared[param] is shared, f"{name}.{param}"
                takers[param].append(name)
    # the AnDE family and the family learners both widen density
    assert {"AnDE", "NaiveBayes", "KDB", "TAN"} <= set(takers["density"])


def _invalid_values(constraints):
    values = [type("BadType", (), {})()]
    for constraint in map(make_constraint, constraints):
        try:
            values.append(generate_invalid_param_val(constraint))
        except NotImplementedError:
            pass
    return [v for v in values if not is_valid(v, constraints)]


@pytest.mark.parametrize(("name", "param"), _cases())
def test_an_invalid_value_is_refused_naming_the_parameter(name, param):
    constraints = ESTIMATORS[name]._parameter_constraints[param]
    bad_values = _invalid_values(constraints)
    assert bad_values
    for bad in bad_values:
        model = ESTIMATORS[name](**{param: bad})
        with pytest.raises(InvalidParameterError, match=rf"^{param}=.* is not valid for "
                                                         rf"{name}: {param} must be ") as info:
            model.fit(X, Y)
        assert isinstance(info.value, ValueError)
        assert not hasattr(model, "table_")


@pytest.mark.parametrize(("name", "param"), _cases())
def test_a_valid_value_passes_the_declaration(name, param):
    constraints = ESTIMATORS[name]._parameter_constraints[param]
    for constraint in map(make_constraint, constraints):
        try:
            value = generate_valid_param(constraint)
        except NotImplementedError:
            continue
        assert is_valid(value, constraints)


def test_integer_parameters_refuse_booleans_and_fractions():
    for bad in (True, 2.5, np.bool_(True)):
        with pytest.raises(ValueError, match="k must be a non-negative integer"):
            KDB(k=bad)._check_params()
    KDB(k=np.int64(2))._check_params()


def test_rules_between_parameters_stay_explicit():
    with pytest.raises(ValueError, match=r"burn_in must be None or an integer in \[0, n_iter\)"):
        KDB(smoothing="hdp", n_iter=10, burn_in=10)._check_params()
    from seminaive import AnDE

    with pytest.raises(ValueError, match="smoothing='hdp' is not available"):
        AnDE(n="auto", smoothing="hdp")._check_params()


def test_describe():
    assert describe([Interval(Integral, 0, None, closed="left"), Choices("auto")]) == \
        "a non-negative integer or 'auto'"
    assert describe(SHARED_PARAMETERS["random_state"]) == \
        "an int, a RandomState instance or None"
    assert describe(SHARED_PARAMETERS["max_table_bytes"]) == "a positive number or None"
    assert describe(SHARED_PARAMETERS["smoothing"]) == "one of 'm_estimate', 'laplace'"


# --------------------------------------------------------------- docstrings as declared
def _entry(doc, param):
    """The ``type, default=...`` text of ``param``'s entry in the Parameters section."""
    block = doc.split("Parameters\n----------\n", 1)[1]
    block = re.split(r"\n\n[A-Z][A-Za-z ]+\n-{3,}\n", block)[0]
    match = re.search(rf"^{param} : (.*)$", block, re.MULTILINE)
    assert match, f"no entry for {param}"
    return match.group(1)


def _default(text):
    units = re.fullmatch(r"(\d+) (KiB|MiB|GiB)", text)
    if units:
        return int(units.group(1)) * 2 ** {"KiB": 10, "MiB": 20, "GiB": 30}[units.group(2)]
    return ast.literal_eval(text)


@pytest.mark.parametrize("name", LEARNERS)
def test_docstring_entries_agree_with_the_declarations(name):
    """Every Parameters entry states the declared options (in double quotes), None when the
    declaration allows it, int for integer ranges, and the signature's default."""
    cls = ESTIMATORS[name]
    doc = inspect.getdoc(cls)
    signature = inspect.signature(cls.__init__).parameters
    for param, constraints in cls._parameter_constraints.items():
        entry = _entry(doc, param)
        spec, sep, default = entry.rpartition(", default=")
        assert sep, f"{name}.{param}: no default in {entry!r}"
        assert "{{" not in spec, f"{name}.{param}: {spec!r}"
        options = {o for c in constraints if isinstance(c, Options) for o in c.options}
        assert set(re.findall(r'"(\w+)"', spec)) == options, f"{name}.{param}: {spec!r}"
        assert ("None" in spec) == (None in constraints or "random_state" in constraints), \
            f"{name}.{param}: {spec!r}"
        if any(isinstance(c, Interval) and c.type is Integral for c in constraints):
            assert re.search(r"\bint\b", spec), f"{name}.{param}: {spec!r}"
        if "boolean" in constraints:
            assert "bool" in spec, f"{name}.{param}: {spec!r}"
        assert _default(default) == signature[param].default, f"{name}.{param}: {default}"


# ------------------------------------------------------------------------ command line
def test_cli_values_are_read_as_declared():
    aode = make_estimator("AODE")
    assert _parse_params(["categorical_features=[SEX,AGE]", "m=2", "max_table_bytes=None",
                          "random_state=3", "min_count=0.5", "discretizer=equal_frequency",
                          "n_bins=5"], aode) == {
        "categorical_features": ["SEX", "AGE"], "m": 2, "max_table_bytes": None,
        "random_state": 3, "min_count": 0.5, "discretizer": "equal_frequency", "n_bins": 5}
    assert _parse_params(["categorical_features=SEX,AGE"], aode) == {
        "categorical_features": ["SEX", "AGE"]}
    assert _parse_params(["categorical_features=[0, 3]"], aode) == {
        "categorical_features": [0, 3]}
    assert _parse_params(["categorical_features=none"], aode) == {
        "categorical_features": "none"}
    assert _parse_params(["non_negative=true", "max_iter=1e3", "l2=0"],
                         make_estimator("ALR")) == {"non_negative": True, "max_iter": 1000,
                                                     "l2": 0}
    assert _parse_params(["non_negative=False"], make_estimator("WANBIAC")) == {
        "non_negative": False}
    assert _parse_params(["n=auto", "weights=[1,2,3]", "burn_in=None", "n_iter=50"],
                         make_estimator("AnDE")) == {"n": "auto", "weights": [1, 2, 3],
                                                     "burn_in": None, "n_iter": 50}
    assert _parse_params(["acceleration=None"], make_estimator("MAPLMD")) == {
        "acceleration": None}
    assert _parse_params(["k=3", "smoothing=hdp"], make_estimator("kdb5-hdp")) == {
        "k": 3, "smoothing": "hdp"}


@pytest.mark.parametrize(("pair", "match"), [
    ("k=abc", "--param k=abc: k='abc' is not valid for KDB: k must be a non-negative integer"),
    ("k=2.5", "k must be a non-negative integer"),
    ("smoothing=none", "smoothing must be one of 'm_estimate', 'laplace', 'hdp'"),
    ("burn_in=x", "burn_in must be a non-negative integer or None"),
    ("categorical_features=SEX", "categorical_features must be one of"),
])
def test_cli_refuses_a_value_naming_the_parameter(pair, match):
    with pytest.raises(InputError, match=re.escape(match)):
        _parse_params([pair], make_estimator("KDB"))


def test_cli_lists_the_parameters(capsys):
    text = describe_params("AnDE")
    for line in ("  n                     a non-negative integer or 'auto'; default 1",
                 "  weights               one of 'mi', 'kl', a list or None; default None",
                 "  dtype                 one of 'float64', 'float32'; default 'float64'"):
        assert line in text.splitlines()
    assert len(text.splitlines()) > len(AODE().get_params())
    with pytest.raises(SystemExit) as info:
        main(["fit", "--params", "KDB"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "  k                     a non-negative integer; default 1" in out
    with pytest.raises(SystemExit) as info:
        main(["fit", "--params", "nope"])
    assert info.value.code == 2
    assert "unknown learner 'nope'" in capsys.readouterr().err


def test_cli_fit_reads_parameters_as_declared(tmp_path):
    data = tmp_path / "d.csv"
    data.write_text("SEX,AGE,cls\n" + "".join(f"{'mf'[i % 2]},{i % 3},{'ab'[i % 2]}\n"
                                              for i in range(30)))
    out = tmp_path / "m.npz"
    args = ["fit", str(data), "--target", "cls", "--learner", "KDB", "--quiet", "-o",
            str(out), "--param", "categorical_features=[SEX,AGE]", "--param", "k=2",
            "--param", "random_state=None"]
    assert main(args) == 0
    from seminaive.persistence import load_model

    model = load_model(out)
    assert model.categorical_features == ["SEX", "AGE"] and model.k == 2
    assert len(model.encoder_.categories_[1]) == 3  # AGE taken as nominal
    bad = subprocess.run([sys.executable, "-m", "seminaive.cli", *args[:-6], "-o", str(out),
                          "--param", "k=-1"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert "k=-1 is not valid for KDB: k must be a non-negative integer" in bad.stderr


def test_parse_value_keeps_text_no_constraint_reads():
    assert parse_value("kmeans", SHARED_PARAMETERS["discretizer"]) == "kmeans"
    assert parse_value("  3 ", SHARED_PARAMETERS["n_bins"]) == 3
    assert parse_value("0.5", SHARED_PARAMETERS["min_count"]) == 0.5


# ------------------------------------------------- docstrings assembled from the declarations
def _section_entries(doc):
    """``{name: entry text}`` of the Parameters section, in order."""
    block = doc.split("Parameters\n----------\n", 1)[1]
    block = re.split(r"\n\n[A-Z][A-Za-z ]+\n-{3,}\n", block)[0]
    entries = re.split(r"\n(?=\w+ : )", block.strip("\n"))
    return {entry.split(" :", 1)[0]: entry for entry in entries}


@pytest.mark.parametrize("name", LEARNERS)
def test_parameters_section_is_assembled_from_the_fragments(name):
    """The section holds every constructor parameter, in signature order, each entry the
    fragment stated once (shared or the learner's own), and nothing else."""
    cls = ESTIMATORS[name]
    entries = _section_entries(inspect.getdoc(cls))
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert list(entries) == params
    for param in params:
        assert entries[param] == parameter_fragment(cls, param), f"{name}.{param}"
    assert "{parameters}" not in cls.__doc__


def test_a_parameter_with_no_fragment_is_refused_at_import():
    class Learner:
        """A learner.

        Parameters
        ----------
        {parameters}
        """

        def __init__(self, m=1.0, surprise=2):
            pass

    with pytest.raises(KeyError, match="no documentation fragment for parameter 'surprise'"):
        fill_doc(Learner)
    Learner._parameter_docs = {"surprise": "m"}
    with pytest.raises(KeyError, match="given for parameter 'surprise' documents 'm'"):
        fill_doc(Learner)
    Learner._parameter_docs = {"surprise": """
        surprise : int, default=2
            How surprised to be.
        """}
    doc = fill_doc(Learner).__doc__
    assert "        m : float, default=1.0\n            The m of m-estimation" in doc
    assert "        surprise : int, default=2\n            How surprised to be.\n" in doc


def test_every_shared_parameter_has_its_fragment_under_its_name():
    for param in SHARED_PARAMETERS:
        assert PARAMETERS[param].startswith(f"{param} : "), param


def test_cli_help_reads_the_fragments():
    text = describe_params("KDB")
    assert "  k                     a non-negative integer; default 1\n" \
           "                        Maximum number of attribute parents of each attribute; 0 " \
           "is exactly\n                        naive Bayes.\n" in text


# ------------------------------------------------------------- signatures as declared
def _flat(annotation):
    """The members of a (nested) union annotation, Literal values as ("literal", value)."""
    if typing.get_origin(annotation) is typing.Literal:
        return [("literal", v) for v in typing.get_args(annotation)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [m for arg in typing.get_args(annotation) for m in _flat(arg)]
    return [annotation]


@pytest.mark.parametrize("name", LEARNERS)
def test_signatures_agree_with_the_declarations(name):
    """Every parameter is keyword-only but the first, annotated, and its annotation allows
    what the declaration allows: the same string options, None exactly when the declaration
    does, int for integer ranges, float for real ones, bool, lists, transformers."""
    cls = ESTIMATORS[name]
    hints = typing.get_type_hints(cls.__init__)
    signature = inspect.signature(cls.__init__).parameters
    for param, constraints in cls._parameter_constraints.items():
        assert param in hints, f"{name}.{param}: no annotation"
        members = _flat(hints[param])
        literals = {v for kind, v in (m for m in members if isinstance(m, tuple))}
        options = {o for c in constraints if isinstance(c, Options) for o in c.options}
        assert literals - {None} == options - {None}, f"{name}.{param}: {hints[param]}"
        allows_none = None in constraints or "random_state" in constraints or None in options
        assert (type(None) in members or None in literals) == allows_none, \
            f"{name}.{param}: {hints[param]}"
        for c in constraints:
            if isinstance(c, Interval):
                wanted = int if c.type is Integral else float
                assert wanted in members, f"{name}.{param}: {hints[param]} for {c}"
            if c == "boolean":
                assert bool in members, f"{name}.{param}: {hints[param]}"
            if c == "array-like":
                assert set(_flat(ArrayLike)) <= set(members), f"{name}.{param}"
            if c == "random_state":
                assert hints[param] == RandomState, f"{name}.{param}"
            if isinstance(c, HasMethods):
                assert Transformer in members, f"{name}.{param}"
        assert is_valid(signature[param].default, constraints), f"{name}.{param}"
