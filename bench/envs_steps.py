#!/usr/bin/env python3
"""Vector-environment throughput (not a test): control steps and physics steps per second of
tendyn.envs.make_vec for ThreeBarRoll and SixBarRoll on 1 and 2 threads, and, in the same run,
MuJoCo 3's C API stepping the exported model with the same number of robots and threads.

    PYTHONPATH=build/python python3 bench/envs_steps.py [--envs 64] [--periods 40] [--reps 3]
        [--mujoco build/bench/tensegrity_batch_mujoco3] [--cli build/tendyn] [--no-mujoco]

Prints, per task and thread count: environment steps (control periods) per second summed over the
environments, the physics steps per second they stand for (x frame_skip), in wall time and in
process CPU time (all threads; CPU time does not grow with the load of a shared machine, wall time
does), each the best of --reps runs. The load average (os.getloadavg) is printed before and after.

MuJoCo: the task's model (the environment's base model, with its ground, in the settled state the
environments start from) is written as YAML and exported with `tendyn export --mjcf` at the
environment's physics step (RK4); `tensegrity_batch_mujoco3 --model` steps it from that state,
frame_skip steps per call (one control period), with the same number of robots on 1 and 2 threads
(one mjData per thread, mj_setState / mj_step / mj_getState per robot and call). MuJoCo does no
observation, reward or randomisation work: tendyn's figures include the Python layer, MuJoCo's do not.
The impulse ground of ThreeBarRoll is a MuJoCo plane with soft contact (not the same contact law).
When MuJoCo blows up at the environment's step (its thin rods get an axial inertia of 1e-6 of the
transverse one, which friction at the capsule surface spins up: SixBarRoll at 1 ms), the model is
exported again at half the step (then a quarter, an eighth) and MuJoCo's rate is given per physics
step of the environment (robot-steps per second / k at step dt / k), i.e. per simulated second.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

import numpy as np

import tendyn.envs as envs
from tendyn import tensegrity as ts

ROOT = Path(__file__).resolve().parents[1]


def bench(name: str, num_envs: int, threads: int, periods: int, reps: int) -> dict:
    e = envs.make_vec(name, num_envs, threads=threads, max_episode_steps=10 ** 6,
                      randomize={"cable_stiffness_scale": [0.9, 1.1], "rod_mass_scale": [0.9, 1.1]})
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    acts = rng.uniform(e.single_action_space.low, e.single_action_space.high, size=(periods,) + e.action_space.shape)
    e.step(acts[0])  # warm up (the worker pool starts)
    wall, cpu = 1e300, 1e300
    for _ in range(reps):
        t, c = time.perf_counter(), time.process_time()
        for a in acts:
            e.step(a)
        wall, cpu = min(wall, time.perf_counter() - t), min(cpu, time.process_time() - c)
    n = periods * num_envs
    return dict(env_wall=n / wall, env_cpu=n / cpu, skip=e.frame_skip, phys_wall=n * e.frame_skip / wall,
                phys_cpu=n * e.frame_skip / cpu, dt=e.dt_s)


def export_task(name: str, cli: Path, out_dir: Path, substeps: int = 1) -> tuple[Path, float, int]:
    """The task's base model in its settled start state, exported to MJCF at the physics step / substeps."""
    e = envs.make_vec(name, 1, threads=1)
    m = e.base_model
    m.initial_state = ts.State(m, e._x0)
    yaml_path, xml_path = out_dir / f"{name}.yaml", out_dir / f"{name}.xml"
    yaml_path.write_text(ts.to_yaml(m))
    r = subprocess.run([str(cli), "export", str(yaml_path), "--mjcf", str(xml_path), "--mj-timestep", repr(e.dt_s / substeps),
                        "--mj-integrator", "RK4"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"envs_steps.py: tendyn export failed for {name}: {r.stdout}{r.stderr}")
    return xml_path, e.dt_s, e.frame_skip


def mujoco_rates(prog: Path, xml: Path, robots: int, steps: int, per_call: int, reps: int) -> Optional[dict[int, tuple[float, float]]]:
    """{threads: (robot-steps/s wall, per CPU-s)}; None when MuJoCo blows up."""
    r = subprocess.run([str(prog), "--model", str(xml), "--robots", str(robots), "--steps", str(steps),
                        "--per-call", str(per_call), "--reps", str(reps)], capture_output=True, text=True)
    if r.returncode != 0 and "blow-up" in r.stderr:
        print(f"  MuJoCo blew up on {xml.name} ({r.stderr.strip().splitlines()[-1]})")
        return None
    if r.returncode != 0:
        sys.exit(f"envs_steps.py: {prog} failed: {r.stdout}{r.stderr}")
    out = {}
    for line in r.stdout.splitlines():
        mt = re.match(r"mujoco_model threads=(\d+) robot_steps_per_s_wall=(\S+) robot_steps_per_cpu_s=(\S+)", line)
        if mt:
            out[int(mt.group(1))] = (float(mt.group(2)), float(mt.group(3)))
        elif line.startswith("MuJoCo ") or line.startswith("model "):
            print("  " + line)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--envs", type=int, default=64)
    ap.add_argument("--periods", type=int, default=40)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--mujoco", type=Path, default=ROOT / "build/bench/tensegrity_batch_mujoco3")
    ap.add_argument("--cli", type=Path, default=ROOT / "build/tendyn")
    ap.add_argument("--no-mujoco", action="store_true")
    a = ap.parse_args()
    if a.envs < 1 or a.periods < 1 or a.reps < 1:
        sys.exit("envs_steps.py: --envs, --periods and --reps must be >= 1")
    use_mj = not a.no_mujoco
    if use_mj and not (a.mujoco.is_file() and a.cli.is_file()):
        sys.exit(f"envs_steps.py: {a.mujoco} or {a.cli} not found (build tensegrity_batch_mujoco3 with "
                 "-DTENDYN_MUJOCO3_PREFIX and tendyn_cli, or pass --no-mujoco)")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs; "
          f"{a.envs} environments, {a.periods} control periods, best of {a.reps}")
    print("| task | engine | threads | env steps/s (wall) | physics steps/s (wall) | physics steps per CPU-s | "
          "tendyn / MuJoCo (wall, CPU) |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("ThreeBarRoll", "SixBarRoll"):
            mj: dict[int, tuple[float, float]] = {}
            k = 1
            rows = []
            for threads in (1, 2):
                rows.append((threads, bench(name, a.envs, threads, a.periods, a.reps)))
            if use_mj:
                for k in (1, 2, 4, 8):
                    xml, dt, skip = export_task(name, a.cli, Path(tmp), k)
                    got = mujoco_rates(a.mujoco, xml, a.envs, a.periods * skip * k, skip * k, a.reps)
                    if got is not None:
                        mj = {t: (w / k, c / k) for t, (w, c) in got.items()}
                        break
            for threads, r in rows:
                ratio = ""
                if threads in mj:
                    ratio = f"{r['phys_wall'] / mj[threads][0]:.1f}x, {r['phys_cpu'] / mj[threads][1]:.1f}x"
                print(f"| {name} (dt {r['dt'] * 1e3:g} ms, frame_skip {r['skip']}) | tendyn make_vec | {threads} | "
                      f"{r['env_wall']:.4g} | {r['phys_wall']:.4g} | {r['phys_cpu']:.4g} | {ratio} |")
            for threads in sorted(mj):
                how = "" if k == 1 else f", RK4 at dt/{k} (blew up at dt{', dt/2' if k > 2 else ''}{', dt/4' if k > 4 else ''}), per env step"
                print(f"| {name} | MuJoCo 3 C API, exported model{how} | {threads} | | {mj[threads][0]:.4g} | {mj[threads][1]:.4g} | |")
            sys.stdout.flush()
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
