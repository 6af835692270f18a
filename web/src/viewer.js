// The 3D viewer component: three.js scene + playback controls + readouts + uPlot plots, picking
// (hover and click on rods, cables, points), camera modes and keyboard shortcuts.
// Used as the whole page in "viewer" mode and as the result pane of the studio and of the live
// page, where frames arrive in blocks (append()) or one by one (appendFrame()).
//
//   const v = createViewer(container, scene);   // scene: docs/VIEWER.md (frames may be empty)
//   v.appendFrame({t_s, positions_m, cable_tension_N, cable_strain, com_m, energy_J});
import {
  AmbientLight, AxesHelper, BufferAttribute, BufferGeometry, Color, CylinderGeometry, DirectionalLight,
  DoubleSide, GridHelper, Group, HemisphereLight, InstancedMesh, Line, LineBasicMaterial,
  LineDashedMaterial, LineSegments, Matrix4, Mesh, MeshBasicMaterial, MeshLambertMaterial, PerspectiveCamera,
  Plane, PlaneGeometry, Points, PointsMaterial, Quaternion, Raycaster, Scene, SphereGeometry, Vector2, Vector3, WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { FrameStore, blockOfFrame, normalizeSceneMeta } from './scene.js';
import { PLOT_HEIGHT, TimePlot, fmtValue, palette } from './plots.js';
import { viridis, viridisGradient } from './colormap.js';
import { el } from './dom.js';
import { ArrowSet, FORCE_KINDS, forceArrowSpecs, forceMaxima, forceVectors } from './forces.js';

const SPEEDS = [0.25, 0.5, 1, 2, 4];
const ENERGY_KEYS = ['kinetic', 'elastic', 'gravitational', 'total'];
const ENERGY_COLORS = ['#d62728', '#1f77b4', '#2ca02c', '#222222'];
const CAMERA_MODES = [['fit', 'fit (initial pose)'], ['follow', 'follow COM'], ['free', 'free']];
const Y_AXIS = new Vector3(0, 1, 0);
const SLACK_COLOR = new Color(0x8a8a8a);
const COM_COLOR = '#e07b00';
const PATH_COLORS = { target: '#e03131', track: '#ae3ec9' };
const JOINT_COLORS = { revolute: '#c2255c', prismatic: '#1098ad' };
const SOFTWARE_MAX_PIXELS = 250000;
const PICK_PX = 8; // how close (CSS pixels) the pointer must be to an element to pick it
const LAYERS = [['rods', true], ['cables', true], ['points', true], ['labels', false], ['forces', false], ['paths', true], ['cloud', true], ['grid', true]];
const FORCE_SCALES = [0.25, 0.5, 1, 2, 4];
const MEASURE_COLOR = '#0b7285';
const TRAIL_COLOR = '#1864ab';
const MAX_LABELS = 200;
const GHOST_COLORS = ['#5c7cfa', '#f76707', '#37b24d', '#ae3ec9'];
const CLOUD_NONE_COLOR = '#868e96'; // cloud points without a value (a workspace's outside points)
const CLOUD_HIGHLIGHT_COLOR = '#e8590c'; // highlighted cloud points (a workspace's boundary)

const SHORTCUTS = [
  ['space', 'play / pause'],
  ['\u2190 / \u2192', 'previous / next frame (shift: 10 frames)'],
  ['Home', 'first frame, camera reset (fit to the initial pose)'],
  ['End', 'last frame'],
  ['c', 'next camera mode (fit, follow, free)'],
  ['Esc', 'clear the selection, close this help'],
  ['?', 'show / hide this help'],
  ['mouse', 'left drag: orbit, right drag: pan, wheel: zoom'],
  ['click', 'pick a rod, cable or point: its values and its plot (a point: its trail); click empty space to clear'],
  ['shift + click', 'add a point to the measurement: 2 points give their distance, 3 the angle at the middle one'],
];


/// Number shown in the readouts: 5 significant digits, no exponent for ordinary magnitudes.
export const fmtEnergy = fmtValue;

/// A coordinate in metres for the readouts (mm resolution, more for small scenes).
function fmtM(v, step) {
  const d = Math.max(3, Math.min(6, 1 - Math.floor(Math.log10(Math.max(step, 1e-9)))));
  return v.toFixed(d);
}

/// True when WebGL is rendered by a CPU rasteriser.
function isSoftwareGL() {
  try {
    const gl = document.createElement('canvas').getContext('webgl2') || document.createElement('canvas').getContext('webgl');
    if (!gl) return false;
    const ext = gl.getExtension('WEBGL_debug_renderer_info');
    const name = String(gl.getParameter(ext ? ext.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    const lose = gl.getExtension('WEBGL_lose_context');
    if (lose) lose.loseContext();
    return /swiftshader|llvmpipe|softpipe|software|basic render/i.test(name);
  } catch {
    return false;
  }
}

/// Clips the polyline pts ([[x, y, z]...]) to the rectangle [x0, x1] x [y0, y1] (z kept as
/// interpolated): a list of segments [[a, b]...] (Liang-Barsky per segment).
export function clipPolyline(pts, x0, x1, y0, y1) {
  const out = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i], b = pts[i + 1];
    const dx = b[0] - a[0], dy = b[1] - a[1];
    let t0 = 0, t1 = 1;
    let ok = true;
    for (const [p, q] of [[-dx, a[0] - x0], [dx, x1 - a[0]], [-dy, a[1] - y0], [dy, y1 - a[1]]]) {
      if (p === 0) {
        if (q < 0) { ok = false; break; }
        continue;
      }
      const r = q / p;
      if (p < 0) { if (r > t1) { ok = false; break; } if (r > t0) t0 = r; } else { if (r < t0) { ok = false; break; } if (r < t1) t1 = r; }
    }
    if (!ok) continue;
    const at = (t) => [a[0] + t * dx, a[1] + t * dy, a[2] + t * (b[2] - a[2])];
    out.push([at(t0), at(t1)]);
  }
  return out;
}

/// Triangles of the convex hull of a few points ([[x, y, z]...]; index triples): every triple whose
/// plane has all points on one side (within eps). Coplanar points give all their triangles (drawn
/// as one flat face); O(n^4), for the few attachment points of a platform.
export function hullTriangles(pts, eps) {
  const n = pts.length;
  const out = [];
  if (n < 3 || n > 40) return out;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) for (let k = j + 1; k < n; k++) {
    const [a, b, c] = [pts[i], pts[j], pts[k]];
    const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    const nn = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const len = Math.hypot(...nn);
    if (!(len > eps * eps)) continue; // collinear
    let pos = 0, neg = 0;
    for (let m = 0; m < n; m++) {
      const s = ((pts[m][0] - a[0]) * nn[0] + (pts[m][1] - a[1]) * nn[1] + (pts[m][2] - a[2]) * nn[2]) / len;
      if (s > eps) pos++;
      else if (s < -eps) neg++;
    }
    if (pos === 0 || neg === 0) out.push([i, j, k]);
  }
  return out;
}

