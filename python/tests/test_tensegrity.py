"""tendyn.tensegrity: model loading, simulate() against the CLI, energies, Lagrange terms, psi study, planner."""
import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tendyn
from tendyn import tensegrity as ts

REPO = Path(__file__).resolve().parents[2]
# The CLI of the same build tree as the module: <build>/python/tendyn/__init__.py -> <build>/tendyn
CLI = Path(tendyn.__file__).resolve().parents[2] / "tendyn"


def cli(*args, cwd=None):
    if not CLI.exists():
        pytest.skip(f"CLI not built at {CLI}")
    subprocess.run([str(CLI), *map(str, args)], check=True, cwd=cwd or REPO, stdout=subprocess.DEVNULL)


def test_load_model_and_read_access():
    mf = ts.load_model_file(str(REPO / "models/prism3.yaml"))
    m = mf.model
    assert (m.nrod, m.ncable) == (3, 9)
    assert len(m.cable_ids) == 9 and m.cable_ids[0] == "top1"
    assert m.initial_state.x.shape == (39,)
    assert m.total_mass() == pytest.approx(sum(r.mass_kg for r in m.rods))
    text = ts.to_yaml(m, mf.simulation)
    m2 = ts.load_model_string(text).model
    assert m2.ncable == m.ncable and m2.cable_ids == m.cable_ids
    np.testing.assert_allclose(m2.initial_state.x, m.initial_state.x, rtol=0, atol=1e-11)  # %.12g in files
    assert ts.default_model().model.nrod == 3


def test_builders():
    p = ts.PrismParams()
    p.n = 4
    p.psi_rad = math.radians(45)
    prism = ts.make_prism(p)
    assert (prism.nrod, prism.ncable) == (4, 12)
    octa = ts.make_expanded_octahedron(ts.OctahedronParams())
    assert (octa.nrod, octa.ncable) == (6, 24)


def test_errors_carry_the_cpp_message():
    with pytest.raises(tendyn.Error) as e:
        ts.load_model_string("rods: [1, 2\n", "bad.yaml")
    assert "bad.yaml" in str(e.value)
    assert issubclass(tendyn.Error, ValueError)
    assert issubclass(tendyn.SimulationError, tendyn.Error) and issubclass(tendyn.SimulationError, RuntimeError)
    with pytest.raises(tendyn.Error):
        ts.load_model_file("/nonexistent/model.yaml")


def test_simulation_error_has_time():
    mf = ts.default_model()
    o = mf.simulation
    o.duration_s = 1.0
    o.dt_s = 0.5  # far too large: the energy guard stops the run
    o.energy_growth_limit = 1.0
    with pytest.raises(tendyn.SimulationError) as e:
        ts.simulate(mf.model, o)
    assert e.value.time >= 0.0 and str(e.value)


def test_simulate_matches_cli_summary(tmp_path):
    model_file = REPO / "models/prism3.yaml"
    cli("simulate", model_file, "--duration", 1, "-q", "--no-csv", "-o", tmp_path)
    expected = json.loads((tmp_path / "summary.json").read_text())
    mf = ts.load_model_file(str(model_file))
    o = mf.simulation
    o.duration_s = 1.0
    run = ts.simulate(mf.model, o)
    got = json.loads(run["summary_json"])
    provenance = expected.pop("tendyn")  # the CLI adds the version and the model file's hash (docs/CLI.md)
    assert provenance["version"] == tendyn.__version__ and len(provenance["model_fnv1a64"]) == 16
    assert got == expected  # same engine, same numbers, bit for bit
    final = np.array([c["final_tension_N"] for c in expected["cables"]])
    np.testing.assert_array_equal(run["summary"].final_tension_N, final)
    np.testing.assert_array_equal(run["tensions"][-1], final)
    n = len(run["time"])
    assert run["states"].shape == (n, 39) and run["strains"].shape == (n, 9)
    assert run["energies"].shape == (n, 5) and run["com"].shape == (n, 3)
    assert run["time"][-1] == pytest.approx(1.0)


def test_energy_conservation_without_damping():
    p = ts.PrismParams()
    p.damping_Nspm = 0.0
    model = ts.make_prism(p)
    o = ts.SimulationOptions()
    o.duration_s = 2.0
    o.dt_s = 1e-3
    run = ts.simulate(model, o)
    total = run["energies"][:, 4]
    np.testing.assert_allclose(run["energies"][:, :4].sum(axis=1), total, rtol=0, atol=1e-12)
    assert np.max(np.abs(total - total[0])) < 1e-6 * max(1.0, abs(total[0]))
    assert run["summary"].max_abs_energy_drift_J < 1e-6


