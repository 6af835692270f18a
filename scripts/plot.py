#!/usr/bin/env python3
"""Static plots of tendyn results (matplotlib, PNG or SVG by the output's extension).

  plot.py study  STUDY.csv  OUT.png     bar charts of speed and max lateral error per variant
  plot.py plan   SCHEDULE.csv OUT.png   centroid track against the target path (summary.json beside the CSV),
                                        cable length changes and tensions
  plot.py sweep  SWEEP.csv  OUT.png     document 000's psi study: max / final strain per triple
  plot.py cdpr   DIR        OUT.png     document 002's printer experiment (tendyn cdpr-experiment --out DIR):
                                        lower tensions vs optimal profile per stage, lower-group norm, errors
  plot.py identify DIR      OUT.png     tendyn identify --out DIR: measured markers (dots) against the fitted
                                        multiple-shooting solution, one free run of the fitted and of the
                                        nominal model, per coordinate of the first markers; residuals over time
"""
import csv
import sys

try:
    import matplotlib
except ImportError:
    sys.exit(f"plot.py: matplotlib is missing for {sys.executable} (Debian: apt-get install python3-matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def study(src, out):
    r = rows(src)
    labels = [x["variant"] for x in r]
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    ax[0].barh(labels, [float(x["speed_mps"]) for x in r], color="tab:blue")
    ax[0].set_xlabel("speed along the path [m/s]")
    ax[1].barh(labels, [1000 * float(x["max_lateral_error_m"]) for x in r], color="tab:orange")
    ax[1].set_xlabel("max lateral error [mm]")
    ax[1].set_yticklabels([])
    for a in ax:
        a.invert_yaxis()
        a.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def plan(src, out):
    """Centroid track against the target path (from summary.json beside the CSV; else the x axis),
    drive-cable rest-length changes and, when the CSV has them, drive-cable tensions."""
    import json
    import os

    r = rows(src)
    t = [float(x["t_s"]) for x in r]
    tension_keys = [k for k in r[0] if k.endswith(".tension_N")]
    fig, ax = plt.subplots(1, 3 if tension_keys else 2, figsize=(17 if tension_keys else 12, 4.5))
    meta = os.path.join(os.path.dirname(os.path.abspath(src)), "summary.json")
    pts = None
    if os.path.exists(meta):
        with open(meta) as f:
            pts = json.load(f).get("path_points_m")
    cx = [1000 * float(x["cx_m"]) for x in r]
    cy = [1000 * float(x["cy_m"]) for x in r]
    ax[0].plot(cx, cy, "o-", ms=3, label="centroid (knots)")
    if pts:
        # clip the far end of the path to the track's extent
        span = max(max(cx) - min(cx), max(cy) - min(cy), 10.0)
        px, py = [1000 * p[0] for p in pts], [1000 * p[1] for p in pts]
        for i in range(1, len(px)):
            dx, dy = px[i] - px[i - 1], py[i] - py[i - 1]
            n = (dx * dx + dy * dy) ** 0.5
            if n > 2 * span:
                px[i], py[i] = px[i - 1] + dx / n * 1.5 * span, py[i - 1] + dy / n * 1.5 * span
                px, py = px[: i + 1], py[: i + 1]
                break
        ax[0].plot(px, py, "k--", lw=1, label="target path")
    else:
        ax[0].axhline(0, color="k", lw=0.8, label="target (x axis)")
    ax[0].set_xlabel("Cx [mm]")
    ax[0].set_ylabel("Cy [mm]")
    ax[0].axis("equal")
    ax[0].legend()
    for key in r[0]:
        if key.endswith(".u_m"):
            ax[1].plot(t, [1000 * float(x[key]) for x in r], label=key[:-4])
    ax[1].set_xlabel("t [s]")
    ax[1].set_ylabel("rest-length change [mm]")
    ax[1].legend()
    for key in tension_keys:
        ax[2].plot(t, [float(x[key]) for x in r], label=key[: -len(".tension_N")])
    if tension_keys:
        ax[2].set_xlabel("t [s]")
        ax[2].set_ylabel("tension at the knots [N]")
        ax[2].legend()
    for a in ax:
        a.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def sweep(src, out):
    r = rows(src)
    psi = [float(x["psi_deg"]) for x in r]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for tri, col in (("top", "tab:blue"), ("bottom", "tab:red"), ("side", "tab:green")):
        ax.plot(psi, [100 * float(x[tri + "_max_strain"]) for x in r], color=col, label=tri + " max")
        ax.plot(psi, [100 * float(x[tri + "_min_strain"]) for x in r], color=col, ls="--", label=tri + " min")
    ax.axhline(100, color="k", lw=0.8)
    ax.axhline(0, color="k", lw=0.8)
    normal = [p for p, x in zip(psi, r) if x["normal"] == "1"]
    if normal:
        ax.axvspan(min(normal), max(normal), color="tab:green", alpha=0.1, label="normal mode")
    ax.set_xlabel("psi [deg]")
    ax.set_ylabel("strain [%]")
    ax.legend(ncol=2, fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def cdpr(src, out):
    import os

    s1 = rows(os.path.join(src, "stage1_without.csv"))
    s2 = rows(os.path.join(src, "stage2_with.csv"))
    opt = ".tension_opt_N"
    lower = [k[: -len(opt)] for k in s1[0] if k.startswith("l") and k.endswith(opt)]  # printer8: lower cables l1..l4
    col = lambda r, k, f=1.0: [f * float(x[k]) for x in r]  # noqa: E731
    t1, t2 = col(s1, "t_s"), col(s2, "t_s")
    fig, ax = plt.subplots(2, 2, figsize=(13, 8), sharex=True)
    for a, r, t, title in ((ax[0][0], s1, t1, "stage 1: without tension control"),
                           (ax[0][1], s2, t2, "stage 2: with tension control")):
        for i, n in enumerate(lower):
            c = "C%d" % i
            a.plot(t, col(r, n + ".tension_N", 1e-3), color=c, lw=1, label=n)
            a.plot(t, col(r, n + opt, 1e-3), color=c, lw=1, ls="--")
        a.set_title(title + " (dashed: optimal profile)", fontsize=10)
        a.set_ylabel("lower-cable tension [kN]")
        a.legend(ncol=4, fontsize=8)
    ax[1][0].plot(t1, col(s1, "lower_norm_N", 1e-3), color="k", label="without control")
    ax[1][0].plot(t2, col(s2, "lower_norm_N", 1e-3), color="tab:red", ls="--", label="with control")
    ax[1][0].plot(t2, col(s2, "opt_lower_norm_N", 1e-3), color="tab:green", lw=0.8, label="optimal")
    ax[1][0].set_ylabel("lower-group tension norm [kN]")
    ax[1][0].legend(fontsize=8)
    e = ax[1][1]
    e.plot(t1, col(s1, "pos_err_m", 1e3), color="k", lw=1, label="position, without [mm]")
    e.plot(t2, col(s2, "pos_err_m", 1e3), color="tab:red", lw=1, ls="--", label="position, with [mm]")
    e.plot(t1, col(s1, "rot_err_rad", 1e3), color="tab:gray", lw=1, label="orientation, without [mrad]")
    e.plot(t2, col(s2, "rot_err_rad", 1e3), color="tab:orange", lw=1, ls="--", label="orientation, with [mrad]")
    e.set_ylabel("tracking error [mm], [mrad]")
    e.legend(fontsize=8)
    for a in ax.flat:
        a.grid(alpha=0.3)
    for a in ax[1]:
        a.set_xlabel("t [s]")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def identify(src, out):
    import os

    mk = rows(os.path.join(src, "markers.csv"))
    res = rows(os.path.join(src, "residuals.csv"))
    num = lambda v: float(v) if v != "" else float("nan")  # noqa: E731
    t = [num(x["t_s"]) for x in mk]
    markers = [k[: -len("_x_m")] for k in mk[0] if k.endswith("_x_m") and not k.endswith(("_fit_x_m", "_free_x_m", "_nominal_x_m"))]
    shown = markers[:3]
    fig, ax = plt.subplots(len(shown) + 1, 3, figsize=(14, 3 * (len(shown) + 1)), sharex=True, squeeze=False)
    for i, n in enumerate(shown):
        for c, axis in enumerate("xyz"):
            a = ax[i][c]
            a.plot(t, [1e3 * num(x[f"{n}_{axis}_nominal_m"]) for x in mk], color="tab:gray", lw=0.8, ls=":", label="nominal, free run")
            a.plot(t, [1e3 * num(x[f"{n}_{axis}_free_m"]) for x in mk], color="tab:green", lw=0.8, ls="--", label="fitted, free run")
            a.plot(t, [1e3 * num(x[f"{n}_{axis}_fit_m"]) for x in mk], color="tab:blue", lw=1, label="fitted, segments")
            a.plot(t, [1e3 * num(x[f"{n}_{axis}_m"]) for x in mk], ".", color="k", ms=2, label="measured")
            a.set_ylabel(f"{n} {axis} [mm]")
            a.grid(alpha=0.3)
    ax[0][0].legend(fontsize=7)
    rt = [num(x["t_s"]) for x in res]
    for c, axis in enumerate("xyz"):
        a = ax[-1][c]
        for n in markers:
            a.plot(rt, [1e3 * num(x[f"{n}_d{axis}_m"]) for x in res], ".", ms=2, label=n)
        a.set_ylabel(f"residual {axis} [mm]")
        a.set_xlabel("t [s]")
        a.grid(alpha=0.3)
    ax[-1][0].legend(ncol=3, fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    kinds = {"study": study, "plan": plan, "sweep": sweep, "cdpr": cdpr, "identify": identify}
    if len(sys.argv) != 4 or sys.argv[1] not in kinds:
        sys.exit(__doc__)
    kinds[sys.argv[1]](sys.argv[2], sys.argv[3])
