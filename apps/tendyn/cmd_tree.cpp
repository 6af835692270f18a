// `tendyn tree`: tree-structured robots (document 003). Subcommands:
//   info      model summary and the reachability matrix D
//   inverse   joint forces for given q, q', q'' (RNEA or the block-matrix d'Alembert form)
//   forward   joint accelerations for given q, q', tau (ABA or the block-matrix EoM)
//   simulate  RK4 run with a joint-torque schedule (CSV), results as CSV or JSON
//   urdf      write the model as URDF
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/block.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/tree/simulate.hpp>
#include <tendyn/viz/tree_scene.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {

using tree::BaseMode;
using tree::Model;

struct TreeOptions {
  std::string model;
  std::string base = "as-written";
  std::string q, v, a, tau;
  std::string method = "recursive";
  std::string format = "text";
  std::string out;      ///< the file written (DIR/<command>.<format>), empty: stdout
  std::string out_dir;  ///< -o DIR
  bool html = false;    ///< simulate --html
  std::string torque;
  double duration = 1.0;
  double dt = 1e-3;
  int every = 1;
  bool zero_gravity = false;
  std::string html_dir;  ///< simulate: write scene.json + view.html here
  OutputBudget budget;   ///< simulate: --max-output-mb, --max-memory-mb
};

Model load(const TreeOptions& o) {
  BaseMode base = BaseMode::kAsWritten;
  try {
    base = tree::base_mode_from_string(o.base);
  } catch (const Error& e) {
    throw Error(std::string("--base: ") + e.what());
  }
  Model m = tree::load_model(o.model, base);
  if (o.zero_gravity) m.gravity_W.setZero();
  return m;
}

// "0.1,0.2,..." -> vector of size n; empty -> fallback.
Eigen::VectorXd parse_vec(const std::string& text, const char* opt, int n, const Eigen::VectorXd& fallback) {
  if (text.empty()) return fallback;
  const std::vector<double> vals = io::parse_finite_list(text, opt);
  if (static_cast<int>(vals.size()) != n)
    throw Error(std::string(opt) + ": expected " + std::to_string(n) + " comma-separated values, got " + std::to_string(vals.size()));
  return Eigen::Map<const Eigen::VectorXd>(vals.data(), n);
}

nlohmann::json to_json(const Eigen::VectorXd& x) { return std::vector<double>(x.data(), x.data() + x.size()); }
nlohmann::json to_json(const Eigen::MatrixXd& M) {
  nlohmann::json j = nlohmann::json::array();
  for (int r = 0; r < M.rows(); ++r) j.push_back(to_json(Eigen::VectorXd(M.row(r).transpose())));
  return j;
}

/// "x1,x2,..." as files write numbers (io::CsvLine: %.12g, -0 as 0).
std::string fmtv(const Eigen::VectorXd& x) { return io::CsvLine().nums(x).str(); }

// For printed text: round-off noise next to the largest entry shows as 0 (files keep it).
Eigen::MatrixXd for_display(const Eigen::MatrixXd& M) {
  const double scale = M.size() ? M.cwiseAbs().maxCoeff() : 0.0;
  return M.unaryExpr([scale](double x) { return display_value(x, scale); });
}

// Unit of coordinate / velocity / force entries: free joints (rotation first in v and tau, then
// translation), revolute (rad), prismatic (m).
struct Units {
  const char* q;
  const char* v;
  const char* a;
  const char* f;
};
std::vector<Units> v_units(const Model& m) {
  std::vector<Units> u;
  for (const auto& j : m.joints) {
    if (j.type == tree::JointType::kFree) {
      for (int k = 0; k < 3; ++k) u.push_back({"", "radps", "rad/s^2", "N m"});
      for (int k = 0; k < 3; ++k) u.push_back({"", "mps", "m/s^2", "N"});
    } else if (j.nv == 1) {
      const bool rev = j.type == tree::JointType::kRevolute;
      u.push_back({rev ? "rad" : "m", rev ? "radps" : "mps", rev ? "rad/s^2" : "m/s^2", rev ? "N m" : "N"});
    }
  }
  return u;
}

