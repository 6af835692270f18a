"""tendyn.tree: YAML/URDF models, RNEA / CRBA / ABA and the block-matrix equations, compared with the CLI."""
import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tendyn

tree = getattr(tendyn, "tree", None)
if tree is None:
    pytest.skip("built without TENDYN_WITH_TREE", allow_module_level=True)

REPO = Path(__file__).resolve().parents[2]
CLI = Path(tendyn.__file__).resolve().parents[2] / "tendyn"


def random_qv(model, seed):
    rng = np.random.default_rng(seed)
    q = model.random_configuration(seed)
    return q, rng.standard_normal(model.nv), rng.standard_normal(model.nv)


@pytest.mark.parametrize("name", ["double_pendulum.yaml", "arm6.yaml", "biped.yaml", "biped.urdf"])
def test_rnea_equals_crba_plus_bias_and_aba_inverts(name):
    for mode in [tree.BaseMode.kAsWritten, tree.BaseMode.kFree]:
        model = tree.load_model(str(REPO / "models/tree" / name), mode)
        data = tree.Data(model)
        q, v, a = random_qv(model, 7)
        tau = tree.rnea(model, data, q, v, a)
        M = tree.crba(model, data, q)
        b = tree.nonlinear_effects(model, data, q, v)
        np.testing.assert_allclose(M, M.T, atol=1e-12)
        np.testing.assert_allclose(tau, M @ a + b, atol=1e-9 * max(1.0, np.abs(tau).max()))
        np.testing.assert_allclose(tree.aba(model, data, q, v, tau), a, atol=1e-8)
        assert tree.kinetic_energy(model, data, q, v) == pytest.approx(0.5 * v @ M @ v, rel=1e-10)


def test_block_matrix_equations_match_recursive():
    model = tree.load_model(str(REPO / "models/tree/arm6.yaml"))
    data, bd = tree.Data(model), tree.BlockData(model)
    q, v, a = random_qv(model, 3)
    A, b = tree.block_eom(model, bd, q, v)
    np.testing.assert_allclose(A, tree.crba(model, data, q), atol=1e-10)
    np.testing.assert_allclose(b, tree.nonlinear_effects(model, data, q, v), atol=1e-10)
    tau = tree.block_inverse_dynamics(model, bd, q, v, a)
    np.testing.assert_allclose(tau, tree.rnea(model, data, q, v, a), atol=1e-10)
    np.testing.assert_allclose(tree.block_forward_dynamics(model, bd, q, v, tau), a, atol=1e-8)


