// MJCF export: the notes on what MuJoCo 2.2.2 cannot represent (one per changed or dropped
// feature, none for a model that maps exactly), the XML comment that repeats them, and the
// elements each feature produces. Running the files in MuJoCo: tests/peers/mujoco_export_test.cpp.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/mjcf.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace ts = tendyn::tensegrity;

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

/// A model MJCF represents exactly: two hollow rods (positive axial inertia, com ratio 0.4), a
/// world anchor, springs that push (tension_only = false) with axial damping, gravity, no ground,
/// no drives, no external force, at rest.
ts::Model exact_model() {
  ts::Model m;
  m.name = "exact";
  m.gravity_W = Eigen::Vector3d(0, 0, -9.81);
  for (int j = 0; j < 2; ++j) {
    ts::Rod r = ts::make_hollow_rod(0.5, 1.0, 0.02, 0.01);
    r.com_ratio = 0.4;
    r.node[0] = 2 * j;
    r.node[1] = 2 * j + 1;
    m.rods.push_back(r);
    m.rod_ids.push_back("rod" + std::to_string(j));
  }
  for (int i = 0; i < 4; ++i) {
    ts::Node n;
    n.rod = i / 2;
    n.end = i % 2;
    m.nodes.push_back(n);
    m.node_ids.push_back("n" + std::to_string(i));
  }
  ts::Node anchor;
  anchor.p_W_anchor = Eigen::Vector3d(0.5, 0, 2);
  m.nodes.push_back(anchor);
  m.node_ids.push_back("hook");
  const int pairs[4][2] = {{0, 2}, {1, 3}, {1, 4}, {3, 4}};
  for (const auto& p : pairs) {
    ts::Cable c;
    c.node[0] = p[0];
    c.node[1] = p[1];
    c.stiffness_Npm = 100;
    c.damping_Nspm = 0.5;
    c.rest_length_m = 0.8;
    c.tension_only = false;
    m.cables.push_back(c);
    m.cable_ids.push_back("s" + std::to_string(m.cables.size()));
  }
  m.f_W_ext_node.assign(m.nodes.size(), Eigen::Vector3d::Zero());
  Eigen::MatrixX3d p(5, 3);
  p << 0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0.5, 0, 2;
  m.initial_state = ts::state_from_node_positions(m, p);
  ts::validate(m);
  return m;
}

/// The single note of an export, failing the test when there is not exactly one.
std::string only_note(const ts::MjcfExport& ex) {
  EXPECT_EQ(ex.notes.size(), 1u);
  std::string all;
  for (const auto& n : ex.notes) all += n + "\n";
  return all;
}

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

/// The text of the leading comment; fails the test when the file does not start with one.
std::string leading_comment(const std::string& xml) {
  EXPECT_EQ(xml.rfind("<!--", 0), 0u) << xml.substr(0, 80);
  const auto end = xml.find("-->");
  EXPECT_NE(end, std::string::npos);
  if (end == std::string::npos) return "";
  EXPECT_EQ(xml.find("<mujoco"), end + 4) << "the comment comes first, then the root element";
  return xml.substr(4, end - 4);
}

}  // namespace

TEST(Mjcf, ExactModelHasNoNotes) {
  const auto ex = ts::export_mjcf(exact_model());
  EXPECT_TRUE(ex.notes.empty()) << ex.notes.front();
  EXPECT_TRUE(has(leading_comment(ex.xml), "changed or dropped: nothing"));
  EXPECT_TRUE(has(ex.xml, "<flag contact=\"disable\""));
  EXPECT_FALSE(has(ex.xml, "<actuator>"));
  EXPECT_FALSE(has(ex.xml, "<keyframe>"));
  EXPECT_FALSE(has(ex.xml, "type=\"plane\""));
  EXPECT_EQ(count(ex.xml, "<spatial"), 4u);
  EXPECT_TRUE(has(ex.xml, "gravity=\"0 0 -9.81\""));
  EXPECT_TRUE(has(ex.xml, "<site name=\"hook\" pos=\"0.5 0 2\""));
  // com ratio 0.4: end 0 at -(1 - a) L, end 1 at a L
  EXPECT_TRUE(has(ex.xml, "<site name=\"n0\" pos=\"0 0 -0.6\""));
  EXPECT_TRUE(has(ex.xml, "<site name=\"n1\" pos=\"0 0 0.4\""));
  // a model without a ground keeps contacts off even though ground export is on by default
  ts::MjcfOptions o;
  o.ground = false;
  EXPECT_TRUE(ts::export_mjcf(exact_model(), o).notes.empty());
}

