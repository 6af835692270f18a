"""Step derivatives, rollout gradients and the PyTorch bridge against finite differences."""
import importlib
from pathlib import Path

import numpy as np
import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]


def load(name):
    return ts.load_model_file(str(REPO / "models" / name)).model


def rest(m):
    return np.array([c.rest_length_m for c in m.cables])


def three_bar_compliant():
    m = load("three_bar_lying.yaml")
    g = m.ground
    g.type = ts.Ground.Type.kCompliant
    m.ground = g
    return m


def settled(m, steps, h, seed):
    """The state after `steps` plain steps from the model's start, plus a small random velocity."""
    d = ts.make_data(m)
    s = m.initial_state
    ts.compute_derivative(m, s, d)
    for _ in range(steps):
        ts.step(m, d, s, h)
    x = np.array(s.x)
    rng = np.random.default_rng(seed)
    for j in range(m.nrod):
        x[13 * j + 7:13 * j + 13] += rng.normal(0.0, 0.05, 6)
    return x


def fd_jacobian(f, x, eps):
    cols = []
    for i in range(len(x)):
        e = eps * max(1.0, abs(x[i]))
        xp, xm = x.copy(), x.copy()
        xp[i] += e
        xm[i] -= e
        cols.append((f(xp) - f(xm)) / (2 * e))
    return np.array(cols).T


def rel(fd, J):
    return np.abs(fd - J).max() / np.abs(J).max()


# eps: the relative step of the state and control differences. The 3-bar's regularised friction
# (slip velocity 1 mm/s) makes the step's third derivatives large: the central difference's error
# is ~(eps / 1e-3)^2 there (1.5e-4 at 1e-6, 1.5e-8 at 1e-8), so it takes 1e-8.
@pytest.mark.parametrize("name,h,eps", [("prism3.yaml", 1e-3, 1e-6), ("three_bar", 5e-4, 1e-8), ("superball.yaml", 2e-3, 1e-6)])
def test_step_derivatives_match_finite_differences(name, h, eps):
    m = three_bar_compliant() if name == "three_bar" else load(name)
    u = rest(m)
    x = settled(m, 200 if name == "three_bar" else 20, h, 1)
    params = "stiffness:all,mass:all" + (",friction,ground_stiffness" if name == "three_bar" else "")
    D = ts.step_derivatives(m, x, u, h, params)
    nx = 13 * m.nrod
    assert D.x_next.shape == (nx,) and D.A.shape == (nx, nx) and D.B.shape == (nx, m.ncable)
    assert D.P.shape == (nx, len(ts.parse_fit_spec(m, params)))
    assert rel(fd_jacobian(lambda y: ts.step_value(m, y, u, h), x, eps), D.A) < 1e-6
    assert rel(fd_jacobian(lambda v: ts.step_value(m, x, v, h), u, eps), D.B) < 1e-6
    theta = ts.parameter_values(m, params)

    cols = []
    for i in range(len(theta)):
        e = 1e-6 * max(1.0, abs(theta[i]))
        out = []
        for sgn in (1, -1):
            t = theta.copy()
            t[i] += sgn * e
            r = ts.rollout_derivatives(m, x, u[None, :], h, params, t)  # a copy with these values
            out.append(r["states"][1])
        cols.append((out[0] - out[1]) / (2 * e))
    assert rel(np.array(cols).T, D.P) < 1e-6


def test_value_equals_the_double_step():
    m = load("superball.yaml")
    u = rest(m)
    x = settled(m, 20, 2e-3, 2)
    s = ts.State(x=x)
    d = ts.make_data(m)
    ts.compute_derivative(m, s, d)
    ts.step(m, d, s, 2e-3, locate_slack_events=False)
    D = ts.step_derivatives(m, x, u, 2e-3)
    assert np.abs(D.x_next - np.array(s.x)).max() <= 1e-12
    assert not D.slack_crossing


