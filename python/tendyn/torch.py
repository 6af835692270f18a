"""PyTorch bridge: tendyn rollouts as differentiable PyTorch functions.

``tendyn.torch.rollout(model, state0, controls, dt)`` rolls a tensegrity model out in C++ (one RK4
step per row of ``controls``, the cables' rest lengths held over the step) and returns the states as
a tensor that autograd can differentiate: its backward pass is reverse accumulation through the
exact per-step Jacobians (``tendyn.tensegrity.rollout_derivatives`` and ``backpropagate``: forward-
mode dual numbers through the same laws as the double kernel), not finite differences. So a policy
or model parameters held in PyTorch train through tendyn::

    import torch, tendyn, tendyn.torch
    model = tendyn.load_model("models/prism3.yaml").model
    u = torch.tensor(rest_lengths, dtype=torch.float64, requires_grad=True)    # (N, ncable)
    x = tendyn.torch.rollout(model, torch.tensor(model.initial_state.x), u, 1e-3)
    loss = ((x[-1, 0:3] - target) ** 2).sum(); loss.backward()                # u.grad

Parameters: ``params="stiffness:all,mass:rod1"`` (or a list of ParameterGroup, as in
``tendyn.tensegrity.step_derivatives``) with ``param_values`` a tensor of one value per group: the
rollout runs a copy of the model with these values and their gradient flows back.

Shapes: state0 (nx,) with nx = 13 nrod; controls (N, ncable) [m]; param_values (np,); result
(N + 1, nx), row 0 = state0. Computation is in float64 on the CPU (the result has state0's dtype and
device). Models: ideal rods, no drives, ground none or compliant (the impulse ground is not
differentiable: tendyn.Error).

PyTorch is optional (Debian: ``apt-get install python3-torch``); without it importing this module
raises ImportError saying so. ``tendyn.tensegrity.rollout_grad`` gives the same gradients with NumPy.
"""
from __future__ import annotations

try:
    import torch as _torch
except ImportError as _e:  # pragma: no cover - depends on the machine
    raise ImportError(
        "tendyn.torch needs PyTorch, which is not installed (Debian: apt-get install python3-torch; "
        "pip: pip install torch). Without it, tendyn.tensegrity.rollout_grad and rollout_derivatives give the "
        "same gradients as NumPy arrays."
    ) from _e

import numpy as _np

from . import tensegrity as _t

__all__ = ["rollout"]


def _as_numpy(x, name: str) -> _np.ndarray:
    if isinstance(x, _torch.Tensor):
        return x.detach().to(device="cpu", dtype=_torch.float64).numpy()
    try:
        return _np.asarray(x, dtype=_np.float64)
    except (TypeError, ValueError) as e:
        raise TypeError(f"tendyn.torch.rollout({name}): expected a tensor or an array of floats") from e


class _Rollout(_torch.autograd.Function):
    @staticmethod
    def forward(ctx, state0, controls, param_values, model, dt_s, params):  # noqa: D401
        pv = None if param_values is None else _as_numpy(param_values, "param_values")
        r = _t.rollout_derivatives(model, _as_numpy(state0, "state0"), _as_numpy(controls, "controls"), dt_s, params, pv)
        ctx.jac = (r["A"], r["B"], r["P"])
        ctx.has_params = param_values is not None
        ctx.like = (state0.dtype, state0.device)
        ctx.controls_like = (controls.dtype, controls.device)
        return _torch.from_numpy(r["states"]).to(dtype=state0.dtype, device=state0.device)

    @staticmethod
    def backward(ctx, grad_states):
        A, B, P = ctx.jac
        G = grad_states.detach().to(device="cpu", dtype=_torch.float64).numpy()
        g = _t.backpropagate(A, B, P, G)
        dtype, device = ctx.like
        gx0 = _torch.from_numpy(g["dL_dstate0"]).to(dtype=dtype, device=device)
        cdtype, cdevice = ctx.controls_like
        gu = _torch.from_numpy(g["dL_dcontrols"]).to(dtype=cdtype, device=cdevice)
        gp = _torch.from_numpy(g["dL_dparameters"]).to(dtype=dtype, device=device) if ctx.has_params else None
        return gx0, gu, gp, None, None, None


def rollout(model, state0, controls, dt, params=None, param_values=None):
    """States (N + 1, nx) of rolling ``controls`` (N, ncable) out from ``state0`` (nx,), differentiable.

    ``state0``, ``controls`` and ``param_values`` may be tensors with ``requires_grad``; gradients flow to each.
    ``params``: None, a spec string ("stiffness:all,damping:c1,mass:rod1,friction,...") or a list of
    tendyn.tensegrity.ParameterGroup; ``param_values``: (np,) values of these groups (None: the model's, and no
    parameter gradient). Wrong shapes raise tendyn.Error / ValueError naming the argument.
    """
    if not isinstance(state0, _torch.Tensor):
        state0 = _torch.as_tensor(_as_numpy(state0, "state0"))
    if not isinstance(controls, _torch.Tensor):
        controls = _torch.as_tensor(_as_numpy(controls, "controls"))
    if param_values is not None and not isinstance(param_values, _torch.Tensor):
        param_values = _torch.as_tensor(_as_numpy(param_values, "param_values"))
    if param_values is not None and not params:
        raise ValueError("tendyn.torch.rollout(param_values): given without params (which parameters they are)")
    return _Rollout.apply(state0, controls, param_values, model, float(dt), params)
