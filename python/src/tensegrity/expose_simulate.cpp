// Bindings of include/tendyn/tensegrity/simulate.hpp: SimulationOptions, step() for hand-written
// loops, simulate() with an optional Python controller, the run's monitor and summary.
//
// A Python controller runs behind the C++ controller interface: simulate() releases the GIL, and
// the callback re-acquires it only for its own call. It receives a Python-owned Data, into which
// the current quantities are copied before the call and from which the inputs (rest lengths,
// external node forces) are copied back after it, so nothing the callback keeps can dangle.
// A Python exception in the callback unwinds the C++ run and reaches the caller unchanged.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/output.hpp>
#include <tendyn/tensegrity/simulate.hpp>

#include "tensegrity/expose.hpp"

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tendyn::python::tensegrity_bind {

namespace {

// An integrator given by name ("rk4", "dopri5", "lie-verlet": tendyn.Error listing the names on
// an unknown one) or as an Integrator; TypeError otherwise.
Integrator integrator_arg(py::handle v) {
  if (py::isinstance<py::str>(v)) return integrator_from_string(v.cast<std::string>());
  try {
    return v.cast<Integrator>();
  } catch (const py::cast_error&) {
    throw py::type_error("integrator: expected 'rk4', 'dopri5', 'lie-verlet' or a tendyn.tensegrity.Integrator, got " +
                         py::repr(v).cast<std::string>());
  }
}

// Rows of equal-length vectors -> (nrow x ncol) array.
py::array_t<double> stack(const std::vector<Eigen::VectorXd>& rows, Eigen::Index ncol) {
  py::array_t<double> out({static_cast<py::ssize_t>(rows.size()), static_cast<py::ssize_t>(ncol)});
  auto a = out.mutable_unchecked<2>();
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (Eigen::Index j = 0; j < ncol; ++j) a(static_cast<py::ssize_t>(i), j) = rows[i][j];
  return out;
}

// (3 x n) matrices -> (nrow x n x 3) array.
py::array_t<double> stack_points(const std::vector<Eigen::Matrix3Xd>& frames, Eigen::Index n) {
  py::array_t<double> out({static_cast<py::ssize_t>(frames.size()), static_cast<py::ssize_t>(n), py::ssize_t{3}});
  auto a = out.mutable_unchecked<3>();
  for (std::size_t i = 0; i < frames.size(); ++i)
    for (Eigen::Index j = 0; j < n; ++j)
      for (int c = 0; c < 3; ++c) a(static_cast<py::ssize_t>(i), j, c) = frames[i](c, j);
  return out;
}

// The quantities a controller may read (all of a Data but its integrator scratch). Same sizes on
// both sides: no allocation.
void copy_quantities(const Data& from, Data& to) {
  to.p_W_node = from.p_W_node;
  to.v_W_node = from.v_W_node;
  to.e_W_rod = from.e_W_rod;
  to.f_W_node = from.f_W_node;
  to.f_W_rod = from.f_W_rod;
  to.tau_W_rod = from.tau_W_rod;
  to.cable_rest_length_m = from.cable_rest_length_m;
  to.cable_length_m = from.cable_length_m;
  to.cable_rate_mps = from.cable_rate_mps;
  to.cable_tension_N = from.cable_tension_N;
  to.cable_slack = from.cable_slack;
  to.f_W_ext_node = from.f_W_ext_node;
  to.xdot = from.xdot;
  to.winch_target_m = from.winch_target_m;
  to.winch_command = from.winch_command;
  to.winch_torque_Nm = from.winch_torque_Nm;
  to.actuator_ctrl = from.actuator_ctrl;
  to.actuator_force_N = from.actuator_force_N;
}

// A Python callable controller(t_s, state, data) behind the C++ controller interface. Construct
// and destroy with the GIL held; call (from the simulation) without it.
class PyController {
 public:
  PyController(py::object fn, const Model& model) : fn_(std::move(fn)), data_obj_(py::cast(make_data(model))) {
    data_ = data_obj_.cast<Data*>();
  }
  void operator()(double t_s, const State& state, Data& data) {
    py::gil_scoped_acquire gil;
    copy_quantities(data, *data_);
    fn_(t_s, py::cast(state), data_obj_);  // the state by copy; exceptions propagate
    // the Python-side setters keep the sizes, so these copies never reallocate. A rest length the
    // callable changed on a winch's cable commands the winch's target (command_rest_length), as
    // in set_rest_lengths and the planners.
    data.winch_target_m = data_->winch_target_m;
    data.actuator_ctrl = data_->actuator_ctrl;
    for (Eigen::Index k = 0; k < data.cable_rest_length_m.size(); ++k)
      if (data_->cable_rest_length_m[k] != data.cable_rest_length_m[k])
        command_rest_length(data, static_cast<int>(k), data_->cable_rest_length_m[k]);
    data.f_W_ext_node = data_->f_W_ext_node;
  }

 private:
  py::object fn_;
  py::object data_obj_;
  Data* data_ = nullptr;
};

py::dict run_simulate(const Model& mo, SimulationOptions opt, const std::optional<State>& initial, bool record,
                      const py::object& controller, const std::optional<double>& control_period_s) {
  if (control_period_s) opt.control_period_s = *control_period_s;
  if (!controller.is_none() && !PyCallable_Check(controller.ptr()))
    throw py::type_error("simulate: controller must be callable as controller(t_s, state, data), got " +
                         py::repr(controller).cast<std::string>());
  std::optional<PyController> py_controller;
  std::function<void(double, const State&, Data&)> law;
  if (!controller.is_none()) {
    py_controller.emplace(controller, mo);
    law = [&py_controller](double t, const State& s, Data& d) { (*py_controller)(t, s, d); };
  }
  Recorder rec;
  SimulationSummary sum;
  {
    py::gil_scoped_release release;
    sum = simulate(mo, opt, record ? &rec : nullptr, {}, initial ? &*initial : nullptr, law);
  }
  py::dict out;
  const py::ssize_t n = static_cast<py::ssize_t>(rec.time_s.size());
  py::array_t<double> t(n), energies({n, static_cast<py::ssize_t>(5)}), com({n, static_cast<py::ssize_t>(3)});
  auto tv = t.mutable_unchecked<1>();
  auto ev = energies.mutable_unchecked<2>();
  auto cv = com.mutable_unchecked<2>();
  for (py::ssize_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    tv(i) = rec.time_s[k];
    const Energy& e = rec.energy[k];
    ev(i, 0) = e.kinetic_J;
    ev(i, 1) = e.elastic_J;
    ev(i, 2) = e.gravitational_J;
    ev(i, 3) = e.external_J;
    ev(i, 4) = e.total();
    for (int j = 0; j < 3; ++j) cv(i, j) = rec.com_m[k][j];
  }
  out["time"] = t;
  out["states"] = stack(rec.x, mo.nx());
  out["node_positions"] = stack_points(rec.p_W_node, mo.nnode());
  out["strains"] = stack(rec.strain, mo.ncable());
  out["tensions"] = stack(rec.tension_N, mo.ncable());
  out["energies"] = energies;
  out["com"] = com;
  out["summary"] = sum;
  out["summary_json"] = summary_json(mo, opt, sum);
  return out;
}

}  // namespace

void expose_simulate(py::module_& m) {
  py::class_<SimulationOptions> so(m, "SimulationOptions",
                                   "Options of simulate(): duration, integrator, step, output interval, monitor limits.");
  so.def_readwrite("duration_s", &SimulationOptions::duration_s, "simulated time [s]")
      .def_property(
          "integrator", [](const SimulationOptions& o) { return o.integrator; },
          [](SimulationOptions& o, py::handle v) { o.integrator = integrator_arg(v); },
          "Integrator, or its name 'rk4', 'dopri5', 'lie-verlet'")
      .def_readwrite("dt_s", &SimulationOptions::dt_s, "fixed step (rk4, lie-verlet) or first trial step (dopri5) [s]")
      .def_readwrite("tolerance", &SimulationOptions::tolerance, "Tolerance of dopri5")
      .def_readwrite("output_interval_s", &SimulationOptions::output_interval_s, "interval of the recorded samples [s] (<= 0: every step)")
      .def_readwrite("strain_limit", &SimulationOptions::strain_limit, "over-strain threshold on (l - l0)/l0 (dimensionless; 1.0 = 100 %)")
      .def_readwrite("slack_tolerance", &SimulationOptions::slack_tolerance,
                     "a cable is slack when its strain < -slack_tolerance (dimensionless)")
      .def_readwrite("energy_growth_limit", &SimulationOptions::energy_growth_limit,
                     "blow-up guard: stop when the energy grows by more than this times the initial energy scale (dimensionless)")
      .def_readwrite("stop_on_abnormal", &SimulationOptions::stop_on_abnormal, "stop at the first slack or over-strain event")
      .def_readwrite("locate_slack_events", &SimulationOptions::locate_slack_events,
                     "fixed steps: split a step where a cable goes slack or taut")
      .def_readwrite("control_period_s", &SimulationOptions::control_period_s,
                     "period of simulate()'s controller [s]: 0 = at every evaluation; > 0 = sampled, inputs held between calls");
  def_kw_init(so);

  py::class_<StepOptions> sto(m, "StepOptions", "The part of SimulationOptions one step() needs.");
  sto.def_property(
         "integrator", [](const StepOptions& o) { return o.integrator; },
         [](StepOptions& o, py::handle v) { o.integrator = integrator_arg(v); }, "Integrator, or its name 'rk4', 'dopri5', 'lie-verlet'")
      .def_readwrite("tolerance", &StepOptions::tolerance, "Tolerance of dopri5")
      .def_readwrite("locate_slack_events", &StepOptions::locate_slack_events,
                     "fixed steps: split a step where a cable goes slack or taut");
  def_kw_init(sto);
  m.def("step_options", &step_options, py::arg("options"), "The StepOptions of a SimulationOptions.");

  py::class_<StepResult>(m, "StepResult", "What one step() did.")
      .def_readonly("h_s", &StepResult::h_s, "the step taken [s] (dopri5: the accepted trial)")
      .def_readonly("h_next_s", &StepResult::h_next_s, "dopri5: the step the error control suggests next [s]; fixed: h")
      .def_readonly("splits", &StepResult::splits, "fixed steps: sub-steps cut at slack events or ground impacts")
      .def_readonly("rejected", &StepResult::rejected, "dopri5: trials rejected before the accepted one")
      .def("__repr__", [](const StepResult& r) {
        return "StepResult(h_s=" + float_repr(r.h_s) + ", h_next_s=" + float_repr(r.h_next_s) + ", splits=" + std::to_string(r.splits) +
               ", rejected=" + std::to_string(r.rejected) + ")";
      });

  m.def(
      "step",
      [](const Model& mo, Data& d, State& s, double dt_s, py::handle integrator, const std::optional<Tolerance>& tolerance,
         bool locate_slack_events, const std::optional<double>& t_end_s) {
        if (s.x.size() != mo.nx())
          throw py::value_error("step: the state has " + std::to_string(s.x.size()) + " entries, the model needs " + state_size_text(mo));
        if (!data_fits(mo, d)) throw py::value_error("step: the data was not made for this model (use make_data(model))");
        StepOptions o;
        o.integrator = integrator_arg(integrator);
        if (tolerance) o.tolerance = *tolerance;
        o.locate_slack_events = locate_slack_events;
        const double t_end = t_end_s ? *t_end_s : std::nan("");
        // two threads stepping one data or state would race (lost steps): the second raises
        const ExclusiveUse in_use({&d, &s}, "step");  // destroyed after the GIL is back
        py::gil_scoped_release release;
        return step(mo, d, s, dt_s, o, t_end);
      },
      py::arg("model"), py::arg("data"), py::arg("state"), py::arg("dt_s"), py::arg("integrator") = "rk4",
      py::arg("tolerance") = py::none(), py::arg("locate_slack_events") = true, py::arg("t_end_s") = py::none(),
      "Advance `state` by one step in place (the C++ step(): the very code simulate() runs per step) and return a\n"
      "StepResult. rk4 / lie-verlet: a step of dt_s [s], split at slack events and ground impacts; dopri5: one\n"
      "accepted step, trying dt_s first (use the result's h_next_s for the next one).\n"
      "No preparatory call: the step evaluates f(state) first unless data already holds it for this model, this\n"
      "state and data's current inputs (rest lengths, external forces, winch targets), as after the previous\n"
      "step; a state or input changed by hand between steps is evaluated again. After editing the model in\n"
      "place or replacing data.controller, call prepare_step(model, state, data). Afterwards data holds f(new state).\n"
      "t_end_s (fixed steps): the time stamped on the state after the step instead of start + dt_s; simulate()\n"
      "stamps t0 + (k + 1) dt, so stepping with t_end_s=(k + 1) * dt reproduces simulate() bit for bit.\n"
      "Raises tendyn.SimulationError on a blow-up, tendyn.Error on bad arguments. Releases the GIL.\n"
      "Threads: step different (data, state) pairs from different threads freely (the model is only read); a data or\n"
      "state that another thread is stepping at that moment raises RuntimeError (the steps would race and be lost).");

  m.def(
      "prepare_step",
      [](const Model& mo, const State& s, Data& d) {
        if (s.x.size() != mo.nx())
          throw py::value_error("prepare_step: the state has " + std::to_string(s.x.size()) + " entries, the model needs " +
                                state_size_text(mo));
        if (!data_fits(mo, d)) throw py::value_error("prepare_step: the data was not made for this model (use make_data(model))");
        const ExclusiveUse in_use({&d}, "prepare_step");
        py::gil_scoped_release release;
        prepare_step(mo, s, d);
      },
      py::arg("model"), py::arg("state"), py::arg("data"),
      "data.xdot = f(state) and a record of it that the next step() reuses (C++ prepare_step). Optional: step()\n"
      "evaluates by itself when the state or data's inputs changed; call it after editing the model in place or\n"
      "replacing data.controller. Raises tendyn.SimulationError like compute_derivative.");

  py::class_<MonitorReport>(m, "MonitorReport", "Slack / over-strain monitor of a run.")
      .def_readonly("normal_mode", &MonitorReport::normal_mode, "True when no cable went slack and no strain exceeded the limit")
      .def_readonly("first_slack_time_s", &MonitorReport::first_slack_time_s, "first slack time [s] (-1: never)")
      .def_readonly("first_slack_cable", &MonitorReport::first_slack_cable, "index of the first slack cable (-1: none)")
      .def_readonly("first_overstrain_time_s", &MonitorReport::first_overstrain_time_s, "first over-strain time [s] (-1: never)")
      .def_readonly("first_overstrain_cable", &MonitorReport::first_overstrain_cable, "index of the first over-strained cable (-1: none)")
      .def_readonly("max_strain", &MonitorReport::max_strain, "(ncable) largest strain over the run (dimensionless)")
      .def_readonly("min_strain", &MonitorReport::min_strain, "(ncable) smallest strain over the run (dimensionless)")
      .def_readonly("slack_first_time_s", &MonitorReport::slack_first_time_s, "(ncable) first time each cable was slack [s] (-1: never)")
      .def("__repr__", [](const MonitorReport& r) {
        return "MonitorReport(normal_mode=" + std::string(bool_repr(r.normal_mode)) +
               ", first_slack_time_s=" + float_repr(r.first_slack_time_s) +
               ", first_overstrain_time_s=" + float_repr(r.first_overstrain_time_s) + ")";
      });

  py::class_<SimulationSummary>(m, "SimulationSummary", "What simulate() reports besides the recorded samples.")
      .def_readonly("monitor", &SimulationSummary::monitor, "MonitorReport")
      .def_readonly("initial_energy", &SimulationSummary::initial_energy, "Energy at the start [J]")
      .def_readonly("final_energy", &SimulationSummary::final_energy, "Energy at the end [J]")
      .def_readonly("max_abs_energy_drift_J", &SimulationSummary::max_abs_energy_drift_J, "max |E(t) - E(0)| [J]")
      .def_readonly("com_initial_m", &SimulationSummary::com_initial_m, "(3) COM at the start [m]")
      .def_readonly("com_final_m", &SimulationSummary::com_final_m, "(3) COM at the end [m]")
      .def_readonly("max_com_displacement_m", &SimulationSummary::max_com_displacement_m, "max |COM(t) - COM(0)| [m]")
      .def_readonly("com_floor_path_m", &SimulationSummary::com_floor_path_m, "length of the COM track projected on the floor [m]")
      .def_readonly("linear_momentum_initial_kgmps", &SimulationSummary::linear_momentum_initial_kgmps, "(3) [kg m/s]")
      .def_readonly("linear_momentum_final_kgmps", &SimulationSummary::linear_momentum_final_kgmps, "(3) [kg m/s]")
      .def_readonly("angular_momentum_initial_kgm2ps", &SimulationSummary::angular_momentum_initial_kgm2ps,
                    "(3) about the world origin [kg m^2/s]")
      .def_readonly("angular_momentum_final_kgm2ps", &SimulationSummary::angular_momentum_final_kgm2ps,
                    "(3) about the world origin [kg m^2/s]")
      .def_readonly("steps", &SimulationSummary::steps, "accepted steps")
      .def_readonly("rejected_steps", &SimulationSummary::rejected_steps, "dopri5: rejected trials")
      .def_readonly("split_steps", &SimulationSummary::split_steps, "fixed steps split at slack events or impacts")
      .def_readonly("wall_time_s", &SimulationSummary::wall_time_s, "wall-clock time of the run [s]")
      .def_readonly("observer_time_s", &SimulationSummary::observer_time_s,
                    "part of wall_time_s spent in the observer (writing outputs) [s]")
      .def_readonly("stopped_early", &SimulationSummary::stopped_early, "True when stop_on_abnormal ended the run")
      .def_readonly("final_state", &SimulationSummary::final_state, "State at the end")
      .def_readonly("final_length_m", &SimulationSummary::final_length_m, "(ncable) lengths at the end [m]")
      .def_readonly("final_strain", &SimulationSummary::final_strain, "(ncable) strains at the end (dimensionless)")
      .def_readonly("final_tension_N", &SimulationSummary::final_tension_N, "(ncable) tensions at the end [N]")
      .def("__repr__", [](const SimulationSummary& s) {
        return "SimulationSummary(final_time_s=" + float_repr(s.final_state.time_s) + ", steps=" + std::to_string(s.steps) +
               ", normal_mode=" + bool_repr(s.monitor.normal_mode) + ", stopped_early=" + bool_repr(s.stopped_early) + ")";
      });

  m.def("simulate", &run_simulate, py::arg("model"), py::arg("options") = SimulationOptions(), py::arg("initial") = py::none(),
        py::arg("record") = true, py::arg("controller") = py::none(), py::arg("control_period_s") = py::none(),
        "Run a simulation (GIL released). Returns a dict of NumPy arrays sampled every output_interval_s:\n"
        "time (N) [s], states (N x 13 nrod), node_positions (N x nnode x 3) [m], strains (N x ncable),\n"
        "tensions (N x ncable) [N], energies (N x 5: kinetic, elastic, gravitational, external, total) [J],\n"
        "com (N x 3) [m]; plus 'summary' (SimulationSummary) and 'summary_json' (the CLI's summary.json text).\n"
        "controller(t_s, state, data): optional Python callable that may set data.cable_rest_length_m (ncable) [m]\n"
        "(on a cable with a winch a changed value becomes the winch's target), data.winch_target_m (nwinch)\n"
        "and data.f_W_ext_node (nnode x 3) [N] in place. control_period_s (overrides options.control_period_s):\n"
        "0 or None with options at 0 = called at every evaluation of the dynamics (each integrator stage, a\n"
        "continuous law of (t, state); data then holds the state's kinematics, the other quantities are from the\n"
        "previous evaluation); > 0 = called every control_period_s [s] (dt_s: once per step) at step boundaries with data fully\n"
        "evaluated at the state, its inputs held until the next call (a sampled controller; it may not change a\n"
        "cable that has a drive). The GIL is held only during the call; an exception raised by the controller\n"
        "stops the run and propagates unchanged. Rest lengths are checked against the cables' limits.\n"
        "Raises tendyn.SimulationError (with .time) on blow-up, tendyn.Error on bad input.");
  m.def("validate", py::overload_cast<const SimulationOptions&>(&validate), py::arg("options"), "Check simulation options.");
}

}  // namespace tendyn::python::tensegrity_bind
