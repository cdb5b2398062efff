"""Figures of explanations (:class:`seminaive.explanation.Explanation`) and of learned
structures, drawn with matplotlib only.

Every function draws on the ``ax`` it is given (for example from ``pyplot.subplots``), or on
a new :class:`matplotlib.figure.Figure` rendered with the Agg canvas (never through
``pyplot``, so nothing stays open and it works on headless machines); with ``path`` it also
writes the figure as a PNG file.  Each returns the figure.

* :func:`plot_waterfall` -- one row: from the base value of a class, attribute by
  attribute, to the row's score;
* :func:`plot_summary` -- a set of rows: the mean absolute contribution of every attribute
  (``"bar"``) or every row's contribution as a point coloured by the attribute's value
  (``"beeswarm"``);
* :func:`plot_structure` -- the learned graph of TAN, SP-TAN, KDB or SKDB: the class on
  top, every attribute with arrows from its parents.
"""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..exceptions import InputError
from ..explanation import Explanation, structure_graph

__all__ = ["plot_waterfall", "plot_summary", "plot_structure"]

_UP, _DOWN = "#d62728", "#1f77b4"


def _axes(ax, size):
    if ax is not None:
        return ax.figure, ax
    fig = Figure(figsize=size)
    FigureCanvasAgg(fig)
    return fig, fig.add_subplot()


def _finish(fig, path):
    if path is not None:
        fig.savefig(path, format="png", dpi=120, bbox_inches="tight")
    return fig


def _check(explanation):
    if not isinstance(explanation, Explanation):
        raise InputError("expected a seminaive Explanation (model.explain(X)), got "
                         f"{type(explanation).__name__}")
    if len(explanation) == 0:
        raise InputError("the explanation holds no rows: nothing to plot")


def _class_index(explanation, class_, row=None):
    names = list(explanation.output_names)
    if class_ is None:  # the class the row's scores favour (the first row for a set)
        r = 0 if row is None else row
        total = explanation.base_values[r] + explanation.values[r].sum(axis=0)
        return int(np.argmax(total))
    if class_ not in names:
        raise InputError(f"class {class_!r} is not one of {names}")
    return names.index(class_)


def _value_text(v):
    if isinstance(v, float):
        return "missing" if np.isnan(v) else f"{v:.4g}"
    return "missing" if v is None else str(v)


def plot_waterfall(explanation, row=0, class_=None, *, max_display=10, ax=None, path=None):
    """How one row's score for a class is built: from the base value, attribute by
    attribute (largest contributions first; the rest summed in one bar).

    Parameters
    ----------
    explanation : Explanation
    row : int, default=0
        The row drawn.
    class_ : label, optional
        The class (default: the one the row's scores favour).
    max_display : int, default=10
        Attributes drawn one by one.
    ax : matplotlib Axes, optional
    path : str or path, optional
        PNG file to write.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from seminaive import AODE
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> ex = AODE().fit(X.iloc[:, :8], y).explain(X.iloc[:5, :8])
    >>> fig = plot_waterfall(ex, row=0)
    >>> len(fig.axes[0].patches)
    8
    """
    _check(explanation)
    if not 0 <= row < len(explanation):
        raise InputError(f"row {row} is outside the {len(explanation)} rows explained")
    c = _class_index(explanation, class_, row)
    values = explanation.values[row, :, c]
    names = list(explanation.feature_names)
    order = np.argsort(-np.abs(values), kind="stable")
    shown = order[:max_display]
    labels = [f"{names[j]} = {_value_text(explanation.data[row, j])}" for j in shown]
    steps = list(values[shown])
    if order.size > max_display:
        labels.append(f"{order.size - max_display} other attributes")
        steps.append(float(values[order[max_display:]].sum()))
    base = float(explanation.base_values[row, c])
    fig, ax = _axes(ax, (7, 0.45 * len(steps) + 1.5))
    start = base
    for y, step in enumerate(steps):
        ax.barh(y, step, left=start, color=_UP if step >= 0 else _DOWN, height=0.6)
        ax.text(start + step, y, f" {step:+.3f} ", va="center",
                ha="left" if step >= 0 else "right", fontsize=8)
        start += step
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.axvline(base, color="grey", linestyle=":", linewidth=1)
    ax.axvline(start, color="black", linewidth=1)
    label = explanation.output_names[c]
    ax.set_xlabel(f"score of class {label!r} (log, centred over the classes)"
                  if explanation.centred else f"log P({label!r}, x)")
    ax.set_title(f"row {row}: base {base:.3f} -> {start:.3f}")
    return _finish(fig, path)


