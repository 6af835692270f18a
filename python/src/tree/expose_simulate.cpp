// Bindings of include/tendyn/tree/simulate.hpp: torque schedules, the RK4 simulation driver and
// its result (read-only NumPy views into the result object). A Python torque callable runs with
// the GIL taken for its call only; its exceptions propagate out of simulate unchanged.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tree/simulate.hpp>

#include "tree/expose.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace tendyn::python::tree_bind {

namespace {

// A Python torque callable(t, q, v) -> tau (nv). Called from the simulation thread with the GIL
// released: takes the GIL for the call only. Exceptions propagate out of simulate unchanged.
struct PyTorque {
  const py::object* fn;
  const Model* model;
  void operator()(double t, const V& q, const V& v, V& tau) const {
    py::gil_scoped_acquire gil;
    py::object r = (*fn)(t, py::array_t<double>(q.size(), q.data()), py::array_t<double>(v.size(), v.data()));
    const std::string expected = "expected shape (" + std::to_string(model->nv) + ",) (nv of model '" + model->name + "')";
    if (r.is_none()) throw tendyn::Error("tree.simulate: the torque callback returned None, " + expected);
    DoubleArray a = DoubleArray::ensure(r);
    if (!a) throw tendyn::Error("tree.simulate: the torque callback returned a " + type_name(r) + ", " + expected);
    const bool scalar_ok = a.ndim() == 0 && model->nv == 1;
    if (!scalar_ok && (a.ndim() != 1 || a.shape(0) != model->nv))
      throw tendyn::Error("tree.simulate: the torque callback returned shape " + shape_str(a) + ", " + expected);
    std::copy(a.data(), a.data() + model->nv, tau.data());
  }
};

}  // namespace