std::vector<std::string> v_names(const Model& m) { return viz::tree_v_names(m); }
// CSV header of tree simulate: t_s, q:<name>_<unit>..., v:<name>_<unit>..., tau:<name>_<unit>..., energy_J
// (quaternion entries of a free joint are dimensionless: no suffix).
std::string simulate_csv_header(const Model& m) {
  std::string h = "t_s";
  for (const auto& j : m.joints) {
    if (j.type == tree::JointType::kFree) {
      for (const char* c : {"x_m", "y_m", "z_m", "qw", "qx", "qy", "qz"}) h += ",q:" + j.name + "." + c;
    } else if (j.nq == 1) {
      h += ",q:" + j.name + (j.type == tree::JointType::kRevolute ? "_rad" : "_m");
    }
  }
  const auto names = v_names(m);
  const auto units = v_units(m);
  for (std::size_t k = 0; k < names.size(); ++k) h += ",v:" + names[k] + "_" + units[k].v;
  for (std::size_t k = 0; k < names.size(); ++k) h += ",tau:" + names[k] + (std::string(units[k].f) == "N" ? "_N" : "_Nm");
  return h + ",energy_J\n";
}

std::vector<std::string> q_names(const Model& m) { return viz::tree_q_names(m); }

// Writes to --out (atomically) or stdout.
void emit(const TreeOptions& o, const std::string& text) {
  if (o.out.empty()) {
    std::cout << text;
    std::cout.flush();
  } else {
    io::write_file_atomic(o.out, text);
  }
}

std::string format_of(const TreeOptions& o) {
  if (!o.out.empty()) {
    auto ends = [&](const char* e) {
      const std::string s(e);
      return o.out.size() >= s.size() && o.out.compare(o.out.size() - s.size(), s.size(), s) == 0;
    };
    if (ends(".json")) return "json";
    if (ends(".csv")) return "csv";
  }
  if (o.format != "text" && o.format != "json" && o.format != "csv")
    throw Error("--format: expected text, json or csv (got '" + o.format + "')");
  return o.format;
}

void run_info(const TreeOptions& o) {
  const Model m = load(o);
  const std::string fmt = format_of(o);
  if (fmt == "json") {
    nlohmann::json j;
    j["name"] = m.name;
    j["nlinks"] = m.nlinks();
    j["nq"] = m.nq;
    j["nv"] = m.nv;
    j["total_mass"] = m.total_mass();
    j["gravity"] = to_json(Eigen::VectorXd(m.gravity_W));
    nlohmann::json links = nlohmann::json::array();
    for (int i = 0; i < m.nlinks(); ++i)
      links.push_back({{"index", i + 1},
                       {"name", m.links[i].name},
                       {"parent", m.parent[i] >= 0 ? m.links[m.parent[i]].name : "world"},
                       {"joint", m.joints[i].name},
                       {"type", tree::to_string(m.joints[i].type)},
                       {"fictitious", m.joints[i].fictitious},
                       {"mass", m.links[i].mass_kg}});
    j["links"] = links;
    j["reachability"] = to_json(Eigen::MatrixXd(m.reachability.cast<double>()));
    emit(o, j.dump(2) + "\n");
    return;
  }
  std::ostringstream os;
  os << "model " << m.name << ": " << m.nlinks() << " links, nq = " << m.nq << ", nv = " << m.nv << ", mass = " << m.total_mass()
     << " kg, gravity = (" << m.gravity_W.transpose() << ") m/s^2\n";
  os << " #  link                     parent                   joint type"
     << "\n";
  for (int i = 0; i < m.nlinks(); ++i) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%2d  %-24s %-24s %s%s  m=%g\n", i + 1, m.links[i].name.c_str(),
                  m.parent[i] >= 0 ? m.links[m.parent[i]].name.c_str() : "world", tree::to_string(m.joints[i].type),
                  m.joints[i].fictitious ? " (fictitious)" : "", m.links[i].mass_kg);
    os << buf;
  }
  os << "reachability matrix D (d_ij = 1: link i reachable from link j):\n";
  for (int i = 0; i < m.nlinks(); ++i) {
    for (int k = 0; k < m.nlinks(); ++k) os << (k ? " " : "") << m.reachability(i, k);
    os << "\n";
  }
  emit(o, os.str());
}

