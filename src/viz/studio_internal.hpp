// Shared by studio.cpp and studio_cdpr.cpp: typed reading of request JSON (BadRequest naming the
// field) and the CDPR part of the studio, which is built only with TENDYN_WITH_CDPR.
#pragma once
#include <tendyn/viz/studio.hpp>

#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tendyn::viz::studio::detail {

using nlohmann::json;

/// Parses JSON; malformed text (also a number outside the double range) is a BadRequest naming
/// the place: "request.forward.drives[0].a: ...".
json parse_json(std::string_view text, const std::string& what);
/// A finite number field of a JSON object; `fallback` when absent (nullptr: required).
double number(const json& obj, const char* key, const std::string& where, const double* fallback = nullptr);
/// A required string field.
std::string text(const json& obj, const char* key, const std::string& where);
/// An optional string field (`fallback` when absent).
std::string text_or(const json& obj, const char* key, const std::string& where, const std::string& fallback);
/// An optional field that must be an object / an array when present.
json object_or(const json& obj, const char* key, const std::string& where);
json array_or(const json& obj, const char* key, const std::string& where, json fallback);
/// Index of `id` in `ids`; tendyn::Error "<where>: no <kind> '<id>' in the model" otherwise.
int index_of(const std::vector<std::string>& ids, const std::string& id, const char* kind, const std::string& where);

/// Summary fields shared by every kind: from the recorded frames of `scene`, the cable that first
/// has a zero tension (tension <= slack_N) and when, each cable's first slack frame (by time),
/// the distance travelled by the COM (sum of |com(k+1) - com(k)| over frames) and its
/// displacement, and the energies (initial, final, min, max, final - initial) when recorded.
void add_frame_summary(const Scene& scene, json& summary, const std::vector<double>& slack_N);

/// Runs a tensegrity request into job: the scene, status "running", the plan (inverse mode), the
/// simulation's frames and the summary (the caller sets "done"/"error" and catches); `check_time`
/// is called at every progress report and throws to stop the run.
void run_tensegrity_job(const RunRequest& req, Job& job, const std::function<void()>& check_time);

/// CDPR (studio_cdpr.cpp; without TENDYN_WITH_CDPR these throw tendyn::Error "built without the
/// CDPR module").
EditResult edit_cdpr_model(std::string_view yaml, const json& edits, const Limits& limits);
std::shared_ptr<const CdprRun> parse_cdpr_run(const json& request, const Limits& limits);
/// Runs into job (the caller sets status and catches); `check` is called after every pose and
/// throws to stop the run.
void run_cdpr_job(const CdprRun& run, Job& job, const std::function<void()>& check);

}  // namespace tendyn::viz::studio::detail
