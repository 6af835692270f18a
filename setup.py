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

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


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
        build_dir = os.path.abspath(os.path.join(self.build_temp, "cmake"))
        os.makedirs(build_dir, exist_ok=True)
        args = [
            f"-DCMAKE_BUILD_TYPE=Release",
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
        self.announce(f"tendyn: configuring CMake in {build_dir}", level=2)
        subprocess.run([cmake, "-S", HERE, "-B", build_dir, *args], check=True)
        build = [cmake, "--build", build_dir, "--target", ext.target]
        # cmake --build honours CMAKE_BUILD_PARALLEL_LEVEL itself; `build_ext -j N` as a fallback.
        if "CMAKE_BUILD_PARALLEL_LEVEL" not in os.environ and self.parallel:
            build += ["--parallel", str(self.parallel)]
        subprocess.run(build, check=True)

        built = glob.glob(os.path.join(build_dir, "python", "tendyn", "_tendyn*.so"))
        if len(built) != 1:
            raise RuntimeError(f"setup.py: expected one _tendyn*.so in {build_dir}/python/tendyn, found {built}")
        dest = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(built[0], dest)
        shutil.copymode(built[0], dest)


setup(
    version=cmake_version(),
    packages=["tendyn"],
    package_dir={"tendyn": "python/tendyn"},
    ext_modules=[CMakeExtension("tendyn._tendyn", target="tendyn_python")],
    cmdclass={"build_ext": CMakeBuild},
    zip_safe=False,
    options={"build": {"build_base": build_base()}, "egg_info": {"egg_base": build_base()}},
)
