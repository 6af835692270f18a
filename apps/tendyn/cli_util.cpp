#include "cli_util.hpp"

#include "viewer_cli.hpp"

#include <tendyn/core/error.hpp>
#include <tendyn/core/format.hpp>
#include <tendyn/io/atomic_file.hpp>
#include <tendyn/version.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

namespace tendyn::cli {

bool stderr_is_terminal() { return ::isatty(2) == 1; }

Progress::Progress(std::string label, bool enabled)
    : label_(std::move(label)), enabled_(enabled && stderr_is_terminal()), start_(std::chrono::steady_clock::now()), last_(start_) {}

void Progress::update(double fraction) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (printed_ && now - last_ < std::chrono::milliseconds(500)) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = fraction > 1e-9 ? elapsed * (1.0 - fraction) / fraction : 0.0;
  // a terminal only (see the constructor): the line is rewritten in place
  std::fprintf(stderr, "\r%s: %5.1f%% (elapsed %.1f s, eta %.1f s)   ", label_.c_str(), 100.0 * fraction, elapsed, eta);
  std::fflush(stderr);
  printed_ = true;
}

void Progress::finish() {
  if (enabled_ && printed_) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::fprintf(stderr, "\r%s: 100.0%% (%.2f s)                              \n", label_.c_str(), elapsed);
    std::fflush(stderr);
  }
  printed_ = false;
}

namespace {
bool g_missing_file = false;

CLI::Validator path_check(bool directory_ok) {
  return CLI::Validator(
      [directory_ok](std::string& path) -> std::string {
        std::error_code ec;
        const auto st = std::filesystem::status(path, ec);
        if (std::filesystem::is_regular_file(st) || (directory_ok && std::filesystem::is_directory(st))) return {};
        g_missing_file = true;
        if (std::filesystem::is_directory(st)) return "'" + path + "' is a directory, not a file";
        if (std::filesystem::exists(st)) return "'" + path + "' is not a " + (directory_ok ? "file or directory" : "regular file");
        return "no such file: '" + path + "'";
      },
      directory_ok ? "PATH" : "FILE");
}

// CLI11 reads hexadecimal floating point ("0x1p3") as strtod does; YAML and CSV inputs refuse it:
// one rule, numbers are decimal.
bool hexadecimal(const std::string& text) { return text.find_first_of("xX") != std::string::npos; }
const char* const kHexMessage = "numbers are decimal: hexadecimal is not accepted (got ";

CLI::Validator number_check(bool strict) {
  return CLI::Validator(
      [strict](std::string& text) -> std::string {
        double v = 0;
        if (!CLI::detail::lexical_cast(text, v) || std::isnan(v)) return "'" + text + "' is not a number";
        if (hexadecimal(text)) return kHexMessage + text + ")";
        if (!std::isfinite(v)) return "must be a finite number (got " + text + ")";
        if (strict ? !(v > 0) : !(v >= 0)) return "must be " + std::string(strict ? "> 0" : ">= 0") + " (got " + text + ")";
        return {};
      },
      strict ? "POSITIVE" : "NONNEGATIVE");
}
}  // namespace

const CLI::Validator& positive() {
  static const CLI::Validator v = number_check(true);
  return v;
}
const CLI::Validator& non_negative() {
  static const CLI::Validator v = number_check(false);
  return v;
}
const CLI::Validator& existing_file() {
  static const CLI::Validator v = path_check(false);
  return v;
}
const CLI::Validator& existing_path() {
  static const CLI::Validator v = path_check(true);
  return v;
}
bool missing_file_reported() { return g_missing_file; }

const CLI::Validator& model_file() {
  static const CLI::Validator v(
      [](std::string& arg) -> std::string {
        std::error_code ec;
        if (std::filesystem::is_directory(arg, ec)) {
          g_missing_file = true;
          return "'" + arg + "' is a directory, not a file";
        }
        std::vector<std::filesystem::path> tried;
        const auto found = resolve_model(arg, &tried);
        if (!found.empty()) {
          arg = found.string();
          return {};
        }
        g_missing_file = true;
        if (tried.size() <= 1) return "no such file: '" + arg + "'";  // a path, not a name
        std::string msg = "no such file or model name: '" + arg + "' (looked for";
        for (std::size_t i = 0; i < tried.size(); ++i) msg += (i == 0 ? " '" : ", '") + tried[i].string() + "'";
        msg += ")";
        const auto names = model_names();
        if (!names.empty()) {
          msg += "; the models in " + (data_dir() / "models").string() + " are: ";
          for (std::size_t i = 0; i < names.size(); ++i) msg += (i == 0 ? "" : ", ") + names[i];
        }
        return msg;
      },
      "MODEL");
  return v;
}

