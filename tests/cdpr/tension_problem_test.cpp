// The tension problem: J and w assembled from a model, group, rows and pose against the structure
// matrix computed directly, method applicability, pose CSV reading and a trajectory row against
// a direct solve_tensions call.
#include <gtest/gtest.h>

#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/cdpr/tension_problem.hpp>
#include <tendyn/core/error.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "test_util.hpp"

#include "support/error_of.hpp"

namespace tendyn::cdpr {
namespace {

using tendyn::test::error_of;

/// J(pose) and the gravity wrench computed directly, restricted with select_rows.
void direct_problem(const Model& m, const Pose& pose, const std::vector<int>& cols, const std::vector<WrenchRow>& rows, Eigen::MatrixXd& J,
                    Eigen::VectorXd& w) {
  Data d = make_data(m);
  update_geometry(m, pose, d);
  Eigen::MatrixXd Jc(d.J.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t k = 0; k < cols.size(); ++k) Jc.col(static_cast<Eigen::Index>(k)) = d.J.col(cols[k]);
  const Eigen::VectorXd g = gravity_compensation_wrench(m, pose);
  J = rows.empty() ? Jc : select_rows(Jc, rows);
  w = rows.empty() ? g : Eigen::VectorXd(select_rows(g, rows).col(0));
}

TEST(TensionProblem, AssembledJAndWAreTheStructureMatrixRestrictedBitForBit) {
  const ModelFile mf = load_model(test::model_path("printer8.yaml"));
  const Model& m = mf.model;
  const Pose pose = pose_from_xyz_rpy(Eigen::Vector3d(0.7, -0.4, 2.5), Eigen::Vector3d(0.02, -0.01, 0.05));
  // every cable, every row
  TensionProblem all = make_tension_problem(m);
  EXPECT_EQ(all.ncable(), 8);
  EXPECT_EQ(all.nrow(), 6);
  EXPECT_EQ(all.options.f_min_N, m.f_min_N);
  EXPECT_EQ(all.options.f_max_N, m.f_max_N);
  update_tension_problem(m, pose, all);
  Eigen::MatrixXd J;
  Eigen::VectorXd w;
  direct_problem(m, pose, {0, 1, 2, 3, 4, 5, 6, 7}, {}, J, w);
  EXPECT_TRUE(all.J == J) << all.J << "\n\n" << J;
  EXPECT_TRUE(all.w == w) << all.w.transpose() << " vs " << w.transpose();
  EXPECT_GT(w[2], 1000.0);  // the platform's weight [N]
  // the document's system (4): lower cables, rows (Fx, Fy, Mz)
  const std::vector<WrenchRow> rows{WrenchRow::kFx, WrenchRow::kFy, WrenchRow::kMz};
  TensionProblem low = make_tension_problem(m, "lower", rows);
  EXPECT_EQ(low.cables, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(low.row_index, (std::vector<int>{0, 1, 5}));
  update_tension_problem(m, pose, low);
  direct_problem(m, pose, {4, 5, 6, 7}, rows, J, w);
  ASSERT_EQ(low.J.rows(), 3);
  ASSERT_EQ(low.J.cols(), 4);
  EXPECT_TRUE(low.J == J) << low.J << "\n\n" << J;
  EXPECT_TRUE(low.w == w);
  EXPECT_EQ(low.J(2, 1), all.J(5, 5));
  // geometry of every cable is kept
  EXPECT_EQ(low.geometry.length_m.size(), 8);
}

TEST(TensionProblem, PlanarRowsAndBadSelections) {
  const ModelFile mf = load_model(test::model_path("planar4.yaml"));
  const Model& m = mf.model;
  TensionProblem p = make_tension_problem(m, "", {WrenchRow::kMz, WrenchRow::kFx});
  EXPECT_EQ(p.row_index, (std::vector<int>{2, 0}));
  const Pose pose = pose_planar(0.1, -0.2, 0.05);
  update_tension_problem(m, pose, p);
  Eigen::MatrixXd J;
  Eigen::VectorXd w;
  direct_problem(m, pose, {0, 1, 2, 3}, {WrenchRow::kMz, WrenchRow::kFx}, J, w);
  EXPECT_TRUE(p.J == J);
  EXPECT_TRUE(p.w == w);
  EXPECT_EQ(error_of([&] {
              (void)make_tension_problem(m, "", {WrenchRow::kFx, WrenchRow::kFz});
            }),
            "tension problem: planar model 'planar4' has no wrench row 'fz' (rows are fx, fy, mz)");
  EXPECT_EQ(error_of([&] { (void)make_tension_problem(m, "nope"); }), "cdpr model 'planar4': no cable in group 'nope'");
  EXPECT_NE(error_of([&] { update_tension_problem(m, pose_planar(std::nan(""), 0, 0), p); }).find("non-finite"), std::string::npos);
}

TEST(TensionProblem, MethodApplicability) {
  const ModelFile mf = load_model(test::model_path("printer8.yaml"));
  TensionProblem p = make_tension_problem(mf.model);
  for (Method m : {Method::kExhaustive, Method::kLawsonHanson, Method::kExact, Method::kClosedForm, Method::kImprovedClosedForm})
    EXPECT_TRUE(method_applicable(m, p)) << to_string(m);
  p.options.f_max_N = std::numeric_limits<double>::infinity();
  EXPECT_FALSE(method_applicable(Method::kClosedForm, p));
  EXPECT_EQ(method_inapplicable_reason(Method::kImprovedClosedForm, p), "needs a finite f_max");
  EXPECT_TRUE(method_applicable(Method::kExact, p));
  // 25 cables on a circle: too many subsets for the exhaustive method
  Eigen::Matrix3Xd A(3, 25), B = Eigen::Matrix3Xd::Zero(3, 25);
  for (int i = 0; i < 25; ++i) A.col(i) << std::cos(0.25 * i), std::sin(0.25 * i), 0.0;
  const Model big = make_model("ring", Motion::kPlanar, A, B);
  const TensionProblem q = make_tension_problem(big);
  EXPECT_EQ(method_inapplicable_reason(Method::kExhaustive, q), "more than 24 cables");
  EXPECT_TRUE(method_applicable(Method::kLawsonHanson, q));
  // the reasons agree with solve_tensions' refusals
  update_tension_problem(big, pose_planar(0, 0, 0), p = q);
  EXPECT_THROW(solve_tensions(Method::kExhaustive, p.J, p.w, p.options), Error);
}

// One source of a model's bounds (solver_options), used by the problem; a problem solve keeps
// them (exact) or says it broke them (lawson-hanson, exhaustive: out_of_bounds, never ok).
TEST(TensionProblem, ModelBoundsAreHonouredOrReported) {
  const ModelFile mf = load_model(test::model_path("printer8.yaml"));
  const SolverOptions o = solver_options(mf.model);
  EXPECT_EQ(o.f_min_N, 200.0);
  EXPECT_EQ(o.f_max_N, 30000.0);
  TensionProblem p = make_tension_problem(mf.model);
  EXPECT_EQ(p.options.f_min_N, 200.0);
  EXPECT_EQ(p.options.f_max_N, 30000.0);
  update_tension_problem(mf.model, pose_from_vector(mf.model, mf.default_pose), p);
  const TensionResult ex = solve_tension_problem(Method::kExact, p);
  EXPECT_EQ(ex.status, Status::kOk) << ex.reason;
  EXPECT_GE(ex.f_N.minCoeff(), 200.0 * (1.0 - 1e-12));
  for (Method m : {Method::kExhaustive, Method::kLawsonHanson}) {
    const TensionResult r = solve_tension_problem(m, p);
    ASSERT_LT(r.f_N.minCoeff(), 200.0) << to_string(m);  // the f >= 0 answer unloads cables here
    EXPECT_EQ(r.status, Status::kOutOfBounds) << to_string(m);
  }
  EXPECT_EQ(error_of([&] { (void)solve_tension_problem(Method::kExact, p, Eigen::VectorXd::Zero(2)); }),
            "tension problem: the wrench has 2 entries but the problem has 6 rows");
}

// A wrench far beyond what the bounded tensions can balance (|w| = 1e300 against f_max = 30 kN):
// the tensions are scaled by 2^-997 inside the solver and their squares underflowed, so |f| was
// reported as 0 beside tensions of kN.
TEST(TensionProblem, HugeWrenchAgainstFiniteBoundsKeepsTensionNormAndBounds) {
  const ModelFile mf = load_model(test::model_path("printer8.yaml"));
  TensionProblem p = make_tension_problem(mf.model);
  update_tension_problem(mf.model, pose_from_vector(mf.model, mf.default_pose), p);
  for (double scale : {1e200, 1e300}) {
    const Eigen::VectorXd w = p.w.normalized() * scale;
    for (Method m : {Method::kExact, Method::kLawsonHanson, Method::kExhaustive}) {
      const TensionResult r = solve_tension_problem(m, p, w);
      ASSERT_TRUE(r.f_N.allFinite()) << to_string(m);
      EXPECT_NEAR(r.tension_norm, r.f_N.norm(), 1e-12 * r.f_N.norm()) << to_string(m) << " " << scale;
      EXPECT_NE(r.status, Status::kOk) << to_string(m);  // far from balanced
      if (m == Method::kExact) {
        EXPECT_GE(r.f_N.minCoeff(), 200.0 * (1.0 - 1e-12));
        EXPECT_LE(r.f_N.maxCoeff(), 30000.0 * (1.0 + 1e-12));
        EXPECT_NEAR(r.residual_norm / scale, 1.0, 1e-6);
      }
    }
  }
}

TEST(TensionProblem, TrajectoryRowsEqualDirectSolves) {
  const ModelFile mf = load_model(test::model_path("printer8.yaml"));
  const Model& m = mf.model;
  PoseTrajectory traj;
  traj.q.resize(3, 6);
  traj.q << 0, 0, 3, 0, 0, 0,  //
      0.5, 0, 3, 0, 0, 0,      //
      0.5, -0.3, 2.5, 0.01, 0.02, -0.03;
  for (const auto& [group, rows] :
       {std::pair<std::string, std::vector<WrenchRow>>{"", {}},
        std::pair<std::string, std::vector<WrenchRow>>{"upper", {WrenchRow::kFx, WrenchRow::kFy, WrenchRow::kFz}}}) {
    TensionProblem p = make_tension_problem(m, group, rows);
    std::vector<std::size_t> seen;
    const auto results = solve_tension_trajectory(m, p, Method::kExact, traj,
                                                  [&](std::size_t k, const Pose&, const TensionProblem& at, const TensionResult& r) {
                                                    seen.push_back(k);
                                                    EXPECT_EQ(at.J.cols(), r.f_N.size());
                                                  });
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(seen, (std::vector<std::size_t>{0, 1, 2}));
    for (Eigen::Index k = 0; k < 3; ++k) {
      Eigen::MatrixXd J;
      Eigen::VectorXd w;
      direct_problem(m, pose_from_vector(m, traj.q.row(k).transpose()), p.cables, rows, J, w);
      const TensionResult direct = solve_tensions(Method::kExact, J, w, p.options);
      const TensionResult& r = results[static_cast<std::size_t>(k)];
      EXPECT_EQ(r.status, direct.status) << group << " row " << k;
      EXPECT_TRUE(r.f_N == direct.f_N) << group << " row " << k << ": " << r.f_N.transpose() << " vs " << direct.f_N.transpose();
      EXPECT_EQ(r.residual_norm, direct.residual_norm);
      EXPECT_EQ(r.tension_norm, direct.tension_norm);
    }
    EXPECT_EQ(results[0].status, Status::kOk);
  }
  // given wrenches: one column per row of J, checked with the first row's place
  TensionProblem p = make_tension_problem(m);
  traj.w = Eigen::MatrixXd::Zero(3, 6);
  traj.w.col(2).setConstant(1000.0);
  traj.places = {"poses.csv:2", "poses.csv:3", "poses.csv:5"};
  const auto res = solve_tension_trajectory(m, p, Method::kLawsonHanson, traj);
  EXPECT_NEAR((p.J * res[2].f_N - traj.w.row(2).transpose()).norm(), 0.0, 1e-9);
  traj.w = Eigen::MatrixXd::Zero(3, 3);
  EXPECT_EQ(error_of([&] { (void)solve_tension_trajectory(m, p, Method::kExact, traj); }),
            "poses.csv:2: 3 wrench columns but J has 6 rows");
  traj.w.resize(0, 0);
  traj.q(1, 2) = 100.0;  // far outside: still a pose; a cable of zero length is not reachable here
  traj.q(2, 0) = std::numeric_limits<double>::infinity();
  EXPECT_EQ(error_of([&] { (void)solve_tension_trajectory(m, p, Method::kExact, traj); }).rfind("poses.csv:5: ", 0), 0u);
}

TEST(TensionProblem, ReadsPoseCsvWithAndWithoutUnitsAndNamesThePlace) {
  const auto dir = test::temp_dir("tension_problem");
  const auto path = (dir / "poses.csv").string();
  const Model m = load_model(test::model_path("planar4.yaml")).model;
  std::ofstream(path) << "note,phi_rad,x,y_m,t,mz,fx,fy_N\n# a comment\na,0.1,1,2,0.5,3,1,2\n\nb,0.2,-1,-2,1.5,6,4,5\n";
  const PoseTrajectory t = read_pose_trajectory(path, m);
  ASSERT_EQ(t.q.rows(), 2);
  ASSERT_EQ(t.q.cols(), 3);
  EXPECT_EQ(t.q.row(0), Eigen::RowVector3d(1, 2, 0.1));
  EXPECT_EQ(t.q.row(1), Eigen::RowVector3d(-1, -2, 0.2));
  EXPECT_EQ(t.t_s, Eigen::Vector2d(0.5, 1.5));
  ASSERT_EQ(t.w.cols(), 3);
  EXPECT_EQ(t.w.row(1), Eigen::RowVector3d(4, 5, 6));  // fx, fy, mz order, whatever the columns' order
  EXPECT_EQ(t.places, (std::vector<std::string>{path + ":3", path + ":5"}));
  // CSV out: the trajectory file of `tendyn tension trajectory`
  TensionProblem p = make_tension_problem(m);
  const auto res = solve_tension_trajectory(m, p, Method::kExact, t);
  const std::string csv = tension_trajectory_csv(m, p, t, res);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "t_s,x_m,y_m,phi_rad,status,loaded,residual_norm_N,tension_norm_N,c1.tension_N,c2.tension_N,c3.tension_N,c4.tension_N");
  EXPECT_EQ(csv.substr(csv.find('\n') + 1, 12), "0.5,1,2,0.1,");
  // errors with path:line[:col]
  std::ofstream(path) << "x,y,phi\n0,0,0\n0,abc,0\n";
  EXPECT_EQ(error_of([&] { (void)read_pose_trajectory(path, m); }), path + ":3:3 (y): 'abc' is not a finite number");
  std::ofstream(path) << "x,y\n0,0\n";
  EXPECT_EQ(error_of([&] { (void)read_pose_trajectory(path, m); }), path + ":1: missing column 'phi' (or 'phi_rad')");
  std::ofstream(path) << "x,y,phi\n0,0\n";
  EXPECT_EQ(error_of([&] { (void)read_pose_trajectory(path, m); }), path + ":2: 2 fields, header has 3");
  std::ofstream(path) << "";
  EXPECT_EQ(error_of([&] { (void)read_pose_trajectory(path, m); }), path + ":1: empty file (expected a header line)");
  EXPECT_EQ(error_of([&] { (void)read_pose_trajectory((dir / "none.csv").string(), m); }), (dir / "none.csv").string() + ": no such file");
}

TEST(TensionProblem, ScatterTensionsPutsZerosOutsideTheGroup) {
  const Model m = load_model(test::model_path("printer8.yaml")).model;
  const TensionProblem p = make_tension_problem(m, "lower");
  Eigen::VectorXd all;
  scatter_tensions(m, p, Eigen::Vector4d(1, 2, 3, 4), all);
  EXPECT_EQ(all, (Eigen::VectorXd(8) << 0, 0, 0, 0, 1, 2, 3, 4).finished());
  EXPECT_THROW(scatter_tensions(m, p, Eigen::Vector3d(1, 2, 3), all), Error);
}

}  // namespace
}  // namespace tendyn::cdpr
