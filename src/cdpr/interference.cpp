// Cable-cable and cable-platform interference. See include/tendyn/cdpr/interference.hpp.
#include <tendyn/cdpr/interference.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/csv.hpp>

#include <Eigen/Geometry>
#include <Eigen/SVD>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace tendyn::cdpr {
namespace {

/// Pairs closer than this touch (crossing cables compute to ~1e-17 m, not 0), also at clearance 0.
constexpr double kContact_m = 1e-9;

double clamp01(double x) { return std::min(1.0, std::max(0.0, x)); }

void check_finite(const Eigen::Vector3d& p, const char* name) {
  if (!p.allFinite()) throw Error(std::string("segment_distance: point ") + name + " is not finite");
}

void check_options(const InterferenceOptions& o) {
  if (!(o.clearance_m >= 0.0) || !std::isfinite(o.clearance_m))
    throw Error("interference: clearance_m must be finite and >= 0 (got " + std::to_string(o.clearance_m) + ")");
  if (!(o.penetration_tol_m > 0.0) || !std::isfinite(o.penetration_tol_m))
    throw Error("interference: penetration_tol_m must be finite and > 0 (got " + std::to_string(o.penetration_tol_m) + ")");
}

std::string cable_name(const Model& model, int i) {
  const auto k = static_cast<std::size_t>(i);
  return k < model.cable_names.size() ? model.cable_names[k] : "c" + std::to_string(i + 1);
}

}  // namespace

SegmentDistance segment_distance(const Eigen::Vector3d& a0, const Eigen::Vector3d& a1, const Eigen::Vector3d& b0,
                                 const Eigen::Vector3d& b1) {
  check_finite(a0, "a0");
  check_finite(a1, "a1");
  check_finite(b0, "b0");
  check_finite(b1, "b1");
  // Minimise |r + s d1 - t d2|^2 over the unit square: the normal equations
  //   a s - b t = -c,  b s - e t = -f  (a = d1.d1, b = d1.d2, c = d1.r, e = d2.d2, f = d2.r),
  // solved for s, then t from s, each clamped to [0, 1] with the other re-solved after a clamp.
  // For parallel segments (a e - b^2 ~ 0) s = 0 is taken and t, then s, follow from it: for two
  // parallel segments this gives the gap of their projections on the common direction (or 0 when
  // they overlap), i.e. a minimising pair.
  const Eigen::Vector3d d1 = a1 - a0, d2 = b1 - b0, r = a0 - b0;
  const double a = d1.squaredNorm(), e = d2.squaredNorm(), f = d2.dot(r);
  const double size = std::max({a0.cwiseAbs().maxCoeff(), a1.cwiseAbs().maxCoeff(), b0.cwiseAbs().maxCoeff(), b1.cwiseAbs().maxCoeff(),
                                std::numeric_limits<double>::min()});
  const double tiny = 1e-30 * size * size;  // a segment shorter than 1e-15 of the coordinates is a point
  double s = 0.0, t = 0.0;
  if (a <= tiny && e <= tiny) {
    s = t = 0.0;
  } else if (a <= tiny) {
    s = 0.0;
    t = clamp01(f / e);
  } else {
    const double c = d1.dot(r);
    if (e <= tiny) {
      t = 0.0;
      s = clamp01(-c / a);
    } else {
      const double b = d1.dot(d2);
      const double denom = a * e - b * b;  // >= 0 (Cauchy-Schwarz), 0 when parallel
      s = denom > 1e-14 * a * e ? clamp01((b * f - c * e) / denom) : 0.0;
      t = (b * s + f) / e;
      if (t < 0.0) {
        t = 0.0;
        s = clamp01(-c / a);
      } else if (t > 1.0) {
        t = 1.0;
        s = clamp01((b - c) / a);
      }
    }
  }
  SegmentDistance out;
  out.s = s;
  out.t = t;
  out.distance_m = ((a0 + s * d1) - (b0 + t * d2)).norm();
  return out;
}

