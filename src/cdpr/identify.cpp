// CDPR cable and platform identification (include/tendyn/cdpr/identify.hpp).
#include <tendyn/cdpr/identify.hpp>
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>

#include <Eigen/Geometry>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace tendyn::cdpr {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Column-scaled linear least squares A x = b with the covariance sigma^2 (A^T A)^-1.
struct LinearFit {
  Eigen::VectorXd x, residual;
  Eigen::MatrixXd cov;
  double sigma = 0.0, cond = 0.0;
};
LinearFit least_squares(const Eigen::MatrixXd& A_in, const Eigen::VectorXd& b) {
  const auto p = A_in.cols();
  Eigen::VectorXd D(p);
  for (Eigen::Index k = 0; k < p; ++k) {
    const double nrm = A_in.col(k).norm();
    D[k] = nrm > 0.0 ? 1.0 / nrm : 1.0;
  }
  const Eigen::MatrixXd A = A_in * D.asDiagonal();
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(A);
  const Eigen::MatrixXd R = qr.matrixQR().topRows(p).triangularView<Eigen::Upper>();
  const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(R).singularValues();
  LinearFit f;
  f.cond = sv[p - 1] > 0.0 ? sv[0] / sv[p - 1] : std::numeric_limits<double>::infinity();
  if (!std::isfinite(f.cond)) return f;
  const Eigen::VectorXd xs = qr.solve(b);
  f.x = D.asDiagonal() * xs;
  f.residual = b - A * xs;
  const auto dof = A.rows() - p;
  f.sigma = dof > 0 ? std::sqrt(f.residual.squaredNorm() / static_cast<double>(dof)) : 0.0;
  const Eigen::MatrixXd Rinv = R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(p, p));
  f.cov = f.sigma * f.sigma * (D.asDiagonal() * (Rinv * Rinv.transpose()) * D.asDiagonal());
  return f;
}

Eigen::Matrix3d rpy_matrix(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

// Anchor of cable i at sample k (carriage offset along world z when logged).
Eigen::Vector3d anchor(const Model& m, const PlatformLog& log, Eigen::Index k, int i) {
  Eigen::Vector3d a = m.p_WA.col(i);
  if (log.carriage_z_m.cols() > 0) a.z() += log.carriage_z_m(k, i);
  return a;
}

void check_sizes(const Model& m, const PlatformLog& log) {
  const auto n = log.t_s.size();
  const int nc = m.ncable();
  auto check = [&](const Eigen::MatrixXd& x, Eigen::Index cols, const char* what, bool optional) {
    if (optional && x.cols() == 0) return;
    if (x.rows() != n || x.cols() != cols)
      throw Error(std::string("cdpr identify: log ") + what + " is " + std::to_string(x.rows()) + " x " + std::to_string(x.cols()) +
                  ", expected " + std::to_string(n) + " x " + std::to_string(cols));
    if (!x.allFinite()) throw Error(std::string("cdpr identify: log ") + what + " has a non-finite entry");
  };
  if (!log.t_s.allFinite()) throw Error("cdpr identify: log times are not finite");
  check(log.pose, 6, "pose", true);
  check(log.tension_N, nc, "tension", false);
  check(log.length_m, nc, "length", true);
  check(log.rest_length_m, nc, "rest length", true);
  check(log.carriage_z_m, nc, "carriage z", true);
  if (m.motion != Motion::kSpatial) throw Error("cdpr identify: model '" + m.name + "' must be spatial");
}

// Cable lengths: logged, or from the pose and the anchors.
Eigen::MatrixXd lengths(const Model& m, const PlatformLog& log) {
  if (log.length_m.cols() > 0) return log.length_m;
  if (log.pose.cols() == 0) throw Error("cdpr identify: the log has neither cable lengths nor poses");
  Eigen::MatrixXd L(log.t_s.size(), m.ncable());
  for (Eigen::Index k = 0; k < L.rows(); ++k) {
    const Eigen::Matrix3d R = rpy_matrix(log.pose(k, 3), log.pose(k, 4), log.pose(k, 5));
    const Eigen::Vector3d p = log.pose.row(k).head<3>().transpose();
    for (int i = 0; i < m.ncable(); ++i) L(k, i) = (anchor(m, log, k, i) - p - R * m.p_PB.col(i)).norm();
  }
  return L;
}

std::string sample_place(const PlatformLog& log, Eigen::Index k) {
  return log.places.empty() ? "sample " + std::to_string(k) : log.places[static_cast<std::size_t>(k)];
}

}  // namespace

