"""Learning environments (tendyn.envs): the Gymnasium contract (types, shapes, dtypes, seeding,
autoreset, truncation), bit-identical results for 1 and 2 threads, randomisation ranges respected
and recorded (and really applied to the models), bad input named."""
import numpy as np
import pytest

import tendyn
import tendyn.envs as envs

SPEC = {
    "cable_stiffness_scale": [0.8, 1.2],
    "cable_damping_scale": [0.5, 1.5],
    "cable_rest_length_offset_m": [-0.003, 0.003],
    "rod_mass_scale": [0.9, 1.1],
    "ground_friction": [0.5, 1.0],
    "sensor_noise_std": [0.0, 0.01],
    "action_delay": [0, 2],
}


def rollout(env, seed, actions):
    obs, info = env.reset(seed=seed)
    out = [obs]
    rews = []
    for a in actions:
        obs, r, te, tr, info = env.step(a)
        out.append(obs)
        rews.append(r)
    return np.array(out), np.array(rews), info


def test_single_env_follows_the_gymnasium_contract():
    env = envs.make("ThreeBarRoll", max_episode_steps=3)
    obs, info = env.reset(seed=1)
    assert isinstance(obs, np.ndarray) and obs.dtype == np.float64 and obs.shape == env.observation_space.shape
    assert env.observation_space.contains(obs)
    assert isinstance(info, dict) and info["elapsed_steps"] == 0
    assert env.action_space.shape == (9,) and env.action_space.dtype == np.float64
    assert np.all(env.action_space.low < env.action_space.high)
    a = env.action_space.sample()
    assert env.action_space.contains(a)
    obs, r, te, tr, info = env.step(a)
    assert isinstance(r, float) and isinstance(te, bool) and isinstance(tr, bool)
    assert obs.shape == env.observation_space.shape and np.all(np.isfinite(obs))
    # the layout: parts in order, goal = goal - COM (1 m along +x at the start)
    lay = env.vec.obs_layout
    assert list(lay) == ["node_pos", "node_vel", "imu", "goal"] and lay["goal"].stop == obs.size
    # truncation at max_episode_steps, then step() refuses until reset()
    env.step(a)
    _, _, te, tr, _ = env.step(a)
    assert tr and not te
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(a)
    obs2, _ = env.reset()
    assert obs2.shape == obs.shape
    assert env.render() is None  # no render_mode; "live" streams to tendyn serve
    with pytest.raises(ValueError, match="render_mode: expected None, 'live', 'html'; got 'human'"):
        envs.make("ThreeBarRoll", render_mode="human")
    env.close()
    with pytest.raises(RuntimeError, match="closed"):
        env.reset()


def test_seeding_reproduces_and_different_seeds_differ():
    kw = dict(randomize=SPEC, goal_angle_range_rad=(-3.0, 3.0), max_episode_steps=50)
    e1, e2 = envs.make_vec("ThreeBarRoll", 3, **kw), envs.make_vec("ThreeBarRoll", 3, **kw)
    acts = np.random.default_rng(0).uniform(e1.single_action_space.low, e1.single_action_space.high, size=(4, 3, 9))
    o1, r1, i1 = rollout(e1, 7, acts)
    o2, r2, i2 = rollout(e2, 7, acts)
    assert np.array_equal(o1, o2) and np.array_equal(r1, r2)
    for k in SPEC:
        assert np.array_equal(i1["randomization"][k], i2["randomization"][k])
    o3, _, i3 = rollout(e2, 8, acts)
    assert not np.array_equal(o1, o3)
    assert not np.array_equal(i1["goal"], i3["goal"])
    # environments of one vector differ from each other (own generators)
    assert not np.array_equal(i1["randomization"]["cable_stiffness_scale"][0], i1["randomization"]["cable_stiffness_scale"][1])


def test_vector_results_are_bit_identical_for_one_and_two_threads():
    res = []
    for threads in (1, 2):
        e = envs.make_vec("ThreeBarRoll", 4, threads=threads, randomize=SPEC, max_episode_steps=3)
        acts = np.random.default_rng(3).uniform(e.single_action_space.low, e.single_action_space.high, size=(5, 4, 9))
        res.append(rollout(e, 11, acts))  # crosses an autoreset (max 3 steps)
    assert np.array_equal(res[0][0], res[1][0])
    assert np.array_equal(res[0][1], res[1][1])


