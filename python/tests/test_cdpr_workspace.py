"""tendyn.cdpr.workspace: grid, rays and poses, compared with `tendyn cdpr workspace`."""
import csv
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
PLANAR4 = str(REPO / "models/cdpr/planar4.yaml")


def test_grid_matches_cli_and_is_thread_independent(tmp_path):
    model = cdpr.load_model(PLANAR4).model
    r1 = cdpr.workspace(model, [-1, -1, 0], [1, 1, 0], [30, 30, 1], kind="static", threads=1)
    r2 = cdpr.workspace(model, [-1, -1, 0], [1, 1, 0], [30, 30, 1], kind="static", threads=2)
    assert np.array_equal(r1["inside"], r2["inside"])
    assert np.array_equal(r1["capacity_margin_N"], r2["capacity_margin_N"], equal_nan=True)
    assert r1["undefined_count"] == 2  # two cell centres put a lower cable's attachment on its anchor
    assert 0 < r1["inside_count"] < 900
    assert r1["measure"] == pytest.approx(r1["inside_count"] * (2 / 30) ** 2)
    # the margin's sign is the verdict's away from the boundary
    m = r1["capacity_margin_N"]
    far = np.abs(m) > 1e-6
    assert np.array_equal(m[far] > 0, r1["inside"][far])
    if not CLI.exists():
        pytest.skip("tendyn program not built")
    out = tmp_path / "ws"
    subprocess.run([str(CLI), "cdpr", "workspace", PLANAR4, "--kind", "static", "--grid", "-1:1:30,-1:1:30",
                    "-q", "-o", str(out)], check=True, capture_output=True)
    with open(out / "grid.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == r1["class"]
    assert np.allclose([float(r["x_m"]) for r in rows], r1["points_m"][:, 0])


def test_rays_and_poses():
    model = cdpr.load_model(PLANAR4).model
    rays = cdpr.workspace_rays(model, [0, 0, 0], 8, kind="static", max_length_m=1.0, step_m=0.02, tol_m=1e-5)
    assert rays["boundary_m"].shape == (8, 3)
    assert all(rays["inside"])
    up = rays["distance_m"][2]  # ray 2 of 8 points along +y
    q = np.array([[0.0, up - 1e-4, 0.0], [0.0, up + 1e-3, 0.0]])
    v = cdpr.workspace_poses(model, q, kind="static")
    assert list(v["inside"]) == [True, False]
    assert v["class"] == ["inside", "outside"]


def test_bad_input_raises_with_the_argument():
    model = cdpr.load_model(PLANAR4).model
    with pytest.raises(tendyn.Error, match="row fy: lower bound 5 > upper bound 3"):
        cdpr.workspace(model, [-1, -1, 0], [1, 1, 0], [5, 5, 1], wrench_lo=[0, 5, 0], wrench_hi=[0, 3, 0])
    with pytest.raises(tendyn.Error, match="give both wrench_lo and wrench_hi"):
        cdpr.workspace(model, [-1, -1, 0], [1, 1, 0], [5, 5, 1], wrench_lo=[0, 0, 0])
    with pytest.raises(tendyn.Error, match="is not inside the static workspace"):
        cdpr.workspace_rays(model, [5, 0, 0], 8, kind="static")
    with pytest.raises(tendyn.Error, match=r"unknown workspace kind \'wide\' \(valid: feasible, static, closure\)"):
        cdpr.workspace(model, [-1, -1, 0], [1, 1, 0], [5, 5, 1], kind="wide")


def test_ellipsoid_of_wrenches_lies_between_its_point_and_its_bounding_box():
    model = cdpr.load_model(PLANAR4).model
    c, semi = np.array([1.0, -1.0, 0.0]), np.array([3.0, 2.0, 0.1])
    args = ([-1, -1, 0], [1, 1, 0], [20, 20, 1])
    ell = cdpr.workspace(model, *args, wrench_centre=c, wrench_shape=np.diag(semi))
    box = cdpr.workspace(model, *args, wrench_lo=c - semi, wrench_hi=c + semi)
    point = cdpr.workspace(model, *args, wrench_centre=c, wrench_shape=np.zeros((3, 3)))
    same = cdpr.workspace(model, *args, wrench_lo=c, wrench_hi=c)
    assert np.array_equal(point["inside"], same["inside"])
    assert np.all(ell["inside"][box["inside"]])  # box inside => ellipsoid inside
    assert np.all(point["inside"][ell["inside"]])  # ellipsoid inside => centre inside
    assert box["inside_count"] < ell["inside_count"] < point["inside_count"]
    with pytest.raises(tendyn.Error, match="not positive semi-definite"):
        cdpr.workspace(model, *args, wrench_centre=c, wrench_shape=np.diag([1.0, -1.0, 1.0]))
    with pytest.raises(tendyn.Error, match="give both wrench_centre and wrench_shape"):
        cdpr.workspace(model, *args, wrench_centre=c)