def test_matches_cli():
    if not CLI.exists():
        pytest.skip("CLI not built")
    out = subprocess.run([str(CLI), "tree", "inverse", str(REPO / "models/tree/double_pendulum.yaml"),
                          "--q", "0.3,-0.5", "--v", "0.1,0.2", "--a", "1,2", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    e = json.loads(out)
    model = tree.load_model_yaml(str(REPO / "models/tree/double_pendulum.yaml"))
    data = tree.Data(model)
    q, v, a = np.array([0.3, -0.5]), np.array([0.1, 0.2]), np.array([1.0, 2.0])
    np.testing.assert_allclose(tree.rnea(model, data, q, v, a), e["tau"], rtol=1e-14)
    np.testing.assert_allclose(tree.crba(model, data, q), e["M"], rtol=1e-14)
    np.testing.assert_allclose(tree.nonlinear_effects(model, data, q, v), e["b"], rtol=1e-14)


def test_urdf_round_trip_and_errors():
    model = tree.load_model(str(REPO / "models/tree/arm6.yaml"))  # fixed base: same coordinates after URDF
    again = tree.urdf_from_string(tree.to_urdf(model), "arm6.urdf")
    assert again.nv == model.nv and again.nq == model.nq
    assert again.total_mass() == pytest.approx(model.total_mass(), rel=1e-12)
    q, v, a = random_qv(model, 5)
    np.testing.assert_allclose(tree.rnea(again, tree.Data(again), q, v, a), tree.rnea(model, tree.Data(model), q, v, a),
                               rtol=1e-9, atol=1e-9)
    with pytest.raises(tendyn.Error) as e:
        tree.model_from_yaml_string("links: 3\n", "bad.yaml")
    assert "bad.yaml" in str(e.value)
    with pytest.raises(tendyn.Error):
        tree.rnea(model, tree.Data(model), np.zeros(model.nq + 1), np.zeros(model.nv), np.zeros(model.nv))


# ---------------------------------------------------------------------------------------------
# tree.simulate (tree/simulate.hpp) with a torque callback or a schedule

def load(name, mode=None):
    return tree.load_model(str(REPO / "models/tree" / name), mode or tree.BaseMode.kAsWritten)


def test_simulate_zero_torque_conserves_energy():
    model = load("double_pendulum.yaml")
    r = tree.simulate(model, [1.0, -0.5], [0.3, 0.0], duration_s=2.0, dt_s=1e-3, output_interval_s=0.01)
    assert r.steps == 2000 and len(r) == 201
    assert r.t_s.shape == (201,) and r.q.shape == (201, 2) and r.v.shape == (201, 2) and r.tau.shape == (201, 2)
    np.testing.assert_array_equal(r.t_s, np.arange(201) * 10 * 1e-3)
    data = tree.Data(model)
    for i in (0, 100, 200):
        e = tree.kinetic_energy(model, data, r.q[i], r.v[i]) + tree.potential_energy(model, data, r.q[i])
        assert r.energy_J[i] == e
    assert np.abs(r.energy_J - r.energy_J[0]).max() < 1e-8 * abs(r.energy_J[0])
    assert np.abs(r.q[-1] - r.q[0]).max() > 0.1  # it swung
    assert not np.any(r.tau)
    assert not r.q.flags.writeable


def test_pd_callback_holds_the_arm_and_without_it_the_arm_falls():
    model = load("arm6.yaml")
    data = tree.Data(model)
    q_ref = model.random_configuration(3)
    kp, kd = 100.0, 20.0  # critically damped, 10 rad/s

    def pd(t, q, v):  # computed-torque PD around q_ref: q'' = kp (q_ref - q) - kd v
        return tree.crba(model, data, q) @ (kp * (q_ref - q) - kd * v) + tree.nonlinear_effects(model, data, q, v)

    start = q_ref + 0.05
    held = tree.simulate(model, start, duration_s=3.0, dt_s=1e-3, torque=pd, output_interval_s=0.01)
    err = np.abs(held.q - q_ref).max(axis=1)
    assert err[0] == pytest.approx(0.05)
    # (1 + 10 t) exp(-10 t) decay of every joint error
    t = held.t_s
    np.testing.assert_allclose(held.q - q_ref, np.outer(0.05 * (1 + 10 * t) * np.exp(-10 * t), np.ones(6)), atol=1e-8)
    assert err[-1] < 1e-10
    free = tree.simulate(model, start, duration_s=3.0, dt_s=1e-3, output_interval_s=0.01)
    assert np.abs(free.q - q_ref).max() > 0.5


def test_callback_equals_schedule_run_and_the_cli(tmp_path):
    model = load("double_pendulum.yaml")
    csv = tmp_path / "torque.csv"
    csv.write_text("t,tau1,tau2\n0,0,0\n0.1,1,0.5\n0.2,-1,0.25\n")
    sched = tree.TorqueSchedule.load_csv(str(csv), model.nv)
    assert repr(sched) == "TorqueSchedule(rows=3, nv=2, t_s=[0 .. 0.2])"
    again = tree.TorqueSchedule(t_s=sched.t_s, tau=sched.tau)
    np.testing.assert_allclose(again.eval(0.15), [0.0, 0.375], atol=1e-15)
    kw = dict(duration_s=0.25, dt_s=1e-3, output_interval_s=0.005)
    a = tree.simulate(model, [0.3, 0.0], torque=sched, **kw)
    b = tree.simulate(model, [0.3, 0.0], torque=lambda t, q, v: sched.eval(t), **kw)
    for name in ("t_s", "q", "v", "tau", "energy_J"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert np.abs(a.tau).max() > 0.5
    if not CLI.exists():
        pytest.skip("CLI not built")
    out_dir = tmp_path / "run"  # -o is a directory: the run goes to run/results.json
    subprocess.run([str(CLI), "tree", "simulate", str(REPO / "models/tree/double_pendulum.yaml"), "--q", "0.3,0",
                    "--duration", "0.25", "--dt", "0.001", "--every", "5", "--torque", str(csv), "--format", "json", "-o", str(out_dir)],
                   check=True, capture_output=True)
    e = json.loads((out_dir / "results.json").read_text())
    np.testing.assert_array_equal(a.t_s, e["t"])
    np.testing.assert_array_equal(a.q, e["q"])
    np.testing.assert_array_equal(a.tau, e["tau"])
    np.testing.assert_array_equal(a.energy_J, e["energy"])


def test_callback_errors_propagate():
    model = load("double_pendulum.yaml")

    class Boom(Exception):
        pass

    calls = []

    def boom(t, q, v):
        calls.append(t)
        if t > 0.0102:
            raise Boom("at t = %g" % t)
        return np.zeros(2)

    with pytest.raises(Boom, match="at t = 0.0105"):
        tree.simulate(model, duration_s=1.0, torque=boom)
    assert len(calls) < 60  # stopped at once
    with pytest.raises(ValueError, match=r"returned shape \(3,\), expected shape \(2,\)"):
        tree.simulate(model, duration_s=0.01, torque=lambda t, q, v: np.zeros(3))
    with pytest.raises(tendyn.Error, match="returned None"):
        tree.simulate(model, duration_s=0.01, torque=lambda t, q, v: None)
    with pytest.raises(TypeError, match="torque must be None, a TorqueSchedule or a callable"):
        tree.simulate(model, duration_s=0.01, torque=3.0)
    with pytest.raises(tendyn.SimulationError, match="torque is not finite") as e:
        tree.simulate(model, duration_s=0.1, torque=lambda t, q, v: [np.nan if t > 0.05 else 0.0, 0.0])
    assert 0.05 < e.value.time <= 0.051
    wide = tree.TorqueSchedule(t_s=[0.0], tau=[[1.0, 2.0, 3.0]])
    with pytest.raises(tendyn.Error, match="3 torques per row, model 'double_pendulum' needs nv = 2"):
        tree.simulate(model, duration_s=0.01, torque=wide)


def test_simulate_options_and_shapes_are_checked():
    model = load("double_pendulum.yaml")
    with pytest.raises(tendyn.Error, match=r"dt_s must be a finite number > 0 \(got 0\)"):
        tree.simulate(model, dt_s=0.0)
    with pytest.raises(tendyn.Error, match="shorter than half a step"):
        tree.simulate(model, duration_s=1e-4, dt_s=1e-3)
    with pytest.raises(tendyn.Error, match="not a whole multiple of dt_s"):
        tree.simulate(model, duration_s=0.1, output_interval_s=0.0015)
    assert len(tree.simulate(model, duration_s=0.0)) == 1
    with pytest.raises(ValueError, match=r"q0: expected shape \(2,\) \(nq = 2 of model 'double_pendulum'\), got shape \(3,\)"):
        tree.simulate(model, [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match=r"v0: expected shape \(2,\).*got shape \(2, 2\)"):
        tree.simulate(model, None, np.zeros((2, 2)))
    data = tree.Data(model)
    with pytest.raises(ValueError, match=r"q: expected shape \(2,\).*got shape \(2, 1\)"):
        tree.rnea(model, data, np.zeros((2, 1)), [0.0, 0.0], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"tau: expected shape \(2,\).*got shape \(1,\)"):
        tree.aba(model, data, [0.0, 0.0], [0.0, 0.0], [0.0])
    with pytest.raises(ValueError, match="got a str"):
        tree.kinetic_energy(model, data, "ab", [0.0, 0.0])
    with pytest.raises(ValueError, match="data was made for another model"):
        tree.crba(model, tree.Data(load("arm6.yaml")), [0.0, 0.0])
    with pytest.raises(ValueError, match=r"Model.gravity_W: expected shape \(3,\), got shape \(2,\)"):
        model.gravity_W = [0.0, 1.0]
    model.gravity_W = [0.0, 0.0, -1.62]
    np.testing.assert_array_equal(model.gravity_W, [0.0, 0.0, -1.62])


def test_free_joint_model_simulates_and_normalises():
    model = load("biped.urdf", tree.BaseMode.kFree)
    q0 = model.neutral()
    q0[3:7] = [2.0, 0.0, 0.0, 0.0]
    r = tree.simulate(model, q0, duration_s=0.05)
    assert r.q.shape == (51, model.nq) and r.v.shape == (51, model.nv)
    assert r.q[0, 3] == 1.0
    np.testing.assert_allclose(np.linalg.norm(r.q[:, 3:7], axis=1), 1.0, atol=1e-14)
    assert r.q[-1, 2] < r.q[0, 2]  # falls under gravity


def test_simulate_releases_the_gil():
    import threading
    model = load("humanoid35.urdf", tree.BaseMode.kFree)
    done = threading.Event()

    def run():
        tree.simulate(model, duration_s=2.0, dt_s=1e-3, output_interval_s=0.1)
        done.set()

    th = threading.Thread(target=run)
    th.start()
    spins = 0
    while not done.is_set():
        spins += 1
    th.join()
    assert spins > 1000  # this thread kept running while the other one simulated


def test_reprs_keyword_constructors_and_docstrings():
    model = load("double_pendulum.yaml")
    assert repr(model) == "Model(name='double_pendulum', nlinks=2, nq=2, nv=2)"
    assert repr(model.joints[0]).startswith("Joint(name='link1_joint', type=JointType.kRevolute, nq=1, nv=1")
    assert repr(model.links[0]).startswith("Link(name='link1', mass_kg=1")
    w = tree.LinkWrench(f_W=[1.0, 2.0, 3.0])
    assert repr(w) == "LinkWrench(f_W=[1, 2, 3], n_W=[0, 0, 0])"
    with pytest.raises(TypeError):
        tree.LinkWrench([1.0, 2.0, 3.0])  # keywords only
    assert repr(tree.Data(model)) == "Data(nlinks=2, nv=2)"
    r = tree.simulate(model, duration_s=0.01)
    assert repr(r) == "SimulationResult(samples=11, steps=10, dt_s=0.001, t_end_s=0.01, nq=2, nv=2)"
    for cls in (tree.Model, tree.Joint, tree.Link, tree.LinkWrench, tree.Data, tree.BlockData,
                tree.TorqueSchedule, tree.SimulationResult):
        for name, attr in vars(cls).items():
            if isinstance(attr, property):
                assert attr.__doc__ and attr.__doc__.strip(), f"{cls.__name__}.{name} has no docstring"
    for name in ("t_s", "q", "v", "tau", "energy_J", "dt_s"):
        assert "[" in vars(tree.SimulationResult)[name].__doc__, name  # a unit
    assert "callable(t, q, v)" in tree.simulate.__doc__


def test_enum_names_from_string_validate_and_make_data():
    assert tree.to_string(tree.JointType.kPrismatic) == "prismatic"
    assert tree.joint_type_from_string("continuous") == tree.JointType.kRevolute
    assert tree.joint_type_from_string("floating") == tree.JointType.kFree
    with pytest.raises(ValueError, match=r"unknown joint type 'hinge' \(valid: fixed, revolute"):
        tree.joint_type_from_string("hinge")
    for mode in (tree.BaseMode.kAsWritten, tree.BaseMode.kFictitious, tree.BaseMode.kFree):
        assert tree.base_mode_from_string(tree.to_string(mode)) == mode
    assert tree.base_mode_from_string("Free") == tree.BaseMode.kFree  # names read in any case
    with pytest.raises(ValueError, match=r"unknown base mode 'orbit' \(valid: as-written, fictitious, free\)"):
        tree.base_mode_from_string("orbit")
    model = load("double_pendulum.yaml")
    link = model.links[0]
    assert link.mass_kg == 1.0 and link.p_LC_m.shape == (3,) and link.inertia_C_kgm2.shape == (3, 3)
    assert model.joints[1].p_PJ_m.shape == (3,)
    tree.validate(model)
    model.gravity_W = [0.0, 0.0, np.inf]
    with pytest.raises(ValueError, match="gravity must be finite"):
        tree.validate(model)
    model.gravity_W = [0.0, 0.0, -9.81]
    data = tree.make_data(model)
    assert repr(data) == "Data(nlinks=2, nv=2)"
    np.testing.assert_array_equal(tree.crba(model, data, [0.3, -0.2]), tree.crba(model, tree.Data(model), [0.3, -0.2]))


def test_overflowing_results_raise_instead_of_returning_nan():
    model = load("double_pendulum.yaml")
    data, bd = tree.Data(model), tree.BlockData(model)
    q, zero = np.zeros(2), np.zeros(2)
    with pytest.raises(tendyn.Error, match=r"tree.rnea: tau \(joint forces\) overflowed the double range \(joint '"):
        tree.rnea(model, data, q, zero, np.array([1e308, 1e308]))
    with pytest.raises(tendyn.Error, match=r"tree.nonlinear_effects: b \(bias forces\) overflowed.* is (nan|-?inf)\)"):
        tree.nonlinear_effects(model, data, q, np.array([1e200, 0.0]))
    with pytest.raises(tendyn.Error, match=r"tree.aba: ddq \(joint accelerations\) overflowed"):
        tree.aba(model, data, q, np.array([1e200, 0.0]), zero)
    with pytest.raises(tendyn.Error, match=r"tree.block_inverse_dynamics: tau \(joint forces\) overflowed"):
        tree.block_inverse_dynamics(model, bd, q, zero, np.array([1e308, 1e308]))
    with pytest.raises(tendyn.Error, match=r"tree.block_eom: b \(bias forces\) overflowed"):
        tree.block_eom(model, bd, q, np.array([1e200, 0.0]))
    with pytest.raises(tendyn.Error, match=r"tree.block_forward_dynamics: ddq \(joint accelerations\) overflowed"):
        tree.block_forward_dynamics(model, bd, q, np.array([1e200, 0.0]), zero)
    # a free joint names its coordinate
    free = tree.load_model(str(REPO / "models/tree/biped.yaml"), tree.BaseMode.kFree)
    with pytest.raises(tendyn.Error, match=r"\(joint 'trunk_free' coordinate 1 of 6 is (nan|-?inf)\)"):
        tree.rnea(free, tree.Data(free), free.neutral(), np.zeros(free.nv), np.full(free.nv, 1e308))
    # nan in, nan out (not an overflow), and large finite results still come back
    assert np.isnan(tree.rnea(model, data, q, zero, np.array([np.nan, 0.0]))).all()
    assert np.isfinite(tree.rnea(model, data, q, zero, np.array([1e300, 1e300]))).all()
