"""tendyn.cdpr.optimise_anchors: a poor planar4 design improved within its frame."""
import numpy as np
import pytest

import tendyn

cdpr = getattr(tendyn, "cdpr", None)
if cdpr is None:
    pytest.skip("built without TENDYN_WITH_CDPR", allow_module_level=True)

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PLANAR4 = str(REPO / "models/cdpr/planar4.yaml")


def poses():
    g = np.linspace(-0.4, 0.4, 5)
    return np.array([[x, y, 0.0] for x in g for y in g])


def test_optimise_anchors_improves_a_poor_start_within_the_frame():
    model = cdpr.load_model(PLANAR4).model
    a = np.array(model.p_WA)
    a[0, 2], a[0, 3] = 0.2, -0.2  # lower anchors pulled in
    model.p_WA = a
    q = poses()
    r = cdpr.optimise_anchors(model, q, frame_min_m=[-1, -1, 0], frame_max_m=[1, 1, 0], initial_step_m=0.2, max_evaluations=150)
    assert r.evaluations <= 150
    assert r.best_score.score > r.start_score.score + 0.01
    assert r.best_score.feasible >= r.start_score.feasible
    assert r.best_score.score == pytest.approx(cdpr.design_score(r.best, q).score, abs=1e-14)
    assert r.start_score.score == pytest.approx(cdpr.design_score(model, q).score, abs=1e-14)
    best = np.array(r.best.p_WA)
    assert np.all(best[:2] >= -1) and np.all(best[:2] <= 1)
    # the same through DesignOptions
    o = cdpr.DesignOptions(frame_min_m=[-1, -1, 0], frame_max_m=[1, 1, 0], initial_step_m=0.2, max_evaluations=150)
    assert np.array_equal(np.array(cdpr.optimise_anchors(model, q, o).best.p_WA), best)
    with pytest.raises(tendyn.Error, match="frame box"):
        cdpr.optimise_anchors(model, q, frame_min_m=[1, -1, 0], frame_max_m=[-1, 1, 0])


def test_capacity_margin_objective_with_attachments_and_an_ellipsoid():
    model = cdpr.load_model(PLANAR4).model
    a = np.array(model.p_WA)
    a[0, 2], a[0, 3] = 0.2, -0.2
    model.p_WA = a
    q = poses()
    r = cdpr.optimise_anchors(model, q, frame_min_m=[-1, -1, 0], frame_max_m=[1, 1, 0], initial_step_m=0.2, max_evaluations=250,
                              objective="capacity-margin", move_attachments=True)
    o = cdpr.DesignOptions(objective="capacity-margin")
    assert r.best_score.score > r.start_score.score + 0.5
    assert r.best_score.score == cdpr.design_score(r.best, q, o).score
    pb = np.array(r.best.p_PB)
    assert np.all(np.abs(pb[:2]) <= 0.1 + 1e-15)  # within the platform's bounding box
    # volume with an ellipsoid of wrenches, through DesignOptions
    v = cdpr.DesignOptions(frame_min_m=[-1, -1, 0], frame_max_m=[1, 1, 0], initial_step_m=0.2, max_evaluations=120, objective="volume")
    v.set_wrench_ellipsoid([0, 0, 0], np.diag([2.0, 2.0, 0.05]))
    rv = cdpr.optimise_anchors(model, q, v)
    assert rv.best_score.score > rv.start_score.score
    assert rv.best_score.score == cdpr.design_score(rv.best, q, v).score
    with pytest.raises(tendyn.Error, match="unknown design objective 'speed'"):
        cdpr.DesignOptions(objective="speed")


def test_box_checks_name_the_axis_and_the_cable():
    model = cdpr.load_model(PLANAR4).model
    o = cdpr.DesignOptions(frame_min_m=[-1, -1, 0], frame_max_m=[0.5, 1, 0])
    with pytest.raises(tendyn.Error, match=r"the anchor of cable c2 lies outside the frame box \(x = 1 m\)"):
        cdpr.check_frame_box(model, o)
    o.frame_max_m = [1, 1, 0]
    cdpr.check_frame_box(model, o)
    lo, hi = cdpr.attachment_box(model, o)  # the attachments' bounding box
    assert np.allclose(lo[:2], [-0.1, -0.1]) and np.allclose(hi[:2], [0.1, 0.1])
