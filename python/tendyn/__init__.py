"""tendyn: rod-and-cable robots in Python.

Thin bindings of the C++ library with the C++ names: ``tendyn.tensegrity``, ``tendyn.cdpr`` and
``tendyn.tree`` mirror the namespaces ``tendyn::tensegrity``, ``tendyn::cdpr`` and ``tendyn::tree``.
Errors: ``tendyn.Error`` (bad input, a ValueError) and ``tendyn.SimulationError`` (a failed run, also a
RuntimeError, with ``.time``), both carrying the C++ message.

Live view: ``tendyn.viewer.show(model)`` streams a running loop to ``tendyn serve``'s page /live.

Learning environments: ``tendyn.envs.make(name)`` / ``tendyn.envs.make_vec(name, num_envs)`` (the
Gymnasium API, vectorised over the C++ batch, with domain randomisation; ``import tendyn.envs``).

Shipped data: :func:`data_dir` (the models and plot scripts, found as the installed program finds
<prefix>/share/tendyn: TENDYN_DATA_DIR, then the wheel's copy, then the install prefix) and
:func:`model_path` (a model by name, ``model_path("three_bar")``, as ``tendyn simulate three_bar``).

Python helpers: :func:`sweep` (parallel, deterministic, resumable parameter sweeps, locally in
threads or on a Dask cluster), :func:`grid_points` and :func:`run_spec` (the sweep spec of
``tendyn sweep --spec``, run by the C++ library: include/tendyn/tensegrity/sweep.hpp);
:func:`identify` (a tensegrity's parameters from its recorded motion, as ``tendyn identify``:
include/tendyn/tensegrity/identify.hpp, docs/IDENTIFY.md).
"""
from __future__ import annotations

import concurrent.futures
import functools
import itertools
import json
import os
import sys
from typing import Any, Callable, Iterable, Mapping, Sequence

from . import _tendyn
from ._tendyn import Error, SimulationError, __version__, tensegrity



def load_model(path: str | os.PathLike) -> Any:
    """Read a tensegrity model file by its extension: MuJoCo MJCF (.xml) or YAML
    (tendyn.tensegrity.load_model). ``path`` may also be a shipped model's name, resolved by
    :func:`model_path` as the program does: ``tendyn.load_model("three_bar")``."""
    if not os.path.exists(path):
        path = model_path(path)
    return tensegrity.load_model(os.fspath(path))
# `import tendyn.tensegrity` (and cdpr, tree) work like real submodules.
sys.modules[__name__ + ".tensegrity"] = tensegrity
__all__ = ["Error", "SimulationError", "__version__", "tensegrity", "load_model", "sweep", "grid_points", "run_spec", "load_results", "identify",
           "data_dir", "model_path"]
if hasattr(_tendyn, "cdpr"):
    cdpr = _tendyn.cdpr
    sys.modules[__name__ + ".cdpr"] = cdpr
    __all__.append("cdpr")
if hasattr(_tendyn, "tree"):
    tree = _tendyn.tree
    sys.modules[__name__ + ".tree"] = tree
    __all__.append("tree")
# The live view: tendyn.viewer.show(model) on the bound viz::LiveClient (tendyn.viz).
viz = _tendyn.viz
sys.modules[__name__ + ".viz"] = viz
from . import viewer  # noqa: E402
__all__ += ["viz", "viewer"]


# ---------------------------------------------------------------------------------------------
# Shipped data (models, plot scripts)

def _data_dir_candidates() -> list:
    here = os.path.dirname(os.path.realpath(__file__))
    return [
        os.path.join(here, "share", "tendyn"),  # the wheel's package data (setup.py)
        os.path.join(here, "..", "..", "share", "tendyn"),  # a build tree: <build>/python/tendyn
        os.path.join(here, "..", "..", "..", "..", "share", "tendyn"),  # <prefix>/lib/python3/dist-packages/tendyn
        os.path.join(sys.prefix, "share", "tendyn"),
    ]


@functools.lru_cache(maxsize=None)
def _locate_data_dir(env: str) -> str:
    if env:
        if os.path.isdir(os.path.join(env, "models")):
            return env
        raise Error(f"data directory not found: TENDYN_DATA_DIR='{env}' has no models/ directory")
    tried = []
    for d in _data_dir_candidates():
        d = os.path.normpath(d)
        if os.path.isdir(os.path.join(d, "models")):
            return d
        tried.append(d)
    raise Error("data directory (models/, scripts/) not found; tried " + " ".join(f"'{d}'" for d in tried) +
                "; install tendyn (pip install . or cmake --install) or set TENDYN_DATA_DIR")


