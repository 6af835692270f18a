// The 3D viewer component: three.js scene + playback controls + readouts + uPlot plots, picking
// (hover and click on rods, cables, points), camera modes and keyboard shortcuts.
// Used as the whole page in "viewer" mode and as the result pane of the studio and of the live
// page, where frames arrive in blocks (append()) or one by one (appendFrame()).
//
//   const v = createViewer(container, scene);   // scene: docs/VIEWER.md (frames may be empty)
//   v.appendFrame({t_s, positions_m, cable_tension_N, cable_strain, com_m, energy_J});
//
// This file holds the Viewer's state, loading, streaming and playback; the rest of its methods
// live by concern in viewer_dom.js (DOM, readouts, legends, keys), viewer_scene3d.js (three.js
// scene), viewer_overlays.js (forces, ghosts, measure, trail, labels), viewer_camera.js,
// viewer_pick.js (picking, selection, hover), viewer_plots.js and viewer_record.js (PNG, WebM),
// installed on Viewer.prototype below.
import { Color, Matrix4, Quaternion, Vector3 } from 'three';
import { FrameStore, blockOfFrame, normalizeSceneMeta } from './scene.js';
import { ENERGY_KEYS, LAYERS } from './viewer_constants.js';
import { domMethods } from './viewer_dom.js';
import { sceneMethods } from './viewer_scene3d.js';
import { overlayMethods } from './viewer_overlays.js';
import { cameraMethods } from './viewer_camera.js';
import { pickMethods } from './viewer_pick.js';
import { plotMethods } from './viewer_plots.js';
import { recordMethods } from './viewer_record.js';

/// 1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ...
function ordinal(k) {
  const r = k % 100;
  return `${k}${r >= 11 && r <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][k % 10] || 'th'}`;
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
    const pd = runs.length ? null : meta.plotData;
    const plotNote = !pd ? '' : pd.bucket === 1 ? `; plots: all ${pd.samples} samples` : `; plots: min/max of every ${pd.bucket} rows (full data: results.csv)`;
    this.thinnedEl.textContent = th && th.stride > 1 ? `every ${ordinal(th.stride)} of ${th.frames_in_run} frames shown${plotNote} (page size limit, --max-page-mb); all frames: results.csv, scene.json` : '';
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
    this.updateObjects(k);
    if (this.cameraMode === 'follow') this.follow(k);
    if (this.selected || this.hovered) this.updateHighlights();
    this.updateForces(k);
    this.updateGhosts(k);
    this.updateTrail();
    if (this.measure.length) this.updateMeasure();
    this.labelsDirty = true;
    // the hovered element's tooltip and the world readout follow the time (the pointer may not move)
    if (this.pointer) this.updateHover();
    this.updateReadouts(k);
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
}

/// Installs the methods of the parts (objects of methods) on cls.prototype the way class methods
/// are (not enumerable); a name defined twice is a programming error.
function installMethods(cls, parts) {
  for (const part of parts) {
    for (const [name, desc] of Object.entries(Object.getOwnPropertyDescriptors(part))) {
      if (Object.prototype.hasOwnProperty.call(cls.prototype, name)) throw new Error(`Viewer.${name} is defined twice`);
      Object.defineProperty(cls.prototype, name, { value: desc.value, writable: true, configurable: true, enumerable: false });
    }
  }
}
installMethods(Viewer, [domMethods, sceneMethods, overlayMethods, cameraMethods, pickMethods, plotMethods, recordMethods]);

/// Creates a viewer in `container` (the element it fills) and, when given, loads `scene` (a full
/// scene, or its static part: frames may be absent and come later through append / appendFrame).
/// options: {onError, page}. Returns the Viewer: load(scene), append(block), appendFrame(frame),
/// clear(), seek(i), play(), pause(), select({type, name}), setCameraMode(m), setColorMode(m).
export function createViewer(container, scene = null, options = {}) {
  const v = new Viewer(container, options);
  if (scene) v.load(scene);
  return v;
}
