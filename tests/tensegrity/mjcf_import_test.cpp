// MJCF import: each element maps as docs/MODEL_FORMAT.md ("MJCF import") says, and everything
// unsupported is an error naming the element and its file:line:col. (The comparison with MuJoCo's
// own compiler is tests/peers/mjcf_import_mujoco_test.cpp.)
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/mjcf.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>

#include <gtest/gtest.h>

#include <array>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace ts = tendyn::tensegrity;
using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

constexpr double kPi = 3.14159265358979323846;

ts::ModelFile load(const std::string& xml, ts::MjcfImportReport* report = nullptr, bool ignore_actuators = false) {
  ts::MjcfImportOptions o;
  o.ignore_actuators = ignore_actuators;
  return ts::load_mjcf_string(xml, "robot.xml", o, report);
}

/// A free capsule body "b" (ends at z = -0.5 and 0.5) with `inside` on line 6.
std::string body_doc(const std::string& inside) {
  return "<mujoco>\n<worldbody>\n<body name=\"b\">\n<freejoint/>\n<geom type=\"capsule\" fromto=\"0 0 -0.5 0 0 0.5\" size=\"0.02\"/>\n" +
         inside + "\n</body>\n</worldbody>\n</mujoco>\n";
}
/// The same body with sites s0, s1 (its ends) and s2, a world site w, and `top` on line 12.
std::string top_doc(const std::string& top) {
  return "<mujoco>\n<worldbody>\n<body name=\"b\">\n<freejoint/>\n<geom type=\"capsule\" fromto=\"0 0 -0.5 0 0 0.5\" size=\"0.02\"/>\n"
         "<site name=\"s0\" pos=\"0 0 -0.5\"/>\n<site name=\"s1\" pos=\"0 0 0.5\"/>\n<site name=\"s2\" pos=\"0 0.1 0\"/>\n</body>\n"
         "<site name=\"w\" pos=\"0 0 2\"/>\n</worldbody>\n" +
         top + "\n</mujoco>\n";
}

std::string import_error(const std::string& xml, bool ignore_actuators = false) {
  try {
    load(xml, nullptr, ignore_actuators);
  } catch (const tendyn::Error& e) {
    return e.what();
  }
  return "(no error)";
}

int node(const ts::Model& m, const std::string& id) {
  for (int i = 0; i < m.nnode(); ++i)
    if (m.node_ids[static_cast<std::size_t>(i)] == id) return i;
  return -1;
}

/// World positions of all nodes in the initial state, by the rigid-body formula p_WC + R p_BN
/// (independent of the dynamics kernel).
Eigen::MatrixX3d positions(const ts::Model& m) {
  Eigen::MatrixX3d P(m.nnode(), 3);
  for (int i = 0; i < m.nnode(); ++i) {
    const auto& n = m.nodes[static_cast<std::size_t>(i)];
    const Vector3d p =
        n.is_anchor() ? n.p_W_anchor : Vector3d(Vector3d(m.initial_state.p_WC(n.rod)) + m.initial_state.q_WB(n.rod) * m.p_BN(i));
    P.row(i) = p.transpose();
  }
  return P;
}

Matrix3d inertia_W(const ts::Model& m, int j) {
  const Matrix3d R = m.initial_state.q_WB(j).toRotationMatrix();
  return R * m.rods[static_cast<std::size_t>(j)].inertia_B_kgm2 * R.transpose();
}

bool contains(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

}  // namespace

// ---------------------------------------------------------------- geoms: mass and inertia
TEST(MjcfImport, CapsuleMassAndInertiaFollowMujocosCylinderPlusHemispheres) {
  const auto f = load(body_doc(""));
  const auto& r = f.model.rods[0];
  const double rad = 0.02, h = 1.0, rho = 1000.0;  // MuJoCo's default density
  const double mc = rho * kPi * rad * rad * h, ms = rho * 4.0 / 3.0 * kPi * rad * rad * rad;
  EXPECT_NEAR(r.mass_kg, mc + ms, 1e-13);
  const double It = mc * (h * h / 12 + rad * rad / 4) + ms * (2 * rad * rad / 5 + h * h / 4 + 3 * h * rad / 8);
  const double Ia = mc * rad * rad / 2 + ms * 2 * rad * rad / 5;
  EXPECT_TRUE(r.general_inertia);
  EXPECT_NEAR(r.inertia_B_kgm2(0, 0), It, 1e-15);
  EXPECT_NEAR(r.inertia_B_kgm2(1, 1), It, 1e-15);
  EXPECT_NEAR(r.inertia_B_kgm2(2, 2), Ia, 1e-15);
  EXPECT_DOUBLE_EQ(r.length_m, 1.0);
  EXPECT_EQ(f.model.node_ids[0], "b.end0");
  EXPECT_EQ(f.model.node_ids[1], "b.end1");
  EXPECT_NEAR(f.model.nodes[0].p_B_m.z(), -0.5, 1e-15);
  // capsule ends are end-caps of the capsule's radius
  EXPECT_DOUBLE_EQ(f.model.nodes[0].radius_m, rad);
  EXPECT_DOUBLE_EQ(f.model.nodes[1].radius_m, rad);
}

TEST(MjcfImport, CylinderBoxEllipsoidSphereMassesAndInertias) {
  struct Case {
    std::string geom;
    double mass;
    Vector3d I;
  };
  const double r = 0.03, h = 0.4, a = 0.01, b = 0.02, c = 0.05;
  const double mcyl = 500 * kPi * r * r * h, mbox = 1000 * 8 * a * b * c, mell = 1000 * 4.0 / 3.0 * kPi * a * b * c;
  const double msph = 1000 * 4.0 / 3.0 * kPi * r * r * r;
  const Case cases[] = {
      {"<geom type=\"cylinder\" size=\"0.03 0.2\" density=\"500\"/>", mcyl,
       Vector3d(mcyl * (3 * r * r + h * h) / 12, mcyl * (3 * r * r + h * h) / 12, mcyl * r * r / 2)},
      {"<geom type=\"box\" size=\"0.01 0.02 0.05\"/>", mbox,
       Vector3d(mbox * (b * b + c * c) / 3, mbox * (a * a + c * c) / 3, mbox * (a * a + b * b) / 3)},
      {"<geom type=\"ellipsoid\" size=\"0.01 0.02 0.05\"/>", mell,
       Vector3d(mell * (b * b + c * c) / 5, mell * (a * a + c * c) / 5, mell * (a * a + b * b) / 5)},
      {"<geom size=\"0.03\"/>", msph, Vector3d::Constant(0.4 * msph * r * r)},  // type sphere by default
  };
  for (const auto& k : cases) {
    SCOPED_TRACE(k.geom);
    // a massless capsule gives the ends; the geom under test gives all the mass
    const auto f =
        load("<mujoco><worldbody><body name=\"b\"><freejoint/><geom type=\"capsule\" fromto=\"0 0 -1 0 0 1\" size=\"0.01\" mass=\"0\"/>" +
             k.geom + "</body></worldbody></mujoco>");
    const auto& rod = f.model.rods[0];
    EXPECT_NEAR(rod.mass_kg, k.mass, 1e-14 * k.mass);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(rod.inertia_B_kgm2(i, i), k.I[i], 1e-14 * k.I.maxCoeff());
    EXPECT_NEAR(rod.inertia_B_kgm2(0, 1), 0.0, 1e-18);
  }
}

