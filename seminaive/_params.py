"""Parameter declarations: one per parameter, checked, documented and parsed from it.

Every learner declares its constructor parameters in ``_parameter_constraints`` in the
style of scikit-learn (``{name: [constraint, ...]}``, the constraints of
:mod:`sklearn.utils._param_validation`: :class:`~sklearn.utils._param_validation.Interval`,
:class:`Choices` (string options that keep their order), ``None``, ``"boolean"``,
``"array-like"``, ``"random_state"``, :class:`~sklearn.utils._param_validation.HasMethods`).
A parameter is valid when it satisfies one of its constraints.  The shared parameters are
declared once (:data:`seminaive.base.SHARED_PARAMETERS`) and reused by every learner that has them.

From the declaration:

* :func:`check_params` validates every parameter of an estimator with scikit-learn's
  constraints and raises :class:`~sklearn.utils._param_validation.InvalidParameterError`
  (a ``ValueError`` and a ``TypeError``) naming the parameter, the value and what to use
  (``k=-1 is not valid for KDB: k must be a non-negative integer``: the library's wording,
  which reads the allowed values in words, rather than scikit-learn's
  ``The 'k' parameter of KDB must be an int in the range [0, inf)``);
* :func:`describe` states the allowed values in words (error messages, the command line's
  help, and the check that every docstring entry agrees with its declaration);
* :func:`seminaive._docs.fill_doc` assembles every learner's "Parameters" section from its
  declared parameters, in signature order, one documentation fragment per parameter (the
  shared ones in :data:`seminaive._docs.PARAMETERS` under their declared names, a learner's
  own in its ``_parameter_docs`` next to ``_parameter_constraints``), and the command line's
  ``seminaive fit --params LEARNER`` prints the same fragments;
* :func:`parse_value` reads a command line value (``--param NAME=VALUE``) as the declaration
  expects it: numbers, ``None``, ``True`` / ``False``, lists (``[SEX,AGE]`` or ``SEX,AGE``,
  bare words allowed) and options.

Rules that involve several parameters or the learner's configuration (``numeric="gaussian"``
only where supported, ``burn_in < n_iter``) stay small explicit checks in the learners'
``_check_params`` after :func:`check_params`.
"""

import ast
import reprlib
from numbers import Integral, Real

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import TransformerMixin
from sklearn.utils._param_validation import (
    HasMethods,
    InvalidParameterError,
    Options,
    StrOptions,
    make_constraint,
)
from sklearn.utils._param_validation import Interval as _Interval

__all__ = ["ArrayLike", "Choices", "HasMethods", "Interval", "InvalidParameterError",
           "RandomState", "Transformer", "check_params", "describe", "parse_value"]

#: type hint of ``random_state`` parameters
RandomState = int | np.random.RandomState | None
#: type hint of transformer parameters (anything with fit and transform)
Transformer = TransformerMixin

_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60
_repr.maxlist = 8


class Interval(_Interval):
    """scikit-learn's :class:`~sklearn.utils._param_validation.Interval` that refuses
    booleans (``True`` is not a count, a size or a rate).

    Examples
    --------
    >>> from numbers import Integral
    >>> Interval(Integral, 0, None, closed="left").is_satisfied_by(True)
    False
    """

    def is_satisfied_by(self, val):
        return not isinstance(val, (bool, np.bool_)) and super().is_satisfied_by(val)


class Choices(StrOptions):
    """:class:`~sklearn.utils._param_validation.StrOptions` that keep the order given (the
    order messages, help and documentation list them in).

    Parameters
    ----------
    *options : str
        The valid strings, in the order to list them.

    Examples
    --------
    >>> Choices("m_estimate", "laplace").order
    ('m_estimate', 'laplace')
    >>> Choices("m_estimate", "laplace").is_satisfied_by("hdp")
    False
    """

    def __init__(self, *options: str) -> None:
        super().__init__(set(options))
        self.order = tuple(options)


