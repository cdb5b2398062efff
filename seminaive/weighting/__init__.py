"""Weighted ensembles of sub-models: WAODE, MAPLMD, MAPLMG, BMAAODE.

* :class:`WAODE` -- AODE with mutual-information (WAODE-MI) or Kullback-Leibler (WAODE-KL)
  weights; ``AnDE(n, weights="mi" | "kl" | array)`` is the same for any n;
* :class:`MAPLMD`, :class:`MAPLMG` -- maximum-a-posteriori weights of linear mixtures of the
  sub-models' posteriors / joints from leave-one-out estimates (Cerquides & López de
  Màntaras 2005, §3, §6), for sub-models of any order n;
* :class:`WANBIAC`, :class:`ALR` -- weights on the generative log-probabilities of naive
  Bayes / of AnDE's sub-models learnt by minimising the conditional log loss with L-BFGS
  (Zaidi et al. 2013, 2016, 2017);
* :class:`BMAAODE` -- exact Bayesian model averaging over the ODEs (Cerquides & López de
  Màntaras 2005, §5).
"""

from .bma import BMAAODE
from .discriminative import ALR, WANBIAC
from .information import WAODE
from .mixtures import MAPLMD, MAPLMG

__all__ = ["WAODE", "MAPLMD", "MAPLMG", "BMAAODE", "WANBIAC", "ALR"]
