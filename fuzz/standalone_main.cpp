// Standalone driver for libFuzzer targets, for compilers without libFuzzer (GCC) and for ctest:
// replays every file of the given corpus folders/files, then runs N deterministic pseudo-random
// mutations of them (byte flips, insertions, deletions, duplications, dictionary tokens,
// interesting numbers, line edits, splices of two corpus files).
//
//   model_parser_fuzz_replay [--iterations N] [--seed S] [--max-len BYTES] [--dict FILE] PATH...
//
// The target aborts on a finding; this driver then writes the input that triggered it to
// ./fuzz-standalone-crash.bin (replay it with this program or with the libFuzzer binary) and the
// process exits non-zero (SIGABRT), which fails the ctest entry.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

// The input being run, for the signal handler.
const std::string* g_current = nullptr;
const char* const kCrashFile = "fuzz-standalone-crash.bin";

extern "C" void on_fatal_signal(int sig) {
  if (g_current) {
    const int fd = ::open(kCrashFile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      const char* p = g_current->data();
      std::size_t left = g_current->size();
      while (left > 0) {
        const ssize_t w = ::write(fd, p, left);
        if (w <= 0) break;
        p += w;
        left -= static_cast<std::size_t>(w);
      }
      ::close(fd);
    }
    const char msg[] = "standalone fuzz driver: finding; input written to fuzz-standalone-crash.bin\n";
    (void)!::write(2, msg, sizeof msg - 1);
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

// splitmix64: fully specified, so a seed gives the same mutations on every platform.
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(next() % n); }
};

const char* const kTokens[] = {
    "tendyn: tensegrity\n",
    "builder:\n  type: prism\n",
    "builder: {type: expanded-octahedron}\n",
    "matrices:\n",
    "nodes:\n",
    "rods:\n",
    "cables:\n",
    "simulation:\n",
    "gravity: [0, 0, -9.81]\n",
    "damping_law: relative_velocity\n",
    "- {id: x, position: [0, 0, 0]}\n",
    "- {id: r, mass: 1, length: 1, nodes: [a, b]}\n",
    "- {id: c, nodes: [a, b], stiffness: 1, rest_length: 0.5}\n",
    "id",
    "position",
    "fixed: true",
    "force",
    "mass",
    "length",
    "com_ratio",
    "radius_outer",
    "radius_inner",
    "inertia_transverse",
    "inertia_axial",
    "velocity",
    "angular_velocity",
    "stiffness",
    "damping",
    "rest_length",
    "tension_only: false",
    "type",
    "prism",
    "expanded-octahedron",
    "n",
    "psi_deg",
    "layout",
    "centred",
    "pivot",
    "radius",
    "height",
    "spacing_scale",
    "perturbation",
    "R",
    "E",
    "S",
    "Gamma",
    "P",
    "positions",
    "rod",
    "compression",
    "index_base: 0",
    "duration",
    "dt",
    "integrator",
    "dopri5",
    "lie-verlet",
    "rk4",
    "output_interval",
    "strain_limit",
    "slack_tolerance",
    "rtol",
    "atol",
    "energy_growth_limit",
    ": ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    ", ",
    "\n",
    "\n  ",
    "\n    ",
    "true",
    "false",
    "~",
    "null",
    "&a ",
    "*a",
    "<<: *a",
    "!!str ",
    "!!float ",
    "---\n",
    "...\n",
    "\"",
    "'",
    "#",
    "|\n",
    ">\n",
    "? ",
};
const char* const kNumbers[] = {"0",      "-0",     "1",          "-1",          "2",          "3",          "1e308",
                                "-1e308", "1e-308", "4.9e-324",   "1e-320",      ".nan",       ".inf",       "-.inf",
                                "nan",    "0x10",   "2147483647", "-2147483648", "4294967296", "9999999999", "0.5",
                                "1e6",    "1e-12",  "100000",     "12.5",        "3.0e+2",     "0o17",       "+1"};

