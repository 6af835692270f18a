// Recursive algorithms vs the block-matrix formulation, analytic checks and conservation laws.
#include <tendyn/core/error.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/block.hpp>
#include <tendyn/tree/model_io.hpp>
#include <tendyn/tree/simulate.hpp>

#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tree/tree_fixtures.hpp"

namespace tendyn::tree {
namespace {

using testing::model_path;
using testing::near;
using testing::random_vector;

/// Largest |h(t) - h(0)| (world momentum about the origin) over 5 s of RK4 at 1 ms under internal
/// joint torques 0.05 sin(omega t + k) - 0.02 v_k on every non-base coordinate k >= 6; q and v
/// advance to the final state.
double max_momentum_drift_5s(const Model& m, Eigen::VectorXd& q, Eigen::VectorXd& v, double omega) {
  Data d(m);
  Rk4 rk(m);
  const Vector6d h0 = momentum_world(m, d, q, v);
  TorqueFn torque = [omega](double t, const Eigen::VectorXd&, const Eigen::VectorXd& vv, Eigen::VectorXd& tau) {
    tau.setZero();
    for (int k = 6; k < tau.size(); ++k) tau[k] = 0.05 * std::sin(omega * t + k) - 0.02 * vv[k];
  };
  const double dt = 1e-3;
  double worst = 0.0;
  for (int k = 0; k < 5000; ++k) {
    rk.step(k * dt, dt, q, v, torque);
    worst = std::max(worst, (momentum_world(m, d, q, v) - h0).cwiseAbs().maxCoeff());
  }
  return worst;
}

struct Case {
  const char* label;
  Model model;
};

std::vector<Case> one_dof_models() {
  std::vector<Case> c;
  c.push_back({"double_pendulum", load_model(model_path("double_pendulum.yaml"))});
  c.push_back({"arm6", load_model(model_path("arm6.yaml"))});
  c.push_back({"biped18", load_model(model_path("biped.yaml"), BaseMode::kFictitious)});
  c.push_back({"random30", testing::random_tree(30, 2026)});
  return c;
}

std::vector<LinkWrench> random_wrenches(const Model& m, unsigned seed) {
  std::vector<LinkWrench> w(m.nlinks());
  for (int i = 0; i < m.nlinks(); ++i) {
    w[i].f_W = random_vector(3, seed + 3 * i, 5.0);
    w[i].n_W = random_vector(3, seed + 3 * i + 1, 2.0);
  }
  return w;
}

double rel_err(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return (a - b).cwiseAbs().maxCoeff() / std::max(1.0, a.cwiseAbs().maxCoeff());
}

TEST(TreeData, MakeDataSizesTheWorkspaceLikeTheConstructor) {
  const Model m = load_model(model_path("biped.urdf"), BaseMode::kFree);
  const Data d = make_data(m);
  EXPECT_EQ(d.X_PL.size(), static_cast<std::size_t>(m.nlinks()));
  EXPECT_EQ(d.M.rows(), m.nv);
  EXPECT_EQ(d.J_com.cols(), m.nv);
  // I_L (a constant of the model): the link inertia about its origin (parallel axis from p_LC_m,
  // inertia_C_kgm2)
  const Link& l = m.links[0];
  const Eigen::Matrix3d c = l.p_LC_m.squaredNorm() * Eigen::Matrix3d::Identity() - l.p_LC_m * l.p_LC_m.transpose();
  EXPECT_TRUE(m.I_L[0].I.isApprox(l.inertia_C_kgm2 + l.mass_kg * c, 1e-14));
  EXPECT_DOUBLE_EQ(m.I_L[0].m, l.mass_kg);
}

TEST(TreeBlockVsRecursive, MassMatrixBiasTauAndAcceleration) {
  std::vector<Case> cs = one_dof_models();
  cs.push_back({"humanoid35_fictitious", load_model(model_path("humanoid35.urdf"), BaseMode::kFictitious)});
  for (auto& c : cs) {
    SCOPED_TRACE(c.label);
    const Model& m = c.model;
    Data d(m);
    BlockData bd(m);
    double worst[4] = {0.0, 0.0, 0.0, 0.0};
    for (unsigned s = 0; s < 20; ++s) {
      const Eigen::VectorXd q = m.random_configuration(100 + s);
      const Eigen::VectorXd v = random_vector(m.nv, 200 + s, 2.0);
      const Eigen::VectorXd a = random_vector(m.nv, 300 + s, 3.0);
      const auto fext = s % 2 ? random_wrenches(m, 400 + s) : std::vector<LinkWrench>{};
      const Eigen::MatrixXd M = crba(m, d, q);
      block_eom(m, bd, q, v, fext);
      EXPECT_TRUE(near(bd.A, M, 1e-10)) << "M, seed " << s;
      worst[0] = std::max(worst[0], rel_err(M, bd.A));
      const Eigen::VectorXd b = nonlinear_effects(m, d, q, v, fext);
      EXPECT_TRUE(near(bd.b, b, 1e-10)) << "bias, seed " << s;
      worst[1] = std::max(worst[1], rel_err(b, bd.b));
      const Eigen::VectorXd tau = rnea(m, d, q, v, a, fext);
      const Eigen::VectorXd tau_block = block_inverse_dynamics(m, bd, q, v, a, fext);
      EXPECT_TRUE(near(tau_block, tau, 1e-10)) << "tau, seed " << s;
      worst[2] = std::max(worst[2], rel_err(tau, tau_block));
      EXPECT_TRUE(near(M * a + b, tau, 1e-10)) << "RNEA = M a + b, seed " << s;
      const Eigen::VectorXd dd = aba(m, d, q, v, tau, fext);
      EXPECT_TRUE(near(dd, a, 1e-9)) << "ABA inverts RNEA, seed " << s;
      const Eigen::VectorXd dd_block = block_forward_dynamics(m, bd, q, v, tau, fext);
      EXPECT_TRUE(near(dd_block, dd, 1e-10)) << "ddq, seed " << s;
      worst[3] = std::max(worst[3], rel_err(dd, dd_block));
    }
    std::printf("[tree] block vs recursive, %s, 20 states: max rel err M %.1e b %.1e tau %.1e ddq %.1e\n", c.label, worst[0], worst[1],
                worst[2], worst[3]);
  }
}

TEST(TreeBlockKinematics, VelocitiesMatchRecursive) {
  const Model m = testing::random_tree(30, 99);
  Data d(m);
  BlockData bd(m);
  const Eigen::VectorXd q = m.random_configuration(5), v = random_vector(m.nv, 6);
  block_kinematics(m, bd, q, v);
  kinetic_energy(m, d, q, v);  // fills d.V
  for (int i = 0; i < m.nlinks(); ++i) {
    const Eigen::Matrix3d& R = d.X_WL[i].R;
    EXPECT_TRUE(near(bd.w.segment<3>(3 * i), R * d.V[i].head<3>(), 1e-12));
    EXPECT_TRUE(near(bd.vo.segment<3>(3 * i), R * d.V[i].tail<3>(), 1e-12));
  }
}

TEST(TreeBlockKinematics, AccelerationsMatchRecursive) {
  // Zero gravity so that RNEA's spatial accelerations are the true ones; the classical
  // acceleration of a point is the spatial linear part + w x v.
  Model m = testing::random_tree(30, 98);
  m.gravity_W.setZero();
  Data d(m);
  BlockData bd(m);
  const Eigen::VectorXd q = m.random_configuration(7), v = random_vector(m.nv, 8), a = random_vector(m.nv, 9);
  block_accelerations(m, bd, q, v, a);
  rnea(m, d, q, v, a);
  for (int i = 0; i < m.nlinks(); ++i) {
    const Eigen::Matrix3d& R = d.X_WL[i].R;
    const Eigen::Vector3d w = d.V[i].head<3>(), vo = d.V[i].tail<3>();
    const Eigen::Vector3d ao = d.A[i].tail<3>() + w.cross(vo);
    const Eigen::Vector3d c = m.links[i].p_LC_m;
    const Eigen::Vector3d ac = ao + d.A[i].head<3>().cross(c) + w.cross(w.cross(c));
    EXPECT_TRUE(near(bd.wdot.segment<3>(3 * i), R * d.A[i].head<3>(), 1e-11)) << i;
    EXPECT_TRUE(near(bd.ao.segment<3>(3 * i), R * ao, 1e-11)) << i;
    EXPECT_TRUE(near(bd.ac.segment<3>(3 * i), R * ac, 1e-11)) << i;
  }
}

TEST(TreeBlock, RejectsFreeJoint) {
  const Model m = load_model(model_path("biped.urdf"), BaseMode::kFree);
  EXPECT_THROW(BlockData bd(m), Error);
}

// The block formulation holds dense 3N x 3N matrices: above kMaxBlockLinks it refuses (with the
// remedy) before allocating instead of ending in bad_alloc.
TEST(TreeBlock, RejectsMoreLinksThanItsLimit) {
  const Model ok = testing::random_tree(kMaxBlockLinks, 7);
  EXPECT_NO_THROW(BlockData bd(ok));
  const Model big = testing::random_tree(kMaxBlockLinks + 1, 7);
  try {
    BlockData bd(big);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("more than its limit of 512"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--method recursive"), std::string::npos) << e.what();
  }
}

TEST(TreeAnalytic, DoublePendulumClosedForm) {
  // Spong, Hutchinson, Vidyasagar, "Robot Modeling and Control", planar elbow manipulator (7.87)
  // with angles from the downward vertical about +y.
  const Model m = load_model(model_path("double_pendulum.yaml"));
  const double m1 = 1.0, m2 = 2.0, l1 = 1.0, lc1 = 0.5, lc2 = 0.35, I1 = 0.0833, I2 = 0.06, g = 9.81;
  Data d(m);
  for (unsigned s = 0; s < 10; ++s) {
    const Eigen::VectorXd q = random_vector(2, 10 + s, 3.0), v = random_vector(2, 20 + s, 3.0), a = random_vector(2, 30 + s, 3.0);
    const double c2 = std::cos(q[1]), s2 = std::sin(q[1]);
    Eigen::Matrix2d M;
    M(0, 0) = m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * c2) + I1 + I2;
    M(0, 1) = M(1, 0) = m2 * (lc2 * lc2 + l1 * lc2 * c2) + I2;
    M(1, 1) = m2 * lc2 * lc2 + I2;
    const double h = -m2 * l1 * lc2 * s2;
    Eigen::Vector2d C(h * (2 * v[0] * v[1] + v[1] * v[1]), -h * v[0] * v[0]);
    Eigen::Vector2d G(m1 * g * lc1 * std::sin(q[0]) + m2 * g * (l1 * std::sin(q[0]) + lc2 * std::sin(q[0] + q[1])),
                      m2 * g * lc2 * std::sin(q[0] + q[1]));
    EXPECT_TRUE(near(crba(m, d, q), M, 1e-13));
    EXPECT_TRUE(near(rnea(m, d, q, v, a), M * a + C + G, 1e-12));
    BlockData bd(m);
    EXPECT_TRUE(near(block_inverse_dynamics(m, bd, q, v, a), M * a + C + G, 1e-12));
  }
}

TEST(TreeAnalytic, MassMatrixSymmetricPositiveDefiniteAndEnergy) {
  std::vector<Case> cs = one_dof_models();
  cs.push_back({"humanoid35", load_model(model_path("humanoid35.urdf"))});
  cs.push_back({"biped_free", load_model(model_path("biped.urdf"), BaseMode::kFree)});
  for (auto& c : cs) {
    SCOPED_TRACE(c.label);
    Data d(c.model);
    for (unsigned s = 0; s < 5; ++s) {
      const Eigen::VectorXd q = c.model.random_configuration(s), v = random_vector(c.model.nv, 50 + s);
      const Eigen::MatrixXd M = crba(c.model, d, q);
      EXPECT_LE((M - M.transpose()).cwiseAbs().maxCoeff(), 1e-12 * M.cwiseAbs().maxCoeff());
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(M);
      EXPECT_GT(es.eigenvalues().minCoeff(), 0.0);
      const double T = kinetic_energy(c.model, d, q, v);
      EXPECT_NEAR(T, 0.5 * v.dot(M * v), 1e-12 * std::max(1.0, T));
      // ABA on free-joint models against CRBA + RNEA.
      const Eigen::VectorXd tau = random_vector(c.model.nv, 70 + s, 5.0);
      const Eigen::VectorXd b = nonlinear_effects(c.model, d, q, v);
      const Eigen::VectorXd dd_ref = M.llt().solve(tau - b);
      EXPECT_TRUE(near(aba(c.model, d, q, v, tau), dd_ref, 1e-9));
    }
  }
}

TEST(TreeAlgorithms, CrbaUpperEqualsUpperTriangleOfCrbaAndLeavesTheLowerOne) {
  std::vector<Case> cs = one_dof_models();
  cs.push_back({"humanoid35_free", load_model(model_path("humanoid35.urdf"))});
  cs.push_back({"biped_free", load_model(model_path("biped.urdf"), BaseMode::kFree)});
  for (auto& c : cs) {
    SCOPED_TRACE(c.label);
    Data d(c.model), du(c.model);
    const int nv = c.model.nv;
    for (unsigned s = 0; s < 4; ++s) {
      const Eigen::VectorXd q = c.model.random_configuration(100 + s);
      const Eigen::MatrixXd M = crba(c.model, d, q);
      EXPECT_EQ(M, M.transpose());  // both triangles written from the same products
      // Sentinel in the strictly lower triangle of du.M: crba_upper must not touch it.
      for (int col = 0; col < nv; ++col)
        for (int row = col + 1; row < nv; ++row) du.M(row, col) = 7.0 + row + 100.0 * col;
      const Eigen::MatrixXd Mu = crba_upper(c.model, du, q);
      for (int col = 0; col < nv; ++col)
        for (int row = 0; row < nv; ++row) {
          if (row <= col)
            ASSERT_EQ(Mu(row, col), M(row, col)) << "upper (" << row << ", " << col << ")";
          else
            ASSERT_EQ(Mu(row, col), 7.0 + row + 100.0 * col) << "lower (" << row << ", " << col << ")";
        }
    }
  }
}

TEST(TreeAlgorithms, FixedClustersMergedEqualTheLinkByLinkSums) {
  // Half the joints fixed, with and without a root fixed to the world: fixed chains, fixed links
  // carrying moving subtrees and subtrees fixed to the world. The CRBA, and RNEA and ABA without
  // external wrenches, treat fixed clusters as single bodies; RNEA and ABA given a (zero) wrench
  // per link visit every link with its own inertia: the link-by-link reference. M is checked
  // column by column against that RNEA (M e_k = rnea(q, 0, e_k, zero wrenches) without gravity).
  for (const bool fixed_root : {false, true})
    for (unsigned seed = 1; seed <= 6; ++seed) {
      SCOPED_TRACE(::testing::Message() << "fixed_root " << fixed_root << ", seed " << seed);
      Model m = testing::random_tree(40, 700 + seed, 0.3, 0.5, fixed_root);
      m.gravity_W.setZero();
      ASSERT_GT(m.nv, 0);
      Data d(m);
      // crba_links: exactly the links with a moving joint, each pointing at its nearest moving
      // ancestor.
      std::vector<int> moving;
      for (int i = 0; i < m.nlinks(); ++i)
        if (m.joints[i].nv > 0) moving.push_back(i);
      ASSERT_EQ(m.crba_links, moving);
      ASSERT_LT(m.crba_links.size(), static_cast<std::size_t>(m.nlinks()));  // something merged
      for (const int i : m.crba_links) {
        int a = m.parent[i];
        while (a >= 0 && m.joints[a].nv == 0) a = m.parent[a];
        EXPECT_EQ(m.crba_parent[i], a) << "link " << i;
      }
      int carried = 0, skipped = 0;
      for (const MergeKind k : m.merge_kind) {
        carried += k == MergeKind::kCarried;
        skipped += k == MergeKind::kSkipped;
      }
      EXPECT_GT(carried + skipped, 0);
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(m.nv);
      const std::vector<LinkWrench> no_wrench(static_cast<std::size_t>(m.nlinks()));
      for (unsigned s = 0; s < 3; ++s) {
        const Eigen::VectorXd q = m.random_configuration(40 + s);
        const Eigen::MatrixXd M = crba(m, d, q);
        Eigen::MatrixXd M_rnea(m.nv, m.nv);
        for (int k = 0; k < m.nv; ++k) M_rnea.col(k) = rnea(m, d, q, zero, Eigen::VectorXd::Unit(m.nv, k), no_wrench);
        EXPECT_TRUE(near(M, M_rnea, 1e-13)) << "M, state " << s;
        m.gravity_W = Eigen::Vector3d(0.3, -1.1, -9.81);
        const Eigen::VectorXd v = random_vector(m.nv, 50 + s, 2.0), a = random_vector(m.nv, 60 + s, 3.0);
        const Eigen::VectorXd tau = rnea(m, d, q, v, a);
        EXPECT_TRUE(near(tau, rnea(m, d, q, v, a, no_wrench), 1e-13)) << "tau, state " << s;
        const Eigen::VectorXd ddq = aba(m, d, q, v, tau);
        EXPECT_TRUE(near(ddq, aba(m, d, q, v, tau, no_wrench), 1e-11)) << "ddq, state " << s;
        EXPECT_TRUE(near(ddq, a, 1e-9)) << "ABA inverts RNEA, state " << s;
        m.gravity_W.setZero();
      }
    }
}

TEST(TreeAnalytic, ComJacobianByFiniteDifferences) {
  for (const char* f : {"arm6.yaml", "humanoid35.urdf"}) {
    SCOPED_TRACE(f);
    const Model m = load_model(model_path(f));
    Data d(m);
    const Eigen::VectorXd q = m.random_configuration(3), v = random_vector(m.nv, 4);
    const Eigen::MatrixXd J = jacobian_center_of_mass(m, d, q);
    // Central difference along the velocity direction: p(q (+) h v) - p(q (-) h v).
    Eigen::VectorXd qd;
    velocity_to_qdot(m, q, v, qd);
    const double h = 1e-6;
    Eigen::VectorXd qp = q + h * qd, qm = q - h * qd;
    normalize_configuration(m, qp);
    normalize_configuration(m, qm);
    const Eigen::Vector3d fd = (center_of_mass(m, d, qp) - center_of_mass(m, d, qm)) / (2 * h);
    EXPECT_TRUE(near(J * v, fd, 1e-7));
    // Linear momentum = total mass * COM velocity.
    EXPECT_TRUE(near(momentum_world(m, d, q, v).tail<3>(), m.total_mass() * J * v, 1e-12));
  }
}

TEST(TreeAnalytic, PowerBalance) {
  // dT/dt + dU/dt = tau . v for a torque-driven run (with tau = 0 the energy is conserved).
  const Model m = load_model(model_path("arm6.yaml"));
  Data d(m);
  const Eigen::VectorXd q = m.random_configuration(11), v = random_vector(m.nv, 12);
  const Eigen::VectorXd tau = random_vector(m.nv, 13, 4.0);
  const Eigen::VectorXd dd = aba(m, d, q, v, tau);
  const double h = 1e-5;
  auto E = [&](const Eigen::VectorXd& qq, const Eigen::VectorXd& vv) { return kinetic_energy(m, d, qq, vv) + potential_energy(m, d, qq); };
  const double dE = (E(q + h * v + 0.5 * h * h * dd, v + h * dd) - E(q - h * v + 0.5 * h * h * dd, v - h * dd)) / (2 * h);
  EXPECT_NEAR(dE, tau.dot(v), 1e-6 * std::max(1.0, std::abs(tau.dot(v))));
}

TEST(TreeSimulate, TorqueFreeEnergyConservation) {
  const Model m = load_model(model_path("double_pendulum.yaml"));
  Data d(m);
  Rk4 rk(m);
  Eigen::VectorXd q(2), v(2);
  q << 1.0, -0.5;
  v << 0.3, 0.0;
  const double E0 = kinetic_energy(m, d, q, v) + potential_energy(m, d, q);
  for (int k = 0; k < 2000; ++k) rk.step(k * 1e-3, 1e-3, q, v, nullptr);
  const double E1 = kinetic_energy(m, d, q, v) + potential_energy(m, d, q);
  EXPECT_NEAR(E1, E0, 1e-8 * std::abs(E0));
}

TEST(TreeSimulate, FreeFloatingBipedConservesMomentum) {
  // Zero gravity, no external force, joint torques acting (internal): linear and angular
  // momentum about the world origin are constant over 5 s.
  Model m = load_model(model_path("biped.urdf"), BaseMode::kFree);
  m.gravity_W.setZero();
  Data d(m);
  Eigen::VectorXd q = m.neutral();
  Eigen::VectorXd v = random_vector(m.nv, 77, 0.5);
  const Vector6d h0 = momentum_world(m, d, q, v);
  // RK4 drift scales as dt^4 (docs/VALIDATION.md). Torques are internal (action and
  // reaction on adjacent links), sized so that joint rates stay a few rad/s.
  const double worst = max_momentum_drift_5s(m, q, v, 3.0);
  EXPECT_LT(worst, 1e-9) << "max momentum drift " << worst;
  EXPECT_GT(v.tail(12).norm(), 1e-3);  // the legs did move
  std::printf("[tree] free-floating biped (free joint), 5 s: max momentum drift %.1e (|h0| = %.2f)\n", worst, h0.norm());
}

TEST(TreeSimulate, FictitiousChainBipedConservesMomentum) {
  // Same with the document's fictitious 6-joint chain (slow base rotation: no Euler singularity).
  Model m = load_model(model_path("biped.yaml"), BaseMode::kFictitious);
  m.gravity_W.setZero();
  Data d(m);
  Eigen::VectorXd q = m.neutral();
  Eigen::VectorXd v = random_vector(m.nv, 78, 0.3);
  v.head(6) *= 0.2;  // slow base: pitch stays far from +-pi/2
  const Vector6d h0 = momentum_world(m, d, q, v);
  const double worst = max_momentum_drift_5s(m, q, v, 2.0);
  EXPECT_LT(worst, 1e-9) << "max momentum drift " << worst;
  std::printf("[tree] free-floating biped (fictitious chain), 5 s: max momentum drift %.1e (|h0| = %.2f)\n", worst, h0.norm());
}

TEST(TreeAlgorithms, SizeErrors) {
  const Model m = load_model(model_path("arm6.yaml"));
  Data d(m);
  EXPECT_THROW(rnea(m, d, Eigen::VectorXd::Zero(3), Eigen::VectorXd::Zero(6), Eigen::VectorXd::Zero(6)), Error);
  EXPECT_THROW(aba(m, d, Eigen::VectorXd::Zero(6), Eigen::VectorXd::Zero(6), Eigen::VectorXd::Zero(5)), Error);
  EXPECT_THROW(rnea(m, d, Eigen::VectorXd::Zero(6), Eigen::VectorXd::Zero(6), Eigen::VectorXd::Zero(6), std::vector<LinkWrench>(2)), Error);
}

}  // namespace
}  // namespace tendyn::tree
