// Mass properties of a rigid body built from parts (a rod's tube, end-caps, motor housings),
// computed as MuJoCo's compiler computes geoms (its XML reference: `size` per type, `mass` or
// `density`): solid sphere, cylinder, box, ellipsoid, a capsule as a cylinder plus two
// hemispheres whose centres of mass sit 3r/8 beyond the cylinder's faces; plus the shapes MuJoCo
// has no geom for: a tube (hollow cylinder, document 001 eq. 2-14), a thin cylinder (a line mass)
// and a point mass. Used by the MJCF importer and by `parts:` in model files.
// Units: kg, m, kg/m^3, kg m^2.
#pragma once
#include <Eigen/Core>
#include <Eigen/Geometry>

#include <vector>

namespace tendyn::tensegrity {

/// Shapes of a mass part. Sizes (`size` below, MuJoCo's conventions, half-lengths):
///   kSphere (r), kCapsule (r, half-length of the cylinder), kCylinder (r, half-length),
///   kBox (three half-extents), kEllipsoid (three radii), kTube (outer r, half-length, inner r),
///   kThinCylinder (unused, half-length), kPoint (none). Axis of revolution: the shape frame's z.
enum class PartShape { kSphere, kCapsule, kCylinder, kBox, kEllipsoid, kTube, kThinCylinder, kPoint };

/// One part: mass, centre of mass and inertia tensor about it, the last two in one frame (the
/// world at the initial pose, for model files and the importer).
struct MassPart {
  double mass_kg = 0.0;
  Eigen::Vector3d com_m = Eigen::Vector3d::Zero();
  Eigen::Matrix3d inertia_kgm2 = Eigen::Matrix3d::Zero();  ///< about com_m
};

/// Volume [m^3] of a shape (0 for kThinCylinder and kPoint, which need a mass).
double part_volume(PartShape shape, const Eigen::Vector3d& size);

/// Principal moments about the shape's centre in the shape frame [kg m^2] for mass `mass_kg`
/// (spread uniformly over the volume; for kThinCylinder over the length; 0 for kPoint).
Eigen::Vector3d part_principal_inertia(PartShape shape, const Eigen::Vector3d& size, double mass_kg);

/// The part of shape `shape`, mass `mass_kg`, centred at `centre_m` with its frame rotated by
/// `R` (shape axes into the common frame). O(1).
MassPart make_part(PartShape shape, const Eigen::Vector3d& size, double mass_kg, const Eigen::Vector3d& centre_m,
                   const Eigen::Matrix3d& R = Eigen::Matrix3d::Identity());

/// Total mass, centre of mass and inertia about it of the parts (parallel-axis theorem:
/// I = sum I_i + m_i (|d_i|^2 1 - d_i d_i^T), d_i = c_i - c). A total mass <= 0 gives mass 0 and
/// zero centre and tensor (the caller reports it). O(nparts).
MassPart combine_parts(const std::vector<MassPart>& parts);

}  // namespace tendyn::tensegrity
