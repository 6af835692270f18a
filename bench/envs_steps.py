#!/usr/bin/env python3
"""Vector-environment throughput (not a test): control steps and physics steps per second of
tendyn.envs.make_vec for ThreeBarRoll and SixBarRoll on 1 and 2 threads.

    PYTHONPATH=build/python python3 bench/envs_steps.py [--envs 64] [--periods 40]

Prints, per task and thread count: environment steps (control periods) per second summed over the
environments, and the physics steps per second they stand for (x frame_skip).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

import tendyn.envs as envs


def bench(name: str, num_envs: int, threads: int, periods: int) -> tuple[float, int, float]:
    e = envs.make_vec(name, num_envs, threads=threads, max_episode_steps=10 ** 6,
                      randomize={"cable_stiffness_scale": [0.9, 1.1], "rod_mass_scale": [0.9, 1.1]})
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    acts = rng.uniform(e.single_action_space.low, e.single_action_space.high, size=(periods,) + e.action_space.shape)
    e.step(acts[0])  # warm up (the worker pool starts)
    t = time.perf_counter()
    for a in acts:
        e.step(a)
    dt = time.perf_counter() - t
    env_steps = periods * num_envs / dt
    return env_steps, e.frame_skip, env_steps * e.frame_skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--periods", type=int, default=40)
    a = ap.parse_args()
    for name in ("ThreeBarRoll", "SixBarRoll"):
        for threads in (1, 2):
            sps, skip, phys = bench(name, a.envs, threads, a.periods)
            print(f"{name:13s} envs {a.envs:3d} threads {threads}: {sps:9.1f} env steps/s "
                  f"(frame_skip {skip}: {phys:10.0f} physics steps/s)")


if __name__ == "__main__":
    main()
