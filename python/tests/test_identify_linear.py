"""Linear identification from Python: tendyn.tree.identify / regressor, tendyn.cdpr.identify."""
import os

import numpy as np
import pytest

import tendyn

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
TREE = os.path.join(ROOT, "models", "tree")
CDPR = os.path.join(ROOT, "models", "cdpr")

tree = pytest.importorskip("tendyn.tree") if hasattr(tendyn, "tree") else None
cdpr = pytest.importorskip("tendyn.cdpr") if hasattr(tendyn, "cdpr") else None


def exciting_log(model, seconds=6.0, rate=50.0, seed=1):
    """Fourier-series motion (analytic q, v, a) and RNEA torques."""
    rng = np.random.default_rng(seed)
    w = 2 * np.pi * 0.2
    a_c = 0.3 * rng.uniform(-1, 1, (model.nv, 4))
    b_c = 0.3 * rng.uniform(-1, 1, (model.nv, 4))
    t = np.arange(int(seconds * rate)) / rate
    data = tendyn.tree.Data(model)
    q = np.zeros((len(t), model.nq))
    v = np.zeros_like(q)
    a = np.zeros_like(q)
    tau = np.zeros_like(q)
    for k, tk in enumerate(t):
        for l in range(1, 5):
            wl = l * w
            s, c = np.sin(wl * tk), np.cos(wl * tk)
            q[k] += (a_c[:, l - 1] * s - b_c[:, l - 1] * c) / wl
            v[k] += a_c[:, l - 1] * c + b_c[:, l - 1] * s
            a[k] += wl * (-a_c[:, l - 1] * s + b_c[:, l - 1] * c)
        tau[k] = tendyn.tree.rnea(model, data, q[k], v[k], a[k])
    return t, q, v, a, tau


@pytest.mark.skipif(tree is None, reason="built without the tree module")
def test_tree_regressor_matches_rnea_and_identify_recovers_base_parameters(tmp_path):
    m = tendyn.tree.load_model(os.path.join(TREE, "arm6.yaml"))
    pi = tendyn.tree.inertial_parameters(m)
    assert pi.shape == (10 * m.nlinks(),)
    q, v, a = m.random_configuration(3), np.linspace(-1, 1, m.nv), np.linspace(2, -1, m.nv)
    Y = tendyn.tree.regressor(m, q, v, a)
    tau = tendyn.tree.rnea(m, tendyn.tree.Data(m), q, v, a)
    assert np.max(np.abs(Y @ pi - tau)) <= 1e-12 * max(1.0, np.max(np.abs(tau)))

    t, q, v, a, tau = exciting_log(m)
    log = tendyn.tree.MotionLog(t_s=t, q=q, v=v, a=a, tau=tau)
    ident = tendyn.tree.identify(m, log)
    beta_true = ident.base.K @ pi
    assert np.max(np.abs(ident.beta - beta_true) / np.maximum(np.abs(beta_true), 1e-3 * np.max(np.abs(beta_true)))) < 1e-6

    # The same through a CSV file with q and tau only (v, a by the three-point rule).
    path = tmp_path / "log.csv"
    header = tendyn.tree.motion_log_header(m).split(",")
    cols = ["t_s"] + [h for h in header if h.startswith("q:") or h.startswith("tau:")]
    np.savetxt(path, np.column_stack([t, q, tau]), delimiter=",", header=",".join(cols), comments="", fmt="%.12g")
    ident_csv = tendyn.tree.identify(m, str(path), weighting="joint")
    assert ident_csv.nsample == len(t) - 2
    # 50 Hz three-point differences (accelerations within 0.1 %): the torques are fitted to 0.1 % of
    # their rms and the largest base parameters to 1 %; the small wrist inertias of 6 s of data are
    # not (up to 30 % off), which is why the acceptance test (tests/tree) uses long, rich data.
    tau_rms = np.sqrt(np.mean(tau**2))
    assert ident_csv.rms_total < 1e-3 * tau_rms
    big = np.abs(beta_true) > 0.1 * np.max(np.abs(beta_true))
    assert np.max(np.abs(ident_csv.beta - beta_true)[big] / np.abs(beta_true[big])) < 0.01


@pytest.mark.skipif(tree is None, reason="built without the tree module")
def test_tree_identify_errors():
    m = tendyn.tree.load_model(os.path.join(TREE, "double_pendulum.yaml"))
    with pytest.raises(tendyn.Error, match="unknown weighting"):
        tendyn.tree.identify(m, tendyn.tree.MotionLog(), weighting="bad")
    with pytest.raises(tendyn.Error, match="log q is 0 x 0"):
        tendyn.tree.identify(m, tendyn.tree.MotionLog())
    with pytest.raises(tendyn.Error, match="expected shape"):
        tendyn.tree.regressor(m, [0.0], [0.0, 0.0], [0.0, 0.0])