def test_vector_autoreset_is_next_step_and_truncates_at_max_steps():
    e = envs.make_vec("ThreeBarRoll", 2, max_episode_steps=2)
    obs0, info = e.reset(seed=0)
    a = np.tile(e.single_action_space.high, (2, 1))
    o, r, te, tr, info = e.step(a)
    assert o.shape == (2, e.single_observation_space.shape[0]) and r.shape == (2,) and r.dtype == np.float64
    assert te.dtype == bool and tr.dtype == bool and not tr.any()
    # the batched spaces, as Gymnasium's VectorEnv
    assert e.action_space.shape == (2, 9) and e.observation_space.shape == o.shape and e.observation_space.contains(o)
    assert e.action_space.contains(e.action_space.sample())
    o, r, te, tr, info = e.step(a)
    assert tr.all() and not te.any() and (info["elapsed_steps"] == 2).all()
    assert not np.array_equal(o, obs0)  # the final observation, not a reset one
    o, r, te, tr, info = e.step(a)  # the action is ignored: both restart
    assert info["episode_start"].all() and (r == 0).all() and not (te | tr).any()
    assert np.array_equal(o, obs0) and (info["elapsed_steps"] == 0).all()
    o, r, te, tr, info = e.step(a)
    assert not info["episode_start"].any() and (info["elapsed_steps"] == 1).all()


def test_randomization_ranges_are_respected_recorded_and_applied():
    e = envs.make_vec("ThreeBarRoll", 6, randomize=SPEC, obs=("command", "cable_length"))
    base = e.base_model
    for seed in (0, 1):
        _, info = e.reset(seed=seed)
        rz = info["randomization"]
        for k, (lo, hi) in SPEC.items():
            assert np.all(rz[k] >= lo) and np.all(rz[k] <= hi), k
        assert rz["cable_stiffness_scale"].shape == (6, 9) and rz["rod_mass_scale"].shape == (6, 3)
        assert np.all(rz["action_delay"] == np.round(rz["action_delay"]))
        for i in range(6):
            m = e.models[i]
            assert np.allclose([c.stiffness_Npm for c in m.cables],
                               np.array([c.stiffness_Npm for c in base.cables]) * rz["cable_stiffness_scale"][i], rtol=1e-15)
            assert np.allclose([r.mass_kg for r in m.rods],
                               np.array([r.mass_kg for r in base.rods]) * rz["rod_mass_scale"][i], rtol=1e-15)
            assert m.ground.friction == rz["ground_friction"][i, 0]
        assert base.ground.friction == 0.8  # the base model is never changed
    # the action delay: an environment with delay d applies the action of d periods earlier
    e = envs.make_vec("ThreeBarRoll", 4, randomize={"action_delay": [0, 2]}, obs=("command",))
    _, info = e.reset(seed=5)
    delay = info["randomization"]["action_delay"][:, 0].astype(int)
    assert len(set(delay)) > 1
    acts = [np.tile(e.single_action_space.low + (e.single_action_space.high - e.single_action_space.low) * f, (4, 1)) for f in (0.2, 0.5, 0.8)]
    seen = [e.step(a)[0] for a in acts]
    nominal = e.nominal_rest_length_m
    for i, d in enumerate(delay):
        expect = acts[2 - d][i] if d <= 2 else nominal
        assert np.array_equal(seen[2][i], expect)


def test_winch_model_prism_and_six_bar_step():
    e = envs.make_vec("ThreeBarRoll", 2, motorised=True, randomize={"winch_kp_scale": [0.5, 2.0], "winch_command_limit": [0.5, 1.0]})
    assert e.single_action_space.shape == (6,)  # the six winch cables
    _, info = e.reset(seed=0)
    assert np.all(info["randomization"]["winch_command_limit"] >= 0.5)
    assert [w.command_limit for w in e.models[0].winches] == list(info["randomization"]["winch_command_limit"][0])
    o, r, te, tr, info = e.step(np.tile(e.single_action_space.low, (2, 1)))
    assert np.all(np.isfinite(o)) and not te.any()
    errors = []
    for prob in (0.0, 1.0):  # held still at its settled shape; pushed out of it by the disturbances
        p = envs.make_vec("PrismHold", 2, max_episode_steps=5, disturbance_prob=prob)
        p.reset(seed=0)
        nominal = np.tile(p.nominal_rest_length_m, (2, 1))
        for _ in range(4):
            o, r, te, tr, info = p.step(nominal)
        errors.append(info["shape_error"])
        assert np.all(r == -10.0 * info["shape_error"])
    assert np.all(errors[0] < 1e-3) and np.all(errors[1] > 10 * errors[0])
    s = envs.make_vec("SixBarRoll", 2, max_episode_steps=3)
    o, _ = s.reset(seed=0)
    assert s.single_action_space.shape == (24,) and o.shape == (2, 6 * 6 * 3 + 2)
    o, r, te, tr, info = s.step(np.tile(s.nominal_rest_length_m, (2, 1)))
    assert np.all(np.isfinite(o)) and not te.any()