def test_rollout_grad_matches_finite_differences_of_the_loss():
    m = three_bar_compliant()
    h = 5e-4
    x0 = settled(m, 200, h, 3)
    N = 30
    U = rest(m)[None, :] + 0.01 * np.sin(0.3 * np.arange(N)[:, None] + np.arange(m.ncable)[None, :])
    loss = ts.RolloutLoss(target_node=2, target_m=np.array([0.4, -0.1, 0.05]), target_weight=2.0, control_weight=1.0)
    g = ts.rollout_grad(m, x0, U, h, loss, "stiffness:c1+c2+c3")
    assert g.dL_dcontrols.shape == (N, m.ncable) and g.dL_dstate0.shape == (13 * m.nrod,)
    assert g.states.shape == (N + 1, 13 * m.nrod) and g.dL_dparameters.shape == (1,)

    def L(x=x0, UU=U):
        return ts.rollout_grad(m, x, UU, h, loss).loss

    eps = 1e-6
    fd_u = np.array([(L(UU=U + eps * np.eye(1, U.size, k).reshape(U.shape)) - L(UU=U - eps * np.eye(1, U.size, k).reshape(U.shape))) / (2 * eps)
                     for k in range(0, U.size, 7)])
    assert np.abs(fd_u - g.dL_dcontrols.ravel()[::7]).max() < 1e-6 * np.abs(g.dL_dcontrols).max()
    fd_x = np.array([(L(x=x0 + eps * e) - L(x=x0 - eps * e)) / (2 * eps) for e in np.eye(len(x0))])
    assert np.abs(fd_x - g.dL_dstate0).max() < 1e-6 * np.abs(g.dL_dstate0).max()
    # the same gradient by backpropagate over rollout_derivatives' Jacobians
    r = ts.rollout_derivatives(m, x0, U, h, "stiffness:c1+c2+c3")
    G = np.zeros_like(r["states"])
    p = ts.node_positions(m, ts.State(x=r["states"][-1]))[2]
    Jp = fd_jacobian(lambda y: ts.node_positions(m, ts.State(x=y))[2], r["states"][-1], 1e-7)
    G[-1] = 2 * 2.0 * Jp.T @ (p - loss.target_m)
    H = 2 * 1.0 * (U - rest(m)[None, :])
    b = ts.backpropagate(r["A"], r["B"], r["P"], G, H)
    assert np.abs(b["dL_dcontrols"] - g.dL_dcontrols).max() < 1e-6 * np.abs(g.dL_dcontrols).max()
    assert np.abs(b["dL_dparameters"] - g.dL_dparameters).max() < 1e-6 * np.abs(g.dL_dparameters).max()


def test_bad_input_is_refused_with_the_argument_named():
    m = load("prism3.yaml")
    x = np.array(m.initial_state.x)
    u = rest(m)
    with pytest.raises(ValueError, match=r"step_derivatives\(controls\): expected shape \(9,\)"):
        ts.step_derivatives(m, x, u[:4], 1e-3)
    with pytest.raises(ValueError, match=r"step_derivatives\(state\): expected shape \(39,\)"):
        ts.step_derivatives(m, x[:-1], u, 1e-3)
    with pytest.raises(ValueError, match=r"rollout_grad\(controls\): expected shape \(N, 9\)"):
        ts.rollout_grad(m, x, u, 1e-3, ts.RolloutLoss())
    with pytest.raises(tendyn.Error, match=r"\(h_s\)"):
        ts.step_derivatives(m, x, u, -1.0)
    with pytest.raises(tendyn.Error, match="not finite"):
        ts.step_derivatives(m, x, np.full(9, np.nan), 1e-3)
    imp = load("three_bar_lying.yaml")
    with pytest.raises(tendyn.Error, match="impulse ground.*not differentiable.*compliant"):
        ts.step_derivatives(imp, np.array(imp.initial_state.x), rest(imp), 5e-4)
    with pytest.raises(tendyn.Error, match="are the controls"):
        ts.step_derivatives(m, x, u, 1e-3, "rest_length:all")
    with pytest.raises(ValueError, match=r"backpropagate\(dL_dstates\)"):
        r = ts.rollout_derivatives(m, x, u[None, :], 1e-3)
        ts.backpropagate(r["A"], r["B"], r["P"], np.zeros((5, 39)))


def _has_torch():
    return importlib.util.find_spec("torch") is not None


@pytest.mark.skipif(_has_torch(), reason="torch is installed: the missing-torch message cannot be seen")
def test_tendyn_torch_without_torch_says_how_to_get_it():
    with pytest.raises(ImportError, match="python3-torch"):
        importlib.import_module("tendyn.torch")


@pytest.mark.skipif(not _has_torch(), reason="PyTorch is not installed (Debian: apt-get install python3-torch)")
def test_torch_rollout_gradcheck():
    import torch

    import tendyn.torch as tt
    m = load("prism3.yaml")
    h = 1e-3
    x0 = torch.tensor(settled(m, 5, h, 4), dtype=torch.float64, requires_grad=True)
    U = torch.tensor(np.tile(rest(m), (6, 1)) + 0.01, dtype=torch.float64, requires_grad=True)
    k = torch.tensor(ts.parameter_values(m, "stiffness:all"), dtype=torch.float64, requires_grad=True)
    w = torch.tensor(np.random.default_rng(0).normal(size=(7, 39)))

    def f(x0, U, k):
        return (tt.rollout(m, x0, U, h, "stiffness:all", k) * w).sum()

    assert torch.autograd.gradcheck(f, (x0, U, k), eps=1e-6, atol=1e-7, rtol=1e-6)
    with pytest.raises(ValueError, match="controls"):
        tt.rollout(m, x0, U[:, :3], h)
