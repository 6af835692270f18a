// `tendyn identify` with tree and CDPR models (the linear identifications) end to end: the tree inertial parameters from a `tendyn tree simulate` result file, the CDPR cable
// fit from a written log, the files of the result set, and errors with exit 2 and the place.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"

#ifdef TENDYN_WITH_CDPR
#include <tendyn/cdpr/geometry.hpp>
#include <tendyn/cdpr/identify.hpp>
#include <tendyn/cdpr/model_io.hpp>
#include <tendyn/io/csv.hpp>

#include <Eigen/Geometry>
#include <Eigen/QR>
#endif

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using tendyn::test::fresh_dir;
using tendyn::test::kModels;
using tendyn::test::run;
using tendyn::test::slurp;

#ifdef TENDYN_WITH_TREE
// Errors in variables, tree: q logged with 1e-4 rad of noise (v and a differentiated from it at
// the default smooth=1) gave base parameters hundreds of std off with nothing on stdout; the
// command warns and suggests a smoothing; the noise-free q does not warn.
TEST(IdentifyLinearCli, TreeWarnsWhenDerivativeNoiseDominates) {
  const auto d = fresh_dir("identify_linear_tree_noise");
  {
    std::ofstream f(d / "torque.csv");
    f << "t_s,tau_1,tau_2\n";
    for (int k = 0; k <= 1000; ++k) {
      const double t = 0.01 * k;
      f << t << "," << 3 * std::sin(1.3 * t) + 1.5 * std::sin(3.7 * t) << "," << 1.5 * std::sin(2.1 * t + 0.5) + 0.7 * std::cos(5.3 * t)
        << "\n";
    }
  }
  const std::string model = kModels + "tree/double_pendulum.yaml";
  const auto sim = run("tree simulate " + model + " --torque " + (d / "torque.csv").string() + " --duration 10 --dt 1e-3 --every 5 -o " +
                       (d / "sim").string());
  ASSERT_EQ(sim.code, 0) << sim.out;
  // keep t, q and tau; add noise to q
  std::ifstream in(d / "sim/results.csv");
  std::string line;
  std::getline(in, line);  // t_s,q:..,q:..,v:..,v:..,tau:..,tau:..,energy_J
  std::ofstream noisy(d / "noisy.csv"), clean(d / "clean.csv");
  const std::string header = "t_s,q:link1_joint_rad,q:link2_joint_rad,tau:link1_joint_Nm,tau:link2_joint_Nm\n";
  noisy << header;
  clean << header;
  std::mt19937_64 rng(5);
  std::normal_distribution<double> g(0.0, 1.0);
  while (std::getline(in, line)) {
    std::vector<double> v;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) v.push_back(std::stod(cell));
    ASSERT_EQ(v.size(), 8U) << line;
    tendyn::io::CsvLine a, b;
    a.num(v[0]).num(v[1] + 1e-4 * g(rng)).num(v[2] + 1e-4 * g(rng)).num(v[5]).num(v[6]);
    b.num(v[0]).num(v[1]).num(v[2]).num(v[5]).num(v[6]);
    noisy << a.str() << "\n";
    clean << b.str() << "\n";
  }
  noisy.close();
  clean.close();
  const auto r = run("identify " + model + " --data " + (d / "noisy.csv").string() + " --fit inertia -o " + (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("WARNING: derivative noise dominates: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("second derivative of 'q:link1_joint_rad' (smooth=1)"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  ASSERT_TRUE(j["derivative_noise"]["suggested_half_width"].is_number()) << j["derivative_noise"].dump();
  EXPECT_GT(j["derivative_noise"]["suggested_half_width"].get<int>(), 1);
  const auto ok = run("identify " + model + " --data " + (d / "clean.csv").string() + " --fit inertia -o " + (d / "out_clean").string());
  ASSERT_EQ(ok.code, 0) << ok.out;
  EXPECT_EQ(ok.out.find("WARNING"), std::string::npos) << ok.out;
}

TEST(IdentifyLinearCli, TreeFromSimulatedResults) {
  const auto d = fresh_dir("identify_linear_tree");
  {
    std::ofstream f(d / "torque.csv");
    f << "t_s,tau_1,tau_2\n";
    for (int k = 0; k <= 1000; ++k) {
      const double t = 0.01 * k;
      f << t << "," << 3 * std::sin(1.3 * t) + 1.5 * std::sin(3.7 * t) << "," << 1.5 * std::sin(2.1 * t + 0.5) + 0.7 * std::cos(5.3 * t)
        << "\n";
    }
  }
  const std::string model = kModels + "tree/double_pendulum.yaml";
  const auto sim = run("tree simulate " + model + " --torque " + (d / "torque.csv").string() + " --duration 10 --dt 1e-3 --every 5 -o " +
                       (d / "sim").string());
  ASSERT_EQ(sim.code, 0) << sim.out;
  // results.csv has q, v and tau: a is differentiated from v.
  const auto r = run("identify " + model + " --data " + (d / "sim/results.csv").string() + " --fit inertia,weighting=joint -o " +
                     (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("6 base parameters of 20"), std::string::npos) << r.out;
  for (const char* f : {"base_parameters.csv", "parameters.csv", "residuals.csv", "report.json"})
    EXPECT_TRUE(fs::exists(d / "out" / f)) << f;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  EXPECT_EQ(j["base_parameters"]["rank"], 6);
  EXPECT_EQ(j["weighting"], "joint");
  // the identified base parameters are those of the model that made the data (within 1 %)
  const auto& nominal = j["base_parameters"]["nominal"];
  const auto& ident = j["base_parameters"]["identified"];
  double scale = 0.0;
  for (const auto& x : nominal) scale = std::max(scale, std::abs(x.get<double>()));
  for (std::size_t k = 0; k < nominal.size(); ++k) {
    const double n = nominal[k].get<double>(), e = ident[k].get<double>();
    EXPECT_LE(std::abs(e - n), 0.01 * std::max(std::abs(n), 1e-3 * scale)) << k;
  }
  EXPECT_EQ(j["tendyn"]["model_file"], model);
  const std::string header = slurp(d / "out/residuals.csv").substr(0, 80);
  EXPECT_EQ(header.rfind("t_s,residual_tau:link1_joint_Nm,residual_tau:link2_joint_Nm\n", 0), 0u) << header;

  // Errors: exit 2, the place named, no result set left behind.
  auto e = run("identify " + model + " --data " + (d / "torque.csv").string() + " --fit inertia -o " + (d / "bad").string());
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("torque.csv:1: missing column 'q:link1_joint'"), std::string::npos) << e.out;
  EXPECT_FALSE(fs::exists(d / "bad"));
  e = run("identify " + model + " --data " + (d / "sim/results.csv").string() + " --fit mass -o " + (d / "bad").string());
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("--fit: unknown entry 'mass'"), std::string::npos) << e.out;
  e = run("identify " + model + " --data " + (d / "sim/results.csv").string() + " --fit inertia,smooth=0");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("--fit smooth"), std::string::npos) << e.out;
  e = run("identify " + model + " --data " + (d / "nothing.csv").string() + " --fit inertia");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_EQ(run("identify " + model + " --fit inertia").code, 1);  // --data missing: usage
  e = run("identify " + model + " --data " + (d / "sim/results.csv").string() + " --fit inertia --dt 0.01 -o " +
          (d / "bad").string());  // a tensegrity-only option
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("--dt: applies to tensegrity models only"), std::string::npos) << e.out;
  EXPECT_FALSE(fs::exists(d / "bad"));
}
#endif

