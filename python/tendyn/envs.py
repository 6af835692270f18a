"""Learning environments on tendyn's batched simulation (the Gymnasium API, without Gymnasium).

Single environment (Gymnasium's ``Env`` contract)::

    import tendyn.envs
    env = tendyn.envs.make("ThreeBarRoll", randomize={"cable_stiffness_scale": [0.8, 1.2]})
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

Vector form (Gymnasium's ``VectorEnv`` contract, N robots stepped together by the C++
``step_batch`` on all threads, the GIL released)::

    envs = tendyn.envs.make_vec("ThreeBarRoll", num_envs=64, threads=0, randomize="dr.yaml")
    obs, info = envs.reset(seed=0)                  # obs: (64, obs_dim) float64
    obs, rew, term, trunc, info = envs.step(actions)  # actions: (64, act_dim)

Tasks
-----
``ThreeBarRoll``
    Document 001's 3-bar robot (``models/three_bar.yaml``; ``motorised=True``:
    ``models/three_bar_motorised.yaml`` with its six winches) rolls toward a goal point on the
    ground. Physics step: the file's ``dt`` (0.5 ms; 0.2 ms motorised); control period 50 ms.
``SixBarRoll``
    The SUPERball-like 6-bar (``models/superball.yaml``, 1 m rods, 24 cables) with gravity and a
    compliant ground (k = 1e4 N/m, c = 100 N s/m per rod end, mu = 0.8), rolling toward a goal.
    Physics step 1 ms; control period 100 ms.
``PrismHold``
    Document 000's 3-prism (``models/prism3.yaml``, zero gravity) holding its shape while random
    forces push its nodes: each control period, with probability ``disturbance_prob`` (0.3), one
    random node gets a force of random direction and magnitude up to ``disturbance_N`` (2 N) for
    that period. Physics step 1 ms; control period 50 ms.

Every task starts from the model's initial state settled with the nominal rest lengths
(``settle_s`` of simulation, once at construction, velocities then zeroed; the drives of the file
removed): on the ground for the roll tasks (0.5 s for ThreeBarRoll, 3 s for SixBarRoll), to its
equilibrium for PrismHold (40 s: the document's psi = 50 deg pose is not one), whose settled shape
is the shape to hold.
The goal is ``goal_distance_m`` away (ThreeBarRoll 1 m, SixBarRoll 3 m) at an angle drawn
uniformly in ``goal_angle_range_rad`` (default (0, 0): along +x) per reset, or the fixed point
``goal=(x, y)``, or ``reset(options={"goal": (x, y)})``.

Actions
-------
Rest-length targets [m] of the actuated cables (all cables; for a motorised model only the cables
with a winch, and the action is the winch's target). The box is ``nominal * (1 +- action_span)``
(0.25 for the roll tasks, 0.3 for PrismHold) intersected with the cable's limits. Actions outside
the box are **clipped** to it (documented; ``info["action_clipped"]`` counts the clipped entries of
the step); NaN or infinite actions, a wrong shape or a non-numeric dtype raise ValueError /
TypeError naming ``action``.

Observations
------------
``obs=(...)`` chooses and orders the parts of the flat float64 vector (``env.obs_layout``: part ->
slice); the roll tasks default to ``("node_pos", "node_vel", "imu", "goal")``, PrismHold to
``("node_pos", "node_vel", "cable_length")``:

- ``node_pos``: rod-end node positions [m] (2 nrod x 3), x and y relative to the centre of mass
  (so the observation does not grow with the distance travelled), z absolute;
- ``node_vel``: rod-end node velocities [m/s] (2 nrod x 3);
- ``cable_length``: every cable's length [m] (ncable);
- ``imu``: per rod, the unit axis from end 0 to end 1 and the angular velocity [rad/s] (6 nrod),
  what an IMU on each rod measures;
- ``command``: the rest-length targets being applied [m] (after the action delay);
- ``goal``: goal minus centre of mass, (x, y) [m] (roll tasks).

With randomised ``sensor_noise_std``, Gaussian noise of that standard deviation (in each part's
units) is added to every entry.

Rewards (``reward_weights`` overrides any term)
-----------------------------------------------
Roll tasks, per control period: ``progress * (d_before - d_after)`` (d: the centre of mass's
horizontal distance to the goal [m]; progress = 10) ``- action_rate * mean(((a - a_prev) /
(high - low))^2)`` (0.1) ``+ goal`` (10) once when d < ``goal_radius_m`` (0.1 m: terminated)
``- failure`` (10) when the simulation fails (a cable collapsing, a blow-up: terminated, its
message in ``info["error"]``).
PrismHold: ``- shape * e`` (shape = 10), e the RMS relative change of all node-to-node distances
from the rest shape (rotation and translation invariant), ``- action_rate`` as above, ``-
failure``; terminated when e > ``max_shape_error`` (0.5) or on failure.
Truncated after ``max_episode_steps`` control periods (ThreeBarRoll 200, SixBarRoll 200,
PrismHold 100).

Domain randomisation
--------------------
``randomize``: a dict or the path of a YAML file mapping names to ``[low, high]`` ranges, sampled
uniformly per environment at every reset from that environment's own generator:

================================  ===============================================================
``cable_stiffness_scale``         factor on each cable's stiffness (one draw per cable), > 0
``cable_damping_scale``           factor on each cable's damping (per cable), > 0
``cable_rest_length_offset_m``    added to each cable's rest length [m] (per cable); on an
                                  actuated cable it offsets the command (a calibration error)
``rod_mass_scale``                factor on each rod's mass and inertia (per rod), > 0
``ground_friction``               Coulomb coefficient (absolute), >= 0
``ground_stiffness_scale``        factor on the compliant ground's stiffness, > 0
``ground_damping_scale``          factor on the compliant ground's damping, > 0
``ground_restitution``            impulse ground's restitution (absolute) in [0, 1]
``winch_kp_scale``                factor on each winch's kp (per winch), > 0
``winch_stall_torque_scale``      factor on each winch's stall torque (per winch), > 0
``winch_speed_scale``             factor on each winch's no-load speed (per winch), > 0
``winch_command_limit``           each winch's command limit (absolute) in (0, 1]
``sensor_noise_std``              observation noise standard deviation (one per env), >= 0
``action_delay``                  delay of the action in control periods (integers), >= 0
================================  ===============================================================

The values drawn are in ``info["randomization"]`` (name -> array, environments first). An
unknown name, a range that is not two finite numbers, an inverted range (low > high) or one
outside the allowed values raises ValueError naming ``randomize`` and the entry.

Seeding and determinism
-----------------------
``reset(seed=s)`` seeds every environment's generator (numpy ``SeedSequence(s).spawn``): the
goals, randomisation, noise and disturbances of environment i depend only on ``s`` and i; the
physics is bit-identical for any ``threads`` (the batch's guarantee). ``reset()`` without a seed
continues the generators (fresh entropy at the first reset).

Vector autoreset (Gymnasium >= 1.0's "next-step" mode)
------------------------------------------------------
When environment i terminates or truncates at step t, step t returns its final observation; at
step t + 1 its action is ignored, it is reset (new randomisation) and step t + 1 returns its first
observation with reward 0 and terminated = truncated = False. ``info`` of the vector form is a dict
of arrays (environments first) holding every key for every environment.

Rendering
---------
``render_mode`` (given to make/make_vec, Gymnasium's convention; ``metadata["render_modes"]``):

* ``None`` (default): ``render()`` returns None.
* ``"live"``: streams environment 0 to a running ``tendyn serve`` (``tendyn.viewer``) at every
  ``render()`` call; returns None.
* ``"html"``: environment 0 is recorded after every reset and step (its state and the batch's data:
  node positions, tensions with the commanded rest lengths, strains, COM, energies) and
  ``render()`` writes the self-contained viewer page of the current episode, the page of
  ``tendyn view`` (docs/VIEWER.md, at most ``render_max_page_mb`` MB, default 10: long episodes keep
  every k-th frame), and returns its path. The path is ``render_path=`` given to make/make_vec, else
  ``tendyn-<task>.html`` in the working directory. An episode is what the page shows: ``reset()``,
  and the autoreset of environment 0, start a new recording (the frames of the ended episode are
  dropped; call ``render()`` before resetting to keep them). ``render_frames`` is the number of
  frames recorded so far.

Models are found as ``models/<file>`` of the source tree (looked up from this file upward) or in
``$TENDYN_MODELS``; pass ``model=`` (a path or a ``tendyn.tensegrity.Model``) to use another one.
"""
from __future__ import annotations