bool is_num_char(char c) { return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'; }

std::size_t line_start(const std::string& s, std::size_t pos) {
  while (pos > 0 && s[pos - 1] != '\n') --pos;
  return pos;
}
std::size_t line_end(const std::string& s, std::size_t pos) {
  while (pos < s.size() && s[pos] != '\n') ++pos;
  return pos < s.size() ? pos + 1 : pos;
}

void mutate_once(std::string& s, const std::vector<std::string>& corpus, const std::vector<std::string>& dict, Rng& r) {
  const std::size_t n = s.size();
  switch (r.below(12)) {
    case 0:  // flip a bit
      if (n) s[r.below(n)] ^= static_cast<char>(1u << r.below(8));
      break;
    case 1:  // random byte
      if (n) s[r.below(n)] = static_cast<char>(r.below(256));
      break;
    case 2:  // insert a random byte
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(r.below(n + 1)), static_cast<char>(r.below(256)));
      break;
    case 3: {  // delete a range
      if (!n) break;
      const std::size_t a = r.below(n), len = 1 + r.below(std::min<std::size_t>(n - a, 16));
      s.erase(a, len);
      break;
    }
    case 4: {  // duplicate a range
      if (!n) break;
      const std::size_t a = r.below(n), len = 1 + r.below(std::min<std::size_t>(n - a, 32));
      s.insert(r.below(n + 1), s.substr(a, len));
      break;
    }
    case 5: {  // dictionary token
      const std::size_t nt = sizeof kTokens / sizeof *kTokens;
      const std::size_t k = r.below(nt + dict.size());
      const std::string tok = k < nt ? kTokens[k] : dict[k - nt];
      s.insert(r.below(n + 1), tok);
      break;
    }
    case 6:
    case 7: {  // replace a number by an interesting one
      if (!n) break;
      std::size_t p = r.below(n), tries = 0;
      while (tries < n && !(s[p] >= '0' && s[p] <= '9')) p = (p + 1) % n, ++tries;
      if (tries == n) break;
      std::size_t a = p, b = p;
      while (a > 0 && is_num_char(s[a - 1])) --a;
      while (b < n && is_num_char(s[b])) ++b;
      s.replace(a, b - a, kNumbers[r.below(sizeof kNumbers / sizeof *kNumbers)]);
      break;
    }
    case 8: {  // delete a line
      if (!n) break;
      const std::size_t a = line_start(s, r.below(n));
      s.erase(a, line_end(s, a) - a);
      break;
    }
    case 9: {  // duplicate a line elsewhere
      if (!n) break;
      const std::size_t a = line_start(s, r.below(n));
      const std::string line = s.substr(a, line_end(s, a) - a);
      s.insert(line_start(s, r.below(n)), line);
      break;
    }
    case 10: {  // change indentation of a line
      if (!n) break;
      const std::size_t a = line_start(s, r.below(n));
      if (r.below(2) && a < n && s[a] == ' ')
        s.erase(a, 1 + r.below(2) * (a + 1 < n && s[a + 1] == ' ' ? 1 : 0));
      else
        s.insert(a, r.below(2) ? "  " : " ");
      break;
    }
    default: {  // splice: head of this input, tail of another corpus file (at line starts)
      if (corpus.empty()) break;
      const std::string& o = corpus[r.below(corpus.size())];
      const std::size_t a = n ? line_start(s, r.below(n)) : 0;
      const std::size_t b = o.empty() ? 0 : line_start(o, r.below(o.size()));
      s = s.substr(0, a) + o.substr(b);
      break;
    }
  }
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// libFuzzer dictionary lines: name="value" with \\, \" and \xAB escapes.
std::vector<std::string> read_dict(const std::filesystem::path& p) {
  std::vector<std::string> out;
  std::ifstream in(p);
  std::string line;
  while (std::getline(in, line)) {
    const auto q0 = line.find('"'), q1 = line.rfind('"');
    if (line.empty() || line[0] == '#' || q0 == std::string::npos || q1 <= q0) continue;
    std::string v;
    for (std::size_t i = q0 + 1; i < q1; ++i) {
      if (line[i] == '\\' && i + 1 < q1) {
        if (line[i + 1] == 'x' && i + 3 < q1) {
          v += static_cast<char>(std::stoi(line.substr(i + 2, 2), nullptr, 16));
          i += 3;
        } else {
          v += line[++i];
        }
      } else {
        v += line[i];
      }
    }
    out.push_back(v);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  long iterations = 20000;
  std::uint64_t seed = 1;
  std::size_t max_len = 8192;
  std::vector<std::filesystem::path> paths;
  std::vector<std::string> dict;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--iterations" && i + 1 < argc)
      iterations = std::stol(argv[++i]);
    else if (a == "--seed" && i + 1 < argc)
      seed = std::stoull(argv[++i]);
    else if (a == "--max-len" && i + 1 < argc)
      max_len = std::stoul(argv[++i]);
    else if (a == "--dict" && i + 1 < argc)
      dict = read_dict(argv[++i]);
    else if (a == "--help" || a == "-h") {
      std::printf("usage: %s [--iterations N] [--seed S] [--max-len BYTES] [--dict FILE] CORPUS_DIR_OR_FILE...\n", argv[0]);
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "unknown option %s (see --help)\n", a.c_str());
      return 2;
    } else {
      paths.emplace_back(a);
    }
  }
  std::signal(SIGABRT, on_fatal_signal);
  std::signal(SIGSEGV, on_fatal_signal);
  std::signal(SIGFPE, on_fatal_signal);
  std::signal(SIGBUS, on_fatal_signal);
  std::signal(SIGILL, on_fatal_signal);

  // Sorted file list: the same corpus gives the same run.
  std::vector<std::filesystem::path> files;
  for (const auto& p : paths) {
    if (std::filesystem::is_directory(p)) {
      for (const auto& e : std::filesystem::directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (std::filesystem::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::fprintf(stderr, "no such file or folder: %s\n", p.c_str());
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> corpus;
  for (const auto& f : files) corpus.push_back(read_file(f));

  const auto t0 = std::chrono::steady_clock::now();
  std::string input;
  g_current = &input;
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    input = corpus[i];
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  }
  std::printf("replayed %zu corpus inputs\n", corpus.size());
  if (corpus.empty() && iterations > 0) corpus.emplace_back("tendyn: tensegrity\n");
  Rng rng{seed};
  for (long it = 0; it < iterations; ++it) {
    input = corpus[rng.below(corpus.size())];
    const std::size_t nmut = 1 + rng.below(4);
    for (std::size_t k = 0; k < nmut; ++k) mutate_once(input, corpus, dict, rng);
    if (input.size() > max_len) input.resize(max_len);
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
  }
  g_current = nullptr;
  const double dt = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("ran %ld mutated inputs (seed %llu) in %.2f s: no finding\n", iterations, static_cast<unsigned long long>(seed), dt);
  return 0;
}
