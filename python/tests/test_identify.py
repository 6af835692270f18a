"""Parameter identification from Python (tendyn.identify, tendyn.tensegrity.identify)."""
from pathlib import Path

import numpy as np
import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]
TRUTH = REPO / "models/identify/three_bar_truth.yaml"


def synthetic(truth, duration, sigma, seed=3):
    """Noisy 30 Hz samples of the identification's own integrator (RK4, 1 ms)."""
    t = [round(k * 1000 / 30) / 1000 for k in range(int(duration * 30) + 1)]
    p = ts.simulate_samples(truth, t, 1e-3)
    rng = np.random.default_rng(seed)
    d = ts.MotionData()
    d.t_s = t
    d.marker_nodes = list(range(truth.nnode))
    d.p_W_marker_m = p + sigma * rng.standard_normal(p.shape)
    return d


def test_identify_recovers_a_stiffness_and_the_friction():
    truth = ts.load_model_file(str(TRUTH)).model
    d = synthetic(truth, 1.0, 0.0)
    start = ts.load_model_file(str(TRUTH)).model
    for k in range(3):
        start.cables[k].stiffness_Npm = 420.0  # +40 %
    start.ground.friction = 0.7                # +40 %
    iterations = []
    r = tendyn.identify(start, d, "stiffness:c1+c2+c3,friction", segment_s=0.5, threads=2,
                        progress=lambda it, cost, g: iterations.append(it))
    assert r.converged
    fitted = {p.name: p.fitted for p in r.parameters}
    assert fitted["stiffness:c1+c2+c3"] == pytest.approx(300.0, rel=1e-4)
    assert fitted["friction"] == pytest.approx(0.5, rel=1e-4)
    assert r.model.cables[1].stiffness_Npm == pytest.approx(300.0, rel=1e-4)
    assert iterations and iterations[0] == 0
    assert r.marker_rms_m < 1e-6 < r.marker_rms_free_nominal_m
    assert r.p_W_fit_m.shape == (len(d.t_s), 3 * 6)


def test_identify_reads_files_and_reports_errors(tmp_path):
    truth = ts.load_model_file(str(TRUTH)).model
    d = synthetic(truth, 0.3, 1e-3)
    csv = tmp_path / "motion.csv"
    csv.write_text(ts.motion_csv(truth, d))
    back = ts.load_motion_csv(truth, str(csv))
    assert back.nsample == d.nsample and back.marker_nodes == d.marker_nodes
    np.testing.assert_allclose(back.p_W_marker_m, d.p_W_marker_m, atol=1e-11)
    groups = ts.parse_fit_spec(truth, "damping:c1+c2,mass:rod1")
    assert [g.name for g in groups] == ["damping:c1+c2", "mass:rod1"]
    assert groups[0].kind == ts.ParameterKind.kDamping
    with pytest.raises(tendyn.Error, match="no cable 'c42'"):
        tendyn.identify(str(TRUTH), str(csv), "stiffness:c42")
    with pytest.raises(tendyn.Error, match="unknown robust loss"):
        tendyn.identify(str(TRUTH), str(csv), "friction", loss="l1")
    bad = tmp_path / "bad.csv"
    bad.write_text("t_s,n1_x_m,n1_y_m,n1_z_m\n0,1,2,3\n0,1,2,3\n")
    with pytest.raises(tendyn.Error, match="bad.csv:3:1"):
        tendyn.identify(str(TRUTH), str(bad), "friction")
    # the Jacobian of the residuals at the start, by automatic differentiation through RK4
    x, res, jac, npar = ts.evaluate_identification(truth, d, groups)
    assert npar == 2 and jac.shape == (res.size, x.size)


def test_identify_reports_its_verdict():
    # the 3-bar robot's data fitted by the model without its drive: the statistics reject the fit
    truth = ts.load_model_file(str(TRUTH)).model
    d = synthetic(truth, 0.6, 1e-3)
    no_drive = ts.load_model_file(str(TRUTH)).model
    no_drive.drives = []
    r = tendyn.identify(no_drive, d, "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9", segment_s=0.2, covariance=False)
    assert r.verdict == "poor fit"
    assert r.variance_factor > r.variance_factor_bound
    assert "cannot explain the data" in r.verdict_reason
    assert r.starts == 2 and len(r.restart_log) == 2
    assert r.restart_log[0].startswith("identify: restart 1 of 2")
    assert ts.variance_factor_bound(6900) == pytest.approx(1.0537, abs=1e-3)
    ok = tendyn.identify(truth, d, "stiffness:c1+c2+c3+c4+c5+c6+c7+c8+c9", segment_s=0.2, covariance=False)
    assert ok.verdict == "good" and ok.restart_log == [] and ok.unidentifiable == []


def test_identify_fits_the_winches_of_the_motorised_robot():
    """The general path (winches, end-caps): synthetic encoders and markers by simulate_motion."""
    nominal = ts.load_model_file(str(REPO / "models/three_bar_motorised.yaml")).model
    truth = ts.load_model_file(str(REPO / "models/three_bar_motorised.yaml")).model
    winches = truth.winches  # a copy (std::vector): change it, then assign it back
    for w in winches:
        w.kp_per_m *= 0.5
    truth.winches = winches
    d = ts.MotionData()
    d.t_s = [0.01 * k for k in range(51)]
    d.marker_nodes = list(range(6))
    d.p_W_marker_m = np.zeros((51, 18))
    d.encoder_cables = [0, 1, 2, 3]
    d.winch_encoder_m = np.zeros((51, 4))
    d = ts.simulate_motion(truth, d, 5e-4)
    r = tendyn.identify(nominal, d, "winch_kp:c1+c2+c3+c4", dt_s=5e-4, encoder_sigma_m=1e-5)
    assert r.parameters[0].kind == ts.ParameterKind.kWinchKp
    assert r.parameters[0].fitted == pytest.approx(50.0, rel=1e-2)
    assert r.verdict == "good", r.verdict_reason
    with pytest.raises(tendyn.Error, match="cable 'c7' has no winch"):
        ts.parse_fit_spec(nominal, "winch_kp:c7")
