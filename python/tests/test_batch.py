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


def test_batch_of_another_model_is_refused_not_read_out_of_bounds():
    three = prism()
    six = ts.make_expanded_octahedron(ts.OctahedronParams())
    assert (three.nrod, six.nrod) == (3, 6)
    b = ts.make_batch(three, 2)
    x0 = b.x.copy()
    for wrong, other in ((six, three), (three, six)):
        batch = ts.make_batch(other, 2)
        with pytest.raises(tendyn.Error, match=r"step_batch\(batch\): the batch was made for another model \(robot 0 "):
            ts.step_batch(wrong, batch, ts.BatchStepOptions(nstep=5))
        with pytest.raises(tendyn.Error, match=r"set_state\(batch\): the batch was made for another model"):
            ts.set_state(wrong, batch, 0, wrong.initial_state)
        with pytest.raises(tendyn.Error, match=r"set_rest_lengths\(batch\): the batch was made for another model"):
            ts.set_rest_lengths(wrong, batch, np.array([[c.rest_length_m for c in wrong.cables]] * 2))
    # the right model still steps, and nothing above touched b
    assert np.array_equal(b.x, x0)
    assert ts.step_batch(three, b, ts.BatchStepOptions(nstep=5)) == 0
    assert np.allclose(b.time_s, 0.005, rtol=0, atol=1e-15)


def test_one_batch_stepped_from_two_threads_at_once_raises_in_the_second():
    import threading
    m = prism()
    b = ts.make_batch(m, 16)
    started, done, errors = threading.Event(), threading.Event(), []
    nstep = 4000

    def long_call():
        started.set()
        try:
            ts.step_batch(m, b, ts.BatchStepOptions(h_s=1e-4, nstep=nstep, threads=1))
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)
        done.set()

    t = threading.Thread(target=long_call)
    t.start()
    assert started.wait(5)
    raised, accepted = None, 0
    while not done.is_set() and raised is None:  # the GIL is released inside step_batch
        try:
            ts.step_batch(m, b, ts.BatchStepOptions(h_s=1e-4, nstep=1))
            accepted += 1  # (only before the long call took the batch)
        except RuntimeError as e:
            raised = e
    t.join()
    assert not errors
    assert raised is not None and "step_batch: this data, state or batch is being stepped by another thread" in str(raised)
    # no step lost or added: the long call's steps plus the accepted ones, none of the refused one
    assert np.allclose(b.time_s, (nstep + accepted) * 1e-4, rtol=0, atol=1e-12)


def test_batch_messages_print_huge_numbers_short():
    m = prism()
    b = ts.make_batch(m, 1)
    with pytest.raises(tendyn.Error) as e:
        ts.set_rest_lengths(m, b, np.full((1, m.ncable), -1e300))
    assert "rest length -1e+300 m is outside its limits [" in str(e.value) and len(str(e.value)) < 200, str(e.value)
    with pytest.raises(tendyn.Error) as e:
        ts.step_batch(m, b, ts.BatchStepOptions(h_s=-1e300))
    assert str(e.value) == "batch: the step h must be > 0 s and finite (got -1e+300)"


def test_batch_states_by_name_as_in_cpp():
    m = prism()
    b = run(m, np.array([[c.rest_length_m for c in m.cables]] * 2), 1, calls=1, nstep=5)
    states = b.states
    assert isinstance(states, list) and len(states) == 2
    for r in range(2):
        assert np.array_equal(states[r].x, b.x[r]) and states[r].time_s == b.time_s[r]
        assert np.array_equal(b.state(r).x, states[r].x)


def test_step_needs_no_preparatory_call():
    # make_data, then step: the same bits as with compute_derivative first (the old protocol)
    m = prism()
    a, b = m.initial_state.copy(), m.initial_state.copy()
    da, db = ts.make_data(m), ts.make_data(m)
    ts.compute_derivative(m, a, da)
    for k in range(3):
        ts.step(m, da, a, 1e-3)
        ts.step(m, db, b, 1e-3)
    assert np.array_equal(a.x, b.x)
    # a rest length changed by hand between steps is evaluated by the step itself
    da.cable_rest_length_m = da.cable_rest_length_m * 0.99
    db.cable_rest_length_m = db.cable_rest_length_m * 0.99
    ts.compute_derivative(m, a, da)
    ts.step(m, da, a, 1e-3)
    ts.step(m, db, b, 1e-3)
    assert np.array_equal(a.x, b.x)
    ts.prepare_step(m, b, db)  # (model, state, data) as compute_derivative
    ts.step(m, db, b, 1e-3)
