// The identification's prediction in double: free runs of the scalar-templated dynamics from
// shooting states, the start values of the fit and the marker statistics.
#include "tensegrity/identify_internal.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace tendyn::tensegrity {

namespace identify_detail {

void check_model_supported(const Model& m) {
  if (m.ground.type == Ground::Type::kImpulse)
    throw Error(
        "identify: the impulse ground is not supported (its impacts, located inside steps, are not differentiable); "
        "use a compliant ground (ground: {type: compliant, ...}) or none");
}

// One free run with the double template from a 12-number-per-rod start state over all samples
// from sample `from`; node positions at each sample into P (nsample x 3 nnode), from `from` on.
void free_run(const Model& m, const Layout& L, const double* theta, const double* start, const std::vector<double>& t, double dt,
              Eigen::MatrixXd& P, Work<double>* states_out, std::vector<std::vector<double>>* state_at) {
  Phys<double> ph;
  fill_phys(m, L, theta, ph);
  Work<double> w;
  w.resize(m);
  for (int j = 0; j < m.nrod(); ++j) state_from_params(start + kStateParams * j, w.x.data() + State::kStride * j);
  const int N = static_cast<int>(t.size());
  P.setConstant(N, 3 * m.nnode(), kNaN);
  if (state_at) state_at->assign(static_cast<std::size_t>(N), {});
  for (int s = 0; s < N; ++s) {
    if (s > 0) advance(m, ph, t[static_cast<std::size_t>(s - 1)], t[static_cast<std::size_t>(s)], dt, w);
    kinematics(m, w.x.data(), w);
    for (int i = 0; i < 3 * m.nnode(); ++i) P(s, i) = w.p[static_cast<std::size_t>(i)];
    if (state_at) (*state_at)[static_cast<std::size_t>(s)] = w.x;
  }
  (void)states_out;
}

Start start_values(const Setup& S) {
  const Model& m = *S.model;
  const MotionData& d = *S.data;
  Start st;
  st.theta.assign(static_cast<std::size_t>(std::max(S.layout.nparam, 1)), 0.0);
  for (int i = 0; i < S.layout.nparam; ++i)
    st.theta[static_cast<std::size_t>(i)] = nominal_value(m, S.layout.groups[static_cast<std::size_t>(i)]);
  const int nr = m.nrod();
  std::vector<double> s0(static_cast<std::size_t>(kStateParams * nr));
  for (int j = 0; j < nr; ++j) params_from_state(m.initial_state, j, &s0[static_cast<std::size_t>(kStateParams * j)]);
  Eigen::MatrixXd P;
  std::vector<std::vector<double>> xs;
  bool nominal_ok = true;
  try {
    free_run(m, S.layout, st.theta.data(), s0.data(), d.t_s, S.options.dt_s, P, nullptr, &xs);
  } catch (const SimulationError&) {
    nominal_ok = false;
  }
  std::vector<int> marker_of_node(static_cast<std::size_t>(m.nnode()), -1);
  for (int i = 0; i < d.nmarker(); ++i) marker_of_node[static_cast<std::size_t>(d.marker_nodes[static_cast<std::size_t>(i)])] = i;
  auto ends_at = [&](int rod, int s, Eigen::Vector3d& a, Eigen::Vector3d& b) {
    if (s < 0 || s >= d.nsample()) return false;
    const Rod& r = m.rods[static_cast<std::size_t>(rod)];
    const int m0 = marker_of_node[static_cast<std::size_t>(r.node[0])], m1 = marker_of_node[static_cast<std::size_t>(r.node[1])];
    if (m0 < 0 || m1 < 0) return false;
    a = d.p_W_marker_m.block(s, 3 * m0, 1, 3).transpose();
    b = d.p_W_marker_m.block(s, 3 * m1, 1, 3).transpose();
    return a.allFinite() && b.allFinite() && (b - a).norm() > 0.0;
  };
  for (std::size_t k = 0; k < S.segments.size(); ++k) {
    const int s = S.segments[k].first;
    std::vector<double> x(static_cast<std::size_t>(kStateParams * nr));
    if (k == 0) {
      x = s0;
    } else {
      for (int j = 0; j < nr; ++j) {
        double* sj = &x[static_cast<std::size_t>(kStateParams * j)];
        if (nominal_ok) {
          State tmp;
          tmp.x = Eigen::Map<const Eigen::VectorXd>(xs[static_cast<std::size_t>(s)].data(), State::kStride * nr);
          params_from_state(tmp, j, sj);
        } else {
          for (int c = 0; c < kStateParams; ++c) sj[c] = s0[static_cast<std::size_t>(kStateParams * j + c)];
        }
        Eigen::Vector3d a, b;
        if (!ends_at(j, s, a, b)) continue;
        const double ac = m.rods[static_cast<std::size_t>(j)].com_ratio;
        const Eigen::Vector3d e = (b - a).normalized();
        const Eigen::Vector3d p = ac * a + (1.0 - ac) * b;
        for (int c = 0; c < 3; ++c) {
          sj[c] = p[c];
          sj[3 + c] = e[c];
        }
        // velocities: central differences over the nearest complete samples (within 3)
        int lo = -1, hi = -1;
        Eigen::Vector3d al, bl, ah, bh;
        for (int q = 1; q <= 3 && lo < 0; ++q)
          if (ends_at(j, s - q, al, bl)) lo = s - q;
        for (int q = 1; q <= 3 && hi < 0; ++q)
          if (ends_at(j, s + q, ah, bh)) hi = s + q;
        if (lo < 0) {
          lo = s;
          al = a;
          bl = b;
        }
        if (hi < 0) {
          hi = s;
          ah = a;
          bh = b;
        }
        if (hi == lo) continue;
        const double dt = d.t_s[static_cast<std::size_t>(hi)] - d.t_s[static_cast<std::size_t>(lo)];
        const Eigen::Vector3d v = ((ac * ah + (1 - ac) * bh) - (ac * al + (1 - ac) * bl)) / dt;
        const Eigen::Vector3d edot = ((bh - ah).normalized() - (bl - al).normalized()) / dt;
        Eigen::Vector3d wv = e.cross(edot);
        const Eigen::Vector3d w_old(sj[9], sj[10], sj[11]);
        wv += w_old.dot(e) * e;  // the spin rate about the axis is not seen by markers: keep the run's
        for (int c = 0; c < 3; ++c) {
          sj[6 + c] = v[c];
          sj[9 + c] = wv[c];
        }
      }
    }
    st.states.push_back(std::move(x));
  }
  return st;
}

double marker_rms(const MotionData& d, const Eigen::MatrixXd& P_nodes) {
  double s = 0.0;
  long n = 0;
  for (int k = 0; k < d.nsample(); ++k)
    for (int i = 0; i < d.nmarker(); ++i)
      for (int c = 0; c < 3; ++c) {
        const double meas = d.p_W_marker_m(k, 3 * i + c);
        if (std::isnan(meas)) continue;
        const double r = P_nodes(k, 3 * d.marker_nodes[static_cast<std::size_t>(i)] + c) - meas;
        s += r * r;
        ++n;
      }
  return n > 0 ? std::sqrt(s / static_cast<double>(n)) : kNaN;
}

Eigen::MatrixXd marker_columns(const MotionData& d, const Eigen::MatrixXd& P_nodes) {
  Eigen::MatrixXd out(d.nsample(), 3 * d.nmarker());
  for (int i = 0; i < d.nmarker(); ++i) out.middleCols(3 * i, 3) = P_nodes.middleCols(3 * d.marker_nodes[static_cast<std::size_t>(i)], 3);
  return out;
}

}  // namespace identify_detail

using namespace identify_detail;

Eigen::MatrixXd simulate_samples(const Model& model, const std::vector<double>& t_s, double dt_s) {
  check_model_supported(model);
  require_ideal_rods(model, "simulate_samples (simulate_motion simulates every model)");
  if (t_s.empty()) throw Error("simulate_samples: no sample time");
  if (!(dt_s > 0.0)) throw Error("simulate_samples: dt_s must be > 0");
  for (std::size_t i = 1; i < t_s.size(); ++i)
    if (!(t_s[i] > t_s[i - 1])) throw Error("simulate_samples: times must increase strictly");
  Layout L = make_layout(model, {{ParameterKind::kInitialState, {}, "initial_state"}});
  std::vector<double> s0(static_cast<std::size_t>(kStateParams * model.nrod()));
  for (int j = 0; j < model.nrod(); ++j) params_from_state(model.initial_state, j, &s0[static_cast<std::size_t>(kStateParams * j)]);
  const double dummy = 0.0;
  Eigen::MatrixXd P;
  free_run(model, L, &dummy, s0.data(), t_s, dt_s, P);
  return P;
}

}  // namespace tendyn::tensegrity
