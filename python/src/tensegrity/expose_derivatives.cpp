// Bindings of include/tendyn/tensegrity/derivatives.hpp: exact step Jacobians and rollout
// gradients as NumPy arrays (python/tendyn/torch.py builds its autograd function on them). Every
// computation releases the GIL.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/tensegrity/derivatives.hpp>

#include "tensegrity/expose.hpp"

#include <string>
#include <vector>

namespace tendyn::python::tensegrity_bind {

namespace {

// A state argument: a State or a 1-D array of model.nx() entries.
State state_arg(const Model& m, py::handle x, const char* fn, const char* arg) {
  if (py::isinstance<State>(x)) {
    State s = x.cast<State>();
    check_state_arg(m, s, fn, arg);
    return s;
  }
  const auto a = py::array_t<double, py::array::forcecast>::ensure(x);
  if (!a) throw py::type_error(std::string(fn) + "(" + arg + "): expected a State or an array of " + state_size_text(m) + " floats");
  State s;
  assign_vector(s.x, a, std::string(fn) + "(" + arg + ")", m.nx(), state_size_text(m));
  return s;
}

// Rest lengths of one step: None (the model's), a Data (its current rest lengths), or a 1-D array of ncable entries.
Eigen::VectorXd controls_arg(const Model& m, py::handle u, const char* fn) {
  Eigen::VectorXd v(m.ncable());
  if (u.is_none()) {
    for (int k = 0; k < m.ncable(); ++k) v[k] = m.cables[static_cast<std::size_t>(k)].rest_length_m;
    return v;
  }
  if (py::isinstance<Data>(u)) {  // the rest lengths a Data holds (what a controller or set_rest_lengths wrote)
    const Data& d = u.cast<const Data&>();
    check_data_arg(m, d, fn, "controls");
    return d.cable_rest_length_m;
  }
  const auto a = py::array_t<double, py::array::forcecast>::ensure(u);
  if (!a) throw py::type_error(std::string(fn) + "(controls): expected an array of ncable rest lengths [m], a Data or None");
  assign_vector(v, a, std::string(fn) + "(controls)", m.ncable(), "one rest length per cable [m]");
  return v;
}

// Rest lengths of N steps: an (N, ncable) array.
Eigen::MatrixXd controls_matrix_arg(const Model& m, py::handle u, const char* fn) {
  const auto a = py::array_t<double, py::array::forcecast>::ensure(u);
  if (!a) throw py::type_error(std::string(fn) + "(controls): expected an (N, ncable) array of rest lengths [m]");
  if (a.ndim() != 2 || a.shape(1) != m.ncable() || a.shape(0) < 1)
    throw py::value_error(std::string(fn) + "(controls): expected shape (N, " + std::to_string(m.ncable()) +
                          ") with N >= 1 (one row of rest lengths [m] per step), got " + shape_str(a));
  const auto r = a.unchecked<2>();
  Eigen::MatrixXd U(a.shape(0), a.shape(1));
  for (py::ssize_t i = 0; i < a.shape(0); ++i)
    for (py::ssize_t j = 0; j < a.shape(1); ++j) U(i, j) = r(i, j);
  return U;
}

// Parameters: None, a --fit style spec string ("stiffness:all,mass:rod1") or ParameterGroups.
std::vector<ParameterGroup> params_arg(const Model& m, py::handle p) {
  if (p.is_none()) return {};
  if (py::isinstance<py::str>(p)) {
    const std::string spec = p.cast<std::string>();
    return spec.empty() ? std::vector<ParameterGroup>{} : parse_fit_spec(m, spec);
  }
  return p.cast<std::vector<ParameterGroup>>();
}

// (N, rows, cols) array of N matrices.
py::array_t<double> stack(const std::vector<Eigen::MatrixXd>& v, Eigen::Index rows, Eigen::Index cols) {
  py::array_t<double> out({static_cast<py::ssize_t>(v.size()), static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(cols)});
  auto w = out.mutable_unchecked<3>();
  for (std::size_t k = 0; k < v.size(); ++k)
    for (Eigen::Index i = 0; i < rows; ++i)
      for (Eigen::Index j = 0; j < cols; ++j) w(static_cast<py::ssize_t>(k), i, j) = v[k](i, j);
  return out;
}

}  // namespace

void expose_derivatives(py::module_& m) {
  py::class_<StepDerivatives>(m, "StepDerivatives",
                              "One RK4 step and its exact Jacobians (nx = 13 nrod, nu = ncable, np = number of parameters).")
      .def_readonly("x_next", &StepDerivatives::x_next, "(nx,) the state after the step")
      .def_readonly("A", &StepDerivatives::A, "(nx, nx) d x_next / d state")
      .def_readonly("B", &StepDerivatives::B, "(nx, nu) d x_next / d controls (the cables' rest lengths [m])")
      .def_readonly("P", &StepDerivatives::P, "(nx, np) d x_next / d parameters, in the order given")
      .def_readonly("slack_crossing", &StepDerivatives::slack_crossing,
                    "a tension-only cable went slack or taut in the step (step() would have split it; one-sided derivative)");

  py::class_<RolloutLoss> rl(m, "RolloutLoss",
                             "L = target_weight |p(x_N) - target|^2 + running_target_weight sum_k=1..N |p(x_k) - target|^2\n"
                             "  + control_weight sum_k |u_k - control_reference|^2; p: node target_node's position, or the\n"
                             "centre of mass for target_node = -1.");
  rl.def_readwrite("target_node", &RolloutLoss::target_node, "node index (a rod end), -1: the centre of mass")
      .def_readwrite("target_m", &RolloutLoss::target_m, "(3,) target position [m]")
      .def_readwrite("target_weight", &RolloutLoss::target_weight, "weight of the final-state term [1/m^2]")
      .def_readwrite("running_target_weight", &RolloutLoss::running_target_weight, "weight of the per-step target term [1/m^2]")
      .def_readwrite("control_weight", &RolloutLoss::control_weight, "weight of the quadratic on the controls [1/m^2]")
      .def_readwrite("control_reference_m", &RolloutLoss::control_reference_m,
                     "(ncable,) reference rest lengths [m]; empty: the model's rest lengths");
  def_kw_init(rl);

  py::class_<RolloutGradient>(m, "RolloutGradient", "A rollout's loss and its gradients.")
      .def_readonly("loss", &RolloutGradient::loss, "the loss value")
      .def_readonly("dL_dcontrols", &RolloutGradient::dL_dcontrols, "(N, ncable)")
      .def_readonly("dL_dstate0", &RolloutGradient::dL_dstate0, "(nx,)")
      .def_readonly("dL_dparameters", &RolloutGradient::dL_dparameters, "(np,)")
      .def_readonly("states", &RolloutGradient::states, "(N + 1, nx) the rollout, row 0 the start");

  m.def(
      "step_derivatives",
      [](const Model& mo, py::handle state, py::handle controls, double dt_s, py::handle params) {
        const State s = state_arg(mo, state, "step_derivatives", "state");
        const Eigen::VectorXd u = controls_arg(mo, controls, "step_derivatives");
        const std::vector<ParameterGroup> g = params_arg(mo, params);
        py::gil_scoped_release release;
        return step_derivatives(mo, s, u, dt_s, g);
      },
      py::arg("model"), py::arg("state"), py::arg("controls"), py::arg("dt_s"), py::arg("params") = py::none(),
      "One RK4 step of dt_s [s] (the step step() takes, never split at slack events) from `state` (a State or an\n"
      "(nx,) array, nx = 13 nrod) with the cables' rest lengths `controls` ((ncable,) [m]; a Data: its\n"
      "cable_rest_length_m; None: the model's), and\n"
      "its exact Jacobians (forward-mode dual numbers through the same laws): StepDerivatives with x_next (nx,),\n"
      "A (nx, nx), B (nx, ncable), P (nx, np). params: None, a spec like 'stiffness:all,damping:c1,mass:rod1,\n"
      "friction,ground_stiffness,ground_damping' (parse_fit_spec) or a list of ParameterGroup; the derivative for a\n"
      "group is that of adding the same amount to each of its elements.\n"
      "Models: ideal rods, no drives, ground none or compliant (the impulse ground is not differentiable: tendyn.Error\n"
      "pointing to the compliant ground). Wrong shapes: ValueError naming the argument. Releases the GIL.");
  m.def(
      "step_value",
      [](const Model& mo, py::handle state, py::handle controls, double dt_s) {
        const State s = state_arg(mo, state, "step_value", "state");
        const Eigen::VectorXd u = controls_arg(mo, controls, "step_value");
        py::gil_scoped_release release;
        return step_value(mo, s, u, dt_s);
      },
      py::arg("model"), py::arg("state"), py::arg("controls"), py::arg("dt_s"),
      "The (nx,) state after the step of step_derivatives, without derivatives. Releases the GIL.");
  m.def(
      "parameter_values", [](const Model& mo, py::handle params) { return parameter_values(mo, params_arg(mo, params)); }, py::arg("model"),
      py::arg("params"), "(np,) the model's value of each parameter group (the mean over its elements).");
  m.def(
      "set_parameter_values",
      [](Model& mo, py::handle params, const Eigen::VectorXd& values) { set_parameter_values(mo, params_arg(mo, params), values); },
      py::arg("model"), py::arg("params"), py::arg("values"),
      "Sets every element of each parameter group to its value in `values` ((np,); mass scales the rod's inertia).");
  m.def(
      "rollout_derivatives",
      [](const Model& model, py::handle state0, py::handle controls, double dt_s, py::handle params, py::handle param_values) {
        const State s = state_arg(model, state0, "rollout_derivatives", "state0");
        const Eigen::MatrixXd U = controls_matrix_arg(model, controls, "rollout_derivatives");
        const std::vector<ParameterGroup> g = params_arg(model, params);
        Model copy;
        const Model* mp = &model;
        if (!param_values.is_none()) {
          Eigen::VectorXd v;
          const auto pv = py::array_t<double, py::array::forcecast>::ensure(param_values);
          if (!pv) throw py::type_error("rollout_derivatives(param_values): expected an array of one float per parameter group");
          assign_vector(v, pv, "rollout_derivatives(param_values)", static_cast<Eigen::Index>(g.size()), "one value per parameter group");
          copy = model;
          set_parameter_values(copy, g, v);
          mp = &copy;
        }
        const Model& mo = *mp;
        RolloutDerivatives r;
        {
          py::gil_scoped_release release;
          r = rollout_derivatives(mo, s, U, dt_s, g);
        }
        const Eigen::Index nx = mo.nx();
        py::dict d;
        d["states"] = r.states;
        d["A"] = stack(r.A, nx, nx);
        d["B"] = stack(r.B, nx, mo.ncable());
        d["P"] = stack(r.P, nx, static_cast<Eigen::Index>(g.size()));
        d["slack_crossings"] = r.slack_crossings;
        return d;
      },
      py::arg("model"), py::arg("state0"), py::arg("controls"), py::arg("dt_s"), py::arg("params") = py::none(),
      py::arg("param_values") = py::none(),
      "Rolls out controls ((N, ncable) rest lengths [m], one row per step) from state0 and keeps every step's\n"
      "Jacobians: a dict with states (N + 1, nx) (row 0 = state0), A (N, nx, nx), B (N, nx, ncable), P (N, nx, np),\n"
      "slack_crossings (steps where a cable went slack or taut). param_values ((np,), optional): run a copy of the\n"
      "model with these parameter values (set_parameter_values); the model itself is not changed. Memory O(N nx^2).\n"
      "Releases the GIL.");
  m.def(
      "backpropagate",
      [](const py::array_t<double, py::array::forcecast>& A, const py::array_t<double, py::array::forcecast>& B,
         const py::array_t<double, py::array::forcecast>& P, const py::array_t<double, py::array::forcecast>& G, py::handle H) {
        if (A.ndim() != 3 || A.shape(1) != A.shape(2))
          throw py::value_error("backpropagate(A): expected shape (N, nx, nx), got " + shape_str(A));
        const py::ssize_t N = A.shape(0), nx = A.shape(1);
        if (B.ndim() != 3 || B.shape(0) != N || B.shape(1) != nx)
          throw py::value_error("backpropagate(B): expected shape (" + std::to_string(N) + ", " + std::to_string(nx) + ", nu), got " +
                                shape_str(B));
        if (P.ndim() != 3 || P.shape(0) != N || P.shape(1) != nx)
          throw py::value_error("backpropagate(P): expected shape (" + std::to_string(N) + ", " + std::to_string(nx) + ", np), got " +
                                shape_str(P));
        if (G.ndim() != 2 || G.shape(0) != N + 1 || G.shape(1) != nx)
          throw py::value_error("backpropagate(dL_dstates): expected shape (" + std::to_string(N + 1) + ", " + std::to_string(nx) +
                                "), got " + shape_str(G));
        RolloutDerivatives r;
        auto unstack = [](const py::array_t<double, py::array::forcecast>& a, std::vector<Eigen::MatrixXd>& out) {
          const auto v = a.unchecked<3>();
          out.resize(static_cast<std::size_t>(a.shape(0)));
          for (py::ssize_t k = 0; k < a.shape(0); ++k) {
            out[static_cast<std::size_t>(k)].resize(a.shape(1), a.shape(2));
            for (py::ssize_t i = 0; i < a.shape(1); ++i)
              for (py::ssize_t j = 0; j < a.shape(2); ++j) out[static_cast<std::size_t>(k)](i, j) = v(k, i, j);
          }
        };
        unstack(A, r.A);
        unstack(B, r.B);
        unstack(P, r.P);
        r.states.setZero(N + 1, nx);
        Eigen::MatrixXd g(N + 1, nx), h;
        const auto gv = G.unchecked<2>();
        for (py::ssize_t i = 0; i <= N; ++i)
          for (py::ssize_t j = 0; j < nx; ++j) g(i, j) = gv(i, j);
        if (!H.is_none()) {
          const auto ha = py::array_t<double, py::array::forcecast>::ensure(H);
          if (!ha || ha.ndim() != 2 || ha.shape(0) != N || ha.shape(1) != B.shape(2))
            throw py::value_error("backpropagate(dL_dcontrols): expected shape (" + std::to_string(N) + ", " + std::to_string(B.shape(2)) +
                                  ")");
          const auto hv = ha.unchecked<2>();
          h.resize(N, B.shape(2));
          for (py::ssize_t i = 0; i < N; ++i)
            for (py::ssize_t j = 0; j < B.shape(2); ++j) h(i, j) = hv(i, j);
        }
        RolloutGradient out;
        {
          py::gil_scoped_release release;
          out = backpropagate(r, g, h);
        }
        py::dict d;
        d["dL_dcontrols"] = out.dL_dcontrols;
        d["dL_dstate0"] = out.dL_dstate0;
        d["dL_dparameters"] = out.dL_dparameters;
        return d;
      },
      py::arg("A"), py::arg("B"), py::arg("P"), py::arg("dL_dstates"), py::arg("dL_dcontrols") = py::none(),
      "Reverse accumulation through a rollout's stored Jacobians (rollout_derivatives' A (N, nx, nx), B (N, nx, nu),\n"
      "P (N, nx, np)): given dL/dx_k for every state ((N + 1, nx), row 0 the start) and optionally the loss's direct\n"
      "dependence on the controls ((N, nu)), returns a dict with dL_dcontrols (N, nu), dL_dstate0 (nx,),\n"
      "dL_dparameters (np,). Cost O(N nx^2). Releases the GIL.");
  m.def(
      "rollout_grad",
      [](const Model& mo, py::handle state0, py::handle controls, double dt_s, const RolloutLoss& loss, py::handle params) {
        const State s = state_arg(mo, state0, "rollout_grad", "state0");
        const Eigen::MatrixXd U = controls_matrix_arg(mo, controls, "rollout_grad");
        const std::vector<ParameterGroup> g = params_arg(mo, params);
        py::gil_scoped_release release;
        return rollout_grad(mo, s, U, dt_s, loss, g);
      },
      py::arg("model"), py::arg("state0"), py::arg("controls"), py::arg("dt_s"), py::arg("loss"), py::arg("params") = py::none(),
      "The loss (RolloutLoss) of rolling out controls ((N, ncable) rest lengths [m]) from state0 (State or (nx,)) and\n"
      "its gradients by reverse accumulation over the per-step Jacobians (cost O(N nx^2)): RolloutGradient with loss,\n"
      "dL_dcontrols (N, ncable), dL_dstate0 (nx,), dL_dparameters (np,), states (N + 1, nx). Releases the GIL.");
}

}  // namespace tendyn::python::tensegrity_bind
