"""Closed-loop work from Python: step() by hand equals simulate() bit for bit, controller callbacks
(every evaluation and sampled), node positions, and errors raised inside callbacks."""
import math
import threading
from pathlib import Path

import numpy as np
import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]


def three_bar():
    return ts.load_model_file(str(REPO / "models/three_bar.yaml")).model


def lying_driven():
    """The 3-bar robot lying on its impulse ground in the document's printed pose (4-1), not at
    rest (slack cables, impacts), with the standing robot's four sinusoidal drives
    (time-dependent rest lengths). models/three_bar_lying.yaml is that pose settled."""
    m = ts.load_model_file(str(REPO / "models/gen/three_bar_lying_4-1.yaml")).model
    m.drives = three_bar().drives
    return m


def step_by_hand(model, n, h, integrator, stamp=True):
    state = model.initial_state.copy()
    data = ts.make_data(model)
    ts.compute_derivative(model, state, data)
    xs, splits = [state.x.copy()], 0
    for k in range(n):
        r = ts.step(model, data, state, h, integrator, t_end_s=(k + 1) * h if stamp else None)
        assert r.h_s == h and r.rejected == 0
        splits += r.splits > 0
        xs.append(state.x.copy())
    return state, np.array(xs), splits


@pytest.mark.parametrize("integrator", ["rk4", "lie-verlet"])
def test_step_by_hand_equals_simulate_bit_for_bit(integrator):
    m = lying_driven()
    n, h = 600, 5e-4
    o = ts.SimulationOptions(duration_s=n * h, dt_s=h, integrator=integrator, output_interval_s=0)
    run = ts.simulate(m, o)
    state, xs, splits = step_by_hand(m, n, o.duration_s / n, integrator)
    assert run["summary"].split_steps == splits > 0  # slack events and impacts happened
    assert np.array_equal(xs, run["states"])  # every step, every bit
    assert state.time_s == run["summary"].final_state.time_s == run["time"][-1]
    # the time stamp matters: accumulated times differ by round-off, and the drives see it
    unstamped, _, _ = step_by_hand(m, n, o.duration_s / n, integrator, stamp=False)
    assert not np.array_equal(unstamped.x, state.x)
    np.testing.assert_allclose(unstamped.x, state.x, rtol=0, atol=1e-9)


def test_dopri5_step_by_hand_equals_simulate():
    m = three_bar()
    m.ground = ts.Ground(type=ts.Ground.Type.kCompliant)
    o = ts.SimulationOptions(duration_s=0.3, dt_s=0.05, integrator="dopri5", output_interval_s=0)
    run = ts.simulate(m, o)
    state, data = m.initial_state.copy(), ts.make_data(m)
    ts.compute_derivative(m, state, data)
    h, rejected, steps = o.dt_s, 0, 0
    while state.time_s < o.duration_s - 1e-12:
        h_try = min(h, o.duration_s - state.time_s)
        r = ts.step(m, data, state, h_try, ts.Integrator.kDormandPrince45)
        rejected += r.rejected
        if r.rejected > 0 or not h_try < h:
            h = r.h_next_s
        steps += 1
    s = run["summary"]
    assert (steps, rejected) == (s.steps, s.rejected_steps) and rejected > 0
    assert np.array_equal(state.x, s.final_state.x)


def test_step_arguments_are_checked():
    m = three_bar()
    state, data = m.initial_state.copy(), ts.make_data(m)
    with pytest.raises(tendyn.Error, match="unknown integrator 'rk5'"):
        ts.step(m, data, state, 1e-3, "rk5")
    with pytest.raises(tendyn.Error, match="step h must be > 0"):
        ts.step(m, data, state, 0.0)
    with pytest.raises(ValueError, match="not made for this model"):
        ts.step(m, ts.make_data(ts.make_prism(ts.PrismParams(n=4))), state, 1e-3)
    with pytest.raises(ValueError, match="13 \\* nrod = 39"):
        ts.step(m, data, ts.State(np.zeros(26)), 1e-3)


def sinusoid_controller(drives, rest):
    def controller(t_s, state, data):
        for d in drives:
            u = d.u
            data.cable_rest_length_m[d.cable] = rest[d.cable] + (u.a_m * math.sin(u.b_radps * t_s + u.c_rad) + u.d_m)
    return controller


def test_callback_reproduces_the_sinusoid_drive_bit_for_bit():
    driven = three_bar()
    free = three_bar()
    drives, free.drives = free.drives, []
    law = sinusoid_controller(drives, [c.rest_length_m for c in free.cables])
    o = ts.SimulationOptions(duration_s=1.0, dt_s=5e-4)
    a = ts.simulate(driven, o)
    b = ts.simulate(free, o, controller=law)  # called at every evaluation
    for key in ("time", "states", "node_positions", "strains", "tensions", "energies", "com"):
        assert np.array_equal(a[key], b[key]), key
    assert a["summary_json"] == b["summary_json"]