def test_actions_outside_the_box_are_clipped_and_counted():
    e = envs.make_vec("ThreeBarRoll", 2, obs=("command",))
    e.reset(seed=0)
    a = np.tile(e.single_action_space.high, (2, 1))
    a[1, 3] += 1.0
    a[0, 0] = -5.0
    o, r, te, tr, info = e.step(a)
    assert list(info["action_clipped"]) == [1, 1]
    assert o[1, 3] == e.single_action_space.high[3] and o[0, 0] == e.single_action_space.low[0]


def test_bad_input_names_the_argument(tmp_path):
    e = envs.make_vec("ThreeBarRoll", 2)
    with pytest.raises(RuntimeError, match="reset"):
        e.step(np.zeros((2, 9)))
    e.reset(seed=0)
    with pytest.raises(ValueError, match=r"action: expected shape \(2, 9\), got \(9,\)"):
        e.step(np.zeros(9))
    with pytest.raises(TypeError, match="action: expected real numbers"):
        e.step(np.full((2, 9), "a"))
    a = np.tile(e.single_action_space.low, (2, 1))
    a[1, 4] = np.nan
    with pytest.raises(ValueError, match=r"action: entry \[1, 4\] is nan"):
        e.step(a)
    with pytest.raises(ValueError, match="randomize\\['cable_stiffness_scale'\\]: inverted range"):
        envs.make_vec("ThreeBarRoll", 1, randomize={"cable_stiffness_scale": [1.2, 0.8]})
    with pytest.raises(ValueError, match="randomize: unknown entry 'stiffness'"):
        envs.make_vec("ThreeBarRoll", 1, randomize={"stiffness": [1, 2]})
    with pytest.raises(ValueError, match=r"randomize\['ground_friction'\]: \[-0.1, 0.5\] is outside"):
        envs.make_vec("ThreeBarRoll", 1, randomize={"ground_friction": [-0.1, 0.5]})
    with pytest.raises(ValueError, match=r"randomize\['rod_mass_scale'\]: \[0.0, 1.0\] is outside"):
        envs.make_vec("ThreeBarRoll", 1, randomize={"rod_mass_scale": [0.0, 1.0]})
    with pytest.raises(ValueError, match=r"randomize\['action_delay'\]: expected whole numbers"):
        envs.make_vec("ThreeBarRoll", 1, randomize={"action_delay": [0, 1.5]})
    with pytest.raises(ValueError, match=r"randomize\['sensor_noise_std'\]: the range must be finite"):
        envs.make_vec("ThreeBarRoll", 1, randomize={"sensor_noise_std": [0, float("nan")]})
    with pytest.raises(ValueError, match=r"randomize\['ground_friction'\]: expected \[low, high\]"):
        envs.make_vec("ThreeBarRoll", 1, randomize={"ground_friction": 0.5})
    with pytest.raises(ValueError, match="name: unknown task 'FourBar'"):
        envs.make_vec("FourBar", 1)
    with pytest.raises(ValueError, match="num_envs: expected an integer >= 1"):
        envs.make_vec("ThreeBarRoll", 0)
    with pytest.raises(ValueError, match="obs: unknown part 'pos'"):
        envs.make_vec("ThreeBarRoll", 1, obs=("pos",))
    with pytest.raises(TypeError, match="unexpected keyword 'frame_skip'"):
        envs.make_vec("ThreeBarRoll", 1, frame_skip=3)
    # a YAML spec file, and one with an error: the file named
    f = tmp_path / "dr.yaml"
    f.write_text("ground_friction: [0.6, 0.7]\n")
    _, info = envs.make_vec("ThreeBarRoll", 2, randomize=f).reset(seed=0)
    assert np.all((info["randomization"]["ground_friction"] >= 0.6) & (info["randomization"]["ground_friction"] <= 0.7))
    f.write_text("ground_friction: [0.7, 0.6]\n")
    with pytest.raises(ValueError, match=r"randomize \(.*dr.yaml\)\['ground_friction'\]: inverted range"):
        envs.make_vec("ThreeBarRoll", 1, randomize=f)
    with pytest.raises(ValueError, match="randomize: cannot read"):
        envs.make_vec("ThreeBarRoll", 1, randomize=tmp_path / "missing.yaml")
    with pytest.raises(tendyn.Error, match=r"step_batch_models\(models\): 1 models for 2 robots"):
        tendyn.tensegrity.step_batch_models([e.models[0]], e.batch)