def data_dir() -> "os.PathLike":
    """The directory of the shipped models (``models/``) and plot scripts (``scripts/plot.py``,
    ``scripts/plot_scene.py``), a :class:`pathlib.Path`. Found as the installed program finds
    ``<prefix>/share/tendyn``: ``$TENDYN_DATA_DIR`` when set (it must have ``models/``), else the
    copy inside the installed package (pip's wheel), else ``<build>/share/tendyn`` of a build tree,
    else ``<prefix>/share/tendyn`` of a ``cmake --install`` or the .deb. Raises tendyn.Error naming the
    directories tried."""
    import pathlib

    return pathlib.Path(_locate_data_dir(os.environ.get("TENDYN_DATA_DIR", "")))


def _model_names(models: str) -> list:
    names = []
    for root, _, files in os.walk(models):
        for f in files:
            stem, ext = os.path.splitext(f)
            if ext in (".yaml", ".urdf"):
                names.append(os.path.relpath(os.path.join(root, stem), models).replace(os.sep, "/"))
    return sorted(set(names))


def model_path(name: str | os.PathLike) -> "os.PathLike":
    """A model file by path or by name, resolved as the program resolves its MODEL argument: an
    existing path as given; else a relative name without extension is looked up as
    ``data_dir()/models/<name>.yaml`` (or ``.urdf``), and ``models/...`` under ``data_dir()``.
    ``model_path("three_bar")`` is the shipped models/three_bar.yaml. Raises tendyn.Error naming
    the places looked at and the shipped model names."""
    import pathlib

    p = pathlib.Path(name)
    if p.exists():
        if p.is_dir():
            raise Error(f"model_path: '{name}' is a directory, not a file")
        return p
    tried = [str(p)]
    text = os.fspath(name)
    if text and not p.is_absolute():
        base = data_dir()
        candidates = []
        if not p.suffix and p.name not in (".", ".."):
            candidates += [base / "models" / (text + ext) for ext in (".yaml", ".urdf")]
        if text.startswith("models/"):
            candidates.append(base / p)
        for c in candidates:
            if c.is_file():
                return c
            tried.append(str(c))
        if len(tried) > 1:
            raise Error(f"model_path: no such file or model name: '{text}' (looked for " + ", ".join(f"'{t}'" for t in tried) +
                        f"); the models in {base / 'models'} are: " + ", ".join(_model_names(str(base / "models"))))
    raise Error(f"model_path: no such file: '{text}'")


# ---------------------------------------------------------------------------------------------
# Parameter sweeps

def grid_points(grid: Mapping[str, Iterable[Any]] | Sequence[Mapping[str, Any]]) -> list[dict]:
    """The points of a grid, in a fixed order.

    ``grid`` is either a mapping name -> values (the Cartesian product, first name varying slowest,
    like nested loops in the mapping's order) or a sequence of point dicts (used as given).
    """
    if isinstance(grid, Mapping):
        names = list(grid.keys())
        values = [list(grid[n]) for n in names]
        count = 1
        for n, v in zip(names, values):
            if not v:
                raise Error(f"grid: {n}: must be a non-empty list")
            count *= len(v)
            if count > MAX_GRID_POINTS:
                raise Error(f"grid: the grid has {count} points or more, above the limit {MAX_GRID_POINTS}")
        return [dict(zip(names, combo)) for combo in itertools.product(*values)]
    return [dict(p) for p in grid]