def test_compute_derivative_and_energies():
    model = ts.default_model().model
    s = model.initial_state
    d = ts.make_data(model)
    xdot = ts.compute_derivative(model, s, d)
    assert xdot.shape == (39,)
    np.testing.assert_array_equal(xdot, d.xdot)
    e = ts.compute_energy(model, s, d)
    e2 = ts.energies(model, s.x)
    assert e.total() == e2.total() and e.elastic_J > 0
    # the first derivative block of each rod is the COM velocity
    for r in range(3):
        np.testing.assert_array_equal(xdot[13 * r:13 * r + 3], s.x[13 * r + 7:13 * r + 10])


def test_lagrange_mass_matrix_and_linearize():
    model = ts.default_model().model
    # a moving state: half a second of motion from the initial state
    o = ts.SimulationOptions()
    o.duration_s = 0.5
    state = ts.simulate(model, o, record=False)["summary"].final_state
    ls = ts.to_lagrange_state(model, state)
    q, qd = ls.q, ls.qdot
    M = ts.mass_matrix(model, q)
    assert M.shape == (21, 21)
    np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-14)
    ke = ts.kinetic_energy(model, ls)
    assert ke == pytest.approx(0.5 * qd @ M @ qd, rel=1e-12)
    d = ts.make_data(model)
    ts.compute_derivative(model, state, d)
    assert ke == pytest.approx(ts.compute_energy(model, state, d).kinetic_J, rel=1e-9)
    assert ts.velocity_term(model, ls).shape == (21,)
    A, B = ts.linearize(model, ls, cables=[0, 1])
    assert A.shape == (42, 42) and B.shape == (42, 2)
    # A against a finite difference of the DAE right-hand side
    y0 = ls.y.copy()
    f0 = ts.lagrange_derivative(model, ls)
    h = 1e-6
    k = 10  # a velocity coordinate
    ls.y = y0 + h * np.eye(42)[k]
    fd = (ts.lagrange_derivative(model, ls) - f0) / h
    np.testing.assert_allclose(A[:, k], fd, atol=1e-4 * max(1.0, np.abs(A[:, k]).max()))


def test_psi_study_range_equals_cli(tmp_path):
    args = dict(psi_min=30, psi_max=75, psi_step=5, duration=3)
    # rest length 0.14 m: with 0.2 m the centred layout (the default) has no normal angle (docs/VALIDATION.md)
    cli("sweep", "--psi-min", args["psi_min"], "--psi-max", args["psi_max"], "--psi-step", args["psi_step"],
        "--duration", args["duration"], "--rest-length", 0.14, "-q", "-o", tmp_path)
    expected = json.loads((tmp_path / "sweep.json").read_text())
    o = ts.PsiStudyOptions()
    # the CLI's defaults (apps/tendyn/cmd_sweep.cpp): the authors' centred layout, radius L/8
    assert o.prism.layout == ts.PrismLayout.kCentred and expected["prism"]["layout"] == "centred"
    assert ts.prism_radius_m(o.prism) == expected["prism"]["radius_m"] == 0.3 / 8
    o.prism.rod_mass_kg, o.prism.rod_length_m = 1.0, 0.3
    o.prism.stiffness_Npm, o.prism.rest_length_m, o.prism.damping_Nspm = 10.0, 0.14, 5.0
    o.prism.damping_law = ts.DampingLaw.kRelativeVelocity
    o.psi_deg = [float(p) for p in range(args["psi_min"], args["psi_max"] + 1, args["psi_step"])]
    o.simulation.duration_s = float(args["duration"])
    o.simulation.dt_s = 1e-3
    o.simulation.strain_limit = 1.0
    o.simulation.output_interval_s = 0.01
    res = ts.run_psi_study(o)
    assert res.has_range
    assert [res.range_min_deg, res.range_max_deg] == expected["normal_range_deg"]
    assert [r.normal for r in res.rows] == [r["normal"] for r in expected["rows"]]
    assert [r.triple_spread for r in res.rows] == [r["triple_spread"] for r in expected["rows"]]