ConvexShape box_shape(const Eigen::Vector3d& h, const Eigen::Vector3d& c) {
  if (!h.allFinite() || !(h.minCoeff() > 0.0))
    throw Error("box_shape: half extents must be finite and > 0 (got " + std::to_string(h.x()) + ", " + std::to_string(h.y()) + ", " +
                std::to_string(h.z()) + ")");
  if (!c.allFinite()) throw Error("box_shape: the centre is not finite");
  ConvexShape s;
  s.normals.resize(3, 6);
  s.offsets_m.resize(6);
  for (int k = 0; k < 3; ++k) {
    s.normals.col(2 * k) = Eigen::Vector3d::Unit(k);
    s.offsets_m[2 * k] = c[k] + h[k];
    s.normals.col(2 * k + 1) = -Eigen::Vector3d::Unit(k);
    s.offsets_m[2 * k + 1] = -(c[k] - h[k]);
  }
  s.description = "box " + format_number(2 * h.x(), 6) + " x " + format_number(2 * h.y(), 6) + " x " + format_number(2 * h.z(), 6) + " m";
  return s;
}

ConvexShape convex_hull_shape(const Eigen::Matrix3Xd& pts) {
  const auto k = pts.cols();
  if (k < 3) throw Error("convex_hull_shape: needs at least 3 points (got " + std::to_string(k) + ")");
  if (k > 64) throw Error("convex_hull_shape: at most 64 points (got " + std::to_string(k) + ")");
  if (!pts.allFinite()) throw Error("convex_hull_shape: a point is not finite");
  const Eigen::Vector3d mean = pts.rowwise().mean();
  const Eigen::Matrix3Xd X = pts.colwise() - mean;
  const double extent = X.colwise().norm().maxCoeff();
  const double tol = 1e-9 * std::max(extent, std::numeric_limits<double>::min());
  Eigen::JacobiSVD<Eigen::Matrix3Xd> svd(X, Eigen::ComputeFullU);
  const Eigen::Vector3d sv = svd.singularValues();
  if (!(sv[1] > 1e-9 * sv[0])) throw Error("convex_hull_shape: the points are collinear or coincide (no area)");
  const bool flat = !(sv[2] > 1e-9 * sv[0]);
  std::vector<Eigen::Vector3d> normals;
  std::vector<double> offsets;
  const auto add = [&](const Eigen::Vector3d& nrm, double off) {
    for (std::size_t q = 0; q < normals.size(); ++q)
      if ((normals[q] - nrm).norm() < 1e-9 && std::abs(offsets[q] - off) <= tol) return;
    normals.push_back(nrm);
    offsets.push_back(off);
  };
  // A candidate plane (unit normal nrm through point p) is a face when no point lies above it.
  const auto try_plane = [&](Eigen::Vector3d nrm, const Eigen::Vector3d& p) {
    const double len = nrm.norm();
    if (!(len > 1e-12 * extent * extent)) return;
    nrm /= len;
    double above = -std::numeric_limits<double>::infinity(), below = std::numeric_limits<double>::infinity();
    for (Eigen::Index q = 0; q < k; ++q) {
      const double h = nrm.dot(X.col(q) - p);
      above = std::max(above, h);
      below = std::min(below, h);
    }
    if (above <= tol)
      add(nrm, nrm.dot(p + mean));
    else if (below >= -tol)
      add(-nrm, -nrm.dot(p + mean));
  };
  if (flat) {
    const Eigen::Vector3d nz = svd.matrixU().col(2);
    add(nz, nz.dot(mean));
    add(-nz, -nz.dot(mean));
    for (Eigen::Index i = 0; i < k; ++i)
      for (Eigen::Index j = i + 1; j < k; ++j) try_plane((X.col(j) - X.col(i)).cross(nz), X.col(i));
  } else {
    for (Eigen::Index i = 0; i < k; ++i)
      for (Eigen::Index j = i + 1; j < k; ++j)
        for (Eigen::Index l = j + 1; l < k; ++l) try_plane((X.col(j) - X.col(i)).cross(X.col(l) - X.col(i)), X.col(i));
  }
  ConvexShape s;
  s.normals.resize(3, static_cast<Eigen::Index>(normals.size()));
  s.offsets_m.resize(static_cast<Eigen::Index>(offsets.size()));
  for (std::size_t q = 0; q < normals.size(); ++q) {
    s.normals.col(static_cast<Eigen::Index>(q)) = normals[q];
    s.offsets_m[static_cast<Eigen::Index>(q)] = offsets[q];
  }
  s.description = std::string(flat ? "flat " : "") + "hull of " + std::to_string(k) + " points";
  return s;
}