/// Distance from (px, py) to the segment a-b in the plane.
function segDist(px, py, ax, ay, bx, by) {
  const dx = bx - ax, dy = by - ay;
  const l2 = dx * dx + dy * dy;
  let t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

export class Viewer {
  /// root: the element the viewer fills. options: onError(e), page (true: the viewer is the whole
  /// page and takes its height; false: embedded, e.g. in the studio).
  constructor(root, { onError, page = false } = {}) {
    this.root = root;
    this.page = page;
    this.onError = onError || ((e) => { throw e; });
    this.meta = null;
    this.store = null;
    this.frameIndex = 0;
    this.playing = false;
    this.speed = 1;
    this.loop = true;
    this.colorMode = 'tension';
    this.cameraMode = 'fit';
    this.simTime = 0;
    this.lastWall = null;
    this.rendered = 0;
    this.cursorWall = 0;
    this.dirty = true;
    this.ready = false;
    this.plots = [];
    this.cablePlot = null;
    this.pickPlot = null;
    this.selected = null; // {type: 'cable' | 'rod' | 'point', index}
    this.hovered = null;
    this.pointer = null; // last pointer position over the canvas {x, y} (CSS px), or null
    this.pointerMoved = false;
    this.layers = Object.fromEntries(LAYERS);
    this.forceScaleMul = 1;
    this.measure = []; // point indices (at most 3)
    this.tmp = { a: new Vector3(), b: new Vector3(), d: new Vector3(), mid: new Vector3(), m: new Matrix4(), q: new Quaternion(), s: new Vector3(), c: new Color() };
    this.buildDom();
    this.buildThree();
    this.loopFn = (now) => this.tick(now);
    requestAnimationFrame(this.loopFn);
  }

  // ---------------------------------------------------------------- DOM
  buildDom() {
    const r = this.root;
    r.classList.add('tv-root');
    if (this.page) r.classList.add('tv-page');
    this.titleEl = el('h1', { class: 'tv-title', text: 'tendyn' });
    this.kindEl = el('span', { class: 'tv-kind' });
    this.thinnedEl = el('span', { class: 'tv-thinned', id: 'thinned-note' });
    this.thinnedEl.hidden = true;
    this.helpBtn = el('button', { id: 'help', type: 'button', class: 'tv-btn tv-help-btn', title: 'keyboard shortcuts and mouse (?)', text: '?' });
    this.view3d = el('div', { class: 'tv-3d' });
    // readouts
    this.timeEl = el('span', { id: 'time-readout', text: 't = 0.000 s' });
    this.frameEl = el('span', { class: 'tv-frame', text: '' });
    this.energyEls = {};
    const readouts = el('div', { class: 'tv-readouts' }, [this.timeEl, this.frameEl]);
    this.energyBox = el('div', { class: 'tv-energies' });
    for (const k of ENERGY_KEYS) {
      const v = el('span', { id: `energy-${k}`, class: 'tv-num', text: '-' });
      this.energyEls[k] = v;
      this.energyBox.appendChild(el('div', { class: 'tv-energy' }, [el('span', { class: 'tv-lbl', text: k }), v, el('span', { class: 'tv-unit', text: ' J' })]));
    }
    readouts.appendChild(this.energyBox);
    this.view3d.appendChild(readouts);
    // bottom left: colour bar and the key of the lines (paths, COM track, joint axes)
    this.legendEl = el('div', { class: 'tv-colorbar', id: 'colorbar' });
    this.keyEl = el('div', { class: 'tv-key', id: 'path-legend' });
    this.forceLegendEl = el('div', { class: 'tv-force-legend', id: 'force-legend' });
    this.forceLegendEl.hidden = true;
    this.cloudLegendEl = el('div', { class: 'tv-colorbar', id: 'cloud-colorbar' });
    this.view3d.appendChild(el('div', { class: 'tv-bottom-left' }, [this.keyEl, this.forceLegendEl, this.cloudLegendEl, this.legendEl]));
    // names of the points (layer "labels") and the measurement panel
    this.labelsEl = el('div', { class: 'tv-labels', id: 'labels' });
    this.labelsEl.hidden = true;
    this.view3d.appendChild(this.labelsEl);
    this.measureEl = el('div', { id: 'measure', class: 'tv-measure' });
    this.measureEl.hidden = true;
    this.view3d.appendChild(this.measureEl);
    // bottom right: world readout, grid scale, axis triad
    this.worldEl = el('div', { id: 'world-readout', class: 'tv-world', text: '' });
    this.gridEl = el('div', { id: 'grid-scale', class: 'tv-grid-scale', text: '' });
    // the axis triad: an SVG (the 3D view's only canvas stays the WebGL one)
    const ns = 'http://www.w3.org/2000/svg';
    this.triad = document.createElementNS(ns, 'svg');
    for (const [k, v] of Object.entries({ id: 'axis-triad', class: 'tv-triad', width: '84', height: '84', viewBox: '0 0 84 84', role: 'img', 'aria-label': 'world axes x (red), y (green), z (blue)' })) this.triad.setAttribute(k, v);
    this.triadAxes = [['x', '#d62728'], ['y', '#2b8a3e'], ['z', '#1c63d6']].map(([name, color]) => {
      const line = document.createElementNS(ns, 'line');
      line.setAttribute('stroke', color);
      line.setAttribute('stroke-width', '2.5');
      line.setAttribute('stroke-linecap', 'round');
      const text = document.createElementNS(ns, 'text');
      text.setAttribute('fill', color);
      text.setAttribute('text-anchor', 'middle');
      text.setAttribute('dominant-baseline', 'central');
      text.setAttribute('font-size', '12');
      text.setAttribute('font-weight', '700');
      text.textContent = name;
      const g = document.createElementNS(ns, 'g');
      g.append(line, text);
      this.triad.appendChild(g);
      return { name, g, line, text };
    });
    this.view3d.appendChild(el('div', { class: 'tv-bottom-right' }, [el('div', { class: 'tv-world-box' }, [this.worldEl, this.gridEl]), this.triad]));
    // top right: the picked element
    this.pickEl = el('div', { id: 'pick-info', class: 'tv-pick' });
    this.pickEl.hidden = true;
    this.view3d.appendChild(this.pickEl);
    this.hoverEl = el('div', { id: 'hover-info', class: 'tv-hover' });
    this.hoverEl.hidden = true;
    this.view3d.appendChild(this.hoverEl);
    // help overlay
    const rows = SHORTCUTS.map(([k, what]) => el('tr', {}, [el('td', {}, [el('kbd', { text: k })]), el('td', { text: what })]));
    this.helpEl = el('div', { id: 'help-overlay', class: 'tv-help', role: 'dialog', 'aria-label': 'keyboard shortcuts' }, [
      el('h2', { text: 'Keyboard and mouse' }), el('table', {}, rows),
      el('p', { class: 'tv-help-note', text: 'Camera: "fit" frames the initial pose, "follow" keeps the centre of mass in the middle, "free" leaves the camera where you put it. Plots: click to seek; legend: click a series to hide it, type in the box to filter.' }),
    ]);
    this.helpEl.hidden = true;
    this.view3d.appendChild(this.helpEl);
    // controls
    this.playBtn = el('button', { id: 'play', type: 'button', class: 'tv-btn', title: 'play / pause (space)', text: 'Play' });
    this.scrub = el('input', { id: 'scrub', type: 'range', min: '0', max: '0', step: '1', value: '0', 'aria-label': 'frame', title: 'frame (\u2190 \u2192, Home, End)' });
    this.speedSel = el('select', { id: 'speed', 'aria-label': 'playback speed' });
    for (const s of SPEEDS) {
      const o = el('option', { value: String(s), text: `${s}x` });
      if (s === 1) o.selected = true;
      this.speedSel.appendChild(o);
    }
    this.loopBox = el('input', { id: 'loop', type: 'checkbox' });
    this.loopBox.checked = true;
    this.colorSel = el('select', { id: 'color-mode', 'aria-label': 'cable colour' });
    this.colorSel.appendChild(el('option', { value: 'tension', text: 'tension' }));
    this.colorSel.appendChild(el('option', { value: 'strain', text: 'strain' }));
    this.cableCtl = el('label', { class: 'tv-ctl', id: 'cable-control' }, ['cables ', this.colorSel]);
    this.cameraSel = el('select', { id: 'camera-mode', 'aria-label': 'camera', title: 'camera mode (c)' });
    for (const [v, text] of CAMERA_MODES) this.cameraSel.appendChild(el('option', { value: v, text }));
    // layers and the force arrows' scale
    this.layerBoxes = {};
    const layerItems = LAYERS.map(([name]) => {
      const box = el('input', { id: `layer-${name}`, type: 'checkbox' });
      box.checked = this.layers[name];
      box.addEventListener('change', () => this.setLayer(name, box.checked));
      this.layerBoxes[name] = box;
      return el('label', { class: 'tv-layer', id: `layer-${name}-item` }, [box, ` ${name}`]);
    });
    this.forceScaleSel = el('select', { id: 'force-scale', 'aria-label': 'force arrow scale', title: 'length of the force arrows' });
    for (const v of FORCE_SCALES) {
      const o = el('option', { value: String(v), text: `${v}x` });
      if (v === 1) o.selected = true;
      this.forceScaleSel.appendChild(o);
    }
    this.forceScaleSel.addEventListener('change', () => this.setForceScale(Number(this.forceScaleSel.value) || 1));
    // record: a still (PNG) of the current frame, the playback as WebM
    this.stillBtn = el('button', { id: 'record-still', type: 'button', class: 'tv-btn', title: 'save the 3D view at this time as PNG', text: 'PNG' });
    this.webmBtn = el('button', { id: 'record-webm', type: 'button', class: 'tv-btn', title: 'record the playback (first to last frame, 1x) as WebM video', text: 'WebM' });
    this.stillBtn.addEventListener('click', () => this.download(this.still(), `${this.meta ? this.meta.title : 'view'}-t${this.store && this.store.n ? this.store.f.t_s[this.frameIndex].toFixed(3) : 0}.png`));
    this.webmBtn.addEventListener('click', async () => {
      if (this.recording) return;
      this.webmBtn.textContent = 'recording...';
      try {
        const blob = await this.recordWebm();
        this.download(URL.createObjectURL(blob), `${this.meta ? this.meta.title : 'view'}.webm`);
      } catch (e) {
        this.onError(e);
      } finally {
        this.webmBtn.textContent = 'WebM';
      }
    });
    const controls = el('div', { class: 'tv-controls' }, [
      this.playBtn, this.scrub,
      el('label', { class: 'tv-ctl' }, ['speed ', this.speedSel]),
      el('label', { class: 'tv-ctl' }, [this.loopBox, ' loop']),
      this.cableCtl,
      el('label', { class: 'tv-ctl' }, ['camera ', this.cameraSel]),
      el('span', { class: 'tv-ctl tv-layers', id: 'layers' }, ['show', ...layerItems]),
      el('label', { class: 'tv-ctl', id: 'force-scale-control' }, ['arrows ', this.forceScaleSel]),
      el('span', { class: 'tv-ctl', id: 'record' }, ['save ', this.stillBtn, ' ', this.webmBtn]),
    ]);
    this.plotsEl = el('div', { class: 'tv-plots' });
    const left = el('div', { class: 'tv-left' }, [this.view3d, controls]);
    r.appendChild(el('div', { class: 'tv-header' }, [this.titleEl, this.kindEl, this.thinnedEl, el('span', { class: 'tv-spacer' }), this.helpBtn]));
    r.appendChild(el('div', { class: 'tv-body' }, [left, this.plotsEl]));

    this.playBtn.addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    this.scrub.addEventListener('input', () => {
      this.pause();
      this.seek(Number(this.scrub.value));
    });
    this.speedSel.addEventListener('change', () => { this.speed = Number(this.speedSel.value) || 1; });
    this.loopBox.addEventListener('change', () => { this.loop = this.loopBox.checked; });
    this.colorSel.addEventListener('change', () => this.setColorMode(this.colorSel.value));
    this.cameraSel.addEventListener('change', () => this.setCameraMode(this.cameraSel.value));
    this.helpBtn.addEventListener('click', () => this.toggleHelp());
    this.keyHandler = (ev) => this.onKey(ev);
    window.addEventListener('keydown', this.keyHandler);
  }

  onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target && ev.target.tagName;
    const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
    if (typing && !(tag === 'INPUT' && ev.target.type === 'range' && (ev.key === 'Home' || ev.key === ' '))) return;
    const n = this.store ? this.store.n : 0;
    switch (ev.key) {
      case ' ':
        if (tag === 'BUTTON') return; // the button's own click
        ev.preventDefault();
        if (this.playing) this.pause();
        else this.play();
        break;
      case 'ArrowRight':
      case 'ArrowLeft':
        if (!n) return;
        ev.preventDefault();
        this.pause();
        this.seek(this.frameIndex + (ev.key === 'ArrowRight' ? 1 : -1) * (ev.shiftKey ? 10 : 1));
        break;
      case 'Home':
        ev.preventDefault();
        this.pause();
        this.seek(0);
        this.resetCamera();
        break;
      case 'End':
        if (!n) return;
        ev.preventDefault();
        this.pause();
        this.seek(n - 1);
        break;
      case 'c': {
        const i = CAMERA_MODES.findIndex(([v]) => v === this.cameraMode);
        this.setCameraMode(CAMERA_MODES[(i + 1) % CAMERA_MODES.length][0]);
        break;
      }
      case '?':
        this.toggleHelp();
        break;
      case 'Escape':
        if (!this.helpEl.hidden) this.toggleHelp(false);
        else if (this.measure.length) this.setMeasure([]);
        else this.select(null);
        break;
      default:
    }
  }

  toggleHelp(show) {
    this.helpEl.hidden = show === undefined ? !this.helpEl.hidden : !show;
  }

  // ---------------------------------------------------------------- three.js
  buildThree() {
    // A software rasteriser (SwiftShader, llvmpipe: headless browsers, VMs without a GPU) gets
    // no MSAA and 1 CSS pixel per pixel, which keeps playback fluid there.
    this.software = isSoftwareGL();
    const renderer = new WebGLRenderer({ antialias: !this.software, powerPreference: 'high-performance' });
    renderer.setPixelRatio(this.software ? 1 : Math.min(window.devicePixelRatio || 1, 2));
    renderer.setClearColor(0xf4f6f8, 1);
    this.renderer = renderer;
    this.view3d.insertBefore(renderer.domElement, this.view3d.firstChild);
    this.scene3 = new Scene();
    this.camera = new PerspectiveCamera(45, 1, 0.01, 1000);
    this.camera.up.set(0, 0, 1);
    this.camera.position.set(2, -3, 2);
    this.controls = new OrbitControls(this.camera, renderer.domElement);
    this.controls.enableDamping = false;
    this.controls.addEventListener('change', () => { this.dirty = true; this.triadDirty = true; });
    this.scene3.add(new HemisphereLight(0xffffff, 0x667788, 1.6));
    this.scene3.add(new AmbientLight(0xffffff, 0.3));
    this.sun = new DirectionalLight(0xffffff, 1.4);
    this.sun.position.set(1, -2, 3);
    this.scene3.add(this.sun);
    this.scene3.add(this.sun.target);
    this.world = new Group();
    this.scene3.add(this.world);
    this.raycaster = new Raycaster();
    this.floorPlane = new Plane(new Vector3(0, 0, 1), 0);
    this.ndc = new Vector2();
    // highlights of the selected (amber) and hovered (blue) element: one cylinder and one sphere each
    const hiCyl = new CylinderGeometry(1, 1, 1, 12, 1, false);
    hiCyl.userData.shared = true;
    const hiSph = new SphereGeometry(1, 14, 10);
    hiSph.userData.shared = true;
    const mkHi = (color, opacity, order) => {
      const mat = new MeshBasicMaterial({ color, transparent: true, opacity, depthTest: false, depthWrite: false });
      const cyl = new Mesh(hiCyl, mat);
      cyl.matrixAutoUpdate = false;
      const sph = new Mesh(hiSph, mat);
      for (const o of [cyl, sph]) {
        o.visible = false;
        o.renderOrder = order;
        o.frustumCulled = false;
        this.scene3.add(o);
      }
      return { cyl, sph };
    };
    this.hiSel = mkHi(0xffa400, 0.6, 10);
    this.hiHov = mkHi(0x1c7ed6, 0.35, 9);
    const cv = renderer.domElement;
    cv.addEventListener('pointermove', (ev) => {
      const r = cv.getBoundingClientRect();
      this.pointer = { x: ev.clientX - r.left, y: ev.clientY - r.top };
      this.pointerMoved = true;
      if (this.down && Math.hypot(ev.clientX - this.down.x, ev.clientY - this.down.y) > 4) this.down.drag = true;
    });
    cv.addEventListener('pointerleave', () => {
      this.pointer = null;
      this.pointerMoved = true;
    });
    cv.addEventListener('pointerdown', (ev) => { this.down = { x: ev.clientX, y: ev.clientY, drag: false, button: ev.button }; });
    cv.addEventListener('pointerup', (ev) => {
      const d = this.down;
      this.down = null;
      if (!d || d.drag || d.button !== 0) return;
      const r = cv.getBoundingClientRect();
      const hit = this.pickAt(ev.clientX - r.left, ev.clientY - r.top);
      if (ev.shiftKey) {
        if (hit && hit.type === 'point') this.toggleMeasurePoint(hit.index);
        return;
      }
      this.select(hit);
    });
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.view3d);
    this.pro = new ResizeObserver(() => this.fitPlotHeights());
    this.pro.observe(this.plotsEl);
  }

  resize() {
    const w = Math.max(1, this.view3d.clientWidth);
    const h = Math.max(1, this.view3d.clientHeight);
    if (this.software) {
      // CPU rasterising and the compositor's read-back scale with the pixel count: cap it.
      this.renderer.setPixelRatio(Math.min(1, Math.sqrt(SOFTWARE_MAX_PIXELS / (w * h))));
    }
    this.renderer.setSize(w, h, true);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.dirty = true;
  }

  /// Stretches the plots to fill the plot column when they would leave it partly empty.
  fitPlotHeights() {
    // only in the two-column layout, where the plot column has the window's height (docs: style.css)
    if (!this.page || !this.plots.length || window.matchMedia('(max-width: 900px)').matches) return;
    const avail = this.plotsEl.clientHeight;
    if (avail < 100) return;
    let extra = 0; // legends, titles, gaps
    for (const p of this.plots) extra += p.box.offsetHeight - p.height + 8;
    const per = Math.min(420, Math.floor((avail - extra) / this.plots.length));
    for (const p of this.plots) p.setHeight(Math.max(PLOT_HEIGHT, per));
  }

  disposeWorld() {
    this.world.traverse((o) => {
      if (o.geometry && !o.geometry.userData.shared) o.geometry.dispose();
    });
    this.world.clear();
    for (const g of this.sharedGeos || []) g.dispose();
    this.sharedGeos = [];
    this.groundGroup = null;
    for (const p of this.plots) p.destroy();
    this.plots = [];
    this.cablePlot = null;
    this.pickPlot = null;
    this.selected = null;
    this.hovered = null;
    this.pickEl.hidden = true;
    this.hoverEl.hidden = true;
    for (const h of [this.hiSel, this.hiHov]) h.cyl.visible = h.sph.visible = false;
    if (this.arrows) this.arrows.dispose();
    this.arrows = null;
    this.forceSpecs = [];
    this.trail = null;
    this.measureLine = null;
    this.measure = [];
    this.measureEl.hidden = true;
    this.labelsEl.innerHTML = '';
    this.labelEls = [];
  }

  /// Replaces the scene. scene: a full scene (with "frames") or its static part and frames
  /// given separately (studio; frames may be omitted: no frames yet). Throws SceneError on a
  /// malformed scene.
  load(scene, frames) {
    const meta = normalizeSceneMeta(scene);
    const store = new FrameStore(meta);
    const block = frames !== undefined ? frames : scene.frames;
    if (block !== undefined && block !== null) store.append(block, 'frames');
    // other runs to compare with (tendyn view A B ...): drawn as ghosts, plotted beside this one
    const runs = [];
    if (Array.isArray(scene.compare)) {
      scene.compare.forEach((other, i) => {
        let m, st;
        try {
          m = normalizeSceneMeta(other);
          st = new FrameStore(m);
          st.append(other.frames, 'frames');
        } catch (e) {
          throw new e.constructor(`compare[${i}]: ${e.message}`);
        }
        runs.push({ label: String.fromCharCode(66 + (i % 25)), meta: m, store: st, map: [] });
      });
    }
    this.runs = runs;
    this.pause();
    this.disposeWorld();
    this.meta = meta;
    this.store = store;
    this.frameIndex = 0;
    this.simTime = store.n ? store.f.t_s[0] : 0;
    this.titleEl.textContent = meta.title;
    this.kindEl.textContent = runs.length ? `${meta.kind}; A = this run, ${runs.map((r) => `${r.label} = ${r.meta.title}`).join(', ')} (ghosts)` : meta.kind;
    const th = meta.thinned;
    this.thinnedEl.hidden = !(th && th.stride > 1);
    this.thinnedEl.textContent = th && th.stride > 1 ? `every ${th.stride}th of ${th.frames_in_run} frames shown (page size limit, --max-page-mb); all frames: results.csv, scene.json` : '';
    this.colorSel.options[0].textContent = meta.cable_force_signed ? 'force' : 'tension';
    // a CDPR scene carries no cable strain (zeros): no strain colouring
    this.colorSel.options[1].hidden = this.colorSel.options[1].disabled = meta.kind === 'cdpr';
    if (meta.kind === 'cdpr' && this.colorMode === 'strain') {
      this.colorMode = 'tension';
      this.colorSel.value = 'tension';
    }
    this.cableCtl.style.display = meta.cables.length ? '' : 'none';
    this.jointAt = new Map(meta.joints.map((j, i) => [j.point, i]));
    this.plotById = {};
    this.keyHasCom = undefined;
    meta.plots.forEach((p) => { if (p.id && !p.t_s) this.plotById[p.id] = p; });
    if (this.page) document.title = `${meta.title} - tendyn`;
    this.buildAll();
    this.ready = true;
  }

  /// Objects, camera and plots from the frames stored so far (sizes, ranges and the optional
  /// per-frame series such as COM and energies are known from the first frame on).
  buildAll() {
    this.disposeWorld();
    this.keyHasCom = undefined;
    this.computeRanges(0);
    this.buildObjects();
    this.fitInitial();
    this.buildPlots();
    this.afterAppend();
    this.applyFrame(0);
  }

  /// Appends a block of frames (the "frames" layout of scene.json; studio streaming).
  append(frames) {
    if (!this.store) throw new Error('append before load');
    const start = this.store.n;
    const added = this.store.append(frames, 'frames');
    if (!added) return;
    if (start === 0) {
      // the first frames of a scene loaded without any: sizes, camera and plots from them
      this.buildAll();
      return;
    }
    this.computeRanges(start);
    this.afterAppend();
    this.dirty = true;
  }

  /// Appends one frame ({t_s, positions_m: [x0, y0, z0, ...], cable_tension_N, cable_strain,
  /// com_m, energy_J: {kinetic, ...}, joint_axes_W}) and, unless playing or seekLast is false,
  /// shows it (a live view follows the newest frame).
  appendFrame(frame, { seekLast = true } = {}) {
    this.append(blockOfFrame(frame));
    if (seekLast && !this.playing && this.store.n) this.seek(this.store.n - 1);
  }

  clear() {
    this.pause();
    this.disposeWorld();
    this.meta = null;
    this.store = null;
    this.ready = false;
    this.scrub.max = '0';
    this.timeEl.textContent = 't = 0.000 s';
    this.keyEl.innerHTML = '';
    this.legendEl.innerHTML = '';
    this.cloudLegendEl.innerHTML = '';
    this.gridEl.textContent = '';
    this.worldEl.textContent = '';
    for (const k of ENERGY_KEYS) this.energyEls[k].textContent = '-';
    this.dirty = true;
  }

  computeRanges(start) {
    const f = this.store.f;
    if (start === 0) {
      this.bbMin = new Vector3(Infinity, Infinity, Infinity);
      this.bbMax = new Vector3(-Infinity, -Infinity, -Infinity);
      this.bb0Min = null;
      this.maxTension = 0;
      this.minTension = 0;
      this.maxStrain = 0;
    }
    for (let i = start; i < this.store.n; i++) {
      const p = f.positions_m[i];
      for (let k = 0; k < p.length; k += 3) {
        const x = p[k], y = p[k + 1], z = p[k + 2];
        if (!Number.isFinite(x + y + z)) continue;
        if (x < this.bbMin.x) this.bbMin.x = x;
        if (y < this.bbMin.y) this.bbMin.y = y;
        if (z < this.bbMin.z) this.bbMin.z = z;
        if (x > this.bbMax.x) this.bbMax.x = x;
        if (y > this.bbMax.y) this.bbMax.y = y;
        if (z > this.bbMax.z) this.bbMax.z = z;
      }
      if (i === 0) {
        // the initial pose: what "fit" frames
        this.bb0Min = this.bbMin.clone();
        this.bb0Max = this.bbMax.clone();
      }
      for (const v of f.cable_tension_N[i]) {
        if (v > this.maxTension) this.maxTension = v;
        if (v < this.minTension) this.minTension = v;
      }
      for (const v of f.cable_strain[i]) if (v > this.maxStrain) this.maxStrain = v;
    }
    // point clouds are static: in the run's extent and in the initial view
    for (const c of (this.meta && this.meta.clouds) || []) {
      for (const q of c.points) {
        this.bbMin.min(this.tmp.a.set(q[0], q[1], q[2]));
        this.bbMax.max(this.tmp.a);
        if (this.bb0Min) {
          this.bb0Min.min(this.tmp.a);
          this.bb0Max.max(this.tmp.a);
        }
      }
    }
    if (!Number.isFinite(this.bbMin.x)) {
      // no frames (yet): the static paths, else a unit box
      this.bbMin.set(-0.5, -0.5, 0);
      this.bbMax.set(0.5, 0.5, 1);
    }
    if (!this.bb0Min || !Number.isFinite(this.bb0Min.x)) {
      this.bb0Min = this.bbMin.clone();
      this.bb0Max = this.bbMax.clone();
    }
    this.updateColorbar();
  }

  /// Cable value -> colour: viridis over [0, max] (tension, strain) or [min, max] (signed forces).
  cableColor(v, out) {
    const useT = this.colorMode === 'tension';
    const max = useT ? this.maxTension : this.maxStrain;
    const min = useT && this.meta.cable_force_signed ? Math.min(0, this.minTension) : 0;
    return viridis(max > min ? (v - min) / (max - min) : 0, out);
  }

  updateColorbar() {
    const box = this.legendEl;
    const useT = this.colorMode === 'tension';
    const max = useT ? this.maxTension : this.maxStrain;
    const signed = !!this.meta && useT && this.meta.cable_force_signed && this.minTension < 0;
    const min = signed ? this.minTension : 0;
    // rebuilt only when something shown changes (streamed frames call this for every block)
    const key = this.meta && this.meta.cables.length ? `${this.colorMode}|${this.forceName()}|${min}|${max}` : '';
    if (key === this.colorbarKey && box.childElementCount === (key ? 2 : 0)) return;
    this.colorbarKey = key;
    box.innerHTML = '';
    if (!key) return;
    const unit = useT ? ' N' : '';
    const label = useT ? `cable ${this.forceName()} [N]` : 'cable strain (l - l0) / l0';
    box.appendChild(el('div', { id: 'colorbar-label', class: 'tv-cb-label', text: label }));
    const ramp = el('div', { class: 'tv-ramp' });
    ramp.style.background = viridisGradient();
    const ticks = el('div', { class: 'tv-cb-ticks' });
    if (signed) {
      ticks.appendChild(el('span', { id: 'colorbar-min', text: `${fmtValue(min)}${unit}` }));
      const zero = el('span', { id: 'colorbar-zero', class: 'tv-cb-zero', text: '0' });
      const x = max > min ? (100 * -min) / (max - min) : 0;
      zero.style.left = `${x.toFixed(1)}%`;
      const mark = el('span', { class: 'tv-cb-mark' });
      mark.style.left = `${x.toFixed(1)}%`;
      ramp.appendChild(mark);
      ticks.appendChild(zero);
    } else {
      ticks.appendChild(el('span', { id: 'colorbar-zero', text: '0' }));
    }
    ticks.appendChild(el('span', { id: 'colorbar-max', class: 'tv-cb-max', text: `${fmtValue(max)}${unit}` }));
    box.appendChild(el('div', { class: 'tv-cb-row' }, [el('div', { class: 'tv-cb-bar' }, [ramp, ticks]), el('span', { class: 'tv-slack-key', text: 'slack' })]));
  }

  /// 'force' for signed cable forces, else the colour mode ('tension' | 'strain').
  forceName() {
    if (this.colorMode !== 'tension') return this.colorMode;
    return this.meta && this.meta.cable_force_signed ? 'force' : 'tension';
  }

  sizeScale() {
    const d = this.bbMax.clone().sub(this.bbMin);
    return Math.max(d.length(), 1e-3);
  }

  initialScale() {
    const d = this.bb0Max.clone().sub(this.bb0Min);
    return Math.max(d.length(), 1e-3);
  }

  buildObjects() {
    const meta = this.meta;
    const diag = this.initialScale();
    this.diag = diag;
    const minR = diag * 0.004;
    // rods
    this.rodGroup = new Group();
    this.rodGroup.name = 'rods';
    const cyl = new CylinderGeometry(1, 1, 1, 16, 1, false);
    const sph = new SphereGeometry(1, 16, 10);
    sph.userData.shared = true; // used by several meshes: disposed once below
    this.rodObjs = meta.rods.map((rod, i) => {
      const r = Math.max(rod.radius, minR);
      const mat = new MeshLambertMaterial({ color: new Color().setHSL(((i * 0.137) % 1), 0.45, 0.42) });
      const g = new Group();
      g.name = rod.name;
      const body = new Mesh(cyl, mat);
      body.matrixAutoUpdate = false;
      g.add(body);
      let caps = null;
      if (rod.shape === 'capsule') {
        caps = [new Mesh(sph, mat), new Mesh(sph, mat)];
        for (const c of caps) {
          c.scale.setScalar(r);
          g.add(c);
        }
      }
      this.rodGroup.add(g);
      return { rod, r, body, caps };
    });
    cyl.userData.shared = true;
    this.sharedGeos = [cyl, sph];
    this.world.add(this.rodGroup);
    // cables: one 2-vertex Line each; material swapped between own colour and dashed slack
    this.cableGroup = new Group();
    this.cableGroup.name = 'cables';
    this.slackMat = new LineDashedMaterial({ color: SLACK_COLOR, dashSize: diag * 0.012, gapSize: diag * 0.008 });
    this.cableObjs = meta.cables.map((cable) => {
      const geo = new BufferGeometry();
      const pos = new BufferAttribute(new Float32Array(6), 3);
      const dist = new BufferAttribute(new Float32Array(2), 1);
      geo.setAttribute('position', pos);
      geo.setAttribute('lineDistance', dist);
      const mat = new LineBasicMaterial({ color: 0x3050ff });
      const line = new Line(geo, mat);
      line.name = cable.name;
      line.frustumCulled = false;
      this.cableGroup.add(line);
      return { cable, line, pos, dist, mat, slack: false };
    });
    this.world.add(this.cableGroup);
    // points
    const pr = Math.max(minR * 1.6, diag * 0.006);
    this.pointR = pr;
    this.pointMesh = new InstancedMesh(new SphereGeometry(1, 12, 8), new MeshLambertMaterial({ color: 0x333a44 }), Math.max(1, meta.points.length));
    this.pointMesh.count = meta.points.length;
    this.pointMesh.frustumCulled = false;
    this.pointMesh.name = 'points';
    // a tree's points of no body (the fictitious floating-base chain, centres of mass inside a
    // body) are not drawn and not picked
    this.hiddenPoints = null;
    if (meta.kind === 'tree') {
      const used = new Set();
      for (const r of meta.rods) { used.add(r.a); used.add(r.b); }
      for (const j of meta.joints) used.add(j.point);
      this.hiddenPoints = new Set(meta.points.map((_, i) => i).filter((i) => !used.has(i)));
    }
    this.world.add(this.pointMesh);
    // faces
    this.faceGroup = new Group();
    this.faceGroup.name = 'faces';
    this.faceObjs = meta.faces.map((face, i) => {
      const n = face.length;
      const geo = new BufferGeometry();
      const pos = new BufferAttribute(new Float32Array(3 * n), 3);
      geo.setAttribute('position', pos);
      const idx = [];
      for (let k = 1; k + 1 < n; k++) idx.push(0, k, k + 1);
      geo.setIndex(idx);
      const mesh = new Mesh(geo, new MeshBasicMaterial({ color: new Color().setHSL((0.55 + i * 0.17) % 1, 0.5, 0.55), transparent: true, opacity: 0.35, side: DoubleSide, depthWrite: false }));
      mesh.frustumCulled = false;
      const edgeGeo = new BufferGeometry();
      edgeGeo.setAttribute('position', pos);
      const edge = new Line(edgeGeo, new LineBasicMaterial({ color: 0x2a4d69 }));
      edge.frustumCulled = false;
      edgeGeo.setIndex([...face.keys(), 0]);
      mesh.add(edge);
      this.faceGroup.add(mesh);
      return { face, mesh, pos, edgeGeo };
    });
    this.world.add(this.faceGroup);
    // a CDPR platform: one solid body through its attachment points (their convex hull; the
    // platform is rigid, so the hull's triangles found at the first frame hold for every frame)
    this.platformBody = null;
    if (meta.kind === 'cdpr' && meta.faces.length && this.store.n) {
      const idx = [...new Set(meta.faces.flat())].sort((a, b) => a - b);
      const tris = hullTriangles(idx.map((i) => this.store.f.positions_m[0].slice(3 * i, 3 * i + 3)), 1e-6 * diag);
      if (tris.length) {
        const geo = new BufferGeometry();
        geo.setAttribute('position', new BufferAttribute(new Float32Array(9 * tris.length), 3));
        geo.setAttribute('normal', new BufferAttribute(new Float32Array(9 * tris.length), 3));
        const mesh = new Mesh(geo, new MeshLambertMaterial({ color: 0x4c6ef5, side: DoubleSide }));
        mesh.name = 'platform-body';
        mesh.frustumCulled = false;
        this.faceGroup.add(mesh);
        this.platformBody = { mesh, tris: tris.map((t) => t.map((k) => idx[k])) };
      }
    }
    // joint axes (tree robots): one segment per joint from its origin along its world axis
    this.jointGroup = new Group();
    this.jointGroup.name = 'joint-axes';
    this.jointObjs = [];
    if (meta.joints.length) {
      const capsR = meta.rods.reduce((m, r) => Math.max(m, r.radius), 0);
      this.jointLen = Math.max(2.2 * capsR, diag * 0.05);
      for (const type of ['revolute', 'prismatic']) {
        const js = meta.joints.map((j, i) => ({ j, i })).filter((o) => (o.j.type === 'prismatic') === (type === 'prismatic'));
        if (!js.length) continue;
        const geo = new BufferGeometry();
        const pos = new BufferAttribute(new Float32Array(6 * js.length), 3);
        geo.setAttribute('position', pos);
        const seg = new LineSegments(geo, new LineBasicMaterial({ color: JOINT_COLORS[type], depthTest: false, transparent: true }));
        seg.renderOrder = 5;
        seg.frustumCulled = false;
        seg.name = `${type} joint axes`;
        this.jointGroup.add(seg);
        this.jointObjs.push({ js, pos, seg });
      }
    }
    this.world.add(this.jointGroup);
    // paths: target paths drawn whole, per-frame tracks up to the current frame
    this.pathGroup = new Group();
    this.pathGroup.name = 'paths';
    // target paths are clipped to the region of interest: the run's extent (all frames) plus
    // half the initial pose's size around it (a planned path may run far beyond the motion)
    const roi = this.regionOfInterest();
    this.pathObjs = meta.paths.map((path) => {
      const geo = new BufferGeometry();
      const inside = path.per_frame || path.points.every((q) => q[0] >= roi.x0 && q[0] <= roi.x1 && q[1] >= roi.y0 && q[1] <= roi.y1);
      const segs = inside ? null : clipPolyline(path.points, roi.x0, roi.x1, roi.y0, roi.y1);
      const pts = inside ? path.points : segs.flat();
      const arr = new Float32Array(3 * Math.max(1, pts.length));
      pts.forEach((q, i) => arr.set(q, 3 * i));
      geo.setAttribute('position', new BufferAttribute(arr, 3));
      geo.setDrawRange(0, path.per_frame ? 0 : pts.length);
      const color = path.per_frame ? PATH_COLORS.track : PATH_COLORS.target;
      const line = inside ? new Line(geo, new LineBasicMaterial({ color })) : new LineSegments(geo, new LineBasicMaterial({ color }));
      line.userData.clipped = !inside;
      line.name = path.name;
      line.frustumCulled = false;
      line.renderOrder = 2;
      this.pathGroup.add(line);
      return { path, line, color };
    });
    this.world.add(this.pathGroup);
    this.buildClouds();
    this.comCap = 0;
    this.comLine = null;
    this.comMat = null;
    this.ensureComCapacity(Math.max(16, this.store.n));
    this.buildOverlays();
    this.rebuildGround();
    this.updateKey();
    this.applyLayers();
  }

  /// Point clouds (a CDPR workspace): the points with a value coloured on viridis over the cloud's
  /// finite values, the points without one faint grey, the highlighted ones larger and orange;
  /// their colour bar beside the cables' one.
  buildClouds() {
    const meta = this.meta;
    this.cloudGroup = new Group();
    this.cloudGroup.name = 'clouds';
    this.cloudObjs = meta.clouds.map((cloud) => {
      const n = cloud.points.length;
      let min = Infinity, max = -Infinity;
      for (const v of cloud.values) if (v !== null) { if (v < min) min = v; if (v > max) max = v; }
      if (!(min <= max)) { min = 0; max = 0; }
      // point size from the spacing of the points: the cloud's box shared among them
      const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
      for (const q of cloud.points) for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], q[k]); hi[k] = Math.max(hi[k], q[k]); }
      const ext = [0, 1, 2].map((k) => hi[k] - lo[k]).filter((e) => e > 1e-9);
      const spacing = ext.length && n > 1 ? (ext.reduce((a, b) => a * b, 1) / n) ** (1 / ext.length) : this.pointR;
      const size = Math.max(this.pointR * 0.8, 0.45 * spacing);
      const withValue = [], without = [];
      cloud.values.forEach((v, i) => (v === null ? without : withValue).push(i));
      const makePoints = (idx, name, material, colorOf) => {
        const geo = new BufferGeometry();
        const pos = new Float32Array(3 * Math.max(1, idx.length));
        idx.forEach((i, k) => pos.set(cloud.points[i], 3 * k));
        geo.setAttribute('position', new BufferAttribute(pos, 3));
        if (colorOf) {
          const col = new Float32Array(3 * Math.max(1, idx.length));
          const c = new Color();
          idx.forEach((i, k) => { colorOf(i, c); col[3 * k] = c.r; col[3 * k + 1] = c.g; col[3 * k + 2] = c.b; });
          geo.setAttribute('color', new BufferAttribute(col, 3));
        }
        geo.setDrawRange(0, idx.length);
        const pts = new Points(geo, material);
        pts.name = name;
        pts.frustumCulled = false;
        this.cloudGroup.add(pts);
        return pts;
      };
      const colorOf = (i, c) => viridis(max > min ? (cloud.values[i] - min) / (max - min) : 1, c);
      const valued = makePoints(withValue, `${cloud.name}`, new PointsMaterial({ size, vertexColors: true, sizeAttenuation: true }), colorOf);
      const faint = makePoints(without, `${cloud.name} (no value)`, new PointsMaterial({ size: 0.6 * size, color: CLOUD_NONE_COLOR, transparent: true, opacity: 0.18, depthWrite: false, sizeAttenuation: true }));
      const high = makePoints(cloud.highlight, `${cloud.name} (highlighted)`, new PointsMaterial({ size: 1.5 * size, color: CLOUD_HIGHLIGHT_COLOR, sizeAttenuation: true }));
      high.renderOrder = 1;
      return { cloud, min, max, withValue, without, valued, faint, high };
    });
    this.world.add(this.cloudGroup);
    this.layerBoxes.cloud.parentElement.style.display = this.cloudObjs.length ? '' : 'none';
    this.updateCloudLegend();
  }

  updateCloudLegend() {
    const box = this.cloudLegendEl;
    box.innerHTML = '';
    const o = this.cloudObjs && this.cloudObjs[0];
    if (!o) return;
    box.appendChild(el('div', { id: 'cloud-colorbar-label', class: 'tv-cb-label', text: `${o.cloud.name}: ${o.cloud.value_label}` }));
    const ramp = el('div', { class: 'tv-ramp' });
    ramp.style.background = viridisGradient();
    const ticks = el('div', { class: 'tv-cb-ticks' }, [
      el('span', { id: 'cloud-colorbar-min', text: o.withValue.length ? fmtValue(o.min) : '-' }),
      el('span', { id: 'cloud-colorbar-max', class: 'tv-cb-max', text: o.withValue.length ? fmtValue(o.max) : '-' }),
    ]);
    box.appendChild(el('div', { class: 'tv-cb-row' }, [el('div', { class: 'tv-cb-bar' }, [ramp, ticks])]));
    const keys = [];
    const dot = (color, text, id) => el('span', { class: 'tv-key-item', id }, [Object.assign(el('span', { class: 'tv-key-dot' }), { style: `background:${color}` }), text]);
    if (o.cloud.highlight.length) keys.push(dot(CLOUD_HIGHLIGHT_COLOR, `boundary (${o.cloud.highlight.length})`, 'cloud-key-highlight'));
    if (o.without.length) keys.push(dot(CLOUD_NONE_COLOR, `no value (${o.without.length})`, 'cloud-key-none'));
    if (keys.length) box.appendChild(el('div', { class: 'tv-key' }, keys));
  }

  /// The clouds as drawn: [{name, value_label, points, valued, faint, highlighted, min, max,
  /// colors: [[value, '#rrggbb'] of every point with a value]}] (test hook).
  cloudState() {
    return (this.cloudObjs || []).map((o) => {
      const col = o.valued.geometry.getAttribute('color');
      const c = new Color();
      return {
        name: o.cloud.name, value_label: o.cloud.value_label, points: o.cloud.points.length,
        valued: o.valued.geometry.drawRange.count, faint: o.faint.geometry.drawRange.count, highlighted: o.high.geometry.drawRange.count,
        min: o.min, max: o.max, visible: this.cloudGroup.visible,
        colors: o.withValue.map((i, k) => [o.cloud.values[i], `#${c.setRGB(col.getX(k), col.getY(k), col.getZ(k)).getHexString()}`]),
      };
    });
  }

  /// The region of interest in x, y: the run's extent (all frames) widened by half the initial
  /// pose's size: {x0, x1, y0, y1}.
  regionOfInterest() {
    const m = 0.5 * this.initialScale();
    return { x0: this.bbMin.x - m, x1: this.bbMax.x + m, y0: this.bbMin.y - m, y1: this.bbMax.y + m };
  }

  /// Force arrows, the picked point's trail, the measurement line and the point labels.
  buildOverlays() {
    const meta = this.meta;
    this.tauPlot = this.plotById.tau;
    this.forceSpecs = forceArrowSpecs(meta, { hasContact: this.store.hasContact, hasAxes: this.store.hasAxes, tau: this.tauPlot });
    this.forceVec = new Float64Array(6 * this.forceSpecs.length);
    this.arrows = new ArrowSet(this.forceSpecs.length, Math.max(this.diag * 0.0022, this.pointR * 0.3));
    this.arrows.setColors(this.forceSpecs);
    this.world.add(this.arrows.group);
    this.forceMax = null; // per unit, over the frames (computed when the arrows are first shown)
    // trail of the picked point: all frames, drawn up to the current one
    const tg = new BufferGeometry();
    tg.setAttribute('position', new BufferAttribute(new Float32Array(3), 3));
    tg.setDrawRange(0, 0);
    this.trail = new Line(tg, new LineBasicMaterial({ color: TRAIL_COLOR, depthTest: false, transparent: true, opacity: 0.85 }));
    this.trail.name = 'trail';
    this.trail.renderOrder = 6;
    this.trail.frustumCulled = false;
    this.trail.visible = false;
    this.trailPoint = -1;
    this.trailFilled = 0;
    this.world.add(this.trail);
    // measurement: a polyline through the measured points
    const mg = new BufferGeometry();
    this.measurePos = new BufferAttribute(new Float32Array(9), 3);
    mg.setAttribute('position', this.measurePos);
    mg.setDrawRange(0, 0);
    this.measureLine = new Line(mg, new LineBasicMaterial({ color: MEASURE_COLOR, depthTest: false, transparent: true }));
    this.measureLine.name = 'measure';
    this.measureLine.renderOrder = 7;
    this.measureLine.frustumCulled = false;
    this.world.add(this.measureLine);
    // labels: one per point (the first MAX_LABELS)
    this.labelsEl.innerHTML = '';
    this.labelEls = meta.points.slice(0, MAX_LABELS).map((name) => {
      const e = el('span', { class: 'tv-label', text: name });
      this.labelsEl.appendChild(e);
      return e;
    });
    // the compared runs: rods and cables as lines (ghosts), at the time of this run's frame
    this.ghosts = (this.runs || []).map((r, i) => {
      const segs = [...r.meta.rods, ...r.meta.cables];
      const geo = new BufferGeometry();
      const pos = new BufferAttribute(new Float32Array(6 * Math.max(1, segs.length)), 3);
      geo.setAttribute('position', pos);
      geo.setDrawRange(0, 2 * segs.length);
      const color = GHOST_COLORS[i % GHOST_COLORS.length];
      const line = new LineSegments(geo, new LineBasicMaterial({ color, transparent: true, opacity: 0.55, depthWrite: false }));
      line.name = `ghost ${r.label}`;
      line.frustumCulled = false;
      line.renderOrder = 3;
      this.world.add(line);
      return { run: r, segs, pos, line, color };
    });
    const hasForces = this.forceSpecs.length > 0;
    this.layerBoxes.forces.parentElement.style.display = hasForces ? '' : 'none';
    this.forceScaleSel.parentElement.style.display = hasForces ? '' : 'none';
  }

  /// Shows or hides a layer: 'rods', 'cables', 'points', 'labels', 'forces', 'paths', 'grid'.
  setLayer(name, on) {
    if (!(name in this.layers)) return;
    this.layers[name] = !!on;
    if (this.layerBoxes[name].checked !== !!on) this.layerBoxes[name].checked = !!on;
    this.applyLayers();
    if (this.store && this.store.n) this.applyFrame(this.frameIndex);
    this.dirty = true;
  }

  applyLayers() {
    if (!this.meta) return;
    const L = this.layers;
    this.rodGroup.visible = L.rods;
    this.faceGroup.visible = L.rods;
    this.cableGroup.visible = L.cables;
    this.pointMesh.visible = L.points;
    this.pathGroup.visible = L.paths;
    if (this.cloudGroup) this.cloudGroup.visible = L.cloud;
    if (this.comLine) this.comLine.visible = L.paths;
    if (this.groundGroup) this.groundGroup.visible = L.grid;
    if (this.arrows) this.arrows.group.visible = L.forces && this.forceSpecs.length > 0;
    this.labelsEl.hidden = !L.labels;
    this.updateForceLegend();
  }

  /// Multiplies the arrows' default length scale (1: the largest force of the run is a quarter of
  /// the initial pose's size).
  setForceScale(mul) {
    if (!(mul > 0)) return;
    this.forceScaleMul = mul;
    if (this.forceScaleSel.value !== String(mul)) this.forceScaleSel.value = String(mul);
    this.updateForceLegend();
    if (this.store && this.store.n) this.applyFrame(this.frameIndex);
  }

  /// Arrow length per unit force [m/N] or per unit moment [m/(N m)].
  forceScale(unit) {
    if (!this.forceMax) this.forceMax = forceMaxima(this.meta, this.forceSpecs, this.store.f, this.store.n, this.tauPlot);
    const max = this.forceMax[unit] || 0;
    return max > 0 ? (0.25 * this.initialScale() * this.forceScaleMul) / max : 0;
  }

  updateForceLegend() {
    const box = this.forceLegendEl;
    const show = !!this.meta && this.layers.forces && this.forceSpecs && this.forceSpecs.length > 0 && this.store && this.store.n > 0;
    box.hidden = !show;
    if (!show) return;
    box.innerHTML = '';
    const kinds = new Set(this.forceSpecs.map((a) => a.kind));
    box.appendChild(el('div', { class: 'tv-cb-label', text: 'forces' }));
    for (const [k, label, color] of FORCE_KINDS) {
      if (!kinds.has(k)) continue;
      const sw = el('span', { class: 'tv-key-line' });
      sw.style.borderColor = color;
      box.appendChild(el('div', { class: 'tv-key-item', 'data-kind': k }, [sw, label]));
    }
    for (const unit of ['N', 'N m']) {
      if (!this.forceSpecs.some((a) => a.unit === unit)) continue;
      const sc = this.forceScale(unit);
      box.appendChild(el('div', { class: 'tv-force-scale', 'data-unit': unit, text: sc > 0 ? `1 ${unit} = ${fmtValue(sc)} m (largest ${fmtValue(this.forceMax[unit])} ${unit})` : `no ${unit} in this run` }));
    }
  }

  updateForces(k) {
    if (!this.arrows || !this.forceSpecs.length || !this.layers.forces) return;
    forceVectors(this.meta, this.forceSpecs, this.store.f, k, this.tauPlot, this.forceVec);
    this.arrows.update(this.forceSpecs, this.forceVec, (u) => this.forceScale(u));
  }

  // ---------------------------------------------------------------- record
  download(url, name) {
    const a = el('a', { href: url, download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
  }

  /// The 3D view at the current frame as a PNG data URL (rendered now: the drawing buffer is
  /// read in the same task).
  still() {
    this.renderer.render(this.scene3, this.camera);
    return this.renderer.domElement.toDataURL('image/png');
  }

  /// PNG data URLs of frames from, from + step, ... to (the current frame restored after).
  pngFrames({ from = 0, to = null, step = 1 } = {}) {
    if (!this.store || !this.store.n) return [];
    const k0 = this.frameIndex;
    const last = to === null ? this.store.n - 1 : Math.min(to, this.store.n - 1);
    const out = [];
    for (let k = Math.max(0, from); k <= last; k += Math.max(1, step)) {
      this.applyFrame(k);
      out.push(this.still());
    }
    this.applyFrame(k0);
    return out;
  }

  /// Records the playback from simulated time t0 to t1 (default: the whole run) at `fps` video
  /// frames per second and `speed` x real time, as a WebM blob (MediaRecorder on the canvas; it
  /// takes (t1 - t0) / speed of wall time).
  async recordWebm({ fps = 30, speed = 1, t0 = null, t1 = null } = {}) {
    if (!this.store || !this.store.n) throw new Error('nothing to record: no frames');
    if (typeof MediaRecorder === 'undefined') throw new Error('this browser cannot record video (no MediaRecorder)');
    const f = this.store.f;
    const a = t0 === null ? f.t_s[0] : t0, b = t1 === null ? f.t_s[this.store.n - 1] : t1;
    this.pause();
    this.recording = true;
    const cv = this.renderer.domElement;
    const stream = cv.captureStream(0);
    const track = stream.getVideoTracks()[0];
    const type = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t));
    const rec = new MediaRecorder(stream, { mimeType: type, videoBitsPerSecond: 4e6 });
    const chunks = [];
    rec.ondataavailable = (e) => { if (e.data && e.data.size) chunks.push(e.data); };
    const done = new Promise((res) => { rec.onstop = res; });
    rec.start();
    const n = Math.max(1, Math.round(((b - a) / speed) * fps));
    try {
      for (let i = 0; i <= n; i++) {
        this.seekTime(a + (i / n) * (b - a));
        this.renderer.render(this.scene3, this.camera);
        if (track.requestFrame) track.requestFrame();
        await new Promise((r) => setTimeout(r, 1000 / fps));
      }
    } finally {
      rec.stop();
      await done;
      track.stop();
      this.recording = false;
    }
    return new Blob(chunks, { type: 'video/webm' });
  }

  /// Frame of compared run r shown with this run's frame k: the last at or before its time.
  runFrame(r, k) {
    const m = r.map;
    const t = this.store.f.t_s;
    for (let i = m.length; i < this.store.n; i++) {
      const rt = r.store.f.t_s;
      let lo = 0, hi = r.store.n - 1;
      if (hi < 0) { m.push(-1); continue; }
      if (t[i] >= rt[hi]) lo = hi;
      else if (t[i] > rt[0]) {
        while (hi - lo > 1) {
          const mid = (lo + hi) >> 1;
          if (rt[mid] <= t[i]) lo = mid;
          else hi = mid;
        }
      }
      m.push(lo);
    }
    return m[k];
  }

  updateGhosts(k) {
    for (const g of this.ghosts || []) {
      const j = this.runFrame(g.run, k);
      if (j < 0) continue;
      const p = g.run.store.f.positions_m[j];
      const a = g.pos.array;
      g.segs.forEach((e, n) => {
        a[6 * n] = p[3 * e.a]; a[6 * n + 1] = p[3 * e.a + 1]; a[6 * n + 2] = p[3 * e.a + 2];
        a[6 * n + 3] = p[3 * e.b]; a[6 * n + 4] = p[3 * e.b + 1]; a[6 * n + 5] = p[3 * e.b + 2];
      });
      g.pos.needsUpdate = true;
    }
  }

  /// The compared runs' ghosts at the current frame: [{label, title, frame, t_s, segments}].
  ghostState() {
    return (this.ghosts || []).map((g) => {
      const j = this.runFrame(g.run, this.frameIndex);
      return { label: g.run.label, title: g.run.meta.title, frame: j, t_s: g.run.store.f.t_s[j], segments: g.segs.length, positions_m: Array.from(g.pos.array.slice(0, 6 * g.segs.length)) };
    });
  }

  /// The drawn arrows at the current frame: [{kind, name, unit, origin_m, vector, magnitude,
  /// length_m, tip_m}] (vector in N or N m from scene.json; length and tip as drawn).
  forceArrows() {
    if (!this.arrows || !this.layers.forces) return [];
    return this.forceSpecs.map((a, i) => {
      const v = Array.from(this.forceVec.slice(6 * i, 6 * i + 6));
      return { kind: a.kind, name: a.name, unit: a.unit, point: this.meta.points[a.point], origin_m: v.slice(0, 3), vector: v.slice(3), magnitude: Math.hypot(v[3], v[4], v[5]), length_m: this.arrows.lengths[i], tip_m: this.arrows.lengths[i] > 0 ? this.arrows.tip(i) : v.slice(0, 3), scale: this.forceScale(a.unit) };
    });
  }

  // ---------------------------------------------------------------- measure, trail, labels
  toggleMeasurePoint(i) {
    const m = this.measure.slice();
    const at = m.indexOf(i);
    if (at >= 0) m.splice(at, 1);
    else {
      m.push(i);
      if (m.length > 3) m.shift();
    }
    this.setMeasure(m);
  }

  /// Points to measure (indices or names; [] clears): 2 give their distance, 3 the two distances
  /// and the angle at the middle one.
  setMeasure(list) {
    if (!this.meta) return;
    this.measure = list.map((v) => (typeof v === 'number' ? v : this.meta.points.indexOf(String(v)))).filter((i) => i >= 0 && i < this.meta.points.length).slice(-3);
    this.measureEl.dataset.key = '';
    this.updateMeasure();
    this.dirty = true;
  }

  /// {points, distances_m, angle_deg} at the current frame, or null.
  measurement() {
    if (!this.measure.length || !this.store || !this.store.n) return null;
    const p = this.store.f.positions_m[this.frameIndex];
    const P = this.measure.map((i) => [p[3 * i], p[3 * i + 1], p[3 * i + 2]]);
    const d = (u, v) => Math.hypot(u[0] - v[0], u[1] - v[1], u[2] - v[2]);
    const distances = [];
    for (let i = 0; i + 1 < P.length; i++) distances.push(d(P[i], P[i + 1]));
    let angle = null;
    if (P.length === 3) {
      const u = [0, 1, 2].map((c) => P[0][c] - P[1][c]), w = [0, 1, 2].map((c) => P[2][c] - P[1][c]);
      const nu = Math.hypot(...u), nw = Math.hypot(...w);
      if (nu > 0 && nw > 0) angle = (Math.acos(Math.max(-1, Math.min(1, (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) / (nu * nw)))) * 180) / Math.PI;
    }
    return { points: this.measure.map((i) => this.meta.points[i]), distances_m: distances, angle_deg: angle };
  }

  updateMeasure() {
    const m = this.measurement();
    const box = this.measureEl;
    if (!m) {
      box.hidden = true;
      if (this.measureLine) this.measureLine.geometry.setDrawRange(0, 0);
      return;
    }
    const p = this.store.f.positions_m[this.frameIndex];
    this.measure.forEach((i, n) => this.measurePos.array.set([p[3 * i], p[3 * i + 1], p[3 * i + 2]], 3 * n));
    this.measurePos.needsUpdate = true;
    this.measureLine.geometry.setDrawRange(0, this.measure.length);
    const key = m.points.join('|');
    if (box.dataset.key !== key) {
      box.dataset.key = key;
      box.innerHTML = '';
      const close = el('button', { type: 'button', class: 'tv-pick-close', id: 'measure-clear', title: 'clear the measurement (Esc)', text: '\u00d7' });
      close.addEventListener('click', () => this.setMeasure([]));
      box.appendChild(el('div', { class: 'tv-pick-head' }, [el('span', { class: 'tv-pick-kind', text: 'measure' }), el('span', { id: 'measure-points', class: 'tv-pick-name', text: m.points.join(' - ') }), close]));
      this.measureRows = {};
      const row = (id, label) => {
        const v = el('span', { id, class: 'tv-num' });
        box.appendChild(el('div', { class: 'tv-pick-row' }, [el('span', { class: 'tv-lbl', text: label }), v]));
        this.measureRows[id] = v;
      };
      if (m.points.length === 1) box.appendChild(el('div', { class: 'tv-pick-t', text: 'shift + click a second point' }));
      if (m.points.length >= 2) row('measure-distance', `${m.points[0]} - ${m.points[1]}`);
      if (m.points.length === 3) {
        row('measure-distance-2', `${m.points[1]} - ${m.points[2]}`);
        row('measure-angle', `angle at ${m.points[1]}`);
      }
    }
    const set = (id, text) => { if (this.measureRows[id] && this.measureRows[id].textContent !== text) this.measureRows[id].textContent = text; };
    if (m.distances_m.length) set('measure-distance', `${fmtValue(m.distances_m[0])} m`);
    if (m.distances_m.length > 1) set('measure-distance-2', `${fmtValue(m.distances_m[1])} m`);
    if (m.angle_deg !== null) set('measure-angle', `${fmtValue(m.angle_deg)} deg`);
    box.hidden = false;
  }

  /// The picked point's trajectory, every frame stored, drawn up to the current frame.
  updateTrail() {
    if (!this.trail) return;
    const sel = this.selected;
    const i = sel && sel.type === 'point' ? sel.index : -1;
    if (i < 0) {
      this.trail.visible = false;
      this.trailPoint = -1;
      return;
    }
    const n = this.store.n;
    let attr = this.trail.geometry.getAttribute('position');
    if (i !== this.trailPoint || attr.count < n) {
      if (i !== this.trailPoint) this.trailFilled = 0;
      if (attr.count < n) {
        const arr = new Float32Array(3 * Math.max(n, 2 * attr.count));
        arr.set(attr.array.subarray(0, 3 * this.trailFilled));
        attr = new BufferAttribute(arr, 3);
        this.trail.geometry.setAttribute('position', attr);
      }
      this.trailPoint = i;
    }
    const f = this.store.f;
    for (let k = this.trailFilled; k < n; k++) {
      const p = f.positions_m[k];
      attr.array[3 * k] = p[3 * i]; attr.array[3 * k + 1] = p[3 * i + 1]; attr.array[3 * k + 2] = p[3 * i + 2];
    }
    if (this.trailFilled < n) attr.needsUpdate = true;
    this.trailFilled = n;
    this.trail.geometry.setDrawRange(0, this.frameIndex + 1);
    this.trail.visible = true;
  }

  /// Point names at their projected positions (layer "labels").
  updateLabels() {
    if (!this.layers.labels || !this.labelEls || !this.store || !this.store.n) return;
    const p = this.store.f.positions_m[this.frameIndex];
    this.camera.updateMatrixWorld();
    const w = this.renderer.domElement.clientWidth, h = this.renderer.domElement.clientHeight;
    const v = this.tmp.a;
    this.labelEls.forEach((e, i) => {
      v.fromArray(p, 3 * i).project(this.camera);
      const inside = v.z < 1 && Math.abs(v.x) <= 1 && Math.abs(v.y) <= 1 && !(this.hiddenPoints && this.hiddenPoints.has(i));
      e.hidden = !inside;
      if (inside) e.style.transform = `translate(${Math.round(((v.x + 1) / 2) * w + 6)}px, ${Math.round(((1 - v.y) / 2) * h - 16)}px)`;
    });
  }

  /// The floor grid (at ground_z_m, or under the initial pose as a reference), its scale label and
  /// the world axes at the origin (one grid cell long).
  rebuildGround() {
    if (this.groundGroup) {
      this.groundGroup.traverse((o) => { if (o.geometry) o.geometry.dispose(); });
      this.world.remove(this.groundGroup);
    }
    const meta = this.meta;
    const g = new Group();
    g.name = 'ground';
    this.groundGroup = g;
    const hasGround = meta.ground_z_m !== null;
    const floorZ = hasGround ? meta.ground_z_m : this.bb0Min.z;
    this.floorZ = floorZ;
    this.floorPlane.constant = -floorZ;
    const diag = this.initialScale();
    const cx = (this.bbMin.x + this.bbMax.x) / 2, cy = (this.bbMin.y + this.bbMax.y) / 2;
    // cells sized to the initial pose; the grid covers the whole run (at most 200 cells a side; in
    // follow mode it moves with the centre of mass by whole cells, so it never ends)
    const ext = Math.max(this.bbMax.x - this.bbMin.x, this.bbMax.y - this.bbMin.y, diag * 0.5) + diag * 0.5;
    const step = 10 ** Math.floor(Math.log10(Math.max(diag, 1e-6) / 4));
    this.gridStep = step;
    const size = Math.min(200, Math.max(8, Math.ceil((ext * 1.1) / step / 2) * 2)) * step;
    const grid = new GridHelper(size, Math.round(size / step), hasGround ? 0x9aa3ad : 0xb4bcc4, hasGround ? 0xc8ced4 : 0xdde1e5);
    grid.rotation.x = Math.PI / 2;
    grid.position.set(Math.round(cx / step) * step, Math.round(cy / step) * step, floorZ);
    grid.name = 'grid';
    // The floor and its grid are drawn first and write no depth: what lies on the floor (a taut
    // cable between two resting nodes) is drawn over them whole, never interleaved with them
    // (z-fighting made such cables look dashed like slack ones).
    grid.material.depthWrite = false;
    grid.renderOrder = -1;
    if (hasGround) {
      const plane = new Mesh(new PlaneGeometry(size, size), new MeshBasicMaterial({ color: 0xebeff2, depthWrite: false }));
      plane.position.set(grid.position.x, grid.position.y, floorZ);
      plane.renderOrder = -2;
      plane.name = 'ground-plane';
      g.add(plane);
      this.groundPlane = plane;
    } else {
      this.groundPlane = null;
    }
    g.add(grid);
    this.grid = grid;
    this.gridHome = { x: grid.position.x, y: grid.position.y };
    const axes = new AxesHelper(step);
    axes.name = 'world-axes';
    axes.material.depthWrite = false;
    axes.renderOrder = -1;
    axes.position.set(0, 0, floorZ);
    g.add(axes);
    this.world.add(g);
    this.gridEl.textContent = `grid: ${fmtValue(step)} m per cell${hasGround ? '' : ' (reference plane)'}`;
    this.gridEl.title = hasGround ? `ground at z = ${fmtValue(floorZ)} m` : `reference plane at z = ${fmtValue(floorZ)} m (no ground in this model)`;
    this.dirty = true;
  }

  /// The key of the lines in the 3D view (COM track, paths, joint axes).
  updateKey() {
    this.keyEl.innerHTML = '';
    const item = (color, text, cls = '') => {
      const sw = el('span', { class: `tv-key-line ${cls}` });
      sw.style.borderColor = color;
      this.keyEl.appendChild(el('span', { class: 'tv-key-item' }, [sw, text]));
    };
    if (this.store && this.store.hasCom) item(COM_COLOR, 'COM track (floor)');
    for (const o of this.pathObjs) item(o.color, o.path.name);
    for (const o of this.jointObjs) item(o.seg.material.color.getStyle(), o.seg.name);
    for (const g of this.ghosts || []) item(g.color, `${g.run.label}: ${g.run.meta.title} (ghost)`);
  }

  ensureComCapacity(n) {
    if (n <= this.comCap) return;
    const cap = Math.max(n, this.comCap * 2);
    const arr = new Float32Array(3 * cap);
    if (this.comLine) {
      arr.set(this.comPos.array.subarray(0, 3 * this.comFilled));
      this.world.remove(this.comLine);
      this.comLine.geometry.dispose();
    } else {
      this.comFilled = 0;
    }
    const geo = new BufferGeometry();
    this.comPos = new BufferAttribute(arr, 3);
    geo.setAttribute('position', this.comPos);
    geo.setDrawRange(0, 0);
    if (!this.comMat) this.comMat = new LineBasicMaterial({ color: COM_COLOR });
    this.comLine = new Line(geo, this.comMat);
    this.comLine.frustumCulled = false;
    this.comLine.name = 'com-track';
    this.comCap = cap;
    this.world.add(this.comLine);
  }

  afterAppend() {
    const n = this.store.n;
    this.scrub.max = String(Math.max(0, n - 1));
    // COM track points (on the floor, slightly above it)
    if (this.store.hasCom) {
      this.ensureComCapacity(n);
      const a = this.comPos.array;
      const z = this.floorZ + this.initialScale() * 5e-4;
      for (let i = this.comFilled; i < n; i++) {
        const c = this.store.f.com_m[i];
        a[3 * i] = c[0];
        a[3 * i + 1] = c[1];
        a[3 * i + 2] = z;
      }
      this.comFilled = n;
      this.comPos.needsUpdate = true;
    }
    if (this.store.hasCom !== this.keyHasCom) {
      this.keyHasCom = this.store.hasCom;
      this.updateKey();
    }
    this.updatePlotData();
    this.updateColorbar();
    this.forceMax = null;
    if (this.layers.forces) this.updateForceLegend();
    if (this.selected) this.updateTrail();
  }

  // ---------------------------------------------------------------- camera
  /// Puts the camera in front of the box [lo, hi] (looking along -(0.55, -1, 0.6)).
  frameBox(lo, hi) {
    const c = lo.clone().add(hi).multiplyScalar(0.5);
    const r = Math.max(hi.clone().sub(lo).length() * 0.5, 1e-3);
    const dist = (r / Math.sin((this.camera.fov * Math.PI) / 360)) * 1.05;
    const dir = new Vector3(0.55, -1, 0.6).normalize();
    this.camera.position.copy(c).addScaledVector(dir, dist);
    this.camera.near = dist / 100;
    this.camera.far = dist * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(c);
    this.controls.update();
    this.placeSun();
    this.dirty = true;
    this.triadDirty = true;
  }

  placeSun() {
    const c = this.controls.target;
    const r = this.initialScale() * 0.5;
    this.sun.position.copy(c).add(new Vector3(r, -2 * r, 3 * r));
    this.sun.target.position.copy(c);
    this.sun.target.updateMatrixWorld();
  }

  /// Camera fitted to the initial pose (frame 0), then, in follow mode, moved to the current COM.
  fitInitial() {
    // the initial pose, and the (clipped) target paths so that they are in the default view
    const lo = this.bb0Min.clone(), hi = this.bb0Max.clone();
    for (const o of this.pathObjs || []) {
      if (o.path.per_frame) continue;
      const a = o.line.geometry.getAttribute('position');
      for (let i = 0; i < o.line.geometry.drawRange.count; i++) {
        lo.min(this.tmp.a.fromBufferAttribute(a, i));
        hi.max(this.tmp.a);
      }
    }
    this.frameBox(lo, hi);
    if (this.grid && this.gridHome) {
      this.grid.position.x = this.gridHome.x;
      this.grid.position.y = this.gridHome.y;
      if (this.groundPlane) this.groundPlane.position.set(this.gridHome.x, this.gridHome.y, this.groundPlane.position.z);
    }
    if (this.cameraMode === 'follow' && this.store && this.store.n) this.follow(this.frameIndex);
  }

  resetCamera() {
    if (this.meta) this.fitInitial();
  }

  /// 'fit' (fit to the initial pose; the default), 'follow' (the orbit target moves with the centre
  /// of mass, the view direction and distance are kept) or 'free' (the camera stays where the user
  /// put it).
  setCameraMode(mode) {
    if (!CAMERA_MODES.some(([v]) => v === mode)) return;
    this.cameraMode = mode;
    this.cameraSel.value = mode;
    if (!this.meta) return;
    if (mode === 'fit') this.fitInitial();
    else if (mode === 'follow' && this.store.n) this.follow(this.frameIndex);
  }

  /// The point followed at frame k: the COM, else the centre of the points.
  followPoint(k, out) {
    const f = this.store.f;
    if (this.store.hasCom && f.com_m[k] && Number.isFinite(f.com_m[k][0])) return out.fromArray(f.com_m[k]);
    const p = f.positions_m[k];
    out.set(0, 0, 0);
    const n = p.length / 3;
    for (let i = 0; i < p.length; i += 3) { out.x += p[i]; out.y += p[i + 1]; out.z += p[i + 2]; }
    return n ? out.multiplyScalar(1 / n) : out;
  }

  follow(k) {
    const c = this.followPoint(k, this.tmp.d);
    if (!Number.isFinite(c.x + c.y + c.z)) return;
    const delta = this.tmp.mid.subVectors(c, this.controls.target);
    if (delta.lengthSq() === 0) return;
    this.camera.position.add(delta);
    this.controls.target.copy(c);
    this.controls.update();
    this.placeSun();
    // the grid under the followed point, moved by whole cells
    if (this.grid) {
      const st = this.gridStep;
      const gx = Math.round(c.x / st) * st, gy = Math.round(c.y / st) * st;
      this.grid.position.x = gx;
      this.grid.position.y = gy;
      if (this.groundPlane) this.groundPlane.position.set(gx, gy, this.groundPlane.position.z);
    }
  }

  /// Screen position of a world point: {x, y} in CSS pixels from the canvas's top left, ndc
  /// [-1, 1]^2 (inside the view when both are in range and z < 1).
  project(x, y, z) {
    this.camera.updateMatrixWorld();
    const v = new Vector3(x, y, z).project(this.camera);
    const w = this.renderer.domElement.clientWidth, h = this.renderer.domElement.clientHeight;
    return { x: ((v.x + 1) / 2) * w, y: ((1 - v.y) / 2) * h, ndc: [v.x, v.y, v.z] };
  }

  /// Points the triad's x, y, z along the world axes as the camera sees them (far axis drawn first, faded).
  drawTriad() {
    const c = 42, L = 27;
    const m = this.camera.matrixWorldInverse;
    const dirs = [new Vector3(1, 0, 0), new Vector3(0, 1, 0), new Vector3(0, 0, 1)].map((v) => v.transformDirection(m));
    const order = [0, 1, 2].sort((i, j) => dirs[i].z - dirs[j].z); // far first
    for (const i of order) {
      const a = this.triadAxes[i], v = dirs[i];
      a.line.setAttribute('x1', String(c));
      a.line.setAttribute('y1', String(c));
      a.line.setAttribute('x2', (c + v.x * L).toFixed(1));
      a.line.setAttribute('y2', (c - v.y * L).toFixed(1));
      a.text.setAttribute('x', (c + v.x * (L + 9)).toFixed(1));
      a.text.setAttribute('y', (c - v.y * (L + 9)).toFixed(1));
      a.g.setAttribute('opacity', v.z < -0.2 ? '0.5' : '1');
      this.triad.appendChild(a.g); // re-append: drawn in this order
    }
  }

  // ---------------------------------------------------------------- picking
  /// The element under (px, py) (CSS pixels in the canvas) at the current frame:
  /// {type: 'point' | 'cable' | 'rod', index} or null. Screen-space: the nearest point, cable or rod
  /// surface within PICK_PX pixels (points win near their spot).
  pickAt(px, py) {
    if (!this.store || !this.store.n) return null;
    const p = this.store.f.positions_m[this.frameIndex];
    const np = this.meta.points.length;
    const cam = this.camera;
    const h = this.renderer.domElement.clientHeight;
    const pxPerM = h / 2 / Math.tan((cam.fov * Math.PI) / 360); // at unit depth
    const sx = new Float32Array(np), sy = new Float32Array(np), sd = new Float32Array(np);
    const v = this.tmp.a;
    for (let i = 0; i < np; i++) {
      v.fromArray(p, 3 * i);
      const depth = v.distanceTo(cam.position);
      const s = this.project(v.x, v.y, v.z);
      sx[i] = s.x; sy[i] = s.y;
      sd[i] = s.ndc[2] < 1 && s.ndc[2] > -1 ? depth : -1; // -1: behind the camera
    }
    let best = null, bestD = PICK_PX;
    const consider = (type, index, d) => {
      if (d < bestD) { bestD = d; best = { type, index }; }
    };
    for (let i = 0; i < np; i++) {
      if (sd[i] < 0 || (this.hiddenPoints && this.hiddenPoints.has(i))) continue;
      const r = (this.pointR * pxPerM) / sd[i];
      consider('point', i, Math.max(0, Math.hypot(px - sx[i], py - sy[i]) - r) - 3);
    }
    this.meta.cables.forEach((c, i) => {
      if (sd[c.a] < 0 || sd[c.b] < 0) return;
      consider('cable', i, segDist(px, py, sx[c.a], sy[c.a], sx[c.b], sy[c.b]));
    });
    this.rodObjs.forEach((o, i) => {
      const { a, b } = o.rod;
      if (sd[a] < 0 || sd[b] < 0) return;
      const r = (o.r * pxPerM) / Math.max(1e-9, Math.min(sd[a], sd[b]));
      consider('rod', i, Math.max(0, segDist(px, py, sx[a], sy[a], sx[b], sy[b]) - r));
    });
    return best;
  }

  /// Selects an element ({type, index}, or by name: {type, name}), null clears. Shows its values and
  /// its plot.
  select(sel) {
    if (!this.meta) return;
    if (sel && sel.name !== undefined && sel.index === undefined) {
      const list = sel.type === 'cable' ? this.meta.cables : sel.type === 'rod' ? this.meta.rods : this.meta.points;
      const index = list.findIndex((e) => (typeof e === 'string' ? e : e.name) === sel.name);
      sel = index >= 0 ? { type: sel.type, index } : null;
    }
    const same = sel && this.selected && sel.type === this.selected.type && sel.index === this.selected.index;
    if (same) return;
    this.selected = sel;
    if (this.pickPlot) {
      this.plots = this.plots.filter((p) => p !== this.pickPlot);
      this.pickPlot.destroy();
      this.pickPlot = null;
    }
    if (sel) this.makePickPlot(sel);
    this.updateTrail();
    this.fitPlotHeights();
    this.updatePickInfo();
    this.updateHighlights();
    this.placeCursors();
    this.dirty = true;
  }

  /// The joint drawn at a point (tree robots), or null.
  jointOfPoint(i) {
    const j = this.jointAt ? this.jointAt.get(i) : undefined;
    return j === undefined ? null : this.meta.joints[j];
  }

  jointOf(sel) {
    if (!sel || !this.meta.joints.length) return null;
    if (sel.type === 'point') return this.jointOfPoint(sel.index);
    if (sel.type === 'rod') return this.jointOfPoint(this.meta.rods[sel.index].a); // a link is moved by the joint at its origin
    return null;
  }

  /// Value of plot `id` ("q", "qd", "tau") series `s` at frame k, or undefined.
  jointValue(id, s, k) {
    const p = this.plotById[id];
    if (!p || s < 0 || s >= p.series.length) return undefined;
    const v = p.series[s].values[k];
    return typeof v === 'number' ? v : undefined;
  }

  elementName(sel) {
    if (sel.type === 'cable') return this.meta.cables[sel.index].name;
    if (sel.type === 'rod') return this.meta.rods[sel.index].name;
    return this.meta.points[sel.index];
  }

  /// What is shown for an element at frame k: {kind, name, rows: [{id, label, value, text, unit}]}.
  elementInfo(sel, k) {
    const f = this.store.f;
    const p = f.positions_m[k];
    const meta = this.meta;
    const len = (a, b) => Math.hypot(p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]);
    const rows = [];
    const row = (id, label, value, unit = '', text = undefined) => rows.push({ id, label, value, unit, text: text !== undefined ? text : fmtValue(value) });
    let kind = sel.type;
    if (sel.type === 'cable') {
      const c = meta.cables[sel.index];
      const t = f.cable_tension_N[k][sel.index];
      const signed = meta.cable_force_signed;
      // the value of scene.json as written (7 significant digits), not rounded again
      row('pick-tension', signed ? 'force' : 'tension', t, 'N', String(t));
      row('pick-strain', 'strain', f.cable_strain[k][sel.index]);
      row('pick-length', 'length', len(c.a, c.b), 'm');
      const slack = signed ? t === 0 : !(t > 0);
      row('pick-state', 'state', NaN, '', slack ? 'slack' : t < 0 ? 'pushing' : 'taut');
      row('pick-ends', 'from - to', NaN, '', `${meta.points[c.a]} - ${meta.points[c.b]}`);
    } else if (sel.type === 'rod') {
      const r = meta.rods[sel.index];
      if (meta.kind === 'tree') kind = 'link';
      row('pick-length', 'length', len(r.a, r.b), 'm');
      row('pick-ends', 'from - to', NaN, '', `${meta.points[r.a]} - ${meta.points[r.b]}`);
    } else {
      const i = sel.index;
      const name = meta.points[i];
      if (meta.kind === 'cdpr' && name.startsWith('A_')) kind = 'anchor';
      row('pick-x', 'x', p[3 * i], 'm');
      row('pick-y', 'y', p[3 * i + 1], 'm');
      row('pick-z', 'z', p[3 * i + 2], 'm');
      // resultant of the cable forces on the point (each cable pulls towards its other end)
      let fx = 0, fy = 0, fz = 0, ncab = 0;
      meta.cables.forEach((c, ci) => {
        if (c.a !== i && c.b !== i) return;
        const o = c.a === i ? c.b : c.a;
        const l = len(i, o);
        if (!(l > 0)) return;
        const t = f.cable_tension_N[k][ci];
        fx += (t * (p[3 * o] - p[3 * i])) / l;
        fy += (t * (p[3 * o + 1] - p[3 * i + 1])) / l;
        fz += (t * (p[3 * o + 2] - p[3 * i + 2])) / l;
        ncab++;
      });
      if (ncab) {
        row('pick-force', `cable force (${ncab} cable${ncab > 1 ? 's' : ''})`, Math.hypot(fx, fy, fz), 'N');
        row('pick-force-vec', 'force x, y, z', NaN, 'N', `${fmtValue(fx)}, ${fmtValue(fy)}, ${fmtValue(fz)}`);
      }
    }
    const j = this.jointOf(sel);
    if (j) {
      const unitQ = j.type === 'prismatic' ? 'm' : 'rad';
      row('pick-joint', 'joint', NaN, '', `${j.name} (${j.type})`);
      const q = this.jointValue('q', j.q_index, k), qd = this.jointValue('qd', j.v_index, k), tau = this.jointValue('tau', j.v_index, k);
      if (q !== undefined) row('pick-q', 'q', q, unitQ);
      if (qd !== undefined) row('pick-qd', 'qd', qd, `${unitQ}/s`);
      if (tau !== undefined) row('pick-tau', 'tau', tau, j.type === 'prismatic' ? 'N' : 'N m');
    }
    return { kind, name: this.elementName(sel), rows };
  }

  updatePickInfo() {
    const sel = this.selected;
    if (!sel || !this.store || !this.store.n) {
      this.pickEl.hidden = true;
      if (!this.pointer) this.updateWorldReadout();
      return;
    }
    const info = this.elementInfo(sel, this.frameIndex);
    const box = this.pickEl;
    if (box.dataset.key !== `${sel.type}:${sel.index}`) {
      // rebuild the panel for a new element
      box.innerHTML = '';
      box.dataset.key = `${sel.type}:${sel.index}`;
      box.dataset.kind = info.kind;
      const close = el('button', { type: 'button', class: 'tv-pick-close', id: 'pick-close', title: 'clear the selection (Esc)', text: '\u00d7' });
      close.addEventListener('click', () => this.select(null));
      box.appendChild(el('div', { class: 'tv-pick-head' }, [el('span', { class: 'tv-pick-kind', text: info.kind }), el('span', { id: 'pick-name', class: 'tv-pick-name', text: info.name }), close]));
      this.pickRows = {};
      for (const r of info.rows) {
        const v = el('span', { id: r.id, class: 'tv-num' });
        box.appendChild(el('div', { class: 'tv-pick-row' }, [el('span', { class: 'tv-lbl', text: r.label }), v]));
        this.pickRows[r.id] = v;
      }
      box.appendChild(el('div', { class: 'tv-pick-t', id: 'pick-time' }));
    }
    for (const r of info.rows) {
      const v = this.pickRows[r.id];
      if (!v) continue;
      const text = r.unit ? `${r.text} ${r.unit}` : r.text;
      if (v.textContent !== text) v.textContent = text;
    }
    if (sel.type === 'point' && !this.pointer) this.updateWorldReadout();
    const t = box.querySelector('.tv-pick-t');
    if (t) t.textContent = `at t = ${this.store.f.t_s[this.frameIndex].toFixed(3)} s`;
    box.hidden = false;
  }

  /// Per-frame series of the picked element's plot: {title, yLabel, names, at(k) -> [values]}.
  pickSeries(sel) {
    const meta = this.meta;
    const f = this.store.f;
    const name = this.elementName(sel);
    const len = (k, a, b) => {
      const p = f.positions_m[k];
      return Math.hypot(p[3 * b] - p[3 * a], p[3 * b + 1] - p[3 * a + 1], p[3 * b + 2] - p[3 * a + 2]);
    };
    if (sel.type === 'cable') {
      const i = sel.index;
      const fname = meta.cable_force_signed ? 'force' : 'tension';
      return { title: `cable ${name}: ${fname}`, yLabel: 'N', names: [`${name} ${fname}`], at: (k) => [f.cable_tension_N[k][i]] };
    }
    const j = this.jointOf(sel);
    if (j && this.plotById.q && j.q_index >= 0) {
      const qs = this.plotById.q.series[j.q_index].values;
      return { title: `joint ${j.name}: q`, yLabel: j.type === 'prismatic' ? 'm' : 'rad', names: [`${j.name} q`], at: (k) => [qs[k]] };
    }
    if (sel.type === 'rod') {
      const r = meta.rods[sel.index];
      return { title: `${meta.kind === 'tree' ? 'link' : 'rod'} ${name}: length`, yLabel: 'm', names: [`${name} length`], at: (k) => [len(k, r.a, r.b)] };
    }
    const i = sel.index;
    return { title: `point ${name}: position`, yLabel: 'm', names: ['x', 'y', 'z'], colors: ['#d62728', '#2ca02c', '#1f77b4'], at: (k) => f.positions_m[k].slice(3 * i, 3 * i + 3) };
  }

  makePickPlot(sel) {
    const s = this.pickSeries(sel);
    const p = new TimePlot(this.plotsEl, {
      title: s.title, yLabel: s.yLabel, names: s.names, colors: s.colors || ['#e8590c', '#2ca02c', '#1f77b4'],
      onSeek: (t) => { this.pause(); this.seekTime(t); }, closable: true, onClose: () => this.select(null),
    });
    p.box.classList.add('tv-plot-pick');
    p.box.id = 'pick-plot';
    p.kind = 'pick';
    p.series = s;
    p.cols = s.names.map(() => []);
    this.plotsEl.insertBefore(p.box, this.plotsEl.firstChild);
    this.plots.unshift(p);
    this.pickPlot = p;
    this.updatePlotData();
  }

  /// Moves the highlight meshes onto the selected and hovered elements at the current frame.
  updateHighlights() {
    for (const [hi, sel, grow] of [[this.hiSel, this.selected, 1.0], [this.hiHov, this.hovered, 0.85]]) {
      hi.cyl.visible = false;
      hi.sph.visible = false;
      if (!sel || !this.store || !this.store.n) continue;
      const p = this.store.f.positions_m[this.frameIndex];
      const { a, b, d, mid, m, q, s } = this.tmp;
      if (sel.type === 'point') {
        hi.sph.position.fromArray(p, 3 * sel.index);
        hi.sph.scale.setScalar(this.pointR * 2.2 * grow);
        hi.sph.visible = true;
        continue;
      }
      const e = sel.type === 'cable' ? this.meta.cables[sel.index] : this.meta.rods[sel.index];
      const r = sel.type === 'cable' ? Math.max(this.diag * 0.005, this.pointR * 0.7) : this.rodObjs[sel.index].r * 1.25 + this.diag * 0.002;
      a.fromArray(p, 3 * e.a);
      b.fromArray(p, 3 * e.b);
      d.subVectors(b, a);
      const l = d.length();
      if (l > 1e-12) q.setFromUnitVectors(Y_AXIS, d.multiplyScalar(1 / l));
      else q.identity();
      s.set(r * grow, Math.max(l, 1e-9), r * grow);
      m.compose(mid.addVectors(a, b).multiplyScalar(0.5), q, s);
      hi.cyl.matrix.copy(m);
      hi.cyl.matrixWorldNeedsUpdate = true;
      hi.cyl.visible = true;
    }
  }

  /// Hover: tooltip, highlight and the world readout (the pointer's point on the floor plane).
  updateHover() {
    this.pointerMoved = false;
    const ptr = this.pointer;
    let hov = null;
    if (ptr && this.store && this.store.n && !this.down) hov = this.pickAt(ptr.x, ptr.y);
    const changed = (hov === null) !== (this.hovered === null) || (hov && (hov.type !== this.hovered.type || hov.index !== this.hovered.index));
    this.hovered = hov;
    if (changed) {
      this.updateHighlights();
      this.dirty = true;
    }
    this.renderer.domElement.style.cursor = hov ? 'pointer' : '';
    if (hov) {
      const info = this.elementInfo(hov, this.frameIndex);
      const main = info.rows[0];
      this.hoverEl.textContent = `${info.kind} ${info.name}${main ? `: ${main.label} ${main.text}${main.unit ? ` ${main.unit}` : ''}` : ''}`;
      this.hoverEl.style.transform = `translate(${Math.round(ptr.x + 14)}px, ${Math.round(ptr.y + 12)}px)`;
      this.hoverEl.hidden = false;
    } else {
      this.hoverEl.hidden = true;
    }
    this.updateWorldReadout();
  }

  /// World-frame readout: the hovered point, else the floor point under the cursor, else the
  /// selected point (at the current frame), else nothing.
  updateWorldReadout() {
    const step = this.gridStep || 0.01;
    const ptr = this.pointer;
    const pointText = (i, what) => {
      const p = this.store.f.positions_m[this.frameIndex];
      return `${what}${this.meta.points[i]}: (${fmtM(p[3 * i], step)}, ${fmtM(p[3 * i + 1], step)}, ${fmtM(p[3 * i + 2], step)}) m`;
    };
    let text = '';
    if (this.hovered && this.hovered.type === 'point') {
      text = pointText(this.hovered.index, '');
    } else if (ptr && this.meta) {
      const w = this.renderer.domElement.clientWidth, h = this.renderer.domElement.clientHeight;
      this.ndc.set((ptr.x / w) * 2 - 1, -(ptr.y / h) * 2 + 1);
      this.raycaster.setFromCamera(this.ndc, this.camera);
      const hit = this.raycaster.ray.intersectPlane(this.floorPlane, this.tmp.s);
      text = hit ? `cursor on the floor: (${fmtM(hit.x, step)}, ${fmtM(hit.y, step)}, ${fmtM(hit.z, step)}) m` : 'cursor: above the horizon';
    } else if (this.selected && this.selected.type === 'point' && this.store && this.store.n) {
      text = pointText(this.selected.index, 'picked ');
    }
    if (this.worldEl.textContent !== text) this.worldEl.textContent = text;
  }

  // ---------------------------------------------------------------- plots
  buildPlots() {
    const meta = this.meta;
    const seek = (t) => { this.pause(); this.seekTime(t); };
    this.plotsEl.innerHTML = '';
    this.plots = [];
    if (meta.cables.length) {
      this.cablePlot = this.makeCablePlot();
    }
    // a tree's joint plots first (q, qd, tau), then energies, COM and the other plots
    const extras = [...meta.plots.filter((p) => p.id), ...meta.plots.filter((p) => !p.id)];
    const addExtra = (xp) => {
      // a tree's joint plots list the drawn (real) joints first, then the other coordinates
      // (a floating base's or the fictitious chain's)
      let order = xp.series.map((_, k) => k);
      if (xp.id && meta.joints.length) {
        const real = meta.joints.map((j) => (xp.id === 'q' ? j.q_index : j.v_index)).filter((k) => k >= 0 && k < xp.series.length);
        order = [...real, ...order.filter((k) => !real.includes(k))];
      }
      const p = new TimePlot(this.plotsEl, { title: xp.title, yLabel: xp.y_label, names: order.map((k) => xp.series[k].name), styles: palette(xp.series.length), onSeek: seek });
      p.kind = 'extra';
      p.extra = xp;
      p.order = order;
      this.plots.push(p);
    };
    for (const xp of extras.filter((p) => p.id)) addExtra(xp);
    if (this.store.hasEnergy) {
      const keys = this.store.energyKeys;
      const names = [...keys], styles = keys.map((k) => ({ color: ENERGY_COLORS[ENERGY_KEYS.indexOf(k)], dash: null }));
      this.energyRunCols = [];
      (this.runs || []).forEach((r, ri) => {
        for (const k of r.store.hasEnergy ? r.store.energyKeys : []) {
          names.push(`${k} [${r.label}]`);
          styles.push({ color: ENERGY_COLORS[ENERGY_KEYS.indexOf(k)], dash: [[7, 3], [2, 2], [9, 3, 2, 3]][ri % 3] });
          this.energyRunCols.push({ r, k, col: [] });
        }
      });
      this.energyPlot = new TimePlot(this.plotsEl, { title: 'energy', yLabel: 'J', names, styles, onSeek: seek });
      this.energyPlot.kind = 'energy';
      this.plots.push(this.energyPlot);
    }
    this.energyBox.style.display = this.store.hasEnergy || this.store.n === 0 ? '' : 'none';
    if (this.store.hasCom) {
      this.comCols = [[], [], []];
      const names = ['x', 'y', 'z'], styles = ['#d62728', '#2ca02c', '#1f77b4'].map((color) => ({ color, dash: null }));
      (this.runs || []).forEach((r, ri) => {
        if (!r.store.hasCom) return;
        ['x', 'y', 'z'].forEach((a, c) => {
          names.push(`${a} [${r.label}]`);
          styles.push({ color: styles[c].color, dash: [[7, 3], [2, 2], [9, 3, 2, 3]][ri % 3] });
          this.comCols.push([]);
        });
      });
      const p = new TimePlot(this.plotsEl, { title: 'centre of mass', yLabel: 'm', names, styles, onSeek: seek });
      p.kind = 'com';
      this.plots.push(p);
    }
    // differences of the compared runs to this one (points matched by name)
    const diffNames = [];
    this.diffSpecs = [];
    for (const r of this.runs || []) {
      const pairs = [];
      r.meta.points.forEach((name, j) => {
        const i = meta.points.indexOf(name);
        if (i >= 0) pairs.push([i, j]);
      });
      if (pairs.length) {
        diffNames.push(`max point distance ${r.label} - A`);
        this.diffSpecs.push({ r, kind: 'points', pairs, col: [] });
      }
      if (r.store.hasCom && this.store.hasCom) {
        diffNames.push(`COM distance ${r.label} - A`);
        this.diffSpecs.push({ r, kind: 'com', col: [] });
      }
    }
    if (diffNames.length) {
      const p = new TimePlot(this.plotsEl, { title: 'difference to A (this run)', yLabel: 'm', names: diffNames, onSeek: seek });
      p.kind = 'diff';
      this.plots.push(p);
    }
    for (const xp of extras.filter((p) => !p.id)) addExtra(xp);
    requestAnimationFrame(() => this.fitPlotHeights());
  }

  makeCablePlot() {
    const tension = this.colorMode === 'tension';
    const names = this.meta.cables.map((c) => c.name);
    for (const r of this.runs || []) for (const c of r.meta.cables) names.push(`${c.name} [${r.label}]`);
    const p = new TimePlot(this.plotsEl, {
      title: `cable ${this.forceName()}`,
      yLabel: tension ? 'N' : '(l - l0) / l0',
      names,
      styles: palette(names.length),
      onSeek: (t) => { this.pause(); this.seekTime(t); },
    });
    p.kind = 'cable';
    // keep it first (after the picked element's plot)
    const first = this.pickPlot ? this.pickPlot.box.nextSibling : this.plotsEl.firstChild;
    this.plotsEl.insertBefore(p.box, first);
    const at = this.pickPlot ? 1 : 0;
    this.plots.splice(at, 0, p);
    return p;
  }

  updatePlotData() {
    const f = this.store.f;
    const n = this.store.n;
    const t = f.t_s;
    for (const p of this.plots) {
      if (p.kind === 'cable') {
        const src = this.colorMode === 'tension' ? f.cable_tension_N : f.cable_strain;
        if (!p.cols || p.colsMode !== this.colorMode) {
          p.cols = p.names.map(() => []);
          p.colsMode = this.colorMode;
        }
        const nc = this.meta.cables.length;
        for (let c = 0; c < nc; c++) {
          const col = p.cols[c];
          for (let i = col.length; i < n; i++) col.push(src[i][c]);
        }
        let c0 = nc;
        for (const r of this.runs || []) {
          const rs = this.colorMode === 'tension' ? r.store.f.cable_tension_N : r.store.f.cable_strain;
          for (let c = 0; c < r.meta.cables.length; c++) {
            const col = p.cols[c0 + c];
            for (let i = col.length; i < n; i++) {
              const j = this.runFrame(r, i);
              col.push(j >= 0 ? rs[j][c] : null);
            }
          }
          c0 += r.meta.cables.length;
        }
        p.setData([t, ...p.cols]);
      } else if (p.kind === 'pick') {
        for (let i = p.cols[0].length; i < n; i++) {
          const v = p.series.at(i);
          for (let c = 0; c < p.cols.length; c++) p.cols[c].push(typeof v[c] === 'number' ? v[c] : null);
        }
        p.setData([t, ...p.cols]);
      } else if (p.kind === 'energy') {
        for (const e of this.energyRunCols || []) {
          for (let i = e.col.length; i < n; i++) {
            const j = this.runFrame(e.r, i);
            e.col.push(j >= 0 ? e.r.store.f.energy_J[e.k][j] : null);
          }
        }
        p.setData([t, ...this.store.energyKeys.map((k) => f.energy_J[k]), ...(this.energyRunCols || []).map((e) => e.col)]);
      } else if (p.kind === 'com') {
        for (let k = 0; k < 3; k++) {
          const col = this.comCols[k];
          for (let i = col.length; i < n; i++) col.push(f.com_m[i][k]);
        }
        let c = 3;
        for (const r of this.runs || []) {
          if (!r.store.hasCom) continue;
          for (let a = 0; a < 3; a++, c++) {
            const col = this.comCols[c];
            for (let i = col.length; i < n; i++) {
              const j = this.runFrame(r, i);
              col.push(j >= 0 ? r.store.f.com_m[j][a] : null);
            }
          }
        }
        p.setData([t, ...this.comCols]);
      } else if (p.kind === 'diff') {
        for (const d of this.diffSpecs) {
          for (let i = d.col.length; i < n; i++) {
            const j = this.runFrame(d.r, i);
            if (j < 0) { d.col.push(null); continue; }
            if (d.kind === 'com') {
              const a = f.com_m[i], b = d.r.store.f.com_m[j];
              d.col.push(Math.hypot(b[0] - a[0], b[1] - a[1], b[2] - a[2]));
            } else {
              const pa = f.positions_m[i], pb = d.r.store.f.positions_m[j];
              let m = 0;
              for (const [ia, ib] of d.pairs) m = Math.max(m, Math.hypot(pb[3 * ib] - pa[3 * ia], pb[3 * ib + 1] - pa[3 * ia + 1], pb[3 * ib + 2] - pa[3 * ia + 2]));
              d.col.push(m);
            }
          }
        }
        p.setData([t, ...this.diffSpecs.map((d) => d.col)]);
      } else if (p.kind === 'extra') {
        if (p.extra.t_s) {
          // own time base: drawn whole (it does not grow with streamed frames)
          if (!p.ownDrawn) p.setData([p.extra.t_s, ...p.order.map((k) => p.extra.series[k].values)]);
          p.ownDrawn = true;
          continue;
        }
        const ys = p.order.map((k) => {
          const v = p.extra.series[k].values;
          if (v.length === n) return v;
          const out = new Array(n);
          for (let i = 0; i < n; i++) out[i] = i < v.length && typeof v[i] === 'number' ? v[i] : null;
          return out;
        });
        p.setData([t, ...ys]);
      }
    }
  }

  setColorMode(mode) {
    if (mode !== 'tension' && mode !== 'strain') return;
    if (mode === 'strain' && this.meta && this.meta.kind === 'cdpr') return;
    this.colorMode = mode;
    this.colorSel.value = mode;
    if (this.cablePlot) {
      this.plots = this.plots.filter((p) => p !== this.cablePlot);
      this.cablePlot.destroy();
      this.cablePlot = this.makeCablePlot();
      this.updatePlotData();
      this.fitPlotHeights();
    }
    this.updateColorbar();
    if (this.store && this.store.n) this.applyFrame(this.frameIndex);
  }

  // ---------------------------------------------------------------- playback
  play() {
    if (!this.store || this.store.n < 2) return;
    if (this.frameIndex >= this.store.n - 1) this.seek(0);
    this.playing = true;
    this.simTime = this.store.f.t_s[this.frameIndex];
    this.lastWall = null;
    this.playBtn.textContent = 'Pause';
    this.playBtn.classList.add('tv-playing');
  }

  pause() {
    const was = this.playing;
    this.playing = false;
    if (was) {
      this.placeCursors();
      this.updatePickInfo();
    }
    this.playBtn.textContent = 'Play';
    this.playBtn.classList.remove('tv-playing');
  }

  seek(i) {
    if (!this.store || this.store.n === 0) return;
    const k = Math.min(this.store.n - 1, Math.max(0, Math.round(Number(i) || 0)));
    this.simTime = this.store.f.t_s[k];
    this.applyFrame(k);
  }

  /// Index of the last frame with t <= time (binary search).
  indexAt(time) {
    const t = this.store.f.t_s;
    let lo = 0, hi = this.store.n - 1;
    if (time <= t[0]) return 0;
    if (time >= t[hi]) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (t[mid] <= time) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  seekTime(time) {
    if (!this.store || this.store.n === 0) return;
    this.seek(this.indexAt(time));
  }

  tick(now) {
    requestAnimationFrame(this.loopFn);
    if (this.playing && this.store && this.store.n > 1) {
      const f = this.store.f;
      const n = this.store.n;
      if (this.lastWall !== null) {
        const dt = Math.min(0.25, (now - this.lastWall) / 1000);
        this.simTime += dt * this.speed;
      }
      this.lastWall = now;
      const tEnd = f.t_s[n - 1];
      if (this.simTime > tEnd) {
        if (this.loop) {
          const t0 = f.t_s[0];
          const span = tEnd - t0;
          this.simTime = span > 0 ? t0 + ((this.simTime - t0) % span) : t0;
        } else {
          this.simTime = tEnd;
          this.pause();
        }
      }
      const k = this.indexAt(this.simTime);
      if (k !== this.frameIndex) this.applyFrame(k);
      this.dirty = true;
    }
    if (this.pointerMoved) this.updateHover();
    if (this.dirty) {
      this.dirty = false;
      if (this.layers.labels && (this.labelsDirty || this.triadDirty)) {
        this.labelsDirty = false;
        this.updateLabels();
      }
      this.renderer.render(this.scene3, this.camera);
      this.rendered++;
      if (this.triadDirty) {
        this.triadDirty = false;
        this.drawTriad();
      }
    }
  }

  /// Puts frame k into the three.js objects, readouts, slider and plot cursors.
  applyFrame(k) {
    const st = this.store;
    if (!st || st.n === 0) return;
    this.frameIndex = k;
    const f = st.f;
    const p = f.positions_m[k];
    const { a, b, d, mid, m, q, s, c } = this.tmp;
    // rods
    for (const o of this.rodObjs) {
      a.fromArray(p, 3 * o.rod.a);
      b.fromArray(p, 3 * o.rod.b);
      d.subVectors(b, a);
      const len = d.length();
      if (len > 1e-12) q.setFromUnitVectors(Y_AXIS, d.multiplyScalar(1 / len));
      else q.identity();
      s.set(o.r, Math.max(len, 1e-9), o.r);
      m.compose(mid.addVectors(a, b).multiplyScalar(0.5), q, s);
      o.body.matrix.copy(m);
      if (o.caps) {
        o.caps[0].position.copy(a);
        o.caps[1].position.copy(b);
      }
    }
    // cables
    const tens = f.cable_tension_N[k];
    const strain = f.cable_strain[k];
    const useT = this.colorMode === 'tension';
    const signed = this.meta.cable_force_signed;
    for (let i = 0; i < this.cableObjs.length; i++) {
      const o = this.cableObjs[i];
      const arr = o.pos.array;
      const ia = 3 * o.cable.a, ib = 3 * o.cable.b;
      arr[0] = p[ia]; arr[1] = p[ia + 1]; arr[2] = p[ia + 2];
      arr[3] = p[ib]; arr[4] = p[ib + 1]; arr[5] = p[ib + 2];
      o.pos.needsUpdate = true;
      // a signed force is slack only at exactly 0 (a pushing cable is loaded)
      const slack = signed ? !(tens[i] !== 0) : !(tens[i] > 0);
      if (slack) {
        const dx = arr[3] - arr[0], dy = arr[4] - arr[1], dz = arr[5] - arr[2];
        o.dist.array[1] = Math.sqrt(dx * dx + dy * dy + dz * dz);
        o.dist.needsUpdate = true;
      }
      if (slack !== o.slack) {
        o.line.material = slack ? this.slackMat : o.mat;
        o.slack = slack;
      }
      if (!slack) o.mat.color.copy(this.cableColor(useT ? tens[i] : strain[i], c));
    }
    // points
    const pm = this.pointMesh;
    const capR = this.meta.point_radius_m; // end-cap spheres at their true radius
    s.setScalar(this.pointR);
    q.identity();
    for (let i = 0; i < pm.count; i++) {
      a.fromArray(p, 3 * i);
      if (capR) s.setScalar(Math.max(this.pointR, capR[i] || 0));
      if (this.hiddenPoints && this.hiddenPoints.has(i)) {
        m.makeScale(0, 0, 0);
        pm.setMatrixAt(i, m);
        s.setScalar(this.pointR);
        continue;
      }
      m.compose(a, q, s);
      pm.setMatrixAt(i, m);
    }
    pm.instanceMatrix.needsUpdate = true;
    // the platform body (CDPR)
    if (this.platformBody) {
      const pos = this.platformBody.mesh.geometry.getAttribute('position'), nor = this.platformBody.mesh.geometry.getAttribute('normal');
      this.platformBody.tris.forEach((t, n) => {
        for (let v = 0; v < 3; v++) pos.array.set([p[3 * t[v]], p[3 * t[v] + 1], p[3 * t[v] + 2]], 9 * n + 3 * v);
        a.fromArray(pos.array, 9 * n);
        b.fromArray(pos.array, 9 * n + 3).sub(a);
        d.fromArray(pos.array, 9 * n + 6).sub(a);
        b.cross(d).normalize();
        for (let v = 0; v < 3; v++) nor.array.set([b.x, b.y, b.z], 9 * n + 3 * v);
      });
      pos.needsUpdate = true;
      nor.needsUpdate = true;
    }
    // faces
    for (const o of this.faceObjs) {
      const arr = o.pos.array;
      o.face.forEach((pi, j) => {
        arr[3 * j] = p[3 * pi]; arr[3 * j + 1] = p[3 * pi + 1]; arr[3 * j + 2] = p[3 * pi + 2];
      });
      o.pos.needsUpdate = true;
    }
    // joint axes
    const axes = st.hasAxes ? f.joint_axes_W[k] : null;
    for (const o of this.jointObjs) {
      o.seg.visible = !!axes;
      if (!axes) continue;
      const arr = o.pos.array;
      o.js.forEach(({ j, i }, n) => {
        const x = p[3 * j.point], y = p[3 * j.point + 1], z = p[3 * j.point + 2];
        const L = this.jointLen;
        arr[6 * n] = x - 0.5 * L * axes[3 * i]; arr[6 * n + 1] = y - 0.5 * L * axes[3 * i + 1]; arr[6 * n + 2] = z - 0.5 * L * axes[3 * i + 2];
        arr[6 * n + 3] = x + L * axes[3 * i]; arr[6 * n + 4] = y + L * axes[3 * i + 1]; arr[6 * n + 5] = z + L * axes[3 * i + 2];
      });
      o.pos.needsUpdate = true;
    }
    // executed tracks up to this frame
    for (const o of this.pathObjs) if (o.path.per_frame) o.line.geometry.setDrawRange(0, Math.min(k + 1, o.path.points.length));
    // COM track up to this frame
    if (this.comLine) this.comLine.geometry.setDrawRange(0, st.hasCom ? k + 1 : 0);
    if (this.cameraMode === 'follow') this.follow(k);
    if (this.selected || this.hovered) this.updateHighlights();
    this.updateForces(k);
    this.updateGhosts(k);
    this.updateTrail();
    if (this.measure.length) this.updateMeasure();
    this.labelsDirty = true;
    // the hovered element's tooltip and the world readout follow the time (the pointer may not move)
    if (this.pointer) this.updateHover();
    // readouts
    const t = f.t_s[k];
    this.timeEl.textContent = `t = ${t.toFixed(3)} s`;
    this.frameEl.textContent = `frame ${k + 1} / ${st.n}`;
    if (st.hasEnergy) for (const key of ENERGY_KEYS) {
      const arr = f.energy_J[key];
      this.energyEls[key].textContent = arr ? fmtValue(arr[k]) : '-';
    }
    if (this.scrub.value !== String(k)) this.scrub.value = String(k);
    // Plot cursors, legend values and the picked element's values: every frame, except during
    // playback on a software renderer, where each moved cursor widens the composited area across
    // the page (then ~8 updates a second).
    const now = performance.now();
    if (!this.playing || !this.software || now - this.cursorWall > 120) {
      this.cursorWall = now;
      this.placeCursors();
      this.updatePickInfo();
    }
    this.dirty = true;
  }

  placeCursors() {
    if (!this.store || this.store.n === 0) return;
    const t = this.store.f.t_s[this.frameIndex];
    for (const pl of this.plots) pl.setCursor(t);
  }

  counts() {
    if (!this.meta) return { rods: 0, cables: 0, points: 0, faces: 0, paths: 0, joints: 0 };
    return {
      rods: this.rodGroup.children.length,
      cables: this.cableGroup.children.filter((o) => o.isLine).length,
      points: this.pointMesh.count,
      faces: this.faceGroup.children.filter((o) => o.isMesh && o.name !== 'platform-body').length,
      paths: this.pathGroup.children.length,
      joints: this.jointObjs.reduce((s, o) => s + o.js.length, 0),
    };
  }

  plotData() {
    return this.plots.map((p) => ({ title: p.title, kind: p.kind, series: p.names, data: p.data(), legend: p.legendValues(), shown: p.shownSeries(), ticks: p.ticks.slice(), offset: p.tickOffset ? p.tickOffset.text : null, yRange: [p.u.scales.y.min, p.u.scales.y.max] }));
  }
}

/// Creates a viewer in `container` (the element it fills) and, when given, loads `scene` (a full
/// scene, or its static part: frames may be absent and come later through append / appendFrame).
/// options: {onError, page}. Returns the Viewer: load(scene), append(block), appendFrame(frame),
/// clear(), seek(i), play(), pause(), select({type, name}), setCameraMode(m), setColorMode(m).
export function createViewer(container, scene = null, options = {}) {
  const v = new Viewer(container, options);
  if (scene) v.load(scene);
  return v;
}
