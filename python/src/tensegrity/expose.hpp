// The tensegrity binding files, one per public header include/tendyn/tensegrity/<header>.hpp
// (python/src/tensegrity/expose_<header>.cpp). module.cpp calls them in this order, each after
// the ones whose types its signatures name (Model and State first, Data before simulate,
// SimulationOptions before model files and the studies). The helpers of bind_util.hpp
// (tendyn::python) and the names of tendyn::tensegrity are visible in this namespace.
#pragma once
#include <pybind11/pybind11.h>

#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/batch.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model.hpp>

#include "bind_util.hpp"

#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace tendyn::python::tensegrity_bind {

using namespace tendyn::tensegrity;  // the binding files name the bound types as C++ does

// ---- argument checks shared by the binding files
// The C++ kernels trust their arguments (sizes are a precondition, checked once per run); from
// Python every call gets a state, a data or a batch that may belong to another model, so each
// function checks them first and raises tendyn.Error (a ValueError) naming the function and the
// argument instead of reading out of bounds. O(1) per state and data (O(N) for a batch).

/// "13 * nrod = N" (or "13 * nrod + 3 * nwinch = N" for a model with winches): a state's size in messages.
inline std::string state_size_text(const Model& model) {
  return (model.winches.empty() ? "13 * nrod = " : "13 * nrod + 3 * nwinch = ") + std::to_string(model.nx());
}

/// `state` must have 13 * nrod (+ 3 * nwinch) entries: tendyn::Error "<fn>(<arg>): the state has N entries, the
/// model needs 13 * nrod = M" otherwise.
inline void check_state_arg(const Model& model, const State& state, const char* fn, const char* arg = "state") {
  check_state_size(model, state, std::string(fn) + "(" + arg + ")");
}

/// True when `data` has the sizes make_data(model) gives (rods, nodes, cables).
inline bool data_fits(const Model& model, const Data& data) {
  const Eigen::Index nr = model.nrod(), nn = model.nnode(), nc = model.ncable();
  return data.e_W_rod.cols() == nr && data.f_W_rod.cols() == nr && data.tau_W_rod.cols() == nr && data.xdot.size() == model.nx() &&
         data.p_W_node.cols() == nn && data.v_W_node.cols() == nn && data.f_W_node.cols() == nn &&
         static_cast<Eigen::Index>(data.f_W_ext_node.size()) == nn && data.cable_rest_length_m.size() == nc &&
         data.cable_length_m.size() == nc && data.cable_rate_mps.size() == nc && data.cable_tension_N.size() == nc &&
         static_cast<Eigen::Index>(data.cable_slack.size()) == nc && data.cable_work.rows() == nc;
}

/// `data` must be made for the model (make_data(model)): tendyn::Error "<fn>(<arg>): the data was made
/// for another model (...)" otherwise.
inline void check_data_arg(const Model& model, const Data& data, const char* fn, const char* arg = "data") {
  if (data_fits(model, data)) return;
  throw tendyn::Error(std::string(fn) + "(" + arg + "): the data was made for another model (it has " +
                      std::to_string(data.e_W_rod.cols()) + " rods, " + std::to_string(data.p_W_node.cols()) + " nodes, " +
                      std::to_string(data.cable_rest_length_m.size()) + " cables; the model has " + std::to_string(model.nrod()) + ", " +
                      std::to_string(model.nnode()) + ", " + std::to_string(model.ncable()) + "): use make_data(model)");
}

/// Every robot of `batch` must fit the model (states of 13 * nrod entries, datas made for it, as
/// make_batch(model) gives): tendyn::Error naming `fn`, the argument and the first robot otherwise.
inline void check_batch_arg(const Model& model, const Batch& batch, const char* fn, const char* arg = "batch") {
  const std::string where = std::string(fn) + "(" + arg + ")";
  const std::size_t n = batch.states.size();
  if (batch.datas.size() != n || batch.error.size() != n || batch.error_time_s.size() != n)
    throw tendyn::Error(where + ": states, datas and errors differ in count (make the batch with make_batch)");
  for (std::size_t r = 0; r < n; ++r) {
    if (batch.states[r].x.size() != model.nx() || !data_fits(model, batch.datas[r]))
      throw tendyn::Error(where + ": the batch was made for another model (robot " + std::to_string(r) + " has a state of " +
                          std::to_string(batch.states[r].x.size()) + " entries, the model needs " + state_size_text(model) +
                          ", or data of other sizes): use make_batch(model, ...)");
  }
}

