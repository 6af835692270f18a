// Shared helpers of the tree tests: shipped models, a seeded random tree, random states and
// tolerance checks.
#pragma once
#include <tendyn/tree/model.hpp>
#include <tendyn/tree/model_io.hpp>

#include <gtest/gtest.h>

#include <Eigen/Core>

#include <random>
#include <string>

namespace tendyn::tree::testing {

inline std::string model_path(const std::string& name) { return std::string(TENDYN_SOURCE_DIR) + "/models/tree/" + name; }

/// Random tree of `n` links: parent uniform among earlier links (or world for link 0), joint
/// revolute (r < rev_below, default 60%), prismatic (r < fixed_from, 25%) or fixed (15%) for a
/// uniform r in [0, 1), link 0 revolute (fixed if fixed_root), random unit axes, placements and
/// mass properties (positive definite inertias satisfying the triangle inequality).
inline Model random_tree(int n, unsigned seed, double rev_below = 0.6, double fixed_from = 0.85, bool fixed_root = false) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0), pos(0.1, 1.0);
  ModelBuilder b(std::string("random").append(std::to_string(n)));
  for (int i = 0; i < n; ++i) {
    Link l;
    l.name = std::string("l").append(std::to_string(i));
    l.mass_kg = 0.2 + 2.0 * pos(rng);
    l.p_LC_m = 0.3 * Eigen::Vector3d(u(rng), u(rng), u(rng));
    const Eigen::Vector3d d(pos(rng), pos(rng), pos(rng));  // diagonal of a box-like inertia
    const Eigen::Matrix3d Rr = Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized().toRotationMatrix();
    const Eigen::Vector3d pm(d.y() + d.z(), d.x() + d.z(), d.x() + d.y());  // triangle-safe
    l.inertia_C_kgm2 = 0.05 * l.mass_kg * Rr * pm.asDiagonal() * Rr.transpose();
    Joint j;
    const double r = 0.5 * (u(rng) + 1.0);
    j.type = i == 0 ? (fixed_root ? JointType::kFixed : JointType::kRevolute)
                    : (r < rev_below ? JointType::kRevolute : (r < fixed_from ? JointType::kPrismatic : JointType::kFixed));
    j.axis = Eigen::Vector3d(u(rng), u(rng), u(rng)).normalized();
    j.p_PJ_m = 0.5 * Eigen::Vector3d(u(rng), u(rng), u(rng));
    j.R_PJ = Eigen::Quaterniond(u(rng), u(rng), u(rng), u(rng)).normalized().toRotationMatrix();
    std::uniform_int_distribution<int> pick(0, std::max(0, i - 1));
    const std::string parent = i == 0 ? std::string() : std::string("l").append(std::to_string(pick(rng)));
    b.add_link(l, parent, j);
  }
  return b.build();
}

inline Eigen::VectorXd random_vector(int n, unsigned seed, double scale = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  Eigen::VectorXd x(n);
  for (int k = 0; k < n; ++k) x[k] = u(rng);
  return x;
}

/// max |a - b| <= tol * max(1, max|a|).
inline ::testing::AssertionResult near(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, double tol) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return ::testing::AssertionFailure() << "size mismatch";
  const double err = (a - b).cwiseAbs().maxCoeff();
  const double scale = std::max(1.0, a.cwiseAbs().maxCoeff());
  if (err <= tol * scale) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max error " << err << " > " << tol << " * " << scale;
}

}  // namespace tendyn::tree::testing