TEST(MjcfImport, MassAttributeOverridesDensity) {
  const auto f = load(body_doc("<geom size=\"0.05\" pos=\"0 0 0\" mass=\"2\" density=\"7\"/>"));
  const double rad = 0.02, h = 1.0;
  const double capsule = 1000 * (kPi * rad * rad * h + 4.0 / 3.0 * kPi * rad * rad * rad);
  EXPECT_NEAR(f.model.rods[0].mass_kg, capsule + 2.0, 1e-12);
}

TEST(MjcfImport, InertialElementAndInertiafromgeomRules) {
  const std::string body = "<inertial pos=\"0 0 0.1\" mass=\"3\" diaginertia=\"0.3 0.2 0.1\"/>";
  // auto (default): the inertial replaces the geoms of that body
  auto f = load(body_doc(body));
  EXPECT_DOUBLE_EQ(f.model.rods[0].mass_kg, 3.0);
  EXPECT_NEAR(f.model.rods[0].inertia_B_kgm2(0, 0), 0.3, 1e-15);
  EXPECT_NEAR(f.model.nodes[0].p_B_m.z(), -0.6, 1e-15);  // the centre of mass is at z = 0.1
  // true: geoms only
  auto xml = body_doc(body);
  xml.insert(8, "<compiler inertiafromgeom=\"true\"/>");
  ts::MjcfImportReport rep;
  f = load(xml, &rep);
  EXPECT_NEAR(f.model.rods[0].mass_kg, 1000 * (kPi * 4e-4 + 4.0 / 3.0 * kPi * 8e-6), 1e-12);
  EXPECT_TRUE(contains(rep.skipped, "inertiafromgeom=\"true\""));
  // false: the inertial only, the geoms give nothing
  xml = body_doc(body);
  xml.insert(8, "<compiler inertiafromgeom=\"false\"/>");
  f = load(xml);
  EXPECT_DOUBLE_EQ(f.model.rods[0].mass_kg, 3.0);
  // fullinertia (in the body frame) and diaginertia turned by the inertial's quat
  f = load(body_doc("<inertial pos=\"0 0 0\" mass=\"1\" fullinertia=\"0.3 0.25 0.1 0.01 0.02 -0.03\"/>"));
  Matrix3d full;
  full << 0.3, 0.01, 0.02, 0.01, 0.25, -0.03, 0.02, -0.03, 0.1;
  EXPECT_LE((f.model.rods[0].inertia_B_kgm2 - full).cwiseAbs().maxCoeff(), 1e-15);
  f = load(
      body_doc("<inertial pos=\"0 0 0\" quat=\"0.7071067811865476 0 0 0.7071067811865476\" mass=\"1\" diaginertia=\"0.3 0.25 0.1\"/>"));
  EXPECT_NEAR(f.model.rods[0].inertia_B_kgm2(0, 0), 0.25, 1e-15);  // x and y swapped by 90 deg about z
  EXPECT_NEAR(f.model.rods[0].inertia_B_kgm2(1, 1), 0.3, 1e-15);
  EXPECT_NE(import_error(body_doc("<inertial pos=\"0 0 0\" quat=\"1 0 0 0\" mass=\"1\" fullinertia=\"0.3 0.25 0.1 0 0 0\"/>"))
                .find("robot.xml:6:1: <inertial>: fullinertia with quat"),
            std::string::npos);
}

TEST(MjcfImport, WeldedChildBodiesFormOneCompositeRod) {
  // two point-like masses welded at +-0.3 on x: the parallel-axis theorem about the common COM
  const auto f = load(
      "<mujoco><worldbody><body name=\"b\"><freejoint/>"
      "<geom type=\"capsule\" fromto=\"0 0 -1 0 0 1\" size=\"0.01\" mass=\"0\"/>"
      "<body name=\"m1\" pos=\"0.3 0 0\"><inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1e-3 1e-3 1e-3\"/><site name=\"p1\"/></body>"
      "<body name=\"m2\" pos=\"-0.3 0 0.2\" euler=\"0 0 90\"><inertial pos=\"0 0 0\" mass=\"3\" diaginertia=\"1e-3 2e-3 3e-3\"/></body>"
      "</body></worldbody></mujoco>");
  const auto& m = f.model;
  ASSERT_EQ(m.nrod(), 1);
  EXPECT_DOUBLE_EQ(m.rods[0].mass_kg, 4.0);
  const Vector3d c(0.25 * 0.3 - 0.75 * 0.3, 0, 0.75 * 0.2);
  EXPECT_NEAR((Vector3d(m.initial_state.p_WC(0)) - c).norm(), 0.0, 1e-15);
  const Vector3d d1 = Vector3d(0.3, 0, 0) - c, d2 = Vector3d(-0.3, 0, 0.2) - c;
  Matrix3d I = Vector3d(1e-3, 1e-3, 1e-3).asDiagonal();
  I += Vector3d(2e-3, 1e-3, 3e-3).asDiagonal();  // m2 turned by 90 deg about z
  I += 1.0 * (d1.squaredNorm() * Matrix3d::Identity() - d1 * d1.transpose());
  I += 3.0 * (d2.squaredNorm() * Matrix3d::Identity() - d2 * d2.transpose());
  EXPECT_LE((m.rods[0].inertia_B_kgm2 - I).cwiseAbs().maxCoeff(), 1e-15);
  // the welded body's site is a body point of the rod
  const int p1 = node(m, "p1");
  ASSERT_GE(p1, 0);
  EXPECT_TRUE(m.nodes[static_cast<std::size_t>(p1)].is_body_point());
  EXPECT_NEAR((m.nodes[static_cast<std::size_t>(p1)].p_B_m - (Vector3d(0.3, 0, 0) - c)).norm(), 0.0, 1e-15);
}

