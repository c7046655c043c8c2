"""Metrics over conversation rewards: pass^k, a bootstrap confidence interval and the final
score with its budget penalty. Pure functions, standard library only.

- **pass^k** (tau-bench): the chance that k independent trials of a test all succeed,
  estimated per test without bias from n trials with c successes as C(c, k) / C(n, k),
  then averaged over tests. A success is a reward of 1.
- **Confidence interval**: percentile bootstrap over tests (a test's reward is its mean over
  trials), seeded, so the same results give the same interval.
- **Final score** = max(0, mean reward - sum over the task's budget tiers of
  max(0, mean credits per conversation / budget - 1)).
- **Pass rate intervals** (`factforge results`): the Wilson score interval of successes over
  conversations, and Newcombe's hybrid score interval of the difference of two pass rates.
"""
from __future__ import annotations

import math
import random
from math import comb
from statistics import fmean
from typing import Mapping, Sequence

SUCCESS = 1.0 - 1e-9


def pass_hat_k(outcomes: Mapping[str, Sequence[float]], k: int) -> float:
    """Mean over tests of C(c, k) / C(n, k) (c = trials with reward 1, n = trials)."""
    vals = []
    for rewards in outcomes.values():
        n = len(rewards)
        if n < k:
            raise ValueError(f"pass^{k} needs at least {k} trials per test (a test has {n})")
        c = sum(1 for r in rewards if r >= SUCCESS)
        vals.append(comb(c, k) / comb(n, k))
    return fmean(vals) if vals else 0.0


def bootstrap_ci(values: Sequence[float], *, level: float = 0.95, resamples: int = 2000,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values`."""
    if not values:
        return 0.0, 0.0
    rng = random.Random(seed)
    n = len(values)
    means = sorted(fmean(rng.choices(values, k=n)) for _ in range(resamples))
    lo = means[int((1 - level) / 2 * (resamples - 1))]
    hi = means[int((1 + level) / 2 * (resamples - 1))]
    return lo, hi


def budget_penalty(credits_mean: float, budget: Mapping[str, float]) -> float:
    """Sum over budget tiers of max(0, mean credits / budget - 1)."""
    return sum(max(0.0, credits_mean / b - 1.0) for b in budget.values())


def final_score(mean_reward: float, credits_mean: float, budget: Mapping[str, float]) -> float:
    return max(0.0, mean_reward - budget_penalty(credits_mean, budget))


Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% by default); (0, 0) for no trials."""
    if n <= 0:
        return 0.0, 0.0
    p = successes / n
    d = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def difference_interval(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> tuple[float, float]:
    """Newcombe's hybrid score interval of p2 - p1 (method 10), from the two Wilson intervals."""
    p1, p2 = k1 / n1, k2 / n2
    lo1, hi1 = wilson_interval(k1, n1, z)
    lo2, hi2 = wilson_interval(k2, n2, z)
    d = p2 - p1
    return (max(-1.0, d - math.sqrt((p2 - lo2) ** 2 + (hi1 - p1) ** 2)),
            min(1.0, d + math.sqrt((hi2 - p2) ** 2 + (p1 - lo1) ** 2)))
