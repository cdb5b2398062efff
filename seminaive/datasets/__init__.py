"""Data sets: synthetic generators with known Bayes error and small bundled real data."""

from seminaive.datasets.bundled import load_kr_vs_kp
from seminaive.datasets.generators import (
    RandomBayesianNetwork,
    led_bayes_error,
    make_led,
    make_random_bn,
    make_waveform,
)

__all__ = [
    "make_led",
    "led_bayes_error",
    "make_waveform",
    "RandomBayesianNetwork",
    "make_random_bn",
    "load_kr_vs_kp",
]
