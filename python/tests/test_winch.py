"""Motorised winches from Python: the Winch fields, State.x with winch-sized states, the
controller callback and set_rest_lengths commanding the winch's target (not the rest length)."""
from pathlib import Path

import numpy as np
import pytest

from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]

HANGING = """
nodes:
  - {id: hook, position: [0, 0, 1.0], fixed: true}
  - {id: top, position: [0, 0, 0.69]}
  - {id: bottom, position: [0, 0, 0.19]}
rods:
  - {id: A, mass: 0.5, length: 0.5, nodes: [bottom, top]}
cables:
  - {id: c, nodes: [hook, top], stiffness: 2000, damping: 20, rest_length: 0.5}
winches:
  - {cable: c, spool_radius: 0.01, gear_ratio: 20, stall_torque: 0.2, no_load_speed: 600, rotor_inertia: 1.0e-6, kp: 20,
     rate_limit: 0.1}
"""


def hanging():
    return ts.load_model_string(HANGING, "hanging.yaml").model


def test_winch_fields_are_complete():
    w = hanging().winches[0]
    assert w.cable == 0 and w.spool_radius_m == 0.01 and w.gear_ratio == 20.0
    assert w.control == ts.Winch.Control.position
    assert w.rate_limit_mps == 0.1
    assert w.length_per_rad() == pytest.approx(5e-4)
    assert w.position_command_limit() == pytest.approx(0.1 / (600 * 5e-4))
    assert w.max_rate_mps() == pytest.approx(0.1)
    for name in ("stall_torque_Nm", "no_load_speed_radps", "rotor_inertia_kgm2", "coulomb_friction_Nm",
                 "viscous_friction_Nmsprad", "friction_speed_radps", "backdrivable", "kp_per_m", "ki_per_ms",
                 "kd_s_per_m", "command_limit"):
        assert hasattr(w, name), name
    w.control = ts.Winch.Control.torque
    assert "torque" in repr(w)


def test_state_x_takes_winch_sized_states():
    m = hanging()
    assert m.nx() == 16
    s = ts.State(np.zeros(16))  # 13 per rod + 3 per winch
    assert s.x.shape == (16,)
    s.x = m.initial_state.x  # the same size
    s2 = ts.State(m, m.initial_state.x, 0.5)
    assert s2.time_s == 0.5 and np.array_equal(s2.x, m.initial_state.x)
    with pytest.raises(ValueError, match=r"expected shape \(16,\)"):
        ts.State(m, np.zeros(13))
    with pytest.raises(ValueError, match=r"13 \* nrod \+ 3 \* nwinch"):
        ts.State(np.zeros(14))
    m.initial_state = s2  # a model takes its own size
    d = ts.make_data(m)
    ts.step(m, d, s2, 1e-4)
    assert s2.x.shape == (16,)


def test_set_rest_lengths_commands_the_winch_target():
    m = hanging()
    m.gravity_W = [0, 0, 0]
    b = ts.make_batch(m, 2)
    ts.set_rest_lengths(m, b, np.array([[0.52], [0.48]]))
    o = ts.BatchStepOptions()
    o.h_s, o.nstep, o.threads = 1e-4, 20000, 1
    assert ts.step_batch(m, b, o) == 0
    np.testing.assert_allclose(b.cable_rest_length_m[:, 0], [0.52, 0.48], atol=1e-4)


def test_controller_rest_length_on_a_winch_cable_is_its_target():
    m = hanging()
    m.gravity_W = [0, 0, 0]
    opts = ts.SimulationOptions()
    opts.duration_s, opts.dt_s, opts.output_interval_s = 2.0, 1e-4, 0.1
    opts.energy_growth_limit = 1e300  # starts at zero energy: the motor's work is the point

    def via_rest(t_s, state, data):
        data.cable_rest_length_m[0] = 0.53

    def via_target(t_s, state, data):
        data.winch_target_m[0] = 0.47

    for law, want in ((via_rest, 0.53), (via_target, 0.47)):
        r = ts.simulate(m, opts, controller=law, record=False)
        s = r["summary"].final_state
        d = ts.make_data(m)
        ts.compute_derivative(m, s, d)
        assert d.cable_rest_length_m[0] == pytest.approx(want, abs=1e-4)
