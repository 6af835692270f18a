#include <tendyn/tensegrity/contact.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <cmath>

namespace tendyn::viz {

Scene make_scene(const tensegrity::Model& m) {
  Scene s;
  s.title = m.name;
  s.kind = "tensegrity";
  if (m.ground.type != tensegrity::Ground::Type::kNone) s.ground_z_m = m.ground.height_m;
  s.points = m.node_ids;
  for (int i = 0; i < m.nnode(); ++i)
    if (m.nodes[static_cast<std::size_t>(i)].radius_m > 0.0) {
      s.point_radius_m.assign(static_cast<std::size_t>(m.nnode()), 0.0);
      for (int k = 0; k < m.nnode(); ++k) s.point_radius_m[static_cast<std::size_t>(k)] = m.nodes[static_cast<std::size_t>(k)].radius_m;
      break;
    }
  s.cable_force_signed = m.cable_force_sign == tensegrity::CableForceSign::kPaperLaw;
  for (int j = 0; j < m.nrod(); ++j) {
    const auto& r = m.rods[static_cast<std::size_t>(j)];
    const double radius = r.inertia_axial_kgm2 > 0.0 ? std::sqrt(2.0 * r.inertia_axial_kgm2 / r.mass_kg) : r.length_m / 100.0;
    s.rods.push_back({m.rod_ids[static_cast<std::size_t>(j)], r.node[0], r.node[1], radius, false});
  }
  for (int k = 0; k < m.ncable(); ++k) {
    const auto& c = m.cables[static_cast<std::size_t>(k)];
    s.cables.push_back({m.cable_ids[static_cast<std::size_t>(k)], c.node[0], c.node[1]});
  }
  return s;
}

void TensegritySceneRecorder::on_output(const tensegrity::Model& m, const tensegrity::State& state, const tensegrity::Data& d,
                                        const tensegrity::Energy& e) {
  Frame& f = pending_;
  f.t_s = state.time_s;
  f.p.assign(d.p_W_node.data(), d.p_W_node.data() + d.p_W_node.size());
  f.tension.assign(d.cable_tension_N.data(), d.cable_tension_N.data() + d.cable_tension_N.size());
  f.strain.resize(static_cast<std::size_t>(m.ncable()));
  for (int k = 0; k < m.ncable(); ++k) f.strain[static_cast<std::size_t>(k)] = tensegrity::cable_strain(d, k);
  const Eigen::Vector3d com = tensegrity::center_of_mass(m, state);
  for (int i = 0; i < 3; ++i) f.com[i] = com[i];
  f.energy = {e.kinetic_J, e.elastic_J, e.gravitational_J, e.total()};
  if (m.ground.type == tensegrity::Ground::Type::kCompliant) {
    // the ground's share of the node forces: the same law as the run, on a copy of its Data
    contact_scratch_ = d;
    contact_scratch_.f_W_node.setZero();
    tensegrity::add_compliant_ground_forces(m, contact_scratch_, &state);
    f.contact.assign(contact_scratch_.f_W_node.data(), contact_scratch_.f_W_node.data() + contact_scratch_.f_W_node.size());
  } else {
    f.contact.clear();
  }
  // keep a frame when a full interval has passed since the last kept one (1e-9 s slack for round-off)
  if (scene_.t_s.empty() || f.t_s >= scene_.t_s.back() + interval_s_ - 1e-9) {
    append(f);
    has_pending_ = false;
  } else {
    has_pending_ = true;
  }
}

void TensegritySceneRecorder::finish() {
  if (has_pending_) append(pending_);
  has_pending_ = false;
}

void TensegritySceneRecorder::append(const Frame& f) {
  add_frame(scene_, f.t_s, f.p, f.tension, f.strain, f.com, &f.energy);
  if (!f.contact.empty()) scene_.contact_force_N.insert(scene_.contact_force_N.end(), f.contact.begin(), f.contact.end());
}

}  // namespace tendyn::viz