void require_finite_numbers(CLI::App& app) {
  static const CLI::Validator finite(
      [](std::string& text) -> std::string {
        double v = 0;
        // only words that read as a number: other text is the option's own type error
        if (!CLI::detail::lexical_cast(text, v)) return {};
        if (hexadecimal(text)) return kHexMessage + text + ")";
        if (!std::isfinite(v)) return "must be a finite number (got " + text + ")";
        return {};
      },
      "");
  for (CLI::Option* o : app.get_options())
    if (o->get_type_name() == "FLOAT") o->check(finite);
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) require_finite_numbers(*sub);
}

void ensure_directory(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create output directory '" + dir.string() + "': " + ec.message());
}

void OutputBudget::add_to(CLI::App& app) {
  app.add_option("--max-output-mb", max_output_mb, "refuse runs whose files are estimated above this size [MB] (default 2048)")
      ->check(positive());
  app.add_option("--max-memory-mb", max_memory_mb, "refuse runs whose in-memory recording is estimated above this size [MB] (default 1024)")
      ->check(positive());
}

void OutputBudget::check(const std::string& command, double output_bytes, const std::string& output_what, double memory_bytes,
                         const std::string& memory_what, const std::string& memory_hint) const {
  if (!(output_bytes <= max_output_mb * 1e6))
    throw Error(command + ": the run would write about " + format_number(output_bytes / 1e6, 3) + " MB (" + output_what +
                "), above the output budget of " + format_number(max_output_mb, 6) +
                " MB; shorten it, write less often, or raise the budget with --max-output-mb");
  if (!(memory_bytes <= max_memory_mb * 1e6))
    throw Error(command + ": the run would hold about " + format_number(memory_bytes / 1e6, 3) + " MB in memory (" + memory_what +
                "), above the memory budget of " + format_number(max_memory_mb, 6) + " MB; " + memory_hint +
                ", or raise the budget with --max-memory-mb");
}

bool render_plot(const std::string& kind, const std::filesystem::path& csv, const std::filesystem::path& out) {
  std::string cmd;
  try {
    cmd = shell_quote(python_interpreter()) + " " + shell_quote(data_file("scripts/plot.py").string()) + " " + kind + " " +
          shell_quote(csv.string()) + " " + shell_quote(out.string());
  } catch (const Error& e) {
    std::fprintf(stderr, "tendyn: warning: no plot %s: %s\n", out.string().c_str(), e.what());
    return false;
  }
  const int rc = std::system(cmd.c_str());
  if (rc == 0) return true;
  std::fprintf(stderr, "tendyn: warning: no plot %s: the plot script failed (exit %d: %s); it needs python3 with matplotlib\n",
               out.string().c_str(), WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, cmd.c_str());
  return false;
}

double column_scale(std::span<const double> values) {
  double s = 0.0;
  for (double v : values)
    if (std::isfinite(v)) s = std::max(s, std::abs(v));
  return s;
}

double display_value(double x, double scale, double rel_tol) {
  if (x == 0.0 || (std::isfinite(x) && std::abs(x) <= rel_tol * scale)) return 0.0;
  return x;
}

void clean_negative_zeros(nlohmann::json& j) {
  if (j.is_number_float()) {
    if (j.get<double>() == 0.0) j = 0.0;
  } else if (j.is_structured()) {
    for (auto& e : j) clean_negative_zeros(e);
  }
}

std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::string read_file_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw Error(p.string() + ": cannot read file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json provenance(std::string_view model_bytes, const std::string& model_file) {
  return {{"version", std::string(kVersion)},
          {"model_file", model_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(model_file)},
          {"model_fnv1a64", fnv1a64_hex(model_bytes)}};
}

void write_summary(const std::filesystem::path& path, nlohmann::json j, const nlohmann::json& provenance_block) {
  j["tendyn"] = provenance_block;
  clean_negative_zeros(j);
  io::write_file_atomic(path, j.dump(2) + "\n");
}

void register_missing_module(CLI::App& app, const std::string& name, const std::string& what, const std::string& module,
                             const std::string& option) {
  auto* cmd = app.add_subcommand(name, what + " [not in this build: " + option + "=OFF]");
  cmd->set_help_flag();  // `tendyn <name> --help` says what is missing too (not exit 0)
  cmd->allow_extras();   // whatever follows the name (subcommands, files, options)
  cmd->callback([name, module, option] {
    throw Error("tendyn " + name + ": this tendyn was built without the " + module + " module (" + option +
                "=OFF; scripts/run.sh leaves it out to build faster). Build the program with every module: "
                "scripts/build.sh in the tendyn sources (or cmake -D" +
                option + "=ON), then run ./build/tendyn " + name);
  });
}

}  // namespace tendyn::cli
