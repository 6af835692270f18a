// The 3D viewer component: three.js scene + playback controls + readouts + uPlot plots.
// Used as the whole page in "viewer" mode and as the result pane of the studio, where frames
// arrive in blocks (append()).
import {
  AmbientLight, BufferAttribute, BufferGeometry, Color, CylinderGeometry, DirectionalLight,
  DoubleSide, GridHelper, Group, HemisphereLight, InstancedMesh, Line, LineBasicMaterial,
  LineDashedMaterial, Matrix4, Mesh, MeshBasicMaterial, MeshLambertMaterial, PerspectiveCamera,
  PlaneGeometry, Quaternion, Scene, SphereGeometry, Vector3, WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { FrameStore, normalizeSceneMeta } from './scene.js';
import { TimePlot, palette } from './plots.js';

const SPEEDS = [0.25, 0.5, 1, 2, 4];
const ENERGY_KEYS = ['kinetic', 'elastic', 'gravitational', 'total'];
const ENERGY_COLORS = ['#d62728', '#1f77b4', '#2ca02c', '#222222'];
const Y_AXIS = new Vector3(0, 1, 0);
const SLACK_COLOR = new Color(0x8a8a8a);
const SOFTWARE_MAX_PIXELS = 250000;

function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.appendChild(c);
  return e;
}

/// Number shown in the readouts: 5 significant digits, no exponent for ordinary magnitudes.
export function fmtEnergy(v) {
  if (v === undefined || v === null || !Number.isFinite(v)) return '-';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e-4 && a < 1e6) return String(Number(v.toPrecision(5)));
  return v.toExponential(4);
}

/// Blue (0) -> cyan -> green -> yellow -> red (1).
function rampColor(x, out) {
  const c = Math.min(1, Math.max(0, x));
  return out.setHSL((2 / 3) * (1 - c), 1, 0.45);
}

