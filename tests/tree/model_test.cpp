#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/model.hpp>
#include <tendyn/tree/model_io.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "tree/tree_fixtures.hpp"

#include "support/error_of.hpp"

namespace tendyn::tree {
namespace {

using testing::model_path;

using test::error_of;

TEST(TreeReachability, ChainIsLowerTriangularOnes) {
  const Eigen::MatrixXi D = reachability_from_parents({-1, 0, 1, 2});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(D(i, j), j <= i ? 1 : 0);
}

TEST(TreeReachability, BipedMatchesDocument003) {
  const Model m = load_model_yaml(model_path("biped.yaml"));
  ASSERT_EQ(m.nlinks(), 18);
  ASSERT_EQ(m.nv, 18);
  // D = [[U6, 0, 0], [1, U6, 0], [1, 0, U6]] with U lower triangular ones (incl. diagonal).
  for (int i = 0; i < 18; ++i)
    for (int j = 0; j < 18; ++j) {
      const int bi = i / 6, bj = j / 6;
      int expect = 0;
      if (bi == bj)
        expect = (j <= i);
      else if (bj == 0)
        expect = 1;
      EXPECT_EQ(m.reachability(i, j), expect) << i << "," << j;
    }
  EXPECT_EQ(parents_from_reachability(m.reachability), m.parent);
}

TEST(TreeReachability, RoundTripRandomTree) {
  const Model m = testing::random_tree(30, 7);
  EXPECT_EQ(parents_from_reachability(m.reachability), m.parent);
}

TEST(TreeReachability, RejectsNonTreeMatrices) {
  Eigen::MatrixXi D(3, 3);
  D << 1, 0, 0, 1, 1, 0, 0, 1, 1;  // link 3 reaches from 2 but not from 2's parent 1
  EXPECT_NE(error_of([&] { (void)parents_from_reachability(D); }).find("not a tree"), std::string::npos);
  D << 1, 1, 0, 0, 1, 0, 0, 0, 1;
  EXPECT_NE(error_of([&] { (void)parents_from_reachability(D); }).find("lower triangular"), std::string::npos);
  D << 1, 0, 0, 0, 0, 0, 0, 0, 1;
  EXPECT_NE(error_of([&] { (void)parents_from_reachability(D); }).find("diagonal"), std::string::npos);
  D << 1, 0, 0, 2, 1, 0, 0, 0, 1;
  EXPECT_NE(error_of([&] { (void)parents_from_reachability(D); }).find("0 or 1"), std::string::npos);
  EXPECT_THROW((void)parents_from_reachability(Eigen::MatrixXi::Ones(2, 3)), Error);
}

TEST(TreeModel, DepthFirstNumberingAndSizes) {
  ModelBuilder b("t");
  Link l;
  l.mass_kg = 1.0;
  l.inertia_C_kgm2 = Eigen::Matrix3d::Identity() * 0.1;
  Joint rev;
  rev.type = JointType::kRevolute;
  l.name = "a";
  b.add_link(l, "", rev);
  l.name = "c";
  b.add_link(l, "b", rev);  // child before its parent in the input
  l.name = "b";
  b.add_link(l, "a", rev);
  l.name = "d";
  b.add_link(l, "a", rev);
  const Model m = b.build();
  EXPECT_EQ(m.links[0].name, "a");
  EXPECT_EQ(m.links[1].name, "b");
  EXPECT_EQ(m.links[2].name, "c");
  EXPECT_EQ(m.links[3].name, "d");
  EXPECT_EQ(m.parent, (std::vector<int>{-1, 0, 1, 0}));
}

TEST(TreeModel, BuilderErrors) {
  Link l;
  l.mass_kg = 1.0;
  l.inertia_C_kgm2 = Eigen::Matrix3d::Identity();
  Joint rev;
  rev.type = JointType::kRevolute;
  {
    ModelBuilder b;
    l.name = "a";
    b.add_link(l, "b", rev);
    l.name = "b";
    b.add_link(l, "a", rev);
    EXPECT_NE(error_of([&] { (void)b.build(); }).find("closed loop"), std::string::npos);
  }
  {
    ModelBuilder b;
    l.name = "a";
    b.add_link(l, "nope", rev);
    EXPECT_NE(error_of([&] { (void)b.build(); }).find("does not exist"), std::string::npos);
  }
  {
    ModelBuilder b;
    Link bad = l;
    bad.name = "a";
    bad.inertia_C_kgm2 = Eigen::Vector3d(1.0, 1.0, 5.0).asDiagonal();
    b.add_link(bad, "", rev);
    EXPECT_NE(error_of([&] { (void)b.build(); }).find("triangle"), std::string::npos);
  }
  {
    ModelBuilder b;
    Link massless;
    massless.name = "a";
    b.add_link(massless, "", rev);
    EXPECT_NE(error_of([&] { (void)b.build(); }).find("massless"), std::string::npos);
  }
  {
    ModelBuilder b;
    Joint j = rev;
    j.axis = Eigen::Vector3d(1.0, 1.0, 0.0);
    l.name = "a";
    b.add_link(l, "", j);
    EXPECT_NE(error_of([&] { (void)b.build(); }).find("unit"), std::string::npos);
  }
}

TEST(TreeModel, YamlAndUrdfBipedAgree) {
  const Model y = load_model(model_path("biped.yaml"), BaseMode::kFictitious);
  const Model u = load_model(model_path("biped.urdf"), BaseMode::kFictitious);
  ASSERT_EQ(y.nlinks(), u.nlinks());
  EXPECT_EQ(y.reachability, u.reachability);
  for (int i = 0; i < y.nlinks(); ++i) {
    EXPECT_EQ(y.links[i].name, u.links[i].name);
    EXPECT_DOUBLE_EQ(y.links[i].mass_kg, u.links[i].mass_kg);
    EXPECT_TRUE(y.links[i].inertia_C_kgm2.isApprox(u.links[i].inertia_C_kgm2));
    EXPECT_TRUE(y.joints[i].axis.isApprox(u.joints[i].axis));
    EXPECT_TRUE(y.joints[i].p_PJ_m.isApprox(u.joints[i].p_PJ_m) || y.joints[i].p_PJ_m.isZero());
  }
  const Model f = load_model(model_path("biped.urdf"), BaseMode::kFree);
  EXPECT_EQ(f.nlinks(), 13);
  EXPECT_EQ(f.nq, 19);
  EXPECT_EQ(f.nv, 18);
}

TEST(TreeModel, UrdfRoundTrip) {
  const Model a = load_model(model_path("arm6.yaml"));
  const Model b = urdf_from_string(to_urdf(a), "roundtrip.urdf");
  ASSERT_EQ(a.nlinks(), b.nlinks());
  for (int i = 0; i < a.nlinks(); ++i) {
    EXPECT_TRUE(a.joints[i].R_PJ.isApprox(b.joints[i].R_PJ, 1e-12)) << i;
    EXPECT_TRUE(a.joints[i].p_PJ_m.isApprox(b.joints[i].p_PJ_m, 1e-12) || a.joints[i].p_PJ_m.isZero()) << i;
    EXPECT_EQ(a.joints[i].type, b.joints[i].type);
  }
}

// Found by fuzz/tree_yaml_fuzz.cpp (fuzz/regressions/tree_yaml/name_with_markup.yaml): names
// were written into URDF attributes unescaped, so a YAML model named with & < > " gave URDF that
// the reader refused ("unknown entity") or read differently.
TEST(TreeModel, UrdfRoundTripEscapesMarkupInNames) {
  const Model a = model_from_yaml_string(
      "name: 'r&d <\"robot\">'\n"
      "links:\n"
      "  - {name: 'a&ffff;b', parent: world, joint: {name: 'j<1>', type: revolute, axis: [0, 0, 1]},\n"
      "     mass: 1, com: [0, 0, 0], inertia: {ixx: 1, iyy: 1, izz: 1, ixy: 0, ixz: 0, iyz: 0}}\n"
      "  - {name: '\"c\"', parent: 'a&ffff;b', joint: {type: prismatic, axis: [1, 0, 0]},\n"
      "     mass: 1, com: [0, 0, 0], inertia: {ixx: 1, iyy: 1, izz: 1, ixy: 0, ixz: 0, iyz: 0}}\n",
      "names.yaml");
  const std::string urdf = to_urdf(a);
  EXPECT_NE(urdf.find("<link name=\"a&amp;ffff;b\">"), std::string::npos) << urdf;
  const Model b = urdf_from_string(urdf, "names.urdf");
  EXPECT_EQ(b.name, "r&d <\"robot\">");
  ASSERT_EQ(b.nlinks(), 2);
  EXPECT_EQ(b.links[0].name, "a&ffff;b");
  EXPECT_EQ(b.joints[0].name, "j<1>");
  EXPECT_EQ(b.links[1].name, "\"c\"");
  EXPECT_EQ(b.parent[1], 0);
}

// Found by the sanitizer replay of fuzz/tree_yaml_fuzz.cpp (fuzz/regressions/tree_yaml/
// reachability_1e10.yaml): the file's reachability entries were cast to int before being checked,
// undefined behaviour for 1e10; now every entry other than 0 or 1 is refused before the cast.
TEST(TreeModel, ReachabilityEntriesOutsideZeroOneAreRefusedWithThePlace) {
  const std::string links =
      "links:\n"
      "  - {name: a, parent: world, joint: {type: revolute, axis: [0, 0, 1]}, mass: 1, com: [0, 0, 0],\n"
      "     inertia: {ixx: 1, iyy: 1, izz: 1, ixy: 0, ixz: 0, iyz: 0}}\n";
  for (const char* bad : {"[[1e10]]", "[[-3e9]]", "[[0.5]]", "[[2]]"}) {
    const std::string e = error_of([&] { (void)model_from_yaml_string("reachability: " + std::string(bad) + "\n" + links, "r.yaml"); });
    EXPECT_NE(e.find("r.yaml:1:15: reachability: entries must be 0 or 1"), std::string::npos) << bad << ": " << e;
  }
  EXPECT_EQ(model_from_yaml_string("reachability: [[1]]\n" + links, "r.yaml").nlinks(), 1);
}

const char* kUrdfHead = "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n";
const char* kLinks =
    "  <link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n"
    "  <link name=\"b\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n"
    "  <link name=\"c\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n";

std::string urdf_error(const std::string& joints) {
  return error_of([&] { (void)urdf_from_string(std::string(kUrdfHead) + kLinks + joints + "</robot>\n", "bad.urdf"); });
}

TEST(TreeModel, EnumNamesRoundTripAndUnknownNamesListTheAccepted) {
  for (JointType t : {JointType::kFixed, JointType::kRevolute, JointType::kPrismatic, JointType::kFree})
    EXPECT_EQ(joint_type_from_string(to_string(t)), t);
  EXPECT_STREQ(to_string(JointType::kPrismatic), "prismatic");
  EXPECT_EQ(joint_type_from_string("continuous"), JointType::kRevolute);
  EXPECT_EQ(joint_type_from_string("floating"), JointType::kFree);
  EXPECT_EQ(joint_type_from_string("Revolute"), JointType::kRevolute);  // any case (tendyn/core/enum_names.hpp)
  EXPECT_EQ(error_of([] { (void)joint_type_from_string("hinge"); }),
            "unknown joint type 'hinge' (valid: fixed, revolute (also continuous), prismatic, free (also floating))");
  for (BaseMode m : {BaseMode::kAsWritten, BaseMode::kFictitious, BaseMode::kFree}) EXPECT_EQ(base_mode_from_string(to_string(m)), m);
  EXPECT_STREQ(to_string(BaseMode::kAsWritten), "as-written");
  EXPECT_EQ(base_mode_from_string("as_written"), BaseMode::kAsWritten);  // '_' reads as '-'
  EXPECT_EQ(error_of([] { (void)base_mode_from_string("written"); }), "unknown base mode 'written' (valid: as-written, fictitious, free)");
}

// validate() accepts every built model and names the broken invariant of a hand-edited one.
TEST(TreeModel, ValidateNamesTheBrokenInvariant) {
  const Model good = load_model(model_path("double_pendulum.yaml"));
  EXPECT_NO_THROW(validate(good));
  EXPECT_NO_THROW(validate(load_model(model_path("biped.urdf"), BaseMode::kFree)));
  EXPECT_NO_THROW(validate(load_model(model_path("biped.yaml"), BaseMode::kFictitious)));
  auto broken = [&](auto edit) {
    Model m = good;
    edit(m);
    return error_of([&] { validate(m); });
  };
  std::string e = broken([](Model& m) { m.gravity_W.x() = std::nan(""); });
  EXPECT_NE(e.find("tree model 'double_pendulum': gravity must be finite"), std::string::npos) << e;
  e = broken([](Model& m) { m.links[1].mass_kg = -1.0; });
  EXPECT_NE(e.find("link 'link2': mass must be finite and >= 0"), std::string::npos) << e;
  e = broken([](Model& m) { m.links[0].p_LC_m.y() = INFINITY; });
  EXPECT_NE(e.find("centre of mass must be finite"), std::string::npos) << e;
  e = broken([](Model& m) { m.joints[1].p_PJ_m.z() = std::nan(""); });
  EXPECT_NE(e.find("origin and axis must be finite"), std::string::npos) << e;
  e = broken([](Model& m) { m.parent[1] = 1; });
  EXPECT_NE(e.find("parent 1 must be -1 or < 1"), std::string::npos) << e;
  e = broken([](Model& m) {
    m.joints[1].type = JointType::kPrismatic;
    m.joints[1].nv = 0;
  });
  EXPECT_NE(e.find("do not match its type prismatic"), std::string::npos) << e;
  e = broken([](Model& m) { m.nv = 3; });
  EXPECT_NE(e.find("nq = 2, nv = 3 do not match the joints (2, 2)"), std::string::npos) << e;
  e = broken([](Model& m) { m.children[0].clear(); });
  EXPECT_NE(e.find("children do not match parent"), std::string::npos) << e;
  e = broken([](Model& m) { m.reachability(1, 0) = 0; });
  EXPECT_NE(e.find("reachability matrix does not match parent"), std::string::npos) << e;
  e = broken([](Model& m) { m.joints[1].name = m.joints[0].name; });
  EXPECT_NE(e.find("duplicate joint name 'link1_joint'"), std::string::npos) << e;
  e = broken([](Model& m) { m.links.pop_back(); });
  EXPECT_NE(e.find("must be sized nlinks = 1"), std::string::npos) << e;
  e = broken([](Model& m) {
    m.links[1].mass_kg = 0.0;
    m.links[1].inertia_C_kgm2.setZero();
  });
  EXPECT_NE(e.find("joint 'link2_joint' moves a massless subtree"), std::string::npos) << e;
}

// The constants derived from the links and joints live in the Model, computed once by
// ModelBuilder::build (finalize); a hand edit of the links leaves them stale, which validate()
// names, and finalize() recomputes them to exactly what a fresh build gives.
TEST(TreeModel, DerivedConstantsAreTheModelsAndValidateNamesStaleOnes) {
  const Model good = load_model(model_path("biped.urdf"), BaseMode::kFree);
  const auto n = static_cast<std::size_t>(good.nlinks());
  ASSERT_EQ(good.I_L.size(), n);
  ASSERT_EQ(good.I_cluster.size(), n);
  ASSERT_EQ(good.crba_parent.size(), n);
  ASSERT_EQ(good.X_CJ.size(), n);
  ASSERT_EQ(good.merge_kind.size(), n);
  ASSERT_EQ(good.v_parent.size(), static_cast<std::size_t>(good.nv));
  EXPECT_EQ(good.crba_links.front(), 0);
  EXPECT_EQ(good.merge_kind[0], MergeKind::kCarrier);
  EXPECT_EQ(good.I_L[1].m, good.links[1].mass_kg);

  Model edited = good;
  edited.links[1].mass_kg *= 2.0;  // valid mass, stale I_L / I_cluster
  std::string e = error_of([&] { validate(edited); });
  EXPECT_NE(e.find("tree model '" + good.name + "': derived constant I_L does not match the links and joints"), std::string::npos) << e;
  EXPECT_NE(e.find("call tree::finalize(model)"), std::string::npos) << e;
  finalize(edited);
  EXPECT_NO_THROW(validate(edited));
  EXPECT_EQ(edited.I_L[1].m, 2.0 * good.links[1].mass_kg);

  // The same model built from scratch: the same constants and bit-identical dynamics.
  ModelBuilder b(good.name);
  for (int i = 0; i < good.nlinks(); ++i)
    b.add_link(edited.links[static_cast<std::size_t>(i)],
               good.parent[static_cast<std::size_t>(i)] >= 0
                   ? good.links[static_cast<std::size_t>(good.parent[static_cast<std::size_t>(i)])].name
                   : "",
               good.joints[static_cast<std::size_t>(i)]);
  const Model built = b.build();
  EXPECT_EQ(built.crba_links, edited.crba_links);
  EXPECT_EQ(built.merge_kind, edited.merge_kind);
  Data d1(built), d2(edited);
  const Eigen::VectorXd q = built.random_configuration(3);
  const Eigen::VectorXd v = Eigen::VectorXd::LinSpaced(built.nv, -1.0, 1.0);
  EXPECT_EQ(rnea(built, d1, q, v, v), rnea(edited, d2, q, v, v));
  EXPECT_EQ(crba(built, d1, q), crba(edited, d2, q));

  // A hand-edited structure is still named before the constants are recomputed.
  Model bad = good;
  bad.links[1].mass_kg = -1.0;
  e = error_of([&] { finalize(bad); });
  EXPECT_NE(e.find("mass must be finite and >= 0"), std::string::npos) << e;
}

TEST(TreeUrdf, Errors) {
  const std::string j_ab = "  <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/></joint>\n";
  // Closed loop: c is the child of two joints.
  const std::string loop = j_ab +
                           "  <joint name=\"j2\" type=\"revolute\"><parent link=\"a\"/><child link=\"c\"/></joint>\n"
                           "  <joint name=\"j3\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/></joint>\n";
  std::string e = urdf_error(loop);
  EXPECT_NE(e.find("closed kinematic loop"), std::string::npos) << e;
  EXPECT_NE(e.find("bad.urdf:"), std::string::npos) << e;
  e = urdf_error(j_ab + "  <joint name=\"j2\" type=\"planar\"><parent link=\"b\"/><child link=\"c\"/></joint>\n");
  EXPECT_NE(e.find("planar"), std::string::npos) << e;
  e = urdf_error(j_ab + "  <joint name=\"j2\" type=\"screw\"><parent link=\"b\"/><child link=\"c\"/></joint>\n");
  EXPECT_NE(e.find("unknown joint type 'screw'"), std::string::npos) << e;
  // "free" is tendyn's name, not a URDF type (URDF: "floating")
  e = urdf_error(j_ab + "  <joint name=\"j2\" type=\"free\"><parent link=\"b\"/><child link=\"c\"/></joint>\n");
  EXPECT_NE(e.find("unknown joint type 'free' (valid: fixed, revolute, continuous, prismatic, floating)"), std::string::npos) << e;
  e = urdf_error(j_ab + "  <joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"zz\"/></joint>\n");
  EXPECT_NE(e.find("unknown link 'zz'"), std::string::npos) << e;
  e = urdf_error(j_ab + "  <joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/><mimic joint=\"j1\"/></joint>\n");
  EXPECT_NE(e.find("mimic"), std::string::npos) << e;
  e = urdf_error(j_ab +
                 "  <joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/><origin xyz=\"0 nan 0\"/></joint>\n");
  EXPECT_NE(e.find("finite"), std::string::npos) << e;
  e = urdf_error(j_ab);  // c is disconnected
  EXPECT_NE(e.find("not connected"), std::string::npos) << e;
  e = error_of([] { (void)urdf_from_string("<robot name=\"x\"><link name=\"a\"></robot>", "t.urdf"); });
  EXPECT_NE(e.find("t.urdf:1:32: XML error: </robot> closes <link>"), std::string::npos) << e;
  EXPECT_THROW((void)load_urdf("/nonexistent/x.urdf"), Error);
}

// URDF messages name line and column: of the element at fault (issue 15: they named no column).
TEST(TreeUrdf, ErrorsNameLineAndColumn) {
  const std::string j_ab = "  <joint name=\"j1\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"0 0 1\"/></joint>\n";
  std::string e = urdf_error(j_ab);  // c (line 5 of the text) is not connected
  EXPECT_NE(e.find("bad.urdf:5:3: <link>: link 'c' is not connected"), std::string::npos) << e;
  e = urdf_error(j_ab +
                 "  <joint name=\"j2\" type=\"revolute\"><parent link=\"b\"/><child link=\"c\"/><origin xyz=\"0 nan 0\"/></joint>\n");
  EXPECT_NE(e.find("bad.urdf:7:71: <origin>: attribute 'xyz' is not a finite number"), std::string::npos) << e;
  e = urdf_error(j_ab + "  <joint name=\"j2\" type=\"screw\"><parent link=\"b\"/><child link=\"c\"/></joint>\n");
  EXPECT_NE(e.find("bad.urdf:7:3: <joint>: joint 'j2': unknown joint type 'screw'"), std::string::npos) << e;
}

/// URDF text of a chain of n links (l0 .. l{n-1}) joined by revolute joints.
std::string urdf_chain(int n) {
  std::string s = "<robot name=\"chain\">\n";
  for (int i = 0; i < n; ++i)
    s += "<link name=\"l" + std::to_string(i) +
         "\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" "
         "ixz=\"0\" iyz=\"0\"/></inertial></link>\n";
  for (int i = 1; i < n; ++i)
    s += "<joint name=\"j" + std::to_string(i) + "\" type=\"revolute\"><parent link=\"l" + std::to_string(i - 1) + "\"/><child link=\"l" +
         std::to_string(i) + "\"/></joint>\n";
  return s + "</robot>\n";
}

// Above ~50k links the O(n^2) reachability matrix ended in bad_alloc (exit 4). Now kMaxLinks is
// checked by the readers (with the place) and by ModelBuilder before anything is allocated.
TEST(TreeLimits, LinkCountIsBoundedWithAClearError) {
  const Model m = urdf_from_string(urdf_chain(kMaxLinks), "chain.urdf");  // the limit itself loads
  EXPECT_EQ(m.nlinks(), kMaxLinks);
  EXPECT_EQ(m.reachability(kMaxLinks - 1, 0), 1);
  std::string e = error_of([] { (void)urdf_from_string(urdf_chain(kMaxLinks + 1), "chain.urdf"); });
  EXPECT_NE(e.find("chain.urdf:4098:1: <link>: more than the limit of 4096 links"), std::string::npos) << e;
  std::string yaml = "name: big\nlinks:\n";
  for (int i = 0; i <= kMaxLinks; ++i)
    yaml += "  - {name: l" + std::to_string(i) + ", joint: {type: revolute}, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n";
  e = error_of([&] { (void)model_from_yaml_string(yaml, "big.yaml"); });
  EXPECT_NE(e.find("big.yaml:3:3: links: 4097 links, more than the limit of 4096"), std::string::npos) << e;
  ModelBuilder b("many");
  Link l;
  l.mass_kg = 1.0;
  l.inertia_C_kgm2 = Eigen::Matrix3d::Identity();
  for (int i = 0; i <= kMaxLinks; ++i) {
    l.name = "l" + std::to_string(i);
    b.add_link(l, "", Joint{});
  }
  e = error_of([&] { (void)b.build(); });
  EXPECT_NE(e.find("tree model 'many': 4097 links, more than the limit of 4096"), std::string::npos) << e;
}

TEST(TreeLimits, DirectoryIsNamedAsSuch) {
  const std::string dir = ::testing::TempDir() + "tendyn_tree_dir.urdf";
  std::filesystem::create_directories(dir);
  const std::string e = error_of([&] { (void)load_model(dir); });
  EXPECT_NE(e.find("is a directory"), std::string::npos) << e;
}

TEST(TreeYaml, Errors) {
  auto yerr = [](const std::string& text) { return error_of([&] { (void)model_from_yaml_string(text, "m.yaml"); }); };
  const std::string ok_link = "  - {name: a, joint: {type: revolute, axis: [0, 0, 1]}, mass: 1.0, inertia: {ixx: 1, iyy: 1, izz: 1}}\n";
  EXPECT_NO_THROW((void)model_from_yaml_string("links:\n" + ok_link, "m.yaml"));
  std::string e = yerr("links:\n  - {name: a, joint: {type: hinge}, mass: 1.0}\n");
  EXPECT_NE(e.find("unknown joint type 'hinge'"), std::string::npos) << e;
  EXPECT_NE(e.find("m.yaml:2:"), std::string::npos) << e;
  e = yerr("links:\n  - {name: a, joint: {type: revolute}, mass: -1.0}\n");
  EXPECT_NE(e.find("mass"), std::string::npos) << e;
  e = yerr("links:\n" + ok_link + "  - {name: b, parent: zz, joint: {type: revolute}, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n");
  EXPECT_NE(e.find("parent 'zz' does not exist"), std::string::npos) << e;
  e = yerr("links:\n  - {name: a, mass: 1.0, colour: red}\n");
  EXPECT_NE(e.find("unknown field"), std::string::npos) << e;
  e = yerr("reachability: [[1, 0], [0, 1]]\nlinks:\n" + ok_link +
           "  - {name: b, parent: a, joint: {type: revolute}, mass: 1, inertia: {ixx: 1, iyy: 1, izz: 1}}\n");
  EXPECT_NE(e.find("does not match"), std::string::npos) << e;
  e = yerr("reachability: [[1, 1], [0, 1]]\nlinks:\n" + ok_link);
  EXPECT_NE(e.find("lower triangular"), std::string::npos) << e;
  e = yerr("links:\n  - {name: a, joint: {type: revolute, axis: [0, 0, .nan]}, mass: 1.0}\n");
  EXPECT_FALSE(e.empty());
}

}  // namespace
}  // namespace tendyn::tree
