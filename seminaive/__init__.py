"""seminaive: semi-naive Bayesian classification (the AnDE family)."""