def plot_summary(explanation, class_=None, *, kind="bar", max_display=15, ax=None,
                 path=None):
    """Which attributes matter over a set of rows.

    Parameters
    ----------
    explanation : Explanation
    class_ : label, optional
        With ``"beeswarm"``, the class whose contributions are drawn (default: the first);
        ``"bar"`` averages the absolute contributions over every class
        (``feature_importances_``) unless a class is given.
    kind : {"bar", "beeswarm"}, default="bar"
        ``"bar"``: mean absolute contribution of every attribute; ``"beeswarm"``: every
        row's contribution as a point, jittered vertically and coloured by the rank of the
        attribute's value (nominal values by their order of codes; grey when missing).
    max_display : int, default=15
        Attributes drawn (the most important).
    ax : matplotlib Axes, optional
    path : str or path, optional
        PNG file to write.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from seminaive import NaiveBayes
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> ex = NaiveBayes().fit(X, y).explain(X.iloc[:200])
    >>> fig = plot_summary(ex, kind="beeswarm", max_display=5)
    >>> len(fig.axes[0].get_yticklabels())
    5
    """
    _check(explanation)
    if kind not in ("bar", "beeswarm"):
        raise InputError(f"kind={kind!r}: use 'bar' or 'beeswarm'")
    names = np.asarray(explanation.feature_names, dtype=object)
    if kind == "bar" and class_ is None:
        importance = explanation.feature_importances_
        what = "mean |contribution| over rows and classes"
    else:
        c = 0 if class_ is None else _class_index(explanation, class_)
        importance = np.abs(explanation.values[:, :, c]).mean(axis=0)
        what = f"mean |contribution| to class {explanation.output_names[c]!r}"
    order = np.argsort(-importance, kind="stable")[:max_display]
    fig, ax = _axes(ax, (7, 0.4 * order.size + 1.5))
    ys = np.arange(order.size)
    if kind == "bar":
        ax.barh(ys, importance[order], color=_DOWN)
        ax.set_xlabel(what)
    else:
        rng = np.random.default_rng(0)
        for y, j in zip(ys, order, strict=True):
            x = explanation.values[:, j, c]
            colour = _value_ranks(explanation.data[:, j])
            jitter = y + rng.uniform(-0.3, 0.3, x.size)
            missing = np.isnan(colour)
            ax.scatter(x[missing], jitter[missing], s=6, color="lightgrey")
            ax.scatter(x[~missing], jitter[~missing], s=6, c=colour[~missing], cmap="coolwarm",
                       vmin=0, vmax=1)
        ax.axvline(0, color="grey", linewidth=1)
        ax.set_xlabel(f"contribution to class {explanation.output_names[c]!r} "
                      "(colour: value, low blue to high red)")
    ax.set_yticks(ys, list(names[order]))
    ax.invert_yaxis()
    return _finish(fig, path)


def _value_ranks(column):
    """Values as ranks in [0, 1] (NaN where missing), numeric or nominal."""
    col = np.asarray(column, dtype=object)
    missing = np.array([v is None or (isinstance(v, float) and np.isnan(v)) for v in col])
    out = np.full(col.size, np.nan)
    if (~missing).any():
        present = col[~missing]
        try:
            keys = np.asarray(present, dtype=float)
        except (TypeError, ValueError):
            _, keys = np.unique(present.astype(str), return_inverse=True)
        ranks = np.argsort(np.argsort(keys, kind="stable"), kind="stable")
        out[~missing] = ranks / max(1, ranks.size - 1)
    return out


def plot_structure(model, *, class_name="class", ax=None, path=None):
    """The learned graph of a structure learner: the class on top, the attributes in
    layers below (an attribute one layer under its deepest parent), arrows from parents
    to children (the class's arrow to every attribute is drawn light).

    Parameters
    ----------
    model : fitted TAN, SPTAN, KDB or SKDB
    class_name : str, default="class"
    ax : matplotlib Axes, optional
    path : str or path, optional
        PNG file to write.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> from seminaive import KDB
    >>> from seminaive.datasets import load_kr_vs_kp
    >>> X, y = load_kr_vs_kp()
    >>> fig = plot_structure(KDB(k=2).fit(X.iloc[:, :6], y))
    >>> len([t for t in fig.axes[0].texts if t.get_text()])  # the class and 6 attributes
    7
    """
    graph = structure_graph(model)
    if class_name in graph:
        raise InputError(f"an attribute is named {class_name!r}: pass another class_name")
    depth = {}

    def level(name, seen=()):
        if name not in depth:
            if name in seen:
                raise InputError("the learned structure has a cycle")
            parents = [p for p in graph[name] if p in graph]
            depth[name] = 1 + max((level(p, (*seen, name)) for p in parents), default=0)
        return depth[name]

    for name in graph:
        level(name)
    layers = {}
    for name in graph:
        layers.setdefault(depth[name], []).append(name)
    n_layers = max(layers) if layers else 1
    width = max((len(v) for v in layers.values()), default=1)
    pos = {class_name: (0.5, 1.0)}
    for d, names in layers.items():
        # a layer of one node is shifted left and right in turn, so that a chain of
        # layers does not hide the arrows that skip a layer
        shift = 0.15 * (1 if d % 2 else -1) if len(names) == 1 else 0.0
        for i, name in enumerate(names):
            pos[name] = ((i + 1) / (len(names) + 1) + shift, 1.0 - d / (n_layers + 0.5))
    fig, ax = _axes(ax, (max(6, 1.3 * width), 1.2 * n_layers + 2))
    arrow = {"arrowstyle": "-|>", "shrinkA": 12, "shrinkB": 12}

    def curve(parent_depth, child):
        # an arrow that skips layers bends, so that it passes beside the nodes between
        return f"arc3,rad={0.35 if depth[child] - parent_depth > 1 else 0.0}"

    for name in graph:
        ax.annotate("", pos[name], pos[class_name],
                    arrowprops={**arrow, "color": "lightgrey", "linewidth": 0.6,
                                "connectionstyle": curve(0, name)})
        for p in graph[name]:
            ax.annotate("", pos[name], pos[p],
                        arrowprops={**arrow, "color": "black",
                                    "connectionstyle": curve(depth[p], name)})
    for name, (x, y) in pos.items():
        ax.text(x, y, name, ha="center", va="center", fontsize=8,
                bbox={"boxstyle": "round", "facecolor": "#fde0c5" if name == class_name
                      else "white", "edgecolor": "grey"})
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.08)
    ax.set_axis_off()
    ax.set_title(f"{type(model).__name__}: parents of every attribute")
    return _finish(fig, path)
