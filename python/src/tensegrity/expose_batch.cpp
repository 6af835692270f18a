// Bindings of include/tendyn/tensegrity/batch.hpp: N robots of one model stepped side by side
// (policy search, sampling-based control). step_batch releases the GIL; results are copied out as
// NumPy arrays (robots first).
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/batch.hpp>

#include "tensegrity/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::tensegrity_bind {

namespace py = pybind11;

namespace {
// (N x size) matrix whose row r is get(robot r) (a vector of every robot's equal size).
template <class Get>
Eigen::MatrixXd per_robot_rows(const Batch& b, Get get) {
  const Eigen::Index size = b.states.empty() ? 0 : get(0).size();
  Eigen::MatrixXd out(b.size(), size);
  for (int r = 0; r < b.size(); ++r) out.row(r) = get(static_cast<std::size_t>(r)).transpose();
  return out;
}
}  // namespace

void expose_batch(py::module_& m) {
  py::class_<Batch>(m, "Batch",
                    "N robots of one model, each with its own State and Data (make_batch). Arrays are copies, "
                    "robots first.")
      .def_property_readonly("size", &Batch::size, "number of robots N")
      .def("nrunning", &Batch::nrunning, "Robots that have not failed.")
      .def_property_readonly(
          "x", [](const Batch& b) { return per_robot_rows(b, [&](std::size_t r) -> const Eigen::VectorXd& { return b.states[r].x; }); },
          "(N x nx) states: per rod p_WC [m], q_WB (w, x, y, z), v_WC [m/s], w_W [rad/s]; then 3 per winch")
      .def_property_readonly(
          "time_s",
          [](const Batch& b) {
            Eigen::VectorXd t(b.size());
            for (int r = 0; r < b.size(); ++r) t[r] = b.states[static_cast<std::size_t>(r)].time_s;
            return t;
          },
          "(N) each robot's time [s]")
      .def_property_readonly(
          "states", [](const Batch& b) { return b.states; },
          "(N) list of copies of the robots' States, as C++ Batch::states (state(r): one of them)")
      .def(
          "state",
          [](const Batch& b, int r) {
            if (r < 0 || r >= b.size()) throw py::index_error("robot " + std::to_string(r) + " out of range");
            return b.states[static_cast<std::size_t>(r)];
          },
          py::arg("r"), "A copy of robot r's State.")
      .def_property_readonly(
          "p_W_node",
          [](const Batch& b) {
            const Eigen::Index nn = b.datas.empty() ? 0 : b.datas[0].p_W_node.cols();
            py::array_t<double> out({static_cast<py::ssize_t>(b.size()), static_cast<py::ssize_t>(nn), py::ssize_t{3}});
            auto a = out.mutable_unchecked<3>();
            for (int r = 0; r < b.size(); ++r)
              for (Eigen::Index j = 0; j < nn; ++j)
                for (int c = 0; c < 3; ++c) a(r, j, c) = b.datas[static_cast<std::size_t>(r)].p_W_node(c, j);
            return out;
          },
          "(N x nnode x 3) node positions [m] at each robot's current state")
      .def_property_readonly(
          "cable_tension_N",
          [](const Batch& b) {
            return per_robot_rows(b, [&](std::size_t r) -> const Eigen::VectorXd& { return b.datas[r].cable_tension_N; });
          },
          "(N x ncable) cable tensions [N] at each robot's current state")
      .def_property_readonly(
          "cable_rest_length_m",
          [](const Batch& b) {
            return per_robot_rows(b, [&](std::size_t r) -> const Eigen::VectorXd& { return b.datas[r].cable_rest_length_m; });
          },
          "(N x ncable) current rest lengths [m]")
      .def_readonly("error", &Batch::error, "(N) '' while robot r runs, else its SimulationError text")
      .def_readonly("error_time_s", &Batch::error_time_s, "(N) time of the failure [s], nan while running")
      .def("__len__", &Batch::size)
      .def("__repr__",
           [](const Batch& b) { return "Batch(robots=" + std::to_string(b.size()) + ", running=" + std::to_string(b.nrunning()) + ")"; });
  m.def(
      "make_batch", [](const Model& model, int count, const State* initial) { return make_batch(model, count, initial); }, py::arg("model"),
      py::arg("count"), py::arg("initial") = nullptr,
      "`count` robots starting from `initial` (model.initial_state if None); tendyn.Error on a bad count or state.");
  m.def(
      "set_state",
      [](const Model& model, Batch& batch, int r, const State& state) {
        check_batch_arg(model, batch, "set_state");
        ExclusiveUse::check_free(&batch, "set_state");
        set_state(model, batch, r, state);
      },
      py::arg("model"), py::arg("batch"), py::arg("r"), py::arg("state"),
      "Gives robot r a new state and clears its error. tendyn.Error when the batch was made for another model, r is "
      "out of range or the state does not fit the model.");
  m.def(
      "set_rest_lengths",
      [](const Model& model, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& rest_length_m) {
        check_batch_arg(model, batch, "set_rest_lengths");
        ExclusiveUse::check_free(&batch, "set_rest_lengths");
        set_rest_lengths(model, batch, rest_length_m);
      },
      py::arg("model"), py::arg("batch"), py::arg("rest_length_m"),
      "Rest lengths of every cable of every robot from an (N x ncable) array [m] (a cable with a winch: its target; "
      "the motor moves the rest length toward it); tendyn.Error naming robot and "
      "cable for a value outside the cable's limits (nothing changed then), or when the batch was made for another model.");
  m.def(
      "command_rest_lengths",
      [](const std::vector<const Model*>& models, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& command_m) {
        ExclusiveUse::check_free(&batch, "command_rest_lengths");
        command_rest_lengths(models, batch, command_m);
      },
      py::arg("models"), py::arg("batch"), py::arg("command_m"),
      "Commands every cable of every robot from an (N x ncable) array [m], robot r with models[r] (a list of one "
      "Model per robot, same structure): the winch target on a motorised cable, else the rest length. tendyn.Error "
      "naming robot and cable for a value outside the limits (nothing changed then).");
  m.def(
      "set_external_forces",
      [](const std::vector<const Model*>& models, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& f_W_ext_N) {
        ExclusiveUse::check_free(&batch, "set_external_forces");
        set_external_forces(models, batch, f_W_ext_N);
      },
      py::arg("models"), py::arg("batch"), py::arg("f_W_ext_N"),
      "External node forces of every robot from an (N x 3 nnode) array [N] (row r: f of node 0, node 1, ...); "
      "they replace the models' constant forces until set again. tendyn.Error naming the robot for non-finite values.");
  py::class_<BatchStepOptions> o(m, "BatchStepOptions", "Options of step_batch.");
  o.def_readwrite("h_s", &BatchStepOptions::h_s, "fixed step [s], > 0")
      .def_readwrite("nstep", &BatchStepOptions::nstep, "steps per call, >= 1")
      .def_readwrite("step", &BatchStepOptions::step, "StepOptions: integrator rk4 or lie-verlet, slack events")
      .def_readwrite("threads", &BatchStepOptions::threads, "0 = all hardware threads; results do not depend on it");
  def_kw_init(o);
  m.def(
      "step_batch",
      [](const Model& model, Batch& batch, const BatchStepOptions& options) {
        check_batch_arg(model, batch, "step_batch");
        const ExclusiveUse in_use({&batch}, "step_batch");  // destroyed after the GIL is back
        py::gil_scoped_release release;
        return step_batch(model, batch, options);
      },
      py::arg("model"), py::arg("batch"), py::arg("options") = BatchStepOptions(),
      "Advances every running robot by options.nstep steps (GIL released); returns the number of robots that "
      "failed in this call (see Batch.error). Each robot equals stepping it alone with step(), for any thread count.\n"
      "tendyn.Error when the batch was made for another model (make_batch(model, ...)); RuntimeError when another "
      "thread is stepping the same batch at that moment (one batch per thread).");
  m.def(
      "step_batch_models",
      [](const std::vector<const Model*>& models, Batch& batch, const BatchStepOptions& options) {
        check_batch_models(models, batch, "step_batch_models(models)");
        const ExclusiveUse in_use({&batch}, "step_batch_models");
        py::gil_scoped_release release;
        return step_batch(models, batch, options);
      },
      py::arg("models"), py::arg("batch"), py::arg("options") = BatchStepOptions(),
      "step_batch with robot r stepped by models[r] (a list of one Model per robot, all of the structure the batch "
      "was made for; parameters may differ: domain randomisation). GIL released; results do not depend on the "
      "thread count. tendyn.Error naming the robot whose model differs in structure or when the count differs.");
}

}  // namespace tendyn::python::tensegrity_bind
