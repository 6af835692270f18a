// Tree dynamics against Pinocchio 3 (and DART 6 when found), in the same run (issue 19 item 6).
//
// Models: the 35-DOF humanoid (models/tree/humanoid35.urdf) and Atlas v3 from Debian's dart-doc
// (/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf: Debian's atlas_v3.urdf names a link
// "head" that it does not define, so neither parser loads it), each with a fixed and a free base: the free
// bases a URDF "floating" joint from link "world" (humanoid35 as shipped; Atlas with such a joint
// added), the fixed ones the same joint made "fixed" (humanoid35) or Atlas as shipped. Each model
// is one URDF text, parsed by tendyn; Pinocchio gets the same text through its URDF parser when
// linked to an installed Pinocchio (TENDYN_PINOCCHIO_URDF), else (header-only build) a model built
// through its API from tendyn's parse exactly as its parser builds it (to_pinocchio below).
// Joints are matched by name; the free joint's coordinates are converted
// (tendyn: quaternion w,x,y,z and velocity (angular; linear) in the body frame; Pinocchio:
// quaternion x,y,z,w and velocity (linear; angular) in the body frame).
//
// Before timing, every state is checked: tau (RNEA), M (CRBA, both of Pinocchio's conventions)
// and ddq (ABA, LOCAL convention) agree to 1e-12 relative to the largest entry (exit 3 otherwise);
// Pinocchio's WORLD-convention ABA to 1e-10 (kWorldAbaTolerance); DART to 1e-8.
// Timing: `--states` random states (default 1000) per model, each "pass" one call per state;
// `--rounds` rounds (default 21) in which every contender runs one pass, the starting contender
// rotating from round to round (the libraries alternate in the measurement loop). Reported: the
// median over rounds of the pass's thread CPU time / states (and wall time), and the ratio tendyn /
// Pinocchio against Pinocchio's faster convention (LOCAL or WORLD) in the same run.
//
// Build: cmake -DTENDYN_BENCH_PINOCCHIO=ON -DCMAKE_PREFIX_PATH=/work/peers/pinocchio-3.7.0 ...
// (docs/BENCHMARKS.md, "Tree dynamics against Pinocchio"). Never part of CI.
#include <tendyn/tree/algorithms.hpp>
#include <tendyn/tree/model_io.hpp>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody/data.hpp>
#include <pinocchio/multibody/model.hpp>
#ifdef TENDYN_PINOCCHIO_URDF
#include <pinocchio/parsers/urdf.hpp>
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#ifdef TENDYN_HAVE_DART
#include <dart/dynamics/FreeJoint.hpp>

#include "tree/dart_bridge.hpp"
#endif

