// Parametric builders of standard tensegrity structures.
#pragma once
#include <tendyn/core/enum_names.hpp>
#include <tendyn/tensegrity/model.hpp>

#include <string>

namespace tendyn::tensegrity {

/// How make_prism places the rods initially (the topology and node names are the same for both).
enum class PrismLayout {
  /// Ours (before the authors' code was read): rod k stands at azimuth 90 deg + k 360/n deg; the
  /// point at fraction `pivot` from its bottom end lies on the circle of radius `radius_m`
  /// (default 0.12 m) at height `height_m`; the rod is turned by psi about its radial axis.
  kPivot,
  /// Document 000's authors' own construction (vkurenkov/tensegrity, configurations/n_prism.py):
  /// rod k's centre lies on the circle of radius `radius_m` (default L/8, their `Offset`) at
  /// azimuth pi/n + 2 pi k/n in the plane z = `height_m`; rod 0's axis is
  /// R_y(-psi) R_y(90 deg) e_x = (sin psi, 0, -cos psi) (their code: psi = 30 deg), rod k's is
  /// R_z(360 deg k/n) applied to rod 0's. `pivot` is not used.
  kCentred,
};
/// The names of PrismLayout (tendyn/core/enum_names.hpp).
constexpr EnumNames<PrismLayout, 2> enum_names(PrismLayout) {
  return {"prism layout", {{{PrismLayout::kPivot, "pivot"}, {PrismLayout::kCentred, "centred"}}}};
}
/// "pivot" | "centred" -> PrismLayout (any case, '-' = '_'). Throws tendyn::Error
/// "unknown prism layout '<name>' (valid: pivot, centred)" for any other text.
inline PrismLayout prism_layout_from_string(const std::string& name) { return enum_from_string<PrismLayout>(name); }
/// "pivot", "centred" (the names in model files, sweep specs and `tendyn sweep --layout`).
inline const char* to_string(PrismLayout layout) { return enum_to_string(layout); }

/// Regular n-prism (document 000's 3-prism for n = 3): n rods, a top ring, a bottom ring and n
/// side cables. Rod k (0-based) has end 0 = bottom node "b<k+1>" and end 1 = top node "t<k+1>".
/// Cables, in this order for k = 0..n-1: "top<k+1>" t_k - t_{k+1}, "bottom<k+1>" b_k - b_{k+1},
/// "side<k+1>" t_k - b_{k+1} (indices mod n). For n = 3 the cable indices 0..8 are the document's:
/// 0,3,6 top triple; 1,4,7 bottom triple; 2,5,8 side triple, and the document's node numbers
/// 1..6 are t1, t2, t3, b1, b3, b2 (so R = [[1,4],[2,6],[3,5]] holds).
///
/// Initial geometry: the document gives only the tilt angle psi ("all rods turned by psi about
/// Y", top and bottom planes parallel); `layout` chooses the rest. Velocities are zero.
/// - kPivot (ours, docs/VALIDATION.md): rod k stands at azimuth theta_k = 90 deg + k 360/n deg;
///   the point of the rod at fraction `pivot` from its bottom end lies on the horizontal circle of
///   radius `radius_m` at height `height_m`. Each rod is turned by psi from the vertical about its
///   own radial axis, right-handed: for rod 1 (on the +Y axis, theta = 90 deg) this is the
///   document's turn by psi about Y, and its top end moves clockwise seen from above, away from
///   the rod its side cable pulls it towards (the stable equilibrium is twisted the other way:
///   +150 deg). Negative psi tilts the other way.
/// - kCentred (the authors' code, ISSUE18 item 1): centre c_k = radius (cos a_k, sin a_k, 0) +
///   (0, 0, height), a_k = pi/n + 2 pi k/n; axis u_k = R_z(2 pi k/n) (sin psi, 0, -cos psi);
///   their end a = c - L/2 u (the upper end for 0 < psi < 90 deg), end b = c + L/2 u (lower).
///   psi is the angle of every rod from the vertical; psi = 30 deg is exactly their rod 0
///   (scipy `from_euler("xyz", [0,-30,0]) * from_euler("xyz", [0,90,0])` applied to e_x).
///   Mapping to our names: t<k+1> = their rod k's end a, b<k+1> = their rod k's end b. Their
///   cables for rod i are top a_i - a_{i-1}, bottom b_i - b_{i+1}, side a_i - b_{i+1}: bottom and
///   side are ours of the same index; their top cable of rod i is our "top<i>" (t_{i-1} - t_i),
///   i.e. our top cable k is their top cable of rod k+1 (mod n). The triples (cable index % 3)
///   are the same sets of cables, so the psi study's top/bottom/side triples are theirs.
/// Top and bottom planes are parallel in both layouts.
struct PrismParams {
  int n = 3;
  double rod_mass_kg = 1.0;
  double rod_length_m = 0.3;
  double rod_radius_outer_m = 0.0;  ///< 0: thin rod
  double rod_radius_inner_m = 0.0;
  double stiffness_Npm = 10.0;  ///< all cables unless the per-class values below are > 0
  double stiffness_top_Npm = -1.0, stiffness_bottom_Npm = -1.0, stiffness_side_Npm = -1.0;
  double damping_Nspm = 0.0;
  double rest_length_m = 0.2;  ///< all cables unless the per-class values below are > 0
  double rest_top_m = -1.0, rest_bottom_m = -1.0, rest_side_m = -1.0;
  double psi_rad = 0.87266462599716477;  ///< tilt from the vertical, default 50 deg
  PrismLayout layout = PrismLayout::kPivot;
  /// [m] kPivot: circle of the pivot points; kCentred: circle of the rod centres. A value < 0
  /// (the default, -1) means the layout's default (0 is refused): 0.12 m for kPivot (with pivot 0.7 it was
  /// calibrated to document 000's normal-mode range, docs/VALIDATION.md), L/8 for kCentred (the
  /// authors' `Offset` = 0.3/8 m). prism_radius_m() gives the value used.
  double radius_m = -1.0;
  double pivot = 0.7;     ///< kPivot only: 0 = bottom end on the circle, 1 = top end
  double height_m = 0.0;  ///< height of the circle [m]
  DampingLaw damping_law = DampingLaw::kAxial;
};
/// The kPivot layout's default radius [m] (radius_m < 0).
inline constexpr double kPrismPivotDefaultRadius_m = 0.12;
/// The radius make_prism uses [m]: radius_m if > 0, else the layout's default (0.12 m for kPivot,
/// rod_length_m / 8 for kCentred). Throws tendyn::Error if radius_m is 0 or NaN.
double prism_radius_m(const PrismParams& params);
/// Builds the prism. Throws tendyn::Error for n outside [3, 10000], a radius of 0 or NaN, pivot outside
/// [0, 1] (kPivot), or a model validate() refuses. Cost O(n).
Model make_prism(const PrismParams& params);

/// The regular twisted prism in stable equilibrium (oracle for tests): rods span
/// 180 deg - 180 deg / n of azimuth (150 deg for n = 3) between rings of radius `ring_radius_m`,
/// with rod length `rod_length_m` fixing the height.
Eigen::MatrixX3d prism_equilibrium_nodes(int n, double rod_length_m, double ring_radius_m);

/// The 6-bar "expanded octahedron" (SUPERball topology): three pairs of parallel rods along x, y
/// and z, 12 nodes, 24 cables each joining a node to its 4 nearest nodes on rods of the other two
/// directions. In the symmetric equilibrium the rods of a pair are L/2 apart and every cable is
/// (sqrt 6 / 4) L long; the initial state is that configuration scaled by `initial_scale` about
/// the centre along the rod-normal directions (rod lengths kept) and perturbed by
/// `perturbation_m` (deterministic pattern) so that a run has something to settle.
struct OctahedronParams {
  double rod_mass_kg = 1.0;
  double rod_length_m = 1.0;
  double rod_radius_outer_m = 0.0;
  double rod_radius_inner_m = 0.0;
  double stiffness_Npm = 100.0;
  double damping_Nspm = 0.0;
  double rest_length_m = 0.5;
  double spacing_scale = 1.0;  ///< pair spacing = spacing_scale * L/2 initially
  double perturbation_m = 0.0;
  DampingLaw damping_law = DampingLaw::kAxial;
};
Model make_expanded_octahedron(const OctahedronParams& params);

}  // namespace tendyn::tensegrity
