// Builds a DART 6 skeleton equivalent to a tree::Model (1-DOF and fixed joints only), for the
// cross-check test and the benchmarks. DART's URDF loader (dart-utils-urdf) is not packaged
// with libdart-dev, so the skeleton is built through DART's API from the same parsed model:
// what is cross-checked is the dynamics, not the file parser.
#pragma once
#include <tendyn/tree/model.hpp>

#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/PrismaticJoint.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/WeldJoint.hpp>

#include <vector>

namespace tendyn::tree::testing {

inline dart::dynamics::SkeletonPtr to_dart(const Model& m) {
  using namespace dart::dynamics;
  SkeletonPtr skel = Skeleton::create(m.name);
  std::vector<BodyNode*> bodies(m.nlinks(), nullptr);
  for (int i = 0; i < m.nlinks(); ++i) {
    const Joint& j = m.joints[i];
    BodyNode* parent = m.parent[i] >= 0 ? bodies[m.parent[i]] : nullptr;
    Eigen::Isometry3d T = Eigen::Isometry3d::Identity();
    T.linear() = j.R_PJ;
    T.translation() = j.p_PJ_m;
    BodyNode::Properties bp;
    bp.mName = m.links[i].name;
    bp.mInertia = dart::dynamics::Inertia(m.links[i].mass_kg, m.links[i].p_LC_m, m.links[i].inertia_C_kgm2);
    switch (j.type) {
      case JointType::kRevolute: {
        RevoluteJoint::Properties jp;
        jp.mName = j.name;
        jp.mAxis = j.axis;
        jp.mT_ParentBodyToJoint = T;
        bodies[i] = skel->createJointAndBodyNodePair<RevoluteJoint>(parent, jp, bp).second;
        break;
      }
      case JointType::kPrismatic: {
        PrismaticJoint::Properties jp;
        jp.mName = j.name;
        jp.mAxis = j.axis;
        jp.mT_ParentBodyToJoint = T;
        bodies[i] = skel->createJointAndBodyNodePair<PrismaticJoint>(parent, jp, bp).second;
        break;
      }
      case JointType::kFixed: {
        WeldJoint::Properties jp;
        jp.mName = j.name;
        jp.mT_ParentBodyToJoint = T;
        bodies[i] = skel->createJointAndBodyNodePair<WeldJoint>(parent, jp, bp).second;
        break;
      }
      case JointType::kFree: {
        // DART's FreeJoint: 6 coordinates (exponential coordinates of the rotation, then the
        // translation) and a body-frame spatial velocity, where tendyn has a unit quaternion (7
        // coordinates). The same body and inertia, so the same amount of dynamics; the
        // coordinates differ, which is why only the benchmarks use this mapping (with their own
        // DART states) and the cross-check test keeps BaseMode::kFictitious.
        FreeJoint::Properties jp;
        jp.mName = j.name;
        jp.mT_ParentBodyToJoint = T;
        bodies[i] = skel->createJointAndBodyNodePair<FreeJoint>(parent, jp, bp).second;
        break;
      }
    }
  }
  skel->setGravity(m.gravity_W);
  return skel;
}

/// DART orders generalized coordinates by body creation, which follows our link order; check it
/// (for a free base, tendyn's six velocity coordinates map to DART's six).
inline bool same_dof_order(const Model& m, const dart::dynamics::SkeletonPtr& s) {
  if (static_cast<int>(s->getNumDofs()) != m.nv) return false;
  for (int k = 0; k < m.nv; ++k)
    if (s->getDof(k)->getJoint()->getName() != m.joints[m.v_to_link[k]].name) return false;
  return true;
}

}  // namespace tendyn::tree::testing
