#!/usr/bin/env python3
"""Static plots of tendyn results (matplotlib, PNG or SVG by the output's extension).

  plot.py study  STUDY.csv  OUT.png     bar charts of speed and max lateral error per variant
  plot.py plan   SCHEDULE.csv OUT.png   centroid track against the target path + cable length changes
  plot.py sweep  SWEEP.csv  OUT.png     document 000's psi study: max / final strain per triple
"""
import csv
import sys

import matplotlib

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
    r = rows(src)
    t = [float(x["t_s"]) for x in r]
    fig, ax = plt.subplots(1, 2, figsize=(12, 4.5))
    ax[0].plot([1000 * float(x["cx_m"]) for x in r], [1000 * float(x["cy_m"]) for x in r], "o-", ms=3, label="centroid")
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


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("study", "plan", "sweep"):
        sys.exit(__doc__)
    {"study": study, "plan": plan, "sweep": sweep}[sys.argv[1]](sys.argv[2], sys.argv[3])
