// tendyn render DIR --format webm|png: the viewer page of a result directory played in a headless
// Chromium (driven over its DevTools pipe, headless_browser.hpp), saved as a WebM video (the
// page's MediaRecorder) or as PNG frames, as the page's own save buttons do (docs/VIEWER.md).
#include <signal.h>
#include <unistd.h>

#include <tendyn/core/error.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/io/result_set.hpp>
#include <tendyn/viz/scene.hpp>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "cli_util.hpp"
#include "commands.hpp"
#include "headless_browser.hpp"
#include "viewer_cli.hpp"

namespace tendyn::cli {

namespace {

struct RenderArgs {
  std::string input, format = "webm", out, browser;
  double fps = 30.0, speed = 1.0, timeout_s = 120.0, max_page_mb = 200.0;
  int width = 1280, height = 720;
  bool quiet = false;
};

/// The bytes of a data URL ("data:TYPE;base64,...").
std::string decode_data_url(const std::string& url, const std::string& what) {
  const auto comma = url.find(',');
  if (url.rfind("data:", 0) != 0 || comma == std::string::npos || url.substr(0, comma).find(";base64") == std::string::npos)
    throw Error("render: the page gave no " + what + " (not a base64 data URL: '" + url.substr(0, 40) + "')");
  std::array<int, 256> val{};
  val.fill(-1);
  const std::string abc = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < abc.size(); ++i) val[static_cast<unsigned char>(abc[i])] = static_cast<int>(i);
  std::string out;
  out.reserve((url.size() - comma) * 3 / 4);
  unsigned acc = 0;
  int bits = 0;
  for (std::size_t i = comma + 1; i < url.size(); ++i) {
    const int v = val[static_cast<unsigned char>(url[i])];
    if (v < 0) {
      if (url[i] == '=') break;
      throw Error("render: the page's " + what + " is not valid base64");
    }
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFFu));
    }
  }
  return out;
}

/// file:// URL of an absolute path, bytes outside [A-Za-z0-9/._~-] percent-encoded.
std::string file_url(const std::filesystem::path& p) {
  std::string url = "file://";
  for (const unsigned char c : p.string()) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '~' || c == '-') {
      url.push_back(static_cast<char>(c));
    } else {
      char b[4];
      std::snprintf(b, sizeof b, "%%%02X", c);
      url += b;
    }
  }
  return url;
}

/// A private temporary directory, removed with everything in it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tendyn-render-XXXXXX").string();
    if (!::mkdtemp(tmpl.data()))
      throw Error("render: cannot create a temporary directory in " + std::filesystem::temp_directory_path().string());
    path = tmpl;
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

/// The page to play: a viewer page written from DIR/scene.json (or a scene.json file) into `tmp`,
/// or an existing page (an .html file; a directory without scene.json but with view.html).
std::filesystem::path page_for(const RenderArgs& a, const std::filesystem::path& tmp, std::filesystem::path& result_dir) {
  const std::filesystem::path in(a.input);
  std::filesystem::path scene, page;
  if (std::filesystem::is_directory(in)) {
    result_dir = in;
    if (std::filesystem::exists(in / "scene.json"))
      scene = in / "scene.json";
    else if (std::filesystem::exists(in / "view.html"))
      page = in / "view.html";
    else
      throw Error(a.input + ": no scene.json or view.html here (a result directory of simulate, plan, cdpr-experiment, ... has them)");
  } else {
    result_dir = in.parent_path().empty() ? std::filesystem::path(".") : in.parent_path();
    if (in.extension() == ".html")
      page = in;
    else
      scene = in;
  }
  if (!page.empty()) return std::filesystem::absolute(page);
  require_viewer();
  const std::string text = read_file_bytes(scene);
  std::string title = viz::check_scene_json(text, scene.string());
  if (title.empty()) title = scene.parent_path().filename().string();
  const auto out = tmp / "page.html";
  write_viewer_page(out, text, title, a.max_page_mb);
  return out;
}

