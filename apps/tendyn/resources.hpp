// Where the program finds the files it reads at run time (shipped models, plot scripts): one
// data directory, located relative to the executable so that an installed or copied prefix works
// wherever it is. Nothing here depends on the source tree.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::cli {

/// The data directory, the first of:
///   1. $TENDYN_DATA_DIR, when set and non-empty (then the only candidate: a wrong value is an error);
///   2. <directory of the executable>/../share/tendyn   (installed: <prefix>/bin/tendyn);
///   3. <directory of the executable>/share/tendyn      (build tree: <build>/tendyn, CMake links
///                                                        <build>/share/tendyn/{models,scripts} to the sources).
/// A candidate counts when it holds a `models` directory. The executable is /proc/self/exe
/// (symbolic links resolved). Throws tendyn::Error naming every path tried when none is found
/// (the program then exits with status 2). Computed once; cheap afterwards.
const std::filesystem::path& data_dir();

/// data_dir() as text for hints in messages; "$TENDYN_DATA_DIR" when there is none (never throws).
std::string data_dir_hint() noexcept;

/// data_dir() / relative, e.g. data_file("models/three_bar.yaml"). Does not check that the file exists
/// (the reader of the file reports that, naming the path).
std::filesystem::path data_file(std::string_view relative);

/// The installed documentation (docs/*.md): data_dir()/../doc/tendyn, i.e. <prefix>/share/doc/tendyn
/// (in the build tree <build>/share/doc/tendyn, a link to the sources' docs/). Empty when that is
/// not a directory (never throws).
std::filesystem::path doc_dir() noexcept;

/// The names of the shipped models: every .yaml or .urdf file under data_dir()/models, as its path
/// relative to models/ without the extension ("three_bar", "cdpr/printer8", "tree/biped"), sorted
/// and without duplicates. Empty when there is no data directory (never throws).
std::vector<std::string> model_names() noexcept;

/// A model argument as the user typed it, resolved to a file (docs/CLI.md "Model names"):
///   1. `arg` itself when it is an existing regular file;
///   2. otherwise, when `arg` is a relative path without an extension (a model name, "three_bar",
///      "cdpr/printer8"): data_dir()/models/<arg>.yaml, then .urdf;
///   3. otherwise, when `arg` is a relative path starting with "models/" (as the README and the
///      docs write them): data_dir()/<arg>.
/// Returns the first candidate that is a regular file, or an empty path; `tried` (when given)
/// receives every candidate looked at, in order. Never throws (no data directory: only 1).
std::filesystem::path resolve_model(const std::string& arg, std::vector<std::filesystem::path>* tried = nullptr) noexcept;

/// The Python interpreter for the matplotlib plot scripts: $TENDYN_PYTHON when set, else Debian's
/// /usr/bin/python3, else the first python3 on PATH. Throws tendyn::Error naming what was tried
/// when there is none.
std::string python_interpreter();

}  // namespace tendyn::cli