ConvexShape transform_shape(const ConvexShape& shape, const Pose& pose) {
  ConvexShape out;
  out.normals = pose.R_WP * shape.normals;
  out.offsets_m = shape.offsets_m + (out.normals.transpose() * pose.p_WP);
  out.description = shape.description;
  return out;
}

SegmentClip clip_segment(const ConvexShape& shape, const Eigen::Vector3d& p0, const Eigen::Vector3d& p1) {
  const Eigen::Vector3d d = p1 - p0;
  const double len = d.norm();
  const double size = std::max(
      {p0.cwiseAbs().maxCoeff(), p1.cwiseAbs().maxCoeff(), shape.offsets_m.size() ? shape.offsets_m.cwiseAbs().maxCoeff() : 0.0, 1e-300});
  const double slack = 1e-12 * size;
  double t0 = 0.0, t1 = 1.0;
  for (Eigen::Index q = 0; q < shape.normals.cols(); ++q) {
    const Eigen::Vector3d nrm = shape.normals.col(q);
    const double num = shape.offsets_m[q] - nrm.dot(p0);  // >= 0: p0 inside this half-space
    const double den = nrm.dot(d);
    if (std::abs(den) <= 1e-15 * std::max(len, 1e-300)) {  // parallel to the plane
      if (num < -slack) return {};
      continue;
    }
    const double t = num / den;
    if (den > 0.0)
      t1 = std::min(t1, t);
    else
      t0 = std::max(t0, t);
    if (t0 > t1) return {};
  }
  SegmentClip c;
  c.t_enter = t0;
  c.t_exit = t1;
  c.length_m = (t1 - t0) * len;
  return c;
}

std::vector<std::pair<int, int>> cable_pairs(int n) {
  std::vector<std::pair<int, int>> p;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) p.emplace_back(i, j);
  return p;
}

namespace {

/// Interference at the geometry already in `data` (update_geometry done).
void interference_at(const Model& model, const Data& data, const Pose& pose, const InterferenceOptions& o,
                     const std::vector<std::pair<int, int>>& pairs, PoseInterference& out) {
  const int n = model.ncable();
  out.pair_distance_m.resize(static_cast<Eigen::Index>(pairs.size()));
  out.penetration_m = Eigen::VectorXd::Zero(n);
  out.free = true;
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    const auto [i, j] = pairs[k];
    double d = std::numeric_limits<double>::quiet_NaN();
    if ((model.p_PB.col(i) - model.p_PB.col(j)).norm() > 1e-9) {
      d = segment_distance(data.p_WB.col(i), model.p_WA.col(i), data.p_WB.col(j), model.p_WA.col(j)).distance_m;
      if (d < o.clearance_m || d <= kContact_m) out.free = false;
    }
    out.pair_distance_m[static_cast<Eigen::Index>(k)] = d;
  }
  if (o.platform) {
    const ConvexShape s = transform_shape(*o.platform, pose);
    for (int i = 0; i < n; ++i) {
      const double len = clip_segment(s, data.p_WB.col(i), model.p_WA.col(i)).length_m;
      out.penetration_m[i] = len;
      if (len > o.penetration_tol_m) out.free = false;
    }
  }
}

}  // namespace

PoseInterference pose_interference(const Model& model, const Pose& pose, const InterferenceOptions& options) {
  check_options(options);
  Data data = make_data(model);
  update_geometry(model, pose, data);
  PoseInterference out;
  interference_at(model, data, pose, options, cable_pairs(model.ncable()), out);
  return out;
}

bool interference_free(const Model& model, const Pose& pose, const InterferenceOptions& options) {
  return pose_interference(model, pose, options).free;
}

