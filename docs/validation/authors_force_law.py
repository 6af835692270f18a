#!/usr/bin/env python3
"""Scratch check for docs/VALIDATION.md ("Normal-mode range of the 3-prism's tilt angle psi"); not
part of tendyn, not run by CI. Needs numpy only.

The 3-prism in document 000's authors' centred geometry (vkurenkov/tensegrity,
configurations/n_prism.py: rod centres on a circle of radius `offset` at azimuth pi/3 + 2 pi i/3,
rod 0's axis R_y(-psi) R_y(90 deg) e_x, rod i's turned by 120 i deg about z) under THEIR cable law
from model.py, f = k (|d| - l0) d with d the unnormalised vector to the other end and no
tension-only clamp, their inertia eye(3) kg m^2, plus document 000's damping (3)
f = -gamma (v_i - v_j) on every cable. RK4 with a fixed step. Prints, per psi, whether every cable
stays in [l0, 2 l0] for the whole run (the paper's "normal mode") and the strain extremes per triple.

    python3 docs/validation/authors_force_law.py --rod-length 0.45 --psi 35,36,68,69
"""
import argparse

import numpy as np


def rot_y(a):
    return np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])


def rot_z(a):
    return np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])


def skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def run(psi_deg, rest, k, gamma, L, offset, duration, dt):
    n = 3
    R0 = rot_y(-np.radians(psi_deg)) @ rot_y(np.pi / 2)
    R = np.array([rot_z(2 * np.pi * i / n) @ R0 for i in range(n)])
    c = np.array([[offset * np.cos(np.pi / n + 2 * np.pi * i / n), offset * np.sin(np.pi / n + 2 * np.pi * i / n), 0.0]
                  for i in range(n)])
    # nodes 0..2: end a of rod i (centre - L/2 axis), 3..5: end b (centre + L/2 axis)
    pairs, l0 = [], []
    for i in range(n):
        pairs += [(i, (i - 1) % n), (n + i, n + (i + 1) % n), (i, n + (i + 1) % n)]  # top, bottom, side
        l0 += list(rest)
    pairs, l0 = np.array(pairs), np.array(l0)
    half = np.array([L / 2, 0, 0])

    def forces(y):
        c, R, v, w = y[0:9].reshape(3, 3), y[9:36].reshape(3, 3, 3), y[36:45].reshape(3, 3), y[45:54].reshape(3, 3)
        ua, ub = -(R @ half), R @ half
        P = np.vstack([c + ua, c + ub])
        V = np.vstack([v + np.cross(w, ua), v + np.cross(w, ub)])
        d = P[pairs[:, 1]] - P[pairs[:, 0]]
        length = np.linalg.norm(d, axis=1)
        f = (k * (length - l0))[:, None] * d + gamma * (V[pairs[:, 1]] - V[pairs[:, 0]])
        F = np.zeros((6, 3))
        np.add.at(F, pairs[:, 0], f)
        np.add.at(F, pairs[:, 1], -f)
        tau = np.cross(ua, F[:3]) + np.cross(ub, F[3:])
        dR = np.array([skew(w[i]) @ R[i] for i in range(n)])
        # inertia eye(3): d(w)/dt = tau (w x I w = 0); unit mass: dv/dt = force
        return np.concatenate([v.ravel(), dR.ravel(), (F[:3] + F[3:]).ravel(), tau.ravel()]), length

    y = np.concatenate([c.ravel(), R.ravel(), np.zeros(18)])
    _, length = forces(y)
    lo, hi = length.copy(), length.copy()
    for _ in range(int(round(duration / dt))):
        k1, _ = forces(y)
        k2, _ = forces(y + dt / 2 * k1)
        k3, _ = forces(y + dt / 2 * k2)
        k4, _ = forces(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        Rm = y[9:36].reshape(3, 3, 3)
        for i in range(n):  # back onto SO(3)
            u, _, vt = np.linalg.svd(Rm[i])
            Rm[i] = u @ vt
        y[9:36] = Rm.ravel()
        _, length = forces(y)
        lo, hi = np.minimum(lo, length), np.maximum(hi, length)
    smin, smax = (lo - l0) / l0, (hi - l0) / l0
    return bool((smin >= 0).all() and (smax <= 1).all()), smin, smax


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--psi", default="35,36,68,69", help="comma-separated tilt angles [deg]")
    ap.add_argument("--rest", default="0.2,0.2,0.2", help="rest lengths top,bottom,side [m]")
    ap.add_argument("--stiffness", type=float, default=10.0, help="k [N/m]")
    ap.add_argument("--damping", type=float, default=5.0, help="gamma of law (3) [N s/m]")
    ap.add_argument("--rod-length", type=float, default=0.3, help="L [m]")
    ap.add_argument("--offset", type=float, default=0.3 / 8, help="radius of the circle of rod centres [m]")
    ap.add_argument("--duration", type=float, default=5.0, help="[s]")
    ap.add_argument("--dt", type=float, default=1e-3, help="RK4 step [s]")
    a = ap.parse_args()
    rest = [float(x) for x in a.rest.split(",")]
    for psi in [float(p) for p in a.psi.split(",")]:
        ok, smin, smax = run(psi, rest, a.stiffness, a.damping, a.rod_length, a.offset, a.duration, a.dt)
        print(f"psi {psi:5.1f} normal {ok}  strain min top/bottom/side {100 * smin[0]:.1f}/{100 * smin[1]:.1f}/"
              f"{100 * smin[2]:.1f} %  max {100 * smax[0]:.1f}/{100 * smax[1]:.1f}/{100 * smax[2]:.1f} %", flush=True)


if __name__ == "__main__":
    main()