namespace {

namespace tt = tendyn::tree;
namespace pin = pinocchio;

// tendyn's CRBA as it was before issue 19 (src/tree/algorithms.cpp at e7f7e91: composite
// inertias in link coordinates, each column's force transformed link by link to the root),
// kept here so that the before/after ratio is measured in the same run.
namespace before {
using tt::Inertia;
using tt::SE3;
using tt::Vector6d;
Eigen::Matrix3d skew(const Eigen::Vector3d& a) {
  Eigen::Matrix3d S;
  S << 0.0, -a.z(), a.y(), a.z(), 0.0, -a.x(), -a.y(), a.x(), 0.0;
  return S;
}
Vector6d force_to_parent(const SE3& X, const Vector6d& f) {
  Vector6d r;
  r.tail<3>().noalias() = X.R * f.tail<3>();
  r.head<3>().noalias() = X.R * f.head<3>();
  r.head<3>() += X.p.cross(r.tail<3>());
  return r;
}
Vector6d inertia_times(const Inertia& I, const Vector6d& m) {
  Vector6d r;
  r.head<3>().noalias() = I.I * m.head<3>();
  r.head<3>() += I.h.cross(m.tail<3>());
  r.tail<3>() = I.m * m.tail<3>() - I.h.cross(m.head<3>());
  return r;
}
Inertia inertia_to_parent(const SE3& X, const Inertia& I) {
  Inertia r;
  r.m = I.m;
  const Eigen::Vector3d hr = X.R * I.h;
  r.h = hr + I.m * X.p;
  const Eigen::Matrix3d Sp = skew(X.p), Sh = skew(hr);
  r.I.noalias() = X.R * I.I * X.R.transpose();
  r.I -= Sh * Sp + Sp * Sh + I.m * Sp * Sp;
  return r;
}
void St_times(const tt::Joint& j, const Vector6d& f, double* out) {
  switch (j.type) {
    case tt::JointType::kFixed: break;
    case tt::JointType::kRevolute: out[0] = j.axis.dot(f.head<3>()); break;
    case tt::JointType::kPrismatic: out[0] = j.axis.dot(f.tail<3>()); break;
    case tt::JointType::kFree: {
      Eigen::Map<Vector6d> o(out);
      o = f;
      break;
    }
  }
}
Vector6d S_col(const tt::Joint& j, int k) {
  Vector6d r = Vector6d::Zero();
  switch (j.type) {
    case tt::JointType::kFixed: break;
    case tt::JointType::kRevolute: r.head<3>() = j.axis; break;
    case tt::JointType::kPrismatic: r.tail<3>() = j.axis; break;
    case tt::JointType::kFree: r[k] = 1.0; break;
  }
  return r;
}
// The same forward kinematics as tendyn's (the public forward_kinematics, which also checks q).
const Eigen::MatrixXd& crba(const tt::Model& model, tt::Data& d, const Eigen::VectorXd& q) {
  tt::forward_kinematics(model, d, q);
  const int n = model.nlinks();
  for (int i = 0; i < n; ++i) d.Ic[i] = model.I_L[i];
  for (int i = n - 1; i >= 0; --i) {
    const tt::Joint& ji = model.joints[i];
    for (int k = 0; k < ji.nv; ++k) {
      const int col = ji.idx_v + k;
      Vector6d F = inertia_times(d.Ic[i], S_col(ji, k));
      St_times(ji, F, d.tau.data() + ji.idx_v);
      for (int r = 0; r < ji.nv; ++r) d.M(ji.idx_v + r, col) = d.tau[ji.idx_v + r];
      int jn = i;
      while (model.parent[jn] >= 0) {
        F = force_to_parent(d.X_PL[jn], F);
        jn = model.parent[jn];
        const tt::Joint& jj = model.joints[jn];
        if (jj.nv == 0) continue;
        St_times(jj, F, d.tau.data() + jj.idx_v);
        for (int r = 0; r < jj.nv; ++r) {
          const double val = d.tau[jj.idx_v + r];
          d.M(jj.idx_v + r, col) = val;
          d.M(col, jj.idx_v + r) = val;
        }
      }
    }
    const int p = model.parent[i];
    if (p >= 0) {
      const Inertia t = inertia_to_parent(d.X_PL[i], d.Ic[i]);
      d.Ic[p].m += t.m;
      d.Ic[p].h += t.h;
      d.Ic[p].I += t.I;
    }
  }
  return d.M;
}
}  // namespace before

constexpr double kTolerance = 1e-12;     // tendyn vs Pinocchio, relative to the largest entry
constexpr double kDartTolerance = 1e-8;  // tendyn vs DART (the cross-check test's tolerance)
// Pinocchio's ABA in its WORLD convention works with world-frame quantities and loses about two
// digits against its own LOCAL ABA (which tendyn matches to 1e-12): reported, checked to this bound.
constexpr double kWorldAbaTolerance = 1e-10;

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot read '" + path + "'");
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// The text with the first occurrence of `what` replaced (error if absent: the models are fixed).
std::string replace_once(std::string text, const std::string& what, const std::string& with, const std::string& file) {
  const auto at = text.find(what);
  if (at == std::string::npos) throw std::runtime_error(file + ": expected text '" + what + "' not found");
  return text.replace(at, what.size(), with);
}

struct Case {
  std::string label;
  std::string urdf;
};

std::vector<Case> make_cases(const std::string& humanoid_path, const std::string& atlas_path) {
  const std::string hum = read_text(humanoid_path);
  const std::string atlas = read_text(atlas_path);
  std::vector<Case> cases;
  cases.push_back({"humanoid35 fixed", replace_once(hum, "type=\"floating\"", "type=\"fixed\"", humanoid_path)});
  cases.push_back({"humanoid35 free", hum});
  cases.push_back({"atlas_v3 fixed", atlas});
  // Free Atlas: a floating joint from link "world" to its root link "pelvis".
  const std::string free_base =
      "<link name=\"world\"/>\n  <joint name=\"pelvis_free\" type=\"floating\">\n    <parent link=\"world\"/>\n"
      "    <child link=\"pelvis\"/>\n  </joint>\n  ";
  const auto at = atlas.find("<link ");
  if (at == std::string::npos) throw std::runtime_error(atlas_path + ": no <link>");
  std::string free_atlas = atlas;
  free_atlas.insert(at, free_base);
  cases.push_back({"atlas_v3 free", free_atlas});
  return cases;
}

// Pinocchio's model of a parsed tendyn model, through Pinocchio's API, the way its URDF parser
// (src/parsers/urdf/model.cpp, include/pinocchio/parsers/urdf/model.hxx in 3.7.0) builds it: a
// link on a fixed joint is merged into the body of the nearest moving joint above it
// (appendBodyToJoint, placement composed), revolute/prismatic joints whose axis is exactly +x, +y,
// +z become RX/RY/RZ (PX/PY/PZ), other axes RevoluteUnaligned (PrismaticUnaligned), a floating
// joint a FreeFlyer; tendyn's gravity. Used when Pinocchio's compiled URDF parser is not
// available (header-only build, TENDYN_PINOCCHIO_INCLUDE_DIRS); with the parser, compared with the
// parser's model before timing.
pin::Model to_pinocchio(const tt::Model& tm) {
  pin::Model pm;
  pm.name = tm.name;
  pm.gravity.linear(tm.gravity_W);
  const auto n = static_cast<std::size_t>(tm.nlinks());
  std::vector<pin::JointIndex> joint_of(n, 0);
  std::vector<pin::SE3> in_joint(n, pin::SE3::Identity());  // link frame in its Pinocchio joint's frame
  for (std::size_t i = 0; i < n; ++i) {
    const tt::Joint& j = tm.joints[i];
    const tt::Link& l = tm.links[i];
    const int p = tm.parent[i];
    const pin::JointIndex pj = p >= 0 ? joint_of[static_cast<std::size_t>(p)] : 0;
    const pin::SE3 frame = p >= 0 ? in_joint[static_cast<std::size_t>(p)] : pin::SE3::Identity();
    const pin::SE3 placement = frame * pin::SE3(j.R_PJ, j.p_PJ_m);
    const pin::Inertia Y(l.mass_kg, l.p_LC_m, l.inertia_C_kgm2);
    if (j.type == tt::JointType::kFixed) {
      joint_of[i] = pj;
      in_joint[i] = placement;
      pm.appendBodyToJoint(pj, Y, placement);
      continue;
    }
    pin::JointIndex id = 0;
    const Eigen::Vector3d& a = j.axis;
    if (j.type == tt::JointType::kFree) {
      id = pm.addJoint(pj, pin::JointModelFreeFlyer(), placement, j.name);
    } else if (j.type == tt::JointType::kRevolute) {
      if (a == Eigen::Vector3d::UnitX())
        id = pm.addJoint(pj, pin::JointModelRX(), placement, j.name);
      else if (a == Eigen::Vector3d::UnitY())
        id = pm.addJoint(pj, pin::JointModelRY(), placement, j.name);
      else if (a == Eigen::Vector3d::UnitZ())
        id = pm.addJoint(pj, pin::JointModelRZ(), placement, j.name);
      else
        id = pm.addJoint(pj, pin::JointModelRevoluteUnaligned(a), placement, j.name);
    } else {
      if (a == Eigen::Vector3d::UnitX())
        id = pm.addJoint(pj, pin::JointModelPX(), placement, j.name);
      else if (a == Eigen::Vector3d::UnitY())
        id = pm.addJoint(pj, pin::JointModelPY(), placement, j.name);
      else if (a == Eigen::Vector3d::UnitZ())
        id = pm.addJoint(pj, pin::JointModelPZ(), placement, j.name);
      else
        id = pm.addJoint(pj, pin::JointModelPrismaticUnaligned(a), placement, j.name);
    }
    pm.appendBodyToJoint(id, Y, pin::SE3::Identity());
    joint_of[i] = id;
  }
  return pm;
}

// Coordinate maps between the two libraries, by joint name.
struct Mapping {
  std::vector<int> v_pin;  // tendyn velocity index -> Pinocchio velocity index
  struct JointMap {
    tt::JointType type;
    int q_t, q_p, nq_p;
  };
  std::vector<JointMap> joints;
};

Mapping make_mapping(const tt::Model& tm, const pin::Model& pm, const std::string& label) {
  if (tm.nv != pm.nv)
    throw std::runtime_error(label + ": nv differs (tendyn " + std::to_string(tm.nv) + ", Pinocchio " + std::to_string(pm.nv) + ")");
  Mapping m;
  m.v_pin.assign(static_cast<std::size_t>(tm.nv), -1);
  for (const tt::Joint& j : tm.joints) {
    if (j.nv == 0) continue;
    if (!pm.existJointName(j.name)) throw std::runtime_error(label + ": Pinocchio has no joint '" + j.name + "'");
    const auto jid = pm.getJointId(j.name);
    const int iq = pm.idx_qs[jid], iv = pm.idx_vs[jid], nq = pm.nqs[jid], nv = pm.nvs[jid];
    if (nv != j.nv) throw std::runtime_error(label + ": joint '" + j.name + "' has different nv");
    if (j.type == tt::JointType::kFree) {
      if (nq != 7) throw std::runtime_error(label + ": joint '" + j.name + "' is not a free flyer in Pinocchio");
      for (int k = 0; k < 6; ++k) m.v_pin[static_cast<std::size_t>(j.idx_v + k)] = iv + (k + 3) % 6;
    } else {
      if (nq != 1 && nq != 2) throw std::runtime_error(label + ": joint '" + j.name + "' nq " + std::to_string(nq));
      m.v_pin[static_cast<std::size_t>(j.idx_v)] = iv;
    }
    m.joints.push_back({j.type, j.idx_q, iq, nq});
  }
  return m;
}

Eigen::VectorXd q_to_pin(const Mapping& m, const pin::Model& pm, const Eigen::VectorXd& q) {
  Eigen::VectorXd r(pm.nq);
  for (const auto& j : m.joints) {
    if (j.type == tt::JointType::kFree) {
      r.segment<3>(j.q_p) = q.segment<3>(j.q_t);
      r[j.q_p + 3] = q[j.q_t + 4];  // x
      r[j.q_p + 4] = q[j.q_t + 5];  // y
      r[j.q_p + 5] = q[j.q_t + 6];  // z
      r[j.q_p + 6] = q[j.q_t + 3];  // w
    } else if (j.nq_p == 2) {       // unbounded revolute: (cos, sin)
      r[j.q_p] = std::cos(q[j.q_t]);
      r[j.q_p + 1] = std::sin(q[j.q_t]);
    } else {
      r[j.q_p] = q[j.q_t];
    }
  }
  return r;
}
Eigen::VectorXd v_to_pin(const Mapping& m, const Eigen::VectorXd& v) {
  Eigen::VectorXd r(v.size());
  for (Eigen::Index k = 0; k < v.size(); ++k) r[m.v_pin[static_cast<std::size_t>(k)]] = v[k];
  return r;
}
Eigen::VectorXd v_from_pin(const Mapping& m, const Eigen::VectorXd& vp) {
  Eigen::VectorXd r(vp.size());
  for (Eigen::Index k = 0; k < vp.size(); ++k) r[k] = vp[m.v_pin[static_cast<std::size_t>(k)]];
  return r;
}
Eigen::MatrixXd M_from_pin(const Mapping& m, const Eigen::MatrixXd& Mp) {
  const Eigen::Index n = Mp.rows();
  Eigen::MatrixXd r(n, n);
  for (Eigen::Index a = 0; a < n; ++a)
    for (Eigen::Index b = 0; b < n; ++b) r(a, b) = Mp(m.v_pin[static_cast<std::size_t>(a)], m.v_pin[static_cast<std::size_t>(b)]);
  return r;
}

double rel_diff(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  const double scale = std::max(1.0, b.cwiseAbs().maxCoeff());
  return (a - b).cwiseAbs().maxCoeff() / scale;
}

struct States {
  std::vector<Eigen::VectorXd> q, v, a, tau;      // tendyn coordinates
  std::vector<Eigen::VectorXd> qp, vp, ap, taup;  // Pinocchio coordinates
#ifdef TENDYN_HAVE_DART
  std::vector<Eigen::VectorXd> qd;  // DART coordinates (free joint: log map, p)
#endif
};

States make_states(const tt::Model& tm, const pin::Model& pm, const Mapping& map, int count) {
  States s;
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int k = 0; k < count; ++k) {
    Eigen::VectorXd q = tm.random_configuration(static_cast<unsigned>(1000 + k));
    Eigen::VectorXd v(tm.nv), a(tm.nv), tau(tm.nv);
    for (int i = 0; i < tm.nv; ++i) {
      v[i] = u(rng);
      a[i] = u(rng);
      tau[i] = 10.0 * u(rng);
    }
    s.qp.push_back(q_to_pin(map, pm, q));
    s.vp.push_back(v_to_pin(map, v));
    s.ap.push_back(v_to_pin(map, a));
    s.taup.push_back(v_to_pin(map, tau));
#ifdef TENDYN_HAVE_DART
    Eigen::VectorXd qd(tm.nv);
    for (const tt::Joint& j : tm.joints) {
      if (j.type == tt::JointType::kFree) {
        Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
        T.linear() = Eigen::Quaterniond(q[j.idx_q + 3], q[j.idx_q + 4], q[j.idx_q + 5], q[j.idx_q + 6]).normalized().toRotationMatrix();
        T.translation() = q.segment<3>(j.idx_q);
        qd.segment<6>(j.idx_v) = dart::dynamics::FreeJoint::convertToPositions(T);
      } else if (j.nv == 1) {
        qd[j.idx_v] = q[j.idx_q];
      }
    }
    s.qd.push_back(qd);
#endif
    s.q.push_back(std::move(q));
    s.v.push_back(std::move(v));
    s.a.push_back(std::move(a));
    s.tau.push_back(std::move(tau));
  }
  return s;
}

