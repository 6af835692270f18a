// The live view (`tendyn serve` at /live, docs/VIEWER.md "Live view"): polls GET /live/state for
// the frames a running program pushes (viz::LiveClient, tendyn.viewer.show) and shows them in the
// same viewer component as the standalone page. At most MAX_RATE_HZ polls a second (the server
// answers a poll as soon as something new arrives, or after 1 s); each answer carries every frame
// since the previous one, and the newest is shown ("follow", on by default; scrubbing turns it off).
// Uses only the Viewer's load / append / seek / clear, like the studio.
import { el } from './dom.js';

const MAX_RATE_HZ = 30;
const MAX_PAGE_FRAMES = 20000;  // beyond this the oldest half is let go (memory of a long session), unless "keep every frame"
const STALE_S = 3;              // a session without a new frame for this long: "program stopped?"
/// The server's secret from the page's address (http://127.0.0.1:PORT/live?token=...), sent with every poll.
const TOKEN = new URLSearchParams(location.search).get('token') || '';


/// Frames [from, n) of the viewer's store, in scene.json's layout (for a reload).
function storeSlice(store, from) {
  const f = store.f;
  const out = { t_s: f.t_s.slice(from), positions_m: f.positions_m.slice(from), cable_tension_N: f.cable_tension_N.slice(from), cable_strain: f.cable_strain.slice(from) };
  if (store.hasCom) out.com_m = f.com_m.slice(from);
  if (store.hasEnergy) {
    out.energy_J = {};
    for (const k of store.energyKeys) out.energy_J[k] = f.energy_J[k].slice(from);
  }
  return out;
}

