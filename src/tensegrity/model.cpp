#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/core/rotation.hpp>
#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/model.hpp>

#include <Eigen/Eigenvalues>

#include "io/yaml_util.hpp"
#include "tensegrity/law.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

namespace tendyn::tensegrity {

namespace {
std::string name_of(const std::vector<std::string>& ids, int i, const char* kind) {
  if (i >= 0 && i < static_cast<int>(ids.size()) && !ids[static_cast<std::size_t>(i)].empty())
    return std::string(kind) + " '" + ids[static_cast<std::size_t>(i)] + "'";
  return std::string(kind) + " #" + std::to_string(i);
}
bool finite(double v) { return std::isfinite(v); }
}  // namespace

Rod make_thin_rod(double mass_kg, double length_m) {
  Rod r;
  r.mass_kg = mass_kg;
  r.length_m = length_m;
  r.inertia_transverse_kgm2 = mass_kg * length_m * length_m / 12.0;
  r.inertia_axial_kgm2 = 0.0;
  return r;
}

Rod make_hollow_rod(double mass_kg, double length_m, double radius_outer_m, double radius_inner_m) {
  if (!(radius_outer_m >= radius_inner_m && radius_inner_m >= 0.0))
    throw Error("hollow rod: need outer radius >= inner radius >= 0 (got " + format_number(radius_outer_m, 6) + ", " +
                format_number(radius_inner_m, 6) + ")");
  Rod r;
  r.mass_kg = mass_kg;
  r.length_m = length_m;
  const double rr = radius_outer_m * radius_outer_m + radius_inner_m * radius_inner_m;
  r.inertia_transverse_kgm2 = mass_kg * (3.0 * rr + length_m * length_m) / 12.0;
  r.inertia_axial_kgm2 = mass_kg * rr / 2.0;
  return r;
}

double drive_offset(const CableDrive& drive, double t) {
  if (const auto* s = std::get_if<SinusoidDrive>(&drive.u)) return s->a_m * std::sin(s->b_radps * t + s->c_rad) + s->d_m;
  const auto& tab = std::get<TableDrive>(drive.u);
  if (t <= tab.t_s.front()) return tab.u_m.front();
  if (t >= tab.t_s.back()) return tab.u_m.back();
  const auto it = std::upper_bound(tab.t_s.begin(), tab.t_s.end(), t);
  const auto i = static_cast<std::size_t>(it - tab.t_s.begin()) - 1;
  const double w = (t - tab.t_s[i]) / (tab.t_s[i + 1] - tab.t_s[i]);
  return tab.u_m[i] + w * (tab.u_m[i + 1] - tab.u_m[i]);
}

double drive_max_rate(const CableDrive& drive) {
  if (const auto* s = std::get_if<SinusoidDrive>(&drive.u)) return std::abs(s->a_m * s->b_radps);
  const auto& tab = std::get<TableDrive>(drive.u);
  double r = 0.0;
  for (std::size_t i = 0; i + 1 < tab.t_s.size(); ++i)
    r = std::max(r, std::abs(tab.u_m[i + 1] - tab.u_m[i]) / (tab.t_s[i + 1] - tab.t_s[i]));
  return r;
}

std::pair<double, double> drive_range(const CableDrive& drive) {
  if (const auto* s = std::get_if<SinusoidDrive>(&drive.u)) {
    if (s->b_radps == 0.0) {
      const double v = s->a_m * std::sin(s->c_rad) + s->d_m;
      return {v, v};
    }
    return {s->d_m - std::abs(s->a_m), s->d_m + std::abs(s->a_m)};
  }
  const auto& tab = std::get<TableDrive>(drive.u);
  const auto [lo, hi] = std::minmax_element(tab.u_m.begin(), tab.u_m.end());
  return {*lo, *hi};
}

double Model::total_mass() const {
  double m = 0.0;
  for (const auto& r : rods) m += r.mass_kg;
  return m;
}

Eigen::Vector3d Model::p_BN(int node) const {
  const Node& n = nodes[static_cast<std::size_t>(node)];
  const Rod& r = rods[static_cast<std::size_t>(n.rod)];
  if (n.is_body_point() || r.general_inertia) return n.p_B_m;
  return {0.0, 0.0, law::rod_end_offset(r, n.end)};  // (the rule dynamics.cpp's general path reads inline)
}

bool Model::has_body_geometry() const {
  for (const Rod& r : rods)
    if (r.general_inertia) return true;
  for (const Node& n : nodes)
    if (n.is_body_point() || n.radius_m != 0.0) return true;
  return false;
}

int Model::force_actuator_on(int cable) const {
  for (int a = 0; a < nactuator(); ++a)
    if (force_actuators[static_cast<std::size_t>(a)].cable == cable) return a;
  return -1;
}

std::string Model::actuator_name(int a) const {
  if (!actuator_ids.empty()) return actuator_ids[static_cast<std::size_t>(a)];
  const int k = force_actuators[static_cast<std::size_t>(a)].cable;
  return k >= 0 && k < static_cast<int>(cable_ids.size()) ? cable_ids[static_cast<std::size_t>(k)] : "actuator" + std::to_string(a);
}

void require_ideal_rods(const Model& model, const std::string& what) {
  if (model.has_body_geometry() || !model.winches.empty() || !model.force_actuators.empty())
    throw Error(
        what + ": model '" + model.name +
        "' has end-caps, body points, rods of a general inertia, winches or force actuators; this algorithm handles the documents' ideal "
        "rods only (two end nodes on the axis, point contact, rest lengths set directly): simulate it with the "
        "Newton-Euler formulation");
}

// the nodes: anchors finite, rod ends unique, end-caps and offsets valid
static void validate_nodes(const Model& m) {
  const int nr = m.nrod(), nn = m.nnode();
  std::vector<int> owner(static_cast<std::size_t>(2 * nr), -1);
  for (int i = 0; i < nn; ++i) {
    const Node& n = m.nodes[static_cast<std::size_t>(i)];
    const auto nm = name_of(m.node_ids, i, "node");
    if (n.is_anchor()) {
      if (!n.p_W_anchor.allFinite()) throw Error(nm + ": anchor position is not finite");
      continue;
    }
    if (n.rod >= nr) throw Error(nm + ": refers to rod #" + std::to_string(n.rod) + " of " + std::to_string(nr));
    if (!finite(n.radius_m) || n.radius_m < 0.0)
      throw Error(nm + ": end-cap radius must be >= 0 (got " + format_number(n.radius_m, 6) + " m)");
    if (!n.p_B_m.allFinite()) throw Error(nm + ": body offset is not finite");
    if (n.is_body_point()) continue;
    if (n.end != 0 && n.end != 1) throw Error(nm + ": rod end must be 0 or 1 (or a body point)");
    auto& o = owner[static_cast<std::size_t>(2 * n.rod + n.end)];
    if (o >= 0)
      throw Error(nm + ": end " + std::to_string(n.end) + " of " + name_of(m.rod_ids, n.rod, "rod") + " is already " +
                  name_of(m.node_ids, o, "node"));
    o = i;
  }
}

// the rods: mass, length, inertia, their end nodes
static void validate_rods(const Model& m) {
  const int nr = m.nrod(), nn = m.nnode();
  for (int j = 0; j < nr; ++j) {
    const Rod& r = m.rods[static_cast<std::size_t>(j)];
    const auto nm = name_of(m.rod_ids, j, "rod");
    if (!finite(r.mass_kg) || r.mass_kg <= 0.0) throw Error(nm + ": mass must be > 0 (got " + format_number(r.mass_kg, 6) + " kg)");
    if (!finite(r.length_m) || r.length_m <= 0.0) throw Error(nm + ": length must be > 0 (got " + format_number(r.length_m, 6) + " m)");
    if (!finite(r.com_ratio) || r.com_ratio < 0.0 || r.com_ratio > 1.0) throw Error(nm + ": com_ratio must be in [0, 1]");
    if (r.general_inertia) {
      const Eigen::Matrix3d& I = r.inertia_B_kgm2;
      if (!I.allFinite()) throw Error(nm + ": inertia tensor is not finite");
      if ((I - I.transpose()).cwiseAbs().maxCoeff() > 1e-12 * I.cwiseAbs().maxCoeff())
        throw Error(nm + ": inertia tensor is not symmetric");
      const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(I, Eigen::EigenvaluesOnly).eigenvalues();
      if (!(ev.minCoeff() > 0.0))
        throw Error(nm + ": inertia tensor must be positive definite (smallest principal moment " + format_number(ev.minCoeff(), 6) +
                    " kg m^2)");
      if (ev(0) + ev(1) < ev(2) * (1.0 - 1e-9))
        throw Error(nm + ": principal moments violate the triangle inequality (" + format_number(ev(0), 6) + ", " +
                    format_number(ev(1), 6) + ", " + format_number(ev(2), 6) + " kg m^2): no mass distribution has them");
    } else {
      if (!finite(r.inertia_transverse_kgm2) || r.inertia_transverse_kgm2 <= 0.0) throw Error(nm + ": transverse inertia must be > 0");
      if (!finite(r.inertia_axial_kgm2) || r.inertia_axial_kgm2 < 0.0) throw Error(nm + ": axial inertia must be >= 0");
    }
    for (int e = 0; e < 2; ++e) {
      const int nd = r.node[e];
      if (nd < 0 || nd >= nn) throw Error(nm + ": end " + std::to_string(e) + " has no node");
      const Node& n = m.nodes[static_cast<std::size_t>(nd)];
      if (n.rod != j || n.end != e)
        throw Error(nm + ": end " + std::to_string(e) + " and " + name_of(m.node_ids, nd, "node") + " disagree");
    }
    if (r.general_inertia) {
      const double l = (m.nodes[static_cast<std::size_t>(r.node[1])].p_B_m - m.nodes[static_cast<std::size_t>(r.node[0])].p_B_m).norm();
      if (!(std::abs(l - r.length_m) <= 1e-9 * r.length_m))
        throw Error(nm + ": length " + format_number(r.length_m, 6) + " m differs from the distance of its ends in the body frame (" +
                    format_number(l, 6) + " m)");
    }
  }
}

// the cables: nodes, stiffness, damping, rest length
static void validate_cables(const Model& m) {
  const int nn = m.nnode(), nc = m.ncable();
  for (int k = 0; k < nc; ++k) {
    const Cable& c = m.cables[static_cast<std::size_t>(k)];
    const auto nm = name_of(m.cable_ids, k, "cable");
    for (int e = 0; e < 2; ++e)
      if (c.node[e] < 0 || c.node[e] >= nn) throw Error(nm + ": node index " + std::to_string(c.node[e]) + " out of range");
    if (c.node[0] == c.node[1]) throw Error(nm + ": both ends on the same node");
    if (m.nodes[static_cast<std::size_t>(c.node[0])].is_anchor() && m.nodes[static_cast<std::size_t>(c.node[1])].is_anchor())
      throw Error(nm + ": connects two fixed anchors (it can never move)");
    if (!finite(c.stiffness_Npm) || c.stiffness_Npm < 0.0) throw Error(nm + ": stiffness must be >= 0");
    if (!finite(c.damping_Nspm) || c.damping_Nspm < 0.0) throw Error(nm + ": damping must be >= 0");
    if (!finite(c.rest_length_m) || c.rest_length_m < 0.0) throw Error(nm + ": rest length must be >= 0");
  }
}

// the drives: one per cable, finite, within the cable's rest-length and rate limits; then the limits
static void validate_drives(const Model& m) {
  const int nc = m.ncable();
  std::vector<int> driven(static_cast<std::size_t>(nc), 0);
  for (const auto& d : m.drives) {
    if (d.cable < 0 || d.cable >= nc) throw Error("drive names cable #" + std::to_string(d.cable) + " of " + std::to_string(nc));
    const auto nm = name_of(m.cable_ids, d.cable, "cable");
    if (driven[static_cast<std::size_t>(d.cable)]++) throw Error(nm + ": has two drives");
    if (const auto* t = std::get_if<TableDrive>(&d.u)) {
      if (t->t_s.size() < 2 || t->t_s.size() != t->u_m.size()) throw Error(nm + ": drive table needs >= 2 rows of (t, u)");
      for (std::size_t i = 0; i < t->t_s.size(); ++i) {
        if (!finite(t->t_s[i]) || !finite(t->u_m[i]))
          throw Error(nm + ": drive table has a non-finite entry (row " + std::to_string(i + 1) + ")");
        if (i > 0 && !(t->t_s[i] > t->t_s[i - 1]))
          throw Error(nm + ": drive table times must increase strictly (row " + std::to_string(i + 1) + ")");
      }
    } else {
      const auto& s = std::get<SinusoidDrive>(d.u);
      if (!finite(s.a_m) || !finite(s.b_radps) || !finite(s.c_rad) || !finite(s.d_m))
        throw Error(nm + ": sinusoid drive has a non-finite parameter");
    }
    const Cable& c = m.cables[static_cast<std::size_t>(d.cable)];
    if (m.force_actuator_on(d.cable) >= 0) continue;  // the drive moves the actuator's command, not the rest length
    const auto [lo, hi] = drive_range(d);
    if (c.rest_length_m + lo < c.rest_length_min_m - 1e-15 || c.rest_length_m + hi > c.rest_length_max_m + 1e-15)
      throw Error(nm + ": drive takes the rest length to [" + format_number(c.rest_length_m + lo, 6) + ", " +
                  format_number(c.rest_length_m + hi, 6) + "] m, outside its limits [" + format_number(c.rest_length_min_m, 6) + ", " +
                  format_number(c.rest_length_max_m, 6) + "] m");
    const double rate = drive_max_rate(d);
    if (rate > c.rest_rate_max_mps * (1.0 + 1e-12))
      throw Error(nm + ": drive changes the rest length at up to " + format_number(rate, 6) + " m/s, above the limit " +
                  format_number(c.rest_rate_max_mps, 6) + " m/s");
  }
  for (int k = 0; k < nc; ++k) {
    const Cable& c = m.cables[static_cast<std::size_t>(k)];
    if (!(c.rest_length_min_m >= 0.0) || !(c.rest_length_max_m >= c.rest_length_min_m) || !(c.rest_rate_max_mps > 0.0))
      throw Error(name_of(m.cable_ids, k, "cable") + ": rest-length limits must satisfy 0 <= min <= max and rate > 0");
  }
}

// the ground and the external forces
static void validate_ground(const Model& m) {
  const int nn = m.nnode();
  const Ground& g = m.ground;
  if (!finite(g.height_m) || !(g.friction >= 0.0) || !finite(g.friction)) throw Error("ground: height must be finite and friction >= 0");
  if (!(g.restitution >= 0.0 && g.restitution <= 1.0)) throw Error("ground: restitution must be in [0, 1]");
  if (!(g.max_penetration_m > 0.0) || !(g.baumgarte > 0.0 && g.baumgarte <= 1.0))
    throw Error("ground: max_penetration must be > 0 and baumgarte in (0, 1]");
  if (!(g.stiffness_Npm > 0.0) || !(g.damping_Nspm >= 0.0) || !(g.slip_velocity_mps > 0.0))
    throw Error("ground: stiffness and slip velocity must be > 0, damping >= 0");
  if (g.friction_law == Ground::FrictionLaw::kPrinted && g.type != Ground::Type::kImpulse)
    throw Error(std::string("ground: friction_law 'printed' (document 001 eqs. 2-62..2-64) is a law of the impulse ground, not of type '") +
                to_string(g.type) + "'");
  if (!m.f_W_ext_node.empty() && static_cast<int>(m.f_W_ext_node.size()) != nn)
    throw Error("model '" + m.name + "': external force list must have one entry per node");
  for (int i = 0; i < static_cast<int>(m.f_W_ext_node.size()); ++i)
    if (!m.f_W_ext_node[static_cast<std::size_t>(i)].allFinite())
      throw Error(name_of(m.node_ids, i, "node") + ": external force is not finite");
}

// the winches: one per cable, positive motor and spool values, a motor that can turn
static void validate_winches(const Model& m) {
  const int nc = m.ncable();
  std::vector<int> winched(static_cast<std::size_t>(nc), 0);
  for (int w = 0; w < m.nwinch(); ++w) {
    const Winch& wi = m.winches[static_cast<std::size_t>(w)];
    if (wi.cable < 0 || wi.cable >= nc)
      throw Error("winch #" + std::to_string(w) + " names cable #" + std::to_string(wi.cable) + " of " + std::to_string(nc));
    const auto nm = "winch on " + name_of(m.cable_ids, wi.cable, "cable");
    if (winched[static_cast<std::size_t>(wi.cable)]++) throw Error(name_of(m.cable_ids, wi.cable, "cable") + ": has two winches");
    const std::pair<const char*, double> positive_fields[] = {
        {"spool radius", wi.spool_radius_m},      {"gear ratio", wi.gear_ratio},
        {"stall torque", wi.stall_torque_Nm},     {"no-load speed", wi.no_load_speed_radps},
        {"rotor inertia", wi.rotor_inertia_kgm2}, {"friction speed", wi.friction_speed_radps}};
    for (const auto& [what, v] : positive_fields)
      if (!finite(v) || !(v > 0.0)) throw Error(nm + ": " + what + " must be > 0 (got " + format_number(v, 6) + ")");
    const std::pair<const char*, double> non_negative_fields[] = {{"Coulomb friction", wi.coulomb_friction_Nm},
                                                                  {"viscous friction", wi.viscous_friction_Nmsprad},
                                                                  {"kp", wi.kp_per_m},
                                                                  {"ki", wi.ki_per_ms},
                                                                  {"kd", wi.kd_s_per_m}};
    for (const auto& [what, v] : non_negative_fields)
      if (!finite(v) || v < 0.0) throw Error(nm + ": " + what + " must be >= 0 (got " + format_number(v, 6) + ")");
    if (!finite(wi.command_limit) || !(wi.command_limit > 0.0 && wi.command_limit <= 1.0))
      throw Error(nm + ": command limit must be in (0, 1] (got " + format_number(wi.command_limit, 6) + ")");
    if (std::isnan(wi.rate_limit_mps) || !(wi.rate_limit_mps > 0.0))
      throw Error(nm + ": rate limit must be > 0 m/s (got " + format_number(wi.rate_limit_mps, 6) + "; infinity for none)");
    if (wi.coulomb_friction_Nm >= wi.stall_torque_Nm * wi.command_limit)
      throw Error(nm + ": Coulomb friction " + format_number(wi.coulomb_friction_Nm, 6) +
                  " N m is not below the motor's torque at the command limit (" + format_number(wi.stall_torque_Nm * wi.command_limit, 6) +
                  " N m): it can never turn");
  }
}

// the force actuators: one per cable, not on a winch's cable, finite, ordered ranges, a gear
static void validate_force_actuators(const Model& m) {
  const int nc = m.ncable();
  if (!m.actuator_ids.empty() && m.actuator_ids.size() != m.force_actuators.size())
    throw Error("model '" + m.name + "': " + std::to_string(m.actuator_ids.size()) + " actuator names for " +
                std::to_string(m.force_actuators.size()) + " force actuators");
  std::vector<int> actuated(static_cast<std::size_t>(nc), 0);
  for (int k = 0; k < m.nactuator(); ++k) {
    const ForceActuator& a = m.force_actuators[static_cast<std::size_t>(k)];
    const auto nm = name_of(m.actuator_ids, k, "actuator");
    if (a.cable < 0 || a.cable >= nc) throw Error(nm + ": names cable #" + std::to_string(a.cable) + " of " + std::to_string(nc));
    const auto cn = name_of(m.cable_ids, a.cable, "cable");
    if (actuated[static_cast<std::size_t>(a.cable)]++) throw Error(cn + ": has two force actuators");
    for (const Winch& w : m.winches)
      if (w.cable == a.cable) throw Error(nm + ": its cable " + cn + " has a winch (one actuator per cable)");
    const double v[] = {a.gear, a.gain[0], a.gain[1], a.gain[2], a.bias[0], a.bias[1], a.bias[2], a.ctrl};
    for (const double x : v)
      if (!finite(x)) throw Error(nm + ": gear, gain, bias and ctrl must be finite");
    if (a.gear == 0.0) throw Error(nm + ": gear must not be 0");
    if (a.dynamics == ForceActuator::Dynamics::kFilter && !(finite(a.time_constant_s) && a.time_constant_s > 0.0))
      throw Error(nm + ": filter time constant must be > 0 s (got " + format_number(a.time_constant_s, 6) + ")");
    if (a.ctrl_limited && !(finite(a.ctrl_min) && finite(a.ctrl_max) && a.ctrl_min <= a.ctrl_max))
      throw Error(nm + ": ctrl range [" + format_number(a.ctrl_min, 6) + ", " + format_number(a.ctrl_max, 6) +
                  "] must be finite and ordered");
    if (a.force_limited && !(finite(a.force_min_N) && finite(a.force_max_N) && a.force_min_N <= a.force_max_N))
      throw Error(nm + ": force range [" + format_number(a.force_min_N, 6) + ", " + format_number(a.force_max_N, 6) +
                  "] must be finite and ordered");
  }
}

// the initial state: its size, finite, unit quaternions
static void validate_initial_state(const Model& m) {
  const int nr = m.nrod();
  const auto& s = m.initial_state;
  if (s.x.size() != m.nx())
    throw Error("model '" + m.name + "': initial state has " + std::to_string(s.x.size()) + " numbers, expected " + std::to_string(m.nx()) +
                " (13 per rod + 3 per winch + 1 per actuator activation)");
  if (!s.x.allFinite()) throw Error("model '" + m.name + "': initial state is not finite");
  for (int j = 0; j < nr; ++j)
    if (std::abs(s.q_WB(j).norm() - 1.0) > 1e-9) throw Error(name_of(m.rod_ids, j, "rod") + ": initial quaternion is not unit length");
}

void validate(const Model& m) {
  const int nr = m.nrod();
  if (nr == 0) throw Error("model '" + m.name + "': no rods");
  if (!m.gravity_W.allFinite()) throw Error("model '" + m.name + "': gravity is not finite");
  validate_nodes(m);
  validate_rods(m);
  if (m.ground.type == Ground::Type::kImpulse) {
    // the impulse ground solves all contact points of a rod together, at most a fixed number
    std::vector<int> points(static_cast<std::size_t>(nr), 0);
    for (const Node& n : m.nodes)
      if (n.touches_ground()) ++points[static_cast<std::size_t>(n.rod)];
    for (int j = 0; j < nr; ++j)
      if (points[static_cast<std::size_t>(j)] > kMaxImpulseContactsPerRod)
        throw Error(name_of(m.rod_ids, j, "rod") + ": " + std::to_string(points[static_cast<std::size_t>(j)]) +
                    " points touch the ground (rod ends and body points with contact: true); the impulse ground takes at most " +
                    std::to_string(kMaxImpulseContactsPerRod) + " per rod (use the compliant ground)");
  }
  validate_cables(m);
  validate_drives(m);
  validate_ground(m);
  validate_winches(m);
  validate_force_actuators(m);
  validate_initial_state(m);
}

State state_from_node_positions(const Model& model, const Eigen::MatrixX3d& p_W_nodes, double length_tol) {
  // (body points follow their rod: their rows are ignored like the anchors')
  if (p_W_nodes.rows() != model.nnode()) throw Error("node position matrix must have one row per node");
  if (!p_W_nodes.allFinite()) throw Error("node positions are not finite");
  State s;
  s.x = Eigen::VectorXd::Zero(model.nx());  // winches at rest, nothing reeled out
  for (int j = 0; j < model.nrod(); ++j) {
    const Rod& r = model.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d p0 = p_W_nodes.row(r.node[0]).transpose();
    const Eigen::Vector3d p1 = p_W_nodes.row(r.node[1]).transpose();
    const double len = (p1 - p0).norm();
    const std::string nm = name_of(model.rod_ids, j, "rod");
    if (std::abs(len - r.length_m) > length_tol * r.length_m)
      throw Error(nm + ": its end nodes are " + format_number(len, 6) + " m apart but its length is " + format_number(r.length_m, 6) +
                  " m");
    if (len <= 0.0) throw Error(nm + ": both ends at the same point");
    const Eigen::Vector3d e = (p1 - p0) / len;
    if (r.general_inertia) {
      // the minimal rotation of the ends' direction in the body frame onto e; C from end 0
      const Eigen::Vector3d p_B0 = model.p_BN(r.node[0]), p_B1 = model.p_BN(r.node[1]);
      const Eigen::Quaterniond q = quat_from_two_vectors((p_B1 - p_B0).normalized(), e);
      s.p_WC(j) = p0 - q * p_B0;
      s.set_q_WB(j, q);
      continue;
    }
    s.p_WC(j) = p0 + (1.0 - r.com_ratio) * len * e;
    s.set_q_WB(j, quat_from_two_vectors(Eigen::Vector3d::UnitZ(), e));
  }
  return s;
}

Model model_from_matrices(const Eigen::MatrixX2i& R, const Eigen::MatrixXd& S, const Eigen::MatrixXd& Gamma, const Eigen::MatrixXd& P,
                          const Eigen::MatrixX3d& p_W_nodes, const std::vector<Rod>& rods, const Eigen::MatrixX2i& E,
                          const std::vector<std::pair<int, int>>& compression_elements) {
  const int n = static_cast<int>(p_W_nodes.rows());
  const int nr = static_cast<int>(R.rows());
  if (static_cast<int>(rods.size()) != nr) throw Error("model_from_matrices: need one Rod per row of R");
  for (const auto* M : {&S, &Gamma, &P})
    if (M->rows() != n || M->cols() != n)
      throw Error("model_from_matrices: S, Gamma and P must be " + std::to_string(n) + " x " + std::to_string(n));
  for (const auto* M : {&S, &Gamma, &P})
    if (!M->isApprox(M->transpose(), 1e-12) && (*M - M->transpose()).cwiseAbs().maxCoeff() > 0.0)
      throw Error("model_from_matrices: S, Gamma and P must be symmetric");
  Model m;
  m.name = "from_matrices";
  m.nodes.assign(static_cast<std::size_t>(n), Node{});
  for (int i = 0; i < n; ++i) {
    m.nodes[static_cast<std::size_t>(i)].p_W_anchor = p_W_nodes.row(i).transpose();
    m.node_ids.push_back("n" + std::to_string(i + 1));
  }
  for (int j = 0; j < nr; ++j) {
    Rod r = rods[static_cast<std::size_t>(j)];
    for (int e = 0; e < 2; ++e) {
      const int nd = R(j, e);
      if (nd < 0 || nd >= n)
        throw Error("model_from_matrices: R row " + std::to_string(j) + " names node " + std::to_string(nd) + " of " + std::to_string(n));
      auto& node = m.nodes[static_cast<std::size_t>(nd)];
      if (node.rod >= 0) throw Error("model_from_matrices: node " + std::to_string(nd) + " belongs to two rods");
      node.rod = j;
      node.end = e;
      r.node[e] = nd;
    }
    m.rods.push_back(r);
    m.rod_ids.push_back("r" + std::to_string(j + 1));
  }
  auto is_compression = [&](int a, int b) {
    for (const auto& [x, y] : compression_elements)
      if ((x == a && y == b) || (x == b && y == a)) return true;
    return false;
  };
  std::vector<std::pair<int, int>> pairs;
  if (E.rows() > 0) {
    for (int k = 0; k < E.rows(); ++k) pairs.emplace_back(E(k, 0), E(k, 1));
    int nnz = 0;
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j) nnz += S(i, j) != 0.0 ? 1 : 0;
    for (const auto& [a, b] : pairs) {
      if (a < 0 || b < 0 || a >= n || b >= n) throw Error("model_from_matrices: E names a node out of range");
      if (S(a, b) == 0.0)
        throw Error("model_from_matrices: E lists " + std::to_string(a) + "-" + std::to_string(b) + " but S is zero there");
    }
    if (nnz != static_cast<int>(pairs.size())) throw Error("model_from_matrices: S has elements that E does not list");
  } else {
    for (int i = 0; i < n; ++i)
      for (int j = i + 1; j < n; ++j)
        if (S(i, j) != 0.0) pairs.emplace_back(i, j);
  }
  for (const auto& [a, b] : pairs) {
    Cable c;
    c.node[0] = a;
    c.node[1] = b;
    c.stiffness_Npm = S(a, b);
    c.damping_Nspm = Gamma(a, b);
    c.rest_length_m = P(a, b);
    c.tension_only = !is_compression(a, b);
    m.cables.push_back(c);
    m.cable_ids.push_back("c" + std::to_string(m.cables.size() - 1));
  }
  m.f_W_ext_node.assign(static_cast<std::size_t>(n), Eigen::Vector3d::Zero());
  m.initial_state = state_from_node_positions(m, p_W_nodes);
  validate(m);
  return m;
}

}  // namespace tendyn::tensegrity
