// Rods from parts: each shape's mass and inertia against hand formulas, the parallel-axis
// combination, `parts:` in model files against the MJCF importer on the same geoms (1e-12), and
// the errors of bad parts.
#include <tendyn/core/error.hpp>
#include <tendyn/tensegrity/mass_parts.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>
#include <tendyn/tensegrity/model_io.hpp>

#include <gtest/gtest.h>

#include <string>

namespace ts = tendyn::tensegrity;
using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

constexpr double kPi = 3.14159265358979323846;

Matrix3d inertia_W(const ts::Model& m, int j) {
  const Matrix3d R = m.initial_state.q_WB(j).toRotationMatrix();
  return R * m.rods[static_cast<std::size_t>(j)].inertia_B_kgm2 * R.transpose();
}

std::string rod_yaml(const std::string& parts) {
  return "nodes:\n"
         "  - {id: a0, position: [0.1, -0.2, 0.3]}\n"
         "  - {id: a1, position: [0.5, 0.2, 0.5]}\n"
         "rods:\n"
         "  - id: A\n"
         "    length: 0.6\n"
         "    nodes: [a0, a1]\n"
         "    parts:\n" +
         parts + "ground: {type: compliant}\n";
}

std::string load_error(const std::string& yaml) {
  try {
    ts::load_model_string(yaml, "m.yaml");
  } catch (const tendyn::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(MassParts, ShapesMatchHandFormulas) {
  const double m = 0.7, r = 0.02, ri = 0.015, hl = 0.3, L = 2 * hl;
  Vector3d I = ts::part_principal_inertia(ts::PartShape::kTube, Vector3d(r, hl, ri), m);
  EXPECT_NEAR(I[0], m * (3 * (r * r + ri * ri) + L * L) / 12, 1e-16);
  EXPECT_NEAR(I[2], m * (r * r + ri * ri) / 2, 1e-16);
  EXPECT_NEAR(ts::part_volume(ts::PartShape::kTube, Vector3d(r, hl, ri)), kPi * (r * r - ri * ri) * L, 1e-16);
  I = ts::part_principal_inertia(ts::PartShape::kThinCylinder, Vector3d(0, hl, 0), m);
  EXPECT_NEAR(I[0], m * L * L / 12, 1e-16);
  EXPECT_EQ(I[2], 0.0);
  I = ts::part_principal_inertia(ts::PartShape::kCylinder, Vector3d(r, hl, 0), m);
  EXPECT_NEAR(I[1], m * (3 * r * r + L * L) / 12, 1e-16);
  EXPECT_NEAR(I[2], m * r * r / 2, 1e-16);
  I = ts::part_principal_inertia(ts::PartShape::kSphere, Vector3d(r, 0, 0), m);
  EXPECT_NEAR(I[0], 2 * m * r * r / 5, 1e-18);
  EXPECT_EQ(ts::part_principal_inertia(ts::PartShape::kPoint, Vector3d::Zero(), m), Vector3d::Zero());
  // capsule: cylinder plus two hemispheres at 3r/8 beyond the faces
  const double rho = 1000, mc = rho * kPi * r * r * L, ms = rho * 4.0 / 3.0 * kPi * r * r * r;
  EXPECT_NEAR(ts::part_volume(ts::PartShape::kCapsule, Vector3d(r, hl, 0)) * rho, mc + ms, 1e-14);
  I = ts::part_principal_inertia(ts::PartShape::kCapsule, Vector3d(r, hl, 0), mc + ms);
  EXPECT_NEAR(I[0], mc * (L * L / 12 + r * r / 4) + ms * (2 * r * r / 5 + L * L / 4 + 3 * L * r / 8), 1e-14);
  EXPECT_NEAR(I[2], mc * r * r / 2 + ms * 2 * r * r / 5, 1e-16);
}

TEST(MassParts, CombineIsTheParallelAxisTheorem) {
  // two point masses 1 kg at x = -1 and 3 kg at x = +1: com at 0.5, I_yy = I_zz = 1 * 1.5^2 + 3 * 0.5^2 = 3
  const auto c = ts::combine_parts({ts::make_part(ts::PartShape::kPoint, Vector3d::Zero(), 1.0, Vector3d(-1, 0, 0)),
                                    ts::make_part(ts::PartShape::kPoint, Vector3d::Zero(), 3.0, Vector3d(1, 0, 0))});
  EXPECT_DOUBLE_EQ(c.mass_kg, 4.0);
  EXPECT_NEAR((c.com_m - Vector3d(0.5, 0, 0)).norm(), 0.0, 1e-15);
  EXPECT_NEAR(c.inertia_kgm2(0, 0), 0.0, 1e-15);
  EXPECT_NEAR(c.inertia_kgm2(1, 1), 3.0, 1e-15);
  EXPECT_NEAR(c.inertia_kgm2(2, 2), 3.0, 1e-15);
  EXPECT_EQ(ts::combine_parts({}).mass_kg, 0.0);
}

TEST(MassParts, YamlPartsEqualTheMjcfImportersCompositeForTheSameGeoms) {
  // the same body twice: an aluminium tube along the rod (MJCF: a cylinder with its mass; the
  // tube's inertia differs, so the comparison uses a solid cylinder), two sphere end-caps, a capsule
  // motor housing off the axis and a point mass as a small sphere of negligible radius is not
  // MuJoCo's: it is checked by hand below.
  const std::string xml =
      "<mujoco><worldbody><body name=\"A\"><freejoint/>"
      "<geom type=\"cylinder\" fromto=\"0.1 -0.2 0.3 0.5 0.2 0.5\" size=\"0.01\" density=\"2700\"/>"
      "<geom type=\"sphere\" pos=\"0.1 -0.2 0.3\" size=\"0.03\" mass=\"0.05\"/>"
      "<geom type=\"sphere\" pos=\"0.5 0.2 0.5\" size=\"0.025\" mass=\"0.04\"/>"
      "<geom type=\"capsule\" fromto=\"0.2 -0.1 0.38 0.25 -0.05 0.4\" size=\"0.02\" mass=\"0.2\"/>"
      "</body></worldbody></mujoco>";
  const auto fx = ts::load_mjcf_string(xml, "robot.xml");
  const auto fy =
      ts::load_model_string(rod_yaml("      - {type: cylinder, radius: 0.01, density: 2700}\n"
                                     "      - {type: sphere, end: 0, radius: 0.03, mass: 0.05}\n"
                                     "      - {type: sphere, position: [0.5, 0.2, 0.5], radius: 0.025, mass: 0.04}\n"
                                     "      - {type: capsule, from: [0.2, -0.1, 0.38], to: [0.25, -0.05, 0.4], radius: 0.02, mass: 0.2}\n"),
                            "m.yaml");
  const auto& rx = fx.model.rods[0];
  const auto& ry = fy.model.rods[0];
  ASSERT_TRUE(ry.general_inertia);
  EXPECT_NEAR(ry.mass_kg, rx.mass_kg, 1e-12);
  EXPECT_NEAR((Vector3d(fy.model.initial_state.p_WC(0)) - Vector3d(fx.model.initial_state.p_WC(0))).norm(), 0.0, 1e-12);
  EXPECT_NEAR((inertia_W(fy.model, 0) - inertia_W(fx.model, 0)).cwiseAbs().maxCoeff(), 0.0, 1e-12);
  // the centre of mass is off the rod's axis (the housing): not on the segment a0-a1
  const Vector3d p0(0.1, -0.2, 0.3), p1(0.5, 0.2, 0.5), c = fy.model.initial_state.p_WC(0);
  const Vector3d u = (p1 - p0).normalized();
  EXPECT_GT(((c - p0) - u * u.dot(c - p0)).norm(), 1e-3);
}

TEST(MassParts, YamlTubeAndPointMassGiveHandFormulas) {
  // a tube along the axis and a point mass at end 1: com and inertia about it by hand
  const double mt = 0.3, mp = 0.1, r = 0.012, ri = 0.01, L = 0.6;
  const auto f = ts::load_model_string(rod_yaml("      - {type: tube, radius: 0.012, inner_radius: 0.01, mass: 0.3}\n"
                                                "      - {type: point, end: 1, mass: 0.1}\n"),
                                       "m.yaml");
  const auto& rod = f.model.rods[0];
  EXPECT_NEAR(rod.mass_kg, mt + mp, 1e-15);
  // along the axis from the middle: the com sits mp/(mt+mp) L/2 toward end 1
  const double s = mp / (mt + mp) * L / 2;
  const Vector3d p0(0.1, -0.2, 0.3), p1(0.5, 0.2, 0.5), u = (p1 - p0).normalized();
  EXPECT_NEAR((Vector3d(f.model.initial_state.p_WC(0)) - ((p0 + p1) / 2 + s * u)).norm(), 0.0, 1e-14);
  const double It = mt * (3 * (r * r + ri * ri) + L * L) / 12 + mt * s * s + mp * (L / 2 - s) * (L / 2 - s);
  const double Ia = mt * (r * r + ri * ri) / 2;
  EXPECT_NEAR(rod.inertia_B_kgm2(0, 0), It, 1e-14);
  EXPECT_NEAR(rod.inertia_B_kgm2(1, 1), It, 1e-14);
  EXPECT_NEAR(rod.inertia_B_kgm2(2, 2), Ia, 1e-16);
  EXPECT_NEAR(rod.inertia_B_kgm2(0, 2), 0.0, 1e-15);
  // the ends sit where the nodes are, seen from the com
  EXPECT_NEAR((f.model.nodes[1].p_B_m - Vector3d(0, 0, L / 2 - s)).norm(), 0.0, 1e-14);
}

TEST(MassParts, BadPartsAreErrorsAtTheirEntry) {
  EXPECT_NE(load_error(rod_yaml("      - {type: cone, mass: 1}\n")).find("m.yaml:9:16: rods[0].parts[0].type: unknown part type 'cone'"),
            std::string::npos)
      << load_error(rod_yaml("      - {type: cone, mass: 1}\n"));
  EXPECT_NE(load_error(rod_yaml("      - {type: sphere, end: 0, radius: 0.01, mass: 1, density: 3}\n")).find("exactly one of 'mass'"),
            std::string::npos);
  EXPECT_NE(load_error(rod_yaml("      - {type: point, end: 0, density: 3}\n")).find("has no volume"), std::string::npos);
  EXPECT_NE(load_error(rod_yaml("      - {type: tube, radius: 0.01, inner_radius: 0.01, mass: 1}\n")).find("must be less than radius"),
            std::string::npos);
  EXPECT_NE(load_error(rod_yaml("      - {type: cylinder, radius: 0.01, from: [0, 0, 0], mass: 1}\n")).find("give both 'from' and 'to'"),
            std::string::npos);
  EXPECT_NE(
      load_error(rod_yaml("      - {type: sphere, radius: 0.01, from: [0, 0, 0], to: [1, 0, 0], mass: 1}\n")).find("'from' does not apply"),
      std::string::npos);
  EXPECT_NE(load_error("nodes:\n  - {id: a0, position: [0, 0, 0]}\n  - {id: a1, position: [0, 0, 1]}\nrods:\n"
                       "  - {id: A, mass: 1, length: 1, nodes: [a0, a1], parts: [{type: point, end: 0, mass: 1}]}\n")
                .find("'mass' cannot be combined with 'parts'"),
            std::string::npos);
  // a thin cylinder alone has no axial inertia: refused at the parts list, not left to the dynamics
  EXPECT_NE(load_error(rod_yaml("      - {type: thin_cylinder, mass: 1}\n"))
                .find("rods[0].parts: the parts give no moment of inertia about one axis"),
            std::string::npos)
      << load_error(rod_yaml("      - {type: thin_cylinder, mass: 1}\n"));
}
