"""tendyn.viewer (the live view) against a real `tendyn serve` on a free loopback port: frames pushed by
update() and by simulate's observer are what the page reads back (GET /live/state), errors are clear
without a server, and the closed-loop example streams with --live. The page in a browser:
web/tests/live.test.mjs."""
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import warnings
from pathlib import Path

import numpy as np
import pytest

import tendyn
import tendyn.viewer

ts = tendyn.tensegrity
BUILD = Path(tendyn.__file__).resolve().parents[2]
REPO = Path(__file__).resolve().parents[2]
CLI = BUILD / "tendyn"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


TOKENS = {}  # port -> the server's token (printed in its address)


def start_server():
    if not CLI.exists():
        pytest.skip(f"tendyn program not built at {CLI}")
    proc = subprocess.Popen([str(CLI), "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)", line)
    if not m:
        proc.kill()
        if "viewer" in line:
            pytest.skip(f"tendyn serve unavailable: {line.strip()}")
        raise AssertionError(f"tendyn serve did not start: {line}")
    TOKENS[int(m.group(1))] = m.group(2)
    return proc, int(m.group(1))


@pytest.fixture
def server():
    proc, port = start_server()
    yield port
    proc.terminate()
    proc.wait(timeout=10)


def state_of(port, session=0, after=0, keep=False):
    req = urllib.request.Request(f"http://127.0.0.1:{port}/live/state?session={session}&after={after}" + ("&keep=1" if keep else ""),
                                 headers={"X-Tendyn-Token": TOKENS[port]})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def prism():
    model = ts.load_model_file(str(REPO / "models" / "prism3.yaml")).model
    state, data = model.initial_state, ts.make_data(model)
    ts.compute_derivative(model, state, data)
    return model, state, data


def flat(p):  # (3 x n) -> x0, y0, z0, x1, ...
    return np.asarray(p).T.reshape(-1)


def test_show_without_a_server_is_a_clear_error():
    model, _, _ = prism()
    port = free_port()
    with pytest.raises(tendyn.Error, match=rf"live view: no tendyn serve at http://127\.0\.0\.1:{port} \(.*\); "
                                           rf"start one with `tendyn serve --port {port}`"):
        tendyn.viewer.show(model, port=port)
    with pytest.raises(tendyn.Error, match="is not a loopback address"):
        tendyn.viewer.show(model, host="example.org")


def test_200_updates_reach_the_page_state_and_the_last_one_is_exact(server):
    model, state, data = prism()
    view = tendyn.viewer.show(model, port=server, quiet=True)
    assert view.url == f"http://127.0.0.1:{server}/live?token={TOKENS[server]}"
    start = time.monotonic()
    for k in range(1, 201):
        ts.step(model, data, state, 1e-3, t_end_s=k * 1e-3)
        assert view.update(state, data=data)
    loop_s = time.monotonic() - start
    assert view.flush(5.0)
    s = view.stats
    assert s.given == 200 and s.sent + s.replaced == 200 and s.failed == 0
    assert 1 <= s.sent <= 2 + 30 * (loop_s + 0.2)  # 30 Hz: the others were replaced, the loop never waited
    st = state_of(server)
    assert st["session"] == 1 and st["count"] == s.sent
    assert [c["name"] for c in st["scene"]["cables"]] == [c for c in model.cable_ids]
    frames = st["frames"]
    assert frames["t_s"][-1] == pytest.approx(0.2, abs=1e-12)
    np.testing.assert_allclose(frames["positions_m"][-1], flat(data.p_W_node), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(frames["cable_tension_N"][-1], data.cable_tension_N, rtol=1e-6, atol=1e-12)
    e = ts.compute_energy(model, state, data)
    assert frames["energy_J"]["total"][-1] == pytest.approx(e.total(), rel=1e-6)
    np.testing.assert_allclose(frames["com_m"][-1], ts.center_of_mass(model, state), rtol=1e-6, atol=1e-12)
    # from the state alone (the client evaluates it with the model's rest lengths): the same numbers
    ts.step(model, data, state, 1e-3, t_end_s=0.201)
    view.update(state)
    assert view.flush(5.0)
    st = state_of(server, 1, s.sent)
    np.testing.assert_allclose(st["frames"]["positions_m"][-1], flat(data.p_W_node), rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(st["frames"]["cable_tension_N"][-1], data.cable_tension_N, rtol=1e-6, atol=1e-12)
    # time going back (a new episode): a new session on the page
    view.update(model.initial_state, 0.0)
    assert view.flush(5.0)
    assert state_of(server)["session"] == 2
    view.close()


def test_observer_shows_a_simulate_run(server):
    model, _, _ = prism()
    view = tendyn.viewer.show(model, port=server, quiet=True)
    options = ts.SimulationOptions(duration_s=0.5, dt_s=1e-3, output_interval_s=0.01)
    run = ts.simulate(model, options, controller=view.observer(), control_period_s=0.01)
    view.close()
    st = state_of(server)
    t_last = st["frames"]["t_s"][-1]
    assert t_last >= 0.48  # the last controller call
    i = int(np.argmin(np.abs(run["time"] - t_last)))
    assert run["time"][i] == pytest.approx(t_last, abs=1e-9)
    np.testing.assert_allclose(st["frames"]["positions_m"][-1], run["node_positions"][i].reshape(-1), rtol=1e-6, atol=1e-9)
    # the run itself is the one without a viewer
    plain = ts.simulate(model, options)
    np.testing.assert_array_equal(run["states"], plain["states"])


def test_a_server_that_went_away_warns_once_and_never_raises():
    model, state, data = prism()
    proc, port = start_server()
    view = tendyn.viewer.show(model, port=port, quiet=True)
    proc.terminate()
    proc.wait(timeout=10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        view.update(state, data=data)
        assert not view.flush(5.0)
        view.update(state, data=data)
        view.flush(5.0)
    msgs = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(msgs) == 1, msgs
    assert f"no tendyn serve at http://127.0.0.1:{port}" in msgs[0]
    assert view.stats.failed >= 1
    view.close()


def test_closed_loop_example_streams_with_live(server):
    env = dict(os.environ, PYTHONPATH=str(BUILD / "python"))
    example = [sys.executable, str(REPO / "examples" / "python" / "closed_loop_three_bar.py"), "--duration", "1"]
    plain = subprocess.run(example, check=True, capture_output=True, text=True, env=env)
    live = subprocess.run(example + ["--live", str(server)], check=True, capture_output=True, text=True, env=env)
    assert live.stdout == plain.stdout  # the same run
    assert f"http://127.0.0.1:{server}/live" in live.stderr
    st = state_of(server)
    assert st["scene"]["title"] and len(st["scene"]["rods"]) == 3
    assert st["frames"]["t_s"][-1] == pytest.approx(0.98, abs=1e-9)  # the last 20 ms controller call
    cpp = BUILD / "examples" / "closed_loop_three_bar"
    if cpp.exists():
        out = subprocess.run([str(cpp), "--model", str(REPO / "models" / "three_bar.yaml"), "--duration", "1", "--live", str(server)],
                             check=True, capture_output=True, text=True)
        assert out.stdout == plain.stdout
        st2 = state_of(server, st["session"], st["count"])
        assert st2["session"] == st["session"] + 1  # send_scene: a new session
        assert st2["frames"]["t_s"][-1] == pytest.approx(0.98, abs=1e-9)


def test_show_finds_the_token_and_a_wrong_one_is_refused(server):
    model, _, _ = prism()
    # another user's program (no token file, a guessed token) cannot feed this server's live view
    with pytest.raises(tendyn.Error, match=r"refused the given token \(GET /live/health: HTTP 403: wrong token"):
        tendyn.viewer.show(model, port=server, quiet=True, token="0" * 32)
    view = tendyn.viewer.show(model, port=server, quiet=True, token=TOKENS[server])
    assert view.url.endswith(f"/live?token={TOKENS[server]}")
    view.close()


def test_keep_all_delivers_every_frame_of_a_fast_loop_in_order(server):
    model, state, data = prism()
    view = tendyn.viewer.show(model, port=server, quiet=True, keep_all=True)
    for k in range(1, 2501):  # as fast as the loop runs: far beyond 30 frames a second
        ts.step(model, data, state, 1e-3, t_end_s=k * 1e-3)
        view.update(state, data=data)
    assert view.flush(20.0), view.stats
    s = view.stats
    assert (s.given, s.sent, s.replaced, s.failed) == (2500, 2500, 0, 0)
    times, after = [], 0
    while after < 2500:  # the page's keep=1 polls: the oldest unseen frames, 2000 at most each
        st = state_of(server, 1, after, keep=True)
        assert st["first"] == after
        times += st["frames"]["t_s"]
        after += len(st["frames"]["t_s"])
        assert st["frames"]["t_s"], st
    np.testing.assert_allclose(times, np.arange(1, 2501) * 1e-3, rtol=0, atol=1e-9)
    view.close()


@pytest.mark.parametrize("factor", [1.0, 4.0])
def test_realtime_paces_the_loop(server, factor):
    model, state, data = prism()
    view = tendyn.viewer.show(model, port=server, quiet=True, realtime=factor)
    start = time.monotonic()
    view.update(state, data=data)  # t = 0: the clock starts
    for k in range(1, 401):  # 0.4 s of simulated time
        ts.step(model, data, state, 1e-3, t_end_s=k * 1e-3)
        view.update(state, data=data)
    wall = time.monotonic() - start
    view.close()
    assert 0.4 / factor <= wall < 0.4 / factor + 0.5, wall  # paced, not much slower (a loaded machine)
    with pytest.raises(tendyn.Error, match="realtime_factor must be >= 0"):
        tendyn.viewer.show(model, port=server, quiet=True, realtime=-1.0)
