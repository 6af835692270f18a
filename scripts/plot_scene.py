#!/usr/bin/env python3
"""Report figures of a tendyn scene.json (docs/VIEWER.md) with matplotlib: the same figures as the
web viewer, as PNG and/or SVG files for papers and CI artefacts.

Usage: plot_scene.py SCENE_JSON OUT_DIR [--format png|svg|png,svg] [--quiet]
Writes OUT_DIR/cables.*, energy.*, com.* (time series and the floor track) and one file per extra
plot of the scene (plot_<n>.*). Run by `tendyn plot RESULT_DIR`.
"""
import argparse
import json
import os
import sys

try:
    import matplotlib
except ImportError:
    sys.exit(f"plot_scene.py: matplotlib is missing for {sys.executable} (Debian: apt-get install python3-matplotlib)")

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def save(fig, out_dir, name, formats, written):
    for ext in formats:
        path = os.path.join(out_dir, f"{name}.{ext}")
        tmp = path + ".partial"
        fig.savefig(tmp, dpi=150, bbox_inches="tight", format=ext, metadata={"Date": None} if ext == "svg" else None)
        os.replace(tmp, path)
        written.append(path)
    plt.close(fig)


def columns(rows):
    return list(zip(*rows)) if rows else []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scene")
    ap.add_argument("out")
    ap.add_argument("--format", default="png")
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    formats = [f for f in a.format.split(",") if f]
    with open(a.scene) as f:
        s = json.load(f)
    fr = s["frames"]
    t = fr["t_s"]
    title = s.get("title", "tendyn")
    os.makedirs(a.out, exist_ok=True)
    written = []
    names = [c["name"] for c in s["cables"]]
    if names and fr.get("cable_tension_N"):
        fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
        for key, ax, label in (("cable_tension_N", axes[0], "tension [N]"), ("cable_strain", axes[1], "strain [-]")):
            for name, col in zip(names, columns(fr.get(key, []))):
                ax.plot(t, col, label=name, lw=1)
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes[1].set_xlabel("t [s]")
        axes[0].set_title(f"{title}: cables")
        if len(names) <= 24:
            axes[0].legend(ncol=min(6, len(names)), fontsize=7, loc="upper right")
        save(fig, a.out, "cables", formats, written)
    e = fr.get("energy_J")
    if e:
        fig, ax = plt.subplots(figsize=(8, 4))
        for key in ("kinetic", "elastic", "gravitational", "total"):
            if key in e:
                ax.plot(t, e[key], label=key, lw=1.5 if key == "total" else 1, color="k" if key == "total" else None)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("energy [J]")
        ax.set_title(f"{title}: energies")
        ax.grid(alpha=0.3)
        ax.legend()
        save(fig, a.out, "energy", formats, written)
    com = fr.get("com_m")
    if com:
        x, y, z = columns(com)
        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for v, lab in ((x, "x"), (y, "y"), (z, "z")):
            axes[0].plot(t, v, label=lab)
        axes[0].set_xlabel("t [s]")
        axes[0].set_ylabel("centre of mass [m]")
        axes[0].legend()
        axes[0].grid(alpha=0.3)
        axes[1].plot(x, y, "-", lw=1.5)
        axes[1].plot([x[0]], [y[0]], "go", label="start")
        axes[1].plot([x[-1]], [y[-1]], "rs", label="end")
        axes[1].set_xlabel("x [m]")
        axes[1].set_ylabel("y [m]")
        axes[1].set_title("COM track on the floor")
        axes[1].axis("equal")
        axes[1].legend()
        axes[1].grid(alpha=0.3)
        fig.suptitle(title)
        save(fig, a.out, "com", formats, written)
    for i, p in enumerate(s.get("plots", [])):
        fig, ax = plt.subplots(figsize=(8, 4))
        pt = p.get("t_s") or t
        for ser in p["series"]:
            ax.plot(pt, ser["values"], label=ser["name"])
        ax.set_xlabel("t [s]")
        ax.set_ylabel(p.get("y_label", ""))
        ax.set_title(p.get("title", ""))
        ax.grid(alpha=0.3)
        ax.legend()
        save(fig, a.out, f"plot_{i + 1}", formats, written)
    if not written:
        print("plot_scene: nothing to plot in " + a.scene, file=sys.stderr)
        return 1
    if not a.quiet:
        for w in written:
            print("wrote " + w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