TEST(Mjcf, TensionOnlyCablesNoted) {
  auto m = exact_model();
  m.cables[0].tension_only = m.cables[2].tension_only = true;
  const auto ex = ts::export_mjcf(m);
  const auto n = only_note(ex);
  EXPECT_TRUE(has(n, "2 tension-only cables become two-sided tendon springs (MuJoCo 2.2.2 has no tension-only spring)")) << n;
  EXPECT_TRUE(has(leading_comment(ex.xml), "* 2 tension-only cables become")) << ex.xml;
  m.cables[2].tension_only = false;
  EXPECT_TRUE(has(only_note(ts::export_mjcf(m)), "1 tension-only cable becomes a two-sided tendon spring"));
}

TEST(Mjcf, RelativeVelocityDampingApproximated) {
  auto m = exact_model();
  m.damping_law = ts::DampingLaw::kRelativeVelocity;
  m.cables[1].damping_Nspm = 0.0;
  const auto ex = ts::export_mjcf(m);
  EXPECT_TRUE(has(only_note(ex), "relative-velocity damping (document 000 eq. 3) of 3 elements is approximated")) << only_note(ex);
  EXPECT_TRUE(has(ex.xml, "damping=\"0.5\""));
  // no damping, nothing to approximate
  for (auto& c : m.cables) c.damping_Nspm = 0.0;
  EXPECT_TRUE(ts::export_mjcf(m).notes.empty());
}

TEST(Mjcf, DrivesBecomeActuatorsOrAreDropped) {
  auto m = exact_model();
  ts::CableDrive d;
  d.cable = 1;
  d.u = ts::SinusoidDrive{0.02, 3.14, 0.5, -0.01};
  m.drives.push_back(d);
  ts::CableDrive t;
  t.cable = 3;
  t.u = ts::TableDrive{{0.0, 1.0}, {0.0, 0.05}};
  m.drives.push_back(t);
  ts::validate(m);
  const auto ex = ts::export_mjcf(m);
  EXPECT_TRUE(has(only_note(ex), "2 cable drives become motor actuators on their tendons")) << only_note(ex);
  EXPECT_EQ(count(ex.xml, "<motor "), 2u);
  EXPECT_TRUE(has(ex.xml, "<motor name=\"s2\" tendon=\"s2\" gear=\"1\"/>"));
  EXPECT_TRUE(has(ex.xml, "<motor name=\"s4\" tendon=\"s4\" gear=\"1\"/>"));
  const auto c = leading_comment(ex.xml);
  EXPECT_TRUE(has(c, "actuator s2: ctrl(t) = 100 N/m * u(t), u(t) = 0.02 sin(3.14 t + 0.5) + -0.01 m")) << c;
  EXPECT_TRUE(has(c, "actuator s4: ctrl(t) = 100 N/m * u(t), u(t) piecewise linear through 2 points (t [s], u [m]): (0, 0) (1, 0.05)"))
      << c;

  ts::MjcfOptions o;
  o.drives_as_actuators = false;
  const auto dropped = ts::export_mjcf(m, o);
  EXPECT_TRUE(has(only_note(dropped), "2 cable drives are dropped")) << only_note(dropped);
  EXPECT_FALSE(has(dropped.xml, "<actuator>"));
  EXPECT_FALSE(has(dropped.xml, "ctrl(t)"));
}

TEST(Mjcf, RestLengthLimitsNoted) {
  auto m = exact_model();
  m.cables[0].rest_length_max_m = 1.0;
  m.cables[3].rest_rate_max_mps = 0.1;
  EXPECT_TRUE(has(only_note(ts::export_mjcf(m)), "rest-length and rate limits of 2 cables are dropped"));
}

