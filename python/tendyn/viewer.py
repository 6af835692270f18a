"""Live view: watch a running Python loop in the browser (docs/VIEWER.md, "Live view").

Start ``tendyn serve`` (it listens on 127.0.0.1:8787), then::

    import tendyn, tendyn.viewer
    ts = tendyn.tensegrity
    model = ts.load_model_file("models/prism3.yaml").model
    view = tendyn.viewer.show(model)            # prints the page to open: http://127.0.0.1:8787/live
    state, data = model.initial_state, ts.make_data(model)
    ts.compute_derivative(model, state, data)
    for k in range(1, 2001):
        ts.step(model, data, state, 1e-3, t_end_s=k * 1e-3)
        view.update(state, data=data)           # cheap: a copy; posted at most 30 times a second

or with simulate, as its controller (called every ``control_period_s``)::

    ts.simulate(model, options, controller=view.observer(), control_period_s=0.02)

Frames given faster than ``max_rate_hz`` (default 30 per second) are replaced by newer ones (unless
``show(..., keep_all=True)``: then every frame is queued and delivered), so a loop is never slowed down
by the network (unless ``show(..., realtime=1.0)`` paces it to real time); the last frame given is always shown (within
1 / max_rate_hz, or at :meth:`LiveViewer.flush`). Built on ``tendyn.viz.LiveClient`` (the C++
``viz::LiveClient``). Loopback only: the host must be 127.0.0.1, localhost or ::1.
"""
from __future__ import annotations

import sys
import warnings
from typing import Any, Callable, Optional

from ._tendyn import Error, tensegrity, viz

__all__ = ["show", "LiveViewer"]


class LiveViewer:
    """A live view of one model on a running ``tendyn serve`` (made by :func:`show`)."""

    def __init__(self, model: Any, host: str = "127.0.0.1", port: int = 8787, max_rate_hz: float = 30.0,
                 timeout_s: float = 2.0, token: str = "", keep_all: bool = False, realtime: float = 0.0) -> None:
        self.model = model
        self.client = viz.LiveClient(viz.LiveClientOptions(max_rate_hz=max_rate_hz, timeout_s=timeout_s, token=token,
                                                           keep_all=keep_all, realtime_factor=realtime))
        self.client.connect(host, port)
        self.client.send_scene(model)
        self._warned = ""

    @property
    def url(self) -> str:
        """The page to open: http://HOST:PORT/live?token=TOKEN."""
        return self.client.page_url

    @property
    def stats(self) -> Any:
        """``tendyn.viz.LiveStats``: frames given, sent, replaced by the rate limit, failed posts, last error."""
        return self.client.stats

    def update(self, state_or_data: Any, t: Optional[float] = None, data: Any = None) -> bool:
        """Show this state (or Data) at time ``t`` [s] (default: ``state.time_s``).

        - ``update(state)``: the client evaluates the state itself (model rest lengths and drives;
          a controller's own rest lengths are not known: pass its Data too);
        - ``update(state, data=data)``: positions, tensions and strains from ``data`` (evaluated at
          ``state``, as after ``step()`` or in a controller), COM and energies from ``state``;
        - ``update(data, t)``: from a Data alone (no COM, no energies; do not mix with the forms
          above in one session).

        Returns False while posts fail (the server went away); a warning says why, once per reason.
        While the live page holds the program paused ("pause program"), this call waits until the
        page resumes it or lets a step of frames through (docs/VIEWER.md "Pause and step").
        """
        if isinstance(state_or_data, tensegrity.State):
            ok = self.client.send_frame(state_or_data.time_s if t is None else float(t), self.model, state_or_data, data)
        elif isinstance(state_or_data, tensegrity.Data):
            if t is None:
                raise Error("viewer.update(data): give the time t [s] (a Data has no time)")
            ok = self.client.send_frame_data(float(t), self.model, state_or_data)
        else:
            raise TypeError(f"viewer.update: expected a tendyn.tensegrity.State or Data, got {type(state_or_data).__name__}")
        if not ok:
            self._warn()
        return ok

    def observer(self, controller: Optional[Callable[[float, Any, Any], None]] = None) -> Callable[[float, Any, Any], None]:
        """A controller for ``tensegrity.simulate(..., controller=..., control_period_s=P)`` that shows the state
        of each call (with ``control_period_s`` > 0 its ``data`` is fully evaluated at the state; at 0 it is
        called at every integrator stage, with tensions from the previous evaluation). ``controller``: your
        own controller, called after the frame is taken (what it sets is what the run uses)."""
        def watch(t_s: float, state: Any, data: Any) -> None:
            self.update(state, t_s, data=data)
            if controller is not None:
                controller(t_s, state, data)
        return watch

    def flush(self, timeout_s: float = 2.0) -> bool:
        """Wait until the last frame given is delivered (at most ``timeout_s``); True when it was."""
        ok = self.client.flush(timeout_s)
        if not ok:
            self._warn()
        return ok

    def close(self) -> None:
        """Deliver the last frame (at most the timeout) and stop the client."""
        self.client.close()

    def __enter__(self) -> "LiveViewer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _warn(self) -> None:
        err = self.client.stats.last_error
        if err and err != self._warned:
            self._warned = err
            warnings.warn(f"tendyn live view: {err}", RuntimeWarning, stacklevel=3)


def show(model: Any, host: str = "127.0.0.1", port: int = 8787, max_rate_hz: float = 30.0, timeout_s: float = 2.0,
         quiet: bool = False, token: str = "", keep_all: bool = False, realtime: float = 0.0) -> LiveViewer:
    """Connect to ``tendyn serve`` at ``host:port``, send the model's scene and return a :class:`LiveViewer`.

    Prints the page to open (``http://HOST:PORT/live?token=...``) on stderr unless ``quiet``. ``token``: the
    server's secret (the ``token=`` of the address ``tendyn serve`` prints); "" finds it in
    $TENDYN_SERVE_TOKEN or in the token file the server wrote for the user who started it. Raises
    tendyn.Error ("live view: no tendyn serve at http://127.0.0.1:8787 (Connection); start one with
    `tendyn serve --port 8787`") when no server answers, when ``host`` is not a loopback address, or
    when the server refuses the token.

    ``keep_all``: every frame given is delivered (queued and posted in batches, never replaced), so a fast
    program's whole run can be scrubbed in the page afterwards (tick "keep every frame" there, or open the
    address with ``&keep=1``). ``realtime``: > 0 paces the program: ``update`` waits until the wall time since
    the first frame reaches (t - t_first) / realtime (1: real time, 0.25: four times slower, 10: ten times
    faster); 0 (default) does not slow it.
    """
    view = LiveViewer(model, host=host, port=port, max_rate_hz=max_rate_hz, timeout_s=timeout_s, token=token,
                      keep_all=keep_all, realtime=realtime)
    if not quiet:
        print(f"tendyn live view: {view.url}", file=sys.stderr)
    return view
