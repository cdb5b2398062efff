"""
Learning curves: naive Bayes, AODE and A2DE
============================================

The AnDE family trades bias for variance as n grows (Webb et al. 2012): naive Bayes (n = 0)
has the most bias and the least variance, A2DE (n = 2) the least bias and the most variance.
The data here comes from a random Bayesian network whose attributes depend on each other, so
the independence assumption of naive Bayes is wrong. Every training size is drawn five times
and every model is scored on the same 4,000 test rows.

With 25 rows the three learners are close, and A2DE, with the most variance, is the worst.
As the data grows, naive Bayes levels off first, at its bias, then AODE; A2DE improves the
longest and ends lowest. The larger the data, the larger the n that pays off. The gap that
remains to the Bayes error is bias that even two parents leave.
"""

import matplotlib.pyplot as plt
import numpy as np

from seminaive import A2DE, AODE, NaiveBayes
from seminaive.datasets import RandomBayesianNetwork

network = RandomBayesianNetwork(n_attributes=12, n_values=3, n_classes=2, max_parents=2,
                                random_state=3)
X_test, y_test = network.sample(4000, random_state=1)
sizes = [25, 50, 100, 200, 400, 800, 1600, 3200, 6400]
learners = {"NB": NaiveBayes, "AODE": AODE, "A2DE": A2DE}

errors = {name: [] for name in learners}
for size in sizes:
    losses = {name: [] for name in learners}
    for repeat in range(5):
        X, y = network.sample(size, random_state=100 + repeat)
        for name, make in learners.items():
            model = make(categorical_features="all").fit(X, y)
            losses[name].append(np.mean(model.predict(X_test) != y_test))
    for name in learners:
        errors[name].append(np.mean(losses[name]))

bayes = network.bayes_error(X_test)
print("rows ", " ".join(f"{size:5d}" for size in sizes))
for name, values in errors.items():
    print(f"{name:5s}", " ".join(f"{v:5.3f}" for v in values))
print(f"Bayes error of the test rows: {bayes:.3f}")

# %%
# The curves, on a logarithmic axis of training rows.

fig, ax = plt.subplots(figsize=(6, 4))
for name, values in errors.items():
    ax.plot(sizes, values, marker="o", label=name)
ax.axhline(bayes, color="grey", linestyle="--", label="Bayes error")
ax.set_xscale("log")
ax.set_xlabel("training rows")
ax.set_ylabel("zero-one loss (mean of 5 samples)")
ax.set_title("Learning curves on a random Bayesian network")
ax.legend()
fig.tight_layout()