TEST(Mjcf, ImpulseGroundBecomesPlaneWithContact) {
  auto m = exact_model();
  m.ground.type = ts::Ground::Type::kImpulse;
  m.ground.height_m = 0.1;
  m.ground.friction = 0.7;
  m.ground.restitution = 0.3;
  ts::MjcfOptions o;
  o.rod_radius_m = 0.02;
  const auto ex = ts::export_mjcf(m, o);
  const auto n = only_note(ex);
  EXPECT_TRUE(has(n, "impulse ground (document 001) becomes a MuJoCo plane at z = 0.08 m")) << n;
  EXPECT_TRUE(has(n, "capsules of radius 0.02 m (their axis ends rest at z = 0.1 m)")) << n;
  EXPECT_TRUE(has(n, "friction mu = 0.7 is kept")) << n;
  EXPECT_TRUE(has(n, "restitution e = 0.3 cannot be matched")) << n;
  EXPECT_TRUE(has(ex.xml, "<flag contact=\"enable\""));
  EXPECT_TRUE(has(ex.xml, "cone=\"elliptic\""));
  EXPECT_TRUE(has(
      ex.xml,
      "<geom name=\"ground\" type=\"plane\" pos=\"0 0 0.08\" size=\"0 0 1\" contype=\"0\" conaffinity=\"1\" condim=\"3\" friction=\"0.7\"/>"))
      << ex.xml;
  // rods touch the plane only (contype 1, conaffinity 0), with the ground's friction
  EXPECT_EQ(count(ex.xml, "size=\"0.02\" mass=\"0\" contype=\"1\" conaffinity=\"0\" condim=\"3\" friction=\"0.7\"/>"), 2u) << ex.xml;
}

TEST(Mjcf, CompliantAndFrictionlessGround) {
  auto m = exact_model();
  m.ground.type = ts::Ground::Type::kCompliant;
  m.ground.friction = 0.0;
  const auto ex = ts::export_mjcf(m);
  const auto n = only_note(ex);
  EXPECT_TRUE(has(n, "compliant ground (k = 100000 N/m, c = 300 N s/m per end) becomes a MuJoCo plane at z = -0.005 m")) << n;
  EXPECT_TRUE(has(n, "stiffness, damping and slip regularisation cannot be matched")) << n;
  EXPECT_FALSE(has(n, "restitution")) << n;
  // mu = 0: frictionless contacts (condim 1), not MuJoCo's friction floor
  EXPECT_EQ(count(ex.xml, "condim=\"1\""), 3u);
  EXPECT_EQ(count(ex.xml, "condim=\"3\""), 0u);
}

TEST(Mjcf, GroundDroppedOnRequest) {
  auto m = exact_model();
  m.ground.type = ts::Ground::Type::kImpulse;
  ts::MjcfOptions o;
  o.ground = false;
  const auto ex = ts::export_mjcf(m, o);
  EXPECT_TRUE(has(only_note(ex), "ground dropped on request (contacts disabled)"));
  EXPECT_TRUE(has(ex.xml, "<flag contact=\"disable\""));
  EXPECT_FALSE(has(ex.xml, "type=\"plane\""));
  EXPECT_FALSE(has(ex.xml, "contype=\"1\""));
}

TEST(Mjcf, ThinRodInertiaRaisedAndNoted) {
  auto m = exact_model();
  m.rods[1] = ts::make_thin_rod(0.6, 1.0);  // I_t = 0.05, I_a = 0
  m.rods[1].node[0] = 2;
  m.rods[1].node[1] = 3;
  const auto ex = ts::export_mjcf(m);
  EXPECT_TRUE(has(
      only_note(ex),
      "1 rod has an axial inertia below 1e-06 I_t (thin rods: 0), which MuJoCo rejects: exported as I_a = 1e-06 I_t (smallest 5e-08 kg m^2)"))
      << only_note(ex);
  EXPECT_TRUE(has(ex.xml, "diaginertia=\"0.05 0.05 5e-08\""));
  ts::MjcfOptions o;
  o.min_axial_inertia_ratio = 1e-3;
  EXPECT_TRUE(has(ts::export_mjcf(m, o).xml, "diaginertia=\"0.05 0.05 5e-05\""));
}