def test_sampled_controller_gets_evaluated_data_and_its_inputs_are_held():
    m = ts.default_model().model
    o = ts.SimulationOptions(duration_s=0.4, dt_s=1e-3)
    seen = []

    def law(t_s, state, data):
        # data is fully evaluated at the state: tensions agree with a fresh evaluation
        fresh = ts.make_data(m)
        fresh.cable_rest_length_m = data.cable_rest_length_m
        fresh.f_W_ext_node = data.f_W_ext_node
        ts.compute_derivative(m, state, fresh)
        seen.append((t_s, np.array_equal(data.cable_tension_N, fresh.cable_tension_N),
                     np.array_equal(data.p_W_node, fresh.p_W_node)))
        if t_s == 0.0:
            data.cable_rest_length_m[3] = 0.19
            data.f_W_ext_node[1] = [0.0, 0.0, 0.5]

    run = ts.simulate(m, o, controller=law, control_period_s=0.1)
    assert [round(t, 12) for t, _, _ in seen] == [0.0, 0.1, 0.2, 0.3]
    assert all(ok1 and ok2 for _, ok1, ok2 in seen)
    # held until the end: the same as a model that carries those inputs
    same = ts.default_model().model
    cables = same.cables
    cables[3].rest_length_m = 0.19
    same.cables = cables
    f = same.f_W_ext_node
    f[1] = [0.0, 0.0, 0.5]
    same.f_W_ext_node = f
    ref = ts.simulate(same, o)
    assert np.array_equal(run["summary"].final_state.x, ref["summary"].final_state.x)


def test_controller_exceptions_propagate_and_stop_the_run():
    m = three_bar()
    m.drives = []
    calls = []

    class Boom(Exception):
        pass

    def law(t_s, state, data):
        calls.append(t_s)
        if t_s >= 0.1:
            raise Boom(f"stop at {t_s:.3f}")

    for period in (None, 0.02):
        calls.clear()
        with pytest.raises(Boom, match="stop at 0.1"):
            ts.simulate(m, ts.SimulationOptions(duration_s=1.0, dt_s=5e-4), controller=law, control_period_s=period)
        assert calls[-1] < 0.11 and all(t < 0.11 for t in calls)  # nothing ran after the exception
    with pytest.raises(TypeError, match="controller must be callable"):
        ts.simulate(m, controller=42)
    with pytest.raises(ZeroDivisionError):
        ts.simulate(m, controller=lambda t, s, d: 1 / 0)


def test_controller_limits_and_shapes():
    m = three_bar()
    m.drives = []
    cables = m.cables
    cables[8].rest_length_max_m = 0.25
    m.cables = cables

    def too_long(t_s, state, data):
        data.cable_rest_length_m[8] = 0.3

    with pytest.raises(tendyn.SimulationError, match="cable 'c9' to 0.3.*outside its limits"):
        ts.simulate(m, controller=too_long, control_period_s=0.01)

    def wrong_shape(t_s, state, data):
        data.cable_rest_length_m = np.zeros(8)

    with pytest.raises(ValueError, match=r"expected shape \(9,\).*got \(8,\)"):
        ts.simulate(m, controller=wrong_shape)

    def on_driven(t_s, state, data):
        data.cable_rest_length_m[0] += 0.001

    with pytest.raises(tendyn.Error, match="cable 'c1'.*has a drive"):
        ts.simulate(three_bar(), controller=on_driven, control_period_s=0.01)


def test_controllers_run_in_parallel_threads():
    # the GIL is released during simulate and taken only around each callback
    free = three_bar()
    drives, free.drives = free.drives, []
    law = sinusoid_controller(drives, [c.rest_length_m for c in free.cables])
    o = ts.SimulationOptions(duration_s=0.5, dt_s=5e-4)
    expected = ts.simulate(free, o, controller=law)["states"]
    results = [None] * 3

    def work(i):
        results[i] = ts.simulate(free, o, controller=law)["states"]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert all(r is not None and np.array_equal(r, expected) for r in results)


def test_node_positions_in_results_and_helper():
    m = three_bar()
    run = ts.simulate(m, ts.SimulationOptions(duration_s=0.5, dt_s=5e-4, output_interval_s=0.1))
    P = run["node_positions"]
    assert P.shape == (len(run["time"]), m.nnode, 3)
    final = run["summary"].final_state
    assert np.array_equal(P[-1], ts.node_positions(m, final))
    assert np.array_equal(P[0], ts.node_positions(m, m.initial_state))
    for r in m.rods:
        a, b = r.node
        np.testing.assert_allclose(np.linalg.norm(P[:, b] - P[:, a], axis=1), r.length_m, rtol=1e-12)
    # the rod COMs in the states lie on their rods (com_ratio 0.5: the midpoints)
    x = run["states"]
    for j, r in enumerate(m.rods):
        a, b = r.node
        np.testing.assert_allclose(0.5 * (P[:, a] + P[:, b]), x[:, 13 * j:13 * j + 3], atol=1e-12)
