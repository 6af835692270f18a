#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/model_io.hpp>
#include <tendyn/viz/tensegrity_scene.hpp>

#include <gtest/gtest.h>

#include <algorithm>

#include "support/tensegrity_fixtures.hpp"

namespace tendyn::viz {
namespace {

namespace ts = tensegrity;

TEST(TensegrityScene, TopologyFollowsTheModel) {
  const auto m = test::doc000_prism();
  const Scene s = make_scene(m);
  EXPECT_EQ(s.kind, "tensegrity");
  EXPECT_EQ(s.points, m.node_ids);
  ASSERT_EQ(s.rods.size(), 3u);
  ASSERT_EQ(s.cables.size(), 9u);
  for (int k = 0; k < m.ncable(); ++k) {
    EXPECT_EQ(s.cables[static_cast<std::size_t>(k)].a, m.cables[static_cast<std::size_t>(k)].node[0]);
    EXPECT_EQ(s.cables[static_cast<std::size_t>(k)].name, m.cable_ids[static_cast<std::size_t>(k)]);
  }
  EXPECT_FALSE(s.ground_z_m.has_value());  // zero-gravity study: no ground
  // thin rod: drawn at L / 100
  EXPECT_NEAR(s.rods[0].radius_m, 0.003, 1e-12);
  // hollow rod: solid-cylinder radius of its axial inertia
  auto three_bar = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml").model;
  const Scene t = make_scene(three_bar);
  ASSERT_TRUE(t.ground_z_m.has_value());
  const auto& r = three_bar.rods[0];
  EXPECT_NEAR(t.rods[0].radius_m * t.rods[0].radius_m * r.mass_kg / 2.0, r.inertia_axial_kgm2, 1e-15);
}

TEST(TensegrityScene, SignedForcesUnderThePaperLaw) {
  // A prism released with fast closing rods: under the paper law some cable force goes negative
  // and the scene says so ("cable_force_signed": true, the viewer's colour bar then starts at
  // the most negative force); under the clamp every force is >= 0 and the key is not written.
  for (auto sign : {ts::CableForceSign::kClampTension, ts::CableForceSign::kPaperLaw}) {
    auto m = test::doc000_prism(50.0, 5.0);
    m.cable_force_sign = sign;
    for (int j = 0; j < m.nrod(); ++j)
      m.initial_state.v_WC(j) = -2.0 * Eigen::Vector3d(m.initial_state.p_WC(j).x(), m.initial_state.p_WC(j).y(), 0.0);
    Scene s = make_scene(m);
    TensegritySceneRecorder rec(s);
    ts::SimulationOptions o;
    o.duration_s = 0.2;
    o.output_interval_s = 0.01;
    ts::simulate(m, o, &rec);
    rec.finish();
    const double min_force = *std::min_element(s.tension_N.begin(), s.tension_N.end());
    const std::string json = scene_json(s);
    if (sign == ts::CableForceSign::kPaperLaw) {
      EXPECT_TRUE(s.cable_force_signed);
      EXPECT_LT(min_force, -0.01);
      EXPECT_NE(json.find("\"cable_force_signed\":true"), std::string::npos);
    } else {
      EXPECT_FALSE(s.cable_force_signed);
      EXPECT_EQ(min_force, 0.0);
      EXPECT_EQ(json.find("cable_force_signed"), std::string::npos);
    }
  }
}

TEST(TensegrityScene, RecorderMatchesTheSimulationAndDecimates) {
  const auto m = test::doc000_prism(50.0, 5.0);
  ts::SimulationOptions o;
  o.duration_s = 0.5;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.0;  // every step: 501 outputs
  Scene s = make_scene(m);
  TensegritySceneRecorder rec(s, 0.02);
  ts::Recorder ref;
  // two identical deterministic runs, one per observer
  ts::simulate(m, o, &rec);
  rec.finish();
  ts::simulate(m, o, &ref);
  validate(s);
  ASSERT_EQ(s.nframe(), 26);  // 0, 0.02, ..., 0.5
  EXPECT_DOUBLE_EQ(s.t_s.back(), 0.5);
  ts::Data d = ts::make_data(m);
  for (int f = 0; f < s.nframe(); ++f) {
    const std::size_t i = static_cast<std::size_t>(f) * 20;  // output index of frame f
    ASSERT_DOUBLE_EQ(ref.time_s[i], s.t_s[static_cast<std::size_t>(f)]);
    ts::State st;
    st.time_s = ref.time_s[i];
    st.x = ref.x[i];
    ts::forward_kinematics(m, st, d);
    for (int n = 0; n < m.nnode(); ++n)
      for (int c = 0; c < 3; ++c) EXPECT_EQ(s.positions_m[static_cast<std::size_t>(3 * (m.nnode() * f + n) + c)], d.p_W_node(c, n));
    EXPECT_EQ(s.total_J[static_cast<std::size_t>(f)], ref.energy[i].total());
    EXPECT_EQ(s.kinetic_J[static_cast<std::size_t>(f)], ref.energy[i].kinetic_J);
    EXPECT_EQ(s.tension_N[static_cast<std::size_t>(f * m.ncable())], ref.tension_N[i][0]);
    EXPECT_EQ(s.com_m[static_cast<std::size_t>(3 * f + 2)], ref.com_m[i].z());
  }
  // the damped prism loses energy: the recorded total decreases
  EXPECT_LT(s.total_J.back(), s.total_J.front());
}

TEST(TensegrityScene, FinishAddsTheLastOutputOnce) {
  const auto m = test::doc000_prism();
  ts::SimulationOptions o;
  o.duration_s = 0.05;
  o.dt_s = 1e-3;
  o.output_interval_s = 0.0;
  Scene s = make_scene(m);
  TensegritySceneRecorder rec(s, 0.04);  // keeps 0 and 0.04; 0.05 only through finish()
  ts::simulate(m, o, &rec);
  EXPECT_EQ(s.nframe(), 2);
  rec.finish();
  rec.finish();
  ASSERT_EQ(s.nframe(), 3);
  EXPECT_DOUBLE_EQ(s.t_s.back(), 0.05);
}

TEST(TensegrityScene, CompliantGroundContactForcesPerNodeCarryTheWeight) {
  // three_bar on a compliant ground for 3 s: the recorded contact forces push up (z >= 0) only at
  // nodes near the ground, and over the last 2 s (the structure still vibrates on its cables)
  // their sum carries the robot's weight on average.
  const auto file = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml");
  auto m = file.model;
  m.ground.type = ts::Ground::Type::kCompliant;
  m.ground.stiffness_Npm = 2e4;
  m.ground.damping_Nspm = 200.0;
  Scene s = make_scene(m);
  TensegritySceneRecorder rec(s, 0.01);
  ts::SimulationOptions o = file.simulation;  // rk4, dt 0.5 ms
  o.duration_s = 3.0;
  o.output_interval_s = 0.01;
  ts::simulate(m, o, &rec);
  rec.finish();
  const auto np = static_cast<std::size_t>(s.npoint()), nf = static_cast<std::size_t>(s.nframe());
  ASSERT_EQ(s.contact_force_N.size(), 3 * np * nf);
  double mass = 0.0;
  for (const auto& r : m.rods) mass += r.mass_kg;
  double sum = 0.0;
  int count = 0;
  for (std::size_t f = 0; f < nf; ++f) {
    const double* c = s.contact_force_N.data() + 3 * np * f;
    const double* p = s.positions_m.data() + 3 * np * f;
    double fz = 0.0;
    for (std::size_t i = 0; i < np; ++i) {
      EXPECT_GE(c[3 * i + 2], 0.0) << s.points[i];
      if (c[3 * i + 2] > 0.0) {
        EXPECT_LT(p[3 * i + 2], m.ground.height_m + 1e-3) << s.points[i];
      }
      fz += c[3 * i + 2];
    }
    if (s.t_s[f] >= 1.0) {
      sum += fz;
      ++count;
    }
  }
  ASSERT_GT(count, 100);
  EXPECT_NEAR(sum / count, mass * m.gravity_W.norm(), 0.03 * mass * m.gravity_W.norm());
  EXPECT_NE(scene_json(s).find("\"contact_force_N\":[["), std::string::npos);
  // an impulse ground has impulses, not forces: nothing recorded
  auto im = ts::load_model_file(std::string(TENDYN_SOURCE_DIR) + "/models/three_bar.yaml").model;
  Scene si = make_scene(im);
  TensegritySceneRecorder reci(si, 0.01);
  o.duration_s = 0.1;
  ts::simulate(im, o, &reci);
  reci.finish();
  EXPECT_TRUE(si.contact_force_N.empty());
  EXPECT_EQ(scene_json(si).find("contact_force_N"), std::string::npos);
}

}  // namespace
}  // namespace tendyn::viz