void run_dynamics(const TreeOptions& o, bool inverse) {
  const Model m = load(o);
  const Eigen::VectorXd q = parse_vec(o.q, "--q", m.nq, m.neutral());
  const Eigen::VectorXd v = parse_vec(o.v, "--v", m.nv, Eigen::VectorXd::Zero(m.nv));
  const std::string method = o.method.empty() ? "recursive" : o.method;
  if (method != "recursive" && method != "block") throw Error("--method: expected recursive or block (got '" + method + "')");
  Eigen::VectorXd result, b;
  Eigen::MatrixXd M;
  Eigen::VectorXd input;
  if (method == "block") {
    tree::BlockData bd(m);
    tree::block_eom(m, bd, q, v);
    M = bd.A;
    b = bd.b;
    if (inverse) {
      input = parse_vec(o.a, "--a", m.nv, Eigen::VectorXd::Zero(m.nv));
      result = tree::block_inverse_dynamics(m, bd, q, v, input);
    } else {
      input = parse_vec(o.tau, "--tau", m.nv, Eigen::VectorXd::Zero(m.nv));
      result = tree::block_forward_dynamics(m, bd, q, v, input);
    }
  } else {
    tree::Data d = tree::make_data(m);
    M = tree::crba(m, d, q);
    b = tree::nonlinear_effects(m, d, q, v);
    if (inverse) {
      input = parse_vec(o.a, "--a", m.nv, Eigen::VectorXd::Zero(m.nv));
      result = tree::rnea(m, d, q, v, input);
    } else {
      input = parse_vec(o.tau, "--tau", m.nv, Eigen::VectorXd::Zero(m.nv));
      result = tree::aba(m, d, q, v, input);
    }
  }
  // The options are finite (parse_finite_list), so a non-finite number here is an overflow: an
  // error (exit 2) naming the quantity, never a printed nan.
  const std::string where = inverse ? "tree inverse" : "tree forward";
  tree::check_finite_result(m, M, where, "M (mass matrix)");
  tree::check_finite_result(m, b, where, "b (bias forces)");
  tree::check_finite_result(m, result, where, inverse ? "tau (joint forces)" : "ddq (joint accelerations)");
  const char* key = inverse ? "tau" : "ddq";
  const std::string fmt = format_of(o);
  if (fmt == "json") {
    nlohmann::json j;
    j["model"] = m.name;
    j["method"] = method;
    j["q"] = to_json(q);
    j["v"] = to_json(v);
    j[inverse ? "a" : "tau"] = to_json(input);
    j[key] = to_json(result);
    j["M"] = to_json(M);
    j["b"] = to_json(b);
    emit(o, j.dump(2) + "\n");
  } else if (fmt == "csv") {
    // one row per velocity coordinate; its units in the _unit columns (rad or m per joint type)
    std::ostringstream os;
    os << "joint," << key << "," << key << "_unit,b,b_unit\n";
    const auto names = v_names(m);
    const auto units = v_units(m);
    for (int k = 0; k < m.nv; ++k)
      os << names[k] << "," << format_number(result[k]) << "," << (inverse ? units[k].f : units[k].a) << "," << format_number(b[k]) << ","
         << units[k].f << "\n";
    emit(o, os.str());
  } else {
    std::ostringstream os;
    os.precision(10);
    os << key << " = " << fmtv(for_display(result)) << "\nb = " << fmtv(for_display(b)) << "\nM =\n" << for_display(M) << "\n";
    emit(o, os.str());
  }
}

constexpr double kTreeFrameInterval_s = 0.01;  ///< viewer frames of tree simulate --html