// ------------------------------------------------------------------------------------ log file
std::string platform_log_header(const Model& model, bool with_lengths, bool rest_lengths, bool carriages) {
  std::string h = "t_s,x_m,y_m,z_m,roll_rad,pitch_rad,yaw_rad";
  for (const auto& c : model.cable_names) h += "," + c + ".tension_N";
  if (with_lengths)
    for (const auto& c : model.cable_names) h += "," + c + ".length_m";
  if (rest_lengths)
    for (const auto& c : model.cable_names) h += "," + c + ".rest_length_m";
  if (carriages)
    for (const auto& c : model.cable_names) h += "," + c + ".carriage_z_m";
  return h;
}

PlatformLog read_platform_log(const std::string& path, const Model& model) {
  io::CsvReader in(path);
  const int nc = model.ncable();
  const int c_t = in.require_column("t", "_s");
  std::vector<int> cpose;
  const char* pose_names[6] = {"x", "y", "z", "roll", "pitch", "yaw"};
  const char* pose_units[6] = {"_m", "_m", "_m", "_rad", "_rad", "_rad"};
  for (int k = 0; k < 6; ++k) cpose.push_back(in.find_column(pose_names[k], pose_units[k]));
  const auto npose = std::count_if(cpose.begin(), cpose.end(), [](int c) { return c >= 0; });
  if (npose != 0 && npose != 6) {
    const auto k = static_cast<std::size_t>(std::find(cpose.begin(), cpose.end(), -1) - cpose.begin());
    throw Error(path + ":1: has some pose columns but not '" + pose_names[k] + pose_units[k] + "'");
  }
  std::vector<int> cf, cl, cr, cz;
  for (const auto& c : model.cable_names) {
    cf.push_back(in.require_column(c + ".tension", "_N"));
    cl.push_back(in.find_column(c + ".length", "_m"));
    cr.push_back(in.find_column(c + ".rest_length", "_m"));
    cz.push_back(in.find_column(c + ".carriage_z", "_m"));
  }
  auto all_or_none = [&](const std::vector<int>& cols, const char* what) {
    const auto present = std::count_if(cols.begin(), cols.end(), [](int c) { return c >= 0; });
    if (present != 0 && present != static_cast<long>(cols.size())) {
      const auto k = static_cast<std::size_t>(std::find(cols.begin(), cols.end(), -1) - cols.begin());
      throw Error(path + ":1: has some " + what + " columns but not '" + model.cable_names[k] + "." + what + "_m'");
    }
    return present != 0;
  };
  const bool has_l = all_or_none(cl, "length"), has_r = all_or_none(cr, "rest_length"), has_z = all_or_none(cz, "carriage_z");
  std::vector<double> t, pose, f, l, r, z;
  PlatformLog log;
  while (in.next()) {
    const double tk = in.number(c_t);
    if (!t.empty() && !(tk > t.back()))
      throw Error(in.where(c_t) + " (t_s): time " + format_number(tk) + " s is not after the previous sample's " + format_number(t.back()) +
                  " s");
    t.push_back(tk);
    if (npose == 6)
      for (int c : cpose) pose.push_back(in.number(c));
    for (int i = 0; i < nc; ++i) {
      f.push_back(in.number(cf[static_cast<std::size_t>(i)]));
      if (has_l) l.push_back(in.number(cl[static_cast<std::size_t>(i)]));
      if (has_r) r.push_back(in.number(cr[static_cast<std::size_t>(i)]));
      if (has_z) z.push_back(in.number(cz[static_cast<std::size_t>(i)]));
    }
    log.places.push_back(in.where());
  }
  const auto n = static_cast<Eigen::Index>(t.size());
  if (n == 0) throw Error(path + ": no samples");
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  log.t_s = Eigen::Map<const Eigen::VectorXd>(t.data(), n);
  if (npose == 6) log.pose = Eigen::Map<const RowMajor>(pose.data(), n, 6);
  log.tension_N = Eigen::Map<const RowMajor>(f.data(), n, nc);
  if (has_l) log.length_m = Eigen::Map<const RowMajor>(l.data(), n, nc);
  if (has_r) log.rest_length_m = Eigen::Map<const RowMajor>(r.data(), n, nc);
  if (has_z) log.carriage_z_m = Eigen::Map<const RowMajor>(z.data(), n, nc);
  return log;
}