void expose_simulate(py::module_& m) {
  py::class_<TorqueSchedule>(m, "TorqueSchedule",
                             "Piecewise-linear joint-torque table: rows (t [s], tau (nv) [N m | N]), strictly increasing t; "
                             "constant before the first and after the last row.")
      .def(py::init([](std::vector<double> t_s, const Eigen::MatrixXd& tau) {
             if (static_cast<Eigen::Index>(t_s.size()) != tau.rows())
               throw tendyn::Error("TorqueSchedule: t_s has " + std::to_string(t_s.size()) + " times but tau has " +
                                   std::to_string(tau.rows()) + " rows");
             std::vector<V> rows;
             for (Eigen::Index r = 0; r < tau.rows(); ++r) rows.emplace_back(tau.row(r).transpose());
             return TorqueSchedule(std::move(t_s), std::move(rows));
           }),
           py::kw_only(), py::arg("t_s"), py::arg("tau"),
           "TorqueSchedule(t_s=[...] (rows) [s], tau=(rows x nv) array [N m | N]); tendyn.Error if t_s does not increase.")
      .def_static("load_csv", &TorqueSchedule::load_csv, py::arg("file"), py::arg("nv"),
                  "Read a CSV schedule: optional header, rows t,tau_1..tau_nv (the format of `tendyn tree simulate --torque`).")
      .def(
          "eval",
          [](const TorqueSchedule& s, double t) {
            V out = V::Zero(s.width());
            s.eval(t, out);
            return out;
          },
          py::arg("t_s"), "tau(t) (nv) [N m | N], linear interpolation.")
      .def_property_readonly("t_s", &TorqueSchedule::times_s, "(rows) times [s].")
      .def_property_readonly(
          "tau",
          [](const TorqueSchedule& s) {
            Eigen::MatrixXd M(static_cast<Eigen::Index>(s.rows()), s.width());
            for (std::size_t r = 0; r < s.rows(); ++r) M.row(static_cast<Eigen::Index>(r)) = s.torques()[r].transpose();
            return M;
          },
          "(rows x nv) torques [N m | N].")
      .def("__len__", &TorqueSchedule::rows)
      .def("__repr__", [](const TorqueSchedule& s) {
        std::string r = "TorqueSchedule(rows=" + std::to_string(s.rows()) + ", nv=" + std::to_string(s.width());
        if (!s.empty()) r += ", t_s=[" + fmt(s.times_s().front()) + " .. " + fmt(s.times_s().back()) + "]";
        return r + ")";
      });

  py::class_<SimulationResult>(m, "SimulationResult", "Samples of tree.simulate, one row per output time (read-only NumPy arrays).")
      .def_readonly("t_s", &SimulationResult::t_s, "(n) sample times [s].")
      .def_readonly("q", &SimulationResult::q, "(n x nq) joint positions [rad | m; free joint: position [m], unit quaternion w,x,y,z].")
      .def_readonly("v", &SimulationResult::v,
                    "(n x nv) joint velocities [rad/s | m/s; free joint: body angular velocity [rad/s], velocity [m/s]].")
      .def_readonly("tau", &SimulationResult::tau, "(n x nv) joint torques at each sample, torque(t, q, v) [N m | N].")
      .def_readonly("energy_J", &SimulationResult::energy_J, "(n) kinetic + gravitational potential energy [J].")
      .def_readonly("steps", &SimulationResult::steps, "RK4 steps taken.")
      .def_readonly("dt_s", &SimulationResult::dt_s, "Step [s].")
      .def_readonly("output_stride", &SimulationResult::output_stride, "A sample every output_stride steps (and the last step).")
      .def("__len__", [](const SimulationResult& r) { return r.t_s.size(); })
      .def("__repr__", [](const SimulationResult& r) {
        return "SimulationResult(samples=" + std::to_string(r.t_s.size()) + ", steps=" + std::to_string(r.steps) + ", dt_s=" + fmt(r.dt_s) +
               ", t_end_s=" + fmt(r.t_s.size() ? r.t_s[r.t_s.size() - 1] : 0.0) + ", nq=" + std::to_string(r.q.cols()) +
               ", nv=" + std::to_string(r.v.cols()) + ")";
      });

  m.def(
      "simulate",
      [](const Model& model, const py::object& q0, const py::object& v0, double duration_s, double dt_s, const py::object& torque,
         double output_interval_s) {
        const V q = q0.is_none() ? model.neutral() : q_arg(q0, model, "q0");
        const V v = v0.is_none() ? V(V::Zero(model.nv)) : v_arg(v0, model, "v0");
        SimulationOptions o;
        o.duration_s = duration_s;
        o.dt_s = dt_s;
        o.output_interval_s = output_interval_s;
        TorqueFn fn;  // built and destroyed with the GIL held
        const TorqueSchedule* sched = nullptr;
        if (!torque.is_none()) {
          if (py::isinstance<TorqueSchedule>(torque)) {
            sched = &torque.cast<const TorqueSchedule&>();
            if (!sched->empty() && sched->width() != model.nv)
              throw tendyn::Error("tree.simulate: the torque schedule has " + std::to_string(sched->width()) + " torques per row, model '" +
                                  model.name + "' needs nv = " + std::to_string(model.nv));
            fn = [sched](double t, const V&, const V&, V& tau) { sched->eval(t, tau); };
          } else if (PyCallable_Check(torque.ptr())) {
            fn = PyTorque{&torque, &model};
          } else {
            throw py::type_error("tree.simulate: torque must be None, a TorqueSchedule or a callable(t, q, v) -> tau, got a " +
                                 type_name(torque));
          }
        }
        py::gil_scoped_release nogil;
        return simulate(model, o, q, v, fn);
      },
      py::arg("model"), py::arg("q0") = py::none(), py::arg("v0") = py::none(), py::kw_only(), py::arg("duration_s") = 1.0,
      py::arg("dt_s") = 1e-3, py::arg("torque") = py::none(), py::arg("output_interval_s") = 0.0,
      R"doc(Simulate the model with RK4 (ABA accelerations) and return a SimulationResult.

- q0: (nq) initial positions (default model.neutral(); free-joint quaternions are normalised),
  v0: (nv) initial velocities (default zero).
- duration_s [s] >= 0: round(duration_s / dt_s) steps of dt_s [s] > 0 (a positive duration shorter
  than dt_s / 2 is an error). output_interval_s [s]: <= 0 records every step, otherwise a whole
  multiple of dt_s. t = 0 and the final step are always recorded.
- torque: None (zero), a TorqueSchedule (nv torques per row), or a callable(t, q, v) -> tau
  returning nv numbers [N m | N]. The callable gets NumPy copies of q (nq) and v (nv); it is
  called at every RK4 stage (4 times per step) and once per sample, so it should depend only on
  its arguments. Its exceptions propagate; a wrong length raises tendyn.Error (a ValueError).
- The GIL is released while simulating (taken back only to call a Python torque callable).
Errors: tendyn.Error on bad options or shapes, tendyn.SimulationError (with .time) when the torque
or the state becomes non-finite.)doc");
}

}  // namespace tendyn::python::tree_bind