bool interference_free(const Model& model, const Pose& pose, double clearance_m) {
  InterferenceOptions o;
  o.clearance_m = clearance_m;
  try {
    o.platform = convex_hull_shape(model.p_PB);
  } catch (const Error&) {
    o.platform.reset();  // fewer than 3 or collinear attachment points: no platform volume
  }
  return interference_free(model, pose, o);
}

TrajectoryInterference trajectory_interference(const Model& model, const PoseTrajectory& trajectory, const InterferenceOptions& options) {
  check_options(options);
  const Eigen::Index rows = trajectory.q.rows();
  if (rows == 0) throw Error("interference: the trajectory has no pose");
  const int n = model.ncable();
  TrajectoryInterference out;
  out.pairs = cable_pairs(n);
  const auto np = static_cast<Eigen::Index>(out.pairs.size());
  out.min_distance_m = Eigen::VectorXd::Constant(np, std::numeric_limits<double>::infinity());
  out.min_row.assign(out.pairs.size(), 0);
  out.first_close_row.assign(out.pairs.size(), -1);
  out.max_penetration_m = Eigen::VectorXd::Zero(n);
  out.first_penetration_row.assign(static_cast<std::size_t>(n), -1);
  out.rows = static_cast<std::size_t>(rows);
  Data data = make_data(model);
  PoseInterference at;
  for (Eigen::Index r = 0; r < rows; ++r) {
    const auto row = static_cast<std::size_t>(r);
    Pose pose;
    try {
      pose = pose_from_vector(model, trajectory.q.row(r).transpose());
      update_geometry(model, pose, data);
    } catch (const Error& e) {
      const std::string place = row < trajectory.places.size() ? trajectory.places[row] : "pose " + std::to_string(row);
      throw Error(place + ": " + e.what());
    }
    interference_at(model, data, pose, options, out.pairs, at);
    for (Eigen::Index k = 0; k < np; ++k) {
      const double d = at.pair_distance_m[k];
      if (std::isnan(d)) {
        out.min_distance_m[k] = d;
        continue;
      }
      if (d < out.min_distance_m[k]) {
        out.min_distance_m[k] = d;
        out.min_row[static_cast<std::size_t>(k)] = row;
      }
      auto& first = out.first_close_row[static_cast<std::size_t>(k)];
      if (first < 0 && (d < options.clearance_m || d <= kContact_m)) first = static_cast<long>(r);
    }
    for (int i = 0; i < n; ++i) {
      const double len = at.penetration_m[i];
      out.max_penetration_m[i] = std::max(out.max_penetration_m[i], len);
      auto& first = out.first_penetration_row[static_cast<std::size_t>(i)];
      if (first < 0 && len > options.penetration_tol_m) first = static_cast<long>(r);
    }
    if (!at.free && out.first_interference_row < 0) out.first_interference_row = static_cast<long>(r);
  }
  return out;
}

std::string interference_csv(const Model& model, const TrajectoryInterference& r) {
  std::string s = "kind,cable_a,cable_b,value_m,at_row,first_row\n";
  io::CsvLine line;
  const auto opt_row = [&](long v) {
    if (v >= 0)
      line.integer(v);
    else
      line.text("");
  };
  for (std::size_t k = 0; k < r.pairs.size(); ++k) {
    line.clear();
    const double d = r.min_distance_m[static_cast<Eigen::Index>(k)];
    line.text("pair").text(cable_name(model, r.pairs[k].first)).text(cable_name(model, r.pairs[k].second));
    if (std::isnan(d))
      line.text("").text("");
    else
      line.num(d).integer(static_cast<long long>(r.min_row[k]));
    opt_row(r.first_close_row[k]);
    s += line.str() + "\n";
  }
  for (int i = 0; i < r.max_penetration_m.size(); ++i) {
    line.clear();
    line.text("platform").text(cable_name(model, i)).text("").num(r.max_penetration_m[i]).text("");
    opt_row(r.first_penetration_row[static_cast<std::size_t>(i)]);
    s += line.str() + "\n";
  }
  return s;
}

}  // namespace tendyn::cdpr
