"""`pip install` of the repository into a fresh virtual environment, then the installed package is
used from an empty directory (python/README.md, "Install with pip").

By default the install takes the extension from the build tree this test suite runs against
(setup.py's TENDYN_CMAKE_BUILD_DIR, the directory of the imported `tendyn`), so the library is not
compiled a second time; everything else is pip's real path (setup.py, the wheel, the venv, the
import from an empty directory). The configuration pip makes on its own (static library, no CLI,
tests or viewer) is checked by configuring it (test_the_configuration_pip_makes_configures).
TENDYN_PIP_TEST_FRESH=1 makes the install compile everything, as a user's `pip install .` does
(about 6 min on 2 cores without ccache: a long run, not in CI; python/README.md). Set
TENDYN_SKIP_PIP_TEST=1 to skip both.
Offline: --no-index --no-build-isolation, Debian's pip, setuptools and wheel (scripts/install-deps.sh test).
"""
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import importlib.util

import pytest

import tendyn

REPO = Path(__file__).resolve().parents[2]


def cmake_version() -> str:
    m = re.search(r"project\(\s*tendyn\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", (REPO / "CMakeLists.txt").read_text())
    assert m, "no project(tendyn VERSION x.y.z in CMakeLists.txt"
    return m.group(1)


def test_version_is_the_cmake_project_version():
    # tendyn.__version__ is the C++ tendyn::kVersion; setup.py gives the wheel the CMake version.
    assert tendyn.__version__ == cmake_version()


CHECK = textwrap.dedent(r"""
    import importlib.metadata, os, sys
    import numpy as np
    import tendyn
    prefix = os.path.realpath(sys.prefix)
    assert os.path.realpath(tendyn.__file__).startswith(prefix + os.sep), (tendyn.__file__, prefix)
    assert tendyn.__version__ == sys.argv[1] == importlib.metadata.version("tendyn"), tendyn.__version__

    # tree: a torque callback (a damped joint) against a schedule of zeros
    tree = tendyn.tree
    model = tree.load_model(sys.argv[2])
    calls = []
    def damp(t, q, v):
        calls.append(t)
        return -0.5 * v
    r = tree.simulate(model, [0.4, 0.0], duration_s=0.2, dt_s=1e-3, torque=damp, output_interval_s=0.01)
    assert r.q.shape == (21, 2) and len(calls) == 4 * 200 + 21
    free = tree.simulate(model, [0.4, 0.0], duration_s=0.2, dt_s=1e-3, output_interval_s=0.01)
    assert r.energy_J[-1] < free.energy_J[-1] - 1e-6  # the damper took energy out
    print("tree.simulate: ok")

    # the shipped models and plot scripts come with the package (setup.py's package data)
    if hasattr(tendyn, "data_dir"):
        share = os.path.realpath(tendyn.data_dir())
        assert share.startswith(prefix + os.sep), (share, prefix)
        assert os.path.isfile(os.path.join(share, "scripts", "plot.py")), share
        assert tendyn.load_model(tendyn.model_path("three_bar")).model.nrod == 3
        print("data_dir: ok")

    ts = tendyn.tensegrity
    if hasattr(ts, "step"):
        m = ts.make_prism(ts.PrismParams())
        s = ts.State(m.initial_state.x, 0.0)
        d = ts.make_data(m)
        ts.compute_derivative(m, s, d)
        ts.step(m, d, s, 1e-3)
        assert abs(s.time_s - 1e-3) < 1e-15, s.time_s
        print("tensegrity.step: ok")
    if "controller" in (ts.simulate.__doc__ or ""):
        o = ts.SimulationOptions()
        o.duration_s = 0.02
        seen = []
        ts.simulate(ts.make_prism(ts.PrismParams()), o, controller=lambda t, state, data: seen.append(t))
        assert seen, "controller never called"
        print("tensegrity.simulate(controller=...): ok")
""")


SKIP_PIP = pytest.mark.skipif(os.environ.get("TENDYN_SKIP_PIP_TEST") == "1", reason="TENDYN_SKIP_PIP_TEST=1")