double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> x) {
  std::sort(x.begin(), x.end());
  const std::size_t n = x.size();
  return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

// One contender: a pass over all states. Returns a checksum so that nothing is optimised away.
struct Contender {
  std::string name;
  std::function<double()> pass;
  std::vector<double> cpu_us, wall_us;  // per call, one entry per round
};

double sink = 0.0;

// Runs `rounds` rounds; in round r the contenders start at index r mod n and take turns.
void measure(std::vector<Contender>& cs, int rounds, int states) {
  for (auto& c : cs) sink += c.pass();  // warm-up
  const std::size_t n = cs.size();
  for (int r = 0; r < rounds; ++r)
    for (std::size_t t = 0; t < n; ++t) {
      Contender& c = cs[(static_cast<std::size_t>(r) + t) % n];
      const auto w0 = std::chrono::steady_clock::now();
      const double c0 = thread_cpu_s();
      sink += c.pass();
      const double c1 = thread_cpu_s();
      const auto w1 = std::chrono::steady_clock::now();
      c.cpu_us.push_back(1e6 * (c1 - c0) / states);
      c.wall_us.push_back(std::chrono::duration<double, std::micro>(w1 - w0).count() / states);
    }
}

struct Row {
  std::string model, algorithm;
  double tendyn_cpu, pin_local_cpu, pin_world_cpu, dart_cpu, before_cpu;  // us per call (median)
  double tendyn_wall, pin_best_wall;
};

std::string fmt(double x, int prec = 2) {
  if (x < 0.0) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", prec, x);
  return buf;
}

struct Options {
  int rounds = 21, states = 1000;
  std::string humanoid = std::string(TENDYN_SOURCE_DIR) + "/models/tree/humanoid35.urdf";
  std::string atlas = "/usr/share/doc/dart/data/sdf/atlas/atlas_v3_no_head.urdf";
  bool with_dart = true;
};

int usage(const char* msg) {
  std::fprintf(stderr,
               "tendyn_tree_vs_pinocchio: %s\nusage: tendyn_tree_vs_pinocchio [--rounds N] [--states N] "
               "[--humanoid FILE] [--atlas FILE] [--no-dart]\n",
               msg);
  return 1;
}

int run(const Options& o) {
  std::vector<Case> cases = make_cases(o.humanoid, o.atlas);
  std::vector<Row> rows;
  for (const Case& c : cases) {
    const tt::Model tm = tt::urdf_from_string(c.urdf, c.label);
#ifdef TENDYN_PINOCCHIO_URDF
    pin::Model pm;
    pin::urdf::buildModelFromXML(c.urdf, pm);
#else
    const pin::Model pm = to_pinocchio(tm);
#endif
    const Mapping map = make_mapping(tm, pm, c.label);
    const States s = make_states(tm, pm, map, o.states);
    tt::Data td(tm);
    pin::Data pd(pm);
    const auto N = static_cast<std::size_t>(o.states);

    // ---- agreement of the results -------------------------------------------------------
    double e_before = 0.0, e_tau = 0.0, e_M_local = 0.0, e_M_world = 0.0, e_Mu = 0.0, e_ddq_local = 0.0, e_ddq_world = 0.0;
    for (std::size_t k = 0; k < N; ++k) {
      const Eigen::VectorXd tau_t = tt::rnea(tm, td, s.q[k], s.v[k], s.a[k]);
      pin::rnea(pm, pd, s.qp[k], s.vp[k], s.ap[k]);
      e_tau = std::max(e_tau, rel_diff(tau_t, v_from_pin(map, pd.tau)));
      const Eigen::MatrixXd M_before = before::crba(tm, td, s.q[k]);
      const Eigen::MatrixXd M_t = tt::crba(tm, td, s.q[k]);
      e_before = std::max(e_before, rel_diff(M_t, M_before));
      const Eigen::MatrixXd Mu_t = tt::crba_upper(tm, td, s.q[k]);
      e_Mu = std::max(e_Mu,
                      rel_diff(Eigen::MatrixXd(Mu_t.triangularView<Eigen::Upper>()), Eigen::MatrixXd(M_t.triangularView<Eigen::Upper>())));
      for (const pin::Convention conv : {pin::Convention::LOCAL, pin::Convention::WORLD}) {
        pd.M.setZero();
        pin::crba(pm, pd, s.qp[k], conv);
        pd.M.triangularView<Eigen::StrictlyLower>() = pd.M.transpose().triangularView<Eigen::StrictlyLower>();
        double& e = conv == pin::Convention::LOCAL ? e_M_local : e_M_world;
        e = std::max(e, rel_diff(M_t, M_from_pin(map, pd.M)));
      }
      const Eigen::VectorXd ddq_t = tt::aba(tm, td, s.q[k], s.v[k], s.tau[k]);
      pin::aba(pm, pd, s.qp[k], s.vp[k], s.taup[k], pin::Convention::LOCAL);
      e_ddq_local = std::max(e_ddq_local, rel_diff(ddq_t, v_from_pin(map, pd.ddq)));
      pin::aba(pm, pd, s.qp[k], s.vp[k], s.taup[k], pin::Convention::WORLD);
      e_ddq_world = std::max(e_ddq_world, rel_diff(ddq_t, v_from_pin(map, pd.ddq)));
    }
#ifdef TENDYN_PINOCCHIO_URDF
    {
      // The header-only runs build Pinocchio's model through its API (to_pinocchio); here its URDF
      // parser built it: both must give the same RNEA, CRBA and ABA (each mapped back by joint name).
      const pin::Model pm_api = to_pinocchio(tm);
      const Mapping map_api = make_mapping(tm, pm_api, c.label);
      pin::Data pd_api(pm_api);
      double e_api = 0.0;
      for (std::size_t k = 0; k < std::min<std::size_t>(N, 100); ++k) {
        const Eigen::VectorXd qa = q_to_pin(map_api, pm_api, s.q[k]);
        pin::rnea(pm, pd, s.qp[k], s.vp[k], s.ap[k]);
        pin::rnea(pm_api, pd_api, qa, v_to_pin(map_api, s.v[k]), v_to_pin(map_api, s.a[k]));
        e_api = std::max(e_api, rel_diff(v_from_pin(map, pd.tau), v_from_pin(map_api, pd_api.tau)));
        pin::crba(pm, pd, s.qp[k], pin::Convention::LOCAL);
        pin::crba(pm_api, pd_api, qa, pin::Convention::LOCAL);
        pd.M.triangularView<Eigen::StrictlyLower>() = pd.M.transpose().triangularView<Eigen::StrictlyLower>();
        pd_api.M.triangularView<Eigen::StrictlyLower>() = pd_api.M.transpose().triangularView<Eigen::StrictlyLower>();
        e_api = std::max(e_api, rel_diff(M_from_pin(map, pd.M), M_from_pin(map_api, pd_api.M)));
        pin::aba(pm, pd, s.qp[k], s.vp[k], s.taup[k], pin::Convention::LOCAL);
        pin::aba(pm_api, pd_api, qa, v_to_pin(map_api, s.v[k]), v_to_pin(map_api, s.tau[k]), pin::Convention::LOCAL);
        e_api = std::max(e_api, rel_diff(v_from_pin(map, pd.ddq), v_from_pin(map_api, pd_api.ddq)));
      }
      std::printf(
          "%s: Pinocchio's URDF parser (%d joints, nq %d) vs the API-built model of the header-only runs "
          "(%d joints, nq %d): tau, M, ddq differ by at most %.1e over %zu states\n",
          c.label.c_str(), static_cast<int>(pm.njoints), pm.nq, static_cast<int>(pm_api.njoints), pm_api.nq, e_api,
          std::min<std::size_t>(N, 100));
      if (!(e_api <= kTolerance)) {
        std::fprintf(stderr, "tendyn_tree_vs_pinocchio: %s: parsed and API-built Pinocchio models differ by %.3e\n", c.label.c_str(),
                     e_api);
        return 3;
      }
    }
#endif
    std::printf(
        "%s: nv %d, tendyn %d links, Pinocchio %d joints; worst relative difference over %d states: "
        "tau %.1e, M %.1e (LOCAL) %.1e (WORLD), upper-only vs full %.1e, ddq %.1e (LOCAL) %.1e (WORLD), "
        "M vs the CRBA before issue 19 %.1e\n",
        c.label.c_str(), tm.nv, tm.nlinks(), static_cast<int>(pm.njoints), o.states, e_tau, e_M_local, e_M_world, e_Mu, e_ddq_local,
        e_ddq_world, e_before);
    for (const double e : {e_tau, e_M_local, e_M_world, e_ddq_local, e_before, e_ddq_world * kTolerance / kWorldAbaTolerance})
      if (!(e <= kTolerance)) {
        std::fprintf(stderr, "tendyn_tree_vs_pinocchio: %s: results differ by %.3e > %.0e\n", c.label.c_str(), e, kTolerance);
        return 3;
      }
    if (e_Mu != 0.0) {
      std::fprintf(stderr, "tendyn_tree_vs_pinocchio: %s: crba_upper differs from crba's upper triangle\n", c.label.c_str());
      return 3;
    }

#ifdef TENDYN_HAVE_DART
    dart::dynamics::SkeletonPtr skel;
    if (o.with_dart) {
      skel = tt::testing::to_dart(tm);
      if (!tt::testing::same_dof_order(tm, skel)) {
        std::fprintf(stderr, "tendyn_tree_vs_pinocchio: %s: DART orders the coordinates differently\n", c.label.c_str());
        return 4;
      }
      double e_dart = 0.0;
      for (std::size_t k = 0; k < N; ++k) {
        skel->setPositions(s.qd[k]);
        skel->setVelocities(s.v[k]);
        skel->setAccelerations(s.a[k]);
        skel->computeInverseDynamics();
        e_dart = std::max(e_dart, rel_diff(skel->getForces(), tt::rnea(tm, td, s.q[k], s.v[k], s.a[k])));
        e_dart = std::max(e_dart, rel_diff(skel->getMassMatrix(), tt::crba(tm, td, s.q[k])));
        skel->setForces(s.tau[k]);
        skel->computeForwardDynamics();
        e_dart = std::max(e_dart, rel_diff(skel->getAccelerations(), tt::aba(tm, td, s.q[k], s.v[k], s.tau[k])));
      }
      std::printf("%s: DART worst relative difference (tau, M, ddq) %.1e\n", c.label.c_str(), e_dart);
      if (!(e_dart <= kDartTolerance)) {
        std::fprintf(stderr, "tendyn_tree_vs_pinocchio: %s: DART differs by %.3e\n", c.label.c_str(), e_dart);
        return 3;
      }
    }
#endif

    // ---- timing ---------------------------------------------------------------------------
    auto tendyn_rnea = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) x += tt::rnea(tm, td, s.q[k], s.v[k], s.a[k])[0];
      return x;
    };
    auto tendyn_crba = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) x += tt::crba(tm, td, s.q[k])(0, 0);
      return x;
    };
    auto tendyn_crba_before = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) x += before::crba(tm, td, s.q[k])(0, 0);
      return x;
    };
    auto tendyn_crba_upper = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) x += tt::crba_upper(tm, td, s.q[k])(0, 0);
      return x;
    };
    auto tendyn_aba = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) x += tt::aba(tm, td, s.q[k], s.v[k], s.tau[k])[0];
      return x;
    };
    auto pin_rnea = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) x += pin::rnea(pm, pd, s.qp[k], s.vp[k], s.ap[k])[0];
      return x;
    };
    auto pin_crba = [&](pin::Convention conv, bool fill) {
      return [&, conv, fill] {
        double x = 0.0;
        for (std::size_t k = 0; k < N; ++k) {
          pin::crba(pm, pd, s.qp[k], conv);
          if (fill) pd.M.triangularView<Eigen::StrictlyLower>() = pd.M.transpose().triangularView<Eigen::StrictlyLower>();
          x += pd.M(pm.nv - 1, 0) + pd.M(0, 0);
        }
        return x;
      };
    };
    auto pin_aba = [&](pin::Convention conv) {
      return [&, conv] {
        double x = 0.0;
        for (std::size_t k = 0; k < N; ++k) x += pin::aba(pm, pd, s.qp[k], s.vp[k], s.taup[k], conv)[0];
        return x;
      };
    };
