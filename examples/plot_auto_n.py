"""
Choosing n automatically
========================

``AnDE(n="auto")`` counts the tables of n = 0, 1 and 2 in one pass. One extra pass then
scores every model of a nested space by leave-one-out RMSE: parent order n, the top-ranked
attributes as parents and as children (ranked by mutual information with the class). It
keeps the smallest n whose best model is within one standard error of the best model
overall, so a larger n has to earn its extra variance.

Here it is fitted on samples of growing size from a random Bayesian network, three samples
per size, next to fixed n = 0, 1 and 2. With few rows it picks n = 0 or 1. The choice then
rests on few rows and can miss: at 100 rows it is worse than plain AODE. From 1,600 rows on
it picks n = 2 in every fit and matches A2DE, the best fixed n on this network.
"""

from collections import Counter

import matplotlib.pyplot as plt
import numpy as np

from seminaive import AnDE
from seminaive.datasets import RandomBayesianNetwork

network = RandomBayesianNetwork(n_attributes=10, n_values=3, n_classes=2, max_parents=2,
                                random_state=3)
X_test, y_test = network.sample(3000, random_state=0)
sizes = [25, 100, 400, 1600, 6400]
n_samples = 3

chosen = []  # Counter of the chosen n, per size
auto_error = []
fixed_error = {n: [] for n in (0, 1, 2)}
for size in sizes:
    counts, auto_losses, fixed_losses = Counter(), [], {n: [] for n in fixed_error}
    for sample in range(n_samples):
        X, y = network.sample(size, random_state=1000 * sample + size)
        model = AnDE(n="auto", categorical_features="all").fit(X, y)
        counts[model.n_] += 1
        auto_losses.append(np.mean(model.predict(X_test) != y_test))
        for n in fixed_error:
            fixed = AnDE(n=n, categorical_features="all").fit(X, y)
            fixed_losses[n].append(np.mean(fixed.predict(X_test) != y_test))
    chosen.append(counts)
    auto_error.append(np.mean(auto_losses))
    for n in fixed_error:
        fixed_error[n].append(np.mean(fixed_losses[n]))
    print(f"{size:5d} rows: n chosen {dict(sorted(counts.items()))}, "
          f"error {auto_error[-1]:.3f} (A0DE {fixed_error[0][-1]:.3f}, "
          f"A1DE {fixed_error[1][-1]:.3f}, A2DE {fixed_error[2][-1]:.3f})")

# %%
# Left: the test error, mean of the three samples. Right: how often each n was chosen.

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
for n, values in fixed_error.items():
    left.plot(sizes, values, marker="o", alpha=0.6, label=f"A{n}DE")
left.plot(sizes, auto_error, "k-s", label='AnDE(n="auto")')
left.set_xscale("log")
left.set_xlabel("training rows")
left.set_ylabel(f"zero-one loss (mean of {n_samples} samples)")
left.set_title("Test error")
left.legend()

positions = np.arange(len(sizes))
bottom = np.zeros(len(sizes))
for n in (0, 1, 2):
    share = np.array([counts[n] for counts in chosen]) / n_samples
    right.bar(positions, share, 0.6, bottom=bottom, label=f"n = {n}")
    bottom += share
right.set_xticks(positions, [str(size) for size in sizes])
right.set_xlabel("training rows")
right.set_ylabel("share of the fits")
right.set_title("The n chosen by leave-one-out")
right.legend(loc="lower right")
fig.tight_layout()