def _options(constraint):
    return tuple(getattr(constraint, "order", None) or sorted(constraint.options, key=repr))


def _number(value):
    if value is None:
        return None
    if float(value).is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _describe_interval(c):
    integer = c.type is Integral
    left, right = _number(c.left), _number(c.right)
    if right is None or (not integer and right == float("inf")):
        if integer and left is not None:
            if left == 0 and c.closed in ("left", "both"):
                return "a non-negative integer"
            if left == 1 and c.closed in ("left", "both"):
                return "a positive integer"
            return f"an integer >= {left if c.closed in ('left', 'both') else left + 1}"
        if not integer and left == 0:
            return "a number >= 0" if c.closed in ("left", "both") else "a positive number"
        if left is not None:
            op = ">=" if c.closed in ("left", "both") else ">"
            return f"{'an integer' if integer else 'a number'} {op} {left}"
    lo = "[" if c.closed in ("left", "both") else "("
    hi = "]" if c.closed in ("right", "both") else ")"
    left = "-inf" if left is None else left
    right = "inf" if right is None else right
    return f"{'an integer' if integer else 'a number'} in {lo}{left}, {right}{hi}"


def describe_constraint(constraint) -> str:
    """One constraint in words.

    Parameters
    ----------
    constraint : constraint of :mod:`sklearn.utils._param_validation`
        As in ``_parameter_constraints`` (``None``, ``"boolean"``, an ``Interval``...).

    Returns
    -------
    str

    Examples
    --------
    >>> from numbers import Integral
    >>> describe_constraint(Interval(Integral, 0, None, closed="left"))
    'a non-negative integer'
    >>> describe_constraint(Choices("ignore", "value"))
    "one of 'ignore', 'value'"
    """
    if constraint is None:
        return "None"
    if isinstance(constraint, str):
        return {"boolean": "True or False", "array-like": "a list",
                "random_state": "an int, a RandomState instance or None"}.get(
                    constraint, constraint)
    if isinstance(constraint, Options):
        values = _options(constraint)
        if len(values) == 1:
            return repr(values[0])
        return "one of " + ", ".join(map(repr, values))
    if isinstance(constraint, _Interval):
        return _describe_interval(constraint)
    if isinstance(constraint, HasMethods):
        if set(constraint.methods) == {"fit", "transform"}:
            return ("a scikit-learn transformer (an object with fit and transform, e.g. "
                    "KBinsDiscretizer(encode='ordinal'))")
        return "an object with " + " and ".join(constraint.methods)
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__}"
    return str(make_constraint(constraint))


def describe(constraints: list) -> str:
    """The allowed values of a declaration in words (``"one of 'a', 'b' or None"``).

    Parameters
    ----------
    constraints : list
        A declaration: the constraints, one of which a valid value satisfies.

    Returns
    -------
    str

    Examples
    --------
    >>> from numbers import Integral
    >>> describe([Interval(Integral, 0, None, closed="left"), Choices("auto")])
    "a non-negative integer or 'auto'"
    >>> describe([Choices("squarem"), None])
    "'squarem' or None"
    """
    parts = [describe_constraint(c) for c in constraints if c is not None]
    if None in constraints and "random_state" not in constraints:  # that one says None
        parts.append("None")
    if len(parts) == 1:
        return parts[0]
    return ", ".join(parts[:-1]) + " or " + parts[-1]


def is_valid(value, constraints: list) -> bool:
    """Whether ``value`` satisfies one of ``constraints``."""
    return any(make_constraint(c).is_satisfied_by(value) for c in constraints)


