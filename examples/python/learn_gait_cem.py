#!/usr/bin/env python3
"""A rolling gait for document 001's 3-bar robot learned with the cross-entropy method (CEM).

The gait is periodic and open loop: cable k's rest-length target is

    a_k(t) = mid_k + half_k * tanh(b_k + c_k cos(2 pi f t) + s_k sin(2 pi f t)),

mid/half the centre and half-width of the action box, f = f0 * exp(g) (f0 = 1 Hz): 3 * 9 + 1 = 28
numbers. Every CEM iteration evaluates a population of gaits on ``tendyn.envs.make_vec("ThreeBarRoll")``
(one robot per gait, all stepped together by the C++ batch, each with its own randomised physics:
cable stiffness and damping, rod masses, ground friction and restitution, an action delay of 0 or 1
control periods), keeps the best fifth and refits the Gaussian. The best mean gait is then evaluated on
the unrandomised model and on perturbed models (wider ranges than in training), and the distance
rolled (the centre of mass's horizontal displacement [m] over the episode) is printed.

    PYTHONPATH=build/python python3 examples/python/learn_gait_cem.py            # about 10 minutes
    PYTHONPATH=build/python python3 examples/python/learn_gait_cem.py --quick    # CI: < 60 s
"""
from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

import tendyn.envs as envs

TRAIN_DR = {
    "cable_stiffness_scale": [0.9, 1.1],
    "cable_damping_scale": [0.7, 1.3],
    "rod_mass_scale": [0.9, 1.1],
    "ground_friction": [0.6, 1.0],
    "ground_restitution": [0.0, 0.1],
    "action_delay": [0, 1],
}
PERTURBED_DR = {
    "cable_stiffness_scale": [0.75, 1.25],
    "cable_damping_scale": [0.5, 1.5],
    "cable_rest_length_offset_m": [-0.004, 0.004],
    "rod_mass_scale": [0.8, 1.2],
    "ground_friction": [0.5, 1.0],
    "action_delay": [0, 2],
}


def gait_actions(theta: np.ndarray, t: float, space: envs.Box) -> np.ndarray:
    """(P, A) actions of P gaits (theta: (P, 3 A + 1)) at time t [s]."""
    A = space.shape[0]
    b, c, s = theta[:, :A], theta[:, A:2 * A], theta[:, 2 * A:3 * A]
    f = 1.0 * np.exp(np.clip(theta[:, 3 * A:3 * A + 1], -1.5, 1.5))
    ph = 2 * math.pi * f * t
    u = np.tanh(b + c * np.cos(ph) + s * np.sin(ph))
    mid, half = 0.5 * (space.low + space.high), 0.5 * (space.high - space.low)
    return mid + half * u


def rollout(env: envs.VectorEnv, theta: np.ndarray, seed: int, steps: int) -> tuple[np.ndarray, np.ndarray]:
    """Total reward and distance rolled [m] of each gait over one episode of `steps` control periods."""
    _, info = env.reset(seed=seed)
    start = info["com_xy"].copy()
    total = np.zeros(env.num_envs)
    alive = np.ones(env.num_envs, dtype=bool)
    end = start.copy()
    for k in range(steps):
        _, r, te, tr, info = env.step(gait_actions(theta, k * env.control_period_s, env.single_action_space))
        total += np.where(alive, r, 0.0)
        end = np.where(alive[:, None], info["com_xy"], end)
        alive &= ~(te | tr)
        if not alive.any():
            break
    return total, np.linalg.norm(end - start, axis=1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a short run for CI (< 60 s)")
    ap.add_argument("--population", type=int, default=48)
    ap.add_argument("--iterations", type=int, default=15)
    ap.add_argument("--episode", type=float, default=6.0, help="episode length [s]")
    ap.add_argument("--threads", type=int, default=0, help="0: all hardware threads (results do not depend on it)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.quick:
        args.population, args.iterations, args.episode = 16, 5, 3.0
    if args.population < 5 or args.iterations < 1 or not args.episode > 0:
        ap.error("--population >= 5, --iterations >= 1 and --episode > 0 are needed")

    t0 = time.perf_counter()
    # the goal far along +x: the reward is the progress toward it, never reached in an episode
    kw = dict(goal=(20.0, 0.0), threads=args.threads)
    train = envs.make_vec("ThreeBarRoll", args.population, randomize=TRAIN_DR, **kw)
    steps = int(round(args.episode / train.control_period_s))
    A = train.single_action_space.shape[0]
    rng = np.random.default_rng(args.seed)
    mean = np.zeros(3 * A + 1)
    std = np.full(3 * A + 1, 1.0)
    std[3 * A] = 0.5
    n_elite = max(2, args.population // 5)
    for it in range(args.iterations):
        theta = mean + std * rng.standard_normal((args.population, mean.size))
        theta[0] = mean  # the current mean is always evaluated
        score, dist = rollout(train, theta, seed=args.seed * 1000 + it, steps=steps)
        elite = theta[np.argsort(score)[::-1][:n_elite]]
        mean = elite.mean(axis=0)
        std = elite.std(axis=0) + 0.05
        print(f"iteration {it + 1:2d}: reward best {score.max():7.3f} mean {score.mean():7.3f}, "
              f"distance rolled best {dist.max():.3f} m (mean gait {dist[0]:.3f} m)")

    best = mean[None, :]
    nominal = envs.make_vec("ThreeBarRoll", 1, **kw)
    _, d_nom = rollout(nominal, best, seed=0, steps=steps)
    n_pert = 8
    pert = envs.make_vec("ThreeBarRoll", n_pert, randomize=PERTURBED_DR, **kw)
    _, d_pert = rollout(pert, np.repeat(best, n_pert, axis=0), seed=12345, steps=steps)
    _, d_zero = rollout(nominal, np.zeros_like(best), seed=0, steps=steps)
    print(f"learned gait over {args.episode:g} s: nominal model {d_nom[0]:.3f} m; perturbed models "
          f"mean {d_pert.mean():.3f} m, min {d_pert.min():.3f} m, max {d_pert.max():.3f} m; "
          f"untrained (constant) gait {d_zero[0]:.3f} m")
    print(f"time {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
