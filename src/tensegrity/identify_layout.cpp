// The fitted parameters of the identification: the --fit list and the layout of theta (which
// physical value each fitted number replaces). See identify_internal.hpp.
#include "tensegrity/identify_internal.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

namespace identify_detail {

Layout make_layout(const Model& m, const std::vector<ParameterGroup>& groups) {
  Layout L;
  L.k_idx.assign(static_cast<std::size_t>(m.ncable()), -1);
  L.c_idx = L.k_idx;
  L.l0_idx = L.k_idx;
  L.mass_idx.assign(static_cast<std::size_t>(m.nrod()), -1);
  L.winch_idx.assign(static_cast<std::size_t>(kWinchSlots * m.nwinch()), -1);
  for (const auto& g : groups) {
    if (g.kind == ParameterKind::kInitialState) {
      if (L.fit_initial) throw Error("fit: initial_state is selected twice");
      L.fit_initial = true;
      continue;
    }
    const int idx = L.nparam++;
    L.groups.push_back(g);
    std::vector<int>* target = nullptr;
    int nmax = m.ncable();
    switch (g.kind) {
      case ParameterKind::kStiffness: target = &L.k_idx; break;
      case ParameterKind::kDamping: target = &L.c_idx; break;
      case ParameterKind::kRestLength: target = &L.l0_idx; break;
      case ParameterKind::kMass:
        target = &L.mass_idx;
        nmax = m.nrod();
        break;
      case ParameterKind::kFriction: L.mu_idx = idx; break;
      case ParameterKind::kGroundStiffness: L.gk_idx = idx; break;
      case ParameterKind::kGroundDamping: L.gc_idx = idx; break;
      case ParameterKind::kInitialState: break;
      case ParameterKind::kWinchCoulombFriction:
      case ParameterKind::kWinchViscousFriction:
      case ParameterKind::kWinchNoLoadSpeed:
      case ParameterKind::kWinchKp:
      case ParameterKind::kWinchKi:
      case ParameterKind::kWinchKd: break;
    }
    if (const int slot = winch_slot(g.kind); slot >= 0) {
      if (m.winches.empty()) throw Error("fit: '" + g.name + "' is a winch parameter and model '" + m.name + "' has no winch");
      if (g.elements.empty()) throw Error("fit: '" + g.name + "' has no element");
      for (int e : g.elements) {
        if (e < 0 || e >= m.ncable()) throw Error("fit: '" + g.name + "' names element " + std::to_string(e) + " outside the model");
        const int w = winch_of(m, e);
        if (w < 0)
          throw Error("fit: '" + g.name + "': cable '" + id_of(m.cable_ids, e, "cable") + "' has no winch (winches on: " + [&] {
            std::string list;
            for (const Winch& wi : m.winches) list += (list.empty() ? "" : ", ") + id_of(m.cable_ids, wi.cable, "cable");
            return list;
          }() + ")");
        int& ws = L.winch_idx[static_cast<std::size_t>(kWinchSlots * w + slot)];
        if (ws >= 0)
          throw Error("fit: '" + g.name + "' fits an element already fitted by '" + L.groups[static_cast<std::size_t>(ws)].name + "'");
        ws = idx;
      }
      continue;
    }
    if (is_ground_kind(g.kind)) {
      if (m.ground.type != Ground::Type::kCompliant)
        throw Error("fit: '" + g.name + "' needs a compliant ground (the model's ground is " + to_string(m.ground.type) + ")");
      if (!g.elements.empty()) throw Error("fit: '" + g.name + "' takes no elements");
      continue;
    }
    if (g.elements.empty()) throw Error("fit: '" + g.name + "' has no element");
    for (int e : g.elements) {
      if (e < 0 || e >= nmax) throw Error("fit: '" + g.name + "' names element " + std::to_string(e) + " outside the model");
      int& slot = (*target)[static_cast<std::size_t>(e)];
      if (slot >= 0)
        throw Error("fit: '" + g.name + "' fits an element already fitted by '" + L.groups[static_cast<std::size_t>(slot)].name + "'");
      slot = idx;
    }
  }
  if (L.nparam == 0 && !L.fit_initial) throw Error("fit: no parameter selected");
  // the same ground parameter twice
  int nmu = 0, ngk = 0, ngc = 0;
  for (const auto& g : L.groups) {
    nmu += g.kind == ParameterKind::kFriction;
    ngk += g.kind == ParameterKind::kGroundStiffness;
    ngc += g.kind == ParameterKind::kGroundDamping;
  }
  if (nmu > 1 || ngk > 1 || ngc > 1) throw Error("fit: a ground parameter is selected twice");
  return L;
}

double nominal_value(const Model& m, const ParameterGroup& g) {
  double s = 0.0;
  for (int e : g.elements) {
    const auto i = static_cast<std::size_t>(e);
    switch (g.kind) {
      case ParameterKind::kStiffness: s += m.cables[i].stiffness_Npm; break;
      case ParameterKind::kDamping: s += m.cables[i].damping_Nspm; break;
      case ParameterKind::kRestLength: s += m.cables[i].rest_length_m; break;
      case ParameterKind::kMass: s += m.rods[i].mass_kg; break;
      default:
        if (const int slot = winch_slot(g.kind); slot >= 0) {
          const int w = winch_of(m, e);
          if (w >= 0) s += winch_value(m.winches[static_cast<std::size_t>(w)], slot);
        }
        break;
    }
  }
  switch (g.kind) {
    case ParameterKind::kFriction: return m.ground.friction;
    case ParameterKind::kGroundStiffness: return m.ground.stiffness_Npm;
    case ParameterKind::kGroundDamping: return m.ground.damping_Nspm;
    default: return s / static_cast<double>(g.elements.size());
  }
}

void params_from_state(const State& st, int rod, double* s) {
  const double* x = st.x.data() + State::kStride * rod;
  double e[3];
  Eigen::Vector4d q(x[3], x[4], x[5], x[6]);
  q.normalize();
  law::rod_axis(q.data(), e);
  for (int c = 0; c < 3; ++c) {
    s[c] = x[c];
    s[3 + c] = e[c];
    s[6 + c] = x[7 + c];
    s[9 + c] = x[10 + c];
  }
}

void apply_theta(const Layout& L, const double* theta, Model& m) {
  for (int i = 0; i < L.nparam; ++i) {
    const ParameterGroup& g = L.groups[static_cast<std::size_t>(i)];
    const double v = theta[i];
    for (int e : g.elements) {
      const auto u = static_cast<std::size_t>(e);
      switch (g.kind) {
        case ParameterKind::kStiffness: m.cables[u].stiffness_Npm = v; break;
        case ParameterKind::kDamping: m.cables[u].damping_Nspm = v; break;
        case ParameterKind::kRestLength: m.cables[u].rest_length_m = v; break;
        case ParameterKind::kMass: {
          Rod& r = m.rods[u];
          r.inertia_transverse_kgm2 *= v / r.mass_kg;
          r.inertia_axial_kgm2 *= v / r.mass_kg;
          r.mass_kg = v;
          break;
        }
        default:
          if (const int slot = winch_slot(g.kind); slot >= 0) {
            const int w = winch_of(m, e);
            if (w >= 0) winch_value(m.winches[static_cast<std::size_t>(w)], slot) = v;
          }
          break;
      }
    }
    if (g.kind == ParameterKind::kFriction) m.ground.friction = v;
    if (g.kind == ParameterKind::kGroundStiffness) m.ground.stiffness_Npm = v;
    if (g.kind == ParameterKind::kGroundDamping) m.ground.damping_Nspm = v;
  }
}

}  // namespace identify_detail