import math
import numbers
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from ._tendyn import Error, tensegrity as _ts, viz as _viz

__all__ = ["Box", "Env", "VectorEnv", "make", "make_vec", "TASKS", "RANDOMIZATION_KEYS", "load_randomization"]


# ---------------------------------------------------------------------------------------------
# Spaces

class Box:
    """A box of real numbers (Gymnasium's ``spaces.Box``): ``shape``, ``low``, ``high``, ``dtype``,
    ``sample()``, ``contains(x)``, ``seed(seed)``."""

    def __init__(self, low: Any, high: Any, shape: Optional[Sequence[int]] = None, dtype: Any = np.float64,
                 seed: Optional[int] = None) -> None:
        self.dtype = np.dtype(dtype)
        if shape is None:
            shape = np.broadcast(np.asarray(low), np.asarray(high)).shape
        self.shape = tuple(int(s) for s in shape)
        self.low = np.broadcast_to(np.asarray(low, dtype=self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, dtype=self.dtype), self.shape).copy()
        if np.any(self.low > self.high):
            raise ValueError("Box: low > high")
        self._rng = np.random.default_rng(seed)

    def seed(self, seed: Optional[int] = None) -> list:
        """Seeds sample(); returns [seed]."""
        self._rng = np.random.default_rng(seed)
        return [seed]

    def sample(self) -> np.ndarray:
        """A uniform sample (bounded dimensions); a normal one where a bound is infinite."""
        lo, hi = self.low, self.high
        out = np.empty(self.shape, dtype=self.dtype)
        bounded = np.isfinite(lo) & np.isfinite(hi)
        out[bounded] = self._rng.uniform(lo[bounded], hi[bounded])
        out[~bounded] = np.clip(self._rng.standard_normal(int((~bounded).sum())), lo[~bounded], hi[~bounded])
        return out

    def contains(self, x: Any) -> bool:
        a = np.asarray(x)
        if a.shape != self.shape or not np.can_cast(a.dtype, self.dtype, casting="same_kind"):
            return False
        return bool(np.all(a >= self.low) and np.all(a <= self.high))

    __contains__ = contains

    def __repr__(self) -> str:
        return f"Box({self.low.min()}, {self.high.max()}, {self.shape}, {self.dtype})"


# ---------------------------------------------------------------------------------------------
# Domain randomisation spec

#: name -> (kind, lower bound of the allowed values, upper bound, per-element group)
RANDOMIZATION_KEYS: dict[str, tuple[str, float, float, str]] = {
    "cable_stiffness_scale": ("scale", 0.0, math.inf, "cable"),
    "cable_damping_scale": ("scale", 0.0, math.inf, "cable"),
    "cable_rest_length_offset_m": ("offset", -math.inf, math.inf, "cable"),
    "rod_mass_scale": ("scale", 0.0, math.inf, "rod"),
    "ground_friction": ("value", 0.0, math.inf, "env"),
    "ground_stiffness_scale": ("scale", 0.0, math.inf, "env"),
    "ground_damping_scale": ("scale", 0.0, math.inf, "env"),
    "ground_restitution": ("value", 0.0, 1.0, "env"),
    "winch_kp_scale": ("scale", 0.0, math.inf, "winch"),
    "winch_stall_torque_scale": ("scale", 0.0, math.inf, "winch"),
    "winch_speed_scale": ("scale", 0.0, math.inf, "winch"),
    "winch_command_limit": ("limit", 0.0, 1.0, "winch"),
    "sensor_noise_std": ("value", 0.0, math.inf, "env"),
    "action_delay": ("int", 0, 1000, "env"),
}


