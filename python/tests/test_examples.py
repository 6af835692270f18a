"""The paired examples (examples/cpp and examples/python, same names) give the same answers."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

import tendyn

BUILD = Path(tendyn.__file__).resolve().parents[2]
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


def test_motorised_three_bar_roll_quick():
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    out = subprocess.run([sys.executable, str(REPO / "examples" / "python" / "motorised_three_bar_roll.py"), "--quick",
                          "--threads", "2"], check=True, capture_output=True, text=True, env=env).stdout
    assert "5 periods of 0.1 s planned, 405 rollouts with the motors" in out, out
    rolled = float(out.split("distance rolled (replayed centre of mass): ")[1].split()[0])
    assert rolled > 0.0, out
