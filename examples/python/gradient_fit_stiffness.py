#!/usr/bin/env python3
"""Fit cable stiffnesses of the 3-bar robot on a compliant ground to a recorded trajectory by gradient descent.

A "recording" is made with the true stiffnesses (outer triangle cables c1..c6 at 300 N/m, the three
cross cables c7..c9 at 300 N/m) while the cables' rest lengths follow a periodic gait. The fit starts
from wrong values and minimises the mean squared error of the rods' positions and attitudes over the
whole trajectory with Adam on log-stiffness. The gradient comes through the PyTorch bridge
(tendyn.torch.rollout, an autograd function whose backward pass runs through the exact per-step
Jacobians) when PyTorch is installed, and otherwise through tendyn.tensegrity.rollout_derivatives +
backpropagate with NumPy: the same numbers either way.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/gradient_fit_stiffness.py
    ... --quick                 # a short horizon and fewer iterations (CI, < 60 s)
    ... --backend numpy         # force the NumPy path
Writes the learning curve (loss and stiffnesses per iteration) to --plot (matplotlib, Agg).
"""
import argparse
import math
import time
from pathlib import Path

import numpy as np

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]
PARAMS = "stiffness:c1+c2+c3+c4+c5+c6,stiffness:c7+c8+c9"
TRUE = np.array([300.0, 300.0])   # N/m
START = np.array([180.0, 450.0])  # N/m, the initial guess
H = 5e-4                          # s


def make_model():
    m = ts.load_model_file(str(REPO / "models" / "three_bar_lying.yaml")).model
    g = m.ground
    g.type = ts.Ground.Type.kCompliant  # the impulse ground is not differentiable
    # Below its slip velocity the regularised friction is a viscous law of rate mu F_n / (v_slip m):
    # at the default 1 mm/s that is ~2e4 1/s, beyond RK4's stability bound at 0.5 ms steps, so the
    # step map amplifies tiny motions of a resting robot and the exact rollout gradient explodes
    # (-2e4 where the loss changes by 24 per N/m). At 1 cm/s the step map is stable again and the
    # gradient matches finite differences of the loss to 1e-9.
    g.slip_velocity_mps = 0.01
    m.ground = g
    return m


def gait(m, steps):
    """(steps, ncable) rest lengths: the cross cables pulled in and released at 4 Hz, the triangles at 2 Hz."""
    t = H * np.arange(steps)[:, None]
    rest = np.array([c.rest_length_m for c in m.cables])[None, :]
    phase = np.arange(m.ncable)[None, :]
    amp = np.where(np.arange(m.ncable) >= 6, 0.02, 0.01)[None, :]
    freq = np.where(np.arange(m.ncable) >= 6, 4.0, 2.0)[None, :]
    return rest + amp * np.sin(2 * math.pi * freq * t + phase)