def load_randomization(spec: Any) -> dict[str, tuple[float, float]]:
    """Checks a randomisation spec (a dict, or the path of a YAML file holding one) and returns it as
    name -> (low, high). ValueError naming ``randomize`` and the entry for anything else."""
    if spec is None:
        return {}
    if isinstance(spec, (str, os.PathLike)):
        path = Path(spec)
        try:
            import yaml  # Debian's python3-yaml
        except ImportError as e:  # pragma: no cover
            raise ValueError(f"randomize: reading {path} needs PyYAML (python3-yaml); pass a dict instead") from e
        try:
            text = path.read_text()
        except OSError as e:
            raise ValueError(f"randomize: cannot read {path}: {e.strerror}") from e
        try:
            spec = yaml.safe_load(text)
        except yaml.YAMLError as e:
            raise ValueError(f"randomize: {path}: not valid YAML: {e}") from e
        if spec is None:
            return {}
        where = f"randomize ({path})"
    else:
        where = "randomize"
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where}: expected a mapping name -> [low, high], got {type(spec).__name__}")
    out: dict[str, tuple[float, float]] = {}
    for name, rng in spec.items():
        if name not in RANDOMIZATION_KEYS:
            raise ValueError(f"{where}: unknown entry '{name}' (valid: {', '.join(RANDOMIZATION_KEYS)})")
        kind, vmin, vmax, _ = RANDOMIZATION_KEYS[name]
        if isinstance(rng, (str, bytes)) or not isinstance(rng, Sequence) or len(rng) != 2:
            raise ValueError(f"{where}['{name}']: expected [low, high], got {rng!r}")
        lo, hi = rng
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (lo, hi)):
            raise ValueError(f"{where}['{name}']: expected two numbers, got {rng!r}")
        lo, hi = float(lo), float(hi)
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise ValueError(f"{where}['{name}']: the range must be finite, got [{lo}, {hi}]")
        if lo > hi:
            raise ValueError(f"{where}['{name}']: inverted range [{lo}, {hi}] (low > high)")
        if kind == "int" and (lo != int(lo) or hi != int(hi)):
            raise ValueError(f"{where}['{name}']: expected whole numbers of control periods, got [{lo}, {hi}]")
        low_ok = lo > vmin if kind in ("scale", "limit") else lo >= vmin
        if not low_ok or hi > vmax:
            lb = "(" if kind in ("scale", "limit") else "["
            raise ValueError(f"{where}['{name}']: [{lo}, {hi}] is outside the allowed values {lb}{vmin}, {vmax}]")
        out[name] = (lo, hi)
    return out


# ---------------------------------------------------------------------------------------------
# Tasks

_ROLL_OBS = ("node_pos", "node_vel", "imu", "goal")
_HOLD_OBS = ("node_pos", "node_vel", "cable_length")
OBS_PARTS = ("node_pos", "node_vel", "cable_length", "imu", "command", "goal")

#: task name -> defaults (every entry can be overridden by a keyword of make / make_vec)
TASKS: dict[str, dict[str, Any]] = {
    "ThreeBarRoll": dict(kind="roll", model_file="three_bar.yaml", motorised_file="three_bar_motorised.yaml",
                         dt_s=None, control_period_s=0.05, max_episode_steps=200, action_span=0.25,
                         goal_distance_m=1.0, goal_radius_m=0.1, settle_s=0.5, obs=_ROLL_OBS),
    "SixBarRoll": dict(kind="roll", model_file="superball.yaml", dt_s=1e-3, control_period_s=0.1,
                       max_episode_steps=200, action_span=0.25, goal_distance_m=3.0, goal_radius_m=0.2,
                       settle_s=3.0, obs=_ROLL_OBS),
    "PrismHold": dict(kind="hold", model_file="prism3.yaml", dt_s=1e-3, control_period_s=0.05,
                      max_episode_steps=100, action_span=0.3, disturbance_N=2.0, disturbance_prob=0.3,
                      max_shape_error=0.5, settle_s=40.0, obs=_HOLD_OBS),
}
_REWARDS = {"roll": dict(progress=10.0, action_rate=0.1, goal=10.0, failure=10.0),
            "hold": dict(shape=10.0, action_rate=0.1, failure=10.0)}


def _find_model(file: str) -> Path:
    dirs = []
    if os.environ.get("TENDYN_MODELS"):
        dirs.append(Path(os.environ["TENDYN_MODELS"]))
    for parent in Path(__file__).resolve().parents:
        dirs.append(parent / "models")
    for d in dirs:
        if (d / file).is_file():
            return d / file
    raise Error(f"tendyn.envs: models/{file} not found (looked in $TENDYN_MODELS and above {Path(__file__).parent}); "
                f"pass model='path/to/{file}' or set TENDYN_MODELS")


def _load(model: Any, what: str) -> tuple[Any, Optional[float]]:
    if isinstance(model, _ts.Model):
        return model.copy(), None
    if isinstance(model, (str, os.PathLike)):
        f = _ts.load_model_file(str(model))
        return f.model, f.simulation.dt_s
    raise TypeError(f"{what}: model must be a path or a tendyn.tensegrity.Model, got {type(model).__name__}")


def _check_kw(cfg: dict, name: str, lo: float = 0.0, strict: bool = True, integer: bool = False) -> None:
    v = cfg[name]
    if integer:
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < lo or (strict and v == lo):
            raise ValueError(f"{name}: expected an integer {'>' if strict else '>='} {lo}, got {v!r}")
        return
    if not isinstance(v, numbers.Real) or isinstance(v, bool) or not math.isfinite(v) or v < lo or (strict and v == lo):
        raise ValueError(f"{name}: expected a finite number {'>' if strict else '>='} {lo}, got {v!r}")


