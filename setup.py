"""Builds the extension tendyn._tendyn with CMake for `pip install .` (see pyproject.toml).

build_ext configures the repository's CMake project in a directory inside setuptools'
build_temp (Release, static library, no tests, benchmarks, CLI or viewer), builds only the target
`tendyn_python`, and copies `_tendyn*.so` into the wheel's `tendyn` package; the pure-Python files
come from python/tendyn/. The version is read from `project(tendyn VERSION x.y.z` in CMakeLists.txt,
the one place it is written (so the wheel, tendyn.__version__ and the C++ kVersion agree).

Nothing is written into the source tree: setuptools' build directory (and with it build_temp and the
CMake build) and the egg-info go to TENDYN_PY_BUILD_DIR, by default
<tmp>/tendyn-pip-<uid>-<hash of the source path>, kept between installs so that a second install
only rebuilds what changed (`python3 setup.py build --build-base DIR` still overrides it).

Environment: CMAKE_BUILD_PARALLEL_LEVEL (parallel jobs, honoured by `cmake --build`), CMAKE_ARGS
(extra configure arguments, split on spaces), TENDYN_CMAKE (the cmake program, default `cmake`).
ccache is used as the compiler launcher when it is installed.

TENDYN_CMAKE_BUILD_DIR=DIR uses an existing build tree of this repository instead (for example
`build/` of scripts/build.sh): DIR must be configured from this source directory with
TENDYN_BUILD_PYTHON=ON and a static tendyn library (the default), for the Python that runs pip;
only the target `tendyn_python` is brought up to date there and nothing is configured. The test
suite uses it so that the library is not compiled a second time (python/tests/test_install.py).

Before anything is built, python/build_backend/tendyn_prereq.py checks what the build needs
(setuptools, wheel, Python.h, numpy, cmake, a compiler, pybind11) and names what is missing.
pip hides a build's output unless run with -v: the CMake and ninja lines go to pip's log (shown with
-v) and to TENDYN_BUILD_LOG (default <build_temp>/cmake/build.log), and when a terminal is there
(/dev/tty) one line on it shows the progress ([done/total] of ninja); TENDYN_PIP_PROGRESS=0 turns
that line off.

The wheel carries the run-time data the installed program has in <prefix>/share/tendyn: the
models (models/**) and the plot scripts (scripts/plot.py, scripts/plot_scene.py), as package data
in tendyn/share/tendyn/, where tendyn.data_dir() finds them.

Imported as a module (not run by pip), this file only defines its functions: the tests call
cmake_configure_args() to check that the configuration pip uses still configures.
"""
import glob
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":  # before setuptools is imported: a missing setuptools is named too
    sys.path.insert(0, os.path.join(HERE, "python", "build_backend"))
    from tendyn_prereq import check_prerequisites

    check_prerequisites()

from setuptools import Extension, setup  # noqa: E402
from setuptools.command.build_ext import build_ext  # noqa: E402
from setuptools.command.build_py import build_py  # noqa: E402

#: The run-time data copied into the wheel (package tendyn, under share/tendyn/), as the install
#: rules put them in <prefix>/share/tendyn (cmake/install.cmake).
DATA_DIRS = ["models"]
DATA_SCRIPTS = ["scripts/plot.py", "scripts/plot_scene.py"]


def copy_package_data(package_dir: str) -> list:
    """Copies the models and plot scripts into PACKAGE_DIR/share/tendyn; returns the files written."""
    dest = os.path.join(package_dir, "share", "tendyn")
    written = []
    for d in DATA_DIRS:
        for root, _, files in os.walk(os.path.join(HERE, d)):
            for f in sorted(files):
                src = os.path.join(root, f)
                out = os.path.join(dest, os.path.relpath(src, HERE))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                shutil.copyfile(src, out)
                written.append(out)
    for rel in DATA_SCRIPTS:
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(os.path.join(HERE, rel), out)
        shutil.copymode(os.path.join(HERE, rel), out)
        written.append(out)
    return written


class BuildPyWithData(build_py):
    def run(self) -> None:
        super().run()
        copy_package_data(os.path.join(self.build_lib, "tendyn"))


