"""
Choosing n automatically
========================

``AnDE(n="auto")`` counts the tables for n = 0, 1 and 2 in one pass. One extra pass then
scores every model of a nested space by leave-one-out RMSE: parent order n, the top-r
attributes as parents and the top-s as children, ranked by mutual information with the
class. It keeps the smallest n whose best model is within one standard error of the best
overall. With more data, larger n win.
"""

import matplotlib.pyplot as plt
import numpy as np

from seminaive import AnDE
from seminaive.datasets import RandomBayesianNetwork

network = RandomBayesianNetwork(n_attributes=10, n_values=3, n_classes=2, max_parents=2,
                                random_state=11)
X_test, y_test = network.sample(3000, random_state=0)
sizes = [50, 200, 800, 3200]
chosen, auto_error, fixed_error = [], [], {n: [] for n in (0, 1, 2)}
for size in sizes:
    X, y = network.sample(size, random_state=size)
    model = AnDE(n="auto", categorical_features="all").fit(X, y)
    chosen.append(model.n_)
    auto_error.append(np.mean(model.predict(X_test) != y_test))
    for n in fixed_error:
        fixed = AnDE(n=n, categorical_features="all").fit(X, y)
        fixed_error[n].append(np.mean(fixed.predict(X_test) != y_test))
    print(f"{size:5d} rows: n = {model.n_}, {model.n_parents_} parents, "
          f"{model.n_children_} children")

fig, ax = plt.subplots(figsize=(6, 4))
for n, values in fixed_error.items():
    ax.plot(sizes, values, marker="o", alpha=0.6, label=f"A{n}DE")
ax.plot(sizes, auto_error, "k-s", label='AnDE(n="auto")')
for size, err, n in zip(sizes, auto_error, chosen, strict=True):
    ax.annotate(f"n={n}", (size, err), textcoords="offset points", xytext=(5, 5))
ax.set_xscale("log")
ax.set_xlabel("training rows")
ax.set_ylabel("zero-one loss")
ax.set_title("The n chosen by leave-one-out, by training size")
ax.legend()
fig.tight_layout()
