// The motion data of the identification: its checks and its CSV file (reader and writer).
#include "tensegrity/identify_internal.hpp"

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace tendyn::tensegrity {

using namespace identify_detail;

// ------------------------------------------------------------------------------ data
void validate(const Model& model, const MotionData& d) {
  const int N = d.nsample();
  if (N < 2) throw Error("motion data: at least 2 samples are needed (have " + std::to_string(N) + ")");
  for (int s = 0; s < N; ++s) {
    if (!std::isfinite(d.t_s[static_cast<std::size_t>(s)]))
      throw Error("motion data: time of sample " + std::to_string(s) + " is not finite");
    if (s > 0 && !(d.t_s[static_cast<std::size_t>(s)] > d.t_s[static_cast<std::size_t>(s - 1)]))
      throw Error("motion data: times must increase strictly (sample " + std::to_string(s) + ")");
  }
  if (d.p_W_marker_m.rows() != N || d.p_W_marker_m.cols() != 3 * d.nmarker())
    throw Error("motion data: the marker matrix must be nsample x 3 nmarker");
  std::vector<int> seen(static_cast<std::size_t>(model.nnode()), 0);
  for (int n : d.marker_nodes) {
    if (n < 0 || n >= model.nnode()) throw Error("motion data: marker node index " + std::to_string(n) + " outside the model");
    if (model.nodes[static_cast<std::size_t>(n)].is_anchor())
      throw Error("motion data: marker on anchor '" + id_of(model.node_ids, n, "node") + "'");
    if (seen[static_cast<std::size_t>(n)]++) throw Error("motion data: node '" + id_of(model.node_ids, n, "node") + "' has two markers");
  }
  auto check_cols = [&](const std::vector<int>& cables, const Eigen::MatrixXd& M, const char* what) {
    if (M.rows() != (cables.empty() ? M.rows() : N) || M.cols() != static_cast<int>(cables.size()))
      throw Error(std::string("motion data: the ") + what + " matrix must be nsample x n" + what);
    for (int k : cables)
      if (k < 0 || k >= model.ncable())
        throw Error(std::string("motion data: ") + what + " cable index " + std::to_string(k) + " outside the model");
  };
  check_cols(d.length_cables, d.cable_length_m, "length");
  check_cols(d.tension_cables, d.cable_tension_N, "tension");
  check_cols(d.target_cables, d.winch_target_m, "target");
  check_cols(d.encoder_cables, d.winch_encoder_m, "encoder");
  auto check_winch = [&](const std::vector<int>& cables, const char* what) {
    std::vector<int> seen_cable(static_cast<std::size_t>(model.ncable()), 0);
    for (int k : cables) {
      const std::string col = id_of(model.cable_ids, k, "cable") + "_" + what + "_m";
      const int w = winch_of(model, k);
      if (w < 0) throw Error("motion data: column '" + col + "': cable '" + id_of(model.cable_ids, k, "cable") + "' has no winch");
      if (model.winches[static_cast<std::size_t>(w)].control != Winch::Control::kPosition)
        throw Error("motion data: column '" + col + "': the winch of cable '" + id_of(model.cable_ids, k, "cable") + "' is under " +
                    to_string(model.winches[static_cast<std::size_t>(w)].control) +
                    " control (target and encoder columns need position control)");
      if (seen_cable[static_cast<std::size_t>(k)]++) throw Error("motion data: column '" + col + "' is repeated");
    }
  };
  check_winch(d.target_cables, "target");
  check_winch(d.encoder_cables, "encoder");
  if (d.nmarker() == 0 && d.length_cables.empty() && d.tension_cables.empty() && d.encoder_cables.empty())
    throw Error("motion data: no marker, length, tension or encoder");
  for (int s = 0; s < N; ++s)
    for (int i = 0; i < d.nmarker(); ++i) {
      const int nn = static_cast<int>(std::isnan(d.p_W_marker_m(s, 3 * i))) + static_cast<int>(std::isnan(d.p_W_marker_m(s, 3 * i + 1))) +
                     static_cast<int>(std::isnan(d.p_W_marker_m(s, 3 * i + 2)));
      if (nn != 0 && nn != 3)
        throw Error("motion data: marker '" + id_of(model.node_ids, d.marker_nodes[static_cast<std::size_t>(i)], "node") + "' at sample " +
                    std::to_string(s) + " is partly missing");
      for (int c = 0; c < 3; ++c) {
        const double v = d.p_W_marker_m(s, 3 * i + c);
        if (std::isnan(v)) continue;
        if (!(std::abs(v) <= kMaxMotionPosition_m))
          throw Error("motion data: marker '" + id_of(model.node_ids, d.marker_nodes[static_cast<std::size_t>(i)], "node") +
                      "' at sample " + std::to_string(s) + ": " + "xyz"[c] + " = " + num(v) + " m is " +
                      (std::isinf(v) ? "not finite" : "above the limit " + num(kMaxMotionPosition_m) + " m in magnitude"));
      }
    }
  auto check_values = [&](const std::vector<int>& cables, const Eigen::MatrixXd& M, const char* what, double limit, const char* unit) {
    for (int s = 0; s < N; ++s)
      for (int i = 0; i < static_cast<int>(cables.size()); ++i) {
        const double v = M(s, i);
        if (std::isnan(v) || std::abs(v) <= limit) continue;
        throw Error(std::string("motion data: ") + what + " of cable '" +
                    id_of(model.cable_ids, cables[static_cast<std::size_t>(i)], "cable") + "' at sample " + std::to_string(s) + ": " +
                    num(v) + " " + unit + " is " +
                    (std::isinf(v) ? std::string("not finite") : "above the limit " + num(limit) + " " + unit + " in magnitude"));
      }
  };
  check_values(d.length_cables, d.cable_length_m, "length", kMaxMotionPosition_m, "m");
  check_values(d.tension_cables, d.cable_tension_N, "tension", kMaxMotionTension_N, "N");
  check_values(d.target_cables, d.winch_target_m, "target", kMaxMotionPosition_m, "m");
  check_values(d.encoder_cables, d.winch_encoder_m, "encoder", kMaxMotionPosition_m, "m");
  for (int s = 0; s < N; ++s)
    for (int i = 0; i < static_cast<int>(d.target_cables.size()); ++i)
      if (std::isnan(d.winch_target_m(s, i)))
        throw Error("motion data: column '" + id_of(model.cable_ids, d.target_cables[static_cast<std::size_t>(i)], "cable") +
                    "_target_m' at sample " + std::to_string(s) + ": a target is needed at every sample (it drives the winch)");
}

namespace {
// The rows read from a motion file (markers 3 per node, lengths, tensions; one vector per sample)
// as d's matrices (nsample x columns); at least 2 samples.
void store_rows(const std::string& path, const std::vector<std::vector<double>>& rows_m, const std::vector<std::vector<double>>& rows_l,
                const std::vector<std::vector<double>>& rows_t, const std::vector<std::vector<double>>& rows_g,
                const std::vector<std::vector<double>>& rows_e, MotionData& d) {
  const int N = static_cast<int>(d.t_s.size());
  if (N < 2) throw Error(path + ": at least 2 samples are needed (have " + std::to_string(N) + ")");
  auto store = [N](const std::vector<std::vector<double>>& rows, Eigen::MatrixXd& M) {
    M.resize(N, static_cast<int>(rows.front().size()));
    for (int s = 0; s < N; ++s)
      for (std::size_t i = 0; i < rows[static_cast<std::size_t>(s)].size(); ++i)
        M(s, static_cast<int>(i)) = rows[static_cast<std::size_t>(s)][i];
  };
  store(rows_m, d.p_W_marker_m);
  store(rows_l, d.cable_length_m);
  store(rows_t, d.cable_tension_N);
  store(rows_g, d.winch_target_m);
  store(rows_e, d.winch_encoder_m);
}
// The columns of a motion CSV's header h (after t_s, checked by the caller): markers (x, y, z
// columns per node, in node order), cable lengths, tensions, winch targets and encoders; the
// measured nodes and cables go into d. Errors name the header's column ("FILE:1:COL").
struct MotionColumns {
  std::vector<std::array<int, 3>> markers;
  std::vector<int> lengths, tensions, targets, encoders;
};
MotionColumns motion_columns(const Model& model, const std::vector<std::string>& h, const std::string& hdr, MotionData& d) {
  MotionColumns cols;
  // column positions (1-based) for error places: the header's field starts
  auto col_of = [&](int i) {
    int c = 1;
    for (int k = 0; k < i; ++k) c += static_cast<int>(h[static_cast<std::size_t>(k)].size()) + 1;
    return c;
  };
  auto herr = [&](int i, const std::string& why) {
    return Error(hdr + std::to_string(col_of(i)) + ": column '" + h[static_cast<std::size_t>(i)] + "': " + why);
  };
  std::map<int, std::array<int, 3>> marker_cols;  // node -> column of x, y, z
  std::map<int, int> len_cols, ten_cols, tgt_cols, enc_cols;
  std::map<std::string, int> names;
  for (int i = 1; i < static_cast<int>(h.size()); ++i) {
    const std::string& name = h[static_cast<std::size_t>(i)];
    if (!names.emplace(name, i).second) throw herr(i, "repeated column");
    auto ends = [&](const std::string& suf) {
      return name.size() > suf.size() && name.compare(name.size() - suf.size(), suf.size(), suf) == 0;
    };
    auto stem = [&](const std::string& suf) { return name.substr(0, name.size() - suf.size()); };
    bool done = false;
    for (int c = 0; c < 3 && !done; ++c) {
      const std::string suf = std::string("_") + "xyz"[c] + "_m";
      if (!ends(suf)) continue;
      const int node = find_id(model.node_ids, stem(suf));
      if (node < 0) throw herr(i, "no node '" + stem(suf) + "' in the model");
      if (model.nodes[static_cast<std::size_t>(node)].is_anchor())
        throw herr(i, "node '" + stem(suf) + "' is an anchor (it does not move)");
      auto it = marker_cols.try_emplace(node, std::array<int, 3>{-1, -1, -1}).first;
      it->second[static_cast<std::size_t>(c)] = i;
      done = true;
    }
    if (done) continue;
    if (ends("_length_m") || ends("_tension_N")) {
      const bool len = ends("_length_m");
      const std::string id = stem(len ? "_length_m" : "_tension_N");
      const int k = find_id(model.cable_ids, id);
      if (k < 0) throw herr(i, "no cable '" + id + "' in the model");
      (len ? len_cols : ten_cols)[k] = i;
      continue;
    }
    if (ends("_target_m") || ends("_encoder_m")) {
      const bool tgt = ends("_target_m");
      const std::string id = stem(tgt ? "_target_m" : "_encoder_m");
      const int k = find_id(model.cable_ids, id);
      if (k < 0) throw herr(i, "no cable '" + id + "' in the model");
      const int w = winch_of(model, k);
      if (w < 0) throw herr(i, "cable '" + id + "' has no winch (target and encoder columns belong to a winch's cable)");
      if (model.winches[static_cast<std::size_t>(w)].control != Winch::Control::kPosition)
        throw herr(i, "the winch of cable '" + id + "' is under " + to_string(model.winches[static_cast<std::size_t>(w)].control) +
                          " control (target and encoder columns need position control)");
      (tgt ? tgt_cols : enc_cols)[k] = i;
      continue;
    }
    throw herr(i,
               "expected <node>_x_m, <node>_y_m, <node>_z_m, <cable>_length_m, <cable>_tension_N, <cable>_target_m or <cable>_encoder_m");
  }
  for (const auto& [node, c3] : marker_cols) {
    for (int c = 0; c < 3; ++c)
      if (c3[static_cast<std::size_t>(c)] < 0) {
        const int any = c3[0] >= 0 ? c3[0] : (c3[1] >= 0 ? c3[1] : c3[2]);
        throw herr(
            any, std::string("the marker of node '") + model.node_ids[static_cast<std::size_t>(node)] + "' has no " + "xyz"[c] + " column");
      }
    d.marker_nodes.push_back(node);
    cols.markers.push_back(c3);
  }
  // marker order: node order of the model (std::map) — deterministic
  for (const auto& [k, c] : tgt_cols) {
    d.target_cables.push_back(k);
    cols.targets.push_back(c);
  }
  for (const auto& [k, c] : enc_cols) {
    d.encoder_cables.push_back(k);
    cols.encoders.push_back(c);
  }
  for (const auto& [k, c] : len_cols) {
    d.length_cables.push_back(k);
    cols.lengths.push_back(c);
  }
  for (const auto& [k, c] : ten_cols) {
    d.tension_cables.push_back(k);
    cols.tensions.push_back(c);
  }
  if (cols.markers.empty() && cols.lengths.empty() && cols.tensions.empty() && cols.encoders.empty())
    throw Error(hdr + "1: no marker, length, tension or encoder column");
  return cols;
}

}  // namespace

MotionData load_motion_csv(const Model& model, const std::string& path) {
  io::CsvReader in(path);
  const auto& h = in.header();
  const std::string hdr = path + ":1:";
  if (h.empty() || h[0] != "t_s") throw Error(hdr + "1: the first column must be 't_s'");
  MotionData d;
  const MotionColumns cols = motion_columns(model, h, hdr, d);
  const auto& mcols = cols.markers;
  const auto& lcols = cols.lengths;
  const auto& tcols = cols.tensions;
  const auto& gcols = cols.targets;
  const auto& ecols = cols.encoders;
  std::vector<std::vector<double>> rows_m, rows_l, rows_t, rows_g, rows_e;
  // a measured value, bounded in magnitude (a larger one is a unit or export error, and its
  // squared residual would overflow the solver's cost)
  auto value = [&](int col, double limit, const char* unit) {
    const double v = in.number(col);
    if (!(std::abs(v) <= limit))
      throw Error(in.where(col) + " (" + h[static_cast<std::size_t>(col)] + "): " + num(v) + " " + unit + " is above the limit " +
                  num(limit) + " " + unit + " in magnitude");
    return v;
  };
  while (in.next()) {
    const double t = in.number(0);
    if (!d.t_s.empty() && !(t > d.t_s.back()))
      throw Error(in.where(0) + " (t_s): times must increase strictly (" + num(t) + " s after " + num(d.t_s.back()) + " s)");
    d.t_s.push_back(t);
    std::vector<double> rm(3 * mcols.size(), kNaN), rl(lcols.size(), kNaN), rt(tcols.size(), kNaN), rg(gcols.size(), kNaN),
        re(ecols.size(), kNaN);
    for (std::size_t i = 0; i < mcols.size(); ++i) {
      int nempty = 0;
      for (int c = 0; c < 3; ++c) nempty += in.empty(mcols[i][static_cast<std::size_t>(c)]) ? 1 : 0;
      if (nempty == 3) continue;
      if (nempty != 0) {
        for (int c = 0; c < 3; ++c)
          if (in.empty(mcols[i][static_cast<std::size_t>(c)]))
            throw Error(in.where(mcols[i][static_cast<std::size_t>(c)]) + " (" +
                        h[static_cast<std::size_t>(mcols[i][static_cast<std::size_t>(c)])] +
                        "): a marker is missing in all three coordinates or none");
      }
      for (int c = 0; c < 3; ++c)
        rm[3 * i + static_cast<std::size_t>(c)] = value(mcols[i][static_cast<std::size_t>(c)], kMaxMotionPosition_m, "m");
    }
    for (std::size_t i = 0; i < lcols.size(); ++i)
      if (!in.empty(lcols[i])) rl[i] = value(lcols[i], kMaxMotionPosition_m, "m");
    for (std::size_t i = 0; i < tcols.size(); ++i)
      if (!in.empty(tcols[i])) rt[i] = value(tcols[i], kMaxMotionTension_N, "N");
    for (std::size_t i = 0; i < gcols.size(); ++i) {
      if (in.empty(gcols[i]))
        throw Error(in.where(gcols[i]) + " (" + h[static_cast<std::size_t>(gcols[i])] +
                    "): a target is needed at every sample (it drives the winch)");
      rg[i] = value(gcols[i], kMaxMotionPosition_m, "m");
    }
    for (std::size_t i = 0; i < ecols.size(); ++i)
      if (!in.empty(ecols[i])) re[i] = value(ecols[i], kMaxMotionPosition_m, "m");
    rows_m.push_back(std::move(rm));
    rows_l.push_back(std::move(rl));
    rows_t.push_back(std::move(rt));
    rows_g.push_back(std::move(rg));
    rows_e.push_back(std::move(re));
  }
  store_rows(path, rows_m, rows_l, rows_t, rows_g, rows_e, d);
  validate(model, d);
  return d;
}

std::string motion_csv(const Model& model, const MotionData& d) {
  validate(model, d);
  std::string out = "t_s";
  for (int n : d.marker_nodes)
    for (const char* c : {"_x_m", "_y_m", "_z_m"}) out += "," + id_of(model.node_ids, n, "n") + c;
  for (int k : d.length_cables) out += "," + id_of(model.cable_ids, k, "c") + "_length_m";
  for (int k : d.tension_cables) out += "," + id_of(model.cable_ids, k, "c") + "_tension_N";
  for (int k : d.target_cables) out += "," + id_of(model.cable_ids, k, "c") + "_target_m";
  for (int k : d.encoder_cables) out += "," + id_of(model.cable_ids, k, "c") + "_encoder_m";
  out += "\n";
  for (int s = 0; s < d.nsample(); ++s) {
    io::CsvLine line;
    line.num(d.t_s[static_cast<std::size_t>(s)]);
    auto cell = [&](double v) {
      if (std::isnan(v))
        line.text("");
      else
        line.num(v);
    };
    for (int i = 0; i < 3 * d.nmarker(); ++i) cell(d.p_W_marker_m(s, i));
    for (int i = 0; i < static_cast<int>(d.length_cables.size()); ++i) cell(d.cable_length_m(s, i));
    for (int i = 0; i < static_cast<int>(d.tension_cables.size()); ++i) cell(d.cable_tension_N(s, i));
    for (int i = 0; i < static_cast<int>(d.target_cables.size()); ++i) cell(d.winch_target_m(s, i));
    for (int i = 0; i < static_cast<int>(d.encoder_cables.size()); ++i) cell(d.winch_encoder_m(s, i));
    out += line.str();
    out += "\n";
  }
  return out;
}

}  // namespace tendyn::tensegrity
