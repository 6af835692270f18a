// Bindings of include/tendyn/viz/live.hpp: the live view's client (tendyn.viz.LiveClient), used by
// tendyn.viewer (python/tendyn/viewer.py). send_frame only copies the frame into the client's
// slot (the posting runs in the client's own thread, without the GIL); flush and close wait for
// that thread with the GIL released.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <tendyn/core/error.hpp>
#include <tendyn/viz/live.hpp>

#include "tensegrity/expose.hpp"
#include "viz/expose.hpp"

#include <string>

namespace tendyn::python::viz_bind {

namespace ts = tendyn::tensegrity;
using tendyn::viz::LiveClient;
using tendyn::viz::LiveClientOptions;
using tendyn::viz::LiveStats;

void expose_live(py::module_& m) {
  py::class_<LiveClientOptions> o(m, "LiveClientOptions", "Options of a LiveClient.");
  o.def_readwrite("max_rate_hz", &LiveClientOptions::max_rate_hz,
                  "frames posted per second at most (> 0); frames given faster are replaced by newer ones [1/s]")
      .def_readwrite("timeout_s", &LiveClientOptions::timeout_s, "connect / read / write timeout of one request [s]")
      .def_readwrite("keep_all", &LiveClientOptions::keep_all,
                     "queue every frame (posted in batches) instead of replacing frames given faster than max_rate_hz")
      .def_readwrite("realtime_factor", &LiveClientOptions::realtime_factor,
                     "> 0: send_frame waits so the program runs at this multiple of real time (1: real time); 0: no pacing")
      .def_readwrite("token", &LiveClientOptions::token,
                     "the server's secret (the token= of the address tendyn serve prints); '': $TENDYN_SERVE_TOKEN, else the\n"
                     "token file the server wrote for its user");
  def_kw_init(o);

  py::class_<LiveStats>(m, "LiveStats", "What a LiveClient did so far.")
      .def_readonly("given", &LiveStats::given, "frames given to send_frame")
      .def_readonly("sent", &LiveStats::sent, "frames delivered")
      .def_readonly("replaced", &LiveStats::replaced, "frames replaced by a newer one before being posted (the rate limit)")
      .def_readonly("failed", &LiveStats::failed, "posts that failed")
      .def_readonly("last_error", &LiveStats::last_error, "reason of the last failure ('' after a success)")
      .def("__repr__", [](const LiveStats& s) {
        return "LiveStats(given=" + std::to_string(s.given) + ", sent=" + std::to_string(s.sent) +
               ", replaced=" + std::to_string(s.replaced) + ", failed=" + std::to_string(s.failed) +
               ", last_error=" + py::repr(py::str(s.last_error)).cast<std::string>() + ")";
      });

  py::class_<LiveClient>(m, "LiveClient",
                         "Pushes a scene and frames to `tendyn serve` on this machine (its page /live shows them; docs/VIEWER.md,\n"
                         "'Live view'). Usually used through tendyn.viewer.show(model).")
      .def(py::init<const LiveClientOptions&>(), py::arg("options") = LiveClientOptions{})
      .def("connect", &LiveClient::connect, py::arg("host") = "127.0.0.1", py::arg("port") = 8787,
           "Check the server (GET /live/health) and start the sending thread. host: 127.0.0.1, localhost or ::1.\n"
           "Raises tendyn.Error when no tendyn serve answers there, or the host is not a loopback address.",
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("connected", &LiveClient::connected)
      .def_property_readonly("page_url", &LiveClient::page_url, "http://HOST:PORT/live?token=TOKEN ('' before connect)")
      .def("send_scene", py::overload_cast<const ts::Model&>(&LiveClient::send_scene), py::arg("model"),
           "Start a session with the model's scene (nodes, rods, cables, ground). Raises tendyn.Error with the server's message.",
           py::call_guard<py::gil_scoped_release>())
      .def(
          "send_frame",
          [](LiveClient& c, double t_s, const ts::Model& model, const ts::State& state, const ts::Data* data) {
            if (data && !tendyn::python::tensegrity_bind::data_fits(model, *data))
              throw tendyn::Error("send_frame(data): the data was made for another model (use make_data(model))");
            return data ? c.send_frame(t_s, model, state, *data) : c.send_frame(t_s, model, state);
          },
          py::arg("t_s"), py::arg("model"), py::arg("state"), py::arg("data") = nullptr,
          "Store the frame at time t_s [s] as the next one to post (replacing one not yet posted): node positions,\n"
          "tensions and strains from `data` (evaluated at `state`, as in a controller or after step()), or, without data,\n"
          "from the client's own evaluation of `state` with the model's rest lengths; COM and energies from state.\n"
          "Never blocks on the network. False when not connected or the last post failed (stats.last_error).")
      .def(
          "send_frame_data",
          [](LiveClient& c, double t_s, const ts::Model& model, const ts::Data& data) {
            tendyn::viz::LiveFrame f;
            tendyn::viz::fill_live_frame(f, t_s, model, data);
            return c.send_frame(f);
          },
          py::arg("t_s"), py::arg("model"), py::arg("data"),
          "As send_frame from `data` alone (no COM, no energies: do not mix with send_frame in one session).")
      .def("flush", &LiveClient::flush, py::arg("timeout_s") = 2.0,
           "Wait until the last frame given has been posted (at most timeout_s [s]); True when delivered.",
           py::call_guard<py::gil_scoped_release>())
      .def_property_readonly("stats", &LiveClient::stats, "LiveStats")
      .def("close", &LiveClient::close, "flush, then stop the sending thread", py::call_guard<py::gil_scoped_release>());
}

}  // namespace tendyn::python::viz_bind