// ---------------------------------------------------------------- nodes
TEST(MjcfImport, SitesNameRodEndsAndBecomeBodyPointsOrAnchors) {
  const auto f = load(top_doc(""));
  const auto& m = f.model;
  EXPECT_EQ(m.node_ids[0], "s0");  // a site within 1e-9 m of an end names it
  EXPECT_EQ(m.node_ids[1], "s1");
  const int s2 = node(m, "s2"), w = node(m, "w");
  ASSERT_GE(s2, 0);
  ASSERT_GE(w, 0);
  EXPECT_TRUE(m.nodes[static_cast<std::size_t>(s2)].is_body_point());
  EXPECT_FALSE(m.nodes[static_cast<std::size_t>(s2)].contact);
  EXPECT_NEAR((m.nodes[static_cast<std::size_t>(s2)].p_B_m - Vector3d(0, 0.1, 0)).norm(), 0.0, 1e-15);
  EXPECT_TRUE(m.nodes[static_cast<std::size_t>(w)].is_anchor());
  EXPECT_EQ(m.nodes[static_cast<std::size_t>(w)].p_W_anchor, Vector3d(0, 0, 2));
}

TEST(MjcfImport, SphereGeomsAreEndCapsOrContactBodyPoints) {
  const auto f = load(body_doc("<geom name=\"capA\" size=\"0.04\" pos=\"0 0 -0.5\"/>\n<geom size=\"0.03\" pos=\"0.1 0 0\"/>"));
  const auto& m = f.model;
  EXPECT_DOUBLE_EQ(m.nodes[0].radius_m, 0.04);  // the sphere on end 0 (larger than the capsule's 0.02)
  EXPECT_DOUBLE_EQ(m.nodes[1].radius_m, 0.02);
  const int extra = node(m, "b.geom2");  // unnamed third geom of body b
  ASSERT_GE(extra, 0);
  EXPECT_TRUE(m.nodes[static_cast<std::size_t>(extra)].is_body_point());
  EXPECT_TRUE(m.nodes[static_cast<std::size_t>(extra)].contact);
  EXPECT_DOUBLE_EQ(m.nodes[static_cast<std::size_t>(extra)].radius_m, 0.03);
  // a geom that never collides is no end-cap
  const auto g = load(body_doc("<geom size=\"0.03\" pos=\"0.1 0 0\" contype=\"0\" conaffinity=\"0\"/>"));
  EXPECT_EQ(node(g.model, "b.geom1"), -1);
}

TEST(MjcfImport, LongestCapsuleOrCylinderGivesTheEnds) {
  const auto f = load(body_doc("<geom type=\"cylinder\" fromto=\"0.1 0 -0.8 0.1 0 0.8\" size=\"0.01\"/>"));
  EXPECT_DOUBLE_EQ(f.model.rods[0].length_m, 1.6);
  EXPECT_DOUBLE_EQ(f.model.nodes[0].radius_m, 0.0);  // cylinder ends are not sphere caps
  EXPECT_EQ(import_error("<mujoco><worldbody><body name=\"b\"><freejoint/><geom size=\"0.1\"/></body></worldbody></mujoco>")
                .find("robot.xml:1:20: <body name=\"b\">: free body has no capsule or cylinder geom"),
            0u);
}

// ---------------------------------------------------------------- tendons
TEST(MjcfImport, SpatialTendonBecomesSpringThatPushesWithAxialDamping) {
  ts::MjcfImportReport rep;
  const auto f = load(
      top_doc(
          "<tendon><spatial name=\"t\" stiffness=\"120\" damping=\"2.5\" springlength=\"0.8\"><site site=\"s2\"/><site site=\"w\"/></spatial></tendon>"),
      &rep);
  const auto& m = f.model;
  ASSERT_EQ(m.ncable(), 1);
  EXPECT_EQ(m.cable_ids[0], "t");
  EXPECT_EQ(m.cables[0].node[0], node(m, "s2"));
  EXPECT_EQ(m.cables[0].node[1], node(m, "w"));
  EXPECT_EQ(m.cables[0].stiffness_Npm, 120.0);
  EXPECT_EQ(m.cables[0].damping_Nspm, 2.5);
  EXPECT_EQ(m.cables[0].rest_length_m, 0.8);
  EXPECT_FALSE(m.cables[0].tension_only);
  EXPECT_EQ(m.damping_law, ts::DampingLaw::kAxial);
  EXPECT_TRUE(contains(rep.mapped, "tendon 't'"));
}

TEST(MjcfImport, SpringlengthDefaultIsTheLengthInTheFilesPose) {
  const auto f = load(top_doc("<tendon><spatial stiffness=\"1\"><site site=\"s1\"/><site site=\"w\"/></spatial></tendon>"));
  EXPECT_NEAR(f.model.cables[0].rest_length_m, 1.5, 1e-15);  // (0, 0, 0.5) to (0, 0, 2)
  EXPECT_EQ(f.model.cable_ids[0], "tendon0");
}

TEST(MjcfImport, DeadBandFromZeroIsATensionOnlyCableOthersAreRefused) {
  const auto f =
      load(top_doc("<tendon><spatial stiffness=\"1\" springlength=\"0 1.2\"><site site=\"s1\"/><site site=\"w\"/></spatial></tendon>"));
  EXPECT_TRUE(f.model.cables[0].tension_only);
  EXPECT_EQ(f.model.cables[0].rest_length_m, 1.2);
  EXPECT_NE(
      import_error(
          top_doc("<tendon><spatial stiffness=\"1\" springlength=\"0.5 1.2\"><site site=\"s1\"/><site site=\"w\"/></spatial></tendon>"))
          .find("robot.xml:12:9: <spatial>: springlength dead band [0.5, 1.2] is not supported"),
      std::string::npos);
}

TEST(MjcfImport, LimitedTendonsAreRefused) {
  const std::string sites = "<site site=\"s1\"/><site site=\"w\"/></spatial></tendon>";
  EXPECT_NE(
      import_error(top_doc("<tendon><spatial limited=\"true\" range=\"0 1\">" + sites)).find("robot.xml:12:9: <spatial>: limited tendons"),
      std::string::npos);
  // MuJoCo's autolimits (default true): a range alone limits the tendon
  EXPECT_NE(import_error(top_doc("<tendon><spatial range=\"0 1\">" + sites)).find("limited tendons"), std::string::npos);
  ts::MjcfImportReport rep;
  EXPECT_NO_THROW(load(top_doc("<tendon><spatial limited=\"false\" range=\"0 1\">" + sites), &rep));
  EXPECT_TRUE(contains(rep.skipped, "range without limited"));
}

