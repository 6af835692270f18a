// CDPR geometry: structure matrix against finite differences of cable lengths (virtual work),
// planar and row-subset forms, and input validation.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/core/error.hpp>

#include <limits>

namespace tendyn::cdpr {
namespace {

Model box_robot() {
  // 8 cables, anchors on a 4 x 3 x 2 m box, attachments on a 0.4 x 0.3 x 0.2 m platform,
  // crossed pairs (IPAnema-like topology, generic numbers).
  Eigen::Matrix3Xd A(3, 8), B(3, 8);
  A << -2, 2, 2, -2, -2, 2, 2, -2,                 //
      -1.5, -1.5, 1.5, 1.5, -1.5, -1.5, 1.5, 1.5,  //
      0, 0, 0, 0, 2, 2, 2, 2;
  B << -0.2, 0.2, 0.2, -0.2, 0.2, -0.2, -0.2, 0.2,         //
      -0.15, -0.15, 0.15, 0.15, 0.15, 0.15, -0.15, -0.15,  //
      -0.1, -0.1, -0.1, -0.1, 0.1, 0.1, 0.1, 0.1;
  return make_model("box", Motion::kSpatial, A, B);
}

TEST(Geometry, StructureMatrixIsMinusTheLengthJacobianTransposed) {
  // Virtual work: for a twist (v, omega) in world axes, dl_i/dt = -J(:, i)^T [v; omega].
  const Model m = box_robot();
  Data d = make_data(m);
  const Pose p0 = pose_from_xyz_rpy(Eigen::Vector3d(0.3, -0.2, 1.1), Eigen::Vector3d(0.1, -0.2, 0.3));
  update_geometry(m, p0, d);
  const Eigen::MatrixXd J = d.J;
  const Eigen::VectorXd l0 = d.length_m;
  const double h = 1e-6;
  for (int k = 0; k < 6; ++k) {
    Eigen::VectorXd twist = Eigen::VectorXd::Zero(6);
    twist[k] = 1.0;
    Pose p1 = p0;
    p1.p_WP += h * twist.head<3>();
    if (k >= 3) p1.R_WP = Eigen::AngleAxisd(h, twist.tail<3>()).toRotationMatrix() * p0.R_WP;
    update_geometry(m, p1, d);
    const Eigen::VectorXd dl = (d.length_m - l0) / h;
    const Eigen::VectorXd pred = -J.transpose() * twist;
    EXPECT_LT((dl - pred).norm(), 1e-5) << "twist component " << k;
  }
}

TEST(Geometry, PlanarStructureMatrixByHand) {
  Eigen::Matrix3Xd A(3, 2), B(3, 2);
  A << 2, -2, 0, 0, 0, 0;
  B << 0.5, -0.5, 0.5, 0.5, 0, 0;
  const Model m = make_model("p", Motion::kPlanar, A, B);
  Data d = make_data(m);
  update_geometry(m, pose_planar(0, 0, 0), d);
  // cable 1: from (0.5, 0.5) to (2, 0): u = (1.5, -0.5)/|.|; moment b x u = 0.5*uy - 0.5*ux.
  const Eigen::Vector2d u1 = Eigen::Vector2d(1.5, -0.5).normalized();
  EXPECT_NEAR(d.J(0, 0), u1.x(), 1e-15);
  EXPECT_NEAR(d.J(1, 0), u1.y(), 1e-15);
  EXPECT_NEAR(d.J(2, 0), 0.5 * u1.y() - 0.5 * u1.x(), 1e-15);
  EXPECT_EQ(d.J.rows(), 3);
  EXPECT_NEAR(d.length_m[0], std::sqrt(2.5), 1e-15);
}

TEST(Geometry, RowSubsetForTheLowerCables) {
  const Model m = box_robot();
  Data d = make_data(m);
  update_geometry(m, pose_from_xyz_rpy(Eigen::Vector3d(0, 0, 1), Eigen::Vector3d::Zero()), d);
  const auto Js = select_rows(d.J, {WrenchRow::kFx, WrenchRow::kFy, WrenchRow::kMz});
  ASSERT_EQ(Js.rows(), 3);
  EXPECT_EQ(Js.row(2), d.J.row(5));
  EXPECT_THROW(select_rows(Eigen::MatrixXd::Zero(3, 4), {WrenchRow::kFz}), Error);
  EXPECT_EQ(wrench_row_from_string("Mz"), WrenchRow::kMz);
  EXPECT_THROW(wrench_row_from_string("tz"), Error);
}

TEST(Geometry, RejectsBadModelsAndPoses) {
  Eigen::Matrix3Xd A(3, 3), B(3, 3);
  A << 0, 1, 0, 0, 0, 1, 0, 0, 0;
  B.setZero();
  EXPECT_NO_THROW(make_model("ok", Motion::kSpatial, A, B));
  Eigen::Matrix3Xd An = A;
  An(1, 1) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(make_model("nan", Motion::kSpatial, An, B), Error);
  EXPECT_THROW(make_model("sizes", Motion::kSpatial, A, Eigen::Matrix3Xd::Zero(3, 2)), Error);
  Eigen::Matrix3Xd Ac = A;
  Ac.col(2) = Ac.col(1);
  try {
    make_model("same", Motion::kSpatial, Ac, B);
    FAIL() << "coincident anchors accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("coincident frame anchors"), std::string::npos) << e.what();
  }
  EXPECT_THROW(make_model("names", Motion::kSpatial, A, B, {"a", "b"}), Error);
  Eigen::Matrix3Xd Az = A;
  Az(2, 0) = 1.0;
  EXPECT_THROW(make_model("planar z", Motion::kPlanar, Az, B), Error);
  // Zero-length cable: platform attachment on the anchor at the origin.
  const Model m = make_model("zero", Motion::kSpatial, A, B);
  Data d = make_data(m);
  try {
    update_geometry(m, Pose{}, d);
    FAIL() << "zero-length cable accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("c1: zero length"), std::string::npos) << e.what();
  }
  EXPECT_THROW(pose_from_vector(m, Eigen::VectorXd::Zero(3)), Error);
  EXPECT_THROW(pose_from_xyz_rpy(Eigen::Vector3d(0, std::nan(""), 0), Eigen::Vector3d::Zero()), Error);
}

}  // namespace
}  // namespace tendyn::cdpr
