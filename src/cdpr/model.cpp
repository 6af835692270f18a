// CDPR model: the checks of a robot description (model.hpp).
#include <tendyn/cdpr/model.hpp>
#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>

#include <cmath>
#include <sstream>
#include <utility>

namespace tendyn::cdpr {

namespace {
constexpr double kMinLength = 1e-9;  // [m] closer frame anchors are coincident
}  // namespace

void validate(const Model& model) {
  const std::string where = "cdpr model '" + model.name + "': ";
  const int n = model.ncable();
  if (n < 1) throw Error(where + "needs at least one cable");
  if (n > 64) throw Error(where + "at most 64 cables are supported (got " + std::to_string(n) + ")");
  if (model.p_PB.cols() != n)
    throw Error(where + std::to_string(n) + " anchors but " + std::to_string(model.p_PB.cols()) + " attachment points");
  if (!model.cable_names.empty() && static_cast<int>(model.cable_names.size()) != n)
    throw Error(where + "cable_names has " + std::to_string(model.cable_names.size()) + " entries, expected " + std::to_string(n));
  if (!model.cable_groups.empty() && static_cast<int>(model.cable_groups.size()) != n)
    throw Error(where + "cable_groups has " + std::to_string(model.cable_groups.size()) + " entries, expected " + std::to_string(n));
  auto cname = [&](int i) { return model.cable_names.empty() ? "c" + std::to_string(i + 1) : model.cable_names[i]; };
  for (int i = 0; i < n; ++i) {
    if (!model.p_WA.col(i).allFinite()) throw Error(where + "cable " + cname(i) + ": anchor is not finite");
    if (!model.p_PB.col(i).allFinite()) throw Error(where + "cable " + cname(i) + ": attachment point is not finite");
    if (model.motion == Motion::kPlanar && (model.p_WA(2, i) != 0.0 || model.p_PB(2, i) != 0.0))
      throw Error(where + "cable " + cname(i) + ": planar model needs z = 0");
  }
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if ((model.p_WA.col(i) - model.p_WA.col(j)).norm() < kMinLength)
        throw Error(where + "cables " + cname(i) + " and " + cname(j) + ": coincident frame anchors at " + format_point(model.p_WA.col(i)));
  if (!(model.f_min_N >= 0.0) || !std::isfinite(model.f_min_N)) throw Error(where + "tension min must be finite and >= 0");
  if (!(model.f_max_N > model.f_min_N)) throw Error(where + "tension max must be > min");
  if (!(model.platform_mass_kg >= 0.0) || !std::isfinite(model.platform_mass_kg))
    throw Error(where + "platform mass must be finite and >= 0");
  if (!model.gravity_W.allFinite()) throw Error(where + "gravity is not finite");
  if (!model.p_PC.allFinite()) throw Error(where + "platform centre of mass is not finite");
}

void validate_model(const Model& model) { validate(model); }

Model make_model(std::string name, Motion motion, Eigen::Matrix3Xd p_WA, Eigen::Matrix3Xd p_PB, std::vector<std::string> cable_names,
                 std::vector<std::string> cable_groups) {
  Model m;
  m.name = std::move(name);
  m.motion = motion;
  m.p_WA = std::move(p_WA);
  m.p_PB = std::move(p_PB);
  m.cable_names = std::move(cable_names);
  m.cable_groups = std::move(cable_groups);
  if (m.cable_names.empty())
    for (int i = 0; i < m.ncable(); ++i) m.cable_names.push_back("c" + std::to_string(i + 1));
  if (m.cable_groups.empty()) m.cable_groups.assign(static_cast<std::size_t>(m.ncable()), "");
  if (motion == Motion::kPlanar) m.gravity_W = Eigen::Vector3d(0.0, -9.81, 0.0);
  validate(m);
  return m;
}

}  // namespace tendyn::cdpr
