#include <tendyn/tensegrity/mass_parts.hpp>

namespace tendyn::tensegrity {

namespace {
constexpr double kPi = 3.14159265358979323846;
}  // namespace

double part_volume(PartShape shape, const Eigen::Vector3d& size) {
  const double r = size[0], h = 2 * size[1];
  switch (shape) {
    case PartShape::kSphere: return 4.0 / 3.0 * kPi * r * r * r;
    case PartShape::kCapsule: return kPi * r * r * h + 4.0 / 3.0 * kPi * r * r * r;
    case PartShape::kCylinder: return kPi * r * r * h;
    case PartShape::kBox: return 8.0 * size[0] * size[1] * size[2];
    case PartShape::kEllipsoid: return 4.0 / 3.0 * kPi * size[0] * size[1] * size[2];
    case PartShape::kTube: return kPi * (r * r - size[2] * size[2]) * h;
    case PartShape::kThinCylinder:
    case PartShape::kPoint: return 0.0;
  }
  return 0.0;
}

Eigen::Vector3d part_principal_inertia(PartShape shape, const Eigen::Vector3d& size, double m) {
  const double r = size[0], h = 2 * size[1];
  switch (shape) {
    case PartShape::kSphere: return Eigen::Vector3d::Constant(0.4 * m * r * r);
    case PartShape::kCapsule: {
      const double rho = m / part_volume(shape, size);
      const double mc = rho * kPi * r * r * h, ms = rho * 4.0 / 3.0 * kPi * r * r * r;
      const double t = mc * (h * h / 12.0 + r * r / 4.0) + ms * (0.4 * r * r + h * h / 4.0 + 3.0 * h * r / 8.0);
      return {t, t, mc * r * r / 2.0 + ms * 0.4 * r * r};
    }
    case PartShape::kCylinder: {
      const double t = m * (h * h / 12.0 + r * r / 4.0);
      return {t, t, m * r * r / 2.0};
    }
    case PartShape::kBox: {
      const double a = size[0], b = size[1], c = size[2];
      return {m * (b * b + c * c) / 3.0, m * (a * a + c * c) / 3.0, m * (a * a + b * b) / 3.0};
    }
    case PartShape::kEllipsoid: {
      const double a = size[0], b = size[1], c = size[2];
      return {m * (b * b + c * c) / 5.0, m * (a * a + c * c) / 5.0, m * (a * a + b * b) / 5.0};
    }
    case PartShape::kTube: {
      const double s = r * r + size[2] * size[2];
      const double t = m * (3.0 * s + h * h) / 12.0;
      return {t, t, m * s / 2.0};
    }
    case PartShape::kThinCylinder: {
      const double t = m * h * h / 12.0;
      return {t, t, 0.0};
    }
    case PartShape::kPoint: return Eigen::Vector3d::Zero();
  }
  return Eigen::Vector3d::Zero();
}

MassPart make_part(PartShape shape, const Eigen::Vector3d& size, double mass_kg, const Eigen::Vector3d& centre_m,
                   const Eigen::Matrix3d& R) {
  const Eigen::Vector3d Id = part_principal_inertia(shape, size, mass_kg);
  return {mass_kg, centre_m, R * Id.asDiagonal() * R.transpose()};
}

MassPart combine_parts(const std::vector<MassPart>& parts) {
  MassPart out;
  for (const auto& p : parts) out.mass_kg += p.mass_kg, out.com_m += p.mass_kg * p.com_m;
  if (!(out.mass_kg > 0.0)) return MassPart{};
  out.com_m /= out.mass_kg;
  for (const auto& p : parts) {
    const Eigen::Vector3d d = p.com_m - out.com_m;
    out.inertia_kgm2 += p.inertia_kgm2 + p.mass_kg * (d.squaredNorm() * Eigen::Matrix3d::Identity() - d * d.transpose());
  }
  return out;
}

}  // namespace tendyn::tensegrity
