#!/usr/bin/env python3
"""Byte-for-byte regression check of the shipped example commands.

Runs a fixed list of short `tendyn` commands, hashes every file each one writes (sha256; JSON
files with their wall-clock fields removed, since those vary from run to run) and either records
the hashes or compares them with a recorded file.

    tests/regression/output_hashes.py --tendyn build/tendyn --record hashes.txt
    tests/regression/output_hashes.py --tendyn build/tendyn --check hashes.txt

Run from the repository root (the commands name models/...). Exit status: 0 all equal (or
recorded), 1 a hash differs or is missing, 2 a command failed. Takes about a minute on 2 cores.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

# Wall-clock times are removed before hashing: JSON keys below, CSV columns whose header contains
# "wall", text lines starting with "wall time".
# Fields whose value is a wall-clock measurement, removed before hashing.
WALL_KEYS = {"wall_time", "wall_time_s", "wall_s", "elapsed_s", "elapsed_wall_s"}

# Not numerical output: the viewer page embeds the web bundle (it changes with web/), and PNG
# plots depend on matplotlib's version. Their data (scene.json, the CSV files) is hashed.
SKIPPED_SUFFIXES = (".html", ".png", ".svg")

TENSEGRITY_MODELS = ["prism3", "prism3_matrices", "superball", "three_bar", "three_bar_lying", "tower"]
# Models with the impulse ground, which refuses the adaptive integrator (an input error by design).
IMPULSE_GROUND = {"three_bar", "three_bar_lying", "tower"}


def commands():
    """(name, argv[, files]) tuples; {out} is replaced by a fresh output directory, {tmp} by its
    parent, where `files` (name -> text, with the same replacements) are written first."""
    cmds = []
    for m in TENSEGRITY_MODELS:
        for integ in ["rk4", "dopri5", "lie-verlet"]:
            if integ == "dopri5" and m in IMPULSE_GROUND:
                continue
            cmds.append((f"simulate-{m}-{integ}",
                         ["simulate", f"models/{m}.yaml", "--integrator", integ, "--duration", "2",
                          "--html", "-q", "-o", "{out}"]))
    cmds.append(("simulate-builtin", ["simulate", "--duration", "0.5", "-q", "-o", "{out}"]))
    for planner in ["exhaustive", "lookahead"]:
        cmds.append((f"plan-{planner}",
                     ["plan", "--planner", planner, "--duration", "0.6", "-j", "2", "-q", "-o", "{out}"]))
    cmds.append(("plan-coordinate-1thread",
                 ["plan", "--planner", "coordinate", "--duration", "0.6", "-j", "1", "-q", "-o", "{out}"]))
    cmds.append(("cdpr-experiment",
                  ["cdpr-experiment", "--dt", "0.002", "--control-dt", "0.004", "--out", "{out}"]))
    for m in ["double_pendulum", "arm6", "biped"]:
        cmds.append((f"tree-simulate-{m}",
                     ["tree", "simulate", f"models/tree/{m}.yaml", "--duration", "0.2",
                      "--out", "{out}/result.csv"]))
    cmds.append(("tree-simulate-biped-free",
                 ["tree", "simulate", "models/tree/biped.yaml", "--base", "free", "--duration", "0.2",
                  "--out", "{out}/result.json"]))
    cmds.append(("sweep", ["sweep", "--psi-min", "0", "--psi-max", "20", "--psi-step", "10",
                           "--duration", "0.3", "-j", "2", "-q", "-o", "{out}"]))
    # written into the temporary directory beside {out} (not hashed); threads 1: lines in index order
    spec = ("model: prism\nprism: {damping_Nspm: 5.0}\nsimulation: {duration_s: 0.3}\n"
            "grid:\n  psi_deg: [30, 50]\n  stiffness_Npm: [8, 12]\nout: {out}/results.jsonl\nthreads: 1\n")
    cmds.append(("sweep-spec", ["sweep", "--spec", "{tmp}/spec.yaml", "-q"], {"spec.yaml": spec}))
    cmds.append(("study-distributions",
                 ["study", "distributions", "--duration", "0.06", "--no-plot", "-j", "2", "-q", "-o", "{out}"]))
    return cmds


def strip_wall(v):
    if isinstance(v, dict):
        return {k: strip_wall(x) for k, x in v.items() if k not in WALL_KEYS}
    if isinstance(v, list):
        return [strip_wall(x) for x in v]
    return v


def drop_csv_wall_columns(text):
    """CSV text without the columns whose header names a wall-clock time (plain comma split: the
    wall column is last and numeric, so quoted commas earlier on the line do not matter)."""
    lines = text.split("\n")
    head = lines[0].split(",")
    wall = [i for i, h in enumerate(head) if "wall" in h]
    if not wall:
        return text
    if wall != list(range(len(head) - len(wall), len(head))):
        raise SystemExit("output_hashes: wall-time column not last in a CSV header: " + lines[0])
    k = len(wall)
    return "\n".join(",".join(l.split(",")[:-k]) if l else l for l in lines)


def file_hash(path):
    data = open(path, "rb").read()
    if path.endswith(".csv"):
        data = drop_csv_wall_columns(data.decode()).encode()
    if path.endswith(".txt"):
        data = b"\n".join(l for l in data.split(b"\n") if not l.lower().startswith(b"wall time"))
    if path.endswith(".json"):
        try:
            obj = json.loads(data)
            data = json.dumps(strip_wall(obj), sort_keys=True).encode()
        except ValueError:
            pass
    return hashlib.sha256(data).hexdigest()


def run_all(tendyn, only):
    hashes = {}
    failed = []
    for cmd in commands():
        name, argv = cmd[0], cmd[1]
        if only and only not in name:
            continue
        with tempfile.TemporaryDirectory(prefix="tendyn-hash-") as tmp:
            out = os.path.join(tmp, "out")
            os.makedirs(out)
            sub = lambda a: a.replace("{out}", out).replace("{tmp}", tmp)
            for fname, text in (cmd[2] if len(cmd) > 2 else {}).items():
                with open(os.path.join(tmp, fname), "w") as f:
                    f.write(sub(text))
            args = [tendyn] + [sub(a) for a in argv]
            r = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0:
                failed.append(name)
                print(f"FAILED {name} (exit {r.returncode}): {' '.join(args)}\n{r.stderr}", file=sys.stderr)
                continue
            n = 0
            for root, _, files in os.walk(out):
                for f in sorted(files):
                    if f.endswith(SKIPPED_SUFFIXES):
                        continue
                    p = os.path.join(root, f)
                    hashes[f"{name}/{os.path.relpath(p, out)}"] = file_hash(p)
                    n += 1
            if n == 0:
                failed.append(name)
                print(f"FAILED {name}: wrote no file", file=sys.stderr)
    return hashes, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tendyn", default="build/tendyn", help="the program to run")
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--record", metavar="FILE", help="write the hashes to FILE")
    g.add_argument("--check", metavar="FILE", help="compare with the hashes in FILE")
    ap.add_argument("--only", default="", help="run only the commands whose name contains this")
    a = ap.parse_args()
    hashes, failed = run_all(a.tendyn, a.only)
    if failed:
        return 2
    if a.record:
        with open(a.record, "w") as f:
            for k in sorted(hashes):
                f.write(f"{hashes[k]}  {k}\n")
        print(f"recorded {len(hashes)} hashes to {a.record}")
        return 0
    want = {}
    for line in open(a.check):
        h, k = line.rstrip("\n").split("  ", 1)
        if not a.only or a.only in k.split("/")[0]:
            want[k] = h
    bad = 0
    for k in sorted(set(want) | set(hashes)):
        if want.get(k) != hashes.get(k):
            bad += 1
            print(f"DIFFERS {k}: recorded {want.get(k, '-')}, now {hashes.get(k, '-')}")
    print(f"{len(hashes) - bad if bad else len(hashes)} of {len(set(want) | set(hashes))} hashes equal")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