bool page_ready(HeadlessBrowser& b, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(timeout_s));
  while (std::chrono::steady_clock::now() < deadline) {
    const auto s = b.evaluate(
        "(() => { const e = document.getElementById('error');"
        " if (e && !e.hidden && e.textContent) return 'error: ' + e.textContent;"
        " return window.tendyn && window.tendyn.ready === true && typeof window.tendyn.stillAt === 'function' ? 'ready' : 'wait'; })()",
        30.0);
    if (s == "ready") return true;
    if (s.is_string() && s.get<std::string>().rfind("error: ", 0) == 0)
      throw Error("render: the page shows an error: " + s.get<std::string>().substr(7));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

void run_render(const RenderArgs& a) {
  if (a.format != "webm" && a.format != "png") throw Error("render: --format must be webm or png, not '" + a.format + "'");
  if (!(a.fps > 0 && a.fps <= 240)) throw Error("render: --fps must be in (0, 240]");
  if (a.width < 16 || a.height < 16 || a.width > 7680 || a.height > 4320)
    throw Error("render: --width x --height must be 16 ... 7680 x 16 ... 4320 pixels");
  TempDir tmp;
  std::filesystem::path result_dir;
  const auto page = page_for(a, tmp.path, result_dir);
  const auto chromium = find_chromium(a.browser);
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ign, nullptr);  // a browser that dies shows as a write error, not a signal
  std::filesystem::create_directory(tmp.path / "profile");
  HeadlessBrowser browser(chromium, tmp.path / "profile", a.width, a.height, a.timeout_s);
  browser.open(file_url(page));
  if (!page_ready(browser, a.timeout_s))
    throw Error("render: " + page.string() + " did not become ready within " + std::to_string(a.timeout_s) +
                " s (not a tendyn viewer page, or a viewer older than `tendyn render`)");
  browser.evaluate("window.tendyn.setRenderSize(" + std::to_string(a.width) + ", " + std::to_string(a.height) + ")", a.timeout_s);
  const auto range = browser.evaluate("window.tendyn.timeRange()", a.timeout_s);
  if (!range.is_array() || range.size() != 2) throw Error("render: " + a.input + ": the scene has no frames");
  const double t0 = range[0].get<double>(), t1 = range[1].get<double>();
  // video frames at t0 + k speed / fps, k = 0 ... n - 1: n = duration / speed * fps (at least 1)
  const long n = std::max(1L, std::lround((t1 - t0) / a.speed * a.fps));

  if (a.format == "png") {
    const std::filesystem::path out = a.out.empty() ? result_dir / "frames" : std::filesystem::path(a.out);
    io::ResultSet set(out);
    Progress progress("render", !a.quiet);
    for (long k = 0; k < n; ++k) {
      char t[64], name[32];
      std::snprintf(t, sizeof t, "%.17g", t0 + static_cast<double>(k) * a.speed / a.fps);
      const auto url = browser.evaluate(std::string("window.tendyn.stillAt(") + t + ")", a.timeout_s);
      if (!url.is_string()) throw Error("render: the page gave no PNG for t = " + std::string(t) + " s");
      const std::string png = decode_data_url(url.get<std::string>(), "PNG");
      if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) throw Error("render: the page's still is not a PNG");
      std::snprintf(name, sizeof name, "frame_%05ld.png", k);
      io::write_file_atomic(set.file(name), png);
      progress.update(static_cast<double>(k + 1) / static_cast<double>(n));
    }
    progress.finish();
    set.commit();
    // frames of an earlier, longer render would follow the new ones: remove them
    for (long k = n;; ++k) {
      char name[32];
      std::snprintf(name, sizeof name, "frame_%05ld.png", k);
      if (!std::filesystem::remove(out / name)) break;
    }
    if (!a.quiet)
      std::printf("wrote %ld PNG frames of %d x %d to %s (frame_00000.png ... ; t = %g ... %g s at %g fps)\n", n, a.width, a.height,
                  out.string().c_str(), t0, t0 + static_cast<double>(n - 1) * a.speed / a.fps, a.fps);
    return;
  }

  const std::filesystem::path out = a.out.empty() ? result_dir / "render.webm" : std::filesystem::path(a.out);
  if (!a.out.empty() && out.has_parent_path()) ensure_directory(out.parent_path());
  io::AtomicFile file(out);  // refuses an unwritable place before the recording takes its time
  char opts[160];
  std::snprintf(opts, sizeof opts, "{fps: %.17g, speed: %.17g}", a.fps, a.speed);
  const double wall_s = (t1 - t0) / a.speed;
  const auto url = browser.evaluate(std::string("window.tendyn.recordWebmDataUrl(") + opts + ")", a.timeout_s + wall_s * 2.0);
  if (!url.is_string()) throw Error("render: the page gave no video");
  const std::string webm = decode_data_url(url.get<std::string>(), "video");
  if (webm.size() < 4 || webm.compare(0, 4, "\x1a\x45\xdf\xa3") != 0)
    throw Error("render: the browser's recording is not a WebM file (" + std::to_string(webm.size()) + " bytes)");
  file.stream().write(webm.data(), static_cast<std::streamsize>(webm.size()));
  file.commit();
  if (!a.quiet)
    std::printf("wrote %s (%.2f MB, %d x %d, %g fps, t = %g ... %g s at %g x real time)\n", out.string().c_str(),
                static_cast<double>(webm.size()) / 1e6, a.width, a.height, a.fps, t0, t1, a.speed);
}

}  // namespace

void register_render(CLI::App& app) {
  auto a = std::make_shared<RenderArgs>();
  auto* cmd =
      app.add_subcommand("render", "Play a result directory's viewer page in headless Chromium and save it as WebM video or PNG frames");
  cmd->add_option("result", a->input,
                  "result directory (with scene.json, else view.html), a scene.json file or a viewer page (.html, e.g. compare.html)")
      ->required()
      ->check(existing_path());
  cmd->add_option("--format", a->format, "webm (one video, recorded by the browser) | png (one file per video frame)");
  cmd->add_option("--fps", a->fps, "video frames per second of the output (png: frames at t0 + k / fps)")->check(positive());
  cmd->add_option("--speed", a->speed, "simulated seconds per second of video")->check(positive());
  cmd->add_option("-o,--out", a->out, "output: the .webm file (default RESULT/render.webm) or the PNG directory (default RESULT/frames)");
  cmd->add_option("--width", a->width, "image width [pixels]");
  cmd->add_option("--height", a->height, "image height [pixels]");
  cmd->add_option("--browser", a->browser, "Chromium to run (default $TENDYN_CHROMIUM, else /usr/bin/chromium)");
  cmd->add_option("--timeout", a->timeout_s, "longest wait for the browser per step [s] (a video adds twice its length)")
      ->check(positive());
  cmd->add_option("--max-page-mb", a->max_page_mb, "largest page made from scene.json [MB] (longer runs keep every k-th frame)")
      ->check(positive());
  cmd->add_flag("-q,--quiet", a->quiet, "no report");
  cmd->callback([a] { run_render(*a); });
}

}  // namespace tendyn::cli