def test_plan_matches_cli(tmp_path):
    cli("plan", "--drive", "c1,c2", "--duration", 0.3, "-q", "-o", tmp_path)
    expected = json.loads((tmp_path / "summary.json").read_text())
    mf = ts.load_model_file(str(REPO / "models/three_bar.yaml"))
    model = mf.model
    o = ts.PlannerOptions()
    o.drive_cables = [model.cable_ids.index("c1"), model.cable_ids.index("c2")]
    # the planner owns its drive cables (as the CLI does)
    model.drives = [d for d in model.drives if d.cable not in o.drive_cables]
    o.duration_s = 0.3
    o.rollout = mf.simulation
    o.threads = 2
    r = ts.plan(model, o)
    assert len(r.cost_m) == 3 and r.rollouts == expected["rollouts"]
    assert list(r.centroid_m[-1]) == expected["final_centroid_m"]
    assert r.progress_m == expected["progress_m"]
    o.threads = 1
    np.testing.assert_array_equal(np.array(ts.plan(model, o).centroid_m), np.array(r.centroid_m))


def test_threads_convert_first_results_concurrently():
    # regression: a lazily initialised NumPy API table deadlocked two threads returning their
    # first arrays at once; run in a fresh interpreter so that no array was converted before.
    import sys
    code = ("import threading, tendyn\n"
            "ts = tendyn.tensegrity\n"
            "m = ts.make_prism(ts.PrismParams()); o = ts.SimulationOptions(); o.duration_s = 0.2\n"
            "t = [threading.Thread(target=ts.simulate, args=(m, o)) for _ in range(4)]\n"
            "[x.start() for x in t]; [x.join() for x in t]\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


# ---- Python API conventions: keyword constructors, reprs, docstrings with units, shape checks ----

OPTION_CLASSES = ["SimulationOptions", "Tolerance", "StepOptions", "PlannerOptions", "PsiStudyOptions", "PrismParams",
                  "OctahedronParams", "LagrangeOptions", "Ground", "Rod", "Node", "Cable", "SinusoidDrive",
                  "TableDrive", "CableDrive", "PlanPath", "Energy"]


def test_keyword_constructors():
    o = ts.SimulationOptions(duration_s=2, dt_s=1e-3, integrator="dopri5", tolerance=ts.Tolerance(rtol=1e-9))
    assert (o.duration_s, o.dt_s, o.integrator, o.tolerance.rtol) == (2.0, 1e-3, ts.Integrator.kDormandPrince45, 1e-9)
    assert o.output_interval_s == ts.SimulationOptions().output_interval_s  # the rest at defaults
    o.integrator = "lie-verlet"
    assert o.integrator == ts.Integrator.kLieVerlet
    assert ts.PsiStudyOptions(psi_deg=[30.0, 40.0], prism=ts.PrismParams(n=3, stiffness_Npm=12.0)).prism.stiffness_Npm == 12.0
    assert ts.PlannerOptions(drive_cables=[0, 1], u0_m=0.01).drive_cables == [0, 1]
    assert ts.LagrangeOptions(baumgarte_alpha_per_s=5.0).baumgarte_alpha_per_s == 5.0
    assert ts.OctahedronParams(rod_length_m=2.0).rod_length_m == 2.0
    assert ts.SinusoidDrive(a_m=0.02, b_radps=3.14).b_radps == 3.14
    for name in OPTION_CLASSES:
        cls = getattr(ts, name)
        cls()  # all defaults
        with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument 'no_such_field'"):
            cls(no_such_field=1)
    with pytest.raises(TypeError, match="fields: duration_s, integrator, dt_s"):
        ts.SimulationOptions(durations=2)
    with pytest.raises(tendyn.Error, match=r"unknown integrator 'rk5' \(valid: rk4, dopri5 \(also dormand-prince\), lie-verlet \(also symplectic\)\)"):
        ts.SimulationOptions(integrator="rk5")
    with pytest.raises(TypeError):
        ts.SimulationOptions(duration_s="long")


def test_reprs_are_short_and_evaluable():
    mf = ts.load_model_file(str(REPO / "models/three_bar.yaml"))
    assert repr(mf.model) == "Model(name='three-bar', nrod=3, nnode=6, ncable=9, ndrive=4)"
    assert repr(mf.simulation) == "SimulationOptions(duration_s=10.0, dt_s=0.0005)"
    assert repr(ts.SimulationOptions()) == "SimulationOptions()"
    o = ts.SimulationOptions(duration_s=2, tolerance=ts.Tolerance(rtol=1e-9), locate_slack_events=False)
    assert repr(o) == "SimulationOptions(duration_s=2.0, tolerance=Tolerance(rtol=1e-09), locate_slack_events=False)"
    assert repr(eval(repr(o), vars(ts))) == repr(o)
    assert repr(mf.model.initial_state) == "State(time_s=0.0, nrod=3)"
    assert repr(ts.make_data(mf.model)) == "Data(nrod=3, nnode=6, ncable=9)"
    run = ts.simulate(mf.model, ts.SimulationOptions(duration_s=0.1, dt_s=5e-4))
    assert repr(run["summary"]).startswith("SimulationSummary(final_time_s=0.1, steps=200, normal_mode=")
    assert repr(run["summary"].monitor).startswith("MonitorReport(normal_mode=")


def test_every_field_has_a_docstring_with_its_unit():
    import re
    unit_suffix = re.compile(r"_(m|s|N|kg|kgm2|Npm|Nspm|mps|rad|radps|deg|J|per_s|kgmps|kgm2ps)$")
    checked = 0
    for name in dir(ts):
        cls = getattr(ts, name)
        if not isinstance(cls, type) or hasattr(cls, "__members__"):  # enums: pybind11's own name/value
            continue
        for field, attr in vars(cls).items():
            if not isinstance(attr, property) or field.startswith("_"):
                continue
            doc = attr.__doc__ or ""
            assert doc.strip() and not doc.startswith("(self"), f"{name}.{field} has no docstring"
            if unit_suffix.search(field):
                assert "[" in doc, f"{name}.{field}: no unit in {doc!r}"
            checked += 1
    assert checked > 150


def test_shape_checks_raise_at_once():
    m = ts.load_model_file(str(REPO / "models/three_bar.yaml")).model
    s = m.initial_state.copy()
    with pytest.raises(ValueError, match=r"State.x: expected shape \(39,\) \(13 per rod, 3 rods\), got \(38,\)"):
        s.x = np.zeros(38)
    with pytest.raises(ValueError, match=r"got \(3, 13\)"):
        s.x = np.zeros((3, 13))
    with pytest.raises(ValueError, match="13 \\* nrod"):
        ts.State(np.zeros(14))
    s.x = np.arange(39.0)  # the right size is taken as is
    assert s.x[5] == 5.0
    view = s.x
    view[0] = -1.0  # a writable view
    assert s.x[0] == -1.0
    with pytest.raises(ValueError, match=r"Model.initial_state: expected x of shape \(39,\)"):
        m.initial_state = ts.State(np.zeros(26))
    d = ts.make_data(m)
    with pytest.raises(ValueError, match=r"Data.cable_rest_length_m: expected shape \(9,\) \(one per cable\), got \(8,\)"):
        d.cable_rest_length_m = np.zeros(8)
    with pytest.raises(ValueError, match=r"Data.f_W_ext_node: expected shape \(6, 3\) \(one row per node\), got \(6,\)"):
        d.f_W_ext_node = np.zeros(6)
    d.f_W_ext_node[2] = [1.0, 2.0, 3.0]
    d.cable_rest_length_m[4] = 0.25
    assert list(d.f_W_ext_node[2]) == [1.0, 2.0, 3.0] and d.cable_rest_length_m[4] == 0.25
    with pytest.raises(ValueError, match=r"Model.f_W_ext_node: expected shape \(6, 3\)"):
        m.f_W_ext_node = np.zeros((5, 3))
    ls = ts.to_lagrange_state(m, m.initial_state)
    with pytest.raises(ValueError, match=r"LagrangeState.y: expected shape \(42,\)"):
        ls.y = np.zeros(41)


def test_list_fields_are_copies_that_never_dangle():
    m = ts.load_model_file(str(REPO / "models/three_bar.yaml")).model
    cables, drives = m.cables, m.drives
    m.cables = []  # the old lists stay valid Python objects
    m.drives = []
    assert cables[0].rest_length_m == 0.18 and drives[0].u.a_m == 0.02
    m2 = ts.load_model_file(str(REPO / "models/three_bar.yaml")).model
    m2.cables[0].stiffness_Npm = 5.0  # a copy: the model keeps its value ...
    assert m2.cables[0].stiffness_Npm == 300.0
    c = m2.cables
    c[0].stiffness_Npm = 5.0  # ... until the list is assigned back
    m2.cables = c
    assert m2.cables[0].stiffness_Npm == 5.0


def test_enum_names_round_trip_and_unknown_names_are_errors():
    for parse, values in [(ts.damping_law_from_string, ts.DampingLaw.__members__.values()),
                          (ts.ground_type_from_string, ts.Ground.Type.__members__.values()),
                          (ts.cable_force_sign_from_string, ts.CableForceSign.__members__.values()),
                          (ts.friction_law_from_string, ts.Ground.FrictionLaw.__members__.values()),
                          (ts.integrator_from_string, ts.Integrator.__members__.values()),
                          (ts.quaternion_stabilisation_from_string, ts.QuaternionStabilisation.__members__.values()),
                          (ts.planner_from_string, ts.Planner.__members__.values()),
                          (ts.prism_layout_from_string, ts.PrismLayout.__members__.values())]:
        for v in values:
            assert parse(ts.to_string(v)) == v
    assert ts.to_string(ts.DampingLaw.kRelativeVelocity) == "relative_velocity"
    assert ts.to_string(ts.Planner.kCoordinateSearch) == "coordinate"
    assert ts.damping_law_from_string("Relative-Velocity") == ts.DampingLaw.kRelativeVelocity  # any case, '-' = '_'
    with pytest.raises(tendyn.Error, match="unknown damping law 'axiall' \\(valid: axial, relative_velocity\\)"):
        ts.damping_law_from_string("axiall")
    with pytest.raises(tendyn.Error, match="unknown prism layout 'centered' \\(valid: pivot, centred\\)"):
        ts.prism_layout_from_string("centered")
    with pytest.raises(tendyn.Error, match="unknown planner 'greedy'"):
        ts.planner_from_string("greedy")


def test_cable_force_sign_and_printed_friction_law_are_model_fields():
    m = ts.load_model_file(str(REPO / "models/prism3.yaml")).model
    assert m.cable_force_sign == ts.CableForceSign.kClampTension
    m.cable_force_sign = ts.CableForceSign.kPaperLaw
    assert m.cable_force_sign == ts.CableForceSign.kPaperLaw
    g = m.ground
    assert g.friction_law == ts.Ground.FrictionLaw.kCoulomb
    g.friction_law = ts.Ground.FrictionLaw.kPrinted
    assert ts.to_string(g.friction_law) == "printed"
    with pytest.raises(tendyn.Error, match="unknown cable force sign 'signed' \\(valid: clamp_tension, paper_law\\)"):
        ts.cable_force_sign_from_string("signed")


def test_load_model_reads_mjcf_by_extension():
    """tendyn.load_model picks the MJCF reader for .xml (docs/MODEL_FORMAT.md, "MJCF import")."""
    mf = tendyn.load_model(str(REPO / "tests/data/mjcf/six_bar.xml"))
    assert len(mf.model.rods) == 6
    assert len(mf.model.cables) == 24
    assert mf.simulation.dt_s == pytest.approx(1e-4)
    f, mapped, skipped = ts.import_mjcf(str(REPO / "tests/data/mjcf/three_bar_global.xml"))
    assert len(f.model.rods) == 3
    assert any("coordinate=\"global\"" in line for line in mapped)
    assert any("<light>" in line for line in skipped)


def test_mjcf_errors_name_file_line_and_element(tmp_path):
    bad = tmp_path / "hinge.xml"
    bad.write_text('<mujoco><worldbody><body name="b"><freejoint/><joint/>'
                   '<geom type="capsule" size="0.1 0.5"/></body></worldbody></mujoco>')
    with pytest.raises(tendyn.Error, match=r"hinge\.xml:1:47: <joint>: hinge joints are not supported"):
        ts.load_mjcf_file(str(bad))


# ---- states, datas of another model; initial_state; threads ----
def test_every_function_taking_a_state_checks_its_size():
    six = ts.make_expanded_octahedron(ts.OctahedronParams())
    three = ts.make_prism(ts.PrismParams())
    assert six.nrod == 6
    short = ts.State(np.zeros(13))  # one rod's worth: the kernels would read 65 entries past it
    msg = r"the state has 13 entries, the model needs 13 \* nrod = 78"
    for fn in (ts.center_of_mass, ts.linear_momentum, ts.angular_momentum, ts.node_positions):
        with pytest.raises(tendyn.Error, match=fn.__name__ + ": " + msg):
            fn(six, short)
    d = ts.make_data(six)
    for fn in (ts.compute_derivative, ts.forward_kinematics, ts.compute_element_forces, ts.compute_energy):
        with pytest.raises(tendyn.Error, match=fn.__name__ + r"\(state\): " + msg):
            fn(six, short, d)
        # a state that fits with a data of another model
        with pytest.raises(tendyn.Error, match=fn.__name__ + r"\(data\): the data was made for another model \(it has 3 rods"):
            fn(six, six.initial_state, ts.make_data(three))
    with pytest.raises(tendyn.Error, match=r"energies\(x\): the state vector has 13 entries"):
        ts.energies(six, np.zeros(13))
    with pytest.raises(ValueError, match=r"step: the state has 13 entries"):
        ts.step(six, d, short, 1e-3)
    with pytest.raises(ValueError, match=r"step: the data was not made for this model"):
        ts.step(six, ts.make_data(three), six.initial_state, 1e-3)
    for call, pattern in ((lambda: ts.to_lagrange_state(six, short), r"to_lagrange_state\(state\): " + msg),
                          (lambda: ts.max_node_residual(six, short), r"max_node_residual\(state\): " + msg),
                          (lambda: ts.max_residual_on_ground(six, short, [], []), r"max_residual_on_ground\(state\): " + msg),
                          (lambda: ts.constraint_jacobian(six, np.zeros(7)), r"constraint_jacobian\(q\): q has 7 entries"),
                          (lambda: ts.lagrange_derivative(six, ts.to_lagrange_state(three, three.initial_state)),
                           r"lagrange_derivative\(state\): the Lagrange state has 42 entries, the model needs 14 \* nrod = 84"),
                          (lambda: ts.plan_centroid_m(six, short), "plan centroid: the state has 13 numbers"),
                          (lambda: ts.make_batch(six, 1, short), "batch: initial state: " + msg),
                          (lambda: ts.simulate(six, ts.SimulationOptions(duration_s=0.01), initial=short), "wrong size")):
        with pytest.raises(tendyn.Error, match=pattern):
            call()
    # the right sizes still work and agree
    s = six.initial_state
    assert np.all(np.isfinite(ts.center_of_mass(six, s)))
    assert ts.compute_derivative(six, s, d).shape == (78,)


def test_initial_state_is_a_copy_so_stepping_it_leaves_the_model_alone():
    m = ts.make_prism(ts.PrismParams(damping_Nspm=0.5))
    o = ts.SimulationOptions(duration_s=0.05, dt_s=1e-3)
    before = ts.simulate(m, o)["states"]
    x0 = m.initial_state.x.copy()
    state, data = m.initial_state, ts.make_data(m)  # the pattern of the viewer docs
    ts.compute_derivative(m, state, data)
    for k in range(50):
        ts.step(m, data, state, 1e-3, t_end_s=(k + 1) * 1e-3)
    state.x[0] += 1.0
    assert state.time_s == pytest.approx(0.05) and not np.array_equal(state.x, x0)
    assert m.initial_state.time_s == 0.0 and np.array_equal(m.initial_state.x, x0)
    assert np.array_equal(ts.simulate(m, o)["states"], before)
    m.initial_state.x[0] = 123.0  # writes into a copy
    assert m.initial_state.x[0] == x0[0]
    moved = m.initial_state
    moved.x[2] += 0.5
    m.initial_state = moved  # assigning is the way to change it
    assert m.initial_state.x[2] == x0[2] + 0.5


def test_one_data_stepped_from_four_threads_never_loses_a_step():
    import threading
    m = ts.make_prism(ts.PrismParams(damping_Nspm=0.5))
    state, data = m.initial_state, ts.make_data(m)
    ts.compute_derivative(m, state, data)
    h, per_thread = 1e-5, 3000
    accepted, refused = [0] * 4, [0] * 4

    def worker(i):
        for _ in range(per_thread):
            try:
                ts.step(m, data, state, h)
                accepted[i] += 1
            except RuntimeError as e:
                assert "step: this data, state or batch is being stepped by another thread" in str(e)
                refused[i] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert sum(accepted) + sum(refused) == 4 * per_thread
    # each accepted step advanced the state once: none was lost to a race
    assert state.time_s == pytest.approx(sum(accepted) * h, rel=1e-9)
    # the same number of steps taken alone gives the same state
    alone, d2 = m.initial_state, ts.make_data(m)
    ts.compute_derivative(m, alone, d2)
    for _ in range(sum(accepted)):
        ts.step(m, d2, alone, h)
    assert np.array_equal(alone.x, state.x)