void run_simulate(const TreeOptions& o) {
  const Model m = load(o);
  if (o.every < 1) throw Error("--every: expected an integer >= 1 (got " + std::to_string(o.every) + ")");
  tree::SimulationOptions so;
  so.duration_s = o.duration;
  so.dt_s = o.dt;
  so.output_interval_s = o.every * o.dt;
  try {
    (void)tree::simulation_steps(so);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (options --duration, --dt, --every)");
  }
  const Eigen::VectorXd q0 = parse_vec(o.q, "--q", m.nq, m.neutral());
  const Eigen::VectorXd v0 = parse_vec(o.v, "--v", m.nv, Eigen::VectorXd::Zero(m.nv));
  tree::TorqueSchedule sched;
  if (!o.torque.empty()) sched = tree::TorqueSchedule::load_csv(o.torque, m.nv);
  tree::TorqueFn torque = [&sched](double t, const Eigen::VectorXd&, const Eigen::VectorXd&, Eigen::VectorXd& tau) { sched.eval(t, tau); };
  const std::string fmt = format_of(o) == "json" ? "json" : "csv";
  if (!o.html_dir.empty()) require_viewer();
  const auto estimate = tree::estimate_simulate_output(m, so, o.html_dir.empty() ? 0.0 : kTreeFrameInterval_s);
  o.budget.check("tree simulate", estimate.output_bytes, estimate.output_what, estimate.memory_bytes, estimate.memory_what,
                 "shorten it, raise --every");

  // Viewer frames at most every 10 ms (a fine step would make the page large), the last always.
  struct Frames : tree::Observer {
    const Model& m;
    const tree::TorqueFn& torque;
    viz::Scene scene;
    tree::Data data;
    Eigen::VectorXd tau;
    Frames(const Model& model, const tree::TorqueFn& fn, const Eigen::VectorXd& q0)
        : m(model), torque(fn), scene(viz::make_scene(model, q0)), data(model), tau(Eigen::VectorXd::Zero(model.nv)) {}
    void on_step(long step, long steps, double t, const Eigen::VectorXd& q, const Eigen::VectorXd& v) override {
      if (step == steps || scene.t_s.empty() || t >= scene.t_s.back() + kTreeFrameInterval_s - 1e-9) {
        tau.setZero();
        if (torque) torque(t, q, v, tau);  // the torque the simulation applies at this state (SimulationResult::tau)
        viz::add_tree_frame(scene, m, data, t, q, v, tau);
      }
    }
  };
  std::unique_ptr<Frames> frames;
  if (!o.html_dir.empty()) {
    Eigen::VectorXd q_scene = q0;
    tree::normalize_configuration(m, q_scene);
    frames = std::make_unique<Frames>(m, torque, q_scene);
  }
  Progress progress("tree simulate", !o.out.empty());
  const tree::SimulationResult r = tree::simulate(m, so, q0, v0, torque, frames.get(), [&progress](double f) { progress.update(f); });
  progress.finish();

  std::string text;
  if (fmt == "csv") {
    text = simulate_csv_header(m);
    io::CsvLine line;
    for (Eigen::Index i = 0; i < r.t_s.size(); ++i) {
      line.clear();
      line.num(r.t_s[i], 15).nums(r.q.row(i)).nums(r.v.row(i)).nums(r.tau.row(i)).num(r.energy_J[i], 15);
      text += line.str();
      text += '\n';
    }
  } else {
    const auto row = [](const tree::SimulationResult::RowMatrix& M, Eigen::Index i) { return Eigen::VectorXd(M.row(i).transpose()); };
    nlohmann::json js;
    js["model"] = m.name;
    js["dt"] = o.dt;
    js["q_names"] = q_names(m);
    js["v_names"] = v_names(m);
    for (const char* k : {"t", "q", "v", "tau", "energy"}) js[k] = nlohmann::json::array();
    for (Eigen::Index i = 0; i < r.t_s.size(); ++i) {
      js["t"].push_back(r.t_s[i]);
      js["q"].push_back(to_json(row(r.q, i)));
      js["v"].push_back(to_json(row(r.v, i)));
      js["tau"].push_back(to_json(row(r.tau, i)));
      js["energy"].push_back(r.energy_J[i]);
    }
    text = js.dump() + "\n";
  }
  if (o.out.empty()) {
    emit(o, text);
    return;
  }
  // results.<fmt>, scene.json and view.html appear together (docs/CLI.md "Outputs")
  io::ResultSet results(o.out_dir);
  io::write_file_atomic(results.file(std::filesystem::path(o.out).filename().string()), text);
  const auto html = frames ? write_scene_outputs(results.staging(), frames->scene, true) : std::filesystem::path();
  results.commit();
  if (frames) std::fprintf(stderr, "viewer: %s\n", (std::filesystem::path(o.out_dir) / html.filename()).string().c_str());
}

void add_common(CLI::App* sub, TreeOptions& o) {
  sub->add_option("model", o.model, "Model file (.yaml tendyn tree format, or .urdf)")->required()->transform(model_file());
  sub->add_option("--base", o.base, "Floating base as: as-written, fictitious (document 003's 6-joint chain), free (quaternion)");
  sub->add_flag("--zero-gravity", o.zero_gravity, "Set gravity to zero");
  sub->add_option("--format", o.format, "Output format: text, json, csv (simulate: text means csv)");
  sub->add_option("-o,--out", o.out_dir, "Write the result into this directory, as DIR/<command>.<format> (default: stdout)");
}

