"""Formatting shared by the report, the paper comparisons and the findings: learner labels,
markdown tables and the short names of experiment settings."""

from .learners import LEARNERS


def learner_label(key):
    """The display label of a learner key (the key itself for an unknown learner).

    Parameters
    ----------
    key : str
        A learner key.

    Returns
    -------
    str
    """
    spec = LEARNERS.get(key)
    return spec.label if spec else key


def markdown_table(frame):
    """A DataFrame as a GitHub-flavoured markdown table (values formatted by ``str``).

    Parameters
    ----------
    frame : pandas.DataFrame
        The table; its columns are the header.

    Returns
    -------
    str
    """
    header = "| " + " | ".join(str(c) for c in frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(str(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    return "\n".join([header, rule, *body])


def settings_label(settings):
    """Short reading of a settings key: ``biasvar 50x2``, ``biasvar1000 10x``, ``cv 10``.

    Parameters
    ----------
    settings : str
        A settings key (:meth:`seminaive.evaluation.runner.RunConfig.settings_key`).

    Returns
    -------
    str
    """
    parts = settings.split("-")
    fields = {p.rstrip("0123456789"): p[len(p.rstrip("0123456789")):] for p in parts[1:]}
    protocol = parts[0]
    if protocol == "biasvar" and "repeats" in fields:
        return f"biasvar {fields['repeats']}x2"
    if "repeats" in fields:
        return f"{protocol} {fields['repeats']}x"
    if "folds" in fields:
        return f"{protocol} {fields['folds']}"
    return protocol


def discretiser_label(settings):
    """The discretiser a settings key names, in words: ``MDL``, ``3 equal-frequency bins``.

    Parameters
    ----------
    settings : str
        A settings key (:meth:`seminaive.evaluation.runner.RunConfig.settings_key`).

    Returns
    -------
    str or None
        None when the key names no discretiser.

    Examples
    --------
    >>> discretiser_label("cv-seed0-equal_frequency3-folds3-repeats1")
    '3 equal-frequency bins'
    >>> discretiser_label("biasvar-seed0-mdl3-folds2-repeats50")
    'MDL'
    """
    for part in settings.split("-"):
        if part.startswith("mdl"):
            return "MDL"
        if part.startswith("equal_frequency"):
            bins = part[len("equal_frequency"):]
            return f"{bins} equal-frequency bins" if bins else "equal-frequency bins"
    return None


def data_sets(n):
    """``"1 data set"``, ``"3 data sets"``.

    Parameters
    ----------
    n : int

    Returns
    -------
    str
    """
    return f"{n} data set" + ("" if n == 1 else "s")
