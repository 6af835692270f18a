// Tree-structured multibody model (document 003, Kovalchuk, Kulakov, Semenov 2008).
//
// A mechanism is a directed tree: links are vertices, joints are edges, the root is the world
// (inertial frame W). Link i is attached to its parent link parent[i] (or to the world, -1) by
// joint i. Links are numbered so that parent[i] < i (depth-first pre-order), which makes the
// reachability matrix D lower triangular (document 003, D: d_ij = 1 iff link i is reachable from
// link j, i.e. j is i or an ancestor of i).
//
// Frames (URDF convention): joint i has a fixed placement X_PJ in its parent frame P (rotation
// R_PJ, translation p_PJ [m]); the link frame L_i is the joint frame moved by the joint
// coordinate: rotation by q about the unit axis (revolute), translation by q along it
// (prismatic), nothing (fixed), or an arbitrary pose (free: q = (p_PL [m], unit quaternion
// w,x,y,z), velocity (w_L [rad/s], v_L [m/s]) = body-frame angular velocity and velocity of the
// link origin, both in L). Mass properties are given in the link frame: mass [kg], centre of
// mass p_LC [m], rotational inertia about the COM I_C [kg m^2]. SI units throughout.
//
// The Model is immutable once built (ModelBuilder::build). It also holds the constants the
// recursive algorithms derive from the links and joints (link inertias, fixed clusters, the CRBA
// link list), computed once by finalize(); all scratch lives in tree::Data.
#pragma once
#include <tendyn/core/enum_names.hpp>

#include <Eigen/Core>
#include <Eigen/Geometry>

#include <string>
#include <vector>

namespace tendyn::tree {

using Vector6d = Eigen::Matrix<double, 6, 1>;
using Matrix6d = Eigen::Matrix<double, 6, 6>;

/// Rigid transform: x_A = R x_B + p (frame B expressed in frame A).
struct SE3 {
  Eigen::Matrix3d R = Eigen::Matrix3d::Identity();
  Eigen::Vector3d p = Eigen::Vector3d::Zero();
};

/// Rigid-body inertia about a frame origin: mass m [kg], first moment h = m p_C [kg m],
/// rotational inertia about the origin I_O [kg m^2].
struct Inertia {
  double m = 0.0;
  Eigen::Vector3d h = Eigen::Vector3d::Zero();
  Eigen::Matrix3d I = Eigen::Matrix3d::Zero();
};

/// The part a link plays in rnea and aba when they run without external wrenches, where each
/// fixed cluster (a link and the links attached below it through fixed joints only) is one body.
enum class MergeKind : signed char {
  /// The link carries its cluster's inertia (Model::I_cluster): a link on a moving joint, or on a
  /// fixed joint to the world with something moving below it.
  kCarrier,
  /// On a fixed joint below another link: its inertia is in that link's cluster; it only passes
  /// on the forces of the moving links below it.
  kCarried,
  /// Nothing moving depends on its force terms (on a fixed joint with only fixed joints below it,
  /// or fixed to the world through fixed joints only): they are skipped.
  kSkipped,
};

/// Kind of joint between a link and its parent. The document's fictitious 6-joint floating base
/// has no type of its own: ModelBuilder::add_floating6 (YAML type `floating6`, BaseMode::kFictitious)
/// adds it as ordinary joints marked Joint::fictitious: prismatic along x, y, z of the frame placed
/// by R_PJ, p_PJ_m, then revolute about z, y, x of each joint's own frame (yaw, pitch, roll); five
/// massless links + the body.
enum class JointType { kFixed, kRevolute, kPrismatic, kFree };

/// The names of JointType (tendyn/core/enum_names.hpp), aliases after the name.
constexpr EnumNames<JointType, 6> enum_names(JointType) {
  return {"joint type",
          {{{JointType::kFixed, "fixed"},
            {JointType::kRevolute, "revolute"},
            {JointType::kRevolute, "continuous"},
            {JointType::kPrismatic, "prismatic"},
            {JointType::kFree, "free"},
            {JointType::kFree, "floating"}}}};
}
/// "fixed", "revolute", "prismatic", "free".
[[nodiscard]] inline const char* to_string(JointType type) { return enum_to_string(type); }
/// The inverse of to_string(JointType), also accepting the URDF names "continuous" (= revolute)
/// and "floating" (= free); any case, '-' = '_'. Throws tendyn::Error "unknown joint type
/// '<name>' (valid: fixed, revolute (also continuous), ...)" listing the accepted names for any other text.
[[nodiscard]] inline JointType joint_type_from_string(const std::string& name) { return enum_from_string<JointType>(name); }

struct Joint {
  std::string name;
  JointType type = JointType::kFixed;
  Eigen::Vector3d axis = Eigen::Vector3d::UnitZ();     ///< unit axis in the joint frame
  Eigen::Matrix3d R_PJ = Eigen::Matrix3d::Identity();  ///< joint frame in parent frame
  Eigen::Vector3d p_PJ_m = Eigen::Vector3d::Zero();    ///< joint frame origin in parent frame [m]
  int nq = 0, nv = 0;                                  ///< 0 fixed, 1 revolute/prismatic, 7/6 free
  int idx_q = 0, idx_v = 0;                            ///< first coordinate in q and in v
  bool fictitious = false;                             ///< part of a fictitious floating-base chain (document 003)
};

struct Link {
  std::string name;
  double mass_kg = 0.0;                                      ///< [kg]
  Eigen::Vector3d p_LC_m = Eigen::Vector3d::Zero();          ///< centre of mass, link frame [m]
  Eigen::Matrix3d inertia_C_kgm2 = Eigen::Matrix3d::Zero();  ///< about the COM, link axes [kg m^2]
};

class Model {
 public:
  std::string name;
  std::vector<Link> links;                     ///< (nlinks)
  std::vector<Joint> joints;                   ///< (nlinks) joint i attaches link i to parent[i]
  std::vector<int> parent;                     ///< (nlinks) parent link index or -1 for the world
  std::vector<std::vector<int>> children;      ///< (nlinks)
  Eigen::MatrixXi reachability;                ///< D (nlinks x nlinks), d_ij = 1 iff j is i or an ancestor of i
  std::vector<int> v_to_link;                  ///< (nv) link owning each velocity coordinate
  Eigen::Vector3d gravity_W{0.0, 0.0, -9.81};  ///< g_W [m/s^2]
  int nq = 0, nv = 0;

