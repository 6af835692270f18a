// Where the program finds the files it reads at run time (shipped models, plot scripts): one
// data directory, located relative to the executable so that an installed or copied prefix works
// wherever it is. Nothing here depends on the source tree.
#pragma once
#include <filesystem>
#include <string>
#include <string_view>

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

/// The Python interpreter for the matplotlib plot scripts: $TENDYN_PYTHON when set, else Debian's
/// /usr/bin/python3, else the first python3 on PATH. Throws tendyn::Error naming what was tried
/// when there is none.
std::string python_interpreter();

}  // namespace tendyn::cli
