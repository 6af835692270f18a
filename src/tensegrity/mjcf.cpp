#include <tendyn/core/format.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/io/markup.hpp>
#include <tendyn/tensegrity/mjcf.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

namespace tendyn::tensegrity {

namespace {
std::string nums(std::initializer_list<double> v) {
  std::string s;
  for (double x : v) {
    if (!s.empty()) s += ' ';
    io::append_number(s, x);
  }
  return s;
}

/// Short number for notes (6 digits; -0 printed as 0).
std::string g(double v) { return format_number(v, 6); }

std::string plural(int n, const char* one, const char* many) { return std::to_string(n) + " " + (n == 1 ? one : many); }

/// Text safe inside an XML comment: no "--" and no trailing '-'.
std::string comment_safe(std::string s) {
  for (auto p = s.find("--"); p != std::string::npos; p = s.find("--", p)) s.replace(p, 2, "- -");
  if (!s.empty() && s.back() == '-') s += ' ';
  return s;
}

std::string drive_law(const Model& m, const CableDrive& d) {
  const Cable& c = m.cables[static_cast<std::size_t>(d.cable)];
  std::string s = "actuator " + m.cable_ids[static_cast<std::size_t>(d.cable)] + ": ctrl(t) = " + g(c.stiffness_Npm) + " N/m * u(t), ";
  if (const auto* sn = std::get_if<SinusoidDrive>(&d.u))
    s += "u(t) = " + g(sn->a_m) + " sin(" + g(sn->b_radps) + " t + " + g(sn->c_rad) + ") + " + g(sn->d_m) + " m";
  else {
    const auto& t = std::get<TableDrive>(d.u);
    s += "u(t) piecewise linear through " + std::to_string(t.t_s.size()) + " points (t [s], u [m]):";
    for (std::size_t i = 0; i < t.t_s.size(); ++i) s += " (" + g(t.t_s[i]) + ", " + g(t.u_m[i]) + ")";
  }
  return s;
}
}  // namespace

namespace {

// One MJCF export (export_mjcf), part by part: what the file cannot represent exactly (notes), then
// the file itself.
struct MjcfWriter {
  const Model& m;
  const MjcfOptions& o;
  bool has_ground = false, ground = false;
  double r = 0.0, plane_z = 0.0, mu = 0.0;
  int n_moving = 0;  // rods with an initial velocity