#ifdef TENDYN_WITH_CDPR
// Cable stiffness and rest length from a log with lengths and tensions (winches held): the
// tensions of f = k (l - l0) for printer8's cables, k = 2e7 N / l0.
TEST(IdentifyLinearCli, CdprCablesFromLog) {
  const auto d = fresh_dir("identify_linear_cdpr");
  const std::string model = kModels + "cdpr/printer8.yaml";
  const char* names[8] = {"u1", "u2", "u3", "u4", "l1", "l2", "l3", "l4"};
  {
    std::ofstream f(d / "log.csv");
    f.precision(12);
    f << "t_s";
    for (const char* c : names) f << "," << c << ".tension_N";
    for (const char* c : names) f << "," << c << ".length_m";
    f << "\n";
    for (int k = 0; k < 200; ++k) {
      f << 0.01 * k;
      double l[8], t[8];
      for (int i = 0; i < 8; ++i) {
        const double l0 = 15.0 + 0.5 * i;
        l[i] = l0 + 1e-3 + 5e-4 * std::sin(0.07 * k + i);
        t[i] = 2e7 / l0 * (l[i] - l0);
      }
      for (double x : t) f << "," << x;
      for (double x : l) f << "," << x;
      f << "\n";
    }
  }
  const auto r =
      run("identify " + model + " --data " + (d / "log.csv").string() + " --fit stiffness-rest-length -o " + (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  ASSERT_EQ(j["cables"]["results"].size(), 8u);
  for (int i = 0; i < 8; ++i) {
    const auto& c = j["cables"]["results"][static_cast<std::size_t>(i)];
    EXPECT_EQ(c["name"], names[i]);
    EXPECT_NEAR(c["EA_N"].get<double>(), 2e7, 2e7 * 1e-6);
    EXPECT_NEAR(c["rest_length_m"].get<double>(), 15.0 + 0.5 * i, 1e-7);
  }
  EXPECT_TRUE(fs::exists(d / "out/cables.csv"));
  EXPECT_TRUE(fs::exists(d / "out/residuals_cables.csv"));
  // 'stiffness' needs rest lengths; 'inertia' needs poses: exit 2 with the reason.
  auto e = run("identify " + model + " --data " + (d / "log.csv").string() + " --fit stiffness");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("needs the rest lengths"), std::string::npos) << e.out;
  e = run("identify " + model + " --data " + (d / "log.csv").string() + " --fit inertia");
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("needs the poses"), std::string::npos) << e.out;
  e = run("identify " + model + " --data " + (d / "log.csv").string() + " --fit damping");
  EXPECT_EQ(e.code, 2) << e.out;
}

