// The live view's HTTP routes of `tendyn serve` (docs/VIEWER.md, "Live view"): a running program
// posts a scene and frames (viz::LiveClient, tendyn.viewer), the page /live polls them.
#pragma once
#include <httplib.h>

#include <cstddef>
#include <functional>
#include <string>

namespace tendyn::cli {

/// Reads a POST body of at most `limit` bytes (cmd_serve.cpp's counting reader); false when it
/// answered 413 or 400 itself.
using BodyReader = std::function<bool(const httplib::ContentReader&, httplib::Response&, std::size_t limit, std::string& body)>;

/// Registers GET /live (the page), GET /live/health, POST /live/scene, POST /live/frame and
/// GET /live/state on `svr`. When the server does not listen on loopback (`loopback` false) every
/// live route answers 403: frames are taken from this machine only. The store of frames lives as
/// long as the routes.
void add_live_routes(httplib::Server& svr, bool loopback, std::size_t max_body_bytes, BodyReader read_body);

}  // namespace tendyn::cli