/// -o DIR: the file the command writes (DIR/<stem>.<format>, format text -> .txt). The directory
/// is created here unless the command writes through an io::ResultSet (simulate), which creates it
/// only when the run succeeds.
void set_output_file(TreeOptions& o, const std::string& stem, bool create_dir = true) {
  if (o.out_dir.empty()) return;
  if (create_dir) ensure_directory(o.out_dir);
  if (o.format != "text" && o.format != "json" && o.format != "csv")
    throw Error("--format: expected text, json or csv (got '" + o.format + "')");
  o.out = (std::filesystem::path(o.out_dir) / (stem + "." + (o.format == "text" ? "txt" : o.format))).string();
}

}  // namespace

void register_tree(CLI::App& app) {
  auto opts = std::make_shared<TreeOptions>();
  CLI::App* tree = app.add_subcommand("tree", "Tree-structured robots: model info, inverse/forward dynamics, simulation (document 003)");
  tree->require_subcommand(1);

  CLI::App* info = tree->add_subcommand("info", "Print links, joints and the reachability matrix D");
  add_common(info, *opts);
  info->callback([opts] {
    set_output_file(*opts, "info");
    run_info(*opts);
  });

  CLI::App* inv = tree->add_subcommand("inverse", "Joint forces tau for q, q', q'' (also prints M and b)");
  add_common(inv, *opts);
  inv->add_option("--q", opts->q, "Joint positions, comma-separated (nq values; default neutral)");
  inv->add_option("--v", opts->v, "Joint velocities (nv values; default 0)");
  inv->add_option("--a", opts->a, "Joint accelerations (nv values; default 0)");
  inv->add_option("--method", opts->method, "recursive (RNEA, CRBA) or block (document 003 block-matrix form); default recursive");
  inv->callback([opts] {
    set_output_file(*opts, "inverse");
    run_dynamics(*opts, true);
  });

  CLI::App* fwd = tree->add_subcommand("forward", "Joint accelerations q'' for q, q', tau (also prints M and b)");
  add_common(fwd, *opts);
  fwd->add_option("--q", opts->q, "Joint positions, comma-separated (nq values; default neutral)");
  fwd->add_option("--v", opts->v, "Joint velocities (nv values; default 0)");
  fwd->add_option("--tau", opts->tau, "Joint forces/torques (nv values; default 0)");
  fwd->add_option("--method", opts->method, "recursive (ABA) or block (solve A q'' = tau - b); default recursive");
  fwd->callback([opts] {
    set_output_file(*opts, "forward");
    run_dynamics(*opts, false);
  });

  CLI::App* sim = tree->add_subcommand("simulate", "RK4 simulation with a joint-torque schedule; CSV or JSON output");
  add_common(sim, *opts);
  sim->add_option("--q", opts->q, "Initial joint positions (default neutral)");
  sim->add_option("--v", opts->v, "Initial joint velocities (default 0)");
  sim->add_option("--torque", opts->torque, "CSV torque schedule: rows t,tau_1..tau_nv, linear interpolation (default zero torque)")
      ->check(existing_file());
  sim->add_option("--duration", opts->duration, "Simulated time [s]");
  sim->add_option("--dt", opts->dt, "Step [s]");
  sim->add_option("--every", opts->every, "Record every k-th step");
  opts->budget.add_to(*sim);
  sim->add_flag(
      "--html", opts->html,
      "Also write scene.json and view.html (3D viewer, docs/VIEWER.md) into the output directory (-o; default out/<model file name>)");
  sim->callback([opts] {
    if (opts->format == "text") opts->format = "csv";
    if (opts->html && opts->out_dir.empty())
      opts->out_dir = (std::filesystem::path("out") / std::filesystem::path(opts->model).stem()).string();
    set_output_file(*opts, "results", false);
    if (opts->html) opts->html_dir = opts->out_dir;
    run_simulate(*opts);
  });

  CLI::App* urdf = tree->add_subcommand("urdf", "Write the model as URDF");
  add_common(urdf, *opts);
  urdf->callback([opts] {
    if (!opts->out_dir.empty()) {
      ensure_directory(opts->out_dir);
      opts->out = (std::filesystem::path(opts->out_dir) / "model.urdf").string();
    }
    emit(*opts, tree::to_urdf(load(*opts)));
  });
}

}  // namespace tendyn::cli
