"""What `pip install .` needs, checked before anything is compiled (tendyn_build_backend.py, setup.py).

Checked (check_prerequisites): setuptools >= 61, wheel (setuptools < 70.1 has no bdist_wheel of its
own), the Python development headers (Python.h), numpy (only when pip builds without isolation:
with isolation pip installs the dependencies itself), cmake, a C++ compiler and pybind11's CMake
package. The message names the Debian packages for Debian's /usr/bin/python3 and the pip command for
any other Python. setup.py runs the same check when it is run by hand.
"""
from __future__ import annotations

import glob
import os
import shutil
import sys
import sysconfig

DEBIAN_PYTHON = "/usr/bin/python3"


def _version_tuple(text: str) -> tuple:
    parts = []
    for p in text.split(".")[:3]:
        digits = "".join(ch for ch in p if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)


def _isolated_build() -> bool:
    """pip's build isolation puts its overlay environment (pip-build-env-*) on sys.path."""
    return any("pip-build-env" in p for p in sys.path)


def _pybind11_cmake_found() -> bool:
    try:
        import pybind11  # noqa: F401  (the pip package carries its CMake files)

        return True
    except ImportError:
        pass
    prefixes = ["/usr", "/usr/local", sys.prefix, sys.base_prefix] + os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep)
    for prefix in filter(None, prefixes):
        for pattern in ("lib/cmake/pybind11/pybind11Config.cmake", "share/cmake/pybind11/pybind11Config.cmake",
                        "lib/*/cmake/pybind11/pybind11Config.cmake"):
            if glob.glob(os.path.join(prefix, pattern)):
                return True
    return False


def missing_prerequisites() -> list:
    """(what is missing, Debian package for /usr/bin/python3, pip package or None) for each lack."""
    missing = []
    try:
        import setuptools

        st_version = _version_tuple(setuptools.__version__)
        if st_version < (61,):
            missing.append((f"setuptools >= 61 (found {setuptools.__version__})", "python3-setuptools", "setuptools"))
    except ImportError:
        st_version = (0,)
        missing.append(("setuptools", "python3-setuptools", "setuptools"))
    if st_version < (70, 1):
        try:
            import wheel  # noqa: F401
        except ImportError:
            missing.append(("wheel (bdist_wheel; pip fails with \"invalid command 'bdist_wheel'\" without it)",
                            "python3-wheel", "wheel"))
    include = sysconfig.get_paths().get("include") or ""
    if not os.path.isfile(os.path.join(include, "Python.h")):
        v = f"{sys.version_info.major}.{sys.version_info.minor}"
        missing.append((f"the Python {v} development headers ({include}/Python.h)", f"python3-dev (python{v}-dev)", None))
    if not _isolated_build():
        try:
            import numpy  # noqa: F401
        except ImportError:
            missing.append(("numpy (tendyn's arrays; needed at run time)", "python3-numpy", "numpy"))
    cmake = os.environ.get("TENDYN_CMAKE", "cmake")
    if not shutil.which(cmake):
        missing.append((f"the program {cmake} (CMake)", "cmake", None))
    if not any(shutil.which(c) for c in filter(None, (os.environ.get("CXX"), "c++", "g++", "clang++"))):
        missing.append(("a C++20 compiler (c++, g++ or clang++)", "build-essential", None))
    if not _pybind11_cmake_found():
        missing.append(("pybind11's CMake package (pybind11Config.cmake)", "pybind11-dev", "pybind11"))
    return missing


def prerequisites_message(missing: list) -> str:
    py = os.path.realpath(sys.executable)
    lines = [f"tendyn: cannot build the Python package with {sys.executable} (Python {sys.version.split()[0]}); missing:"]
    lines += [f"  - {what}" for what, _, _ in missing]
    debs = " ".join(dict.fromkeys(deb.split(" ")[0] for _, deb, _ in missing))
    pips = " ".join(p for _, _, p in missing if p)
    debian = py == os.path.realpath(DEBIAN_PYTHON)
    venv = sys.prefix != sys.base_prefix
    sees_debian = any(p.rstrip("/") == "/usr/lib/python3/dist-packages" for p in sys.path)
    lines.append("How to get them:")
    if debian and (not venv or sees_debian):
        lines.append(f"  sudo apt-get install {debs}   (Debian 12; scripts/install-deps.sh test installs them all)")
    else:
        if debian:
            lines.append(f"  this virtual environment ({sys.prefix}) does not see Debian's packages: recreate it with")
            lines.append("    python3 -m venv --system-site-packages DIR   and   sudo apt-get install " + debs)
        else:
            lines.append(f"  Debian's packages ({debs}) serve Debian's {DEBIAN_PYTHON}, not this Python ({py}):")
            lines.append(f"    sudo apt-get install {debs} && {DEBIAN_PYTHON} -m pip install --no-build-isolation .")
        if pips:
            lines.append(f"  or give this Python what it lacks: {sys.executable} -m pip install {pips}")
        if any(p is None and "headers" in w for w, _, p in missing):
            lines.append("  (Python.h comes with the Python: python3-dev for Debian's, the include/ directory of a Python built from source)")
    return "\n".join(lines)


def check_prerequisites() -> None:
    """Raises SystemExit with the message above when anything is missing (nothing compiled yet)."""
    missing = missing_prerequisites()
    if missing:
        raise SystemExit(prerequisites_message(missing))