// ---------------------------------------------------------------------------------- cables
namespace {
// The cable fit 'stiffness-rest-length' assumes a constant rest length: a logged one that varies
// over the taut samples `rows` (from sample `first`) of cable i would be ignored, so it is refused.
void check_constant_rest_length(const PlatformLog& log, const Eigen::MatrixXd& L_all, Eigen::Index first,
                                const std::vector<Eigen::Index>& rows, int i, const std::string& name) {
  // The fit assumes a constant rest length; a logged one that varies would be ignored.
  // Allowed spread: 1e-3 of the spread of the lengths (a model error below 0.1 % of the
  // fitted stretch signal) plus rounding of the logged numbers.
  double r_lo = std::numeric_limits<double>::infinity(), r_hi = -r_lo, l_lo = r_lo, l_hi = -r_lo;
  Eigen::Index s_lo = 0, s_hi = 0;
  for (const Eigen::Index k : rows) {
    const double r0 = log.rest_length_m(first + k, i), l = L_all(first + k, i);
    if (r0 < r_lo) {
      r_lo = r0;
      s_lo = first + k;
    }
    if (r0 > r_hi) {
      r_hi = r0;
      s_hi = first + k;
    }
    l_lo = std::min(l_lo, l);
    l_hi = std::max(l_hi, l);
  }
  if (!rows.empty() && r_hi - r_lo > 1e-3 * (l_hi - l_lo) + 1e-12 * std::abs(r_hi))
    throw Error("cdpr identify: cable " + name +
                ": fit 'stiffness-rest-length' assumes a constant rest length, "
                "but the logged rest length varies from " +
                format_number(r_lo) + " m (" + sample_place(log, s_lo) + ") to " + format_number(r_hi) + " m (" + sample_place(log, s_hi) +
                "); use fit 'stiffness' (it uses the logged rest length of every sample)");
}
}  // namespace