class Progress:
    """The lines of a CMake run: all into the log and to stdout (pip -v shows them), and ninja's
    [done/total] as one updating line on the terminal when there is one (pip hides stdout)."""

    def __init__(self, log_path: str):
        os.makedirs(os.path.dirname(log_path), exist_ok=True)
        self.log = open(log_path, "a", encoding="utf-8")
        self.log_path = log_path
        self.tty = None
        if os.environ.get("TENDYN_PIP_PROGRESS", "1") != "0":
            try:
                self.tty = open("/dev/tty", "w", encoding="utf-8")
            except OSError:
                self.tty = None

    def status(self, text: str, end: str = "\n") -> None:
        if self.tty:
            self.tty.write("\r\033[K" + text + end)
            self.tty.flush()

    def run(self, cmd: list, what: str) -> None:
        print(f"tendyn: {what}: {' '.join(cmd)}", flush=True)
        self.log.write(f"$ {' '.join(cmd)}\n")
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        tail = []
        for line in proc.stdout:
            self.log.write(line)
            self.log.flush()
            sys.stdout.write(line)
            sys.stdout.flush()
            tail = (tail + [line])[-40:]
            m = re.match(r"\[(\d+)/(\d+)\]", line)
            if m:
                done, total = int(m.group(1)), int(m.group(2))
                self.status(f"tendyn: {what} [{done}/{total}] {100 * done // max(total, 1)}%", end="")
        rc = proc.wait()
        self.status(f"tendyn: {what}: {'done' if rc == 0 else 'FAILED'}")
        if rc != 0:
            sys.stderr.write("".join(tail))
            raise RuntimeError(f"setup.py: {what} failed (exit {rc}); the whole output is in {self.log_path}")


def cmake_version() -> str:
    with open(os.path.join(HERE, "CMakeLists.txt"), encoding="utf-8") as fh:
        m = re.search(r"project\(\s*tendyn\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", fh.read())
    if not m:
        raise RuntimeError("setup.py: no `project(tendyn VERSION x.y.z` in CMakeLists.txt")
    return m.group(1)


def build_base() -> str:
    explicit = os.environ.get("TENDYN_PY_BUILD_DIR")
    if explicit:
        return os.path.abspath(explicit)
    key = hashlib.sha256(HERE.encode()).hexdigest()[:12]
    return os.path.join(tempfile.gettempdir(), f"tendyn-pip-{os.getuid()}-{key}")


def cmake_configure_args() -> list:
    """The CMake cache options of the build tree pip configures (without generator and launcher)."""
    return [
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DPython_EXECUTABLE={sys.executable}",
        "-DBUILD_SHARED_LIBS=OFF",
        "-DTENDYN_BUILD_TESTS=OFF",
        "-DTENDYN_BUILD_BENCH=OFF",
        "-DTENDYN_BUILD_FUZZ=OFF",
        "-DTENDYN_BUILD_CLI=OFF",
        "-DTENDYN_WITH_VIEWER=OFF",
        "-DTENDYN_BUILD_PYTHON=ON",
        "--no-warn-unused-cli",
    ]