/// Negative (pushing) cable forces, x = force / most negative force in [0, 1]: grey (0) -> magenta (1).
export function negRampColor(x, out) {
  const c = Math.min(1, Math.max(0, x));
  return out.setHSL(5 / 6, c, 0.45 + 0.1 * (1 - c));
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

export class Viewer {
  constructor(root, { onError } = {}) {
    this.root = root;
    this.onError = onError || ((e) => { throw e; });
    this.meta = null;
    this.store = null;
    this.frameIndex = 0;
    this.playing = false;
    this.speed = 1;
    this.loop = true;
    this.colorMode = 'tension';
    this.simTime = 0;
    this.lastWall = null;
    this.rendered = 0;
    this.cursorWall = 0;
    this.dirty = true;
    this.ready = false;
    this.plots = [];
    this.cablePlot = null;
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
    this.titleEl = el('h1', { class: 'tv-title', text: 'tendyn' });
    this.kindEl = el('span', { class: 'tv-kind' });
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
    this.legendEl = el('div', { class: 'tv-colorbar' });
    this.view3d.appendChild(this.legendEl);
    // controls
    this.playBtn = el('button', { id: 'play', type: 'button', class: 'tv-btn', title: 'play / pause (space)', text: 'Play' });
    this.scrub = el('input', { id: 'scrub', type: 'range', min: '0', max: '0', step: '1', value: '0', 'aria-label': 'frame' });
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
    const controls = el('div', { class: 'tv-controls' }, [
      this.playBtn, this.scrub,
      el('label', { class: 'tv-ctl' }, [document.createTextNode('speed '), this.speedSel]),
      el('label', { class: 'tv-ctl' }, [this.loopBox, document.createTextNode(' loop')]),
      el('label', { class: 'tv-ctl' }, [document.createTextNode('cables '), this.colorSel]),
    ]);
    this.plotsEl = el('div', { class: 'tv-plots' });
    const left = el('div', { class: 'tv-left' }, [this.view3d, controls]);
    r.appendChild(el('div', { class: 'tv-header' }, [this.titleEl, this.kindEl]));
    r.appendChild(el('div', { class: 'tv-body' }, [left, this.plotsEl]));

    this.playBtn.addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    this.scrub.addEventListener('input', () => {
      this.pause();
      this.seek(Number(this.scrub.value));
    });
    this.speedSel.addEventListener('change', () => { this.speed = Number(this.speedSel.value) || 1; });
    this.loopBox.addEventListener('change', () => { this.loop = this.loopBox.checked; });
    this.colorSel.addEventListener('change', () => this.setColorMode(this.colorSel.value));
    this.keyHandler = (ev) => {
      const tag = ev.target && ev.target.tagName;
      if (ev.code === 'Space' && tag !== 'INPUT' && tag !== 'TEXTAREA' && tag !== 'SELECT' && tag !== 'BUTTON') {
        ev.preventDefault();
        this.playing ? this.pause() : this.play();
      }
    };
    window.addEventListener('keydown', this.keyHandler);
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
    this.controls.addEventListener('change', () => { this.dirty = true; });
    this.scene3.add(new HemisphereLight(0xffffff, 0x667788, 1.6));
    this.scene3.add(new AmbientLight(0xffffff, 0.3));
    this.sun = new DirectionalLight(0xffffff, 1.4);
    this.sun.position.set(1, -2, 3);
    this.scene3.add(this.sun);
    this.world = new Group();
    this.scene3.add(this.world);
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.view3d);
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

  disposeWorld() {
    this.world.traverse((o) => {
      if (o.geometry && !o.geometry.userData.shared) o.geometry.dispose();
    });
    this.world.clear();
    for (const p of this.plots) p.destroy();
    this.plots = [];
    this.cablePlot = null;
  }

  /// Replaces the scene. scene: a full scene (with "frames") or its static part and frames
  /// given separately (studio). Throws SceneError on a malformed scene.
  load(scene, frames) {
    const meta = normalizeSceneMeta(scene);
    const store = new FrameStore(meta);
    store.append(frames !== undefined ? frames : scene.frames, 'frames');
    this.pause();
    this.disposeWorld();
    this.meta = meta;
    this.store = store;
    this.frameIndex = 0;
    this.simTime = store.n ? store.f.t_s[0] : 0;
    this.titleEl.textContent = meta.title;
    this.kindEl.textContent = meta.kind;
    this.colorSel.options[0].textContent = meta.cable_force_signed ? 'force' : 'tension';
    document.title = `${meta.title} - tendyn`;
    this.computeRanges(0);
    this.buildObjects();
    this.frameCamera();
    this.buildPlots();
    this.afterAppend();
    this.applyFrame(0);
    this.ready = true;
  }

  /// Appends a block of frames (studio streaming).
  append(frames) {
    if (!this.store) throw new Error('append before load');
    const start = this.store.n;
    const added = this.store.append(frames, 'frames');
    if (!added) return;
    const firstFrames = start === 0;
    this.computeRanges(start);
    if (firstFrames) this.frameCamera();
    this.afterAppend();
    if (firstFrames) this.applyFrame(0);
    else this.dirty = true;
  }

  clear() {
    this.pause();
    this.disposeWorld();
    this.meta = null;
    this.store = null;
    this.ready = false;
    this.scrub.max = '0';
    this.timeEl.textContent = 't = 0.000 s';
    for (const k of ENERGY_KEYS) this.energyEls[k].textContent = '-';
    this.dirty = true;
  }

  computeRanges(start) {
    const f = this.store.f;
    if (start === 0) {
      this.bbMin = new Vector3(Infinity, Infinity, Infinity);
      this.bbMax = new Vector3(-Infinity, -Infinity, -Infinity);
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
      for (const v of f.cable_tension_N[i]) {
        if (v > this.maxTension) this.maxTension = v;
        if (v < this.minTension) this.minTension = v;
      }
      for (const v of f.cable_strain[i]) if (v > this.maxStrain) this.maxStrain = v;
    }
    if (!Number.isFinite(this.bbMin.x)) {
      this.bbMin.set(-0.5, -0.5, 0);
      this.bbMax.set(0.5, 0.5, 1);
    }
    this.updateColorbar();
  }

  updateColorbar() {
    const useT = this.colorMode === 'tension';
    const max = useT ? this.maxTension : this.maxStrain;
    const unit = useT ? ' N' : '';
    this.legendEl.innerHTML = '';
    if (!this.meta || this.meta.cables.length === 0) return;
    // signed forces (cable_force_sign: paper_law): the bar starts at the most negative force
    if (useT && this.meta.cable_force_signed && this.minTension < 0) {
      this.legendEl.appendChild(el('span', { id: 'colorbar-min', text: `${fmtEnergy(this.minTension)} N` }));
      this.legendEl.appendChild(el('span', { class: 'tv-ramp-neg' }));
    }
    this.legendEl.appendChild(el('span', { id: 'colorbar-zero', text: '0' }));
    this.legendEl.appendChild(el('span', { class: 'tv-ramp' }));
    this.legendEl.appendChild(el('span', { text: `${fmtEnergy(max)}${unit} ${this.forceName()}` }));
    this.legendEl.appendChild(el('span', { class: 'tv-slack-key', text: 'slack' }));
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

  buildObjects() {
    const meta = this.meta;
    const diag = this.sizeScale();
    const minR = diag * 0.004;
    // rods
    this.rodGroup = new Group();
    this.rodGroup.name = 'rods';
    const cyl = new CylinderGeometry(1, 1, 1, 16, 1, false);
    const sph = new SphereGeometry(1, 16, 10);
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
    // ground and COM track
    const floorZ = meta.ground_z_m !== null ? meta.ground_z_m : this.bbMin.z;
    this.floorZ = floorZ;
    if (meta.ground_z_m !== null) {
      const cx = (this.bbMin.x + this.bbMax.x) / 2, cy = (this.bbMin.y + this.bbMax.y) / 2;
      const ext = Math.max(this.bbMax.x - this.bbMin.x, this.bbMax.y - this.bbMin.y, diag * 0.5);
      const step = 10 ** Math.floor(Math.log10(ext / 4));
      const size = Math.ceil((ext * 2) / step / 2) * 2 * step;
      const grid = new GridHelper(size, Math.round(size / step), 0x9aa3ad, 0xc8ced4);
      grid.rotation.x = Math.PI / 2;
      grid.position.set(Math.round(cx / step) * step, Math.round(cy / step) * step, floorZ);
      grid.name = 'ground';
      const plane = new Mesh(new PlaneGeometry(size, size), new MeshBasicMaterial({ color: 0xe6eaee, transparent: true, opacity: 0.6, depthWrite: false }));
      plane.position.set(grid.position.x, grid.position.y, floorZ - diag * 1e-4);
      plane.renderOrder = -1;
      this.world.add(plane);
      this.world.add(grid);
    }
    this.comCap = 0;
    this.comLine = null;
    this.ensureComCapacity(Math.max(16, this.store.n));
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
    if (!this.comMat) this.comMat = new LineBasicMaterial({ color: 0xe07b00 });
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
      const z = this.floorZ + this.sizeScale() * 5e-4;
      for (let i = this.comFilled; i < n; i++) {
        const c = this.store.f.com_m[i];
        a[3 * i] = c[0];
        a[3 * i + 1] = c[1];
        a[3 * i + 2] = z;
      }
      this.comFilled = n;
      this.comPos.needsUpdate = true;
    }
    this.updatePlotData();
    this.updateColorbar();
  }

  frameCamera() {
    const c = this.bbMin.clone().add(this.bbMax).multiplyScalar(0.5);
    const r = Math.max(this.sizeScale() * 0.5, 1e-3);
    const dist = r / Math.sin((this.camera.fov * Math.PI) / 360) * 1.05;
    const dir = new Vector3(0.55, -1, 0.6).normalize();
    this.camera.position.copy(c).addScaledVector(dir, dist);
    this.camera.near = dist / 100;
    this.camera.far = dist * 100;
    this.camera.updateProjectionMatrix();
    this.controls.target.copy(c);
    this.controls.update();
    this.sun.position.copy(c).add(new Vector3(r, -2 * r, 3 * r));
    this.sun.target.position.copy(c);
    this.sun.target.updateMatrixWorld();
    this.dirty = true;
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
    if (this.store.hasEnergy) {
      const keys = this.store.energyKeys;
      this.energyPlot = new TimePlot(this.plotsEl, { title: 'energy', yLabel: 'J', names: keys, colors: keys.map((k) => ENERGY_COLORS[ENERGY_KEYS.indexOf(k)]), onSeek: seek });
      this.energyPlot.kind = 'energy';
      this.plots.push(this.energyPlot);
    }
    this.energyBox.style.display = this.store.hasEnergy || this.store.n === 0 ? '' : 'none';
    if (this.store.hasCom) {
      this.comCols = [[], [], []];
      const p = new TimePlot(this.plotsEl, { title: 'centre of mass', yLabel: 'm', names: ['x', 'y', 'z'], colors: ['#d62728', '#2ca02c', '#1f77b4'], onSeek: seek });
      p.kind = 'com';
      this.plots.push(p);
    }
    for (const xp of meta.plots) {
      const p = new TimePlot(this.plotsEl, { title: xp.title, yLabel: xp.y_label, names: xp.series.map((s) => s.name), colors: palette(xp.series.length), onSeek: seek });
      p.kind = 'extra';
      p.extra = xp;
      this.plots.push(p);
    }
  }

  makeCablePlot() {
    const tension = this.colorMode === 'tension';
    const p = new TimePlot(this.plotsEl, {
      title: `cable ${this.forceName()}`,
      yLabel: tension ? 'N' : '(l - l0) / l0',
      names: this.meta.cables.map((c) => c.name),
      colors: palette(this.meta.cables.length),
      onSeek: (t) => { this.pause(); this.seekTime(t); },
    });
    p.kind = 'cable';
    // keep it first
    this.plotsEl.insertBefore(p.box, this.plotsEl.firstChild);
    this.plots.unshift(p);
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
          p.cols = this.meta.cables.map(() => []);
          p.colsMode = this.colorMode;
        }
        for (let c = 0; c < p.cols.length; c++) {
          const col = p.cols[c];
          for (let i = col.length; i < n; i++) col.push(src[i][c]);
        }
        p.setData([t, ...p.cols]);
      } else if (p.kind === 'energy') {
        p.setData([t, ...this.store.energyKeys.map((k) => f.energy_J[k])]);
      } else if (p.kind === 'com') {
        for (let k = 0; k < 3; k++) {
          const col = this.comCols[k];
          for (let i = col.length; i < n; i++) col.push(f.com_m[i][k]);
        }
        p.setData([t, ...this.comCols]);
      } else if (p.kind === 'extra') {
        if (p.extra.t_s) {
          // own time base: drawn whole (it does not grow with streamed frames)
          if (!p.ownDrawn) p.setData([p.extra.t_s, ...p.extra.series.map((s) => s.values)]);
          p.ownDrawn = true;
          continue;
        }
        const ys = p.extra.series.map((s) => {
          const v = s.values;
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
    this.colorMode = mode;
    this.colorSel.value = mode;
    if (this.cablePlot) {
      this.plots = this.plots.filter((p) => p !== this.cablePlot);
      this.cablePlot.destroy();
      this.cablePlot = this.makeCablePlot();
      this.updatePlotData();
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
    if (was) this.placeCursors();
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
    if (this.dirty) {
      this.dirty = false;
      this.renderer.render(this.scene3, this.camera);
      this.rendered++;
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
    const max = useT ? this.maxTension : this.maxStrain;
    const signed = this.meta.cable_force_signed;
    const min = this.minTension;
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
      if (!slack) {
        const v = useT ? tens[i] : strain[i];
        if (useT && v < 0) o.mat.color.copy(negRampColor(min < 0 ? v / min : 0, c));
        else o.mat.color.copy(rampColor(max > 0 ? v / max : 0, c));
      }
    }
    // points
    const pm = this.pointMesh;
    s.setScalar(this.pointR);
    q.identity();
    for (let i = 0; i < pm.count; i++) {
      a.fromArray(p, 3 * i);
      m.compose(a, q, s);
      pm.setMatrixAt(i, m);
    }
    pm.instanceMatrix.needsUpdate = true;
    // faces
    for (const o of this.faceObjs) {
      const arr = o.pos.array;
      o.face.forEach((pi, j) => {
        arr[3 * j] = p[3 * pi]; arr[3 * j + 1] = p[3 * pi + 1]; arr[3 * j + 2] = p[3 * pi + 2];
      });
      o.pos.needsUpdate = true;
    }
    // COM track up to this frame
    if (this.comLine) this.comLine.geometry.setDrawRange(0, st.hasCom ? k + 1 : 0);
    // readouts
    const t = f.t_s[k];
    this.timeEl.textContent = `t = ${t.toFixed(3)} s`;
    this.frameEl.textContent = `frame ${k + 1} / ${st.n}`;
    if (st.hasEnergy) for (const key of ENERGY_KEYS) {
      const arr = f.energy_J[key];
      this.energyEls[key].textContent = arr ? fmtEnergy(arr[k]) : '-';
    }
    if (this.scrub.value !== String(k)) this.scrub.value = String(k);
    // Plot cursors: every frame, except during playback on a software renderer, where each
    // moved cursor widens the composited area across the page (then ~8 updates a second).
    const now = performance.now();
    if (!this.playing || !this.software || now - this.cursorWall > 120) {
      this.cursorWall = now;
      this.placeCursors();
    }
    this.dirty = true;
  }

  placeCursors() {
    if (!this.store || this.store.n === 0) return;
    const t = this.store.f.t_s[this.frameIndex];
    for (const pl of this.plots) pl.setCursor(t);
  }

  counts() {
    if (!this.meta) return { rods: 0, cables: 0, points: 0, faces: 0 };
    return {
      rods: this.rodGroup.children.length,
      cables: this.cableGroup.children.filter((o) => o.isLine).length,
      points: this.pointMesh.count,
      faces: this.faceGroup.children.filter((o) => o.isMesh).length,
    };
  }

  plotData() {
    return this.plots.map((p) => ({ title: p.title, kind: p.kind, series: p.names, data: p.data() }));
  }
}
