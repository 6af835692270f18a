// tendyn render: a short run's viewer page played in headless Chromium and saved as PNG frames
// and as WebM (ctest label `browser`; skipped where there is no Chromium or no viewer).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"

namespace fs = std::filesystem;

namespace {

using tendyn::test::built_with_viewer;
using tendyn::test::fresh_dir;
using tendyn::test::kModels;
using tendyn::test::run;
using tendyn::test::run_shell;
using tendyn::test::slurp;

std::string chromium() {
  const char* env = std::getenv("TENDYN_CHROMIUM");
  return env && *env ? std::string(env) : std::string("/usr/bin/chromium");
}

bool has_chromium() { return ::access(chromium().c_str(), X_OK) == 0; }

/// A 1 s run of the 3-prism at 100 frames per second, with its scene.json.
fs::path short_run(const std::string& tag) {
  const auto d = fresh_dir("render_" + tag);
  const auto r = run("simulate -q --duration 1 --output-interval 0.01 -o " + d.string() + " " + kModels + "prism3.yaml");
  EXPECT_EQ(r.code, 0) << r.out;
  return d;
}

/// "W H COLOURS" of a PNG (8-bit RGB or RGBA, not interlaced), decoded by Python's zlib.
std::string png_stats(const fs::path& png) {
  const auto script = fs::temp_directory_path() / ("tendyn_png_stats_" + std::to_string(::getpid()) + ".py");
  std::ofstream(script) << R"PY(
import struct, sys, zlib
b = open(sys.argv[1], 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n'
i, idat = 8, b''
while i < len(b):
    n, t = struct.unpack('>I4s', b[i:i + 8]); d = b[i + 8:i + 8 + n]; i += 12 + n
    if t == b'IHDR': w, h, depth, ctype, _, _, lace = struct.unpack('>IIBBBBB', d)
    elif t == b'IDAT': idat += d
assert depth == 8 and ctype in (2, 6) and lace == 0, (depth, ctype, lace)
bpp = 3 if ctype == 2 else 4
raw, stride, prev, colours, o = zlib.decompress(idat), w * bpp, bytearray(w * bpp), set(), 0
for y in range(h):
    f = raw[o]; line = bytearray(raw[o + 1:o + 1 + stride]); o += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0; up = prev[x]; c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + up) & 255
        elif f == 3: line[x] = (line[x] + (a + up) // 2) & 255
        elif f == 4:
            p = a + up - c; pa, pb, pc = abs(p - a), abs(p - up), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else up if pb <= pc else c)) & 255
    for x in range(0, stride, bpp): colours.add(bytes(line[x:x + 3]))
    prev = line
print(w, h, len(colours))
)PY";
  const auto r = run_shell("python3 " + script.string() + " " + png.string() + " 2>&1");
  fs::remove(script);
  return r.code == 0 ? r.out.substr(0, r.out.find('\n')) : "error: " + r.out;
}

}  // namespace

TEST(RenderCli, WritesOnePngPerVideoFrameOfTheRun) {
  if (!has_chromium()) GTEST_SKIP() << "no Chromium at " << chromium();
  if (!built_with_viewer()) GTEST_SKIP() << "tendyn built without the viewer";
  const auto d = short_run("png");
  const auto out = d / "frames";
  const auto r = run("render " + d.string() + " --format png --fps 10 --width 320 --height 240 -o " + out.string());
  ASSERT_EQ(r.code, 0) << r.out;
  // 1 s at 10 fps: frames at t = 0, 0.1, ..., 0.9 s
  int count = 0;
  for (const auto& e : fs::directory_iterator(out)) count += e.path().extension() == ".png" ? 1 : 0;
  EXPECT_EQ(count, 10);
  for (const char* name : {"frame_00000.png", "frame_00009.png"}) {
    const std::string png = slurp(out / name);
    ASSERT_GE(png.size(), 8u) << name;
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << name;
    std::istringstream stats(png_stats(out / name));
    int w = 0, h = 0, colours = 0;
    stats >> w >> h >> colours;
    EXPECT_EQ(w, 320) << name;
    EXPECT_EQ(h, 240) << name;
    EXPECT_GT(colours, 20) << name << ": a blank or uniform image";
  }
  EXPECT_FALSE(fs::exists(out / "frame_00010.png"));
  // a second, shorter render replaces the set: no frame of the first one is left behind
  const auto r2 = run("render -q " + d.string() + " --format png --fps 4 --width 64 --height 48 -o " + out.string());
  ASSERT_EQ(r2.code, 0) << r2.out;
  count = 0;
  for (const auto& e : fs::directory_iterator(out)) count += e.path().extension() == ".png" ? 1 : 0;
  EXPECT_EQ(count, 4);
}

TEST(RenderCli, WritesAWebmRecordedByTheBrowser) {
  if (!has_chromium()) GTEST_SKIP() << "no Chromium at " << chromium();
  if (!built_with_viewer()) GTEST_SKIP() << "tendyn built without the viewer";
  const auto d = short_run("webm");
  const auto r = run("render " + d.string() + " --format webm --fps 15 --width 320 --height 240");
  ASSERT_EQ(r.code, 0) << r.out;
  const std::string webm = slurp(d / "render.webm");
  ASSERT_GE(webm.size(), 4u);
  EXPECT_EQ(webm.substr(0, 4), std::string("\x1a\x45\xdf\xa3", 4));  // EBML magic
  EXPECT_GT(webm.size(), 2000u);
  EXPECT_NE(webm.find("webm"), std::string::npos);  // the DocType
  EXPECT_FALSE(fs::exists(d / "render.webm.partial"));
}

TEST(RenderCli, BadInputExitsTwoWithoutOutput) {
  const auto d = fresh_dir("render_bad");
  // a directory with neither scene.json nor a page
  auto r = run("render " + d.string() + " --format png");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no scene.json or view.html"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "frames"));
  // no Chromium where it is said to be
  const auto run_dir = short_run("nochromium");
  r = run("render " + run_dir.string() + " --browser " + (d / "no-such-chromium").string());
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("no Chromium at"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(run_dir / "render.webm"));
  r = run("render " + d.string() + " --format gif");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--format must be webm or png"), std::string::npos) << r.out;
  // a page that is not a viewer page: refused once the browser has waited for it
  if (has_chromium()) {
    std::ofstream(d / "other.html") << "<html><body>not a viewer</body></html>";
    r = run("render " + (d / "other.html").string() + " --format webm --timeout 3");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("did not become ready"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(d / "render.webm"));
  }
}
