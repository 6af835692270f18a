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