def check_param(owner: str, name: str, value, constraints: list) -> None:
    """Raise InvalidParameterError unless ``value`` satisfies one of ``constraints``.

    Parameters
    ----------
    owner : str
        Who takes the parameter (the class name), for the message.
    name : str
        The parameter's name.
    value : object
        Its value.
    constraints : list
        Its declaration.

    Examples
    --------
    >>> from numbers import Integral
    >>> check_param("KDB", "k", -1, [Interval(Integral, 0, None, closed="left")])
    Traceback (most recent call last):
    ...
    sklearn.utils._param_validation.InvalidParameterError: k=-1 is not valid for KDB: k must be a non-negative integer
    """  # noqa: E501
    if constraints == "no_validation" or is_valid(value, constraints):
        return
    raise InvalidParameterError(f"{name}={_repr.repr(value)} is not valid for {owner}: "
                                f"{name} must be {describe(constraints)}")


def check_params(estimator) -> None:
    """Check every parameter of ``estimator`` against its ``_parameter_constraints``.

    Parameters
    ----------
    estimator : estimator
        With a ``_parameter_constraints`` declaration (scikit-learn's style).

    Raises
    ------
    InvalidParameterError
        For the first parameter (in signature order) that satisfies none of its
        constraints; a ``ValueError`` (and a ``TypeError``).
    """
    declared = estimator._parameter_constraints
    owner = type(estimator).__name__
    for name, value in estimator.get_params(deep=False).items():
        if name in declared:
            check_param(owner, name, value, declared[name])


# ----------------------------------------------------------------------- the command line
_NONE = ("None", "none", "null")
_TRUE = ("True", "true", "yes", "on")
_FALSE = ("False", "false", "no", "off")


def _literal(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def _list(text):
    """``[a, b, 3]`` or ``a,b,3`` as a list; items read as literals where they are one
    (``3``, ``'x'``, ``True``), else kept as bare words."""
    inner = text.strip()
    if inner[:1] in "[(" and inner[-1:] in "])":
        inner = inner[1:-1]
    return [_literal(item.strip()) for item in inner.split(",") if item.strip()]


def parse_value(text: str, constraints: list):
    """A command line value (text) read as its declaration expects.

    Options are taken as they are written (``none`` of ``categorical_features`` stays a
    string); otherwise ``None``, booleans, integers, numbers and lists are tried in the
    order the declaration allows them.  Text no constraint reads is returned as a string
    (the learner's check then says what to use).

    Parameters
    ----------
    text : str
        The text after ``NAME=``.
    constraints : list
        The parameter's declaration.

    Returns
    -------
    object

    Examples
    --------
    >>> from numbers import Integral
    >>> parse_value("[SEX,AGE]", [Choices("auto", "all", "none"), "array-like"])
    ['SEX', 'AGE']
    >>> parse_value("none", [Choices("auto", "all", "none"), "array-like"])
    'none'
    >>> parse_value("None", [Interval(Integral, 0, None, closed="left"), None])
    >>> parse_value("1e3", [Interval(Integral, 1, None, closed="left")])
    1000
    """
    text = text.strip()
    made = [make_constraint(c) for c in constraints]
    for c in made:
        if isinstance(c, Options) and c.type is str and text in c.options:
            return text
    for raw in constraints:
        if raw is None or raw == "random_state":
            if text in _NONE:
                return None
        if raw == "boolean":
            if text in _TRUE:
                return True
            if text in _FALSE:
                return False
    value = _literal(text)
    if isinstance(value, str) and value in _NONE:
        value = None
    for c, raw in zip(made, constraints, strict=True):
        if isinstance(c, _Interval) and isinstance(value, Real) and not isinstance(value, bool):
            if c.type is not Integral:
                return value
            if float(value).is_integer():
                return int(value)
        if raw == "random_state" and isinstance(value, Integral):
            return int(value)
        if isinstance(c, Options) and not isinstance(c, StrOptions) and value in c.options:
            return value
    if "array-like" in constraints and not isinstance(value, (str, type(None))) \
            and np.ndim(value) == 1:
        return list(value)
    if "array-like" in constraints and isinstance(value, str) and (
            "," in text or text[:1] in "[("):
        return _list(text)
    return value
