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
    mf = cdpr.load_model(str(REPO / "models/cdpr" / name))
    pose = cdpr.pose_from_vector(mf.model, mf.default_pose)
    d = cdpr.make_data(mf.model)
    cdpr.update_geometry(mf.model, pose, d)
    w = cdpr.gravity_compensation_wrench(mf.model, pose)
    o = cdpr.SolverOptions()
    o.f_min_N, o.f_max_N = mf.model.f_min_N, mf.model.f_max_N
    return mf, d.J.copy(), w, o


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
    for cls in (cdpr.Model, cdpr.Data, cdpr.Pose, cdpr.SolverOptions, cdpr.TensionResult, cdpr.ModelFile):
        for field, attr in vars(cls).items():
            if isinstance(attr, property) and not field.startswith("_"):
                assert (attr.__doc__ or "").strip(), f"{cls.__name__}.{field} has no docstring"
                if field.endswith(("_m", "_N", "_kg")):
                    assert "[" in attr.__doc__, f"{cls.__name__}.{field}: no unit"
