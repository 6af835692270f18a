// The MJCF importer against MuJoCo 2.2.2 reading the same files: composite mass, centre of mass
// and inertia of every rod (to 1e-12 relative), body orientation, site positions and velocities
// after the keyframe, tendon rest lengths. The cross-engine motion check of the test robots
// (tests/data/mjcf/*.xml against the *.mujoco.csv and *.mujoco3.csv written by
// tests/peers/mjcf_reference) reads only those CSVs: tests/tensegrity/mjcf_reference_motion_test.cpp.
#include <tendyn/tensegrity/dynamics.hpp>
#include <tendyn/tensegrity/integrate.hpp>
#include <tendyn/tensegrity/mjcf_import.hpp>

#include <Eigen/Eigenvalues>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <cstdio>
#include <string>
#include <vector>

#include "peers/mujoco_support.hpp"

namespace ts = tendyn::tensegrity;
using Eigen::Matrix3d;
using Eigen::Vector3d;

namespace {

const std::string kData = std::string(TENDYN_SOURCE_DIR) + "/tests/data/mjcf/";

tendyn::test::MjModelPtr mj_load(const std::string& path) {
  char err[1000] = "";
  tendyn::test::MjModelPtr m(mj_loadXML(path.c_str(), nullptr, err, sizeof err));
  EXPECT_TRUE(m) << path << ": " << err;
  return m;
}

std::string write_temp(const std::string& name, const std::string& xml) {
  const auto p = std::filesystem::temp_directory_path() / ("tendyn_mjcf_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << xml;
  return p.string();
}

/// World positions of all nodes in the initial state, by the rigid-body formula p_WC + R p_BN.
Eigen::MatrixX3d positions(const ts::Model& m, const ts::State& s) {
  Eigen::MatrixX3d P(m.nnode(), 3);
  for (int i = 0; i < m.nnode(); ++i) {
    const auto& n = m.nodes[static_cast<std::size_t>(i)];
    const Vector3d p = n.is_anchor() ? n.p_W_anchor : Vector3d(Vector3d(s.p_WC(n.rod)) + s.q_WB(n.rod) * m.p_BN(i));
    P.row(i) = p.transpose();
  }
  return P;
}

/// Checks the imported model against MuJoCo's compiled model of the same file.
void compare_with_mujoco(const std::string& path, double tensor_tol = 1e-6, double moment_tol = 1e-8) {
  SCOPED_TRACE(path);
  ts::MjcfImportOptions opt;
  opt.ignore_actuators = true;
  const ts::ModelFile f = ts::load_mjcf_file(path, opt);
  const ts::Model& tm = f.model;
  auto m = mj_load(path);
  ASSERT_TRUE(m);
  tendyn::test::MjDataPtr d(mj_makeData(m.get()));
  if (m->nkey > 0) mj_resetDataKeyframe(m.get(), d.get(), 0);
  mj_forward(m.get(), d.get());
  for (int j = 0; j < tm.nrod(); ++j) {
    SCOPED_TRACE(tm.rod_ids[static_cast<std::size_t>(j)]);
    const int b = mj_name2id(m.get(), mjOBJ_BODY, tm.rod_ids[static_cast<std::size_t>(j)].c_str());
    ASSERT_GE(b, 0);
    // composite of every body welded to b, in the world frame
    double mass = 0.0;
    Vector3d c = Vector3d::Zero();
    for (int k = 0; k < m->nbody; ++k)
      if (m->body_weldid[k] == b) mass += m->body_mass[k], c += m->body_mass[k] * Vector3d(d->xipos + 3 * k);
    c /= mass;
    Matrix3d I = Matrix3d::Zero();
    for (int k = 0; k < m->nbody; ++k) {
      if (m->body_weldid[k] != b) continue;
      Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>> R(d->ximat + 9 * k);
      const Vector3d dk = Vector3d(d->xipos + 3 * k) - c;
      I += R * Vector3d(m->body_inertia + 3 * k).asDiagonal() * R.transpose() +
           m->body_mass[k] * (dk.squaredNorm() * Matrix3d::Identity() - dk * dk.transpose());
    }
    const ts::Rod& rod = tm.rods[static_cast<std::size_t>(j)];
    EXPECT_NEAR(rod.mass_kg, mass, 1e-12 * mass);
    const Eigen::Quaterniond q = tm.initial_state.q_WB(j);
    const Eigen::Quaterniond xq(d->xquat[4 * b], d->xquat[4 * b + 1], d->xquat[4 * b + 2], d->xquat[4 * b + 3]);
    EXPECT_NEAR(std::abs(q.dot(xq)), 1.0, 1e-12) << "body frame orientation differs from MuJoCo's xquat";
    const Matrix3d Rq = q.toRotationMatrix();
    const Matrix3d I_W = Rq * rod.inertia_B_kgm2 * Rq.transpose();
    // MuJoCo keeps each body's inertia as principal moments plus a quaternion from its own
    // eigen-solver. Where that is exact (each body's parts aligned with it: AlignedComposite, the
    // exported model) the composite reassembled from MuJoCo's numbers equals tendyn's to 1e-12
    // (tensor_tol = moment_tol = 1e-12); with parts turned every way and moments well apart
    // (GeomZoo, GlobalCoordinates) MuJoCo's axes are good to ~1e-11 (bounds 1e-10). For a nearly
    // axisymmetric body with a part turned off its axis (the struts of defaults_include.xml: a
    // capsule plus a tilted ellipsoid, one MuJoCo body) MuJoCo 2.2.2's stored principal axes are
    // off by ~1e-6 rad, so its tensor differs from the exact sum by up to 6.4e-7 of its largest
    // entry and its principal moments by up to 3.5e-9 of the largest: the test robots get the
    // bounds 1e-6 and 1e-8 (MuJoCo simulates with its own numbers). Moments are compared
    // relative to the largest one (a thin rod's axial moment is 1e-6 of it).
    // Mass, centre of mass, orientation and sites are always checked to 1e-12.
    const Vector3d ev_t = Eigen::SelfAdjointEigenSolver<Matrix3d>(I_W).eigenvalues();
    const Vector3d ev_m = Eigen::SelfAdjointEigenSolver<Matrix3d>(I).eigenvalues();
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(ev_t[i], ev_m[i], moment_tol * ev_m.maxCoeff()) << ev_t.transpose() << " vs " << ev_m.transpose();
    EXPECT_LE((I_W - I).cwiseAbs().maxCoeff(), tensor_tol * I.cwiseAbs().maxCoeff()) << "tendyn\n" << I_W << "\nMuJoCo\n" << I;
    EXPECT_LE((Vector3d(tm.initial_state.p_WC(j)) - c).norm(), 1e-12);
  }
  // sites: positions and velocities (rod ends and body points are named after their sites)
  const Eigen::MatrixX3d P = positions(tm, tm.initial_state);
  int matched = 0;
  for (int s = 0; s < m->nsite; ++s) {
    const char* name = mj_id2name(m.get(), mjOBJ_SITE, s);
    ASSERT_NE(name, nullptr);
    const auto it = std::find(tm.node_ids.begin(), tm.node_ids.end(), std::string(name));
    ASSERT_NE(it, tm.node_ids.end()) << "site " << name << " has no node";
    const int i = static_cast<int>(it - tm.node_ids.begin());
    ++matched;
    EXPECT_LE((Vector3d(P.row(i).transpose()) - Vector3d(d->site_xpos + 3 * s)).norm(), 1e-12) << name;
    const ts::Node& n = tm.nodes[static_cast<std::size_t>(i)];
    if (n.is_anchor()) continue;
    mjtNum v6[6];
    mj_objectVelocity(m.get(), d.get(), mjOBJ_SITE, s, v6, 0);
    const Vector3d w = tm.initial_state.w_W(n.rod);
    const Vector3d v =
        Vector3d(tm.initial_state.v_WC(n.rod)) + w.cross(Vector3d(P.row(i).transpose()) - Vector3d(tm.initial_state.p_WC(n.rod)));
    EXPECT_LE((v - Vector3d(v6[3], v6[4], v6[5])).norm(), 1e-12) << name << " velocity";
    EXPECT_LE((w - Vector3d(v6[0], v6[1], v6[2])).norm(), 1e-12) << name << " angular velocity";
  }
  EXPECT_EQ(matched, m->nsite);
  ASSERT_EQ(tm.ncable(), m->ntendon);
  for (int k = 0; k < tm.ncable(); ++k) {
    const ts::Cable& cab = tm.cables[static_cast<std::size_t>(k)];
    EXPECT_NEAR(cab.rest_length_m, m->tendon_lengthspring[k], 1e-12) << tm.cable_ids[static_cast<std::size_t>(k)];
    EXPECT_EQ(cab.stiffness_Npm, m->tendon_stiffness[k]);
    EXPECT_EQ(cab.damping_Nspm, m->tendon_damping[k]);
  }
}

}  // namespace

TEST(MjcfImportMujoco, ThreeBarGlobalMatchesMujocoMassInertiaSites) { compare_with_mujoco(kData + "three_bar_global.xml"); }
TEST(MjcfImportMujoco, ThreeBarLocalMatchesMujocoMassInertiaSites) { compare_with_mujoco(kData + "three_bar_local.xml"); }
TEST(MjcfImportMujoco, SixBarMatchesMujocoMassInertiaSites) { compare_with_mujoco(kData + "six_bar.xml"); }
TEST(MjcfImportMujoco, DefaultsIncludeMatchesMujocoMassInertiaSites) { compare_with_mujoco(kData + "defaults_include.xml"); }

// Every geom type in odd frames (euler with a custom sequence, axisangle, xyaxes, quat, fromto on
// boxes and ellipsoids), mass and density, fullinertia, inertiafromgeom auto, a welded child,
// springlength -1 (the length in the file's pose).
TEST(MjcfImportMujoco, GeomZooInertiaMatchesMujoco) {
  const std::string xml = R"(<mujoco>
  <compiler angle="radian" eulerseq="ZyX"/>
  <option gravity="0 0 0"/>
  <worldbody>
    <site name="anchor" pos="0 0 2"/>
    <body name="a" pos="0.1 -0.2 0.3" euler="0.3 -0.7 1.1">
      <freejoint/>
      <geom type="cylinder" fromto="0 0 -0.4 0.1 0.05 0.4" size="0.02" density="2500"/>
      <geom type="capsule" pos="0.05 0.01 0" axisangle="1 2 3 0.8" size="0.015 0.1"/>
      <geom type="box" fromto="0 0.1 0 0.2 0.1 0.05" size="0.01 0.03" mass="0.3"/>
      <geom type="ellipsoid" fromto="0 0 0 0 0 -0.1" size="0.02 0.01" density="700"/>
      <geom type="box" pos="0.05 0.05 0.1" xyaxes="1 1 0 -1 2 0.5" size="0.01 0.02 0.03"/>
      <geom type="ellipsoid" pos="-0.05 0 0.1" quat="0.9 0.1 -0.3 0.2" size="0.01 0.02 0.04" mass="0.05"/>
      <geom type="sphere" pos="0 0 -0.4" size="0.03"/>
      <site name="a0" pos="0 0 -0.4"/>
      <site name="a1" pos="0.03 0.03 0.1"/>
      <body name="a_child" pos="0 0.1 0.1" zaxis="0 1 1">
        <inertial pos="0.01 0 0" mass="0.2" fullinertia="0.003 0.002 0.004 0.0005 -0.0002 0.0001"/>
        <geom type="box" size="1 1 1"/>
        <site name="a2" pos="0 0 0.02"/>
      </body>
    </body>
    <body name="b" pos="1 0 0">
      <freejoint/>
      <inertial pos="0 0 0.01" mass="2" diaginertia="0.1 0.1 0.01"/>
      <geom type="capsule" fromto="0 0 -0.5 0 0 0.5" size="0.02"/>
      <site name="b1" pos="0 0 0.5"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="t0" stiffness="10"><site site="a1"/><site site="b1"/></spatial>
    <spatial name="t1" stiffness="5" springlength="0.7" damping="0.3"><site site="anchor"/><site site="a2"/></spatial>
  </tendon>
  <keyframe><key qvel="0.1 0.2 0.3 1 -2 0.5 0 0 -0.1 0.3 0.2 0.1"/></keyframe>
</mujoco>
)";
  const std::string path = write_temp("zoo.xml", xml);
  compare_with_mujoco(path, 1e-10, 1e-10);
  std::filesystem::remove(path);
}