export function startLive(root, { Viewer, hooks, showError, clearError }) {
  const status = el('span', { id: 'live-status', text: 'connecting...' });
  const follow = el('input', { id: 'live-follow', type: 'checkbox' });
  follow.checked = true;
  // keep every frame: the server is asked for the oldest frames not yet seen (no gaps) and the page
  // never lets frames go; with tendyn.viewer.show(keep_all=True) / LiveClientOptions::keep_all the
  // program delivers them all. Also from the address: /live?keep=1.
  const keep = el('input', { id: 'live-keep', type: 'checkbox' });
  keep.checked = new URLSearchParams(location.search).get('keep') === '1';
  const note = el('span', { id: 'live-note', style: 'color:#a05a00' });
  // pause / step the running program: its send_frame (tendyn.viewer update) waits while paused
  const pauseBtn = el('button', { id: 'live-pause', type: 'button', class: 'tv-btn', title: 'pause the running program (it waits in send_frame / update)', text: 'pause program' });
  const stepN = el('input', { id: 'live-step-n', type: 'number', min: '1', max: '1000000', step: '1', value: '1', style: 'width:5em', 'aria-label': 'frames per step' });
  const stepBtn = el('button', { id: 'live-step', type: 'button', class: 'tv-btn', title: 'let the paused program publish this many frames, then pause again', text: 'step' });
  const ctlState = el('span', { id: 'live-control' });
  const bar = el('div', { class: 'tv-live-bar', style: 'display:flex;gap:1em;align-items:center;padding:4px 8px;font:13px sans-serif;background:#eef2f5' }, [
    el('strong', { text: 'live' }), status, el('label', {}, [follow, ' follow the newest frame']),
    el('label', { title: 'keep all frames of the session (scrub them after the run); the program must send them all: tendyn.viewer.show(model, keep_all=True)' }, [keep, ' keep every frame']),
    el('span', {}, [pauseBtn, ' ', stepBtn, ' ', stepN, ' frames ', ctlState]),
    note,
  ]);
  root.appendChild(bar);
  const viewerRoot = el('div', { id: 'viewer' });
  root.appendChild(viewerRoot);
  const viewer = new Viewer(viewerRoot);
  viewer.titleEl.textContent = 'waiting for a program';
  const scrub = document.getElementById('scrub');
  if (scrub) scrub.addEventListener('input', () => { follow.checked = false; });

  const st = { session: 0, count: 0, meta: null, loaded: false, polls: 0, error: null, lastNewMs: performance.now(), stale: false, gone: false, paused: false, stepsLeft: 0, serverCount: 0, controlPending: 0, controlAnswered: 0 };
  const showControl = () => {
    pauseBtn.textContent = st.paused ? 'resume program' : 'pause program';
    ctlState.textContent = st.paused ? `paused: the program waits in send_frame${st.stepsLeft > 0 ? ` (${st.stepsLeft} frames of the step to go)` : ''}` : '';
  };
  // A poll's pause state is used only if the poll was sent after the last control answer and no
  // control request is in flight (a poll the server answered before a pause would otherwise show
  // "running" for one poll after the pause was confirmed).
  const control = async (body) => {
    st.controlPending++;
    try {
      const res = await fetch('/live/control', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Tendyn-Token': TOKEN }, body: JSON.stringify(body) });
      const ans = await res.json();
      if (!res.ok) throw new Error(ans && ans.error ? ans.error : `HTTP ${res.status}`);
      st.paused = ans.paused;
      st.stepsLeft = ans.steps_left;
      showControl();
    } catch (e) {
      showError(`live view: ${body.action}: ${e && e.message ? e.message : e}`);
    } finally {
      st.controlPending--;
      st.controlAnswered++;
    }
  };
  pauseBtn.addEventListener('click', () => control({ action: st.paused ? 'resume' : 'pause' }));
  stepBtn.addEventListener('click', () => {
    const n = Number(stepN.value);
    if (!Number.isInteger(n) || n < 1 || n > 1000000) {
      showError(`live view: frames per step: ${stepN.value} is not an integer in [1, 1000000]`);
      return;
    }
    control({ action: 'step', frames: n });
  });
  const lastFrame = () => {
    const s = viewer.store;
    if (!s || s.n === 0) return null;
    return { t_s: s.f.t_s[s.n - 1], positions_m: s.f.positions_m[s.n - 1], cable_tension_N: s.f.cable_tension_N[s.n - 1] };
  };
  window.tendyn = hooks(viewer, {
    live: () => ({
      session: st.session, count: st.count, polls: st.polls, frames: viewer.store ? viewer.store.n : 0,
      shown: viewer.store && viewer.store.n ? viewer.frameIndex : -1, last: lastFrame(), error: st.error,
      stale: st.stale, gone: st.gone, keep: keep.checked, note: note.textContent, paused: st.paused, steps_left: st.stepsLeft, server_count: st.serverCount,
    }),
  });

  const show = () => {
    const n = viewer.store ? viewer.store.n : 0;
    if (follow.checked && !viewer.playing && n > 0) viewer.seek(n - 1);
    const t = n ? viewer.store.f.t_s[n - 1] : null;
    status.textContent = st.meta
      ? `session ${st.session}: ${st.count} frames received${t === null ? '' : `, last t = ${t.toFixed(3)} s`}`
      : 'waiting for a program to send a scene (viz::LiveClient, tendyn.viewer.show)';
  };

  /// The notes of the bar: a session whose program sent nothing for STALE_S seconds.
  const noteStale = () => {
    const quiet = (performance.now() - st.lastNewMs) / 1000;
    st.stale = !st.gone && st.meta !== null && quiet >= STALE_S;
    if (st.gone) return;
    note.textContent = st.stale && !st.paused ? `no new frame for ${Math.floor(quiet)} s (program stopped or paused?)` : '';
  };

  const handle = (ans, gen) => {
    const fresh = ans.session !== st.session || ans.scene !== undefined;
    if (fresh || ans.frames.t_s.length) st.lastNewMs = performance.now();
    if (fresh) {
      // a new session (or the first answer): its scene; the viewer is built with the first frames
      st.session = ans.session;
      st.meta = ans.scene || null;
      st.loaded = false;
      viewer.clear();
      viewer.titleEl.textContent = st.meta ? `${st.meta.title || 'live'} (waiting for frames)` : 'waiting for a program';
    }
    if (st.meta && ans.frames.t_s.length) {
      if (!st.loaded) {
        viewer.load(st.meta, ans.frames);
        st.loaded = true;
      } else {
        viewer.append(ans.frames);
        if (!keep.checked && viewer.store.n > MAX_PAGE_FRAMES) viewer.load(st.meta, storeSlice(viewer.store, viewer.store.n - MAX_PAGE_FRAMES / 2));
      }
    }
    st.serverCount = ans.count;
    if (typeof ans.paused === 'boolean' && gen === st.controlAnswered && st.controlPending === 0) {
      st.paused = ans.paused;
      st.stepsLeft = ans.steps_left || 0;
      showControl();
    }
    // keeping every frame: the next poll starts after the last frame received (the server pages them)
    st.count = keep.checked ? ans.first + ans.frames.t_s.length : ans.count;
    show();
  };

  const poll = async () => {
    const started = performance.now();
    const gen = st.controlAnswered;
    try {
      let res;
      try {
        res = await fetch(`/live/state?session=${st.session}&after=${st.count}${keep.checked ? '&keep=1' : ''}`, { headers: { 'X-Tendyn-Token': TOKEN } });
      } catch (e) {
        // the browser's own words ("Failed to fetch", "NetworkError when attempting...") say nothing useful
        throw Object.assign(new Error(`the server (tendyn serve at ${location.host}) does not answer: it was stopped or crashed. ` +
          'The frames received so far stay here; start it again (tendyn serve) and this page reconnects by itself.'), { gone: true });
      }
      let ans;
      try {
        ans = await res.json();
      } catch (e) {
        throw new Error(`the server answered HTTP ${res.status} without JSON (is ${location.host} a tendyn serve?)`, { cause: e });
      }
      if (!res.ok) throw new Error(ans && ans.error ? ans.error : `HTTP ${res.status}`);
      handle(ans, gen);
      if (st.error) clearError();
      st.error = null;
      st.gone = false;
    } catch (e) {
      st.error = String(e && e.message ? e.message : e);
      st.gone = Boolean(e && e.gone);
      status.textContent = st.gone ? 'server gone (retrying every second)' : `error: ${st.error} (retrying)`;
      note.textContent = st.gone ? 'server gone' : note.textContent;
      showError(`live view: ${st.error}`);
    }
    noteStale();
    st.polls++;
    window.tendyn.ready = true;
    const wait = Math.max(st.error ? 1000 : 0, 1000 / MAX_RATE_HZ - (performance.now() - started));
    setTimeout(poll, wait);
  };
  poll();
}