def this_build_tree():
    """The CMake build tree of the imported module (<build>/python/tendyn/_tendyn*.so), or None."""
    tree = Path(tendyn._tendyn.__file__).resolve().parents[2]
    return tree if (tree / "CMakeCache.txt").is_file() else None


def load_setup_py():
    spec = importlib.util.spec_from_file_location("tendyn_setup_py", REPO / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # not __main__: defines the functions, runs no setup()
    return module


@SKIP_PIP
def test_the_configuration_pip_makes_configures(tmp_path):
    args = load_setup_py().cmake_configure_args()
    assert "-DBUILD_SHARED_LIBS=OFF" in args and "-DTENDYN_BUILD_PYTHON=ON" in args
    made = subprocess.run(["cmake", "-S", str(REPO), "-B", str(tmp_path / "cfg"), *args],
                          capture_output=True, text=True)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    cache = (tmp_path / "cfg" / "CMakeCache.txt").read_text()
    assert "TENDYN_BUILD_CLI:BOOL=OFF" in cache and "TENDYN_BUILD_PYTHON:BOOL=ON" in cache


def test_setup_py_refuses_a_build_tree_of_another_source(tmp_path):
    setup_py = load_setup_py()
    (tmp_path / "CMakeCache.txt").write_text("CMAKE_HOME_DIRECTORY:INTERNAL=/somewhere/else\nTENDYN_BUILD_PYTHON:BOOL=ON\n")
    with pytest.raises(RuntimeError, match="not from"):
        setup_py.check_prebuilt_tree(str(tmp_path))
    with pytest.raises(RuntimeError, match="no CMakeCache.txt"):
        setup_py.check_prebuilt_tree(str(tmp_path / "missing"))


@SKIP_PIP
def test_pip_install_into_a_venv_and_use_it(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "TENDYN_CMAKE_BUILD_DIR")}
    env.update(PYTHONNOUSERSITE="1", PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    tree = this_build_tree()
    if os.environ.get("TENDYN_PIP_TEST_FRESH") != "1" and tree is not None:
        env["TENDYN_CMAKE_BUILD_DIR"] = str(tree)
    venv = tmp_path / "venv"
    hint = ("needs Debian's python3-venv python3-pip python3-setuptools python3-wheel "
            "(scripts/install-deps.sh test), or set TENDYN_SKIP_PIP_TEST=1")
    made = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
                          capture_output=True, text=True, env=env)
    assert made.returncode == 0, f"venv: {made.stderr}\n{hint}"
    python = venv / "bin" / "python"
    pip = subprocess.run([str(python), "-m", "pip", "install", "--no-index", "--no-build-isolation", str(REPO)],
                         capture_output=True, text=True, env=env, cwd=tmp_path)
    assert pip.returncode == 0, f"pip install failed ({hint}):\n{pip.stdout[-4000:]}\n{pip.stderr[-4000:]}"

    empty = tmp_path / "empty"
    empty.mkdir()
    run = subprocess.run([str(python), "-c", CHECK, cmake_version(), str(REPO / "models/tree/double_pendulum.yaml")],
                         capture_output=True, text=True, env=env, cwd=empty)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "tree.simulate: ok" in run.stdout and "data_dir: ok" in run.stdout
    print(run.stdout, end="")
    assert not list(empty.iterdir())  # nothing written to the working directory


BACKEND_DIR = REPO / "python" / "build_backend"


def test_a_python_without_the_build_tools_is_told_what_is_missing_before_building(tmp_path):
    # A venv that does not see Debian's packages: no setuptools, no wheel, no numpy. pip imports
    # the build backend first; it must stop there (nothing built) and name what to install.
    venv = tmp_path / "bare"
    made = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"python3 -m venv is not available: {made.stderr.strip()}")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    probe = f"import sys; sys.path.insert(0, {str(BACKEND_DIR)!r}); import tendyn_build_backend"
    run = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=60)
    assert run.returncode != 0, run.stdout + run.stderr
    msg = run.stderr
    for what in ("missing:", "- setuptools", "- wheel", "- numpy", "python3-setuptools python3-wheel python3-numpy",
                 "-m pip install setuptools wheel numpy", "--system-site-packages"):
        assert what in msg, msg
    assert list(tmp_path.iterdir()) == [venv]  # nothing was built