  // Constants derived from links, joints and parent by finalize() (ModelBuilder::build calls it);
  // the recursive algorithms read them. Edit links or joints by hand, then call finalize() again:
  // validate() rejects a model whose constants do not match its links and joints.

  /// (nlinks) link inertia about the link origin, link axes (parallel axis from p_LC_m and
  /// inertia_C_kgm2).
  std::vector<Inertia> I_L;
  /// (nlinks) inertia of link i together with every link attached below it through fixed joints
  /// only (its fixed cluster), about link i's origin in link i's axes. Entries of links that are
  /// themselves on a fixed joint below another link are not used.
  std::vector<Inertia> I_cluster;
  /// Links whose composite inertia the CRBA forms, in increasing order: every link with a moving
  /// joint (the links on fixed joints are merged into them through I_cluster, as Pinocchio's URDF
  /// parser merges them into bodies).
  std::vector<int> crba_links;
  /// (nlinks) for a link in crba_links, the link in crba_links whose composite inertia receives its
  /// own (its nearest ancestor with a moving joint), -1 for none.
  std::vector<int> crba_parent;
  /// (nlinks) for a link in crba_links, its joint frame in the frame of crba_parent (in world when
  /// crba_parent is -1): the fixed placements between them composed.
  std::vector<SE3> X_CJ;
  /// (nlinks) the part each link plays in rnea and aba without external wrenches (MergeKind).
  std::vector<MergeKind> merge_kind;
  /// (nv) previous velocity coordinate on the path to the root (Featherstone's lambda over
  /// coordinates: the preceding coordinate of the same joint, else the last coordinate of the
  /// nearest moving ancestor), -1 for none.
  std::vector<int> v_parent;