def start_state(m):
    """The robot after 0.1 s on the compliant ground (it sinks to its contact depth)."""
    d = ts.make_data(m)
    s = m.initial_state
    ts.compute_derivative(m, s, d)
    for _ in range(200):
        ts.step(m, d, s, H)
    return np.array(s.x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="short horizon, fewer iterations (< 60 s)")
    ap.add_argument("--iterations", type=int, default=0, help="Adam iterations (default 120, 40 with --quick)")
    ap.add_argument("--horizon", type=float, default=0.0, help="trajectory length [s] (default 0.5, 0.15 with --quick)")
    ap.add_argument("--backend", choices=["auto", "torch", "numpy"], default="auto")
    ap.add_argument("--plot", default="out/gradient_fit_stiffness.png", help="learning-curve plot (PNG)")
    a = ap.parse_args()
    iters = a.iterations or (40 if a.quick else 120)
    steps = int(round((a.horizon or (0.15 if a.quick else 0.5)) / H))

    backend = a.backend
    if backend in ("auto", "torch"):
        try:
            import torch
            import tendyn.torch as tt
            backend = "torch"
        except ImportError as e:
            if backend == "torch":
                raise SystemExit(f"--backend torch: {e}")
            backend = "numpy"

    m = make_model()
    x0 = start_state(m)
    U = gait(m, steps)
    mask = np.zeros(13 * m.nrod)  # positions and quaternions of every rod
    for j in range(m.nrod):
        mask[13 * j:13 * j + 7] = 1.0
    recorded = ts.rollout_derivatives(m, x0, U, H, PARAMS, TRUE)["states"]
    scale = 1.0 / (steps * mask.sum() * 1e-6)  # mean squared error in mm^2 (positions) / 1e-6 (quaternions)

    log_k = np.log(START)
    lr, b1, b2 = 0.08, 0.9, 0.999
    mom, vel = np.zeros(2), np.zeros(2)
    losses, history = [], []
    t0 = time.perf_counter()
    if backend == "torch":
        lk = torch.tensor(log_k, dtype=torch.float64, requires_grad=True)
        opt = torch.optim.Adam([lk], lr=lr, betas=(b1, b2))
        x0_t, U_t = torch.tensor(x0), torch.tensor(U)
        rec_t, mask_t = torch.tensor(recorded), torch.tensor(mask)
        for it in range(iters):
            opt.zero_grad()
            k = torch.exp(lk)
            states = tt.rollout(m, x0_t, U_t, H, PARAMS, k)
            loss = scale * (((states - rec_t) * mask_t) ** 2).sum()
            loss.backward()
            losses.append(float(loss))
            history.append(k.detach().numpy().copy())
            opt.step()
        log_k = lk.detach().numpy()
    else:
        for it in range(iters):
            k = np.exp(log_k)
            r = ts.rollout_derivatives(m, x0, U, H, PARAMS, k)
            err = (r["states"] - recorded) * mask
            G = 2.0 * scale * err * mask
            g = ts.backpropagate(r["A"], r["B"], r["P"], G)["dL_dparameters"] * k  # d/d log k
            losses.append(scale * float((err ** 2).sum()))
            history.append(k.copy())
            mom = b1 * mom + (1 - b1) * g  # Adam, as torch.optim.Adam
            vel = b2 * vel + (1 - b2) * g * g
            mhat, vhat = mom / (1 - b1 ** (it + 1)), vel / (1 - b2 ** (it + 1))
            log_k = log_k - lr * mhat / (np.sqrt(vhat) + 1e-8)
    wall = time.perf_counter() - t0
    k = np.exp(log_k)
    history = np.array(history)

    print(f"backend {backend}: {iters} iterations of a {steps}-step rollout (nx = {13 * m.nrod}) in {wall:.1f} s")
    print(f"loss: start {losses[0]:.4g}, end {losses[-1]:.4g} (ratio {losses[-1] / losses[0]:.2e})")
    for name, kt, k0, kf in zip(("c1..c6", "c7..c9"), TRUE, START, k):
        print(f"stiffness {name}: true {kt:.1f} N/m, start {k0:.1f}, fitted {kf:.2f} (error {100 * abs(kf - kt) / kt:.2f} %)")

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
    ax1.semilogy(losses)
    ax1.set_xlabel("iteration")
    ax1.set_ylabel("trajectory mean squared error [mm$^2$]")
    ax1.set_title(f"3-bar on compliant ground: learning curve ({backend})")
    for i, name in enumerate(("c1..c6", "c7..c9")):
        ax2.plot(history[:, i], label=f"{name} (true {TRUE[i]:.0f})")
        ax2.axhline(TRUE[i], color=f"C{i}", ls=":")
    ax2.set_xlabel("iteration")
    ax2.set_ylabel("stiffness [N/m]")
    ax2.legend()
    fig.tight_layout()
    Path(a.plot).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(a.plot, dpi=100)
    print(f"plot: {a.plot}")


if __name__ == "__main__":
    main()
