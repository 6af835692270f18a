// Geometry of a cable-driven parallel robot (CDPR): frame anchors, platform attachment points,
// platform pose, cable vectors, lengths, unit vectors and the structure matrix J.
//
// Source: document 002 (Marchuk, Mikhailov, Kalinin, Maloletov, 2023), eqs. (1)-(3):
//   J f = w,   J = [ u_1 ... u_n ; (R_WP p_PB_1) x u_1 ... (R_WP p_PB_n) x u_n ],
// f >= 0 the cable tensions [N], w = [F; M] the wrench [N; N m] the cables must exert on the
// platform, expressed in the world frame W, moments about the platform reference point P.
// u_i is the unit vector from the platform attachment point B_i towards the frame anchor A_i
// (a cable can only pull the platform towards its anchor).
//
// Notation (frame-explicit, as in docs/CDPR.md): p_WA anchor A in world W [m]; p_PB attachment
// point B in platform frame P [m]; p_WP, R_WP platform pose; p_WB = p_WP + R_WP p_PB.
#pragma once
#include <tendyn/core/enum_names.hpp>
#include <tendyn/cdpr/model.hpp>  // Model, Motion, make_model, validate (included for compatibility)

#include <Eigen/Core>

#include <cstdint>
#include <string>
#include <vector>

namespace tendyn::cdpr {

/// Rows of a spatial wrench, used to pick a row subset of J (e.g. the document's (Fx, Fy, Mz)
/// system (4) for the lower cables).
enum class WrenchRow : int { kFx = 0, kFy = 1, kFz = 2, kMx = 3, kMy = 4, kMz = 5 };

/// The names of WrenchRow (tendyn/core/enum_names.hpp).
constexpr EnumNames<WrenchRow, 6> enum_names(WrenchRow) {
  return {"wrench row",
          {{{WrenchRow::kFx, "fx"},
            {WrenchRow::kFy, "fy"},
            {WrenchRow::kFz, "fz"},
            {WrenchRow::kMx, "mx"},
            {WrenchRow::kMy, "my"},
            {WrenchRow::kMz, "mz"}}}};
}
/// Parses "fx", "fy", "fz", "mx", "my", "mz" (any case, '-' = '_'). Throws tendyn::Error naming the
/// accepted names otherwise.
inline WrenchRow wrench_row_from_string(const std::string& name) { return enum_from_string<WrenchRow>(name); }
/// "fx", "fy", "fz", "mx", "my", "mz".
inline const char* to_string(WrenchRow row) { return enum_to_string(row); }

/// Platform pose: position of the platform reference point P in W [m] and rotation R_WP.
struct Pose {
  Eigen::Vector3d p_WP = Eigen::Vector3d::Zero();
  Eigen::Matrix3d R_WP = Eigen::Matrix3d::Identity();
};

/// Pose from position [m] and roll-pitch-yaw [rad]: R_WP = Rz(yaw) Ry(pitch) Rx(roll).
/// Throws tendyn::Error on non-finite input.
Pose pose_from_xyz_rpy(const Eigen::Vector3d& p_WP_m, const Eigen::Vector3d& rpy_rad);
/// Planar pose (x [m], y [m], phi [rad] about world z).
Pose pose_planar(double x_m, double y_m, double phi_rad);
/// Pose from a vector: planar models take (x, y, phi), spatial (x, y, z, roll, pitch, yaw).
/// Throws tendyn::Error on a wrong length or non-finite entries.
Pose pose_from_vector(const Model& model, const Eigen::VectorXd& q);

/// Mutable geometry of one pose; allocate once with make_data(), refill with update_geometry().
struct Data {
  Eigen::Matrix3Xd p_WB;     ///< (3 x n) attachment points in world [m]
  Eigen::Matrix3Xd l_W;      ///< (3 x n) cable vectors p_WA - p_WB [m]
  Eigen::VectorXd length_m;  ///< (n) cable lengths |l_W| [m]
  Eigen::Matrix3Xd u_W;      ///< (3 x n) unit vectors l_W / length (towards the anchor)
  Eigen::MatrixXd J;         ///< (6 x n) spatial or (3 x n) planar structure matrix
};
Data make_data(const Model& model);

/// Fills data for `pose`: cable vectors, lengths, unit vectors, J (eq. (3)). Cost O(n), no
/// allocation. Throws tendyn::Error "cable <name>: zero length at pose ..." when a cable is
/// shorter than 1e-9 m (its direction is undefined) or the pose is not finite.
void update_geometry(const Model& model, const Pose& pose, Data& data);

/// Rows of a spatial structure matrix (6 x n): out = J.rows(rows). Throws on a planar J (3 rows)
/// unless all rows are in (fx, fy, mz), which are mapped to rows 0, 1, 2.
Eigen::MatrixXd select_rows(const Eigen::MatrixXd& J, const std::vector<WrenchRow>& rows);

/// Column indices of the cables whose group label equals `group`. Throws if none.
std::vector<int> cables_in_group(const Model& model, const std::string& group);

/// The gravity wrench the cables must balance at `pose`: w = -[m g; (R_WP p_PC) x m g] (spatial)
/// or -[m g_x; m g_y; ((R_WP p_PC) x m g)_z] (planar), [N; N m], moments about P.
Eigen::VectorXd gravity_compensation_wrench(const Model& model, const Pose& pose);
/// Same, into w (wrench_dim() entries; no allocation). Throws tendyn::Error on another size.
void gravity_compensation_wrench(const Model& model, const Pose& pose, Eigen::Ref<Eigen::VectorXd> w);

}  // namespace tendyn::cdpr