CableIdentification identify_cables(const Model& model, const PlatformLog& log, const CableFitOptions& o) {
  check_sizes(model, log);
  if (o.half_width < 1) throw Error("cdpr identify: half width must be >= 1, got " + std::to_string(o.half_width));
  if (!(o.taut_min_N >= 0.0) || !std::isfinite(o.taut_min_N)) throw Error("cdpr identify: taut_min_N must be >= 0 and finite");
  const bool with_rest = o.fit == StiffnessFit::kStiffness;
  if (with_rest && log.rest_length_m.cols() == 0)
    throw Error(
        "cdpr identify: cable fit 'stiffness' needs the rest lengths (<cable>.rest_length_m columns); "
        "without them use 'stiffness-rest-length' (winches held)");
  const int nc = model.ncable();
  const Eigen::MatrixXd L_all = lengths(model, log);
  // Samples used: all, or the interior ones with the rates of l and l0 when damping is fitted.
  Eigen::Index first = 0, N = log.t_s.size();
  Eigen::MatrixXd ldot, l0dot;
  if (o.damping) {
    const QuadraticDerivatives dl = differentiate_quadratic(log.t_s, L_all, o.half_width);
    first = dl.first_row;
    N = dl.d1.rows();
    ldot = dl.d1;
    l0dot = with_rest ? differentiate_quadratic(log.t_s, log.rest_length_m, o.half_width).d1 : Eigen::MatrixXd::Zero(N, nc);
  }
  CableIdentification out;
  if (o.damping) {
    out.length_noise = derivative_noise(log.t_s, L_all, o.half_width);
    if (out.length_noise.worst(1) > kDerivativeNoiseWarning)
      out.suggested_half_width = smoothing_for_noise(log.t_s, L_all, 1, kDerivativeNoiseWarning,
                                                     static_cast<int>(std::min<Eigen::Index>(64, (log.t_s.size() - 1) / 8)));
  }
  out.t_s = log.t_s.segment(first, N);
  out.residual_N = Eigen::MatrixXd::Constant(N, nc, kNaN);
  const int p = (with_rest ? 1 : 2) + (o.damping ? 1 : 0);
  for (int i = 0; i < nc; ++i) {
    const std::string& name = model.cable_names[static_cast<std::size_t>(i)];
    std::vector<Eigen::Index> rows;
    for (Eigen::Index k = 0; k < N; ++k)
      if (log.tension_N(first + k, i) > o.taut_min_N) rows.push_back(k);
    const auto m = static_cast<Eigen::Index>(rows.size());
    if (!with_rest && log.rest_length_m.cols() != 0) check_constant_rest_length(log, L_all, first, rows, i, name);
    if (m <= p)
      throw Error("cdpr identify: cable " + name + ": " + std::to_string(m) + " taut samples (tension > " + format_number(o.taut_min_N) +
                  " N) for " + std::to_string(p) + " unknowns");
    Eigen::MatrixXd A(m, p);
    Eigen::VectorXd b(m);
    double l0_sum = 0.0;
    for (Eigen::Index r = 0; r < m; ++r) {
      const Eigen::Index k = rows[static_cast<std::size_t>(r)], s = first + k;
      const double l = L_all(s, i);
      b[r] = log.tension_N(s, i);
      if (with_rest) {
        const double l0 = log.rest_length_m(s, i);
        if (!(l0 > 0.0))
          throw Error("cdpr identify: " + sample_place(log, s) + ": cable " + name + ": rest length " + format_number(l0) +
                      " m is not positive");
        l0_sum += l0;
        A(r, 0) = (l - l0) / l0;
        if (o.damping) A(r, 1) = ldot(k, i) - l0dot(k, i);
      } else {
        A(r, 0) = l;
        A(r, 1) = -1.0;
        if (o.damping) A(r, 2) = ldot(k, i);
      }
    }
    const LinearFit fit = least_squares(A, b);
    if (!(fit.cond < 1e10))
      throw Error("cdpr identify: cable " + name + ": the " + std::string(with_rest ? "stretch" : "lengths") +
                  (o.damping ? " and rates" : "") + " do not vary enough to separate the unknowns (condition number " +
                  format_number(fit.cond, 3) + ")");
    CableFit c;
    c.name = name;
    c.nsample = static_cast<long>(m);
    c.rms_N = std::sqrt(fit.residual.squaredNorm() / static_cast<double>(m));
    if (with_rest) {
      c.EA_N = fit.x[0];
      c.EA_std_N = std::sqrt(fit.cov(0, 0));
      c.rest_length_m = l0_sum / static_cast<double>(m);
      c.rest_length_std_m = kNaN;
      c.k_Npm = c.EA_N / c.rest_length_m;
      c.k_std_Npm = c.EA_std_N / c.rest_length_m;
    } else {
      const double k = fit.x[0], kl0 = fit.x[1];
      c.k_Npm = k;
      c.k_std_Npm = std::sqrt(fit.cov(0, 0));
      c.rest_length_m = kl0 / k;
      c.EA_N = kl0;
      c.EA_std_N = std::sqrt(fit.cov(1, 1));
      // l0 = kl0 / k: gradient (-kl0 / k^2, 1 / k).
      const Eigen::Vector2d g(-kl0 / (k * k), 1.0 / k);
      c.rest_length_std_m = std::sqrt(std::max(0.0, g.dot(fit.cov.topLeftCorner<2, 2>() * g)));
    }
    if (o.damping) {
      c.damping_Nspm = fit.x[p - 1];
      c.damping_std_Nspm = std::sqrt(fit.cov(p - 1, p - 1));
    }
    // Unweighted residuals of this cable (the fit returns the scaled-system residual = b - A x).
    for (Eigen::Index r = 0; r < m; ++r) out.residual_N(rows[static_cast<std::size_t>(r)], i) = fit.residual[r];
    out.cables.push_back(c);
  }
  return out;
}