  [[nodiscard]] int nlinks() const { return static_cast<int>(links.size()); }
  /// Total mass [kg].
  [[nodiscard]] double total_mass() const;
  /// Index of the link called `name`; throws tendyn::Error if absent.
  [[nodiscard]] int link_index(const std::string& name) const;
  /// True if every joint is fixed, revolute or prismatic (needed by the block-matrix form).
  [[nodiscard]] bool one_dof_joints_only() const;
  /// Neutral configuration: zeros, identity quaternions for free joints.
  [[nodiscard]] Eigen::VectorXd neutral() const;
  /// Random configuration (joint angles uniform in [-pi, pi], prismatic in [-0.5, 0.5] m, free:
  /// position in [-1,1]^3 and a uniformly random unit quaternion) from a seeded generator.
  [[nodiscard]] Eigen::VectorXd random_configuration(unsigned seed) const;
  /// Checks the sizes of q (nq) / v (nv); throws tendyn::Error naming `what`.
  void check_q(const Eigen::VectorXd& q, const char* what = "q") const;
  void check_v(const Eigen::VectorXd& v, const char* what = "v") const;
};

/// Most links in one model. The model stores the reachability matrix (nlinks^2 ints, 64 MiB at
/// the limit) and tree::Data the mass matrix (nv^2 doubles); larger trees ended in bad_alloc.
/// ModelBuilder::build and the model readers reject more links with tendyn::Error.
constexpr int kMaxLinks = 4096;

/// Checks every invariant the algorithms rely on; throws tendyn::Error naming the model, the link
/// or joint and the reason. Structure: 1..kMaxLinks links; links, joints, parent, children and
/// reachability sized nlinks; parent[i] in [-1, i); children the inverse of parent (in index
/// order); reachability == reachability_from_parents(parent); joint nq/nv/idx_q/idx_v consistent
/// with the joint types (nq, nv the totals; v_to_link sized nv). Names: link names non-empty,
/// unique and not "world"; joint names non-empty and unique. Physics: gravity finite; mass finite
/// and >= 0, p_LC_m and inertia_C_kgm2 finite, the inertia symmetric positive semidefinite with
/// the triangle inequality; R_PJ orthonormal, p_PJ_m and axis finite, unit axes on revolute and
/// prismatic joints; every joint with nv > 0 moves a subtree with mass or inertia (else the mass
/// matrix is singular). ModelBuilder::build calls it; call it after editing a Model by hand
/// (e.g. its gravity). The derived constants (I_L .. v_parent) must equal what finalize() computes
/// from the links and joints, bit for bit ("derived constants are stale: call tree::finalize").
/// Cost O(nlinks^2) (the reachability comparison).
void validate(const Model& model);

/// Checks the model as validate() does, except the derived constants, then computes them (I_L,
/// I_cluster, crba_links, crba_parent, X_CJ, merge_kind, v_parent). ModelBuilder::build calls it;
/// call it after editing a model's links or joints by hand. Throws tendyn::Error as validate().
/// Cost O(nlinks^2) (the checks), O(nlinks + nv) the constants.
void finalize(Model& model);

/// Builds a model from links given in any order (parents by name). Checks: unique names, parents
/// exist, no cycles, at most kMaxLinks links (checked before anything is allocated), then numbers
/// the links and runs validate() on the result.
class ModelBuilder {
 public:
  explicit ModelBuilder(std::string name = "tree") : name_(std::move(name)) {}
  /// Adds link `link` attached to `parent` ("" or "world" = the world) by `joint` (idx fields are
  /// filled by build()). A fictitious 6-joint floating base: add_floating6.
  void add_link(const Link& link, const std::string& parent, const Joint& joint);
  /// Adds a floating body as the document's fictitious chain: links <name>_fict_{px,py,pz,rz,ry}
  /// (massless) and the body itself on the last revolute joint (about x).
  void add_floating6(const Link& link, const std::string& parent, const Eigen::Matrix3d& R_PJ, const Eigen::Vector3d& p_PJ_m);
  /// Gravity g_W [m/s^2] of the built model (default (0, 0, -9.81)).
  void set_gravity(const Eigen::Vector3d& gravity_W) { gravity_ = gravity_W; }
  /// Numbers links depth-first (pre-order, children in insertion order), validates and computes the
  /// derived constants (finalize()).
  [[nodiscard]] Model build() const;

 private:
  struct Entry {
    Link link;
    std::string parent;
    Joint joint;
  };
  std::string name_;
  std::vector<Entry> entries_;
  Eigen::Vector3d gravity_{0.0, 0.0, -9.81};
};

/// How to model a floating base when loading: as written in the file, as the document's
/// fictitious 6-joint chain, or as a free joint with a unit quaternion.
enum class BaseMode { kAsWritten, kFictitious, kFree };
/// The names of BaseMode (tendyn/core/enum_names.hpp).
constexpr EnumNames<BaseMode, 3> enum_names(BaseMode) {
  return {"base mode", {{{BaseMode::kAsWritten, "as-written"}, {BaseMode::kFictitious, "fictitious"}, {BaseMode::kFree, "free"}}}};
}
/// "as-written", "fictitious", "free" (the CLI's --base values).
[[nodiscard]] inline const char* to_string(BaseMode mode) { return enum_to_string(mode); }
/// The inverse of to_string(BaseMode) (any case, '-' = '_'). Throws tendyn::Error "unknown base mode
/// '<name>' (valid: as-written, fictitious, free)".
[[nodiscard]] inline BaseMode base_mode_from_string(const std::string& name) { return enum_from_string<BaseMode>(name); }

/// Returns a copy of `m` in which every free joint is replaced by the fictitious 6-joint chain
/// (kFictitious) or every fictitious chain by a free joint (kFree).
[[nodiscard]] Model convert_base(const Model& m, BaseMode mode);

/// Reachability matrix from a parent array (parent[i] < i or -1). Cost O(n^2).
[[nodiscard]] Eigen::MatrixXi reachability_from_parents(const std::vector<int>& parent);
/// Parent array from a reachability matrix. Throws tendyn::Error if D is not the reachability
/// matrix of a tree numbered parent-before-child: not square, an entry not 0/1, a diagonal entry
/// not 1, an entry above the diagonal, or a row whose ancestors do not form a chain
/// (row i must equal e_i + row parent(i), parent(i) = the largest j < i with d_ij = 1).
[[nodiscard]] std::vector<int> parents_from_reachability(const Eigen::MatrixXi& D);

/// Rotation from roll-pitch-yaw (URDF: R = Rz(yaw) Ry(pitch) Rx(roll)).
[[nodiscard]] Eigen::Matrix3d rpy_to_matrix(const Eigen::Vector3d& rpy);

}  // namespace tendyn::tree
