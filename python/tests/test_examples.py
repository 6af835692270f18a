"""The paired examples (examples/cpp and examples/python, same names) give the same answers."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tendyn

BUILD = Path(tendyn.__file__).resolve().parents[2]
MIN_QUICK_DISTANCE_M = 0.03  # the quick run (deterministic for its seed, any thread count) rolls 0.074 m
REPO = Path(__file__).resolve().parents[2]


def test_psi_stiffness_sweep_cpp_equals_python(tmp_path):
    cpp = BUILD / "examples" / "psi_stiffness_sweep"
    if not cpp.exists():
        pytest.skip(f"C++ example not built at {cpp}")
    args = ["--duration", "1"]
    out_cpp = subprocess.run([str(cpp), *args, "--threads", "2"], check=True, capture_output=True, text=True).stdout
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    out_py = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "psi_stiffness_sweep.py"), *args,
                             "--workers", "2", "--out", str(tmp_path / "sweep.jsonl")],
                            check=True, capture_output=True, text=True, env=env).stdout
    # first line: counts (+ timing and file in Python); the rest: the normal-mode range per stiffness
    assert out_cpp.splitlines()[0] == out_py.splitlines()[0].rsplit(" in ", 1)[0]
    assert out_cpp.splitlines()[1:] == out_py.splitlines()[1:]
    assert "1000 points" in out_cpp and "normal-mode psi range [" in out_cpp


def run_closed_loop(*args):
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    out = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "closed_loop_three_bar.py"), *args],
                         check=True, capture_output=True, text=True, env=env).stdout
    last = out.splitlines()[-1]  # "distance to target: start 0.3000 m, end 0.2195 m"
    start, end = (float(last.split(word)[1].split()[0]) for word in ("start", "end"))
    return out, start, end


@pytest.mark.parametrize("target", [("0.3", "0"), ("-0.2", "0.2")])
def test_closed_loop_three_bar_gets_closer_to_the_target(target):
    out, start, end = run_closed_loop("--duration", "4", "--target", *target)
    assert start > 0.28
    assert end < start - 0.04, out  # 4 s: about 8 and 6 cm closer
    cpp = BUILD / "examples" / "closed_loop_three_bar"
    if cpp.exists():  # the C++ twin: the same law, the same numbers
        out_cpp = subprocess.run([str(cpp), "--model", str(REPO / "models" / "three_bar.yaml"), "--duration", "4",
                                  "--target", *target], check=True, capture_output=True, text=True).stdout
        assert out_cpp == out


def test_closed_loop_three_bar_stops_at_a_near_target():
    out, start, end = run_closed_loop("--duration", "8", "--target", "0.1", "0.05")
    assert start > 0.11 and end < 0.02, out


def test_learn_gait_cem_quick_rolls_further_than_the_untrained_gait():
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    out = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "learn_gait_cem.py"), "--quick", "--threads", "2"],
                         check=True, capture_output=True, text=True, env=env, timeout=300).stdout
    # "learned gait over 3 s: nominal model 0.123 m; perturbed models mean 0.1 m, min ... ; untrained (constant) gait 0.001 m"
    line = next(l for l in out.splitlines() if l.startswith("learned gait"))
    nominal = float(line.split("nominal model ")[1].split()[0])
    mean_perturbed = float(line.split("perturbed models mean ")[1].split()[0])
    untrained = float(line.split("untrained (constant) gait ")[1].split()[0])
    assert untrained < 0.02, out
    assert nominal > MIN_QUICK_DISTANCE_M and mean_perturbed > 0.5 * MIN_QUICK_DISTANCE_M, out


def test_gradient_fit_stiffness_quick_recovers_the_stiffness(tmp_path):
    """examples/python/gradient_fit_stiffness.py --quick: the loss falls and the fitted stiffnesses approach the truth."""
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    plot = tmp_path / "curve.png"
    out = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "gradient_fit_stiffness.py"), "--quick",
                          "--plot", str(plot)], check=True, capture_output=True, text=True, env=env, timeout=120).stdout
    ratio = float(out.split("(ratio ")[1].split(")")[0])
    errors = [float(line.split("(error ")[1].split(" %")[0]) for line in out.splitlines() if line.startswith("stiffness ")]
    assert ratio < 1e-2, out
    assert len(errors) == 2 and max(errors) < 5.0, out  # from 40 % and 50 % off
    assert plot.stat().st_size > 10000


def test_motorised_three_bar_roll_quick():
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    out = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "motorised_three_bar_roll.py"), "--quick",
                          "--threads", "2"], check=True, capture_output=True, text=True, env=env).stdout
    assert "5 periods of 0.1 s planned, 405 rollouts with the motors" in out, out
    rolled = float(out.split("distance rolled (replayed centre of mass): ")[1].split()[0])
    # quick run: 21.7 mm in 0.5 s (dx +20.0 mm); a gait that does not move the robot, or motors
    # that do not follow, stays far below 10 mm
    assert rolled > 10.0, out


def test_three_bar_motorised_roll_short_run_tips_twice():
    """examples/python/three_bar_motorised_roll.py --duration 4: the gait table's first two phases tip the
    robot off its bottom triangle and over a second edge (two face changes), 0.25 m along -y."""
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    out = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "three_bar_motorised_roll.py"), "--duration", "4"],
                         check=True, capture_output=True, text=True, env=env, timeout=120).stdout
    assert "6 winches in the loop" in out, out
    assert out.split("end-caps on the ground: ")[1].startswith("{n2,n4,n6} -> "), out  # standing first
    changes = int(out.split("face changes: ")[1].split()[0])
    along = float(out.split("along -y: ")[1].split()[0])
    # measured: 2 changes, 252.6 mm; without the gait (or with motors that do not follow) it stands: 0, ~0 mm
    assert changes >= 2, out
    assert along > 200.0, out