using namespace identify_detail;

// ------------------------------------------------------------------------------ fit spec
std::vector<ParameterGroup> parse_fit_spec(const Model& model, const std::string& spec) {
  const auto items = io::split_fields(spec, ',');
  if (items.empty()) throw Error("--fit: empty list (e.g. stiffness:all,damping:all,friction)");
  std::vector<ParameterGroup> out;
  for (std::size_t n = 0; n < items.size(); ++n) {
    const std::string& item = items[n];
    const std::string where = "--fit: item " + std::to_string(n + 1) + " '" + item + "'";
    if (item.empty()) throw Error("--fit: item " + std::to_string(n + 1) + " is empty");
    const auto colon = item.find(':');
    const std::string kname = item.substr(0, colon);
    ParameterKind kind;
    try {
      kind = parameter_kind_from_string(kname);
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    const bool has_sel = colon != std::string::npos;
    const std::string sel = has_sel ? item.substr(colon + 1) : std::string();
    if (is_ground_kind(kind) || kind == ParameterKind::kInitialState) {
      if (has_sel) throw Error(where + ": '" + kname + "' takes no selection");
      if (is_ground_kind(kind) && model.ground.type != Ground::Type::kCompliant)
        throw Error(where + ": needs a compliant ground (the model's ground is " + to_string(model.ground.type) + ")");
      out.push_back({kind, {}, kname});
      continue;
    }
    const bool rods = kind == ParameterKind::kMass;
    const bool winch = winch_slot(kind) >= 0;
    const auto& ids = rods ? model.rod_ids : model.cable_ids;
    const int count = rods ? model.nrod() : model.ncable();
    if (winch && model.winches.empty()) throw Error(where + ": a winch parameter, and model '" + model.name + "' has no winch");
    if (has_sel && sel.empty()) throw Error(where + ": empty selection after ':' (all, an id, or ids joined by '+')");
    if (!has_sel || sel == "all") {
      for (int e = 0; e < count; ++e)
        if (!winch || winch_of(model, e) >= 0) out.push_back({kind, {e}, kname + ":" + id_of(ids, e, rods ? "rod" : "cable")});
      continue;
    }
    ParameterGroup g{kind, {}, item};
    // ids joined by '+', where an id may contain '+' itself (the 6-bar builder's rod_x+): from
    // left to right, the longest id of the model that ends at a '+' or at the end of the selection
    std::size_t pos = 0;
    for (;;) {
      int e = -1;
      std::size_t len = 0;
      for (std::size_t k = 0; k < ids.size(); ++k) {
        const std::string& cand = ids[k];
        if (cand.size() <= len || sel.compare(pos, cand.size(), cand) != 0) continue;
        if (pos + cand.size() != sel.size() && sel[pos + cand.size()] != '+') continue;
        e = static_cast<int>(k);
        len = cand.size();
      }
      if (e < 0) {
        const std::size_t plus = sel.find('+', pos);
        const std::string id = sel.substr(pos, plus == std::string::npos ? std::string::npos : plus - pos);
        if (id.empty()) throw Error(where + ": empty id in '" + sel + "'");
        throw Error(where + ": no " + std::string(rods ? "rod" : "cable") + " '" + id + "' in the model");
      }
      const std::string& id = ids[static_cast<std::size_t>(e)];
      if (std::find(g.elements.begin(), g.elements.end(), e) != g.elements.end()) throw Error(where + ": '" + id + "' is listed twice");
      g.elements.push_back(e);
      pos += len;
      if (pos == sel.size()) break;
      ++pos;  // the '+'
      if (pos == sel.size()) throw Error(where + ": empty id in '" + sel + "'");
    }
    out.push_back(std::move(g));
  }
  // an element or a ground parameter fitted twice: the layout's checks, with the --fit prefix
  try {
    (void)make_layout(model, out);
  } catch (const Error& e) {
    throw Error(std::string("--") + e.what());
  }
  return out;
}

}  // namespace tendyn::tensegrity