// Bodies whose parts are centred on their axes (each body tensor diagonal, so MuJoCo's stored
// axes are exact) welded off-centre: the
// composite, off-diagonal parallel-axis terms included, equals MuJoCo's to 1e-12.
TEST(MjcfImportMujoco, AlignedCompositeInertiaMatchesMujocoTo1e12) {
  const std::string xml = R"(<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="rod" pos="0.2 0.1 0.5" euler="20 -30 40">
      <freejoint/>
      <geom type="capsule" fromto="0 0 -0.3 0 0 0.3" size="0.015" density="1800"/>
      <geom type="box" pos="0 0 -0.2" size="0.02 0.015 0.03" mass="0.12"/>
      <geom type="cylinder" pos="0 0 0.1" size="0.02 0.01" mass="0.05"/>
      <site name="r0" pos="0 0 -0.3"/>
      <site name="r1" pos="0.03 0 0.3"/>
      <body name="cap" pos="0 0.01 0.3">
        <geom type="sphere" size="0.03" mass="0.06"/>
      </body>
      <body name="motor" pos="0.05 -0.02 -0.1" euler="0 0 90">
        <inertial pos="0.01 0 0" mass="0.2" diaginertia="1e-4 2e-4 3e-4"/>
      </body>
    </body>
  </worldbody>
  <keyframe><key qvel="0.1 0 0 0.5 -1 2"/></keyframe>
</mujoco>
)";
  const std::string path = write_temp("aligned.xml", xml);
  compare_with_mujoco(path, 1e-12, 1e-12);
  std::filesystem::remove(path);
}