#ifdef TENDYN_HAVE_DART
    auto dart_id = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) {
        skel->setPositions(s.qd[k]);
        skel->setVelocities(s.v[k]);
        skel->setAccelerations(s.a[k]);
        skel->computeInverseDynamics();
        x += skel->getForces()[0];
      }
      return x;
    };
    auto dart_M = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) {
        skel->setPositions(s.qd[k]);
        x += skel->getMassMatrix()(0, 0);
      }
      return x;
    };
    auto dart_fd = [&] {
      double x = 0.0;
      for (std::size_t k = 0; k < N; ++k) {
        skel->setPositions(s.qd[k]);
        skel->setVelocities(s.v[k]);
        skel->setForces(s.tau[k]);
        skel->computeForwardDynamics();
        x += skel->getAccelerations()[0];
      }
      return x;
    };
#endif
    struct Group {
      const char* name;
      std::vector<Contender> cs;  // tendyn, Pinocchio LOCAL, Pinocchio WORLD[, DART]
    };
    std::vector<Group> groups;
    groups.push_back({"RNEA", {{"tendyn", tendyn_rnea, {}, {}}, {"pin", pin_rnea, {}, {}}}});
    groups.push_back({"CRBA, full M (Pinocchio: crba + fill lower)",
                      {{"tendyn", tendyn_crba, {}, {}},
                       {"pin LOCAL", pin_crba(pin::Convention::LOCAL, true), {}, {}},
                       {"pin WORLD", pin_crba(pin::Convention::WORLD, true), {}, {}},
                       {"tendyn before", tendyn_crba_before, {}, {}}}});
    groups.push_back({"CRBA, upper triangle only",
                      {{"tendyn", tendyn_crba_upper, {}, {}},
                       {"pin LOCAL", pin_crba(pin::Convention::LOCAL, false), {}, {}},
                       {"pin WORLD", pin_crba(pin::Convention::WORLD, false), {}, {}}}});
    groups.push_back({"ABA",
                      {{"tendyn", tendyn_aba, {}, {}},
                       {"pin LOCAL", pin_aba(pin::Convention::LOCAL), {}, {}},
                       {"pin WORLD", pin_aba(pin::Convention::WORLD), {}, {}}}});
