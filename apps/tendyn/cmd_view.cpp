// tendyn view RESULT_DIR: the self-contained 3D viewer page of a result directory's scene.json.
// tendyn plot RESULT_DIR: report figures (PNG/SVG) of the same data, drawn by matplotlib.
#include <tendyn/core/error.hpp>
#include <tendyn/viz/scene.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_util.hpp"
#include "commands.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {

/// RESULT_DIR/scene.json, or the file itself when `input` is a file.
std::filesystem::path scene_path(const std::string& input) {
  const std::filesystem::path p(input);
  if (std::filesystem::is_directory(p)) {
    if (!std::filesystem::exists(p / "scene.json"))
      throw Error(input + ": no scene.json here (commands that write a result directory write it; re-run with a current tendyn)");
    return p / "scene.json";
  }
  if (!std::filesystem::exists(p)) throw Error(input + ": no such file or directory");
  return p;
}

struct ViewArgs {
  std::vector<std::string> inputs;
  std::string out;
  bool quiet = false;
  double max_page_mb = kDefaultMaxPageMb;
};

/// Several runs in one page: the first run's scene with the others in its member "compare"
/// (docs/VIEWER.md "Comparing runs"), each thinned to its share of the page limit.
void run_compare(const ViewArgs& a) {
  std::vector<std::filesystem::path> srcs;
  std::vector<std::string> texts, titles, sources;
  for (const auto& in : a.inputs) {
    srcs.push_back(scene_path(in));
    sources.push_back(srcs.back().string());
    texts.push_back(read_file_bytes(srcs.back()));
    std::string t = viz::check_scene_json(texts.back(), srcs.back().string());
    titles.push_back(t.empty() ? srcs.back().parent_path().filename().string() : t);
  }
  std::string title = titles[0];
  for (std::size_t i = 1; i < titles.size(); ++i) title += " vs " + titles[i];
  const std::filesystem::path out = (a.out.empty() ? srcs[0].parent_path() : std::filesystem::path(a.out)) / "compare.html";
  if (!a.out.empty()) ensure_directory(a.out);
  std::vector<int> strides;
  const auto bytes = write_compare_page(out, texts, sources, title, a.max_page_mb, &strides);
  if (!a.quiet) {
    std::printf("wrote %s (%.2f MB; %zu runs: A = %s", out.string().c_str(), bytes / 1e6, texts.size(), srcs[0].string().c_str());
    for (std::size_t i = 1; i < srcs.size(); ++i) std::printf(", %c = %s", static_cast<char>('A' + i), srcs[i].string().c_str());
    std::printf(")\n");
    for (std::size_t i = 0; i < strides.size(); ++i)
      if (strides[i] > 1)
        std::printf("  %c: every %d-th frame kept (--max-page-mb %g)\n", static_cast<char>('A' + i), strides[i], a.max_page_mb);
  }
}

void run_view(const ViewArgs& a) {
  require_viewer();
  if (a.inputs.size() > 1) {
    run_compare(a);
    return;
  }
  const auto src = scene_path(a.inputs.at(0));
  const std::string text = read_file_bytes(src);
  std::string title = viz::check_scene_json(text, src.string());
  if (title.empty()) title = src.parent_path().filename().string();
  const std::filesystem::path out = (a.out.empty() ? src.parent_path() : std::filesystem::path(a.out)) / "view.html";
  if (!a.out.empty()) ensure_directory(a.out);
  int stride = 1, plot_bucket = 1;
  const auto bytes = write_viewer_page(out, text, title, a.max_page_mb, &stride, &plot_bucket);
  if (!a.quiet) {
    std::printf("wrote %s (%.2f MB; open it in a browser, it works offline)\n", out.string().c_str(), bytes / 1e6);
    if (stride > 1)
      std::printf("  %s; all frames: %s\n", thinning_note(stride, plot_bucket, 0, a.max_page_mb).c_str(), src.string().c_str());
  }
}

struct PlotArgs {
  std::string input, out, format = "png";
  bool quiet = false;
};

void run_plot(const PlotArgs& a) {
  const auto src = scene_path(a.input);
  viz::check_scene_json(read_file_bytes(src), src.string());
  const std::filesystem::path out = a.out.empty() ? src.parent_path() / "plots" : std::filesystem::path(a.out);
  if (a.format != "png" && a.format != "svg" && a.format != "png,svg" && a.format != "svg,png")
    throw Error("plot: --format must be png, svg or png,svg");
  ensure_directory(out);
  const std::string python = shell_quote(python_interpreter());
  const std::string cmd = python + " " + shell_quote(data_file("scripts/plot_scene.py").string()) + " " + shell_quote(src.string()) + " " +
                          shell_quote(out.string()) + " --format " + shell_quote(a.format) + (a.quiet ? " --quiet" : "");
  const int rc = std::system(cmd.c_str());
  if (rc != 0)
    throw Error("plot: scripts/plot_scene.py failed (exit " + std::to_string(rc) +
                "); it needs Debian's python3-matplotlib and python3-numpy (scripts/install-deps.sh test)");
}

}  // namespace

void register_view(CLI::App& app) {
  auto a = std::make_shared<ViewArgs>();
  auto* cmd =
      app.add_subcommand("view", "Write the self-contained 3D viewer page (HTML) of a result directory, or of several runs compared");
  cmd->add_option("result", a->inputs,
                  "result directory (with scene.json) or a scene.json file; several: one page comparing them (compare.html: the "
                  "first run drawn, the others as ghosts, every series of all runs plotted, their differences to the first)")
      ->required()
      ->check(existing_path());
  cmd->add_option("-o,--out", a->out, "output directory of view.html / compare.html (default: the (first) result directory)");
  cmd->add_flag("-q,--quiet", a->quiet, "no report");
  cmd->add_option("--max-page-mb", a->max_page_mb,
                  "largest page [MB]: longer runs keep every k-th frame for the 3D view, the plots every row packed or the min/max of "
                  "every k rows (default 10)")
      ->check(positive());
  cmd->callback([a] { run_view(*a); });

  auto p = std::make_shared<PlotArgs>();
  auto* plot = app.add_subcommand("plot", "Report figures (PNG/SVG) of a result directory: cable tension and strain, energies, COM");
  plot->add_option("result", p->input, "result directory (with scene.json) or a scene.json file")->required()->check(existing_path());
  plot->add_option("-o,--out", p->out, "output directory (default: RESULT_DIR/plots)");
  plot->add_option("--format", p->format, "png | svg | png,svg");
  plot->add_flag("-q,--quiet", p->quiet, "no report");
  plot->callback([p] { run_plot(*p); });
}

}  // namespace tendyn::cli
