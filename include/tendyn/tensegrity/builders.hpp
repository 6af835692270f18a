// Parametric builders of standard tensegrity structures.
#pragma once
#include <tendyn/tensegrity/model.hpp>

namespace tendyn::tensegrity {

/// Regular n-prism (document 000's 3-prism for n = 3): n rods, a top ring, a bottom ring and n
/// side cables. Rod k (0-based) has end 0 = bottom node "b<k+1>" and end 1 = top node "t<k+1>".
/// Cables, in this order for k = 0..n-1: "top<k+1>" t_k - t_{k+1}, "bottom<k+1>" b_k - b_{k+1},
/// "side<k+1>" t_k - b_{k+1} (indices mod n). For n = 3 the cable indices 0..8 are the document's:
/// 0,3,6 top triple; 1,4,7 bottom triple; 2,5,8 side triple, and the document's node numbers
/// 1..6 are t1, t2, t3, b1, b3, b2 (so R = [[1,4],[2,6],[3,5]] holds).
///
/// Initial geometry (the document gives only the tilt angle psi; the rest is ours, documented in
/// docs/VALIDATION.md): rod k stands at azimuth theta_k = 90 deg + k 360/n deg; the point of the
/// rod at fraction `pivot` from its bottom end lies on the horizontal circle of radius `radius_m`
/// at height `height_m`. Each rod is turned by psi from the vertical about its own radial axis,
/// right-handed: for rod 1 (on the +Y axis, theta = 90 deg) this is the document's turn by psi
/// about Y, and its top end moves clockwise seen from above, away from the rod its side cable
/// pulls it towards (the stable equilibrium is twisted the other way: +150 deg). Negative psi
/// tilts the other way. Top and bottom planes are parallel. Velocities are zero.
struct PrismParams {
  int n = 3;
  double rod_mass_kg = 1.0;
  double rod_length_m = 0.3;
  double rod_radius_outer_m = 0.0;  ///< 0: thin rod
  double rod_radius_inner_m = 0.0;
  double stiffness_Npm = 10.0;      ///< all cables unless the per-class values below are > 0
  double stiffness_top_Npm = -1.0, stiffness_bottom_Npm = -1.0, stiffness_side_Npm = -1.0;
  double damping_Nspm = 0.0;
  double rest_length_m = 0.2;       ///< all cables unless the per-class values below are > 0
  double rest_top_m = -1.0, rest_bottom_m = -1.0, rest_side_m = -1.0;
  double psi_rad = 0.87266462599716477;  ///< tilt, default 50 deg
  /// Defaults of radius and pivot reproduce document 000's normal-mode range (docs/VALIDATION.md).
  double radius_m = 0.12;
  double pivot = 0.7;               ///< 0 = bottom end on the circle, 1 = top end
  double height_m = 0.0;
  DampingLaw damping_law = DampingLaw::kAxial;
};
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
  double spacing_scale = 1.0;     ///< pair spacing = spacing_scale * L/2 initially
  double perturbation_m = 0.0;
  DampingLaw damping_law = DampingLaw::kAxial;
};
Model make_expanded_octahedron(const OctahedronParams& params);

}  // namespace tendyn::tensegrity