TEST(Mjcf, ExternalForcesDropped) {
  auto m = exact_model();
  m.f_W_ext_node[1] = Eigen::Vector3d(0, 0, 5);
  EXPECT_TRUE(has(only_note(ts::export_mjcf(m)), "constant external forces on 1 node are dropped (MJCF has no applied force)"));
}

TEST(Mjcf, InitialVelocitiesInKeyframe) {
  auto m = exact_model();
  m.initial_state.v_WC(1) = Eigen::Vector3d(1, 2, 3);
  // rod 1 is vertical (body z = world z, q = identity), so w_B = w_W
  m.initial_state.w_W(1) = Eigen::Vector3d(0.5, 0, 0);
  const auto ex = ts::export_mjcf(m);
  EXPECT_TRUE(has(only_note(ex), "the initial velocities of 1 rod go into keyframe 'initial'")) << only_note(ex);
  EXPECT_TRUE(has(ex.xml, "<key name=\"initial\" time=\"0\" qpos=\"0 0 0.6 1 0 0 0 1 0 0.6 1 0 0 0\" qvel=\"0 0 0 0 0 0 1 2 3 0.5 0 0\"/>"))
      << ex.xml;
}

TEST(Mjcf, CommentIsWellFormedWhateverTheNames) {
  auto m = exact_model();
  m.name = "a--b-";
  m.cable_ids[1] = "x--y";
  m.cables[1].tension_only = true;
  ts::CableDrive d;
  d.cable = 1;
  d.u = ts::SinusoidDrive{-0.01, 1, -1, -0.02};
  m.drives.push_back(d);
  m.ground.type = ts::Ground::Type::kImpulse;
  m.ground.height_m = -0.5;
  const auto ex = ts::export_mjcf(m);
  EXPECT_EQ(ex.notes.size(), 3u);
  for (const auto& n : ex.notes) {
    EXPECT_EQ(n.find("--"), std::string::npos) << n;
    EXPECT_EQ(n.find('\n'), std::string::npos) << n;
  }
  const auto c = leading_comment(ex.xml);
  EXPECT_EQ(c.find("--"), std::string::npos) << c;
  EXPECT_NE(c.back(), '-');
  EXPECT_EQ(count(ex.xml, "<!--"), 1u);
  EXPECT_TRUE(has(c, "model 'a- -b-' for")) << c;
  EXPECT_TRUE(has(c, "actuator x- -y:")) << c;
  // every note is in the comment
  for (const auto& n : ex.notes) EXPECT_TRUE(has(c, "* " + n)) << n;
  // names keep their dashes in the XML proper
  EXPECT_TRUE(has(ex.xml, "<mujoco model=\"a--b-\">"));
}

TEST(Mjcf, BadOptionsThrow) {
  const auto m = exact_model();
  for (auto set : std::initializer_list<void (*)(ts::MjcfOptions&)>{[](ts::MjcfOptions& o) { o.timestep_s = 0; },
                                                                    [](ts::MjcfOptions& o) { o.rod_radius_m = -1; },
                                                                    [](ts::MjcfOptions& o) { o.min_axial_inertia_ratio = 0; }}) {
    ts::MjcfOptions o;
    set(o);
    EXPECT_THROW(ts::export_mjcf(m, o), tendyn::Error);
  }
  EXPECT_EQ(ts::to_mjcf(m), ts::export_mjcf(m).xml);
}

TEST(Mjcf, IntegratorNamesAreMuJoCosAndStrict) {
  for (auto i : {ts::MjcfIntegrator::kRK4, ts::MjcfIntegrator::kEuler}) EXPECT_EQ(ts::mjcf_integrator_from_string(ts::to_string(i)), i);
  try {
    (void)ts::mjcf_integrator_from_string("implicit");
    ADD_FAILURE() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_STREQ(e.what(), "unknown MJCF integrator 'implicit' (valid: RK4, Euler)");
  }
  ts::MjcfOptions o;
  o.integrator = ts::MjcfIntegrator::kEuler;
  EXPECT_NE(ts::export_mjcf(exact_model(), o).xml.find("integrator=\"Euler\""), std::string::npos);
}