// ---------------------------------------------------------------- keyframe and options
TEST(MjcfImport, KeyframeFreeJointStateBecomesComStateWithWorldAngularVelocity) {
  // centre of mass 0.1 above the body origin (an inertial), so the COM velocity differs from
  // the origin's by w x r
  const std::string xml =
      "<mujoco><worldbody><body name=\"b\" pos=\"1 2 3\"><freejoint/>"
      "<inertial pos=\"0 0 0.1\" mass=\"1\" diaginertia=\"0.1 0.1 0.01\"/>"
      "<geom type=\"capsule\" fromto=\"0 0 -0.5 0 0 0.5\" size=\"0.02\" mass=\"0\"/></body></worldbody>"
      "<keyframe><key time=\"0.5\" qpos=\"0.1 0.2 0.3 0.7071067811865476 0.7071067811865476 0 0\" qvel=\"1 2 3 0.4 0.5 0.6\"/>"
      "<key qvel=\"0 0 0 0 0 0\"/></keyframe></mujoco>";
  const auto f = load(xml);
  const auto& s = f.model.initial_state;
  const Eigen::Quaterniond q(0.7071067811865476, 0.7071067811865476, 0, 0);
  const Vector3d r = q * Vector3d(0, 0, 0.1);  // (0, -0.1, 0)
  EXPECT_NEAR((Vector3d(s.p_WC(0)) - (Vector3d(0.1, 0.2, 0.3) + r)).norm(), 0.0, 1e-15);
  EXPECT_NEAR(std::abs(s.q_WB(0).dot(q)), 1.0, 1e-15);
  const Vector3d w = q * Vector3d(0.4, 0.5, 0.6);  // body frame -> world
  EXPECT_NEAR((Vector3d(s.w_W(0)) - w).norm(), 0.0, 1e-15);
  EXPECT_NEAR((Vector3d(s.v_WC(0)) - (Vector3d(1, 2, 3) + w.cross(r))).norm(), 0.0, 1e-15);
  EXPECT_EQ(s.time_s, 0.5);
  // without a key: the file's pose at rest
  const auto g = load(body_doc(""));
  EXPECT_TRUE(Vector3d(g.model.initial_state.v_WC(0)).isZero());
  EXPECT_NE(import_error(body_doc("").replace(body_doc("").size() - 10, 0, "<keyframe><key qvel=\"1 2\"/></keyframe>"))
                .find("qvel has 2 numbers; the model's free joints need 6"),
            std::string::npos);
}

TEST(MjcfImport, OptionTimestepGravityIntegratorAndFlags) {
  ts::MjcfImportReport rep;
  auto xml = body_doc("");
  xml.insert(8, "<option timestep=\"0.0005\" gravity=\"0 0 -3\" integrator=\"RK4\"/>");
  auto f = load(xml, &rep);
  EXPECT_EQ(f.simulation.dt_s, 0.0005);
  EXPECT_EQ(f.simulation.integrator, ts::Integrator::kRK4);
  EXPECT_EQ(f.model.gravity_W, Vector3d(0, 0, -3));
  EXPECT_TRUE(contains(rep.mapped, "integrator RK4 -> rk4"));
  xml = body_doc("");
  xml.insert(8, "<option integrator=\"Euler\"><flag gravity=\"disable\"/></option>");
  f = load(xml, &rep);
  EXPECT_EQ(f.simulation.dt_s, 0.002);  // MuJoCo's default
  EXPECT_TRUE(f.model.gravity_W.isZero());
  EXPECT_TRUE(contains(rep.mapped, "integrator Euler -> rk4"));
  f = load(body_doc(""));
  EXPECT_EQ(f.model.gravity_W, Vector3d(0, 0, -9.81));
}

TEST(MjcfImport, FloorPlaneBecomesCompliantGroundWithFriction) {
  ts::MjcfImportReport rep;
  auto xml = body_doc("");
  xml.insert(20, "<geom name=\"floor\" type=\"plane\" pos=\"0 0 -0.25\" size=\"5 5 0.1\" friction=\"0.8 0.01 0.001\"/>");
  auto f = load(xml, &rep);
  EXPECT_EQ(f.model.ground.type, ts::Ground::Type::kCompliant);
  EXPECT_EQ(f.model.ground.height_m, -0.25);
  EXPECT_EQ(f.model.ground.friction, 0.8);
  EXPECT_TRUE(contains(rep.mapped, "solref/solimp are not mapped"));
  // contacts disabled: no ground
  xml.insert(8, "<option><flag contact=\"disable\"/></option>");
  f = load(xml);
  EXPECT_EQ(f.model.ground.type, ts::Ground::Type::kNone);
}

