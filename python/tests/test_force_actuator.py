"""Force actuators (MuJoCo's tendon actuators) from Python: the imported MJCF actuators, the
ForceActuator fields, Data.actuator_ctrl written by a controller and the force it makes."""
from pathlib import Path

import numpy as np
import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]

PULLED = """
gravity: [0, 0, 0]
nodes:
  - {id: hook, position: [0, 0, 1.0], fixed: true}
  - {id: top, position: [0, 0, 0.69]}
  - {id: bottom, position: [0, 0, 0.19]}
rods:
  - {id: A, mass: 0.5, length: 0.5, nodes: [bottom, top]}
cables:
  - {id: c, nodes: [hook, top], stiffness: 0, damping: 0, rest_length: 0.3, tension_only: false}
actuators:
  - {name: pull, cable: c, gear: 1, ctrl: 0, ctrl_range: [-2, 2]}
"""


def test_imported_actuators_keep_mujocos_law():
    m = tendyn.load_model(str(REPO / "tests/data/mjcf/three_bar_actuated.xml")).model
    assert m.actuator_ids == ["servo", "motor", "affine", "speed", "filtered", "integrated"]
    a = m.force_actuators
    assert a[0].gain == [40, 0, 0] and a[0].bias == [0, -40, 0]
    assert a[1].gear == 2 and a[1].ctrl_limited and (a[1].ctrl_min, a[1].ctrl_max) == (-1, 1)
    assert a[2].force_limited and (a[2].force_min_N, a[2].force_max_N) == (-4, 4)
    assert [x.ctrl for x in a] == [0.3, -2.5, 0.33, 0.1, 0.27, -0.02]
    assert a[4].dynamics == ts.ForceActuator.Dynamics.filter and a[4].time_constant_s == 0.05
    assert a[5].dynamics == ts.ForceActuator.Dynamics.integrator
    assert m.nx() == 3 * 13 + 2
    assert m.initial_state.x[m.activation_offset(4)] == 0.31
    assert m.force_actuator_on(a[1].cable) == 1 and m.actuator_name(1) == "motor"
    d = ts.make_data(m)
    ts.compute_derivative(m, m.initial_state, d)
    assert d.actuator_force_N[1] == -1.0  # ctrl -2.5 clamped to -1
    assert d.actuator_force_N[2] == -4.0  # clamped force


def test_a_controller_commands_the_actuator_and_the_rod_is_pulled():
    m = ts.load_model_string(PULLED, "pulled.yaml").model
    opts = ts.SimulationOptions()
    opts.duration_s, opts.dt_s, opts.output_interval_s = 0.3, 1e-3, 0.1
    opts.energy_growth_limit = 1e300  # starts at rest: the actuator's work is the point

    def pull(t_s, state, data):
        data.actuator_ctrl[0] = -5.0  # clamped to -2 N: pulls the top end towards the hook

    idle = ts.simulate(m, opts, record=False)["summary"].final_state
    pulled = ts.simulate(m, opts, controller=pull, record=False)["summary"].final_state
    z0 = m.initial_state.x[2]
    assert idle.x[2] == pytest.approx(z0, abs=1e-12)
    # 2 N on 0.5 kg along +z (the hook is straight above): z rises by a t^2 / 2 = 4 * 0.09 / 2 = 0.18 m
    assert pulled.x[2] - z0 == pytest.approx(0.18, rel=1e-9)
    d = ts.make_data(m)
    with pytest.raises(ValueError, match="one per force actuator"):
        d.actuator_ctrl = np.zeros(2)
    with pytest.raises(tendyn.Error, match="names cable 'nope'"):
        ts.load_model_string(PULLED.replace("cable: c,", "cable: nope,"), "bad.yaml")