// -------------------------------------------------------------------------------- platform
Eigen::Matrix<double, 6, 10> platform_regressor(const Eigen::Matrix3d& R, const Eigen::Vector3d& w, const Eigen::Vector3d& alpha,
                                                const Eigen::Vector3d& a_P_W, const Eigen::Vector3d& g_W) {
  // The wrench is linear in pi: column k is the wrench of the k-th unit parameter vector.
  const Eigen::Vector3d a_g_W = a_P_W - g_W;
  const Eigen::Vector3d a_g_P = R.transpose() * a_g_W;
  Eigen::Matrix<double, 6, 10> Y;
  for (int k = 0; k < 10; ++k) {
    double m = 0.0;
    Eigen::Vector3d h = Eigen::Vector3d::Zero();
    Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
    switch (k) {
      case 0: m = 1.0; break;
      case 1:
      case 2:
      case 3: h[k - 1] = 1.0; break;
      case 4: I(0, 0) = 1.0; break;
      case 5: I(0, 1) = I(1, 0) = 1.0; break;
      case 6: I(0, 2) = I(2, 0) = 1.0; break;
      case 7: I(1, 1) = 1.0; break;
      case 8: I(1, 2) = I(2, 1) = 1.0; break;
      default: I(2, 2) = 1.0; break;
    }
    Y.block<3, 1>(0, k) = m * a_g_W + R * (alpha.cross(h) + w.cross(w.cross(h)));
    Y.block<3, 1>(3, k) = I * alpha + w.cross(I * w) + h.cross(a_g_P);
  }
  return Y;
}

