#include <tendyn/core/error.hpp>
#include <tendyn/io/markup.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/output.hpp>

#include <sstream>

namespace tendyn::tensegrity {

namespace {
std::string nums(std::initializer_list<double> v) {
  std::string s;
  for (double x : v) {
    if (!s.empty()) s += ' ';
    append_number(s, x);
  }
  return s;
}
}  // namespace

std::string to_mjcf(const Model& m, const MjcfOptions& o) {
  if (o.integrator != "RK4" && o.integrator != "Euler") throw Error("MJCF export: integrator must be RK4 or Euler");
  for (const auto& c : m.cables)
    if (c.damping_Nspm > 0.0 && m.damping_law == DampingLaw::kRelativeVelocity)
      throw Error("MJCF export: relative-velocity damping (document 000 eq. 3) has no MuJoCo equivalent; use damping_law: axial");
  std::ostringstream x;
  x << "<mujoco model=\"" << io::escape_markup(m.name) << "\">\n";
  x << "  <!-- exported by tendyn: rods are free bodies, cables are spatial tendons (springs that also push) -->\n";
  x << "  <option timestep=\"" << nums({o.timestep_s}) << "\" integrator=\"" << o.integrator << "\" gravity=\""
    << nums({m.gravity_W.x(), m.gravity_W.y(), m.gravity_W.z()}) << "\">\n";
  x << "    <flag contact=\"" << (o.contact ? "enable" : "disable") << "\" energy=\"enable\"/>\n  </option>\n";
  x << "  <worldbody>\n";
  for (int i = 0; i < m.nnode(); ++i) {
    const Node& n = m.nodes[static_cast<std::size_t>(i)];
    if (!n.is_anchor()) continue;
    x << "    <site name=\"" << io::escape_markup(m.node_ids[static_cast<std::size_t>(i)]) << "\" pos=\""
      << nums({n.p_W_anchor.x(), n.p_W_anchor.y(), n.p_W_anchor.z()}) << "\" size=\"0.005\"/>\n";
  }
  const State& s = m.initial_state;
  for (int j = 0; j < m.nrod(); ++j) {
    const Rod& r = m.rods[static_cast<std::size_t>(j)];
    const Eigen::Vector3d p = s.p_WC(j);
    const Eigen::Quaterniond q = s.q_WB(j);
    const double Ia = std::max(r.inertia_axial_kgm2, o.min_axial_inertia_ratio * r.inertia_transverse_kgm2);
    x << "    <body name=\"" << io::escape_markup(m.rod_ids[static_cast<std::size_t>(j)]) << "\" pos=\"" << nums({p.x(), p.y(), p.z()})
      << "\" quat=\"" << nums({q.w(), q.x(), q.y(), q.z()}) << "\">\n";
    x << "      <freejoint/>\n";
    x << "      <inertial pos=\"0 0 0\" mass=\"" << nums({r.mass_kg}) << "\" diaginertia=\""
      << nums({r.inertia_transverse_kgm2, r.inertia_transverse_kgm2, Ia}) << "\"/>\n";
    const double z0 = -(1.0 - r.com_ratio) * r.length_m, z1 = r.com_ratio * r.length_m;
    x << "      <geom type=\"capsule\" fromto=\"" << nums({0, 0, z0, 0, 0, z1}) << "\" size=\"0.005\" mass=\"0\" contype=\"0\" conaffinity=\"0\"/>\n";
    for (int e = 0; e < 2; ++e)
      x << "      <site name=\"" << io::escape_markup(m.node_ids[static_cast<std::size_t>(r.node[e])]) << "\" pos=\""
        << nums({0, 0, e == 0 ? z0 : z1}) << "\" size=\"0.005\"/>\n";
    x << "    </body>\n";
  }
  x << "  </worldbody>\n";
  if (m.ncable() > 0) {
    x << "  <tendon>\n";
    for (int k = 0; k < m.ncable(); ++k) {
      const Cable& c = m.cables[static_cast<std::size_t>(k)];
      x << "    <spatial name=\"" << io::escape_markup(m.cable_ids[static_cast<std::size_t>(k)]) << "\" stiffness=\""
        << nums({c.stiffness_Npm}) << "\" damping=\"" << nums({c.damping_Nspm}) << "\" springlength=\""
        << nums({c.rest_length_m}) << "\" width=\"0.002\">\n";
      for (int e = 0; e < 2; ++e) x << "      <site site=\"" << io::escape_markup(m.node_ids[static_cast<std::size_t>(c.node[e])]) << "\"/>\n";
      x << "    </spatial>\n";
    }
    x << "  </tendon>\n";
  }
  x << "</mujoco>\n";
  return x.str();
}

}  // namespace tendyn::tensegrity
