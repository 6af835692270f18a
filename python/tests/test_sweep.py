"""tendyn.sweep: order, determinism across worker counts, resume after an interruption, Dask."""
import json
import subprocess
from pathlib import Path

import pytest

import tendyn

SPEC = {"model": "prism", "prism": {"damping_Nspm": 5.0, "damping_law": "relative_velocity"},
        "simulation": {"duration_s": 0.3, "dt_s": 1e-3}}
GRID = {"psi_deg": [35.0, 50.0, 65.0], "stiffness_Npm": [8.0, 12.0]}


def test_grid_order():
    pts = tendyn.grid_points({"a": [1, 2], "b": ["x", "y", "z"]})
    assert pts[:4] == [{"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "z"}, {"a": 2, "b": "x"}]
    assert len(pts) == 6


def test_spec_matches_direct_simulation():
    r = tendyn.sweep(SPEC, [{"psi_deg": 50.0, "stiffness_Npm": 12.0}])[0]
    p = tendyn.tensegrity.PrismParams()
    p.psi_rad = 50.0 * 3.141592653589793 / 180.0
    p.stiffness_Npm, p.damping_Nspm = 12.0, 5.0
    p.damping_law = tendyn.tensegrity.DampingLaw.kRelativeVelocity
    o = tendyn.tensegrity.SimulationOptions()
    o.duration_s, o.dt_s = 0.3, 1e-3
    s = tendyn.tensegrity.simulate(tendyn.tensegrity.make_prism(p), o, record=False)["summary"]
    assert r["energy_final_J"] == s.final_energy.total()
    assert r["max_strain"] == s.monitor.max_strain.tolist()


def test_identical_for_any_worker_count(tmp_path):
    one = tendyn.sweep(SPEC, GRID, workers=1)
    three = tendyn.sweep(SPEC, GRID, workers=3, out=tmp_path / "r.jsonl")
    assert one == three
    lines = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert sorted(x["index"] for x in lines) == list(range(6))
    assert {x["index"]: x["result"] for x in lines} == dict(enumerate(one))


def test_resume_runs_only_the_rest(tmp_path):
    out = tmp_path / "r.jsonl"
    calls = []

    def fn(point):
        calls.append(point["i"])
        if len(calls) > 4 and fail[0]:
            raise KeyboardInterrupt  # an interruption after 4 points
        return {"square": point["i"] ** 2, "seed": point["seed"]}

    grid = [{"i": i} for i in range(10)]
    fail = [True]
    with pytest.raises(KeyboardInterrupt):
        tendyn.sweep(fn, grid, out=out, seed=100)
    assert len(tendyn.load_results(out)) == 4
    with open(out, "a") as fh:
        fh.write('{"index": 4, "poi')  # a line cut short by a kill: ignored and run again
    calls.clear()
    fail[0] = False
    res = tendyn.sweep(fn, grid, out=out, seed=100)
    assert calls == [4, 5, 6, 7, 8, 9]
    assert res == [{"square": i * i, "seed": 100 + i} for i in range(10)]
    calls.clear()
    assert tendyn.sweep(fn, grid, out=out, seed=100) == res and calls == []
    with pytest.raises(tendyn.Error):
        tendyn.sweep(fn, [{"i": 1}], out=out)  # another grid in the same file


def test_failure_keeps_finished_points(tmp_path):
    def fn(point):
        if point["i"] == 3:
            raise ValueError("bad point")
        return point["i"]

    with pytest.raises(ValueError, match="bad point"):
        tendyn.sweep(fn, [{"i": i} for i in range(6)], workers=2, out=tmp_path / "r.jsonl")
    assert 3 not in tendyn.load_results(tmp_path / "r.jsonl")


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # tornado inside distributed
@pytest.mark.parametrize("processes", [False, True])
def test_dask_equals_local_bit_for_bit(tmp_path, processes):
    distributed = pytest.importorskip("distributed")
    local = tendyn.sweep(SPEC, GRID, workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=processes,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = tendyn.sweep(SPEC, GRID, client=client, out=tmp_path / "d.jsonl")
    assert remote == local
    assert json.dumps(remote) == json.dumps(local)


def test_cli_sweep_spec_equals_python_sweep(tmp_path):
    """`tendyn sweep --spec FILE` (C++ threads) and tendyn.sweep (Python) give the same records."""
    cli = Path(tendyn.__file__).resolve().parents[2] / "tendyn"
    if not cli.exists():
        pytest.skip(f"CLI not built at {cli}")
    spec = {"model": "prism", "prism": {"damping_Nspm": 5.0, "damping_law": "relative_velocity"},
            "simulation": {"duration_s": 1.0, "dt_s": 0.001}}
    grid = {"psi_deg": [30.0, 45.0, 60.0, 75.0], "stiffness_Npm": [8.0, 12.0]}
    out = tmp_path / "cli.jsonl"
    (tmp_path / "spec.yaml").write_text(json.dumps({**spec, "grid": grid, "out": str(out)}))
    subprocess.run([str(cli), "sweep", "--spec", str(tmp_path / "spec.yaml"), "-j", "2", "-q"], check=True)
    records = tendyn.load_results(out)
    py = tendyn.sweep(spec, grid, workers=2)
    assert sorted(records) == list(range(8))
    for i, result in enumerate(py):
        assert records[i]["point"] == tendyn.grid_points(grid)[i]
        assert records[i]["result"] == result


def test_never_is_none():
    """A run that never over-strains: first_overstrain_* are None (null in JSON), not -1."""
    r = tendyn.run_spec({"model": "prism", "simulation": {"duration_s": 0.2}}, {"psi_deg": 50.0})
    assert r["first_overstrain_time_s"] is None and r["first_overstrain_cable"] is None
    assert r["first_slack_time_s"] == pytest.approx(0.143) and r["first_slack_cable"] == "top1"


def test_progress_lines_only_on_a_terminal(monkeypatch, capsys):
    grid = {"x": list(range(40))}
    tendyn.sweep(lambda p: p["x"], grid)  # pytest captures stderr: not a terminal
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(tendyn, "_stderr_is_terminal", lambda: True)
    assert tendyn.sweep(lambda p: p["x"], grid) == list(range(40))
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 20 and lines[0].startswith("sweep: 2/40 points") and lines[-1].startswith("sweep: 40/40 points")
    assert all("\r" not in line for line in lines)
    tendyn.sweep(lambda p: p["x"], grid, progress=False)
    assert capsys.readouterr().err == ""
    calls = []
    tendyn.sweep(lambda p: p["x"], grid, progress=lambda done, total: calls.append((done, total)))
    assert len(calls) == 40 and calls[-1] == (40, 40)
    assert capsys.readouterr().err == ""


# Issue 15: the same bad specs are refused by `tendyn sweep --spec` (exit 2, file:line:col) and by
# tendyn.run_spec / tendyn.sweep (tendyn.Error), with the same reason.
BAD_SPECS = [
    ({"prism": {"stiffnes_Npm": 5.0}}, {"duration_s": 0.01}, "prism has no field 'stiffnes_Npm'"),
    ({"simulation": {"dt": 0.001}}, {"duration_s": 0.01}, "simulation has no field 'dt'"),
    ({}, {"psi_deg": float("inf")}, "must be a finite number"),
    ({"prism": {"n": 3.7}}, {"duration_s": 0.01}, "must be an integer"),
    ({}, {"stiffness_Npm": "abc"}, "must be a finite number"),
    ({"model": str(Path(__file__).resolve().parents[2] / "models" / "prism3.yaml")}, {"psi_deg": 10.0},
     "grid name 'psi_deg' is a prism parameter, but 'model' is the file"),
    ({}, {"psi": 10.0}, "grid name 'psi' is neither a prism nor a simulation field"),
]


@pytest.mark.parametrize("spec,point,message", BAD_SPECS)
def test_spec_errors_agree_with_cli(tmp_path, spec, point, message):
    with pytest.raises(tendyn.Error, match=message.replace("(", r"\(").replace(")", r"\)")):
        tendyn.run_spec(spec, point)
    cli = Path(tendyn.__file__).resolve().parents[2] / "tendyn"
    if not cli.exists():
        pytest.skip(f"CLI not built at {cli}")
    grid = {k: [v] for k, v in point.items()}
    # JSON has no inf: YAML's .inf is what a spec file holds
    text = json.dumps({**spec, "grid": grid}).replace("Infinity", ".inf")
    (tmp_path / "spec.yaml").write_text(text)
    r = subprocess.run([str(cli), "sweep", "--spec", str(tmp_path / "spec.yaml"), "-q", "-o", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr
    assert "spec.yaml:1:" in r.stderr


def test_grid_size_is_bounded():
    with pytest.raises(tendyn.Error, match="the grid has 1000000000 points or more, above the limit 1000000"):
        tendyn.grid_points({"a": range(1000), "b": range(1000), "c": range(1000)})


# Issue 13: the spec is read by the C++ library for Python and the CLI alike. Before, Python had
# its own reader (it let unknown keys through where the CLI refused them); now an unknown key at any
# level is refused by both with the very same reason (Python has no file:line:col: "sweep spec").
UNKNOWN_KEYS = [
    {"grid": {"psi_deg": [40.0]}, "outt": "x.jsonl"},
    {"prism": {"stiffness": 5.0}, "grid": {"psi_deg": [40.0]}},
    {"simulation": {"duration": 0.1}, "grid": {"psi_deg": [40.0]}},
    {"grid": {"psi_degree": [40.0]}},
    {"prism": {"damping_law": "viscous"}, "grid": {"psi_deg": [40.0]}},
]


@pytest.mark.parametrize("spec", UNKNOWN_KEYS)
def test_unknown_keys_are_refused_exactly_like_the_cli(tmp_path, spec):
    grid = spec["grid"]
    base = {k: v for k, v in spec.items() if k != "grid"}
    with pytest.raises(tendyn.Error) as py_err:
        tendyn.sweep(base, grid)  # refused before any point runs
    py_msg = str(py_err.value)
    assert py_msg.startswith("sweep spec: ")
    with pytest.raises(tendyn.Error) as run_err:
        tendyn.run_spec(spec, tendyn.grid_points(grid)[0])
    assert str(run_err.value) == py_msg
    cli = Path(tendyn.__file__).resolve().parents[2] / "tendyn"
    if not cli.exists():
        pytest.skip(f"CLI not built at {cli}")
    (tmp_path / "spec.yaml").write_text(json.dumps(spec))
    r = subprocess.run([str(cli), "sweep", "--spec", str(tmp_path / "spec.yaml"), "-q", "-o", str(tmp_path / "o")],
                       capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    # "tendyn: error: <dir>/spec.yaml:LINE:COL: <reason>" -> "<reason>"
    cli_reason = r.stderr.strip().split("spec.yaml:1:", 1)[1].split(": ", 1)[1]
    assert cli_reason == py_msg[len("sweep spec: "):]
    assert not (tmp_path / "o").exists()


def test_seed_is_a_spec_field_only_through_sweep_seed():
    grid = {"psi_deg": [40.0]}
    spec = {"simulation": {"duration_s": 0.05}}
    seeded = tendyn.sweep(spec, grid, seed=7)  # sweep adds "seed" to each point: not a spec field
    assert seeded == tendyn.sweep(spec, grid)
    with pytest.raises(tendyn.Error, match="grid name 'seed' is neither a prism nor a simulation field"):
        tendyn.sweep(spec, {**grid, "seed": [1]})


def test_bound_spec_run_writes_the_cli_bytes(tmp_path):
    """tendyn.tensegrity.run_sweep (a spec file read by the library) writes the CLI's results file."""
    text = "simulation: {duration_s: 0.05}\ngrid:\n  psi_deg: [30, 45.5]\n  damping_law: [axial, relative_velocity]\n"
    (tmp_path / "spec.yaml").write_text(text)
    spec = tendyn.tensegrity.load_sweep_spec(str(tmp_path / "spec.yaml"))
    assert spec.npoint == 4
    pts = tendyn.tensegrity.grid_points(spec)
    assert pts[1] == {"psi_deg": 30, "damping_law": "relative_velocity"} and type(pts[2]["psi_deg"]) is float
    report = tendyn.tensegrity.run_sweep(spec, str(tmp_path / "py.jsonl"), 2)
    assert (report["npoint"], report["nresumed"], report["nrun"]) == (4, 0, 4)
    records = tendyn.load_results(tmp_path / "py.jsonl")
    assert [records[i]["point"] for i in range(4)] == pts
    assert records[3]["result"] == tendyn.run_spec({"simulation": {"duration_s": 0.05}}, pts[3])
    cli = Path(tendyn.__file__).resolve().parents[2] / "tendyn"
    if not cli.exists():
        pytest.skip(f"CLI not built at {cli}")
    subprocess.run([str(cli), "sweep", "--spec", str(tmp_path / "spec.yaml"), "-q", "-o", str(tmp_path / "cli")], check=True)
    assert (tmp_path / "cli" / "results.jsonl").read_bytes() == (tmp_path / "py.jsonl").read_bytes()