PlatformIdentification identify_platform(const Model& model, const PlatformLog& log, const PlatformFitOptions& o) {
  check_sizes(model, log);
  if (log.pose.cols() == 0) throw Error("cdpr identify: platform fit needs the poses (x_m .. yaw_rad columns)");
  if (o.half_width < 1) throw Error("cdpr identify: half width must be >= 1, got " + std::to_string(o.half_width));
  const Eigen::Index n = log.t_s.size();
  const Eigen::Index w = 2 * static_cast<Eigen::Index>(o.half_width) + 1;
  if (n < w + 10)
    throw Error("cdpr identify: " + std::to_string(n) + " samples; the platform fit needs at least " + std::to_string(w + 10) +
                " (window " + std::to_string(w) + " + 10 parameters)");
  for (Eigen::Index k = 1; k < n; ++k)
    if (!(log.t_s[k] > log.t_s[k - 1]))
      throw Error("cdpr identify: " + sample_place(log, k) + ": time " + format_number(log.t_s[k]) +
                  " s is not after the previous sample's");
  std::vector<Eigen::Matrix3d> R(static_cast<std::size_t>(n));
  for (Eigen::Index k = 0; k < n; ++k) R[static_cast<std::size_t>(k)] = rpy_matrix(log.pose(k, 3), log.pose(k, 4), log.pose(k, 5));
  const Eigen::Index N = n - w + 1;
  const int nc = model.ncable();
  Eigen::MatrixXd A(6 * N, 10);
  Eigen::VectorXd b(6 * N);
  PlatformIdentification out;
  out.t_s = log.t_s.segment(o.half_width, N);
  Eigen::MatrixXd P(w, 3), TH(w, 3);
  for (Eigen::Index r = 0; r < N; ++r) {
    const Eigen::Index k = r + o.half_width;
    const auto W = quadratic_fit_weights(log.t_s.data() + r, static_cast<int>(w), log.t_s[k]);
    const Eigen::Matrix3d& Rk = R[static_cast<std::size_t>(k)];
    for (Eigen::Index j = 0; j < w; ++j) {
      P.row(j) = log.pose.row(r + j).head<3>();
      const Eigen::AngleAxisd aa(R[static_cast<std::size_t>(r + j)] * Rk.transpose());
      TH.row(j) = (aa.angle() * aa.axis()).transpose();
    }
    const Eigen::Vector3d a_P = (W.row(2) * P).transpose();
    const Eigen::Vector3d omega_W = (W.row(1) * TH).transpose();
    const Eigen::Vector3d alpha_W = (W.row(2) * TH).transpose();
    A.middleRows<6>(6 * r) = platform_regressor(Rk, Rk.transpose() * omega_W, Rk.transpose() * alpha_W, a_P, model.gravity_W);
    // Measured cable wrench: force in W, moment about P in platform axes.
    const Eigen::Vector3d p = log.pose.row(k).head<3>().transpose();
    Eigen::Vector3d F = Eigen::Vector3d::Zero(), M = Eigen::Vector3d::Zero();
    for (int i = 0; i < nc; ++i) {
      const Eigen::Vector3d rB = Rk * model.p_PB.col(i);
      const Eigen::Vector3d l = anchor(model, log, k, i) - p - rB;
      const double len = l.norm();
      if (!(len > 1e-9))
        throw Error("cdpr identify: " + sample_place(log, k) + ": cable " + model.cable_names[static_cast<std::size_t>(i)] +
                    " has zero length");
      const Eigen::Vector3d f = log.tension_N(k, i) * l / len;
      F += f;
      M += rB.cross(f);
    }
    b.segment<3>(6 * r) = F;
    b.segment<3>(6 * r + 3) = Rk.transpose() * M;
  }
  auto solve = [&](const Eigen::Matrix<double, 6, 1>& rw) {
    Eigen::MatrixXd Aw = A;
    Eigen::VectorXd bw = b;
    for (Eigen::Index r = 0; r < N; ++r) {
      Aw.middleRows<6>(6 * r) = rw.asDiagonal() * Aw.middleRows<6>(6 * r);
      bw.segment<6>(6 * r) = rw.cwiseProduct(bw.segment<6>(6 * r));
    }
    const LinearFit fit = least_squares(Aw, bw);
    if (!(fit.cond <= o.max_condition))
      throw Error("cdpr identify: the data do not excite every platform parameter: condition number " + format_number(fit.cond, 3) +
                  " of the scaled regressor (limit " + format_number(o.max_condition, 3) +
                  "); use motion with rotations and accelerations");
    out.pi = fit.x;
    out.cov = fit.cov;
    out.condition_number = fit.cond;
    const Eigen::VectorXd res = b - A * fit.x;
    out.residual = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, 6, Eigen::RowMajor>>(res.data(), N, 6);
    out.rms_row = (out.residual.colwise().squaredNorm() / static_cast<double>(N)).cwiseSqrt().transpose();
  };
  out.row_weight.setOnes();
  solve(out.row_weight);
  if (o.row_weighting) {
    const double floor = std::max(1e-6 * out.rms_row.maxCoeff(), 1e-300);
    for (int j = 0; j < 6; ++j) out.row_weight[j] = 1.0 / std::max(out.rms_row[j], floor);
    out.row_weight /= out.row_weight.minCoeff();
    solve(out.row_weight);
  }
  out.nsample = static_cast<long>(N);
  // Errors in variables: how much of the differentiated accelerations is noise of the pose log.
  out.pose_noise = derivative_noise(log.t_s, log.pose, o.half_width);
  if (out.pose_noise.worst(2) > kDerivativeNoiseWarning)
    out.suggested_half_width =
        smoothing_for_noise(log.t_s, log.pose, 2, kDerivativeNoiseWarning, static_cast<int>(std::min<Eigen::Index>(64, (n - 1) / 8)));
  out.pi_std = out.cov.diagonal().cwiseMax(0.0).cwiseSqrt();
  out.mass_kg = out.pi[0];
  out.mass_std_kg = out.pi_std[0];
  const Eigen::Vector3d h = out.pi.segment<3>(1);
  out.inertia_P_kgm2 << out.pi[4], out.pi[5], out.pi[6], out.pi[5], out.pi[7], out.pi[8], out.pi[6], out.pi[8], out.pi[9];
  if (out.mass_kg > 0.0) {
    out.com_P_m = h / out.mass_kg;
    // c = h / m: Jacobian [-h / m^2, I / m] on (m, h).
    Eigen::Matrix<double, 3, 4> J;
    J.col(0) = -h / (out.mass_kg * out.mass_kg);
    J.rightCols<3>() = Eigen::Matrix3d::Identity() / out.mass_kg;
    out.com_std_m = (J * out.cov.topLeftCorner<4, 4>() * J.transpose()).diagonal().cwiseMax(0.0).cwiseSqrt();
    const Eigen::Vector3d& c = out.com_P_m;
    out.inertia_C_kgm2 = out.inertia_P_kgm2 - out.mass_kg * (c.squaredNorm() * Eigen::Matrix3d::Identity() - c * c.transpose());
  } else {
    out.com_P_m.setConstant(kNaN);
    out.com_std_m.setConstant(kNaN);
    out.inertia_C_kgm2.setConstant(kNaN);
  }
  return out;
}

}  // namespace tendyn::cdpr