/// Objects a call changes with the GIL released (step's data and state, step_batch's batch): a
/// second thread that passes one of them while the first call runs would race with it (steps lost,
/// a torn state), so it raises RuntimeError instead. Construct before releasing the GIL and let it
/// be destroyed after re-acquiring it (declare it first): the registry is only touched under the GIL.
class ExclusiveUse {
 public:
  ExclusiveUse(std::initializer_list<const void*> objects, const char* fn) {
    for (const void* p : objects)
      for (const void* q : in_use())
        if (p == q)
          throw std::runtime_error(std::string(fn) +
                                   ": this data, state or batch is being stepped by another thread right now; "
                                   "give each thread its own (make_data(model), state.copy(), make_batch(model, ...))");
    for (const void* p : objects) in_use().push_back(p);
    objects_.assign(objects.begin(), objects.end());
  }
  ~ExclusiveUse() {
    auto& v = in_use();
    for (const void* p : objects_)
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v[i] == p) {
          v[i] = v.back();
          v.pop_back();
          break;
        }
  }
  ExclusiveUse(const ExclusiveUse&) = delete;
  ExclusiveUse& operator=(const ExclusiveUse&) = delete;

  /// RuntimeError when `p` is being stepped now (for calls that read or write it under the GIL).
  static void check_free(const void* p, const char* fn) {
    for (const void* q : in_use())
      if (p == q) throw std::runtime_error(std::string(fn) + ": this data, state or batch is being stepped by another thread right now");
  }

 private:
  static std::vector<const void*>& in_use() {
    static std::vector<const void*> v;  // touched only under the GIL
    return v;
  }
  std::vector<const void*> objects_;
};

void expose_model(pybind11::module_& m);            // model.hpp: DampingLaw, Rod, Node, Cable, drives, State, Ground, Model
void expose_builders(pybind11::module_& m);         // builders.hpp: PrismParams, OctahedronParams, make_*
void expose_integrate(pybind11::module_& m);        // integrate.hpp: Integrator, Tolerance
void expose_dynamics(pybind11::module_& m);         // dynamics.hpp: Energy, Data, the pipeline, energies, momenta
void expose_simulate(pybind11::module_& m);         // simulate.hpp: SimulationOptions, step, simulate, summaries
void expose_output(pybind11::module_& m);           // output.hpp: summary_json
void expose_model_io(pybind11::module_& m);         // model_io.hpp: ModelFile, load_*, default_model, to_yaml
void expose_lagrange(pybind11::module_& m);         // lagrange.hpp: the Lagrange formulation
void expose_psi_study(pybind11::module_& m);        // psi_study.hpp: the psi study
void expose_planner(pybind11::module_& m);          // planner.hpp: PlanPath, PlannerOptions, PlanResult, plan, planning policies
void expose_sweep(pybind11::module_& m);            // sweep.hpp: sweep specs, grid, point metrics, run_sweep
void expose_output_estimate(pybind11::module_& m);  // output_estimate.hpp: OutputEstimate, estimate_*_output
void expose_form_finding(pybind11::module_& m);     // form_finding.hpp: find_equilibrium, settle_on_ground
void expose_batch(pybind11::module_& m);            // batch.hpp: Batch, make_batch, set_state, set_rest_lengths, step_batch
void expose_identify(pybind11::module_& m);         // identify.hpp: MotionData, fit specs, IdentifyOptions/Result, identify
void expose_derivatives(pybind11::module_& m);      // derivatives.hpp: step_derivatives, rollout_derivatives, rollout_grad

}  // namespace tendyn::python::tensegrity_bind
