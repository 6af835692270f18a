#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/core/worker_pool.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/batch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A number in a message: %g-style, 6 significant digits ("1e+300", not 301 digits).

void check_fits(const Model& model, const State& state, const std::string& what) {
  check_state_size(model, state, what);
  if (!state.x.allFinite() || !std::isfinite(state.time_s)) throw Error(what + ": the state is not finite");
}

void check_robot(const Batch& batch, int r) {
  if (r < 0 || r >= batch.size())
    throw Error("batch: robot " + std::to_string(r) + " out of range (the batch has " + std::to_string(batch.size()) + " robots)");
}

// f(state) into data, or the failure into the robot's error.
void refresh(const Model& model, Batch& batch, int r) {
  const auto i = static_cast<std::size_t>(r);
  try {
    prepare_step(model, batch.states[i], batch.datas[i]);
  } catch (const SimulationError& e) {
    batch.error[i] = e.what();
    batch.error_time_s[i] = e.time();
  }
}

// The shape check of a per-robot array: (robots x cols), named `what` with its column unit.
void check_rows(const Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& m, Eigen::Index cols, const char* what, const char* unit) {
  if (m.rows() != batch.size() || m.cols() != cols)
    throw Error(std::string("batch: ") + what + " must be (robots x " + unit + ") = (" + std::to_string(batch.size()) + " x " +
                std::to_string(cols) + "), got (" + std::to_string(m.rows()) + " x " + std::to_string(m.cols()) + ")");
}

// Commands every robot's cables (a winch cable: its target; command_rest_length) after checking
// every value against the cable's limits (nothing changes when one is outside). model_of(r): robot
// r's model; `what` names the values in the message.
template <class ModelOf>
void command_within_limits(ModelOf model_of, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& l0_m, const char* what) {
  for (int r = 0; r < batch.size(); ++r) {
    const Model& model = model_of(static_cast<std::size_t>(r));
    for (int k = 0; k < model.ncable(); ++k) {
      const Cable& c = model.cables[static_cast<std::size_t>(k)];
      const double l0 = l0_m(r, k);
      if (!(l0 >= c.rest_length_min_m && l0 <= c.rest_length_max_m))
        throw Error("batch: robot " + std::to_string(r) + ", cable '" + model.cable_ids[static_cast<std::size_t>(k)] + "': " + what + " " +
                    format_number(l0, 6) + " m is outside its limits [" + format_number(c.rest_length_min_m, 6) + ", " +
                    format_number(c.rest_length_max_m, 6) + "] m");
    }
  }
  for (int r = 0; r < batch.size(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    const Model& model = model_of(i);
    for (int k = 0; k < model.ncable(); ++k) command_rest_length(batch.datas[i], k, l0_m(r, k));  // a winch: its target
    if (batch.error[i].empty()) refresh(model, batch, r);
  }
}

}  // namespace

int Batch::nrunning() const {
  int n = 0;
  for (const auto& e : error) n += e.empty() ? 1 : 0;
  return n;
}

Batch make_batch(const Model& model, int count, const State* initial) {
  if (count < 1) throw Error("batch: the robot count must be >= 1 (got " + std::to_string(count) + ")");
  const State& s0 = initial ? *initial : model.initial_state;
  check_fits(model, s0, "batch: initial state");
  Batch b;
  const auto n = static_cast<std::size_t>(count);
  b.states.assign(n, s0);
  b.datas.reserve(n);
  for (std::size_t r = 0; r < n; ++r) b.datas.push_back(make_data(model));
  b.error.assign(n, std::string());
  b.error_time_s.assign(n, kNaN);
  for (int r = 0; r < count; ++r) refresh(model, b, r);
  return b;
}

void set_state(const Model& model, Batch& batch, int r, const State& state) {
  check_robot(batch, r);
  check_fits(model, state, "batch: robot " + std::to_string(r));
  const auto i = static_cast<std::size_t>(r);
  batch.states[i] = state;
  batch.error[i].clear();
  batch.error_time_s[i] = kNaN;
  refresh(model, batch, r);
}

