"""
Fitting on a Dask cluster
=========================

:func:`seminaive.dask.fit` counts every partition of a Dask DataFrame on its worker and adds
the tables up as a tree. The counts are those of a single-machine fit. Learners that need
further passes over the data run them on the workers too.

Here the "cluster" is Dask's single-threaded local scheduler. With a
``dask.distributed.Client`` connected, the same code runs on a real cluster.
"""

import dask
import dask.dataframe as dd
import matplotlib.pyplot as plt
import numpy as np

import seminaive.dask
from seminaive import A2DE
from seminaive.datasets import load_kr_vs_kp

X, y = load_kr_vs_kp()
ddf = dd.from_pandas(X.assign(label=y), npartitions=8)

with dask.config.set(scheduler="synchronous"):
    model = seminaive.dask.fit(A2DE(), ddf, target="label")
    # predictions are lazy Dask collections, computed partition by partition
    proba = seminaive.dask.predict_proba(model, dd.from_pandas(X, npartitions=8)).compute()

local = A2DE().fit(X, y)
print("identical counts:", bool(np.array_equal(model.table_.counts, local.table_.counts)))
print("largest difference in probabilities:",
      float(np.abs(local.predict_proba(X)[:, 1] - proba["proba_won"].to_numpy()).max()))

# %%
# The model fitted with Dask and the one fitted in memory give the same probabilities.

fig, ax = plt.subplots(figsize=(5, 5))
ax.scatter(local.predict_proba(X)[:, 1], proba["proba_won"], s=4)
ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8)
ax.set_xlabel("P(won | x), fitted in memory")
ax.set_ylabel("P(won | x), fitted with Dask (8 partitions)")
ax.set_title("Same counts, same probabilities")
fig.tight_layout()