// MuJoCo 2.x global coordinates with rotated bodies, welded children and an explicit inertial.
TEST(MjcfImportMujoco, GlobalCoordinatesWithRotatedBodiesMatchMujoco) {
  const std::string xml = R"(<mujoco>
  <compiler coordinate="global" angle="degree"/>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="a" pos="0.1 0.2 0.3" euler="30 40 50">
      <freejoint/>
      <geom type="capsule" fromto="0 0 0 0.3 0.4 0.5" size="0.02"/>
      <site name="a0" pos="0 0 0"/>
      <geom type="box" pos="0.1 0.1 0.1" euler="10 0 80" size="0.02 0.03 0.04"/>
      <site name="a1" pos="0.3 0.4 0.5"/>
      <body name="a_sub" pos="0.2 0.2 0.2" axisangle="0 0 1 90">
        <inertial pos="0.22 0.21 0.2" euler="10 20 30" mass="0.5" diaginertia="0.01 0.02 0.025"/>
        <geom type="sphere" pos="0.25 0.2 0.2" size="0.03"/>
        <site name="a2" pos="0.2 0.3 0.2"/>
      </body>
    </body>
  </worldbody>
  <keyframe><key qvel="0 0 0 1 2 3"/></keyframe>
</mujoco>
)";
  const std::string path = write_temp("global.xml", xml);
  compare_with_mujoco(path, 1e-10, 1e-10);
  std::filesystem::remove(path);
}

// The exported 3-prism, imported back, is the same robot in MuJoCo's eyes too.
TEST(MjcfImportMujoco, ExportedModelMatchesMujoco) {
  const auto path = write_temp("export.xml", ts::to_mjcf(ts::default_model().model));
  compare_with_mujoco(path, 1e-12, 1e-12);
  std::filesystem::remove(path);
}
