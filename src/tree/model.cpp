#include <tendyn/core/error.hpp>
#include <tendyn/tree/model.hpp>

#include <Eigen/Eigenvalues>

#include <cmath>
#include <utility>
#include <map>
#include <numbers>
#include <random>
#include <set>

#include "spatial.hpp"

namespace tendyn::tree {

double Model::total_mass() const {
  double m = 0.0;
  for (const auto& l : links) m += l.mass_kg;
  return m;
}

int Model::link_index(const std::string& n) const {
  for (int i = 0; i < nlinks(); ++i)
    if (links[i].name == n) return i;
  throw Error("tree model '" + name + "': no link named '" + n + "'");
}

bool Model::one_dof_joints_only() const {
  for (const auto& j : joints)
    if (j.type == JointType::kFree) return false;
  return true;
}

Eigen::VectorXd Model::neutral() const {
  Eigen::VectorXd q = Eigen::VectorXd::Zero(nq);
  for (const auto& j : joints)
    if (j.type == JointType::kFree) q[j.idx_q + 3] = 1.0;
  return q;
}

Eigen::VectorXd Model::random_configuration(unsigned seed) const {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> ang(-std::numbers::pi, std::numbers::pi);
  std::uniform_real_distribution<double> lin(-0.5, 0.5);
  std::normal_distribution<double> gauss(0.0, 1.0);
  Eigen::VectorXd q(nq);
  for (const auto& j : joints) {
    switch (j.type) {
      case JointType::kFixed: break;
      case JointType::kRevolute: q[j.idx_q] = ang(rng); break;
      case JointType::kPrismatic: q[j.idx_q] = lin(rng); break;
      case JointType::kFree: {
        for (int k = 0; k < 3; ++k) q[j.idx_q + k] = 2.0 * lin(rng);
        Eigen::Vector4d w(gauss(rng), gauss(rng), gauss(rng), gauss(rng));
        w.normalize();
        q.segment<4>(j.idx_q + 3) = w;
        break;
      }
    }
  }
  return q;
}

void Model::check_q(const Eigen::VectorXd& q, const char* what) const {
  if (q.size() != nq)
    throw Error(std::string("tree: ") + what + " has size " + std::to_string(q.size()) + ", model '" + name +
                "' needs nq = " + std::to_string(nq));
}
void Model::check_v(const Eigen::VectorXd& v, const char* what) const {
  if (v.size() != nv)
    throw Error(std::string("tree: ") + what + " has size " + std::to_string(v.size()) + ", model '" + name +
                "' needs nv = " + std::to_string(nv));
}

Eigen::Matrix3d rpy_to_matrix(const Eigen::Vector3d& rpy) {
  return (Eigen::AngleAxisd(rpy.z(), Eigen::Vector3d::UnitZ()) * Eigen::AngleAxisd(rpy.y(), Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(rpy.x(), Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

void ModelBuilder::add_link(const Link& link, const std::string& parent, const Joint& joint) {
  entries_.push_back({link, parent == "world" ? std::string() : parent, joint});
}

void ModelBuilder::add_floating6(const Link& link, const std::string& parent, const Eigen::Matrix3d& R_PJ, const Eigen::Vector3d& p_PJ) {
  static const char* suffix[5] = {"px", "py", "pz", "rz", "ry"};
  const Eigen::Vector3d axes[6] = {Eigen::Vector3d::UnitX(), Eigen::Vector3d::UnitY(), Eigen::Vector3d::UnitZ(),
                                   Eigen::Vector3d::UnitZ(), Eigen::Vector3d::UnitY(), Eigen::Vector3d::UnitX()};
  std::string prev = parent;
  for (int k = 0; k < 6; ++k) {
    Joint j;
    j.type = k < 3 ? JointType::kPrismatic : JointType::kRevolute;
    j.axis = axes[k];
    j.fictitious = true;
    if (k == 0) {
      j.R_PJ = R_PJ;
      j.p_PJ_m = p_PJ;
    }
    Link l;
    if (k < 5) {
      l.name = link.name + "_fict_" + suffix[k];
      j.name = l.name;
    } else {
      l = link;
      j.name = link.name + "_fict_rx";
    }
    add_link(l, prev, j);
    prev = l.name;
  }
}

namespace {

void validate_link(const Model& m, int i) {
  const Link& l = m.links[i];
  const std::string where = "tree model '" + m.name + "': link '" + l.name + "': ";
  if (!std::isfinite(l.mass_kg) || l.mass_kg < 0.0) throw Error(where + "mass must be finite and >= 0");
  if (!l.p_LC_m.allFinite()) throw Error(where + "centre of mass must be finite");
  if (!l.inertia_C_kgm2.allFinite()) throw Error(where + "inertia must be finite");
  if ((l.inertia_C_kgm2 - l.inertia_C_kgm2.transpose()).cwiseAbs().maxCoeff() > 1e-12 * (1.0 + l.inertia_C_kgm2.norm()))
    throw Error(where + "inertia must be symmetric");
  Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> es(l.inertia_C_kgm2);
  const Eigen::Vector3d& ev = es.eigenvalues();
  const double tol = 1e-12 * (1.0 + ev.cwiseAbs().maxCoeff());
  if (ev.minCoeff() < -tol) throw Error(where + "inertia must be positive semidefinite");
  if (ev[0] + ev[1] < ev[2] - tol) throw Error(where + "principal moments violate the triangle inequality (Ia + Ib >= Ic)");
  const Joint& j = m.joints[i];
  const std::string jw = "tree model '" + m.name + "': joint '" + j.name + "': ";
  if (!j.R_PJ.allFinite() || !j.p_PJ_m.allFinite() || !j.axis.allFinite()) throw Error(jw + "origin and axis must be finite");
  if ((j.R_PJ.transpose() * j.R_PJ - Eigen::Matrix3d::Identity()).norm() > 1e-9) throw Error(jw + "origin rotation is not orthonormal");
  if ((j.type == JointType::kRevolute || j.type == JointType::kPrismatic) && std::abs(j.axis.norm() - 1.0) > 1e-9)
    throw Error(jw + "axis must be a unit vector (got norm " + std::to_string(j.axis.norm()) + ")");
}

}  // namespace

namespace {

// The constant placement of joint j in its parent frame.
SE3 placement(const Joint& j) {
  SE3 X;
  X.R = j.R_PJ;
  X.p = j.p_PJ_m;
  return X;
}

// The derived constants of a structurally valid model (parent[i] < i, sizes consistent), written
// into `out` (which may be `m` itself: only the derived members are written).
void compute_derived(const Model& m, Model& out) {
  const auto n = static_cast<std::size_t>(m.nlinks());
  using detail::compose;
  std::vector<Inertia> I_L(n);
  for (std::size_t i = 0; i < n; ++i) {
    const Link& l = m.links[i];
    Inertia& I = I_L[i];
    I.m = l.mass_kg;
    I.h = l.mass_kg * l.p_LC_m;
    I.I = l.inertia_C_kgm2 - l.mass_kg * detail::skew(l.p_LC_m) * detail::skew(l.p_LC_m);
  }
  std::vector<int> v_parent(static_cast<std::size_t>(m.nv), -1);
  std::vector<int> last_v(n, -1);  // last velocity coordinate on the path root..i (i included)
  for (std::size_t i = 0; i < n; ++i) {
    const Joint& j = m.joints[i];
    const int p = m.parent[i];
    int prev = p >= 0 ? last_v[static_cast<std::size_t>(p)] : -1;
    for (int k = 0; k < j.nv; ++k) {
      v_parent[static_cast<std::size_t>(j.idx_v + k)] = prev;
      prev = j.idx_v + k;
    }
    last_v[i] = prev;
  }
  // Fixed clusters. carrier[i]: the link whose frame carries link i's inertia (i itself unless i
  // is on a fixed joint below another link); X_CL[i]: link i's frame in its carrier's frame
  // (constant: a product of fixed joint placements). A link is static when every joint from it to
  // the world is fixed (X_CL is then relative to the static root, whose frame is its placement).
  std::vector<Inertia> I_cluster = I_L;
  std::vector<int> crba_links;
  std::vector<int> crba_parent(n, -1);
  std::vector<SE3> X_CJ(n, SE3{});
  std::vector<MergeKind> merge_kind(n, MergeKind::kCarrier);
  std::vector<int> carrier(n);
  std::vector<SE3> X_CL(n);
  std::vector<char> is_static(n, 0), moving_below(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const Joint& j = m.joints[i];
    const int p = m.parent[i];
    const auto pp = static_cast<std::size_t>(p);
    const bool fixed = j.type == JointType::kFixed;
    is_static[i] = fixed && (p < 0 || is_static[pp]) ? 1 : 0;
    if (fixed && p >= 0) {
      carrier[i] = carrier[pp];
      compose(X_CL[pp], placement(j), X_CL[i]);
      detail::add_to(I_cluster[static_cast<std::size_t>(carrier[i])], detail::inertia_to_parent(X_CL[i], I_L[i]));
      continue;
    }
    carrier[i] = static_cast<int>(i);
    if (is_static[i]) continue;
    crba_links.push_back(static_cast<int>(i));
    if (p < 0) {
      X_CJ[i] = placement(j);
    } else if (is_static[pp]) {  // placement in world: the static root's placement, then the chain
      SE3 X_WP;
      compose(placement(m.joints[static_cast<std::size_t>(carrier[pp])]), X_CL[pp], X_WP);
      compose(X_WP, placement(j), X_CJ[i]);
    } else {
      crba_parent[i] = carrier[pp];
      compose(X_CL[pp], placement(j), X_CJ[i]);
    }
  }
  for (std::size_t i = n; i-- > 0;) {
    const int p = m.parent[i];
    if (p >= 0 && (m.joints[i].nv > 0 || moving_below[i])) moving_below[static_cast<std::size_t>(p)] = 1;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (is_static[i] || (carrier[i] != static_cast<int>(i) && !moving_below[i]))
      merge_kind[i] = MergeKind::kSkipped;
    else if (carrier[i] != static_cast<int>(i))
      merge_kind[i] = MergeKind::kCarried;
  out.I_L = std::move(I_L);
  out.I_cluster = std::move(I_cluster);
  out.crba_links = std::move(crba_links);
  out.crba_parent = std::move(crba_parent);
  out.X_CJ = std::move(X_CJ);
  out.merge_kind = std::move(merge_kind);
  out.v_parent = std::move(v_parent);
}

bool same(const Inertia& a, const Inertia& b) { return a.m == b.m && a.h == b.h && a.I == b.I; }
bool same(const SE3& a, const SE3& b) { return a.R == b.R && a.p == b.p; }
template <class T>
bool same(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

// The name of the first derived constant of `m` that differs from its recomputation, or nullptr.
const char* stale_constant(const Model& m) {
  Model fresh;
  compute_derived(m, fresh);
  if (!same(m.I_L, fresh.I_L)) return "I_L";
  if (!same(m.I_cluster, fresh.I_cluster)) return "I_cluster";
  if (m.crba_links != fresh.crba_links) return "crba_links";
  if (m.crba_parent != fresh.crba_parent) return "crba_parent";
  if (!same(m.X_CJ, fresh.X_CJ)) return "X_CJ";
  if (m.merge_kind != fresh.merge_kind) return "merge_kind";
  if (m.v_parent != fresh.v_parent) return "v_parent";
  return nullptr;
}

// Every check of validate() except the derived constants.
void validate_definition(const Model& m) {
  const std::string where = "tree model '" + m.name + "': ";
  const int n = m.nlinks();
  if (n == 0) throw Error(where + "no links");
  if (n > kMaxLinks) throw Error(where + std::to_string(n) + " links, more than the limit of " + std::to_string(kMaxLinks));
  const auto sz = static_cast<std::size_t>(n);
  if (m.joints.size() != sz || m.parent.size() != sz || m.children.size() != sz || m.reachability.rows() != n || m.reachability.cols() != n)
    throw Error(where + "joints, parent, children and reachability must be sized nlinks = " + std::to_string(n));
  std::set<std::string> link_names, joint_names;
  std::vector<std::vector<int>> kids(sz);
  int iq = 0, iv = 0;
  for (int i = 0; i < n; ++i) {
    const Link& l = m.links[i];
    const Joint& j = m.joints[i];
    if (l.name.empty()) throw Error(where + "link " + std::to_string(i) + " has no name");
    if (l.name == "world") throw Error(where + "'world' is reserved for the root");
    if (!link_names.insert(l.name).second) throw Error(where + "duplicate link name '" + l.name + "'");
    if (j.name.empty()) throw Error(where + "link '" + l.name + "': its joint has no name");
    if (!joint_names.insert(j.name).second) throw Error(where + "duplicate joint name '" + j.name + "'");
    if (m.parent[i] < -1 || m.parent[i] >= i)
      throw Error(where + "link '" + l.name + "': parent " + std::to_string(m.parent[i]) + " must be -1 or < " + std::to_string(i) +
                  " (parents numbered before children)");
    if (m.parent[i] >= 0) kids[m.parent[i]].push_back(i);
    const int nq = j.type == JointType::kFree ? 7 : (j.type == JointType::kFixed ? 0 : 1);
    const int nv = j.type == JointType::kFree ? 6 : nq;
    if (j.nq != nq || j.nv != nv || j.idx_q != iq || j.idx_v != iv)
      throw Error(where + "joint '" + j.name + "': coordinates (nq " + std::to_string(j.nq) + ", nv " + std::to_string(j.nv) + ", idx_q " +
                  std::to_string(j.idx_q) + ", idx_v " + std::to_string(j.idx_v) + ") do not match its type " + to_string(j.type) +
                  " and its position (expected " + std::to_string(nq) + ", " + std::to_string(nv) + ", " + std::to_string(iq) + ", " +
                  std::to_string(iv) + ")");
    iq += nq;
    iv += nv;
  }
  if (m.nq != iq || m.nv != iv)
    throw Error(where + "nq = " + std::to_string(m.nq) + ", nv = " + std::to_string(m.nv) + " do not match the joints (" +
                std::to_string(iq) + ", " + std::to_string(iv) + ")");
  if (m.v_to_link.size() != static_cast<std::size_t>(iv)) throw Error(where + "v_to_link must be sized nv");
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < m.joints[i].nv; ++k)
      if (m.v_to_link[static_cast<std::size_t>(m.joints[i].idx_v + k)] != i) throw Error(where + "v_to_link does not match the joints");
  if (kids != m.children) throw Error(where + "children do not match parent");
  if (m.reachability != reachability_from_parents(m.parent)) throw Error(where + "reachability matrix does not match parent");
  if (!m.gravity_W.allFinite()) throw Error(where + "gravity must be finite");
  for (int i = 0; i < n; ++i) validate_link(m, i);
  // Every movable joint must carry a subtree with mass, or M is singular.
  std::vector<double> isub(sz, 0.0);
  for (int i = n - 1; i >= 0; --i) {
    isub[i] += m.links[i].inertia_C_kgm2.trace() + m.links[i].mass_kg;
    if (m.parent[i] >= 0) isub[m.parent[i]] += isub[i];
  }
  for (int i = 0; i < n; ++i)
    if (m.joints[i].nv > 0 && !(isub[i] > 0.0))
      throw Error(where + "joint '" + m.joints[i].name + "' moves a massless subtree (singular mass matrix)");
}

}  // namespace

void validate(const Model& m) {
  validate_definition(m);
  if (const char* name = stale_constant(m))
    throw Error("tree model '" + m.name + "': derived constant " + name +
                " does not match the links and joints (edited by hand?): call tree::finalize(model)");
}

void finalize(Model& m) {
  validate_definition(m);
  compute_derived(m, m);
}

Model ModelBuilder::build() const {
  if (entries_.empty()) throw Error("tree model '" + name_ + "': no links");
  if (entries_.size() > static_cast<std::size_t>(kMaxLinks))
    throw Error("tree model '" + name_ + "': " + std::to_string(entries_.size()) + " links, more than the limit of " +
                std::to_string(kMaxLinks) + " (the reachability matrix and the mass matrix grow with the square)");
  std::map<std::string, int> by_name;
  for (int k = 0; k < static_cast<int>(entries_.size()); ++k) {
    const auto& e = entries_[k];
    if (e.link.name.empty()) throw Error("tree model '" + name_ + "': a link has no name");
    if (e.link.name == "world") throw Error("tree model '" + name_ + "': 'world' is reserved for the root");
    if (!by_name.emplace(e.link.name, k).second) throw Error("tree model '" + name_ + "': duplicate link name '" + e.link.name + "'");
  }
  std::set<std::string> joint_names;
  for (const auto& e : entries_)
    if (!e.joint.name.empty() && !joint_names.insert(e.joint.name).second)
      throw Error("tree model '" + name_ + "': duplicate joint name '" + e.joint.name + "'");
  std::vector<std::vector<int>> kids(entries_.size());
  std::vector<int> roots;
  for (int k = 0; k < static_cast<int>(entries_.size()); ++k) {
    const auto& e = entries_[k];
    if (e.parent.empty()) {
      roots.push_back(k);
      continue;
    }
    auto it = by_name.find(e.parent);
    if (it == by_name.end())
      throw Error("tree model '" + name_ + "': link '" + e.link.name + "': parent '" + e.parent + "' does not exist");
    kids[it->second].push_back(k);
  }
  // Depth-first pre-order numbering: parent before child, subtrees contiguous. Iterative (an
  // explicit stack; children pushed in reverse so the first child is numbered first).
  std::vector<int> order;
  std::vector<int> new_parent;
  std::vector<std::pair<int, int>> stack;  // (entry, new index of its parent)
  for (auto r = roots.rbegin(); r != roots.rend(); ++r) stack.emplace_back(*r, -1);
  while (!stack.empty()) {
    const auto [k, p] = stack.back();
    stack.pop_back();
    const int id = static_cast<int>(order.size());
    order.push_back(k);
    new_parent.push_back(p);
    for (auto c = kids[k].rbegin(); c != kids[k].rend(); ++c) stack.emplace_back(*c, id);
  }
  if (order.size() != entries_.size()) {
    std::vector<bool> seen(entries_.size(), false);
    for (int k : order) seen[k] = true;
    for (std::size_t k = 0; k < entries_.size(); ++k)
      if (!seen[k])
        throw Error("tree model '" + name_ + "': link '" + entries_[k].link.name +
                    "' is on a closed loop (not reachable from the world): not a tree");
  }
  Model m;
  m.name = name_;
  m.gravity_W = gravity_;
  const int n = static_cast<int>(order.size());
  m.links.resize(n);
  m.joints.resize(n);
  m.parent = new_parent;
  m.children.assign(n, {});
  int iq = 0, iv = 0;
  for (int i = 0; i < n; ++i) {
    const auto& e = entries_[order[i]];
    m.links[i] = e.link;
    Joint j = e.joint;
    if (j.name.empty()) j.name = e.link.name + "_joint";
    switch (j.type) {
      case JointType::kFixed: j.nq = j.nv = 0; break;
      case JointType::kRevolute:
      case JointType::kPrismatic: j.nq = j.nv = 1; break;
      case JointType::kFree:
        j.nq = 7;
        j.nv = 6;
        break;
    }
    j.idx_q = iq;
    j.idx_v = iv;
    iq += j.nq;
    iv += j.nv;
    for (int k = 0; k < j.nv; ++k) m.v_to_link.push_back(i);
    m.joints[i] = j;
    if (m.parent[i] >= 0) m.children[m.parent[i]].push_back(i);
  }
  m.nq = iq;
  m.nv = iv;
  m.reachability = reachability_from_parents(m.parent);
  finalize(m);
  return m;
}

Eigen::MatrixXi reachability_from_parents(const std::vector<int>& parent) {
  const int n = static_cast<int>(parent.size());
  Eigen::MatrixXi D = Eigen::MatrixXi::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    if (parent[i] >= i || parent[i] < -1)
      throw Error("tree: parent[" + std::to_string(i) + "] = " + std::to_string(parent[i]) + " must be -1 or < " + std::to_string(i));
    if (parent[i] >= 0) D.row(i) = D.row(parent[i]);
    D(i, i) = 1;
  }
  return D;
}

std::vector<int> parents_from_reachability(const Eigen::MatrixXi& D) {
  if (D.rows() != D.cols())
    throw Error("tree: reachability matrix must be square (got " + std::to_string(D.rows()) + "x" + std::to_string(D.cols()) + ")");
  const int n = static_cast<int>(D.rows());
  std::vector<int> parent(n, -1);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int d = D(i, j);
      const std::string at =
          "tree: reachability matrix D(" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ") = " + std::to_string(d) + ": ";
      if (d != 0 && d != 1) throw Error(at + "entries must be 0 or 1");
      if (i == j && d != 1) throw Error(at + "diagonal entries must be 1 (a link reaches itself)");
      if (j > i && d != 0) throw Error(at + "must be lower triangular (number every parent before its children)");
    }
    int p = -1;
    for (int j = i - 1; j >= 0; --j)
      if (D(i, j) == 1) {
        p = j;
        break;
      }
    parent[i] = p;
    for (int j = 0; j < i; ++j) {
      const int expect = p >= 0 ? D(p, j) : 0;
      if (D(i, j) != expect)
        throw Error("tree: reachability matrix row " + std::to_string(i + 1) + " is not a tree's: link " + std::to_string(i + 1) +
                    (expect ? " must" : " must not") + " be reachable from link " + std::to_string(j + 1) + " (its parent would be link " +
                    (p >= 0 ? std::to_string(p + 1) : std::string("world")) + ", whose ancestors are not a chain)");
    }
  }
  return parent;
}

Model convert_base(const Model& m, BaseMode mode) {
  if (mode == BaseMode::kAsWritten) return m;
  ModelBuilder b(m.name);
  b.set_gravity(m.gravity_W);
  const int n = m.nlinks();
  auto parent_name = [&](int i) { return m.parent[i] >= 0 ? m.links[m.parent[i]].name : std::string(); };
  for (int i = 0; i < n; ++i) {
    const Joint& j = m.joints[i];
    if (mode == BaseMode::kFictitious && j.type == JointType::kFree) {
      b.add_floating6(m.links[i], parent_name(i), j.R_PJ, j.p_PJ_m);
    } else if (mode == BaseMode::kFree && j.fictitious) {
      // Keep only the body (the 6th link of the chain); its placement is the chain root's.
      bool last = true;
      for (int c : m.children[i])
        if (m.joints[c].fictitious) last = false;
      if (!last) continue;
      int root = i;
      for (int k = 0; k < 5; ++k) {
        root = m.parent[root];
        if (root < 0 || !m.joints[root].fictitious)
          throw Error("tree: convert_base: fictitious chain of link '" + m.links[i].name + "' is not 6 joints long");
      }
      Joint f;
      f.name = m.links[i].name + "_free";
      f.type = JointType::kFree;
      f.R_PJ = m.joints[root].R_PJ;
      f.p_PJ_m = m.joints[root].p_PJ_m;
      b.add_link(m.links[i], parent_name(root), f);
    } else {
      std::string pn = parent_name(i);
      b.add_link(m.links[i], pn, j);
    }
  }
  return b.build();
}

}  // namespace tendyn::tree
