// Centroid (barycentre) tension distribution for n = m + 2 cables.
//
// Gouttefarde, Lamaury, Reichert, Bruckmann, "A versatile tension distribution algorithm for n-DOF
// parallel robots driven by n+2 cables", IEEE Trans. Robotics 31(6):1444-1457, 2015: with two
// redundant cables the feasible tensions {f : J f = w, f_min <= f <= f_max} form a convex polygon
// in the 2-D coordinates lambda of f = f0 + N lambda (N a basis of null(J), f0 one solution); the
// paper walks along its boundary to find the vertices and takes a point of the polygon, the
// centroid among others, as the tension distribution. Here the polygon is obtained by clipping a
// square that contains it with the 2n bound half-planes (Sutherland-Hodgman, O(n^2), exact up to
// rounding), and its area centroid is taken by the shoelace formula.
//
// Why the centroid is continuous: an orthonormal N is unique up to a rotation or reflection of
// lambda and f0 up to a shift within the polygon's plane; both are affine maps, which carry area
// centroids to area centroids, so f_c is a function of (J, w) alone (no basis continuity is
// needed). Where the polygon has a non-zero area it varies continuously with (J, w) in the
// Hausdorff sense, and so does its centroid. It degenerates (zero area, the centroid may jump) only
// on the boundary of the wrench-feasible workspace.
//
// f0 is the centred point (the exact solver with stage 2 centred on f_m): feasible when any
// tension is, so lambda = 0 lies in the polygon and no separate feasibility test is needed; when
// it is infeasible (no tension meets the wrench within the bounds) the centred point is the answer.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "tension_internal.hpp"

namespace tendyn::cdpr::detail {
namespace {

// At most 64 cables: 128 half-planes, each adds at most one vertex to the 4 of the square.
constexpr int kMaxVertices = 4 + 2 * 64 + 4;
using Polygon = std::array<std::array<double, 2>, kMaxVertices>;

/// Clips the convex polygon in[0, count) by a0 x + a1 y <= b into out; returns the new count.
int clip(const Polygon& in, int count, double a0, double a1, double b, Polygon& out) {
  int k = 0;
  for (int i = 0; i < count; ++i) {
    const auto& P = in[static_cast<std::size_t>(i)];
    const auto& Q = in[static_cast<std::size_t>((i + 1) % count)];
    const double sp = a0 * P[0] + a1 * P[1] - b;
    const double sq = a0 * Q[0] + a1 * Q[1] - b;
    if (sp <= 0.0) out[static_cast<std::size_t>(k++)] = P;
    if ((sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0)) {
      const double t = sp / (sp - sq);
      out[static_cast<std::size_t>(k++)] = {P[0] + t * (Q[0] - P[0]), P[1] + t * (Q[1] - P[1])};
    }
  }
  return k;
}

}  // namespace

void solve_centroid(const Scaled& p, const SolverOptions& o, Workspace::Impl& ws, TensionResult& res) {
  solve_exact(p, o, ws, res, true);
  if (res.status != Status::kOk) return;  // infeasible, near singular, ...: the centred point
  const auto& J = p.J;
  const int n = static_cast<int>(J.cols());
  ws.Jt = J.transpose();
  ws.qr.setThreshold(o.rank_rtol);
  ws.qr.compute(ws.Jt);
  if (n - static_cast<int>(ws.qr.rank()) != 2) {
    res.status = Status::kNearSingular;
    res.reason = "centroid: the null space of J is not two-dimensional (J is rank deficient)";
    return;
  }
  ws.qr.householderQ().evalTo(ws.Q, ws.hwork);
  const auto N = ws.Q.rightCols(2);
  const auto f0 = ws.x2.head(n);
  ws.x2.head(n) = res.f_N;
  const double lo = p.f_min, hi = p.f_max;
  // |lambda| = |N lambda| <= sqrt(n) (hi - lo): the square of that half-width contains the polygon.
  const double R = 2.0 * std::sqrt(static_cast<double>(n)) * (hi - lo);
  Polygon a{}, b{};
  a[0] = {-R, -R};
  a[1] = {R, -R};
  a[2] = {R, R};
  a[3] = {-R, R};
  int count = 4;
  Polygon* cur = &a;
  Polygon* nxt = &b;
  for (int i = 0; i < n && count > 0; ++i) {
    const double n0 = N(i, 0), n1 = N(i, 1);
    if (n0 == 0.0 && n1 == 0.0) continue;                 // this tension is fixed by the wrench
    count = clip(*cur, count, n0, n1, hi - f0[i], *nxt);  // f_i <= f_max
    std::swap(cur, nxt);
    if (count == 0) break;
    count = clip(*cur, count, -n0, -n1, f0[i] - lo, *nxt);  // f_i >= f_min
    std::swap(cur, nxt);
  }
  if (count < 3) return;  // a point or a segment (rounding at the workspace boundary): f0
  // Area centroid, triangles fanned from lambda = 0 (inside or on the polygon: f0 is feasible).
  double area2 = 0.0, cx = 0.0, cy = 0.0, vx = 0.0, vy = 0.0;
  for (int i = 0; i < count; ++i) {
    const auto& P = (*cur)[static_cast<std::size_t>(i)];
    const auto& Q = (*cur)[static_cast<std::size_t>((i + 1) % count)];
    const double cr = P[0] * Q[1] - Q[0] * P[1];
    area2 += cr;
    cx += (P[0] + Q[0]) * cr;
    cy += (P[1] + Q[1]) * cr;
    vx += P[0];
    vy += P[1];
  }
  double l0 = 0.0, l1 = 0.0;
  const double scale = (hi - lo) * (hi - lo);
  if (area2 > 1e-24 * scale) {
    l0 = cx / (3.0 * area2);
    l1 = cy / (3.0 * area2);
  } else {  // zero area to rounding: the mean of the vertices
    l0 = vx / count;
    l1 = vy / count;
  }
  for (int i = 0; i < n; ++i) res.f_N[i] = std::min(std::max(f0[i] + N(i, 0) * l0 + N(i, 1) * l1, lo), hi);
  res.status = Status::kOk;
  res.reason = "";
  finish_result(p, o, ws, res, true);
}

}  // namespace tendyn::cdpr::detail
