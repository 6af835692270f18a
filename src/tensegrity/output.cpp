#include <tendyn/io/csv.hpp>
#include <tendyn/tensegrity/output.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <limits>

namespace tendyn::tensegrity {
namespace {
// Strain (l - l0) / l0 as written: NaN (undefined; "nan" in the CSV, null in JSON) for a rest
// length l0 <= 0, where cable_strain() gives 0.
double reported_strain(const Data& d, int k) {
  return d.cable_rest_length_m[k] > 0.0 ? cable_strain(d, k) : std::numeric_limits<double>::quiet_NaN();
}
}  // namespace

const char* cable_force_column(const Model& m) { return m.cable_force_sign == CableForceSign::kPaperLaw ? ".force_N" : ".tension_N"; }

CsvWriter::CsvWriter(const Model& m, const std::filesystem::path& path) : file_(path) {
  std::string h = "t_s";
  for (const auto& id : m.rod_ids)
    for (const char* c : {".x_m", ".y_m", ".z_m", ".qw", ".qx", ".qy", ".qz"}) h += "," + id + c;
  for (const auto& id : m.node_ids)
    for (const char* c : {".x_m", ".y_m", ".z_m"}) h += "," + id + c;
  const char* force = cable_force_column(m);
  for (const auto& id : m.cable_ids)
    for (const char* c : {".length_m", ".strain", force, ".slack"}) h += "," + id + c;
  h += ",kinetic_J,elastic_J,gravitational_J,external_J,total_J,com_x_m,com_y_m,com_z_m";
  for (const auto& w : m.winches)  // per winch, named after its cable
    for (const char* c : {".target_m", ".rest_length_m", ".motor_speed_radps", ".motor_torque_Nm", ".command"})
      h += "," + m.cable_ids[static_cast<std::size_t>(w.cable)] + c;
  for (int a = 0; a < m.nactuator(); ++a)  // per force actuator, by its name
    for (const char* c : {".ctrl", ".force_N"}) h += "," + m.actuator_name(a) + c;
  h += "\n";
  file_.stream() << h;
  line_.reserve(h.size() * 2);
}

void CsvWriter::on_output(const Model& m, const State& s, const Data& d, const Energy& e) {
  line_.clear();
  io::append_number(line_, s.time_s);
  auto num = [&](double v) {
    line_ += ',';
    io::append_number(line_, v);
  };
  for (int j = 0; j < m.nrod(); ++j) {
    const double* x = s.x.data() + State::kStride * j;
    for (int i = 0; i < 7; ++i) num(x[i]);
  }
  for (int i = 0; i < m.nnode(); ++i)
    for (int c = 0; c < 3; ++c) num(d.p_W_node(c, i));
  for (int k = 0; k < m.ncable(); ++k) {
    num(d.cable_length_m[k]);
    num(reported_strain(d, k));
    num(d.cable_tension_N[k]);
    line_ += d.cable_slack[static_cast<std::size_t>(k)] ? ",1" : ",0";
  }
  num(e.kinetic_J);
  num(e.elastic_J);
  num(e.gravitational_J);
  num(e.external_J);
  num(e.total());
  const Eigen::Vector3d c = center_of_mass(m, s);
  num(c.x());
  num(c.y());
  num(c.z());
  for (int w = 0; w < m.nwinch(); ++w) {
    num(d.winch_target_m[w]);
    num(d.cable_rest_length_m[m.winches[static_cast<std::size_t>(w)].cable]);
    num(s.x[m.winch_offset(w) + 1]);
    num(d.winch_torque_Nm[w]);
    num(d.winch_command[w]);
  }
  for (int a = 0; a < m.nactuator(); ++a) {
    num(d.actuator_ctrl[a]);
    num(d.actuator_force_N[a]);
  }
  line_ += '\n';
  file_.stream() << line_;
  ++rows_;
}

void Recorder::on_output(const Model& m, const State& s, const Data& d, const Energy& e) {
  time_s.push_back(s.time_s);
  x.push_back(s.x);
  Eigen::VectorXd st(m.ncable());
  for (int k = 0; k < m.ncable(); ++k) st[k] = reported_strain(d, k);
  strain.push_back(st);
  tension_N.push_back(d.cable_tension_N);
  energy.push_back(e);
  com_m.push_back(center_of_mass(m, s));
  p_W_node.push_back(d.p_W_node);
}

namespace {
nlohmann::json vec(const Eigen::Vector3d& v) { return nlohmann::json::array({v.x(), v.y(), v.z()}); }
nlohmann::json energy_json(const Energy& e) {
  return {{"kinetic_J", e.kinetic_J},
          {"elastic_J", e.elastic_J},
          {"gravitational_J", e.gravitational_J},
          {"external_J", e.external_J},
          {"total_J", e.total()}};
}
}  // namespace

std::string summary_json(const Model& m, const SimulationOptions& o, const SimulationSummary& s) {
  using nlohmann::json;
  auto cable_id = [&](int k) -> json { return k < 0 ? json(nullptr) : json(m.cable_ids[static_cast<std::size_t>(k)]); };
  json cables = json::array();
  for (int k = 0; k < m.ncable(); ++k) {
    const double ts = s.monitor.slack_first_time_s[static_cast<std::size_t>(k)];
    cables.push_back({{"id", m.cable_ids[static_cast<std::size_t>(k)]},
                      {"final_length_m", s.final_length_m[k]},
                      {"final_strain", s.final_strain[k]},
                      {m.cable_force_sign == CableForceSign::kPaperLaw ? "final_force_N" : "final_tension_N", s.final_tension_N[k]},
                      {"max_strain", s.monitor.max_strain[k]},
                      {"min_strain", s.monitor.min_strain[k]},
                      {"first_slack_time_s", ts < 0 ? json(nullptr) : json(ts)}});
  }
  json j = {
      {"model", {{"name", m.name}, {"rods", m.nrod()}, {"nodes", m.nnode()}, {"cables", m.ncable()}, {"mass_kg", m.total_mass()}}},
      {"options",
       {{"integrator", to_string(o.integrator)},
        {"dt_s", o.dt_s},
        {"duration_s", o.duration_s},
        {"output_interval_s", o.output_interval_s},
        {"strain_limit", o.strain_limit},
        {"rtol", o.tolerance.rtol},
        {"atol", o.tolerance.atol}}},
      {"steps", s.steps},
      {"rejected_steps", s.rejected_steps},
      {"split_steps", s.split_steps},
      {"final_time_s", s.final_state.time_s},
      {"stopped_early", s.stopped_early},
      {"energy",
       {{"initial", energy_json(s.initial_energy)}, {"final", energy_json(s.final_energy)}, {"max_abs_drift_J", s.max_abs_energy_drift_J}}},
      {"center_of_mass",
       {{"initial_m", vec(s.com_initial_m)},
        {"final_m", vec(s.com_final_m)},
        {"max_displacement_m", s.max_com_displacement_m},
        {"floor_path_m", s.com_floor_path_m}}},
      {"momentum",
       {{"linear_initial", vec(s.linear_momentum_initial_kgmps)},
        {"linear_final", vec(s.linear_momentum_final_kgmps)},
        {"angular_initial", vec(s.angular_momentum_initial_kgm2ps)},
        {"angular_final", vec(s.angular_momentum_final_kgm2ps)}}},
      {"normal_mode",
       {{"normal", s.monitor.normal_mode},
        {"strain_limit", o.strain_limit},
        {"first_slack_time_s", s.monitor.first_slack_time_s < 0 ? json(nullptr) : json(s.monitor.first_slack_time_s)},
        {"first_slack_cable", cable_id(s.monitor.first_slack_cable)},
        {"first_overstrain_time_s", s.monitor.first_overstrain_time_s < 0 ? json(nullptr) : json(s.monitor.first_overstrain_time_s)},
        {"first_overstrain_cable", cable_id(s.monitor.first_overstrain_cable)}}},
      {"cables", cables},
  };
  // A rest length of 0 leaves the strain undefined (null above): say so where "normal" is read.
  json undefined = json::array();
  for (int k = 0; k < m.ncable(); ++k)
    if (std::isnan(s.monitor.max_strain[k]) || std::isnan(s.final_strain[k])) undefined.push_back(cable_id(k));
  if (!undefined.empty()) {
    j["normal_mode"]["strain_undefined_cables"] = undefined;
    j["normal_mode"]["note"] = "strain (l - l0) / l0 is undefined for a rest length of 0: those cables count as over-strained";
  }
  return j.dump(2) + "\n";
}

}  // namespace tendyn::tensegrity