def test_this_python_has_every_build_prerequisite():
    sys.path.insert(0, str(BACKEND_DIR))
    try:
        import tendyn_prereq
    finally:
        sys.path.remove(str(BACKEND_DIR))
    missing = tendyn_prereq.missing_prerequisites()
    assert missing == [], tendyn_prereq.prerequisites_message(missing)


def test_pyproject_uses_the_checking_backend():
    text = (REPO / "pyproject.toml").read_text()
    assert 'build-backend = "tendyn_build_backend"' in text and 'backend-path = ["python/build_backend"]' in text


def test_the_build_streams_its_lines_into_a_log_and_reports_a_failure(tmp_path, capsys):
    setup_py = load_setup_py()
    log = tmp_path / "logs" / "build.log"
    progress = setup_py.Progress(str(log))
    progress.run([sys.executable, "-c", "print('[1/2] Building a'); print('[2/2] Linking b')"], "building")
    out = capsys.readouterr().out
    assert "[1/2] Building a" in out and "[2/2] Linking b" in out  # pip -v shows them
    assert "[2/2] Linking b" in log.read_text()
    with pytest.raises(RuntimeError, match=r"failed \(exit 3\).*build\.log"):
        progress.run([sys.executable, "-c", "import sys; print('boom'); sys.exit(3)"], "failing")
    assert "boom" in log.read_text()


def test_the_wheel_carries_the_models_and_plot_scripts(tmp_path):
    written = load_setup_py().copy_package_data(str(tmp_path / "tendyn"))
    share = tmp_path / "tendyn" / "share" / "tendyn"
    assert (share / "models" / "three_bar.yaml").is_file() and (share / "models" / "tree").is_dir()
    assert (share / "scripts" / "plot.py").is_file() and (share / "scripts" / "plot_scene.py").is_file()
    shipped = {p.relative_to(REPO / "models") for p in (REPO / "models").rglob("*") if p.is_file()}
    assert {p.relative_to(share / "models") for p in (share / "models").rglob("*") if p.is_file()} == shipped
    assert len(written) == len(shipped) + 2


def test_data_dir_and_model_names_resolve_like_the_program(monkeypatch, tmp_path):
    monkeypatch.delenv("TENDYN_DATA_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # not the repository: relative paths must not find its models/
    d = tendyn.data_dir()
    assert (d / "models" / "three_bar.yaml").is_file() and (d / "scripts" / "plot.py").is_file()
    assert tendyn.model_path("three_bar") == d / "models" / "three_bar.yaml"
    assert tendyn.model_path("models/three_bar.yaml") == d / "models" / "three_bar.yaml"
    assert tendyn.model_path("tree/double_pendulum").name == "double_pendulum.yaml"
    assert tendyn.load_model(tendyn.model_path("three_bar")).model.nrod == 3
    assert tendyn.load_model("three_bar").model.nrod == 3
    with pytest.raises(tendyn.Error, match=r"no such file or model name: 'three_barr'.*three_bar, "):
        tendyn.model_path("three_barr")
    with pytest.raises(tendyn.Error, match="no such file: '/nowhere/m.yaml'"):
        tendyn.model_path("/nowhere/m.yaml")
    monkeypatch.setenv("TENDYN_DATA_DIR", str(tmp_path / "data"))
    (tmp_path / "data").mkdir()
    with pytest.raises(tendyn.Error, match="has no models/ directory"):
        tendyn.data_dir()
    (tmp_path / "data" / "models").mkdir()
    (tmp_path / "data" / "models" / "mine.yaml").write_text("x")
    assert tendyn.model_path("mine") == tmp_path / "data" / "models" / "mine.yaml"