void set_rest_lengths(const Model& model, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& rest_length_m) {
  check_rows(batch, rest_length_m, model.ncable(), "rest lengths", "ncable");
  command_within_limits([&](std::size_t) -> const Model& { return model; }, batch, rest_length_m, "rest length");
}

namespace {

void check_options(const Batch& batch, const BatchStepOptions& options) {
  if (!(options.h_s > 0.0) || !std::isfinite(options.h_s))
    throw Error("batch: the step h must be > 0 s and finite (got " + format_number(options.h_s, 6) + ")");
  if (options.nstep < 1) throw Error("batch: nstep must be >= 1 (got " + std::to_string(options.nstep) + ")");
  if (options.step.integrator == Integrator::kDormandPrince45)
    throw Error("batch: dopri5 is not available (adaptive steps would take the robots to different times); use rk4 or lie-verlet");
  if (batch.datas.size() != batch.states.size() || batch.error.size() != batch.states.size() ||
      batch.error_time_s.size() != batch.states.size())
    throw Error("batch: states, datas and errors differ in count (make the batch with make_batch)");
}

// Advances every running robot, robot r with model_of(r).
template <class ModelOf>
int step_robots(ModelOf model_of, Batch& batch, const BatchStepOptions& options) {
  std::vector<char> failed(batch.states.size(), 0);
  // Persistent workers (no thread start per call) and contiguous shares of robots per thread,
  // balanced robot by robot at the ends (core/worker_pool.hpp): neighbouring robots' heap blocks
  // share cache lines, so they stay on one thread, and a thread on a slowed core does fewer
  // robots. The results do not depend on the threads.
  parallel_for_balanced(WorkerPool::shared(), batch.size(), options.threads, [&](int r) {
    const auto i = static_cast<std::size_t>(r);
    if (!batch.error[i].empty()) return;
    const Model& model = model_of(i);
    State& s = batch.states[i];
    Data& d = batch.datas[i];
    const double t0 = s.time_s;
    try {
      for (int k = 0; k < options.nstep; ++k) step(model, d, s, options.h_s, options.step, t0 + (k + 1) * options.h_s);
    } catch (const SimulationError& e) {
      batch.error[i] = e.what();
      batch.error_time_s[i] = e.time();
      failed[i] = 1;
    }
  });
  int nfailed = 0;
  for (char f : failed) nfailed += f;
  return nfailed;
}

// Same element counts, element nodes, node kinds, winch and force actuator cables (what make_data records).
std::string structure_difference(const Model& a, const Model& b) {
  if (a.nrod() != b.nrod() || a.nnode() != b.nnode() || a.ncable() != b.ncable() || a.nwinch() != b.nwinch())
    return "it has " + std::to_string(b.nrod()) + " rods, " + std::to_string(b.nnode()) + " nodes, " + std::to_string(b.ncable()) +
           " cables, " + std::to_string(b.nwinch()) + " winches; robot 0's has " + std::to_string(a.nrod()) + ", " +
           std::to_string(a.nnode()) + ", " + std::to_string(a.ncable()) + ", " + std::to_string(a.nwinch());
  for (std::size_t k = 0; k < a.cables.size(); ++k)
    if (a.cables[k].node[0] != b.cables[k].node[0] || a.cables[k].node[1] != b.cables[k].node[1])
      return "cable " + std::to_string(k) + " joins other nodes";
  for (std::size_t j = 0; j < a.rods.size(); ++j)
    if (a.rods[j].node[0] != b.rods[j].node[0] || a.rods[j].node[1] != b.rods[j].node[1])
      return "rod " + std::to_string(j) + " has other end nodes";
  for (std::size_t i = 0; i < a.nodes.size(); ++i)
    if (a.nodes[i].rod != b.nodes[i].rod || a.nodes[i].end != b.nodes[i].end) return "node " + std::to_string(i) + " is of another kind";
  for (std::size_t w = 0; w < a.winches.size(); ++w)
    if (a.winches[w].cable != b.winches[w].cable) return "winch " + std::to_string(w) + " is on another cable";
  if (a.nactuator() != b.nactuator())
    return "it has " + std::to_string(b.nactuator()) + " force actuators; robot 0's has " + std::to_string(a.nactuator());
  for (std::size_t k = 0; k < a.force_actuators.size(); ++k)
    if (a.force_actuators[k].cable != b.force_actuators[k].cable) return "force actuator " + std::to_string(k) + " is on another cable";
  if (a.has_body_geometry() != b.has_body_geometry()) return "one has body geometry, the other not";
  return {};
}

}  // namespace

