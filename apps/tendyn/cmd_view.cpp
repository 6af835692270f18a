// tendyn view RESULT_DIR: the self-contained 3D viewer page of a result directory's scene.json.
// tendyn plot RESULT_DIR: report figures (PNG/SVG) of the same data, drawn by matplotlib.
#include <tendyn/core/error.hpp>
#include <tendyn/viz/scene.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

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

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(p.string() + ": cannot read");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct ViewArgs {
  std::string input, out;
  bool quiet = false;
};

void run_view(const ViewArgs& a) {
  require_viewer();
  const auto src = scene_path(a.input);
  const std::string text = read_text(src);
  std::string title = viz::check_scene_json(text, src.string());
  if (title.empty()) title = src.parent_path().filename().string();
  const std::filesystem::path out = (a.out.empty() ? src.parent_path() : std::filesystem::path(a.out)) / "view.html";
  if (!a.out.empty()) ensure_directory(a.out);
  const auto bytes = write_viewer_page(out, text, title);
  if (!a.quiet) std::printf("wrote %s (%.2f MB; open it in a browser, it works offline)\n", out.string().c_str(), bytes / 1e6);
}

struct PlotArgs {
  std::string input, out, format = "png";
  bool quiet = false;
};

void run_plot(const PlotArgs& a) {
  const auto src = scene_path(a.input);
  viz::check_scene_json(read_text(src), src.string());
  const std::filesystem::path out = a.out.empty() ? src.parent_path() / "plots" : std::filesystem::path(a.out);
  if (a.format != "png" && a.format != "svg" && a.format != "png,svg" && a.format != "svg,png")
    throw Error("plot: --format must be png, svg or png,svg");
  ensure_directory(out);
  const std::string python = shell_quote(python_interpreter());
  const std::string cmd = python + " " + shell_quote(data_file("scripts/plot_scene.py").string()) + " " +
                          shell_quote(src.string()) + " " + shell_quote(out.string()) + " --format " + shell_quote(a.format) +
                          (a.quiet ? " --quiet" : "");
  const int rc = std::system(cmd.c_str());
  if (rc != 0)
    throw Error("plot: scripts/plot_scene.py failed (exit " + std::to_string(rc) +
                "); it needs Debian's python3-matplotlib and python3-numpy (scripts/install-deps.sh test)");
}

}  // namespace

void register_view(CLI::App& app) {
  auto a = std::make_shared<ViewArgs>();
  auto* cmd = app.add_subcommand("view", "Write the self-contained 3D viewer page (HTML) of a result directory");
  cmd->add_option("result", a->input, "result directory (with scene.json) or a scene.json file")->required()->check(existing_path());
  cmd->add_option("-o,--out", a->out, "output directory of view.html (default: the result directory)");
  cmd->add_flag("-q,--quiet", a->quiet, "no report");
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