def read_cmake_cache(build_dir: str) -> dict:
    """NAME -> value of DIR/CMakeCache.txt; an error naming the directory when it is not a build tree."""
    cache = os.path.join(build_dir, "CMakeCache.txt")
    if not os.path.isfile(cache):
        raise RuntimeError(f"setup.py: TENDYN_CMAKE_BUILD_DIR={build_dir}: no CMakeCache.txt (not a configured CMake build tree)")
    entries = {}
    with open(cache, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            m = re.match(r"([A-Za-z0-9_.-]+):[A-Z]+=(.*)$", line.rstrip("\n"))
            if m:
                entries[m.group(1)] = m.group(2)
    return entries


def check_prebuilt_tree(build_dir: str) -> None:
    """Refuses a build tree that would not give this source's self-contained module for this Python."""
    cache = read_cmake_cache(build_dir)
    where = f"setup.py: TENDYN_CMAKE_BUILD_DIR={build_dir}"
    source = cache.get("CMAKE_HOME_DIRECTORY", "")
    if not source or os.path.realpath(source) != os.path.realpath(HERE):
        raise RuntimeError(f"{where}: configured from {source or '(unknown)'}, not from {HERE}")
    if cache.get("TENDYN_BUILD_PYTHON", "OFF").upper() not in ("ON", "1", "TRUE", "YES"):
        raise RuntimeError(f"{where}: TENDYN_BUILD_PYTHON is not ON there")
    if cache.get("BUILD_SHARED_LIBS", "OFF").upper() in ("ON", "1", "TRUE", "YES"):
        raise RuntimeError(f"{where}: BUILD_SHARED_LIBS=ON there; the wheel needs the static tendyn library")
    python = cache.get("Python_EXECUTABLE") or cache.get("_Python_EXECUTABLE", "")
    if python and os.path.realpath(python) != os.path.realpath(sys.executable):
        # A venv's python is a link to the interpreter the tree was configured with: same ABI.
        raise RuntimeError(f"{where}: configured for {python}, pip runs {os.path.realpath(sys.executable)}")


class CMakeExtension(Extension):
    def __init__(self, name: str, target: str):
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        if not isinstance(ext, CMakeExtension):
            super().build_extension(ext)
            return
        cmake = os.environ.get("TENDYN_CMAKE", "cmake")
        prebuilt = os.environ.get("TENDYN_CMAKE_BUILD_DIR")
        if prebuilt:
            build_dir = os.path.abspath(prebuilt)
            check_prebuilt_tree(build_dir)
            self.announce(f"tendyn: using the build tree {build_dir} (TENDYN_CMAKE_BUILD_DIR)", level=2)
        else:
            build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
            self.configure(cmake, build_dir)
        build = [cmake, "--build", build_dir, "--target", ext.target]
        # cmake --build honours CMAKE_BUILD_PARALLEL_LEVEL itself; `build_ext -j N` as a fallback.
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ and self.parallel:
            build += ["--parallel", str(self.parallel)]
        self.progress(build_dir).run(build, "building the extension module")

        built = glob.glob(os.path.join(build_dir, "python", "tendyn", "_tendyn*.so"))
        if len(built) != 1:
            raise RuntimeError(f"setup.py: expected one _tendyn*.so in {build_dir}/python/tendyn, found {built}")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)
        shutil.copymode(built[0], dest)

    def progress(self, build_dir: str) -> Progress:
        if not hasattr(self, "_progress"):
            log = os.environ.get("TENDYN_BUILD_LOG") or os.path.join(self.build_temp, "cmake", "build.log")
            self._progress = Progress(os.path.abspath(log))
            # pip shows stderr only on failure (or with -v): the terminal line says where to look
            hint = (f"tendyn: compiling the C++ extension with CMake (minutes on 2 cores the first time); "
                    f"pip -v shows the build lines; log: {self._progress.log_path}")
            print(hint, file=sys.stderr, flush=True)
            self._progress.status(hint)
        return self._progress

    def configure(self, cmake: str, build_dir: str) -> None:
        os.makedirs(build_dir, exist_ok=True)
        args = cmake_configure_args()
        # A fresh configuration every time (options of an earlier install must not stick), while
        # the build tree's objects stay: only what changed is compiled again.
        cache = os.path.join(build_dir, "CMakeCache.txt")
        if os.path.exists(cache):
            os.remove(cache)
        if shutil.which("ninja"):
            args.append("-GNinja")
        if shutil.which("ccache"):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        self.progress(build_dir).run([cmake, "-S", HERE, "-B", build_dir, *args], f"configuring CMake in {build_dir}")


if __name__ == "__main__":  # pip (setuptools.build_meta) runs this file as __main__
    setup(
        version=cmake_version(),
        packages=["tendyn"],
        package_dir={"tendyn": "python/tendyn"},
        ext_modules=[CMakeExtension("tendyn._tendyn", target="tendyn_python")],
        cmdclass={"build_ext": CMakeBuild, "build_py": BuildPyWithData},
        zip_safe=False,
        options={"build": {"build_base": build_base()}, "egg_info": {"egg_base": build_base()}},
    )