# ---------------------------------------------------------------------------------------------
# The vector environment

class VectorEnv:
    """``num_envs`` robots of one task stepped together (see the module's documentation).

    Attributes: ``num_envs``, ``single_observation_space`` / ``single_action_space`` (one
    environment's Box), ``observation_space`` / ``action_space`` (the batched Boxes, (num_envs, ...),
    as Gymnasium's VectorEnv), ``obs_layout`` (part ->
    slice), ``dt_s`` (physics step), ``frame_skip`` (physics steps per control period),
    ``control_period_s``, ``max_episode_steps``, ``models`` (each environment's current,
    randomised Model), ``base_model``, ``actuated`` (cable indices of the action's entries).
    """

    metadata = {"render_modes": ["live", "html"], "autoreset_mode": "next_step"}

    def __init__(self, name: str, num_envs: int = 1, *, threads: int = 0, randomize: Any = None,
                 model: Any = None, motorised: bool = False, obs: Optional[Sequence[str]] = None,
                 reward_weights: Optional[Mapping[str, float]] = None, render_mode: Optional[str] = None,
                 autoreset: bool = True, goal: Optional[Sequence[float]] = None,
                 goal_angle_range_rad: Sequence[float] = (0.0, 0.0), integrator: str = "rk4",
                 render_path: Any = None, render_max_page_mb: float = 10.0, **overrides: Any) -> None:
        if name not in TASKS:
            raise ValueError(f"name: unknown task '{name}' (valid: {', '.join(TASKS)})")
        if not isinstance(num_envs, numbers.Integral) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs: expected an integer >= 1, got {num_envs!r}")
        if not isinstance(threads, numbers.Integral) or isinstance(threads, bool) or threads < 0:
            raise ValueError(f"threads: expected an integer >= 0 (0: all hardware threads), got {threads!r}")
        cfg = dict(TASKS[name])
        for k, v in overrides.items():
            if k not in cfg or k in ("kind", "model_file", "motorised_file", "obs"):
                valid = sorted(set(cfg) - {"kind", "model_file", "motorised_file", "obs"})
                raise TypeError(f"{name}: unexpected keyword '{k}' (valid task settings: {', '.join(valid)})")
            cfg[k] = v
        self.name, self.num_envs, self.threads, self.cfg = name, int(num_envs), int(threads), cfg
        self.kind = cfg["kind"]
        self.render_mode = render_mode
        if render_mode not in (None, *self.metadata["render_modes"]):
            choices = ", ".join(repr(m) for m in self.metadata["render_modes"])
            raise ValueError(f"render_mode: expected None, {choices}; got {render_mode!r}")
        if render_path is not None and render_mode != "html":
            raise ValueError(f"render_path: only with render_mode='html' (render_mode is {render_mode!r})")
        if (not isinstance(render_max_page_mb, numbers.Real) or isinstance(render_max_page_mb, bool)
                or not math.isfinite(render_max_page_mb) or render_max_page_mb <= 0):
            raise ValueError(f"render_max_page_mb: expected a number > 0 [MB], got {render_max_page_mb!r}")
        self.render_path = Path(render_path) if render_path is not None else Path(f"tendyn-{name}.html")
        self.render_max_page_mb = float(render_max_page_mb)
        self._page = None
        self.autoreset = bool(autoreset)
        self.randomization = load_randomization(randomize)
        for k in ("control_period_s", "action_span"):
            _check_kw(cfg, k)
        _check_kw(cfg, "max_episode_steps", 0, integer=True)
        _check_kw(cfg, "settle_s", 0.0, strict=False)
        if cfg["action_span"] >= 1.0:
            raise ValueError(f"action_span: expected a number in (0, 1), got {cfg['action_span']!r}")
        self.weights = dict(_REWARDS[self.kind])
        for k, v in (reward_weights or {}).items():
            if k not in self.weights:
                raise ValueError(f"reward_weights: unknown term '{k}' (valid: {', '.join(self.weights)})")
            self.weights[k] = float(v)

        # the model
        if model is None:
            file = cfg["motorised_file"] if motorised else cfg["model_file"]
            if motorised and "motorised_file" not in cfg:
                raise ValueError(f"motorised: {name} has no motorised model")
            model = _find_model(file)
        base, file_dt = _load(model, "model")
        base.drives = []
        if name == "SixBarRoll" and base.ground.type == _ts.Ground.Type.kNone:
            base.gravity_W = np.array([0.0, 0.0, -9.81])
            base.ground = _ts.Ground(type=_ts.Ground.Type.kCompliant, friction=0.8, stiffness_Npm=1e4, damping_Nspm=100.0)
            st = base.initial_state
            x = st.x.copy()
            lowest = _ts.node_positions(base, st)[:, 2].min()
            for j in range(base.nrod):
                x[13 * j + 2] -= lowest
            st.x = x
            base.initial_state = st
        dt = cfg["dt_s"] if cfg["dt_s"] is not None else (file_dt or 1e-3)
        if not (isinstance(dt, numbers.Real) and math.isfinite(dt) and dt > 0):
            raise ValueError(f"dt_s: expected a finite number > 0, got {dt!r}")
        self.dt_s = float(dt)
        self.frame_skip = max(1, int(round(cfg["control_period_s"] / self.dt_s)))
        self.control_period_s = self.frame_skip * self.dt_s
        self.max_episode_steps = int(cfg["max_episode_steps"])
        self.options = _ts.BatchStepOptions(h_s=self.dt_s, nstep=self.frame_skip, threads=self.threads)
        self.options.step.integrator = _ts.integrator_from_string(integrator)

        winch_cables = [w.cable for w in base.winches]
        self.actuated = np.array(winch_cables if winch_cables else list(range(base.ncable)), dtype=int)
        cables = base.cables
        nominal = np.array([c.rest_length_m for c in cables])
        span = cfg["action_span"]
        lo = np.maximum(nominal * (1 - span), [c.rest_length_min_m for c in cables])[self.actuated]
        hi = np.minimum(nominal * (1 + span), [c.rest_length_max_m for c in cables])[self.actuated]
        self.single_action_space = Box(lo, hi, dtype=np.float64)
        self.action_space = Box(np.tile(lo, (self.num_envs, 1)), np.tile(hi, (self.num_envs, 1)), dtype=np.float64)
        self._cable_min = np.array([c.rest_length_min_m for c in cables])
        self._cable_max = np.array([c.rest_length_max_m for c in cables])
        self.nominal_rest_length_m = nominal

        # topology for the observations
        self._ends = np.array([[r.node[0], r.node[1]] for r in base.rods], dtype=int)  # (nrod, 2)
        self._cable_nodes = np.array([c.node for c in cables], dtype=int)
        self._rod_mass = np.array([r.mass_kg for r in base.rods])
        self.base_model = base

        # settle on the ground with the nominal rest lengths (once)
        self._x0 = self._settle(base, float(cfg["settle_s"]))
        # the rest shape (PrismHold): all node-to-node distances of the rod ends
        p0 = self._positions_from_x(self._x0[None, :])[0]
        iu = np.triu_indices(p0.shape[0], 1)
        self._pair = iu
        self._d0 = np.linalg.norm(p0[iu[0]] - p0[iu[1]], axis=1)

        parts = tuple(obs) if obs is not None else tuple(cfg["obs"])
        for p in parts:
            if p not in OBS_PARTS:
                raise ValueError(f"obs: unknown part '{p}' (valid: {', '.join(OBS_PARTS)})")
            if p == "goal" and self.kind != "roll":
                raise ValueError(f"obs: 'goal' is for the roll tasks, not {name}")
        if not parts:
            raise ValueError("obs: choose at least one part")
        sizes = {"node_pos": 6 * base.nrod, "node_vel": 6 * base.nrod, "cable_length": base.ncable,
                 "imu": 6 * base.nrod, "command": len(self.actuated), "goal": 2}
        self.obs_layout: dict[str, slice] = {}
        n = 0
        for p in parts:
            self.obs_layout[p] = slice(n, n + sizes[p])
            n += sizes[p]
        self.single_observation_space = Box(-np.inf, np.inf, (n,), dtype=np.float64)
        self.observation_space = Box(-np.inf, np.inf, (self.num_envs, n), dtype=np.float64)

        self._goal_fixed = None if goal is None else np.asarray(goal, dtype=float)
        if self._goal_fixed is not None and (self._goal_fixed.shape != (2,) or not np.all(np.isfinite(self._goal_fixed))):
            raise ValueError(f"goal: expected two finite numbers (x, y) [m], got {goal!r}")
        ga = tuple(float(v) for v in goal_angle_range_rad)
        if len(ga) != 2 or ga[0] > ga[1] or not all(math.isfinite(v) for v in ga):
            raise ValueError(f"goal_angle_range_rad: expected (low, high) with low <= high, got {goal_angle_range_rad!r}")
        self._goal_angles = ga

        N = self.num_envs
        self.models = [base.copy() for _ in range(N)]
        self.batch = _ts.make_batch(base, N)
        self._rngs: list[np.random.Generator] = []
        self._needs_reset = np.zeros(N, dtype=bool)
        self._elapsed = np.zeros(N, dtype=int)
        self._goal = np.zeros((N, 2))
        self._dist = np.zeros(N)
        self._prev_action = np.tile(nominal[self.actuated], (N, 1))
        self._applied = self._prev_action.copy()
        self._queue: list[list[np.ndarray]] = [[] for _ in range(N)]
        self._delay = np.zeros(N, dtype=int)
        self._noise = np.zeros(N)
        self._offset = np.zeros((N, base.ncable))
        self._rest = np.tile(nominal, (N, 1))
        self._force = np.zeros((N, 3 * base.nnode))
        self._last_obs = np.zeros((N, n))
        self._error = [""] * N
        self._sampled: dict[str, np.ndarray] = {}
        self._viewer = None
        self._closed = False

    # -- helpers ------------------------------------------------------------------------------

    def _settle(self, base: Any, settle_s: float) -> np.ndarray:
        if settle_s <= 0:
            return np.array(base.initial_state.x, dtype=float)
        b = _ts.make_batch(base, 1)
        n = max(1, int(round(settle_s / self.dt_s)))
        opt = _ts.BatchStepOptions(h_s=self.dt_s, nstep=n, threads=1)
        opt.step.integrator = self.options.step.integrator
        if _ts.step_batch(base, b, opt) != 0:
            raise Error(f"{self.name}: the model does not settle: {b.error[0]}")
        x = np.array(b.x[0], dtype=float)
        for j in range(base.nrod):  # at rest
            x[13 * j + 7:13 * j + 13] = 0.0
        return x

    def _positions_from_x(self, X: np.ndarray) -> np.ndarray:
        """Rod-end positions (N, 2 nrod, 3) from states (N, nx) (allocates: not for the step loop)."""
        out = []
        for x in X:
            s = self.base_model.initial_state
            s.x = x
            out.append(_ts.node_positions(self.base_model, s)[self._ends.reshape(-1)])
        return np.array(out)

    def _com_xy(self, X: np.ndarray) -> np.ndarray:
        nrod = self.base_model.nrod
        pc = X[:, :13 * nrod].reshape(len(X), nrod, 13)[:, :, 0:2]
        return (pc * self._rod_mass[None, :, None]).sum(axis=1) / self._rod_mass.sum()

    def _shape_error(self, P_ends: np.ndarray) -> np.ndarray:
        d = np.linalg.norm(P_ends[:, self._pair[0]] - P_ends[:, self._pair[1]], axis=2)
        return np.sqrt(np.mean(((d - self._d0) / self._d0) ** 2, axis=1))

    def _observe(self, X: np.ndarray, P_all: np.ndarray, idx: np.ndarray) -> np.ndarray:
        nrod = self.base_model.nrod
        R = X[:, :13 * nrod].reshape(len(X), nrod, 13)
        pc, v, w = R[:, :, 0:3], R[:, :, 7:10], R[:, :, 10:13]
        P = P_all[:, self._ends.reshape(-1)]  # (n, 2 nrod, 3)
        com = self._com_xy(X)
        parts = []
        for p in self.obs_layout:
            if p == "node_pos":
                q = P.copy()
                q[:, :, 0:2] -= com[:, None, :]
                parts.append(q.reshape(len(X), -1))
            elif p == "node_vel":
                rod = np.repeat(np.arange(nrod), 2)
                r = P - pc[:, rod]
                parts.append((v[:, rod] + np.cross(w[:, rod], r)).reshape(len(X), -1))
            elif p == "cable_length":
                c = self._cable_nodes
                parts.append(np.linalg.norm(P_all[:, c[:, 1]] - P_all[:, c[:, 0]], axis=2))
            elif p == "imu":
                e = P[:, 1::2] - P[:, 0::2]
                e /= np.linalg.norm(e, axis=2, keepdims=True)
                parts.append(np.concatenate([e, w], axis=2).reshape(len(X), -1))
            elif p == "command":
                parts.append(self._applied[idx])
            elif p == "goal":
                parts.append(self._goal[idx] - com)
        o = np.concatenate(parts, axis=1)
        for k, i in enumerate(idx):
            if self._noise[i] > 0:
                o[k] += self._noise[i] * self._rngs[i].standard_normal(o.shape[1])
        return o

    def _sample(self, i: int) -> None:
        """New randomised parameters for environment i into self.models[i] (from the base model)."""
        rng, base, spec = self._rngs[i], self.base_model, self.randomization
        m = self.models[i]
        count = {"cable": base.ncable, "rod": base.nrod, "winch": len(base.winches), "env": 1}

        def draw(name: str, default: float) -> np.ndarray:
            group = RANDOMIZATION_KEYS[name][3]
            if name not in spec:
                return np.full(count[group], default)
            lo, hi = spec[name]
            if RANDOMIZATION_KEYS[name][0] == "int":
                return rng.integers(int(lo), int(hi) + 1, size=count[group]).astype(float)
            return rng.uniform(lo, hi, size=count[group])

        vals = {k: draw(k, d) for k, d in (
            ("cable_stiffness_scale", 1.0), ("cable_damping_scale", 1.0), ("cable_rest_length_offset_m", 0.0),
            ("rod_mass_scale", 1.0), ("ground_friction", base.ground.friction), ("ground_stiffness_scale", 1.0),
            ("ground_damping_scale", 1.0), ("ground_restitution", base.ground.restitution), ("winch_kp_scale", 1.0),
            ("winch_stall_torque_scale", 1.0), ("winch_speed_scale", 1.0),
            ("winch_command_limit", np.nan), ("sensor_noise_std", 0.0), ("action_delay", 0.0))}
        actuated = np.zeros(base.ncable, dtype=bool)
        actuated[self.actuated] = True
        cables = base.cables
        for k, c in enumerate(cables):
            c.stiffness_Npm *= vals["cable_stiffness_scale"][k]
            c.damping_Nspm *= vals["cable_damping_scale"][k]
            if not actuated[k]:
                c.rest_length_m = max(0.0, c.rest_length_m + vals["cable_rest_length_offset_m"][k])
        m.cables = cables
        rods = base.rods
        for j, r in enumerate(rods):
            s = vals["rod_mass_scale"][j]
            r.mass_kg *= s
            r.inertia_transverse_kgm2 *= s
            r.inertia_axial_kgm2 *= s
            r.inertia_B_kgm2 = np.asarray(r.inertia_B_kgm2) * s
        m.rods = rods
        g0, g = base.ground, m.ground  # m.ground: a reference into m
        g.friction = float(vals["ground_friction"][0])
        g.stiffness_Npm = g0.stiffness_Npm * float(vals["ground_stiffness_scale"][0])
        g.damping_Nspm = g0.damping_Nspm * float(vals["ground_damping_scale"][0])
        g.restitution = float(vals["ground_restitution"][0])
        if base.winches:
            ws = base.winches
            for w, wi in enumerate(ws):
                wi.kp_per_m *= vals["winch_kp_scale"][w]
                wi.stall_torque_Nm *= vals["winch_stall_torque_scale"][w]
                wi.no_load_speed_radps *= vals["winch_speed_scale"][w]
                if "winch_command_limit" in spec:
                    wi.command_limit = float(vals["winch_command_limit"][w])
            m.winches = ws
        self._offset[i] = np.where(actuated, vals["cable_rest_length_offset_m"], 0.0)
        self._rest[i] = np.array([c.rest_length_m for c in cables])
        self._noise[i] = float(vals["sensor_noise_std"][0])
        self._delay[i] = int(vals["action_delay"][0])
        for k, v in vals.items():
            if k not in self._sampled:
                self._sampled[k] = np.zeros((self.num_envs, len(v)))
            self._sampled[k][i] = v

    def _reset_envs(self, idx: np.ndarray, options: Optional[Mapping[str, Any]] = None) -> None:
        goal_opt = None if options is None else options.get("goal")
        if goal_opt is not None:
            goal_opt = np.asarray(goal_opt, dtype=float)
            if goal_opt.shape not in ((2,), (self.num_envs, 2)) or not np.all(np.isfinite(goal_opt)):
                raise ValueError(f"options['goal']: expected finite (x, y) or ({self.num_envs}, 2), got {options['goal']!r}")
        for i in idx:
            i = int(i)
            self._sample(i)
            st = self.base_model.initial_state
            st.x = self._x0
            st.time_s = 0.0
            _ts.set_state(self.models[i], self.batch, i, st)
            rng = self._rngs[i]
            if self.kind == "roll":
                if goal_opt is not None:
                    g = goal_opt if goal_opt.ndim == 1 else goal_opt[i]
                elif self._goal_fixed is not None:
                    g = self._goal_fixed
                else:
                    ang = rng.uniform(*self._goal_angles) if self._goal_angles[0] < self._goal_angles[1] else self._goal_angles[0]
                    g = self._com_xy(self._x0[None, :])[0] + self.cfg["goal_distance_m"] * np.array([math.cos(ang), math.sin(ang)])
                self._goal[i] = g
            self._elapsed[i] = 0
            a0 = self.nominal_rest_length_m[self.actuated]
            self._prev_action[i] = a0
            self._applied[i] = a0
            self._queue[i] = [a0.copy() for _ in range(self._delay[i])]
            self._force[i] = 0.0
            self._error[i] = ""
            self._needs_reset[i] = False
        self._send_controls()
        X = self.batch.x
        P = self.batch.p_W_node
        self._dist[idx] = np.linalg.norm(self._goal[idx] - self._com_xy(X[idx]), axis=1)
        self._last_obs[idx] = self._observe(X[idx], P[idx], idx)
        if self.render_mode == "html" and np.any(np.asarray(idx) == 0):
            self._record(new_episode=True)

    def _record(self, new_episode: bool = False) -> None:
        """render_mode "html": appends environment 0's current state to the page's frames."""
        if self._page is None:
            self._page = _viz.ScenePage(self.models[0], f"tendyn.envs {self.name}: environment 0")
        if new_episode:
            self._page.clear()
        self._page.add_batch_frame(self.models[0], self.batch, 0)

    def _send_controls(self) -> None:
        cmd = self._rest.copy()
        cmd[:, self.actuated] = self._applied + self._offset[:, self.actuated]
        cmd = np.clip(cmd, self._cable_min, self._cable_max)
        _ts.command_rest_lengths(self.models, self.batch, cmd)
        if self.kind == "hold":
            _ts.set_external_forces(self.models, self.batch, self._force)

    def _check_action(self, action: Any) -> np.ndarray:
        a = np.asarray(action)
        if a.dtype.kind not in "fiu":
            raise TypeError(f"action: expected real numbers (a float array), got dtype {a.dtype}")
        shape = self.action_space.shape
        if a.shape != shape:
            raise ValueError(f"action: expected shape {shape}, got {a.shape}")
        a = a.astype(np.float64)
        bad = ~np.isfinite(a)
        if bad.any():
            i, j = np.argwhere(bad)[0]
            raise ValueError(f"action: entry [{i}, {j}] is {a[i, j]} (actions must be finite)")
        return a

    # -- the API -------------------------------------------------------------------------------

    def reset(self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None) -> tuple[np.ndarray, dict]:
        """Resets every environment; returns (obs (N, obs_dim), info)."""
        self._check_open()
        if seed is not None or not self._rngs:
            if seed is not None and (not isinstance(seed, numbers.Integral) or isinstance(seed, bool) or seed < 0):
                raise ValueError(f"seed: expected an integer >= 0 or None, got {seed!r}")
            ss = np.random.SeedSequence(seed)
            self._rngs = [np.random.default_rng(s) for s in ss.spawn(self.num_envs)]
            if seed is not None:
                self.action_space.seed(int(seed))
                self.single_action_space.seed(int(seed))
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(f"options: expected a dict or None, got {type(options).__name__}")
        self._reset_envs(np.arange(self.num_envs), options)
        return self._last_obs.copy(), self._info(np.zeros(self.num_envs, dtype=int))

    def step(self, action: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One control period of every environment; returns (obs, reward, terminated, truncated, info),
        arrays with the environments first. See the module's documentation for the autoreset."""
        self._check_open()
        if not self._rngs:
            raise RuntimeError("step: call reset() first")
        a = self._check_action(action)
        N = self.num_envs
        resetting = self._needs_reset.copy()
        if resetting.any() and not self.autoreset:
            raise RuntimeError("step: the episode is over (terminated or truncated): call reset()")
        lo, hi = self.single_action_space.low, self.single_action_space.high
        clipped = ((a < lo) | (a > hi)).sum(axis=1)
        a = np.clip(a, lo, hi)
        for i in range(N):
            if self._delay[i] > 0:
                self._queue[i].append(a[i].copy())
                self._applied[i] = self._queue[i].pop(0)
            else:
                self._applied[i] = a[i]
        if self.kind == "hold":
            self._disturb()
        X_before = self.batch.x
        self._send_controls()
        _ts.step_batch_models(self.models, self.batch, self.options)
        X = self.batch.x
        P = self.batch.p_W_node
        idx = np.arange(N)
        err = list(self.batch.error)
        failed = np.array([e != "" for e in err])
        obs = self._last_obs.copy()
        ok = ~failed
        if ok.any():
            obs[ok] = self._observe(X[ok], P[ok], idx[ok])
        reward = np.zeros(N)
        terminated = failed.copy()
        rate = np.mean(((a - self._prev_action) / (hi - lo)) ** 2, axis=1)
        reward -= self.weights["action_rate"] * rate
        reward[failed] -= self.weights["failure"]
        if self.kind == "roll":
            d = np.linalg.norm(self._goal - self._com_xy(np.where(failed[:, None], X_before, X)), axis=1)
            reward += np.where(ok, self.weights["progress"] * (self._dist - d), 0.0)
            reached = ok & (d < self.cfg["goal_radius_m"])
            reward[reached] += self.weights["goal"]
            terminated |= reached
            self._dist = np.where(ok, d, self._dist)
        else:
            e = np.zeros(N)
            if ok.any():
                e[ok] = self._shape_error(P[ok][:, self._ends.reshape(-1)])
            reward -= np.where(ok, self.weights["shape"] * e, 0.0)
            terminated |= ok & (e > self.cfg["max_shape_error"])
            self._shape = e
        self._prev_action = a
        self._elapsed += 1
        truncated = (self._elapsed >= self.max_episode_steps) & ~terminated
        for i in np.flatnonzero(failed):
            self._error[i] = err[i]
        # next-step autoreset: the environments that ended at the previous step start again now
        if resetting.any():
            r = np.flatnonzero(resetting)
            self._reset_envs(r)
            obs[r] = self._last_obs[r]
            reward[r] = 0.0
            terminated[r] = False
            truncated[r] = False
        if self.render_mode == "html" and ok[0] and not resetting[0]:
            self._record()
        info = self._info(clipped)
        self._last_obs = obs.copy()
        self._needs_reset = terminated | truncated
        info["episode_start"] = resetting
        return obs, reward, terminated, truncated, info

    def _disturb(self) -> None:
        nn = self.base_model.nnode
        F, p = self.cfg["disturbance_N"], self.cfg["disturbance_prob"]
        for i in range(self.num_envs):
            rng = self._rngs[i]
            self._force[i] = 0.0
            if rng.random() < p:
                node = int(rng.integers(nn))
                u = rng.standard_normal(3)
                u /= np.linalg.norm(u)
                self._force[i, 3 * node:3 * node + 3] = rng.uniform(0.0, F) * u

    def _info(self, clipped: Any) -> dict:
        info: dict[str, Any] = {
            "randomization": {k: v.copy() for k, v in self._sampled.items()},
            "elapsed_steps": self._elapsed.copy(),
            "action_clipped": np.asarray(clipped).copy(),
            "error": list(self._error),
        }
        if self.kind == "roll":
            info["distance_m"] = self._dist.copy()
            info["goal"] = self._goal.copy()
            info["com_xy"] = self._com_xy(self.batch.x)
        else:
            info["shape_error"] = getattr(self, "_shape", np.zeros(self.num_envs)).copy()
        return info

    @property
    def render_frames(self) -> int:
        """render_mode "html": frames of environment 0 recorded in the current episode (else 0)."""
        return 0 if self._page is None else self._page.frames

    def render(self) -> Any:
        """render_mode "live": streams environment 0 to ``tendyn serve`` (tendyn.viewer), returns None;
        "html": writes the viewer page of environment 0's current episode to ``render_path`` and
        returns that path (a pathlib.Path); None: returns None. See the module's "Rendering"."""
        self._check_open()
        if self.render_mode == "html":
            if self._page is None or self._page.frames == 0:
                raise RuntimeError("render: nothing recorded yet: call reset() first")
            self._page.write(str(self.render_path), self.render_max_page_mb)
            return self.render_path
        if self.render_mode != "live":
            return None
        if self._viewer is None:
            from . import viewer
            self._viewer = viewer.show(self.models[0])
        self._viewer.update(self.batch.state(0))
        return None

    def close(self) -> None:
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
        self._closed = True

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError(f"{self.name}: the environment is closed")

    def __enter__(self) -> "VectorEnv":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"VectorEnv({self.name}, num_envs={self.num_envs}, obs={self.single_observation_space.shape}, action={self.single_action_space.shape})"


class Env:
    """One environment (Gymnasium's Env): a VectorEnv of one robot without autoreset; arrays without
    the environment axis, ``reward`` a float, ``terminated``/``truncated`` bools, ``info`` values of
    that environment. step() after the episode ended raises RuntimeError (call reset())."""

    metadata = {"render_modes": ["live", "html"]}

    def __init__(self, name: str, **kwargs: Any) -> None:
        if "num_envs" in kwargs:
            raise TypeError("Env: num_envs is for make_vec")
        self.vec = VectorEnv(name, 1, autoreset=False, **kwargs)
        self.observation_space = self.vec.single_observation_space
        self.action_space = self.vec.single_action_space
        self.render_mode = self.vec.render_mode
        self.spec_name = name

    @property
    def unwrapped(self) -> "Env":
        return self

    @property
    def model(self) -> Any:
        return self.vec.models[0]

    @staticmethod
    def _one(info: dict) -> dict:
        out = {}
        for k, v in info.items():
            if isinstance(v, dict):
                out[k] = {kk: vv[0] for kk, vv in v.items()}
            else:
                out[k] = v[0]
        return out

    def reset(self, *, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None) -> tuple[np.ndarray, dict]:
        obs, info = self.vec.reset(seed=seed, options=options)
        return obs[0], self._one(info)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        a = np.asarray(action)
        if a.dtype.kind in "fiu" and a.shape != self.action_space.shape:
            raise ValueError(f"action: expected shape {self.action_space.shape}, got {a.shape}")
        obs, r, te, tr, info = self.vec.step(a[None, ...])
        return obs[0], float(r[0]), bool(te[0]), bool(tr[0]), self._one(info)

    @property
    def render_frames(self) -> int:
        return self.vec.render_frames

    @property
    def render_path(self) -> Path:
        return self.vec.render_path

    def render(self) -> Any:
        return self.vec.render()

    def close(self) -> None:
        self.vec.close()

    def __enter__(self) -> "Env":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def make(name: str, **kwargs: Any) -> Env:
    """One environment of task ``name`` (ThreeBarRoll, SixBarRoll, PrismHold); keywords as make_vec."""
    return Env(name, **kwargs)


def make_vec(name: str, num_envs: int, **kwargs: Any) -> VectorEnv:
    """``num_envs`` environments of task ``name`` stepped together.

    Keywords: ``threads`` (0: all hardware threads; results do not depend on it), ``randomize`` (a
    dict or YAML path), ``model`` (path or Model), ``motorised`` (ThreeBarRoll), ``obs`` (parts),
    ``reward_weights``, ``render_mode`` (None, "live" or "html"), ``render_path`` and
    ``render_max_page_mb`` (render_mode "html": where render() writes the page, its size limit), ``goal``, ``goal_angle_range_rad``, ``integrator`` ("rk4"
    or "lie-verlet"), ``autoreset`` (True), and the task settings of ``TASKS[name]``
    (``dt_s``, ``control_period_s``, ``max_episode_steps``, ``action_span``, ``goal_distance_m``,
    ``goal_radius_m``, ``settle_s``, ``disturbance_N``, ``disturbance_prob``, ``max_shape_error``).
    """
    return VectorEnv(name, num_envs, **kwargs)