// ---------------------------------------------------------------- compiler, defaults, includes
TEST(MjcfImport, CompilerAngleEulerseqAndGlobalCoordinates) {
  // the same rotated body: degrees, radians, a different euler sequence, and global coordinates
  const auto deg = load(
      "<mujoco><worldbody><body name=\"b\" pos=\"1 0 0\" euler=\"90 0 0\"><freejoint/>"
      "<geom type=\"capsule\" fromto=\"0 0 -0.5 0 0 0.5\" size=\"0.02\"/><site name=\"s\" pos=\"0 0.1 0\"/></body></worldbody></mujoco>");
  const auto rad = load(
      "<mujoco><compiler angle=\"radian\"/><worldbody><body name=\"b\" pos=\"1 0 0\" euler=\"1.5707963267948966 0 0\"><freejoint/>"
      "<geom type=\"capsule\" fromto=\"0 0 -0.5 0 0 0.5\" size=\"0.02\"/><site name=\"s\" pos=\"0 0.1 0\"/></body></worldbody></mujoco>");
  const auto glob = load(
      "<mujoco><compiler coordinate=\"global\"/><worldbody><body name=\"b\" pos=\"1 0 0\" euler=\"90 0 0\"><freejoint/>"
      "<geom type=\"capsule\" fromto=\"1 0.5 0 1 -0.5 0\" size=\"0.02\"/><site name=\"s\" pos=\"1 0 0.1\"/></body></worldbody></mujoco>");
  const Eigen::MatrixX3d P = positions(deg.model);
  EXPECT_NEAR((Vector3d(P.row(2).transpose()) - Vector3d(1, 0, 0.1)).norm(), 0.0, 1e-15);  // (0, 0.1, 0) turned 90 deg about x
  for (const auto* other : {&rad, &glob}) {
    const Eigen::MatrixX3d Q = positions(other->model);
    EXPECT_LE((P - Q).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_LE((deg.model.rods[0].inertia_B_kgm2 - other->model.rods[0].inertia_B_kgm2).cwiseAbs().maxCoeff(), 1e-15);
  }
  // eulerseq: "XYZ" (fixed axes) equals "zyx" (moving axes) read backwards
  const auto fixed = load(
      "<mujoco><compiler eulerseq=\"XYZ\"/><worldbody><body name=\"b\" euler=\"10 20 30\"><freejoint/>"
      "<geom type=\"capsule\" fromto=\"0 0 -0.5 0 0 0.5\" size=\"0.02\"/></body></worldbody></mujoco>");
  const auto moving = load(
      "<mujoco><compiler eulerseq=\"zyx\"/><worldbody><body name=\"b\" euler=\"30 20 10\"><freejoint/>"
      "<geom type=\"capsule\" fromto=\"0 0 -0.5 0 0 0.5\" size=\"0.02\"/></body></worldbody></mujoco>");
  EXPECT_NEAR(std::abs(fixed.model.initial_state.q_WB(0).dot(moving.model.initial_state.q_WB(0))), 1.0, 1e-15);
}

TEST(MjcfImport, DefaultClassesNestedWithClassAndChildclass) {
  const auto f = load(
      "<mujoco><default><geom density=\"500\"/><default class=\"rod\"><geom type=\"capsule\" size=\"0.02\"/>"
      "<default class=\"heavy\"><geom density=\"2000\"/></default></default>"
      "<tendon stiffness=\"33\"/></default>"
      "<worldbody><body name=\"b\" childclass=\"rod\"><freejoint/><geom fromto=\"0 0 -0.5 0 0 0.5\"/>"
      "<geom class=\"heavy\" fromto=\"0 0 -0.1 0 0 0.1\"/><site name=\"s\" pos=\"0 0 0.5\"/></body>"
      "<site name=\"w\" pos=\"0 0 1\"/></worldbody>"
      "<tendon><spatial><site site=\"s\"/><site site=\"w\"/></spatial></tendon></mujoco>");
  const double r = 0.02, sph = 4.0 / 3.0 * kPi * r * r * r;
  EXPECT_NEAR(f.model.rods[0].mass_kg, 500 * (kPi * r * r * 1.0 + sph) + 2000 * (kPi * r * r * 0.2 + sph), 1e-12);
  EXPECT_EQ(f.model.cables[0].stiffness_Npm, 33.0);
  EXPECT_NE(import_error(body_doc("<geom class=\"nope\" size=\"0.1\"/>")).find("robot.xml:6:1: <geom>: unknown default class 'nope'"),
            std::string::npos);
}

namespace {
struct TempDir {
  std::filesystem::path p = std::filesystem::temp_directory_path() / ("tendyn_mjcf_test_" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(p / "sub"); }
  ~TempDir() { std::filesystem::remove_all(p); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(p / name) << text;
    return (p / name).string();
  }
};
}  // namespace

TEST(MjcfImport, IncludesResolveRelativeToTheIncludingFile) {
  TempDir t;
  t.write("sub/parts.xml", "<mujoco><include file=\"more.xml\"/></mujoco>");
  t.write("sub/more.xml", "<mujoco><tendon><spatial stiffness=\"7\"><site site=\"s1\"/><site site=\"w\"/></spatial></tendon></mujoco>");
  const std::string main = t.write("main.xml", top_doc("<include file=\"sub/parts.xml\"/>"));
  const auto f = ts::load_mjcf_file(main);
  ASSERT_EQ(f.model.ncable(), 1);
  EXPECT_EQ(f.model.cables[0].stiffness_Npm, 7.0);
  // through load_model_file, chosen by the extension
  EXPECT_EQ(ts::load_model_file(main).model.ncable(), 1);
}

TEST(MjcfImport, MissingIncludeAndIncludeCycleAreErrorsWithFileLine) {
  TempDir t;
  const std::string main = t.write("main.xml", top_doc("<include file=\"nothere.xml\"/>"));
  try {
    ts::load_mjcf_file(main);
    FAIL() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find(main + ":12:1: <include>: included file"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos) << e.what();
  }
  t.write("a.xml", "<mujoco>\n<include file=\"b.xml\"/></mujoco>");
  const std::string b = t.write("b.xml", "<mujoco>\n\n<include file=\"a.xml\"/></mujoco>");
  const std::string loop = t.write("loop.xml", top_doc("<include file=\"a.xml\"/>"));
  try {
    ts::load_mjcf_file(loop);
    FAIL() << "no error";
  } catch (const tendyn::Error& e) {
    EXPECT_NE(std::string(e.what()).find(b + ":3:1: <include>: include cycle"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------- refused and skipped
TEST(MjcfImport, UnsupportedElementsAreErrorsNamingElementAndLine) {
  struct Case {
    std::string xml, where, what;
  };
  const Case cases[] = {
      {body_doc("<joint type=\"hinge\"/>"), "robot.xml:6:1: <joint>", "hinge joints are not supported"},
      {body_doc("<joint/>"), "robot.xml:6:1: <joint>", "hinge joints"},  // MuJoCo's default joint type
      {body_doc("<joint type=\"ball\"/>"), "robot.xml:6:1: <joint>", "ball joints"},
      {body_doc("<body name=\"c\"><joint type=\"slide\"/></body>"), "robot.xml:6:16: <joint>", "slide joints"},
      {body_doc("<body name=\"c\"><freejoint/></body>"), "robot.xml:6:16: <freejoint>", "child of the world"},
      {body_doc("<geom type=\"mesh\" mesh=\"m\"/>"), "robot.xml:6:1: <geom>", "mesh geoms with mass are not supported"},
      {body_doc("<geom size=\"-0.1\"/>"), "robot.xml:6:1: <geom>", "size values must be > 0"},
      {body_doc("<geom size=\"0.1\" mass=\"-1\"/>"), "robot.xml:6:1: <geom>", "mass must be >= 0"},
      {body_doc("<geom size=\"nan\"/>"), "robot.xml:6:1: <geom>", "non-finite number"},
      {body_doc("<geom size=\"0.1\" fluidshape=\"ellipsoid\"/>"), "robot.xml:6:1: <geom>", "fluid forces"},
      {body_doc("<geom size=\"0.1\" frobnicate=\"1\"/>"), "robot.xml:6:1: <geom>", "attribute 'frobnicate' is not supported"},
      {body_doc("<inertial pos=\"0 0 0\" mass=\"-2\" diaginertia=\"1 1 1\"/>"), "robot.xml:6:1: <inertial>", "mass must be >= 0"},
      {body_doc("<composite type=\"rope\"/>"), "robot.xml:6:1: <composite>", "inside a body is not supported"},
      {top_doc("<tendon><fixed/></tendon>"), "robot.xml:12:9: <fixed>", "fixed tendons are not supported"},
      {top_doc("<tendon><spatial><site site=\"s0\"/><site site=\"s2\"/><site site=\"w\"/></spatial></tendon>"), "robot.xml:12:9: <spatial>",
       "exactly two sites (got 3)"},
      {top_doc("<tendon><spatial><site site=\"s0\"/><geom geom=\"g\"/><site site=\"w\"/></spatial></tendon>"), "robot.xml:12:35: <geom>",
       "wrapping tendons"},
      {top_doc("<tendon><spatial><site site=\"s0\"/><site site=\"zz\"/></spatial></tendon>"), "robot.xml:12:35: <site>",
       "site 'zz' does not exist"},
      {top_doc("<tendon><spatial frictionloss=\"1\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon>"), "robot.xml:12:9: <spatial>",
       "frictionloss"},
      {top_doc("<equality><weld body1=\"b\"/></equality>"), "robot.xml:12:11: <weld>", "equality constraints are not supported"},
      {top_doc("<actuator><motor name=\"m\" tendon=\"t\" gear=\"1\"/></actuator>"), "robot.xml:12:11: <motor name=\"m\">",
       "tendon 't' does not exist"},
      {top_doc("<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon><actuator><general tendon=\"t\" "
               "dyntype=\"muscle\" dynprm=\"0.1\"/></actuator>"),
       "robot.xml:12:89: <general>", "dyntype 'muscle' is not supported"},
      {top_doc("<actuator><intvelocity joint=\"j\" kp=\"1\"/></actuator>"), "robot.xml:12:11: <intvelocity>",
       "actuator <intvelocity> is not supported"},
      {top_doc("<actuator><motor joint=\"j\"/></actuator>"), "robot.xml:12:11: <motor>", "only tendon actuators are supported"},
      {top_doc("<actuator><damper tendon=\"t\" kv=\"1\"/></actuator>"), "robot.xml:12:11: <damper>", "actuator <damper> is not supported"},
      {top_doc("<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon><actuator><motor tendon=\"t\"/>"
               "<motor tendon=\"t\"/></actuator>"),
       "robot.xml:12:108: <motor>", "tendon 't' already has an actuator"},
      {top_doc("<default><position kp=\"3\"/></default><tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial>"
               "</tendon><actuator><motor tendon=\"t\"/></actuator>"),
       "robot.xml:12:126: <motor>", "mixed actuator defaults are not supported"},
      {top_doc("<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon><actuator><general tendon=\"t\" "
               "dyntype=\"filter\" actlimited=\"true\" actrange=\"0 1\"/></actuator>"),
       "robot.xml:12:89: <general>", "a limited activation"},
      {top_doc("<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon><actuator><motor tendon=\"t\" "
               "ctrllimited=\"true\"/></actuator>"),
       "robot.xml:12:89: <motor>", "ctrllimited needs ctrlrange"},
      {top_doc("<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon><actuator><motor tendon=\"t\" "
               "kp=\"3\"/></actuator>"),
       "robot.xml:12:89: <motor>", "attribute 'kp' does not belong to <motor>"},
      {top_doc("<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon><actuator><position tendon=\"t\" "
               "dampratio=\"1\"/></actuator>"),
       "robot.xml:12:89: <position>", "dampratio is not supported"},
      {top_doc("<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon><actuator><motor tendon=\"t\"/>"
               "</actuator><keyframe><key ctrl=\"1 2\"/></keyframe>"),
       "robot.xml:12:", "ctrl has 2 numbers; the model has 1 actuators"},
      {top_doc("<option density=\"1.2\"/>"), "robot.xml:12:1: <option>", "fluid forces"},
      {top_doc("<option><flag passive=\"disable\"/></option>"), "robot.xml:12:9: <flag>", "disabling passive forces"},
      {top_doc("<compiler settotalmass=\"5\"/>"), "robot.xml:12:1: <compiler>", "settotalmass"},
      {top_doc("<keyframe><key qpos=\"1 2 3\"/></keyframe>"), "robot.xml:12:11: <key>", "qpos has 3 numbers"},
      {"<mujoco><worldbody><geom type=\"box\" size=\"1 1 1\"/><body name=\"b\"><freejoint/><geom type=\"capsule\" size=\"0.1 0.5\"/></body></worldbody></mujoco>",
       "robot.xml:1:20: <geom>", "obstacles other than a floor plane are not supported"},
      {"<mujoco><worldbody><geom type=\"plane\" size=\"1 1 1\" euler=\"30 0 0\"/><body name=\"b\"><freejoint/><geom type=\"capsule\" size=\"0.1 0.5\"/></body></worldbody></mujoco>",
       "robot.xml:1:20: <geom>", "only a horizontal floor plane"},
      {"<mujoco><worldbody><body name=\"b\" mocap=\"true\"><geom type=\"capsule\" size=\"0.1 0.5\"/></body></worldbody></mujoco>",
       "robot.xml:1:20: <body name=\"b\">", "mocap"},
      {"<mujoco><worldbody><body name=\"b\"><freejoint/><geom type=\"capsule\" size=\"0.1 0.5\"/></body></worldbody>\n<bogus/></mujoco>",
       "robot.xml:2:1: <bogus>", "not supported"},
      {"<mujoco><worldbody><body name=\"b\"><freejoint/><geom type=\"capsule\" size=\"0.1 0.5\"/></body>\n</mujoco>", "robot.xml:2:1",
       "XML error"},
      {"<robot/>", "robot.xml:1:1: <robot>", "root element must be <mujoco>"},
      {"<mujoco><worldbody><body name=\"b\"><site name=\"x\"/></body></worldbody></mujoco>", "robot.xml:1:1: <mujoco>",
       "no body with a free joint"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.xml);
    const std::string e = import_error(c.xml);
    EXPECT_EQ(e.find(c.where), 0u) << e;
    EXPECT_NE(e.find(c.what), std::string::npos) << e;
  }
}

TEST(MjcfImport, ActuatorsAreSkippedOnRequestAndListed) {
  ts::MjcfImportReport rep;
  const auto xml = top_doc(
      "<tendon><spatial name=\"t\"><site site=\"s0\"/><site site=\"w\"/></spatial></tendon>"
      "<actuator><general name=\"g\" tendon=\"t\" dyntype=\"filter\" dynprm=\"0.1\" gainprm=\"5\" biasprm=\"0 -5 -1\" biastype=\"affine\"/>"
      "<position name=\"p\" tendon=\"t\" kp=\"40\"/></actuator>");
  EXPECT_NO_THROW(load(xml, &rep, true));
  ASSERT_EQ(rep.actuators.size(), 2u);
  EXPECT_EQ(rep.actuators[0].kind, "general");
  EXPECT_EQ(rep.actuators[0].tendon, "t");
  EXPECT_EQ(rep.actuators[0].dyntype, "filter");
  EXPECT_EQ(rep.actuators[0].biasprm, (std::vector<double>{0, -5, -1}));
  EXPECT_EQ(rep.actuators[1].kp, 40.0);
  EXPECT_TRUE(contains(rep.skipped, "actuator ignored on request"));
}

TEST(MjcfImport, TendonActuatorsBecomeForceActuatorsWithMujocosLaw) {
  ts::MjcfImportReport rep;
  const auto xml = top_doc(
      "<tendon><spatial name=\"t0\"><site site=\"s0\"/><site site=\"w\"/></spatial>"
      "<spatial name=\"t1\"><site site=\"s1\"/><site site=\"w\"/></spatial>"
      "<spatial name=\"t2\"><site site=\"s2\"/><site site=\"w\"/></spatial>"
      "<spatial name=\"t3\"><site site=\"s0\"/><site site=\"s2\"/></spatial></tendon>"
      "<actuator><motor name=\"m\" tendon=\"t0\" gear=\"2\" ctrllimited=\"true\" ctrlrange=\"-1 1\"/>"
      "<position name=\"p\" tendon=\"t1\" kp=\"40\" kv=\"0.5\"/>"
      "<velocity name=\"v\" tendon=\"t2\" kv=\"3\"/>"
      "<general name=\"g\" tendon=\"t3\" gaintype=\"affine\" gainprm=\"5 1 2\" biastype=\"affine\" biasprm=\"1 -5 -1\" "
      "forcelimited=\"true\" forcerange=\"-3 4\" dyntype=\"filter\" dynprm=\"0.05\"/></actuator>"
      "<keyframe><key ctrl=\"0.5 0.3 -0.1 2\" act=\"0.7\"/></keyframe>");
  const ts::Model m = load(xml, &rep).model;
  ASSERT_EQ(m.nactuator(), 4);
  EXPECT_EQ(m.actuator_ids, (std::vector<std::string>{"m", "p", "v", "g"}));
  const auto& a = m.force_actuators;
  for (int k = 0; k < 4; ++k) EXPECT_EQ(a[static_cast<std::size_t>(k)].cable, k);
  // motor: F = ctrl, gear 2, ctrl in [-1, 1]
  EXPECT_EQ(a[0].gear, 2.0);
  EXPECT_EQ(a[0].gain, (std::array<double, 3>{1, 0, 0}));
  EXPECT_EQ(a[0].bias, (std::array<double, 3>{0, 0, 0}));
  EXPECT_TRUE(a[0].ctrl_limited && !a[0].force_limited);
  EXPECT_EQ(a[0].ctrl_min, -1.0);
  EXPECT_EQ(a[0].ctrl_max, 1.0);
  // position: gain kp, bias (0, -kp, -kv)
  EXPECT_EQ(a[1].gain, (std::array<double, 3>{40, 0, 0}));
  EXPECT_EQ(a[1].bias, (std::array<double, 3>{0, -40, -0.5}));
  // velocity: gain kv, bias (0, 0, -kv)
  EXPECT_EQ(a[2].gain, (std::array<double, 3>{3, 0, 0}));
  EXPECT_EQ(a[2].bias, (std::array<double, 3>{0, 0, -3}));
  // general, affine gain and bias, force range
  EXPECT_EQ(a[3].gain, (std::array<double, 3>{5, 1, 2}));
  EXPECT_EQ(a[3].bias, (std::array<double, 3>{1, -5, -1}));
  EXPECT_TRUE(a[3].force_limited && !a[3].ctrl_limited);
  // its filter: the activation is a state number, from the key's act
  EXPECT_EQ(a[3].dynamics, ts::ForceActuator::Dynamics::kFilter);
  EXPECT_EQ(a[3].time_constant_s, 0.05);
  EXPECT_EQ(m.nactivation(), 1);
  EXPECT_EQ(m.nx(), 13 + 1);
  EXPECT_EQ(m.initial_state.x[m.activation_offset(3)], 0.7);
  EXPECT_EQ(a[3].force_min_N, -3.0);
  EXPECT_EQ(a[3].force_max_N, 4.0);
  // the keyframe's ctrl
  EXPECT_EQ(a[0].ctrl, 0.5);
  EXPECT_EQ(a[1].ctrl, 0.3);
  EXPECT_EQ(a[2].ctrl, -0.1);
  EXPECT_EQ(a[3].ctrl, 2.0);
  EXPECT_TRUE(contains(rep.mapped, "<position> 'p' on tendon 't1' -> force actuator"));
  EXPECT_TRUE(contains(rep.mapped, "ctrl -> the actuators' commands"));
  // exported and imported again: the same actuators
  const ts::Model back = load(ts::export_mjcf(m).xml).model;
  ASSERT_EQ(back.nactuator(), 4);
  for (std::size_t k = 0; k < 4; ++k) {
    SCOPED_TRACE(k);
    EXPECT_EQ(back.force_actuators[k].cable, a[k].cable);
    EXPECT_EQ(back.force_actuators[k].gear, a[k].gear);
    EXPECT_EQ(back.force_actuators[k].gain, a[k].gain);
    EXPECT_EQ(back.force_actuators[k].bias, a[k].bias);
    EXPECT_EQ(back.force_actuators[k].ctrl, a[k].ctrl);
    EXPECT_EQ(back.force_actuators[k].ctrl_limited, a[k].ctrl_limited);
    EXPECT_EQ(back.force_actuators[k].force_limited, a[k].force_limited);
    EXPECT_EQ(back.force_actuators[k].force_min_N, a[k].force_min_N);
    EXPECT_EQ(back.force_actuators[k].force_max_N, a[k].force_max_N);
    EXPECT_EQ(back.force_actuators[k].dynamics, a[k].dynamics);
    EXPECT_EQ(back.force_actuators[k].time_constant_s, a[k].time_constant_s);
  }
  EXPECT_EQ(back.initial_state.x[back.activation_offset(3)], 0.7);
  EXPECT_EQ(back.actuator_ids, m.actuator_ids);
}

TEST(MjcfImport, VisualOnlyElementsAreSkippedWithANote) {
  ts::MjcfImportReport rep;
  auto xml = top_doc(
      "<visual><global offwidth=\"800\"/></visual><asset><texture name=\"t\" type=\"2d\" builtin=\"checker\"/>"
      "<material name=\"m\" texture=\"t\"/></asset><statistic extent=\"2\"/>");
  xml.insert(20, "<light pos=\"0 0 3\"/><camera name=\"c\" pos=\"0 -2 1\"/>");
  EXPECT_NO_THROW(load(xml, &rep));
  for (const char* what : {"<visual>", "<asset>", "<statistic>", "<light>", "<camera name=\"c\">"})
    EXPECT_TRUE(contains(rep.skipped, what)) << what;
}

// ---------------------------------------------------------------- round trip
TEST(MjcfImport, ExportThenImportGivesTheSameModel) {
  const ts::Model orig = ts::default_model().model;
  ts::Model back = ts::load_mjcf_string(ts::to_mjcf(orig), "export.xml").model;
  ASSERT_EQ(back.nrod(), orig.nrod());
  ASSERT_EQ(back.ncable(), orig.ncable());
  const Eigen::MatrixX3d P0 = positions(orig), P1 = positions(back);
  for (int i = 0; i < orig.nnode(); ++i) {
    const int k = node(back, orig.node_ids[static_cast<std::size_t>(i)]);
    ASSERT_GE(k, 0) << orig.node_ids[static_cast<std::size_t>(i)];
    EXPECT_LE((P0.row(i) - P1.row(k)).norm(), 1e-12);
  }
  for (int j = 0; j < orig.nrod(); ++j) {
    const auto& a = orig.rods[static_cast<std::size_t>(j)];
    const auto& b = back.rods[static_cast<std::size_t>(j)];
    EXPECT_EQ(back.rod_ids[static_cast<std::size_t>(j)], orig.rod_ids[static_cast<std::size_t>(j)]);
    EXPECT_NEAR(b.mass_kg, a.mass_kg, 1e-15);
    const Matrix3d I = inertia_W(back, j);
    const Vector3d u = (P1.row(b.node[1]) - P1.row(b.node[0])).transpose().normalized();
    // thin rods come back with the exported axial inertia 1e-6 I_t (MJCF export note)
    EXPECT_NEAR(u.dot(I * u), std::max(a.inertia_axial_kgm2, 1e-6 * a.inertia_transverse_kgm2), 1e-15);
    EXPECT_NEAR(0.5 * (I.trace() - u.dot(I * u)), a.inertia_transverse_kgm2, 1e-15);
  }
  for (int k = 0; k < orig.ncable(); ++k) {
    const auto& a = orig.cables[static_cast<std::size_t>(k)];
    const auto& b = back.cables[static_cast<std::size_t>(k)];
    EXPECT_EQ(back.cable_ids[static_cast<std::size_t>(k)], orig.cable_ids[static_cast<std::size_t>(k)]);
    EXPECT_EQ(back.node_ids[static_cast<std::size_t>(b.node[0])], orig.node_ids[static_cast<std::size_t>(a.node[0])]);
    EXPECT_EQ(back.node_ids[static_cast<std::size_t>(b.node[1])], orig.node_ids[static_cast<std::size_t>(a.node[1])]);
    EXPECT_EQ(b.stiffness_Npm, a.stiffness_Npm);
    EXPECT_EQ(b.damping_Nspm, a.damping_Nspm);
    EXPECT_EQ(b.rest_length_m, a.rest_length_m);
    EXPECT_FALSE(b.tension_only);  // MuJoCo 2.2.2 tendon springs push (MJCF export note)
  }
  EXPECT_EQ(back.gravity_W, orig.gravity_W);
  // the rods are ideal rods in disguise: reduce them back
  EXPECT_EQ(ts::reduce_to_ideal_rods(back), 0);
  for (int j = 0; j < orig.nrod(); ++j) {
    EXPECT_FALSE(back.rods[static_cast<std::size_t>(j)].general_inertia);
    EXPECT_NEAR(back.rods[static_cast<std::size_t>(j)].com_ratio, orig.rods[static_cast<std::size_t>(j)].com_ratio, 1e-12);
    EXPECT_NEAR(back.rods[static_cast<std::size_t>(j)].inertia_transverse_kgm2,
                orig.rods[static_cast<std::size_t>(j)].inertia_transverse_kgm2, 1e-15);
  }
  const Eigen::MatrixX3d P2 = positions(back);
  EXPECT_LE((P2 - P1).cwiseAbs().maxCoeff(), 1e-12);
}

TEST(MjcfImport, ReduceKeepsRodsWithBodyPointsGeneral) {
  auto f = load(top_doc(""));  // s2 is a body point off the axis
  EXPECT_EQ(ts::reduce_to_ideal_rods(f.model), 1);
  EXPECT_TRUE(f.model.rods[0].general_inertia);
}

TEST(MjcfImport, TestRobotsOfTheSuiteLoad) {
  const std::string dir = std::string(TENDYN_SOURCE_DIR) + "/tests/data/mjcf/";
  const auto a = ts::load_mjcf_file(dir + "three_bar_global.xml");
  EXPECT_EQ(a.model.nrod(), 3);
  EXPECT_EQ(a.model.ncable(), 9);
  const auto b = ts::load_mjcf_file(dir + "six_bar.xml");
  EXPECT_EQ(b.model.nrod(), 6);
  EXPECT_EQ(b.model.ncable(), 24);
  const auto c = ts::load_mjcf_file(dir + "defaults_include.xml");
  EXPECT_EQ(c.model.nrod(), 3);
  EXPECT_EQ(c.model.ncable(), 9);
  EXPECT_EQ(c.simulation.dt_s, 1e-4);
}

// MuJoCo 2.2.2 gives a box or ellipsoid with fromto size[0] in both transverse directions (its
// size[1] is overwritten; seen in MuJoCo's geom_size, tests/peers).
TEST(MjcfImport, FromtoBoxAndEllipsoidUseSize0Across) {
  const auto f = load(
      "<mujoco><worldbody><body name=\"b\"><freejoint/><geom type=\"capsule\" fromto=\"0 0 -1 0 0 1\" size=\"0.01\" mass=\"0\"/>"
      "<geom type=\"ellipsoid\" fromto=\"0 0 0 0 0 -0.1\" size=\"0.02 0.01\" density=\"700\"/>"
      "<geom type=\"box\" fromto=\"0 0 0 0 0 0.2\" size=\"0.01 0.5\" density=\"100\"/></body></worldbody></mujoco>");
  EXPECT_NEAR(f.model.rods[0].mass_kg, 700 * 4.0 / 3.0 * kPi * 0.02 * 0.02 * 0.05 + 100 * 8 * 0.01 * 0.01 * 0.1, 1e-15);
  EXPECT_EQ(f.model.node_ids[0], "b.end0");
  EXPECT_NEAR(f.model.nodes[1].p_B_m.z() - f.model.nodes[0].p_B_m.z(), 2.0, 1e-15);  // end 0 at `from`
}