  MjcfWriter(const Model& model, const MjcfOptions& options);
  std::vector<std::string> notes() const;
  void header(std::ostream& x, const std::vector<std::string>& notes) const;
  void worldbody(std::ostream& x) const;
  void rod_body(std::ostream& x, int j) const;
  void tendons_and_actuators(std::ostream& x) const;
  [[nodiscard]] bool actuated(int cable) const { return m.force_actuator_on(cable) >= 0; }
  /// Drives that become motors: those on cables without a force actuator.
  [[nodiscard]] int drive_motor_count() const {
    int n = 0;
    for (const auto& d : m.drives) n += actuated(d.cable) ? 0 : 1;
    return n;
  }
  void keyframe(std::ostream& x) const;
};

MjcfWriter::MjcfWriter(const Model& model, const MjcfOptions& options) : m(model), o(options) {
  has_ground = m.ground.type != Ground::Type::kNone;
  ground = has_ground && o.ground;
  r = o.rod_radius_m;
  plane_z = m.ground.height_m - r;
  mu = m.ground.friction;
  const State& s0 = m.initial_state;
  for (int j = 0; j < m.nrod(); ++j)
    if (!s0.v_WC(j).isZero() || !s0.w_W(j).isZero()) ++n_moving;
}

// ---- what cannot be represented exactly
std::vector<std::string> MjcfWriter::notes() const {
  std::vector<std::string> notes;
  int n_tension_only = 0, n_rel_damped = 0, n_limited = 0;
  for (const auto& c : m.cables) {
    if (c.tension_only) ++n_tension_only;
    if (m.damping_law == DampingLaw::kRelativeVelocity && c.damping_Nspm > 0.0) ++n_rel_damped;
    if (c.rest_length_min_m > 0.0 || std::isfinite(c.rest_length_max_m) || std::isfinite(c.rest_rate_max_mps)) ++n_limited;
  }
  if (n_tension_only > 0)
    notes.push_back(plural(n_tension_only, "tension-only cable becomes a two-sided tendon spring",
                           "tension-only cables become two-sided tendon springs") +
                    " (MuJoCo 2.2.2 has no tension-only spring): " +
                    (n_tension_only == 1 ? "it pushes when shorter than its rest length and is damped while slack"
                                         : "they push when shorter than their rest length and are damped while slack"));
  if (n_rel_damped > 0)
    notes.push_back(
        "relative-velocity damping (document 000 eq. 3) of " + plural(n_rel_damped, "element", "elements") +
        " is approximated by MuJoCo's axial tendon damping with the same coefficient: the part of the relative node velocity across the element is not damped");
  const int n_actuated_drives = static_cast<int>(m.drives.size()) - drive_motor_count();
  if (n_actuated_drives > 0)
    notes.push_back(
        plural(n_actuated_drives, "drive moves the command of a force actuator", "drives move the commands of force actuators") +
        ": MJCF cannot hold u(t), so set ctrl = ctrl0 + u(t) of that actuator each step");
  if (drive_motor_count() > 0) {
    if (o.drives_as_actuators)
      notes.push_back(
          plural(drive_motor_count(), "cable drive becomes a motor actuator on its tendon (named after the cable)",
                 "cable drives become motor actuators on their tendons (named after the cables)") +
          ": MJCF cannot hold u(t), so set ctrl = k u(t) each step (k u(t + h/2) with RK4, listed below); ctrl = 0 leaves the rest lengths unchanged");
    else
      notes.push_back(plural(drive_motor_count(), "cable drive is", "cable drives are") +
                      " dropped (MuJoCo 2.2.2 tendon springs have a fixed rest length): the exported robot is not actuated");
  }
  if (!m.winches.empty())
    notes.push_back(plural(static_cast<int>(m.winches.size()), "winch is", "winches are") +
                    " dropped (no motor model is exported): their cables keep the model's rest lengths");
  if (n_limited > 0)
    notes.push_back("rest-length and rate limits of " + plural(n_limited, "cable are", "cables are") +
                    " dropped (tendyn stops with an error outside them; MuJoCo has no such check)");
  if (has_ground && !ground) notes.push_back("ground dropped on request (contacts disabled): the robot falls through it");
  if (ground) {
    std::string s = m.ground.type == Ground::Type::kImpulse
                        ? "impulse ground (document 001) becomes a MuJoCo plane"
                        : "compliant ground (k = " + g(m.ground.stiffness_Npm) + " N/m, c = " + g(m.ground.damping_Nspm) +
                              " N s/m per end) becomes a MuJoCo plane";
    s += " at z = " + g(plane_z) + " m with soft contact against rod capsules of radius " + g(r) +
         " m (their axis ends rest at z = " + g(m.ground.height_m) + " m): friction mu = " + g(mu) + " is kept (elliptic cone), ";
    s += m.ground.type == Ground::Type::kImpulse ? "restitution e = " + g(m.ground.restitution) + " cannot be matched"
                                                 : "stiffness, damping and slip regularisation cannot be matched";
    s += " (MuJoCo soft contact with its default solref 0.02 1 is near-inelastic and lets the capsules sink slightly)";
    notes.push_back(s);
  }
  {
    int n_raised = 0;
    double ia_min = std::numeric_limits<double>::infinity();
    for (const auto& rod : m.rods) {
      if (rod.general_inertia) continue;  // its full tensor goes out as it is
      const double floor = o.min_axial_inertia_ratio * rod.inertia_transverse_kgm2;
      if (rod.inertia_axial_kgm2 < floor) {
        ++n_raised;
        ia_min = std::min(ia_min, floor);
      }
    }
    if (n_raised > 0)
      notes.push_back(plural(n_raised, "rod has", "rods have") + " an axial inertia below " + g(o.min_axial_inertia_ratio) +
                      " I_t (thin rods: 0), which MuJoCo rejects: exported as I_a = " + g(o.min_axial_inertia_ratio) + " I_t (smallest " +
                      g(ia_min) + " kg m^2), a spin about the rod axis that tendyn does not have");
  }
  {
    int n_forced = 0;
    for (const auto& f : m.f_W_ext_node)
      if (!f.isZero()) ++n_forced;
    if (n_forced > 0)
      notes.push_back("constant external forces on " + plural(n_forced, "node are", "nodes are") +
                      " dropped (MJCF has no applied force): apply them through mjData.xfrc_applied");
  }
  const State& s0 = m.initial_state;
  if (n_moving > 0 || s0.time_s != 0.0)
    notes.push_back("the initial " + std::string(n_moving > 0 ? "velocities of " + plural(n_moving, "rod", "rods") : "time") +
                    " go into keyframe 'initial' (mj_resetDataKeyframe(m, d, 0)): mj_makeData starts at rest at t = 0");
  return notes;
}

// ---- the file: the comment with the notes, the options
void MjcfWriter::header(std::ostream& x, const std::vector<std::string>& notes) const {
  x << "<!--\n  " << comment_safe("exported by tendyn from model '" + m.name + "' for MuJoCo 2.2.2") << "\n"
    << "  exact: rods as free bodies (mass, inertia, centre-of-mass ratio), nodes and world anchors as sites,\n"
    << "  gravity, springs that push as two-sided tendon springs, stiffness and rest length of every element\n";
  if (notes.empty()) {
    x << "  changed or dropped: nothing\n";
  } else {
    x << "  changed or dropped:\n";
    for (const auto& n : notes) x << "  * " << comment_safe(n) << "\n";
  }
  if (o.drives_as_actuators)
    for (const auto& d : m.drives)
      if (!actuated(d.cable)) x << "  " << comment_safe(drive_law(m, d)) << "\n";
  x << "-->\n";
  x << "<mujoco model=\"" << io::escape_markup(m.name) << "\">\n";
  x << "  <option timestep=\"" << nums({o.timestep_s}) << "\" integrator=\"" << to_string(o.integrator) << "\" gravity=\""
    << nums({m.gravity_W.x(), m.gravity_W.y(), m.gravity_W.z()}) << "\"" << (ground ? " cone=\"elliptic\"" : "") << ">\n";
  x << "    <flag contact=\"" << (ground ? "enable" : "disable") << "\" energy=\"enable\"/>\n  </option>\n";
}

void MjcfWriter::worldbody(std::ostream& x) const {
  x << "  <worldbody>\n";
  if (ground)
    x << "    <geom name=\"ground\" type=\"plane\" pos=\"" << nums({0, 0, plane_z})
      << "\" size=\"0 0 1\" contype=\"0\" conaffinity=\"1\" condim=\"" << (mu > 0.0 ? 3 : 1) << "\" friction=\""
      << nums({mu > 0.0 ? mu : 1.0}) << "\"/>\n";
  for (int i = 0; i < m.nnode(); ++i) {
    const Node& n = m.nodes[static_cast<std::size_t>(i)];
    if (!n.is_anchor()) continue;
    x << "    <site name=\"" << io::escape_markup(m.node_ids[static_cast<std::size_t>(i)]) << "\" pos=\""
      << nums({n.p_W_anchor.x(), n.p_W_anchor.y(), n.p_W_anchor.z()}) << "\" size=\"0.005\"/>\n";
  }
  for (int j = 0; j < m.nrod(); ++j) rod_body(x, j);
  x << "  </worldbody>\n";
}

// A rod: a free body with its inertia, a capsule, its points as sites (end-caps as spheres).
void MjcfWriter::rod_body(std::ostream& x, int j) const {
  const State& s0 = m.initial_state;
  const Rod& rod = m.rods[static_cast<std::size_t>(j)];
  const Eigen::Vector3d p = s0.p_WC(j);
  const Eigen::Quaterniond q = s0.q_WB(j);
  const double Ia = std::max(rod.inertia_axial_kgm2, o.min_axial_inertia_ratio * rod.inertia_transverse_kgm2);
  x << "    <body name=\"" << io::escape_markup(m.rod_ids[static_cast<std::size_t>(j)]) << "\" pos=\"" << nums({p.x(), p.y(), p.z()})
    << "\" quat=\"" << nums({q.w(), q.x(), q.y(), q.z()}) << "\">\n";
  x << "      <freejoint/>\n";
  if (rod.general_inertia) {
    const Eigen::Matrix3d& I = rod.inertia_B_kgm2;  // body frame = tendyn's B (origin at the COM)
    x << "      <inertial pos=\"0 0 0\" mass=\"" << nums({rod.mass_kg}) << "\" fullinertia=\""
      << nums({I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2)}) << "\"/>\n";
  } else {
    x << "      <inertial pos=\"0 0 0\" mass=\"" << nums({rod.mass_kg}) << "\" diaginertia=\""
      << nums({rod.inertia_transverse_kgm2, rod.inertia_transverse_kgm2, Ia}) << "\"/>\n";
  }
  const Eigen::Vector3d a = m.p_BN(rod.node[0]), b = m.p_BN(rod.node[1]);
  // With a ground the capsules touch the plane only (contype 1 & plane conaffinity 1; capsule
  // pairs have 1 & 0 = 0), as tendyn's rods pass through each other.
  const std::string contact = ground ? " contype=\"1\" conaffinity=\"0\" condim=\"" + std::to_string(mu > 0.0 ? 3 : 1) + "\" friction=\"" +
                                           nums({mu > 0.0 ? mu : 1.0}) + "\""
                                     : " contype=\"0\" conaffinity=\"0\"";
  x << "      <geom type=\"capsule\" fromto=\"" << nums({a.x(), a.y(), a.z(), b.x(), b.y(), b.z()}) << "\" size=\"" << nums({r})
    << "\" mass=\"0\"" << contact << "/>\n";
  std::vector<int> points{rod.node[0], rod.node[1]};  // its ends, then its body points
  for (int i = 0; i < m.nnode(); ++i)
    if (m.nodes[static_cast<std::size_t>(i)].rod == j && m.nodes[static_cast<std::size_t>(i)].is_body_point()) points.push_back(i);
  for (const int i : points) {  // in the body frame
    const Node& n = m.nodes[static_cast<std::size_t>(i)];
    const Eigen::Vector3d p_B = m.p_BN(i);
    x << "      <site name=\"" << io::escape_markup(m.node_ids[static_cast<std::size_t>(i)]) << "\" pos=\""
      << nums({p_B.x(), p_B.y(), p_B.z()}) << "\" size=\"0.005\"/>\n";
    if (n.radius_m > 0.0 && n.touches_ground())  // an end-cap: a massless sphere that touches the ground
      x << "      <geom type=\"sphere\" pos=\"" << nums({p_B.x(), p_B.y(), p_B.z()}) << "\" size=\"" << nums({n.radius_m})
        << "\" mass=\"0\"" << contact << "/>\n";
  }
  x << "    </body>\n";
}

void MjcfWriter::tendons_and_actuators(std::ostream& x) const {
  if (m.ncable() > 0) {
    x << "  <tendon>\n";
    for (int k = 0; k < m.ncable(); ++k) {
      const Cable& c = m.cables[static_cast<std::size_t>(k)];
      x << "    <spatial name=\"" << io::escape_markup(m.cable_ids[static_cast<std::size_t>(k)]) << "\" stiffness=\""
        << nums({c.stiffness_Npm}) << "\" damping=\"" << nums({c.damping_Nspm}) << "\" springlength=\"" << nums({c.rest_length_m})
        << "\" width=\"0.002\">\n";
      for (int e = 0; e < 2; ++e)
        x << "      <site site=\"" << io::escape_markup(m.node_ids[static_cast<std::size_t>(c.node[e])]) << "\"/>\n";
      x << "    </spatial>\n";
    }
    x << "  </tendon>\n";
  }
  const int n_drive_motors = o.drives_as_actuators ? drive_motor_count() : 0;
  if (m.nactuator() == 0 && n_drive_motors == 0) return;
  x << "  <actuator>\n";
  // the force actuators first (MuJoCo's actuator k is tendyn's force actuator k): the same law
  for (int k = 0; k < m.nactuator(); ++k) {
    const ForceActuator& a = m.force_actuators[static_cast<std::size_t>(k)];
    const bool gain_affine = a.gain[1] != 0.0 || a.gain[2] != 0.0, bias_affine = a.bias[0] != 0.0 || a.bias[1] != 0.0 || a.bias[2] != 0.0;
    x << "    <general name=\"" << io::escape_markup(m.actuator_name(k)) << "\" tendon=\""
      << io::escape_markup(m.cable_ids[static_cast<std::size_t>(a.cable)]) << "\" gear=\"" << nums({a.gear}) << "\" gaintype=\""
      << (gain_affine ? "affine" : "fixed") << "\" gainprm=\"" << nums({a.gain[0], a.gain[1], a.gain[2]}) << "\" biastype=\""
      << (bias_affine ? "affine" : "none") << "\" biasprm=\"" << nums({a.bias[0], a.bias[1], a.bias[2]}) << "\" ctrllimited=\""
      << (a.ctrl_limited ? "true" : "false") << "\"";
    if (a.ctrl_limited) x << " ctrlrange=\"" << nums({a.ctrl_min, a.ctrl_max}) << "\"";
    x << " forcelimited=\"" << (a.force_limited ? "true" : "false") << "\"";
    if (a.force_limited) x << " forcerange=\"" << nums({a.force_min_N, a.force_max_N}) << "\"";
    if (a.dynamics != ForceActuator::Dynamics::kNone) x << " dyntype=\"" << to_string(a.dynamics) << "\"";
    if (a.dynamics == ForceActuator::Dynamics::kFilter) x << " dynprm=\"" << nums({a.time_constant_s}) << "\"";
    x << "/>\n";
  }
  // Tendon force of a drive: -k (l - (l0 + u)) = -k (l - l0) + k u, so a motor (force = ctrl,
  // gear 1 along the tendon) with ctrl = k u(t) adds exactly the shift of the rest length. A drive
  // on a force actuator's cable moves that actuator's ctrl instead (no motor of its own).
  if (n_drive_motors > 0)
    for (const auto& d : m.drives) {
      if (actuated(d.cable)) continue;
      const std::string id = io::escape_markup(m.cable_ids[static_cast<std::size_t>(d.cable)]);
      x << "    <motor name=\"" << id << "\" tendon=\"" << id << "\" gear=\"1\"/>\n";
    }
  x << "  </actuator>\n";
}

void MjcfWriter::keyframe(std::ostream& x) const {
  const State& s0 = m.initial_state;
  bool ctrl = false, act = false;
  for (int k = 0; k < m.nactuator(); ++k) {
    ctrl = ctrl || m.force_actuators[static_cast<std::size_t>(k)].ctrl != 0.0;
    act = act || (m.activation_offset(k) >= 0 && s0.x[m.activation_offset(k)] != 0.0);
  }
  if (n_moving > 0 || s0.time_s != 0.0 || ctrl || act) {
    // free joint: qpos = (p, q w x y z), qvel = (v of the body origin in the world frame, w in the body frame)
    std::string qpos, qvel;
    for (int j = 0; j < m.nrod(); ++j) {
      const Eigen::Quaterniond q = s0.q_WB(j);
      const Eigen::Vector3d p = s0.p_WC(j), v = s0.v_WC(j), w_B = q.conjugate() * Eigen::Vector3d(s0.w_W(j));
      if (j > 0) qpos += ' ', qvel += ' ';
      qpos += nums({p.x(), p.y(), p.z(), q.w(), q.x(), q.y(), q.z()});
      qvel += nums({v.x(), v.y(), v.z(), w_B.x(), w_B.y(), w_B.z()});
    }
    x << "  <keyframe>\n    <key name=\"initial\" time=\"" << nums({s0.time_s}) << "\" qpos=\"" << qpos << "\" qvel=\"" << qvel << "\"";
    if (ctrl) {  // the force actuators' commands, then 0 for the drives' motors
      std::string c;
      for (const ForceActuator& a : m.force_actuators) c += (c.empty() ? "" : " ") + nums({a.ctrl});
      for (int k = 0, n = o.drives_as_actuators ? drive_motor_count() : 0; k < n; ++k) c += " 0";
      x << " ctrl=\"" << c << "\"";
    }
    if (act) {  // the activations, in actuator order
      std::string v;
      for (int k = 0; k < m.nactuator(); ++k)
        if (m.activation_offset(k) >= 0) v += (v.empty() ? "" : " ") + nums({s0.x[m.activation_offset(k)]});
      x << " act=\"" << v << "\"";
    }
    x << "/>\n  </keyframe>\n";
  }
}

}  // namespace

MjcfExport export_mjcf(const Model& m, const MjcfOptions& o) {
  if (!(o.timestep_s > 0.0 && std::isfinite(o.timestep_s))) throw Error("MJCF export: timestep must be positive and finite");
  if (!(o.rod_radius_m > 0.0 && std::isfinite(o.rod_radius_m))) throw Error("MJCF export: rod radius must be positive and finite");
  if (!(o.min_axial_inertia_ratio > 0.0 && std::isfinite(o.min_axial_inertia_ratio)))
    throw Error("MJCF export: minimum axial inertia ratio must be positive and finite");

  MjcfExport out;
  const MjcfWriter w(m, o);
  out.notes = w.notes();
  std::ostringstream x;
  w.header(x, out.notes);
  w.worldbody(x);
  w.tendons_and_actuators(x);
  w.keyframe(x);
  x << "</mujoco>\n";
  out.xml = x.str();
  return out;
}

std::string to_mjcf(const Model& model, const MjcfOptions& options) { return export_mjcf(model, options).xml; }

}  // namespace tendyn::tensegrity