def _jsonable(value: Any) -> Any:
    """NumPy scalars and arrays -> Python numbers and lists (for json.dumps)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"sweep: result value of type {type(value).__name__} is not JSON-serialisable")


def _normalise(result: Any) -> Any:
    # A JSON round trip, so that a result computed now and one read back from the results file are
    # the same Python object (floats round-trip exactly through repr).
    return json.loads(json.dumps(result, default=_jsonable, allow_nan=True))


def load_results(path: str | os.PathLike) -> dict[int, dict]:
    """Records of a sweep results file (JSON lines), by point index. A last line cut short by a
    crash is ignored."""
    records: dict[int, dict] = {}
    try:
        with open(path, "r", encoding="utf-8") as fh:
            for line in fh:
                if not line.endswith("\n"):
                    break  # cut short: the point is run again
                line = line.strip()
                if line:
                    rec = json.loads(line)
                    records[int(rec["index"])] = rec
    except FileNotFoundError:
        pass
    return records


def _drop_partial_line(path: str | os.PathLike) -> None:
    """Truncate a results file to its last complete line (a crash may leave a partial one)."""
    try:
        with open(path, "rb+") as fh:
            data = fh.read()
            if data and not data.endswith(b"\n"):
                fh.truncate(data.rfind(b"\n") + 1)
    except FileNotFoundError:
        pass


MAX_GRID_POINTS = 1_000_000  # as `tendyn sweep --spec` (docs/CLI.md)


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def _terminal_progress(total: int) -> Callable[[int, int], None]:
    """The default progress of :func:`sweep` on a terminal: one stderr line per ~5 % of the points."""
    import time
    start = time.monotonic()
    step = max(1, total // 20)
    state = {"first": None}

    def report(done: int, n: int) -> None:
        if state["first"] is None:
            state["first"] = done - 1  # points already in `out` when the run started
        if done % step and done != n:
            return
        elapsed = time.monotonic() - start
        ran = done - state["first"]
        eta = elapsed / ran * (n - done) if ran > 0 else 0.0
        print(f"sweep: {done}/{n} points (elapsed {elapsed:.1f} s, eta {eta:.1f} s)", file=sys.stderr, flush=True)
    return report


def run_spec(spec: Mapping[str, Any], point: Mapping[str, Any]) -> dict:
    """Run one point of a declarative sweep spec and return its metrics (a JSON-ready dict).

    The spec and its checks are those of ``tendyn sweep --spec`` (the same C++ code,
    ``tendyn.tensegrity.sweep_spec_from_dict`` and ``run_sweep_point``): keys ``model``
    (``"prism"``, built by make_prism from ``spec["prism"]`` updated by the point's PrismParams
    names, ``psi_deg`` setting psi_rad, ``damping_law`` "axial" or "relative_velocity", ``layout`` "pivot" or "centred"; or a model
    file path), ``simulation`` (SimulationOptions fields, ``integrator`` by name), ``grid``,
    ``out``, ``threads``. Point keys are prism or simulation fields. An unknown key at any level,
    a non-finite number, a non-integer ``n``, or prism parameters with a model file raise
    tendyn.Error with the same reason as the CLI.
    Metrics: normal_mode, first slack/over-strain (time, cable; both None when it never happens),
    max/min strain per cable, final energies, max energy drift, final COM, steps. Runs in C++
    with the GIL released.
    """
    return tensegrity.run_sweep_point(tensegrity.sweep_spec_from_dict(spec), point)


def _run_spec_seeded(spec: Mapping[str, Any], point: Mapping[str, Any]) -> dict:
    """run_spec for :func:`sweep` with ``seed``: the ``seed`` it adds to each point is not a spec field."""
    return run_spec(spec, {k: v for k, v in point.items() if k != "seed"})


def sweep(fn_or_spec: Callable[[dict], Any] | Mapping[str, Any],
          grid: Mapping[str, Iterable[Any]] | Sequence[Mapping[str, Any]],
          workers: int = 1,
          out: str | os.PathLike | None = None,
          client: Any = None,
          seed: int | None = None,
          progress: Callable[[int, int], None] | bool | None = None) -> list:
    """Run ``fn(point)`` for every point of ``grid`` and return the results in grid order.

    - ``fn_or_spec``: a callable taking a point dict and returning a JSON-serialisable result, or a
      spec mapping for :func:`run_spec`. Heavy work should be in tendyn calls, which release the GIL,
      so threads run in parallel.
    - ``grid``: see :func:`grid_points`. With ``seed``, point i also gets ``"seed": seed + i``, so
      a seeded computation is the same for any worker count and order.
    - ``workers``: threads on this machine (ignored when ``client`` is given).
    - ``out``: a JSON-lines file; one line ``{"index", "point", "result"}`` is appended (and
      flushed to disk) per finished point. If it already holds points, they are not run again
      (resume after an interruption); a point that differs from the grid's raises tendyn.Error.
    - ``client``: a ``dask.distributed.Client``; the points are submitted to its cluster. Results
      equal the local run bit for bit (the same C++ code on the same inputs).
    - ``progress``: ``progress(done, total)`` is called after each point. By default (None) a line
      ``sweep: done/total points (elapsed, eta)`` goes to stderr about every 5 % of the points when
      stderr is a terminal (never into a log file or a pipe); ``False`` turns that off.

    Results are normalised through JSON (so fresh and resumed results compare equal). If a point
    raises, the finished points are kept in ``out`` and the exception is re-raised.
    """
    if callable(fn_or_spec):
        fn = fn_or_spec
    else:
        tensegrity.sweep_spec_from_dict(fn_or_spec)  # a bad spec is refused before any point runs
        fn = functools.partial(run_spec if seed is None else _run_spec_seeded, dict(fn_or_spec))
    points = grid_points(grid)
    if seed is not None:
        for i, p in enumerate(points):
            p["seed"] = seed + i
    total = len(points)
    if progress is None:
        progress = _terminal_progress(total) if _stderr_is_terminal() else False
    results: list = [None] * total
    done: set[int] = set()
    fh = None
    if out is not None:
        _drop_partial_line(out)
        for idx, rec in load_results(out).items():
            if idx >= total or _normalise(points[idx]) != rec.get("point"):
                raise Error(f"sweep: {os.fspath(out)}: point {idx} does not belong to this grid "
                            f"(stored {rec.get('point')!r}); use another results file")
            results[idx] = rec["result"]
            done.add(idx)
        fh = open(out, "a", encoding="utf-8")
    pending = [i for i in range(total) if i not in done]

    def record(i: int, value: Any) -> None:
        results[i] = _normalise(value)
        if fh is not None:
            fh.write(json.dumps({"index": i, "point": points[i], "result": results[i]},
                                default=_jsonable, allow_nan=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        done.add(i)
        if progress:
            progress(len(done), total)

    def drain(futures: dict, completed: Iterable, is_error: Callable[[Any], bool], cancel_all) -> None:
        # Record every point that finishes; after the first failure cancel the rest, keep the
        # points already finished, then re-raise that failure.
        first_exc = None
        for fut in completed:
            if fut.cancelled():
                continue
            if is_error(fut):
                if first_exc is None:
                    first_exc = fut.exception()
                    cancel_all()
                continue
            record(futures[fut], fut.result())
        if first_exc is not None:
            raise first_exc

    try:
        if client is not None:
            from distributed import as_completed
            futures = {client.submit(fn, points[i], pure=False): i for i in pending}

            def cancel_dask() -> None:
                for f in futures:
                    if not f.done():
                        f.cancel()
            try:
                drain(futures, as_completed(list(futures)), lambda f: f.status == "error", cancel_dask)
            finally:
                cancel_dask()
        elif workers <= 1:
            for i in pending:
                record(i, fn(points[i]))
        else:
            pool = concurrent.futures.ThreadPoolExecutor(max_workers=workers)
            try:
                futures = {pool.submit(fn, points[i]): i for i in pending}

                def cancel_local() -> None:
                    for f in futures:
                        f.cancel()
                drain(futures, concurrent.futures.as_completed(futures),
                      lambda f: f.exception() is not None, cancel_local)
            finally:
                pool.shutdown(wait=True, cancel_futures=True)
    finally:
        if fh is not None:
            fh.close()
    return results


# ---------------------------------------------------------------------------------------------
# Parameter identification

def identify(model: Any, data: Any, fit: str | Sequence[Any], *, progress: Callable[[int, float, float], None] | None = None,
             **options: Any) -> Any:
    """Fits a tensegrity's parameters to a recorded motion (``tendyn identify``, docs/IDENTIFY.md).

    ``model``: a ``tensegrity.Model`` or the path of a model file; ``data``: a
    ``tensegrity.MotionData`` or the path of a motion CSV; ``fit``: the ``--fit`` text
    (``"stiffness:all,damping:c1+c2,friction"``) or a list of ``tensegrity.ParameterGroup``;
    ``options``: fields of ``tensegrity.IdentifyOptions`` (``segment_s=0.5``, ``loss="huber"``
    or ``tensegrity.RobustLoss.kHuber``, ...); ``progress(iteration, cost, max_gradient)``.
    Returns a ``tensegrity.IdentifyResult`` (``.model`` is the fitted model, ``.parameters`` the
    nominal / fitted / std values). Raises ``tendyn.Error`` on bad input (naming the option or
    the place), ``tendyn.SimulationError`` when the model cannot be simulated over the data.
    """
    if isinstance(model, (str, os.PathLike)):
        model = tensegrity.load_model_file(os.fspath(model)).model
    if isinstance(data, (str, os.PathLike)):
        data = tensegrity.load_motion_csv(model, os.fspath(data))
    groups = tensegrity.parse_fit_spec(model, fit) if isinstance(fit, str) else list(fit)
    if isinstance(options.get("loss"), str):
        options["loss"] = tensegrity.robust_loss_from_string(options["loss"])
    opts = tensegrity.IdentifyOptions(**options)
    return tensegrity.identify(model, data, groups, opts, progress)