#ifdef TENDYN_HAVE_DART
    if (o.with_dart) {
      groups[0].cs.push_back({"DART", dart_id, {}, {}});
      groups[1].cs.push_back({"DART", dart_M, {}, {}});
      groups[3].cs.push_back({"DART", dart_fd, {}, {}});
    }
#endif
    for (Group& g : groups) {
      measure(g.cs, o.rounds, o.states);
      Row r{c.label, g.name, -1, -1, -1, -1, -1, -1, -1};
      double pin_best_cpu = 1e300;
      for (const Contender& ct : g.cs) {
        const double cpu = median(ct.cpu_us), wall = median(ct.wall_us);
        if (ct.name == "tendyn") {
          r.tendyn_cpu = cpu;
          r.tendyn_wall = wall;
        } else if (ct.name == "DART") {
          r.dart_cpu = cpu;
        } else if (ct.name == "tendyn before") {
          r.before_cpu = cpu;
        } else {
          (ct.name == "pin WORLD" ? r.pin_world_cpu : r.pin_local_cpu) = cpu;
          if (cpu < pin_best_cpu) {
            pin_best_cpu = cpu;
            r.pin_best_wall = wall;
          }
        }
      }
      rows.push_back(r);
    }
  }

  std::printf(
      "\nmedian of %d rounds, %d states per pass, microseconds per call (thread CPU time); "
      "ratio = tendyn / faster Pinocchio convention; wall-time ratio in brackets\n\n",
      o.rounds, o.states);
  std::printf(
      "| model | algorithm | tendyn | Pinocchio LOCAL | Pinocchio WORLD | tendyn / Pinocchio | DART | "
      "tendyn before issue 19 |\n");
  std::printf("|---|---|---|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    const double best = r.pin_world_cpu < 0.0 ? r.pin_local_cpu : std::min(r.pin_local_cpu, r.pin_world_cpu);
    std::printf("| %s | %s | %s | %s | %s | %.2fx (%.2fx) | %s | %s |\n", r.model.c_str(), r.algorithm.c_str(), fmt(r.tendyn_cpu).c_str(),
                fmt(r.pin_local_cpu).c_str(), fmt(r.pin_world_cpu).c_str(), r.tendyn_cpu / best, r.tendyn_wall / r.pin_best_wall,
                fmt(r.dart_cpu, 1).c_str(), fmt(r.before_cpu).c_str());
  }
  std::printf("\n(checksum %.6g)\n", sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--rounds" || a == "--states") {
        const std::string t = value();
        std::size_t used = 0;
        const int n = std::stoi(t, &used);
        if (used != t.size() || n < 1) throw std::invalid_argument(a + " needs a positive integer, got '" + t + "'");
        (a == "--rounds" ? o.rounds : o.states) = n;
      } else if (a == "--humanoid") {
        o.humanoid = value();
      } else if (a == "--atlas") {
        o.atlas = value();
      } else if (a == "--no-dart") {
        o.with_dart = false;
      } else {
        return usage(("unknown option '" + a + "'").c_str());
      }
    } catch (const std::exception& e) {
      return usage(e.what());
    }
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tendyn_tree_vs_pinocchio: %s\n", e.what());
    return 2;
  }
}