@pytest.mark.skipif(cdpr is None, reason="built without the cdpr module")
def test_cdpr_identify_platform_and_cables_from_synthetic_log():
    """A free-floating platform held by 8 cables of a model file: tensions computed from the
    Newton-Euler equations of a known platform along a smooth motion, EA from f = EA (l - l0) / l0."""
    mf = tendyn.cdpr.load_model(os.path.join(CDPR, "printer8.yaml"))
    model = mf.model
    n = model.ncable()
    mass, c = 320.0, np.array([0.01, -0.02, -0.05])
    I_C = np.diag([40.0, 45.0, 50.0])
    I_P = I_C + mass * (c @ c * np.eye(3) - np.outer(c, c))
    pi = np.array([mass, *(mass * c), I_P[0, 0], I_P[0, 1], I_P[0, 2], I_P[1, 1], I_P[1, 2], I_P[2, 2]])
    rate, T = 100.0, 8.0
    t = np.arange(int(T * rate)) / rate
    # Smooth pose: p(t), rpy(t); derivatives analytic for the wrench.
    def pose(tk):
        p = np.array([0.1 * np.sin(1.3 * tk), 0.08 * np.sin(1.7 * tk + 0.3), 3.0 + 0.05 * np.sin(2.3 * tk)])
        rpy = np.array([0.05 * np.sin(2.1 * tk), 0.04 * np.sin(1.9 * tk + 1.0), 0.06 * np.sin(1.1 * tk + 0.5)])
        return p, rpy
    def R_of(rpy):
        r, p_, y = rpy
        Rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
        Ry = np.array([[np.cos(p_), 0, np.sin(p_)], [0, 1, 0], [-np.sin(p_), 0, np.cos(p_)]])
        Rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
        return Rz @ Ry @ Rx
    h = 1e-4
    poses, tensions, lengths, rest = [], [], [], []
    EA = 2.0e7
    for tk in t:
        p, rpy = pose(tk)
        R = R_of(rpy)
        # a_P and (body) w, alpha by fine central differences of the analytic motion
        pm, rm = pose(tk - h)
        pp, rp = pose(tk + h)
        a_P = (pp - 2 * p + pm) / h**2
        Rm, Rp = R_of(rm), R_of(rp)
        def log_so3(M):
            ang = np.arccos(np.clip((np.trace(M) - 1) / 2, -1, 1))
            if ang < 1e-12:
                return np.zeros(3)
            return ang / (2 * np.sin(ang)) * np.array([M[2, 1] - M[1, 2], M[0, 2] - M[2, 0], M[1, 0] - M[0, 1]])
        w_W = log_so3(Rp @ Rm.T) / (2 * h)
        alpha_W = (log_so3(Rp @ R.T) - log_so3(R @ Rm.T)) / h**2
        Y = tendyn.cdpr.platform_regressor(R, R.T @ w_W, R.T @ alpha_W, a_P, model.gravity_W)
        wrench = Y @ pi  # cables' force (world) and moment about P (platform axes)
        # J in world with moments about P; the moment rows in platform axes: rotate.
        geo = tendyn.cdpr.make_data(model)
        tendyn.cdpr.update_geometry(model, tendyn.cdpr.Pose(p_WP=p, R_WP=R), geo)
        J = np.array(geo.J)
        Jb = np.vstack([J[:3], R.T @ J[3:]])
        # minimum-norm tensions around a 3 kN pretension (the null space keeps them positive)
        f0 = np.full(n, 3000.0)
        f = f0 + np.linalg.pinv(Jb) @ (wrench - Jb @ f0)
        assert np.all(f > 100.0)
        l = np.array(geo.length_m)
        l0 = EA * l / (EA + f)
        poses.append([*p, *rpy])
        tensions.append(f)
        lengths.append(l)
        rest.append(l0)
    log = tendyn.cdpr.PlatformLog(t_s=t, pose=np.array(poses), tension_N=np.array(tensions),
                                  length_m=np.array(lengths), rest_length_m=np.array(rest))
    res = tendyn.cdpr.identify(model, log, fit="stiffness", inertia=True)
    plat = res["platform"]
    assert abs(plat.mass_kg - mass) / mass < 1e-3
    assert np.linalg.norm(plat.com_P_m - c) < 1e-3
    assert np.max(np.abs(np.diag(plat.inertia_C_kgm2) - np.diag(I_C)) / np.diag(I_C)) < 0.02
    for cab in res["cables"].cables:
        assert abs(cab.EA_N - EA) / EA < 1e-6, cab
    with pytest.raises(tendyn.Error, match="unknown stiffness fit"):
        tendyn.cdpr.identify(model, log, fit="k")
