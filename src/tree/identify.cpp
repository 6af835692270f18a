// Inertial-parameter identification of tree robots (include/tendyn/tree/identify.hpp).
#include <tendyn/core/differentiate.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/identify.hpp>

#include <Eigen/Cholesky>
#include <Eigen/QR>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "spatial.hpp"

namespace tendyn::tree {
namespace {

constexpr int kP = kInertialParametersPerLink;
constexpr const char* kParamSuffix[kP] = {"m_kg",     "mcx_kgm",  "mcy_kgm",  "mcz_kgm",  "Ixx_kgm2",
                                          "Ixy_kgm2", "Ixz_kgm2", "Iyy_kgm2", "Iyz_kgm2", "Izz_kgm2"};

// Unit inertia of parameter k (the k-th column of the linear map pi_i -> Inertia).
Inertia unit_inertia(int k) {
  Inertia u;
  switch (k) {
    case 0: u.m = 1.0; break;
    case 1: u.h.x() = 1.0; break;
    case 2: u.h.y() = 1.0; break;
    case 3: u.h.z() = 1.0; break;
    case 4: u.I(0, 0) = 1.0; break;
    case 5: u.I(0, 1) = u.I(1, 0) = 1.0; break;
    case 6: u.I(0, 2) = u.I(2, 0) = 1.0; break;
    case 7: u.I(1, 1) = 1.0; break;
    case 8: u.I(1, 2) = u.I(2, 1) = 1.0; break;
    default: u.I(2, 2) = 1.0; break;
  }
  return u;
}

// S_j^T f into out[0..nv_j).
void project(const Joint& j, const Vector6d& f, double* out) {
  switch (j.type) {
    case JointType::kFixed: break;
    case JointType::kRevolute: out[0] = j.axis.dot(f.head<3>()); break;
    case JointType::kPrismatic: out[0] = j.axis.dot(f.tail<3>()); break;
    case JointType::kFree:
      for (int k = 0; k < 6; ++k) out[k] = f[k];
      break;
  }
}

struct Coordinate {
  std::string q_or_v;  // column stem without the "q:" prefix and unit
  const char* unit;    // unit suffix ("_rad", "_m", "" for quaternion entries)
};

std::vector<Coordinate> q_columns(const Model& m) {
  std::vector<Coordinate> c;
  for (const auto& j : m.joints) {
    if (j.type == JointType::kFree) {
      for (const char* s : {"x", "y", "z"}) c.push_back({j.name + "." + s, "_m"});
      for (const char* s : {"qw", "qx", "qy", "qz"}) c.push_back({j.name + "." + s, ""});
    } else if (j.nq == 1) {
      c.push_back({j.name, j.type == JointType::kRevolute ? "_rad" : "_m"});
    }
  }
  return c;
}

// Velocity coordinates with the unit stem of v (radps / mps) and of the force (Nm / N).
struct VCoordinate {
  std::string name;
  bool angular;
};
std::vector<VCoordinate> v_columns(const Model& m) {
  std::vector<VCoordinate> c;
  for (const auto& j : m.joints) {
    if (j.type == JointType::kFree) {
      for (const char* s : {"wx", "wy", "wz"}) c.push_back({j.name + "." + s, true});
      for (const char* s : {"vx", "vy", "vz"}) c.push_back({j.name + "." + s, false});
    } else if (j.nv == 1) {
      c.push_back({j.name, j.type == JointType::kRevolute});
    }
  }
  return c;
}

void check_log(const Model& m, const MotionLog& log) {
  const auto n = log.t_s.size();
  auto check = [&](const Eigen::MatrixXd& x, int cols, const char* what) {
    if (x.rows() != n || x.cols() != cols)
      throw Error(std::string("tree identify: log ") + what + " is " + std::to_string(x.rows()) + " x " + std::to_string(x.cols()) +
                  ", expected " + std::to_string(n) + " x " + std::to_string(cols) + " (model '" + m.name + "')");
    if (!x.allFinite()) throw Error(std::string("tree identify: log ") + what + " has a non-finite entry");
  };
  check(log.q, m.nq, "q");
  check(log.v, m.nv, "v");
  check(log.a, m.nv, "a");
  check(log.tau, m.nv, "tau");
}

}  // namespace

bool has_inertial_parameters(const Model& model, int link) {
  const auto u = static_cast<std::size_t>(link);
  const Link& l = model.links[u];
  return !(model.joints[u].fictitious && l.mass_kg == 0.0 && l.inertia_C_kgm2.isZero(0.0));
}

Eigen::VectorXd inertial_parameters(const Model& model) {
  Eigen::VectorXd pi(kP * model.nlinks());
  for (int i = 0; i < model.nlinks(); ++i) {
    const Link& l = model.links[static_cast<std::size_t>(i)];
    const Eigen::Matrix3d S = detail::skew(l.p_LC_m);
    const Eigen::Matrix3d I_O = l.inertia_C_kgm2 - l.mass_kg * S * S;
    pi.segment<kP>(kP * i) << l.mass_kg, l.mass_kg * l.p_LC_m, I_O(0, 0), I_O(0, 1), I_O(0, 2), I_O(1, 1), I_O(1, 2), I_O(2, 2);
  }
  return pi;
}

std::vector<std::string> inertial_parameter_names(const Model& model) {
  std::vector<std::string> n;
  n.reserve(static_cast<std::size_t>(kP * model.nlinks()));
  for (const auto& l : model.links)
    for (const char* s : kParamSuffix) n.push_back(l.name + "." + s);
  return n;
}

Model with_inertial_parameters(const Model& model, const Eigen::VectorXd& pi) {
  if (pi.size() != kP * model.nlinks())
    throw Error("tree: " + std::to_string(pi.size()) + " inertial parameters, model '" + model.name + "' needs " +
                std::to_string(kP * model.nlinks()) + " (10 per link)");
  Model out = model;
  for (int i = 0; i < model.nlinks(); ++i) {
    Link& l = out.links[static_cast<std::size_t>(i)];
    const auto p = pi.segment<kP>(kP * i);
    if (!p.allFinite()) throw Error("tree: link '" + l.name + "': inertial parameters are not finite");
    const double m = p[0];
    const Eigen::Vector3d h = p.segment<3>(1);
    Eigen::Matrix3d I_O;
    I_O << p[4], p[5], p[6], p[5], p[7], p[8], p[6], p[8], p[9];
    if (m < 0.0) throw Error("tree: link '" + l.name + "': mass " + format_number(m) + " kg is negative");
    if (m == 0.0) {
      if (h.norm() > 0.0) throw Error("tree: link '" + l.name + "': zero mass with a first moment of " + format_number(h.norm()) + " kg m");
      l.mass_kg = 0.0;
      l.p_LC_m.setZero();
      l.inertia_C_kgm2 = I_O;
      continue;
    }
    l.mass_kg = m;
    l.p_LC_m = h / m;
    const Eigen::Matrix3d S = detail::skew(l.p_LC_m);
    l.inertia_C_kgm2 = I_O + m * S * S;
  }
  finalize(out);
  return out;
}

void joint_torque_regressor(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v, const Eigen::VectorXd& a,
                            Eigen::Ref<Eigen::MatrixXd> Y) {
  const int np = kP * model.nlinks();
  if (Y.rows() != model.nv || Y.cols() != np)
    throw Error("tree: regressor must be " + std::to_string(model.nv) + " x " + std::to_string(np) + ", got " + std::to_string(Y.rows()) +
                " x " + std::to_string(Y.cols()));
  // The forward pass of RNEA gives every link's velocity V_i and acceleration A_i (gravity as the
  // base acceleration) in link coordinates; its backward pass (data.tau) is not used.
  (void)rnea(model, data, q, v, a);
  Y.setZero();
  Eigen::Matrix<double, 6, kP> F;
  for (int i = 0; i < model.nlinks(); ++i) {
    const auto ui = static_cast<std::size_t>(i);
    for (int k = 0; k < kP; ++k) {
      const Inertia u = unit_inertia(k);
      F.col(k) = detail::inertia_times(u, data.A[ui]) + detail::cross_force(data.V[ui], detail::inertia_times(u, data.V[ui]));
    }
    int jn = i;
    for (;;) {
      const Joint& j = model.joints[static_cast<std::size_t>(jn)];
      double col[6];
      for (int k = 0; k < kP; ++k) {
        project(j, F.col(k), col);
        for (int r = 0; r < j.nv; ++r) Y(j.idx_v + r, kP * i + k) = col[r];
      }
      const int p = model.parent[static_cast<std::size_t>(jn)];
      if (p < 0) break;
      for (int k = 0; k < kP; ++k) F.col(k) = detail::force_to_parent(data.X_PL[static_cast<std::size_t>(jn)], F.col(k));
      jn = p;
    }
  }
}

Eigen::MatrixXd joint_torque_regressor(const Model& model, Data& data, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                       const Eigen::VectorXd& a) {
  Eigen::MatrixXd Y(model.nv, kP * model.nlinks());
  joint_torque_regressor(model, data, q, v, a, Y);
  return Y;
}

BaseParameters base_parameters(const Model& model, const BaseParameterOptions& options) {
  if (options.samples < 1) throw Error("tree base parameters: samples must be >= 1, got " + std::to_string(options.samples));
  if (!(options.tolerance > 0.0 && options.tolerance < 1.0))
    throw Error("tree base parameters: tolerance must be in (0, 1), got " + format_number(options.tolerance));
  const int np = kP * model.nlinks();
  const int nv = model.nv;
  Eigen::MatrixXd W(static_cast<Eigen::Index>(options.samples) * nv, np);
  Data data(model);
  std::mt19937 gen(options.seed);
  std::uniform_real_distribution<double> uni(-2.0, 2.0);
  Eigen::VectorXd v(nv), a(nv);
  for (int s = 0; s < options.samples; ++s) {
    const Eigen::VectorXd q = model.random_configuration(options.seed * 7919u + static_cast<unsigned>(s));
    for (int k = 0; k < nv; ++k) v[k] = uni(gen);
    for (int k = 0; k < nv; ++k) a[k] = uni(gen);
    joint_torque_regressor(model, data, q, v, a, W.middleRows(static_cast<Eigen::Index>(s) * nv, nv));
  }
  // The massless links of a fictitious floating-base chain (document 003) carry no inertia by
  // construction: their parameters are known zeros, not unknowns.
  for (int i = 0; i < model.nlinks(); ++i)
    if (!has_inertial_parameters(model, i)) W.middleCols<kP>(kP * i).setZero();
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(W);
  const Eigen::MatrixXd R = qr.matrixR().topRows(std::min<Eigen::Index>(W.rows(), np)).triangularView<Eigen::Upper>();
  const auto diag = R.diagonal().cwiseAbs();
  int r = 0;
  const double r00 = diag.size() > 0 ? diag[0] : 0.0;
  while (r < diag.size() && diag[r] > options.tolerance * r00) ++r;
  BaseParameters b;
  b.rank = r;
  b.nparam = np;
  const auto& perm = qr.colsPermutation().indices();
  for (int k = 0; k < np; ++k) (k < r ? b.independent : b.dependent).push_back(perm[k]);
  Eigen::MatrixXd coeff = Eigen::MatrixXd::Zero(r, np - r);
  if (r > 0 && np > r) coeff = R.topLeftCorner(r, r).triangularView<Eigen::Upper>().solve(R.block(0, r, r, np - r));
  b.K = Eigen::MatrixXd::Zero(r, np);
  for (int k = 0; k < r; ++k) b.K(k, b.independent[static_cast<std::size_t>(k)]) = 1.0;
  for (int j = 0; j < np - r; ++j)
    for (int k = 0; k < r; ++k)
      if (std::abs(coeff(k, j)) > 1e-10) b.K(k, b.dependent[static_cast<std::size_t>(j)]) = coeff(k, j);
  const auto names = inertial_parameter_names(model);
  for (int k = 0; k < r; ++k) {
    std::string s = names[static_cast<std::size_t>(b.independent[static_cast<std::size_t>(k)])];
    for (int j = 0; j < np - r; ++j) {
      const double c = b.K(k, b.dependent[static_cast<std::size_t>(j)]);
      if (c == 0.0) continue;
      s += (c < 0.0 ? " - " : " + ");
      if (std::abs(std::abs(c) - 1.0) > 1e-12) s += format_number(std::abs(c), 6) + " ";
      s += names[static_cast<std::size_t>(b.dependent[static_cast<std::size_t>(j)])];
    }
    b.names.push_back(std::move(s));
  }
  return b;
}

std::string motion_log_header(const Model& model) {
  std::string h = "t_s";
  for (const auto& c : q_columns(model)) h += ",q:" + c.q_or_v + c.unit;
  const auto vc = v_columns(model);
  for (const auto& c : vc) h += ",v:" + c.name + (c.angular ? "_radps" : "_mps");
  for (const auto& c : vc) h += ",a:" + c.name + (c.angular ? "_radps2" : "_mps2");
  for (const auto& c : vc) h += ",tau:" + c.name + (c.angular ? "_Nm" : "_N");
  return h;
}

MotionLog read_motion_log(const std::string& path, const Model& model, int half_width) {
  if (half_width < 1) throw Error(path + ": smoothing half width must be >= 1, got " + std::to_string(half_width));
  io::CsvReader in(path);
  const int c_t = in.require_column("t", "_s");
  std::vector<int> cq, cv, ca, ctau;
  for (const auto& c : q_columns(model)) cq.push_back(in.require_column("q:" + c.q_or_v, c.unit));
  const auto vc = v_columns(model);
  for (const auto& c : vc) {
    cv.push_back(in.find_column("v:" + c.name, c.angular ? "_radps" : "_mps"));
    ca.push_back(in.find_column("a:" + c.name, c.angular ? "_radps2" : "_mps2"));
    ctau.push_back(in.require_column("tau:" + c.name, c.angular ? "_Nm" : "_N"));
  }
  auto all_or_none = [&](const std::vector<int>& cols, const char* what) {
    const auto present = std::count_if(cols.begin(), cols.end(), [](int c) { return c >= 0; });
    if (present != 0 && present != static_cast<long>(cols.size())) {
      const auto k = static_cast<std::size_t>(std::find(cols.begin(), cols.end(), -1) - cols.begin());
      throw Error(path + ":1: has some " + what + " columns but not '" + what + ":" + vc[k].name + "'");
    }
    return present != 0;
  };
  const bool has_v = all_or_none(cv, "v");
  const bool has_a = all_or_none(ca, "a");
  if (!has_v)
    for (const auto& j : model.joints)
      if (j.type == JointType::kFree)
        throw Error(path + ":1: no v columns: velocities of free joint '" + j.name +
                    "' cannot be differentiated from quaternions here; give v:" + j.name + ".wx_radps ...");
  std::vector<double> rows;
  std::vector<std::string> places;
  const int width = 1 + model.nq + 3 * model.nv;
  while (in.next()) {
    rows.push_back(in.number(c_t));
    for (int c : cq) rows.push_back(in.number(c));
    for (int c : cv) rows.push_back(has_v ? in.number(c) : 0.0);
    for (int c : ca) rows.push_back(has_a ? in.number(c) : 0.0);
    for (int c : ctau) rows.push_back(in.number(c));
    places.push_back(in.where());
    const auto n = places.size();
    if (n > 1 && !(rows[(n - 1) * static_cast<std::size_t>(width)] > rows[(n - 2) * static_cast<std::size_t>(width)]))
      throw Error(in.where(c_t) + " (t_s): time " + format_number(rows[(n - 1) * static_cast<std::size_t>(width)]) +
                  " s is not after the previous sample's");
  }
  const auto n = static_cast<Eigen::Index>(places.size());
  if (n == 0) throw Error(path + ": no samples");
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> all(rows.data(), n, width);
  MotionLog log;
  log.t_s = all.col(0);
  log.q = all.middleCols(1, model.nq);
  log.v = all.middleCols(1 + model.nq, model.nv);
  log.a = all.middleCols(1 + model.nq + model.nv, model.nv);
  log.tau = all.middleCols(1 + model.nq + 2 * model.nv, model.nv);
  log.places = std::move(places);
  if (has_v && has_a) return log;
  const auto need = 2 * static_cast<Eigen::Index>(half_width) + 1;
  if (n < need)
    throw Error(path + ": " + std::to_string(n) + " samples, differentiating " + (has_v ? "v" : "q") + " needs at least " +
                std::to_string(need));
  // Differentiate: a from v, or v (and a unless given) from q; keep the interior samples.
  const QuadraticDerivatives d = differentiate_quadratic(log.t_s, has_v ? log.v : log.q, half_width);
  const Eigen::Index first = d.first_row, rows_kept = d.d1.rows();
  MotionLog out;
  out.t_s = log.t_s.segment(first, rows_kept);
  out.q = log.q.middleRows(first, rows_kept);
  out.tau = log.tau.middleRows(first, rows_kept);
  if (has_v) {
    out.v = log.v.middleRows(first, rows_kept);
    out.a = d.d1;
  } else {
    out.v = d.d1;
    out.a = has_a ? Eigen::MatrixXd(log.a.middleRows(first, rows_kept)) : d.d2;
  }
  // Errors in variables: the noise share of the highest derivative taken.
  const Eigen::MatrixXd& source = has_v ? log.v : log.q;
  out.differentiated_order = has_v || has_a ? 1 : 2;
  out.differentiated_from_q = !has_v;
  out.derivative_noise = derivative_noise(log.t_s, source, half_width);
  if (out.derivative_noise.worst(out.differentiated_order) > kDerivativeNoiseWarning)
    out.suggested_half_width = smoothing_for_noise(log.t_s, source, out.differentiated_order, kDerivativeNoiseWarning,
                                                   static_cast<int>(std::min<Eigen::Index>(64, (n - 1) / 8)));
  out.places.assign(log.places.begin() + first, log.places.begin() + first + rows_kept);
  return out;
}

Identification identify_inertial_parameters(const Model& nominal, const MotionLog& log, const IdentifyOptions& options) {
  check_log(nominal, log);
  if (!(options.max_condition > 1.0)) throw Error("tree identify: max_condition must be > 1, got " + format_number(options.max_condition));
  Identification out;
  out.base = base_parameters(nominal, options.base);
  const BaseParameters& b = out.base;
  const int r = b.rank, nv = nominal.nv, np = b.nparam;
  const Eigen::Index N = log.t_s.size();
  const Eigen::Index rows = N * nv;
  out.nsample = static_cast<long>(N);
  out.nrow = static_cast<long>(rows);
  if (rows < r)
    throw Error("tree identify: " + std::to_string(rows) + " torque rows (" + std::to_string(N) + " samples) for " + std::to_string(r) +
                " base parameters");
  // Stacked base regressor W1 (rows x r) and torques.
  Eigen::MatrixXd W1(rows, r);
  Eigen::VectorXd tau(rows);
  Data data(nominal);
  Eigen::MatrixXd Y(nv, np);
  for (Eigen::Index s = 0; s < N; ++s) {
    joint_torque_regressor(nominal, data, log.q.row(s).transpose(), log.v.row(s).transpose(), log.a.row(s).transpose(), Y);
    for (int k = 0; k < r; ++k) W1.block(s * nv, k, nv, 1) = Y.col(b.independent[static_cast<std::size_t>(k)]);
    tau.segment(s * nv, nv) = log.tau.row(s).transpose();
  }
  // Weighted, column-scaled least squares via Householder QR: A = diag(w) W1 D, x = D^-1 beta.
  auto solve = [&](const Eigen::VectorXd& row_weight, Eigen::VectorXd& beta, Eigen::MatrixXd& cov, double& sigma, double& cond) {
    Eigen::MatrixXd A = row_weight.asDiagonal() * W1;
    const Eigen::VectorXd bw = row_weight.asDiagonal() * tau;
    Eigen::VectorXd D(r);
    for (int k = 0; k < r; ++k) {
      const double nrm = A.col(k).norm();
      D[k] = nrm > 0.0 ? 1.0 / nrm : 1.0;
    }
    A = A * D.asDiagonal();
    const Eigen::HouseholderQR<Eigen::MatrixXd> qr(A);
    const Eigen::MatrixXd R = qr.matrixQR().topRows(r).triangularView<Eigen::Upper>();
    const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(R).singularValues();
    cond = sv[r - 1] > 0.0 ? sv[0] / sv[r - 1] : std::numeric_limits<double>::infinity();
    if (!(cond <= options.max_condition))
      throw Error("tree identify: the data do not excite every base parameter: condition number " + format_number(cond, 3) +
                  " of the scaled base regressor (limit " + format_number(options.max_condition, 3) +
                  "); use richer motion or more samples");
    const Eigen::VectorXd x = qr.solve(bw);
    beta = D.asDiagonal() * x;
    const Eigen::VectorXd res = bw - A * x;
    const Eigen::Index dof = rows - r;
    sigma = dof > 0 ? std::sqrt(res.squaredNorm() / static_cast<double>(dof)) : 0.0;
    const Eigen::MatrixXd Rinv = R.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(r, r));
    cov = sigma * sigma * (D.asDiagonal() * (Rinv * Rinv.transpose()) * D.asDiagonal());
  };
  Eigen::VectorXd w_rows = Eigen::VectorXd::Ones(rows);
  out.joint_weight = Eigen::VectorXd::Ones(nv);
  solve(w_rows, out.beta, out.beta_cov, out.sigma, out.condition_number);
  auto residuals = [&]() {
    const Eigen::VectorXd res = tau - W1 * out.beta;
    out.residual = Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(res.data(), N, nv);
    out.rms_joint = (out.residual.colwise().squaredNorm() / static_cast<double>(N)).cwiseSqrt().transpose();
    out.rms_total = std::sqrt(res.squaredNorm() / static_cast<double>(rows));
  };
  residuals();
  if (options.weighting == Weighting::kJoint) {
    // Gautier & Khalil: weight each joint's rows by 1 / its residual rms of the ordinary fit; a joint
    // fitted exactly (rms at round-off) keeps the largest finite weight.
    const double floor = std::max(1e-6 * out.rms_joint.maxCoeff(), 1e-300);
    for (int j = 0; j < nv; ++j) out.joint_weight[j] = 1.0 / std::max(out.rms_joint[j], floor);
    out.joint_weight /= out.joint_weight.minCoeff();
    for (Eigen::Index s = 0; s < N; ++s) w_rows.segment(s * nv, nv) = out.joint_weight;
    solve(w_rows, out.beta, out.beta_cov, out.sigma, out.condition_number);
    residuals();
  }
  out.beta_std = out.beta_cov.diagonal().cwiseMax(0.0).cwiseSqrt();
  const Eigen::VectorXd pi0 = inertial_parameters(nominal);
  out.beta_nominal = b.K * pi0;
  const Eigen::MatrixXd KKt = b.K * b.K.transpose();
  out.pi = pi0 + b.K.transpose() * KKt.llt().solve(out.beta - out.beta_nominal);
  try {
    (void)with_inertial_parameters(nominal, out.pi);
    out.physically_consistent = true;
  } catch (const Error& e) {
    out.consistency_note = e.what();
  }
  return out;
}

}  // namespace tendyn::tree
