"""Batched rollouts (tendyn.tensegrity.step_batch): each robot equals stepping it alone with
step(), for any thread count; different controls per robot; a failing robot stops alone."""
from pathlib import Path

import numpy as np
import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]


def prism():
    return ts.make_prism(ts.PrismParams(damping_Nspm=0.5))


def run(model, rest, threads, calls=3, nstep=20):
    b = ts.make_batch(model, rest.shape[0])
    ts.set_rest_lengths(model, b, rest)
    o = ts.BatchStepOptions(h_s=1e-3, nstep=nstep, threads=threads)
    for _ in range(calls):
        assert ts.step_batch(model, b, o) == 0
    return b


def test_batch_equals_step_by_hand_for_any_thread_count():
    m = prism()
    rest = np.array([[c.rest_length_m * (1 + 0.02 * r) for c in m.cables] for r in range(4)])
    one, two = run(m, rest, 1), run(m, rest, 2)
    assert one.x.shape == (4, 13 * m.nrod)
    assert np.array_equal(one.x, two.x)
    assert one.p_W_node.shape == (4, m.nnode, 3)
    assert np.allclose(one.time_s, 0.06, rtol=0, atol=1e-15)
    for r in range(4):
        data = ts.make_data(m)
        state = m.initial_state.copy()
        data.cable_rest_length_m = rest[r]
        ts.compute_derivative(m, state, data)
        for _ in range(3):
            t0 = state.time_s
            for k in range(20):
                ts.step(m, data, state, 1e-3, "rk4", t_end_s=t0 + (k + 1) * 1e-3)
        assert np.array_equal(one.x[r], state.x)
        assert np.array_equal(one.cable_tension_N[r], data.cable_tension_N)
    assert np.abs(one.x[0] - one.x[3]).max() > 1e-4  # different controls, different motion


def test_failing_robot_stops_alone_and_bad_input_is_named():
    m = prism()
    b = ts.make_batch(m, 3)
    wild = m.initial_state.copy()
    x = wild.x.copy()
    x[10:12] = 1e200  # rod 0's angular velocity: finite, blows up in the first step
    wild.x = x
    ts.set_state(m, b, 1, wild)
    assert ts.step_batch(m, b, ts.BatchStepOptions(nstep=10)) == 1
    assert b.nrunning() == 2 and b.error[0] == "" and b.error[1] != ""
    assert np.array_equal(b.x[0], b.x[2])
    with pytest.raises(tendyn.Error, match=r"rest lengths must be \(robots x ncable\) = \(3 x 9\), got \(2 x 9\)"):
        ts.set_rest_lengths(m, b, np.ones((2, 9)))
    with pytest.raises(tendyn.Error, match="dopri5 is not available"):
        o = ts.BatchStepOptions()
        o.step.integrator = ts.Integrator.kDormandPrince45
        ts.step_batch(m, b, o)
    with pytest.raises(tendyn.Error, match="robot count must be >= 1"):
        ts.make_batch(m, 0)