int step_batch(const Model& model, Batch& batch, const BatchStepOptions& options) {
  check_options(batch, options);
  return step_robots([&](std::size_t) -> const Model& { return model; }, batch, options);
}

void check_batch_models(const std::vector<const Model*>& models, const Batch& batch, const std::string& what) {
  if (static_cast<int>(models.size()) != batch.size())
    throw Error(what + ": " + std::to_string(models.size()) + " models for " + std::to_string(batch.size()) +
                " robots (one model per robot)");
  for (std::size_t r = 0; r < models.size(); ++r) {
    if (models[r] == nullptr) throw Error(what + ": robot " + std::to_string(r) + " has no model (null)");
    const std::string diff = structure_difference(*models[0], *models[r]);
    if (!diff.empty()) throw Error(what + ": robot " + std::to_string(r) + "'s model has another structure than robot 0's (" + diff + ")");
    if (batch.states[r].x.size() != models[r]->nx() || batch.datas[r].cable_rest_length_m.size() != models[r]->ncable() ||
        batch.datas[r].p_W_node.cols() != models[r]->nnode() || batch.datas[r].xdot.size() != models[r]->nx())
      throw Error(what + ": robot " + std::to_string(r) +
                  "'s state or data does not fit its model (make the batch "
                  "with make_batch(models[0], ...))");
  }
}

int step_batch(const std::vector<const Model*>& models, Batch& batch, const BatchStepOptions& options) {
  check_options(batch, options);
  check_batch_models(models, batch, "batch");
  return step_robots([&](std::size_t r) -> const Model& { return *models[r]; }, batch, options);
}

void command_rest_lengths(const std::vector<const Model*>& models, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& command_m) {
  check_batch_models(models, batch, "batch");
  const int nc = models.empty() ? 0 : models[0]->ncable();
  check_rows(batch, command_m, nc, "commanded rest lengths", "ncable");
  command_within_limits([&](std::size_t r) -> const Model& { return *models[r]; }, batch, command_m, "commanded rest length");
}

void set_external_forces(const std::vector<const Model*>& models, Batch& batch, const Eigen::Ref<const Eigen::MatrixXd>& f_W_ext_N) {
  check_batch_models(models, batch, "batch");
  const int nn = models.empty() ? 0 : models[0]->nnode();
  check_rows(batch, f_W_ext_N, 3 * nn, "external forces", "3 nnode");
  for (int r = 0; r < batch.size(); ++r)
    if (!f_W_ext_N.row(r).allFinite()) throw Error("batch: robot " + std::to_string(r) + ": the external forces are not finite");
  for (int r = 0; r < batch.size(); ++r) {
    const auto i = static_cast<std::size_t>(r);
    for (int j = 0; j < nn; ++j)
      batch.datas[i].f_W_ext_node[static_cast<std::size_t>(j)] =
          Eigen::Vector3d(f_W_ext_N(r, 3 * j), f_W_ext_N(r, 3 * j + 1), f_W_ext_N(r, 3 * j + 2));
    if (batch.error[i].empty()) refresh(*models[i], batch, r);
  }
}

}  // namespace tendyn::tensegrity
