// Entry point of the bundle: reads the page's config (<script id="tendyn-config">) and starts
// the viewer (embedded scene) or the studio (talks to `tendyn serve`).
import './style.css';
import 'uplot/dist/uPlot.min.css';
import { Viewer, createViewer } from './viewer.js';
import { startStudio } from './studio.js';
import { startLive } from './live.js';
import { unpackPlotData } from './scene.js';

function errorBox() {
  let box = document.getElementById('error');
  if (!box) {
    box = document.createElement('div');
    box.id = 'error';
    box.setAttribute('role', 'alert');
    box.hidden = true;
    document.body.insertBefore(box, document.body.firstChild);
  }
  return box;
}

export function showError(msg) {
  const box = errorBox();
  box.textContent = msg;
  box.hidden = false;
}

export function clearError() {
  const box = errorBox();
  box.textContent = '';
  box.hidden = true;
}

function readJson(id) {
  const node = document.getElementById(id);
  if (!node) return { missing: true };
  try {
    return { value: JSON.parse(node.textContent) };
  } catch (e) {
    return { error: e };
  }
}

/// The test and automation hooks of a viewer page (web/README.md "Test hooks"); also used by the
/// studio (and a live page) for their embedded viewer.
export function hooks(viewer, extra = {}) {
  return {
    ready: false,
    counts: () => viewer.counts(),
    seek: (i) => viewer.seek(i),
    play: () => viewer.play(),
    pause: () => viewer.pause(),
    frame: () => viewer.frameIndex,
    nframes: () => (viewer.store ? viewer.store.n : 0),
    renderedFrames: () => viewer.rendered,
    plotData: () => viewer.plotData(),
    setColorMode: (m) => viewer.setColorMode(m),
    // picking: select('cable', 'top1') as a click on it would; selection() = what #pick-info shows
    select: (type, name) => viewer.select(type === null ? null : { type, name }),
    selection: () => (viewer.selected && viewer.store ? viewer.elementInfo(viewer.selected, viewer.frameIndex) : null),
    pickAt: (x, y) => viewer.pickAt(x, y),
    // camera: 'fit' | 'follow' | 'free'; project(x, y, z) -> {x, y (CSS px in the 3D view), ndc}
    setCameraMode: (m) => viewer.setCameraMode(m),
    cameraMode: () => viewer.cameraMode,
    project: (x, y, z) => viewer.project(x, y, z),
    // layers ('rods', 'cables', 'points', 'labels', 'forces', 'paths', 'grid'), force arrows
    setLayer: (name, on) => viewer.setLayer(name, on),
    layers: () => ({ ...viewer.layers }),
    setForceScale: (mul) => viewer.setForceScale(mul),
    forceArrows: () => viewer.forceArrows(),
    // point clouds as drawn (a CDPR workspace): counts, value range, colour of every valued point
    clouds: () => viewer.cloudState(),
    // measurement between picked points (names), the picked point's trail
    measure: (names) => viewer.setMeasure(names || []),
    measurement: () => viewer.measurement(),
    trail: () => {
      const t = viewer.trail;
      if (!t || !t.visible) return null;
      const n = t.geometry.drawRange.count;
      return { point: viewer.meta.points[viewer.trailPoint], count: n, points_m: Array.from(t.geometry.getAttribute('position').array.slice(0, 3 * n)) };
    },
    // compared runs (tendyn view A B ...): [{label, title, frame, t_s, segments, positions_m}]
    ghosts: () => viewer.ghostState(),
    // record: still() -> PNG data URL; pngFrames({from, to, step}); recordWebm({fps, speed, t0, t1}) -> Blob
    still: () => viewer.still(),
    pngFrames: (o) => viewer.pngFrames(o),
    recordWebm: (o) => viewer.recordWebm(o),
    // headless rendering (tendyn render): fixed view size, a still at a time, the WebM as a data URL
    setRenderSize: (w, h) => viewer.setRenderSize(w, h),
    stillAt: (t) => viewer.stillAt(t),
    recordWebmDataUrl: (o) => viewer.recordWebmDataUrl(o),
    timeRange: () => (viewer.store && viewer.store.n ? [viewer.store.f.t_s[0], viewer.store.f.t_s[viewer.store.n - 1]] : null),
    _viewer: viewer,
    ...extra,
  };
}

async function startViewer() {
  const root = document.createElement('div');
  root.id = 'viewer';
  document.body.appendChild(root);
  const viewer = new Viewer(root, { page: true });
  window.tendyn = hooks(viewer);
  const scene = readJson('tendyn-scene');
  if (scene.missing) {
    showError('This page has no embedded scene (no <script id="tendyn-scene"> element).');
    return;
  }
  if (scene.error) {
    showError(`The embedded scene is not valid JSON: ${scene.error.message}`);
    return;
  }
  try {
    // a long run's plot data is deflated: inflated before the viewer reads the scene
    if (scene.value && scene.value.plot_data) scene.value.plot_data = await unpackPlotData(scene.value.plot_data);
    viewer.load(scene.value);
  } catch (e) {
    showError(`Cannot show this scene: ${e.message}`);
    return;
  }
  // ready once the first frame has been drawn
  const wait = () => {
    if (viewer.rendered > 0) window.tendyn.ready = true;
    else requestAnimationFrame(wait);
  };
  requestAnimationFrame(wait);
}

function main() {
  errorBox();
  const cfg = readJson('tendyn-config');
  const mode = cfg.value && typeof cfg.value === 'object' ? cfg.value.mode : undefined;
  try {
    if (mode === 'studio') {
      const root = document.createElement('div');
      root.id = 'studio';
      document.body.appendChild(root);
      startStudio(root, { Viewer, hooks, showError, clearError, createViewer });
    } else if (mode === 'live') {
      const root = document.createElement('div');
      root.id = 'live';
      document.body.appendChild(root);
      startLive(root, { Viewer, hooks, showError, clearError });
    } else if (mode === 'viewer' || mode === undefined) {
      startViewer().catch((e) => showError(`tendyn viewer failed to start: ${e && e.message ? e.message : e}`));
    } else {
      showError(`Unknown page mode ${JSON.stringify(mode)} in tendyn-config.`);
    }
  } catch (e) {
    showError(`tendyn ${mode || 'viewer'} failed to start: ${e && e.message ? e.message : e}`);
    if (window.tendyn) window.tendyn.ready = false;
  }
}

window.addEventListener('error', (ev) => {
  if (ev && ev.message) showError(`Script error: ${ev.message}`);
});

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', main);
else main();