// Platform mass, COM and inertia end to end: a smooth analytic motion of printer8's platform at
// 100 Hz, the tensions that realise it (Newton-Euler of a known platform, minimum-norm change from
// a 3 kN pretension), written as a pose + tension log; the command's platform.csv and report.json
// give the platform back.
// Writes the platform log of CdprPlatformFromPoseAndTensionLog; `noise` [m, rad] is added to the
// logged pose (Gaussian, seeded).
void write_platform_log(const fs::path& path, const tendyn::cdpr::Model& model, const Eigen::Matrix<double, 10, 1>& pi, double noise) {
  const auto pose_at = [](double t, Eigen::Vector3d& p, Eigen::Vector3d& rpy) {
    p = Eigen::Vector3d(0.1 * std::sin(1.3 * t), 0.08 * std::sin(1.7 * t + 0.3), 3.0 + 0.05 * std::sin(2.3 * t));
    rpy = Eigen::Vector3d(0.05 * std::sin(2.1 * t), 0.04 * std::sin(1.9 * t + 1.0), 0.06 * std::sin(1.1 * t + 0.5));
  };
  const auto R_of = [](const Eigen::Vector3d& rpy) { return tendyn::cdpr::pose_from_xyz_rpy(Eigen::Vector3d::Zero(), rpy).R_WP; };
  const auto rotvec = [](const Eigen::Matrix3d& R) {
    const Eigen::AngleAxisd aa(R);
    return Eigen::Vector3d(aa.angle() * aa.axis());
  };
  tendyn::cdpr::Data geo = tendyn::cdpr::make_data(model);
  std::mt19937_64 rng(11);
  std::normal_distribution<double> g(0.0, 1.0);
  std::ofstream out(path);
  out << tendyn::cdpr::platform_log_header(model, false, false) << "\n";
  const double h = 1e-4;
  for (int k = 0; k < 800; ++k) {
    const double t = 0.01 * k;
    Eigen::Vector3d p, rpy, pm, rm, pp, rp;
    pose_at(t, p, rpy);
    pose_at(t - h, pm, rm);
    pose_at(t + h, pp, rp);
    const Eigen::Matrix3d R = R_of(rpy);
    const Eigen::Vector3d a_P = (pp - 2 * p + pm) / (h * h);
    const Eigen::Vector3d w_W = rotvec(R_of(rp) * R_of(rm).transpose()) / (2 * h);
    const Eigen::Vector3d al_W = (rotvec(R_of(rp) * R.transpose()) - rotvec(R * R_of(rm).transpose())) / (h * h);
    const auto Y = tendyn::cdpr::platform_regressor(R, R.transpose() * w_W, R.transpose() * al_W, a_P, model.gravity_W);
    const Eigen::Matrix<double, 6, 1> wrench = Y * pi;
    tendyn::cdpr::update_geometry(model, tendyn::cdpr::pose_from_xyz_rpy(p, rpy), geo);
    Eigen::MatrixXd Jb = geo.J;
    Jb.bottomRows<3>() = R.transpose() * geo.J.bottomRows<3>();
    const Eigen::VectorXd f0 = Eigen::VectorXd::Constant(model.ncable(), 3000.0);
    const Eigen::VectorXd f = f0 + Jb.completeOrthogonalDecomposition().solve(wrench - Jb * f0);
    ASSERT_GT(f.minCoeff(), 100.0);
    if (noise > 0.0)
      for (int c = 0; c < 3; ++c) {
        p[c] += noise * g(rng);
        rpy[c] += noise * g(rng);
      }
    tendyn::io::CsvLine line;
    line.num(t).nums(p).nums(rpy).nums(f);
    out << line.str() << "\n";
  }
}