def _page_scene(path):
    """The scene JSON embedded in a viewer page (the <script id="tendyn-scene"> element)."""
    import json
    import re
    html = path.read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="tendyn-scene">(.*?)</script>', html, re.S)
    assert m, "no scene in the page"
    return json.loads(m.group(1).replace("<\\/", "</"))


@pytest.mark.skipif(not tendyn.viz.has_viewer, reason="built without the web viewer")
def test_render_mode_html_writes_the_viewer_page_of_the_episode(tmp_path):
    out = tmp_path / "episode.html"
    env = envs.make("ThreeBarRoll", render_mode="html", render_path=out, max_episode_steps=50)
    assert env.metadata["render_modes"] == ["live", "html"]
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(7):
        env.step(rng.uniform(env.action_space.low, env.action_space.high))
    assert env.render_frames == 8  # the reset state and 7 steps
    path = env.render()
    assert path == out and out.is_file()
    scene = _page_scene(out)
    model = env.model
    assert scene["format"] == "tendyn-scene" and scene["kind"] == "tensegrity"
    assert scene["points"] == list(model.node_ids)
    assert len(scene["rods"]) == model.nrod and len(scene["cables"]) == model.ncable
    t = scene["frames"]["t_s"]
    assert len(t) == 8 and t[0] == 0.0
    assert t[-1] == pytest.approx(7 * env.vec.control_period_s, rel=1e-6)
    # the last frame is the environment's state: node positions to the page's 7 digits
    p_last = np.array(scene["frames"]["positions_m"][-1]).reshape(-1, 3)
    assert np.allclose(p_last, env.vec.batch.p_W_node[0], rtol=1e-6, atol=1e-6)
    # tensions with the commanded rest lengths (the batch's data)
    assert np.allclose(scene["frames"]["cable_tension_N"][-1], env.vec.batch.cable_tension_N[0], rtol=1e-6, atol=1e-6)
    # a reset starts a new episode: the page then holds its frames only
    env.reset()
    env.step(env.action_space.sample())
    env.render()
    assert len(_page_scene(out)["frames"]["t_s"]) == 2
    env.close()


@pytest.mark.skipif(not tendyn.viz.has_viewer, reason="built without the web viewer")
def test_render_mode_html_of_the_vector_env_records_environment_0_and_its_autoreset(tmp_path):
    venv = envs.make_vec("PrismHold", 2, render_mode="html", render_path=tmp_path / "v.html", max_episode_steps=3, threads=1)
    venv.reset(seed=0)
    a = np.tile(venv.single_action_space.sample(), (2, 1))
    for _ in range(3):
        venv.step(a)
    assert venv.render_frames == 4
    assert len(_page_scene(venv.render())["frames"]["t_s"]) == 4
    venv.step(a)  # the autoreset of environment 0: a new episode
    assert venv.render_frames == 1
    venv.close()


def test_render_arguments_are_checked(tmp_path):
    with pytest.raises(ValueError, match="render_path: only with render_mode='html'"):
        envs.make("ThreeBarRoll", render_path=tmp_path / "x.html")
    with pytest.raises(ValueError, match="render_max_page_mb"):
        envs.make("ThreeBarRoll", render_mode="html", render_max_page_mb=0)
    env = envs.make("ThreeBarRoll", render_mode="html", render_path=tmp_path / "x.html")
    with pytest.raises(RuntimeError, match="call reset"):
        env.render()
    env.close()
    if tendyn.viz.has_viewer:
        env = envs.make("ThreeBarRoll", render_mode="html", render_path=tmp_path / "no" / "such" / "dir" / "x.html")
        env.reset(seed=0)
        with pytest.raises(tendyn.Error, match="x.html"):
            env.render()
        env.close()
