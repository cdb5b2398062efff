"""``AnDE(n="auto")``: one nested space over parent orders 0, 1 and 2 (beyond the papers).

The space of :class:`seminaive.selection.SelectiveAnDE` with every order up to ``MAX_N``
at once: naive Bayes over the top-s attributes (n = 0), the (r, s) models of ASAODE (n = 1)
and of selective A2DE (n = 2), attributes ranked by mutual information with the class.  The
same extra pass over the training data scores them all by leave-one-out RMSE, so it also
chooses n: the lowest n whose best model's mean squared error is within one standard error
of the best model overall (the one-standard-error rule: the order-2 family holds about a/2
times more models than the order-1 family, which would otherwise win by chance on small
samples), then the (r, s) of lowest loss for that n (ties: fewer parents, then children).
:class:`seminaive.ande.AnDE` delegates here when ``n="auto"``.
"""

from ._base import fit_nested, set_structure_state, structure_scores, structure_state

#: highest parent order considered by n="auto" (the tables count up to order MAX_N + 1)
MAX_N = 2


def check_params(est):
    if est.aggregate != "joint":
        raise ValueError(f"n='auto' selects among models that average joint estimates: use "
                         f"aggregate='joint' (got {est.aggregate!r})")
    if getattr(est, "weights", None) is not None:
        raise ValueError("n='auto' does not take weights: leave weights=None")


def learn(est, source):
    """Select n, r and s (sets ``n_``, ``n_parents_``, ``n_children_``, ``parents_``,
    ``children_``, ``ranking_``, ``loo_loss_``...)."""
    fit_nested(est, source, MAX_N, range(MAX_N + 1), "rmse", one_se_order=True)


def scores(est, X):
    return structure_scores(est, X)


def learned_state(est):
    return structure_state(est)


def set_learned_state(est, arrays):
    set_structure_state(est, arrays, nested_required=True)
