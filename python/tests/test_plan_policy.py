"""tendyn.tensegrity planning helpers (python/src/tensegrity/expose_planner.cpp, expose_output_estimate.cpp): the same policies, centroid and
schedule CSV as `tendyn plan`, so that a Python plan reproduces the CLI's files byte for byte."""
import subprocess
from pathlib import Path

import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]
CLI = Path(tendyn.__file__).resolve().parents[2] / "tendyn"


def test_plan_with_the_shared_policies_writes_the_clis_schedule(tmp_path):
    if not CLI.exists():
        pytest.skip(f"CLI not built at {CLI}")
    subprocess.run([str(CLI), "plan", "--drive", "c1,c2", "--duration", "0.3", "-j", "2", "-q", "-o", str(tmp_path)],
                   check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    mf = ts.load_model_file(str(REPO / "models/three_bar.yaml"))
    model = mf.model
    o = ts.PlannerOptions()
    o.drive_cables = ts.cable_indices(model, ["c1", "c2"], "--drive")
    assert o.drive_cables == [0, 1]
    assert ts.remove_drives_on(model, o.drive_cables) == 2
    assert [d.cable for d in model.drives] == [2, 3]
    o.duration_s = 0.3
    o.rollout = ts.rollout_options(model, mf.simulation)
    o.threads = 2
    r = ts.plan(model, o)
    assert ts.plan_nperiod(o) == 3
    assert ts.plan_schedule_csv(model, o.drive_cables, r) == (tmp_path / "schedule.csv").read_text()
    assert list(ts.plan_centroid_m(model, r.final_state)) == list(r.centroid_m[-1])


def test_policy_errors_and_estimates():
    mf = ts.load_model_file(str(REPO / "models/three_bar.yaml"))
    with pytest.raises(tendyn.Error, match="drive: no cable 'zz' in the model"):
        ts.cable_indices(mf.model, ["c1", "zz"], "drive")
    with pytest.raises(tendyn.Error, match="listed twice"):
        ts.cable_indices(mf.model, ["c1", "c1"])
    sim = mf.simulation
    sim.integrator = ts.Integrator.kDormandPrince45
    assert ts.rollout_options(mf.model, sim).integrator == ts.Integrator.kRK4
    o = ts.PlannerOptions()
    o.drive_cables = [0, 1, 2, 3]
    e = ts.estimate_plan_output(mf.model, o, mf.simulation, 0.01)
    assert e.output_bytes > 0 and e.memory_bytes > 0
    assert "rows x 13 columns of schedule.csv" in e.output_what


def test_increment_shape_step_matches_the_cli(tmp_path):
    """Issue 18 item 5: PlannerOptions.increment (document 001 leaves the shape open)."""
    assert ts.PlannerOptions().increment == ts.IncrementShape.kRamp
    for v in ts.IncrementShape.__members__.values():
        assert ts.increment_shape_from_string(ts.to_string(v)) == v
    assert ts.increment_shape_from_string("Step") == ts.IncrementShape.kStep  # names read in any case
    with pytest.raises(tendyn.Error, match=r"unknown increment shape 'stair' \(valid: ramp, step\)"):
        ts.increment_shape_from_string("stair")
    if not CLI.exists():
        pytest.skip(f"CLI not built at {CLI}")
    subprocess.run([str(CLI), "plan", "--drive", "c1,c2", "--duration", "0.2", "--increment", "step", "-j", "2", "-q", "-o",
                    str(tmp_path)], check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    mf = ts.load_model_file(str(REPO / "models/three_bar.yaml"))
    model = mf.model
    o = ts.PlannerOptions(drive_cables=[0, 1], duration_s=0.2, threads=2, increment=ts.IncrementShape.kStep)
    ts.remove_drives_on(model, o.drive_cables)
    o.rollout = ts.rollout_options(model, mf.simulation)
    r = ts.plan(model, o)
    assert r.increment == ts.IncrementShape.kStep
    assert ts.plan_schedule_csv(model, o.drive_cables, r) == (tmp_path / "schedule.csv").read_text()