TEST(IdentifyLinearCli, CdprPlatformFromPoseAndTensionLog) {
  const auto d = fresh_dir("identify_linear_platform");
  const std::string model_file = kModels + "cdpr/printer8.yaml";
  const tendyn::cdpr::Model model = tendyn::cdpr::load_model(model_file).model;
  const double mass = 320.0;
  const Eigen::Vector3d c(0.01, -0.02, -0.05);
  const Eigen::Matrix3d I_C = Eigen::Vector3d(40.0, 45.0, 50.0).asDiagonal();
  const Eigen::Matrix3d I_P = I_C + mass * (c.squaredNorm() * Eigen::Matrix3d::Identity() - c * c.transpose());
  Eigen::Matrix<double, 10, 1> pi;
  pi << mass, mass * c, I_P(0, 0), I_P(0, 1), I_P(0, 2), I_P(1, 1), I_P(1, 2), I_P(2, 2);
  write_platform_log(d / "log.csv", model, pi, 0.0);
  const auto r = run("identify " + model_file + " --data " + (d / "log.csv").string() + " --fit inertia -o " + (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("platform: mass 320"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  EXPECT_NEAR(j["platform"]["mass_kg"].get<double>(), mass, 1e-3 * mass);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(j["platform"]["com_P_m"][static_cast<std::size_t>(k)].get<double>(), c[k], 1e-3);
    EXPECT_NEAR(j["platform"]["inertia_C_kgm2"][static_cast<std::size_t>(k)][static_cast<std::size_t>(k)].get<double>(), I_C(k, k),
                0.02 * I_C(k, k));
  }
  EXPECT_TRUE(j["platform"]["derivative_noise"]["warning"].is_null());
  EXPECT_TRUE(fs::exists(d / "out/platform.csv"));
  EXPECT_TRUE(fs::exists(d / "out/residuals_platform.csv"));
}

// Errors in variables end to end: 0.1 mm / 0.1 mrad of pose noise at 100 Hz, differentiated at the
// default smooth=1, leaves the mass biased far outside its std. The command says so on stdout
// (and in report.json) with the noise share and a smoothing; at that smoothing it does not.
TEST(IdentifyLinearCli, CdprPlatformWarnsWhenDerivativeNoiseDominates) {
  const auto d = fresh_dir("identify_linear_platform_noise");
  const std::string model_file = kModels + "cdpr/printer8.yaml";
  const tendyn::cdpr::Model model = tendyn::cdpr::load_model(model_file).model;
  Eigen::Matrix<double, 10, 1> pi;
  pi << 320.0, 0.0, 0.0, 0.0, 40.0, 0.0, 0.0, 45.0, 0.0, 50.0;
  write_platform_log(d / "log.csv", model, pi, 1e-4);
  const auto r = run("identify " + model_file + " --data " + (d / "log.csv").string() + " --fit inertia -o " + (d / "out").string());
  ASSERT_EQ(r.code, 0) << r.out;
  const auto w = r.out.find("WARNING: derivative noise dominates: ");
  ASSERT_NE(w, std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(smooth=1) is noise", w), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  const auto& dn = j["platform"]["derivative_noise"];
  ASSERT_TRUE(dn["warning"].is_string()) << dn.dump();
  ASSERT_TRUE(dn["suggested_half_width"].is_number()) << dn.dump();
  const int k = dn["suggested_half_width"].get<int>();
  EXPECT_GT(k, 1);
  EXPECT_NE(r.out.find("use --fit ...,smooth=" + std::to_string(k)), std::string::npos) << r.out;
  const double m1 = j["platform"]["mass_kg"].get<double>(), s1 = j["platform"]["mass_std_kg"].get<double>();
  std::printf("smooth=1: mass %.6g +- %.3g (true 320); suggested smooth=%d\n", m1, s1, k);
  const auto r2 = run("identify " + model_file + " --data " + (d / "log.csv").string() + " --fit inertia,smooth=" + std::to_string(k) +
                      " -o " + (d / "out2").string());
  ASSERT_EQ(r2.code, 0) << r2.out;
  EXPECT_EQ(r2.out.find("WARNING"), std::string::npos) << r2.out;
  const double m2 = nlohmann::json::parse(slurp(d / "out2/report.json"))["platform"]["mass_kg"].get<double>();
  EXPECT_LT(std::abs(m2 - 320.0), std::abs(m1 - 320.0));
}

// Rest lengths logged and varying (winches moving): 'stiffness-rest-length' would fit a constant
// rest length to them and return a stiffness far off with exit 0; it is refused (exit 2), and
// 'stiffness' uses them.
TEST(IdentifyLinearCli, CdprStiffnessRestLengthRefusesVaryingRestLengths) {
  const auto d = fresh_dir("identify_linear_cdpr_rest");
  const std::string model = kModels + "cdpr/printer8.yaml";
  const char* names[8] = {"u1", "u2", "u3", "u4", "l1", "l2", "l3", "l4"};
  {
    std::ofstream f(d / "log.csv");
    f.precision(12);
    f << "t_s";
    for (const char* c : names) f << "," << c << ".tension_N";
    for (const char* c : names) f << "," << c << ".length_m";
    for (const char* c : names) f << "," << c << ".rest_length_m";
    f << "\n";
    for (int k = 0; k < 200; ++k) {
      f << 0.01 * k;
      double l[8], t[8], r[8];
      for (int i = 0; i < 8; ++i) {
        r[i] = 15.0 + 0.5 * i + 0.05 * std::sin(0.03 * k + i);  // winch paying out and in
        l[i] = r[i] + 1e-3 + 5e-4 * std::sin(0.07 * k + i);
        t[i] = 2e7 / r[i] * (l[i] - r[i]);
      }
      for (double x : t) f << "," << x;
      for (double x : l) f << "," << x;
      for (double x : r) f << "," << x;
      f << "\n";
    }
  }
  auto e = run("identify " + model + " --data " + (d / "log.csv").string() + " --fit stiffness-rest-length -o " + (d / "out").string());
  EXPECT_EQ(e.code, 2) << e.out;
  EXPECT_NE(e.out.find("cable u1: fit 'stiffness-rest-length' assumes a constant rest length, but the logged rest "
                       "length varies from "),
            std::string::npos)
      << e.out;
  EXPECT_FALSE(fs::exists(d / "out"));
  e = run("identify " + model + " --data " + (d / "log.csv").string() + " --fit stiffness -o " + (d / "out").string());
  ASSERT_EQ(e.code, 0) << e.out;
  const auto j = nlohmann::json::parse(slurp(d / "out/report.json"));
  for (const auto& c : j["cables"]["results"]) EXPECT_NEAR(c["EA_N"].get<double>(), 2e7, 2e7 * 1e-6) << c["name"];
}
#endif

}  // namespace
