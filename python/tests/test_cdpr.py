"""tendyn.cdpr: model loading, structure matrix, every tension solver, compared with the CLI."""
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tendyn

cdpr = getattr(tendyn, "cdpr", None)
if cdpr is None:
    pytest.skip("built without TENDYN_WITH_CDPR", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
CLI = Path(tendyn.__file__).resolve().parents[2] / "tendyn"
METHODS = ["exhaustive", "lawson_hanson", "exact", "closed_form", "improved_closed_form"]


def load_problem(name):
    """J, w and bounds at the file's pose, assembled as `tendyn tension solve` does."""
    mf = cdpr.load_model(str(REPO / "models/cdpr" / name))
    pose = cdpr.pose_from_vector(mf.model, mf.default_pose)
    p = cdpr.make_tension_problem(mf.model)
    cdpr.update_tension_problem(mf.model, pose, p)
    return mf, p.J.copy(), p.w.copy(), p.options


def test_model_and_structure_matrix():
    mf, J, w, _ = load_problem("printer8.yaml")
    m = mf.model
    assert m.ncable() == 8 and m.wrench_dim() == 6 and J.shape == (6, 8)
    assert m.p_WA.shape == (3, 8)
    # columns of the force rows are unit vectors
    np.testing.assert_allclose(np.linalg.norm(J[:3], axis=0), np.ones(8), atol=1e-14)
    assert cdpr.cables_in_group(m, "lower") == [4, 5, 6, 7]


def test_every_method_and_exact_not_worse_than_lawson_hanson():
    for name in ["printer8.yaml", "planar4.yaml", "cogiro.yaml"]:
        _, J, w, o = load_problem(name)
        res = {m: cdpr.solve_tensions(m, J, w, o) for m in METHODS}
        for r in res.values():
            assert r.f_N.shape == (J.shape[1],)
            assert r.residual_norm == pytest.approx(np.linalg.norm(J @ r.f_N - w), rel=1e-9, abs=1e-9)
            assert r.tension_norm == pytest.approx(np.linalg.norm(r.f_N), rel=1e-12)
        # Lawson-Hanson has no upper bound and f >= 0 only: compare the exact solver on the same problem
        o0 = cdpr.SolverOptions()
        ex, lh = cdpr.solve_tensions(cdpr.Method.kExact, J, w, o0), cdpr.solve_tensions("lawson_hanson", J, w, o0)
        assert ex.residual_norm <= lh.residual_norm + 1e-9 * max(1.0, np.linalg.norm(w))
        assert np.all(ex.f_N >= -1e-12)
        assert cdpr.kkt_violation(J, w, ex.f_N) < 1e-6 * max(1.0, np.linalg.norm(w))


def test_model_bounds_are_honoured_or_reported():
    """printer8 has tension.min 200 N: no route returns a tension below it with status ok."""
    mf = cdpr.load_model(str(REPO / "models/cdpr/printer8.yaml"))
    model = mf.model
    pose = cdpr.pose_from_vector(model, mf.default_pose)
    o = cdpr.solver_options(model)
    assert (o.f_min_N, o.f_max_N) == (200.0, 30000.0)
    p = cdpr.make_tension_problem(model)
    cdpr.update_tension_problem(model, pose, p)
    assert (p.options.f_min_N, p.options.f_max_N) == (200.0, 30000.0)
    # the README's route: load_model, make_data, update_geometry, solve_tensions(method, J, w, options)
    data = cdpr.make_data(model)
    cdpr.update_geometry(model, pose, data)
    for m in METHODS:
        results = [cdpr.solve_tensions(m, p), cdpr.solve_tensions(m, p, p.w), cdpr.solve_tensions(m, data.J, p.w, o)]
        if "closed" not in m:  # the closed forms need a finite f_max
            results.append(cdpr.solve_tensions(m, data.J, p.w, cdpr.SolverOptions(f_min_N=200.0)))
        for r in results:
            if r.status == cdpr.Status.kOk:
                assert r.f_N.min() >= 200.0 * (1 - 1e-9), (m, r.f_N)
            if m in ("exact", "closed_form", "improved_closed_form"):
                assert r.f_N.min() >= 200.0 * (1 - 1e-9), (m, r.f_N)
    # at this pose the f >= 0 methods unload cables: they say so instead of "ok"
    for m in ("exhaustive", "lawson_hanson"):
        r = cdpr.solve_tensions(m, p)
        assert r.f_N.min() < 200.0 and r.status == cdpr.Status.kOutOfBounds, (m, r)
        assert "f_min" in r.reason
        assert cdpr.to_string(r.status) == "out_of_bounds"
        # without bounds in the options (f >= 0 asked for) the same answer is ok
        assert cdpr.solve_tensions(m, data.J, p.w).status == cdpr.Status.kOk
    with pytest.raises(tendyn.Error, match="wrench has 2 entries but the problem has 6 rows"):
        cdpr.solve_tensions("exact", p, np.zeros(2))


def test_matches_cli(tmp_path):
    if not CLI.exists():
        pytest.skip("CLI not built")
    out = subprocess.run([str(CLI), "tension", "solve", str(REPO / "models/cdpr/printer8.yaml"), "--json"],
                         check=True, capture_output=True, text=True).stdout
    expected = {r["method"].replace("-", "_"): r for r in json.loads(out)["results"]}
    _, J, w, o = load_problem("printer8.yaml")
    for m, e in expected.items():
        r = cdpr.solve_tensions(m, J, w, o)
        np.testing.assert_allclose(r.f_N, e["tensions_N"], rtol=1e-12, atol=1e-9)
        assert cdpr.to_string(r.status) == e["status"]


def test_bad_input_raises_tendyn_error():
    with pytest.raises(tendyn.Error) as e:
        cdpr.parse_model("kind: cdpr\nname: x\nmotion: sideways\n", "bad.yaml")
    assert "bad.yaml" in str(e.value)
    with pytest.raises(tendyn.Error):
        cdpr.method_from_string("simplex")


def test_keyword_constructors_reprs_and_docstrings():
    o = cdpr.SolverOptions(f_min_N=1.0, f_max_N=50.0, max_iterations=10)
    assert (o.f_min_N, o.f_max_N, o.max_iterations) == (1.0, 50.0, 10)
    assert repr(o) == "SolverOptions(f_min_N=1.0, f_max_N=50.0, max_iterations=10)"
    with pytest.raises(TypeError, match="SolverOptions\\(\\) got an unexpected keyword argument 'fmin'"):
        cdpr.SolverOptions(fmin=1.0)
    pose = cdpr.Pose(p_WP=[0.1, 0.2, 0.3])
    assert list(pose.p_WP) == [0.1, 0.2, 0.3] and np.array_equal(pose.R_WP, np.eye(3))
    with pytest.raises(TypeError):
        cdpr.Pose(R_WP=np.eye(2))
    mf, J, w, so = load_problem("cogiro.yaml")
    assert repr(mf.model) == "Model(name='cogiro', motion=spatial, cables=8)"
    r = cdpr.solve_tensions("exact", J, w, so)
    assert repr(r).startswith("TensionResult(status=ok, loaded_count=")
    for cls in (cdpr.Model, cdpr.Data, cdpr.Pose, cdpr.SolverOptions, cdpr.TensionResult, cdpr.ModelFile,
                cdpr.TensionProblem, cdpr.PoseTrajectory):
        for field, attr in vars(cls).items():
            if isinstance(attr, property) and not field.startswith("_"):
                assert (attr.__doc__ or "").strip(), f"{cls.__name__}.{field} has no docstring"
                if field.endswith(("_m", "_N", "_kg")):
                    assert "[" in attr.__doc__, f"{cls.__name__}.{field}: no unit"


def test_tension_problem_is_the_structure_matrix_restricted():
    mf = cdpr.load_model(str(REPO / "models/cdpr/printer8.yaml"))
    m = mf.model
    pose = cdpr.pose_from_xyz_rpy([0.7, -0.4, 2.5], [0.02, -0.01, 0.05])
    d = cdpr.make_data(m)
    cdpr.update_geometry(m, pose, d)
    g = cdpr.gravity_compensation_wrench(m, pose)
    p = cdpr.make_tension_problem(m, "lower", ["fx", "fy", "mz"])
    assert p.cables == [4, 5, 6, 7] and p.row_index == [0, 1, 5]
    assert (p.ncable(), p.nrow()) == (4, 3)
    assert (p.options.f_min_N, p.options.f_max_N) == (m.f_min_N, m.f_max_N)
    cdpr.update_tension_problem(m, pose, p)
    assert np.array_equal(p.J, d.J[np.ix_([0, 1, 5], [4, 5, 6, 7])])
    assert np.array_equal(p.w, g[[0, 1, 5]])
    q = cdpr.make_tension_problem(m, rows=[cdpr.WrenchRow.kFz])
    cdpr.update_tension_problem(m, pose, q)
    assert np.array_equal(q.J, d.J[[2]]) and q.w[0] == pytest.approx(300 * 9.81)
    # options are the problem's own, changed in place
    p.options.f_max_N = float("inf")
    assert not cdpr.method_applicable(cdpr.Method.kClosedForm, p)
    assert cdpr.method_inapplicable_reason(cdpr.Method.kImprovedClosedForm, p) == "needs a finite f_max"
    assert cdpr.method_applicable(cdpr.Method.kExact, p)
    with pytest.raises(tendyn.Error, match="no wrench row 'fz'"):
        cdpr.make_tension_problem(cdpr.load_model(str(REPO / "models/cdpr/planar4.yaml")).model, "", ["fx", "fz"])
    with pytest.raises(tendyn.Error, match="no cable in group 'middle'"):
        cdpr.make_tension_problem(m, "middle")
    full = cdpr.scatter_tensions(m, p, np.array([1.0, 2.0, 3.0, 4.0]))
    assert list(full) == [0, 0, 0, 0, 1, 2, 3, 4]


def test_trajectory_is_the_cli_file_byte_for_byte(tmp_path):
    poses = tmp_path / "poses.csv"
    poses.write_text("t_s,x_m,y_m,z_m,roll,pitch,yaw\n0,0,0,3,0,0,0\n1,0.5,0,3,0,0,0\n2,0.5,-0.3,2.5,0.01,0.02,-0.03\n")
    model_file = str(REPO / "models/cdpr/printer8.yaml")
    m = cdpr.load_model(model_file).model
    t = cdpr.read_pose_trajectory(str(poses), m)
    assert t.q.shape == (3, 6) and list(t.t_s) == [0, 1, 2] and t.w.shape == (3, 0)
    assert t.places == [f"{poses}:2", f"{poses}:3", f"{poses}:4"]
    p = cdpr.make_tension_problem(m, "lower", ["fx", "fy", "mz"])
    res = cdpr.solve_tension_trajectory(m, p, "lawson-hanson", t)
    assert len(res) == 3
    # each row is a direct solve at its pose
    for k, r in enumerate(res):
        pose = cdpr.pose_from_vector(m, t.q[k])
        d = cdpr.make_data(m)
        cdpr.update_geometry(m, pose, d)
        J = d.J[np.ix_([0, 1, 5], [4, 5, 6, 7])]
        w = cdpr.gravity_compensation_wrench(m, pose)[[0, 1, 5]]
        direct = cdpr.solve_tensions(cdpr.Method.kLawsonHanson, J, w, p.options)
        assert np.array_equal(r.f_N, direct.f_N) and r.status == direct.status
    csv = cdpr.tension_trajectory_csv(m, p, t, res)
    assert csv.startswith("t_s,x_m,y_m,z_m,roll_rad,pitch_rad,yaw_rad,status,loaded,residual_norm_N,tension_norm_N,l1.tension_N,")
    if not CLI.exists():
        pytest.skip("CLI not built")
    out = tmp_path / "out"
    subprocess.run([str(CLI), "tension", "trajectory", model_file, "--in", str(poses), "-o", str(out),
                    "--group", "lower", "--rows", "fx,fy,mz", "--method", "lawson-hanson"],
                   check=True, capture_output=True, text=True)
    assert (out / "tensions.csv").read_text() == csv
    # a keyword-built trajectory with a wrench per pose
    tw = cdpr.PoseTrajectory(q=t.q[:1], w=np.array([[10.0, 0.0, 1.0]]))
    r = cdpr.solve_tension_trajectory(m, p, cdpr.Method.kExact, tw)[0]
    assert r.residual_norm < 1e-9
    with pytest.raises(tendyn.Error, match="pose 0: 2 wrench columns but J has 3 rows"):
        cdpr.solve_tension_trajectory(m, p, "exact", cdpr.PoseTrajectory(q=t.q[:1], w=np.ones((1, 2))))


def test_printer_experiment_start_state_scores_and_sweep(tmp_path):
    """Document 002's two-stage experiment from Python: start states, after-transient and
    worst-configuration scores, the pretension sweep; the CLI writes the same sweep CSV."""
    assert cdpr.to_string(cdpr.stage_start_from_string("x1.8")) == "x1.8"
    assert cdpr.stage_start_from_string("900N").kind == cdpr.StageStart.Kind.kTension
    with pytest.raises(tendyn.Error, match="valid: optimal"):
        cdpr.stage_start_from_string("1.8")
    with pytest.raises(tendyn.Error, match="valid: full, system4"):
        cdpr.lower_profile_from_string("3x4")
    model = cdpr.make_printer_dynamics(cdpr.load_model(str(REPO / "models/cdpr/printer8.yaml")).model, 50.0)
    cfg = cdpr.ExperimentConfig(path=[[0.0, -0.5], [0.6, -0.5], [0.6, 0.3]], settle_s=0.5, transient_s=1.5,
                                start_without=cdpr.stage_start_from_string("x2"))
    cfg.controller.lower_profile = cdpr.LowerProfile.kSystem4
    a = cdpr.run_stage(model, cfg, False)
    b = cdpr.run_stage(model, cfg, True)
    f0, opt0 = a.f_N[0, 4:], a.f_opt_N[0, 4:]
    np.testing.assert_allclose(f0, 2.0 * opt0, atol=1e-6 * np.linalg.norm(opt0))
    assert (b.f_opt_N[:, 4:] >= 0.0).all()
    c = cdpr.compare_stages(a, b)
    assert c.transient_s == 1.5 and c.t_worst_after_s >= 1.5
    assert c.ratio_worst_norm_after == pytest.approx(b.worst_lower_norm_after_N / a.worst_lower_norm_after_N)
    assert c.ratio_worst_norm <= 1.0
    rows = cdpr.pretension_sweep(model, cdpr.ExperimentConfig(path=cfg.path, settle_s=0.5), [1.0, 2.0])
    assert [r.factor for r in rows] == [1.0, 2.0] and rows[1].cmp.ratio_worst_norm < rows[0].cmp.ratio_worst_norm
    assert cdpr.pretension_sweep_csv(rows).startswith("pretension_factor,worst_without_N,")


def test_centroid_centred_jump_and_interference():
    # centroid of f1 + 2 f2 + 3 f3 = 4 in [0, 1]^3 (docs/CDPR.md, continuous methods)
    o = cdpr.SolverOptions(f_min_N=0.0, f_max_N=1.0)
    r = cdpr.solve_tensions("centroid", np.array([[1.0, 2.0, 3.0]]), np.array([4.0]), o)
    np.testing.assert_allclose(r.f_N, [5 / 9, 11 / 18, 20 / 27], atol=1e-14)
    assert cdpr.method_from_string("barycentre") == cdpr.Method.kCentroid
    mf = cdpr.load_model(str(REPO / "models/cdpr/planar4.yaml"))
    p = cdpr.make_tension_problem(mf.model)
    t = cdpr.PoseTrajectory()
    t.q = np.array([[0.0, 0.0, 0.0], [0.01, 0.0, 0.0], [0.02, 0.0, 0.0]])
    res = cdpr.solve_tension_trajectory(mf.model, p, "centred", t)
    j = cdpr.max_tension_jump(res)
    assert j.jump_N == max(abs(res[k].f_N - res[k - 1].f_N).max() for k in (1, 2))
    # crossing upper cables of planar4 touch; the segment distance is exact
    assert cdpr.segment_distance([0, 0, 0], [1, 0, 0], [0.5, -1, 2], [0.5, 1, 2]).distance_m == 2.0
    pose = cdpr.pose_planar(0.0, 0.0, 0.0)
    assert not cdpr.interference_free(mf.model, pose, 0.0)
    ti = cdpr.trajectory_interference(mf.model, t, cdpr.InterferenceOptions(clearance_m=0.01))
    assert ti.first_interference_row == 0 and ti.pairs[0] == (0, 1) and ti.min_distance_m[0] < 1e-15


def test_make_model_takes_points_in_either_layout():
    m = cdpr.load_model(str(REPO / "models/cdpr" / "printer8.yaml")).model
    cols = cdpr.make_model("c", m.motion, m.p_WA, m.p_PB)  # (3, n) as in C++
    rows = cdpr.make_model("r", m.motion, m.p_WA.T, m.p_PB.T)  # (n, 3) like the other node arrays
    assert np.array_equal(cols.p_WA, m.p_WA) and np.array_equal(rows.p_WA, m.p_WA)
    assert np.array_equal(rows.p_PB, m.p_PB) and rows.p_WA.shape == (3, 8)
    with pytest.raises(tendyn.Error, match=r"p_WA must be \(3, n\) or \(n, 3\) points \[m\], got shape \(8, 2\)"):
        cdpr.make_model("bad", m.motion, m.p_WA.T[:, :2], m.p_PB)
