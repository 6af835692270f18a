// The viewer's three.js scene: renderer, camera, lights, the objects made once per scene (rods,
// cables, points, faces, a CDPR platform's body, joint axes, paths, point clouds, COM track,
// floor grid), layers, and the per-frame update of those objects.
// Methods of Viewer (viewer.js installs them on its prototype): `this` is the viewer, whose
// state they share.
import {
  AmbientLight, AxesHelper, BufferAttribute, BufferGeometry, Color, CylinderGeometry, DirectionalLight,
  DoubleSide, GridHelper, Group, HemisphereLight, InstancedMesh, Line, LineBasicMaterial,
  LineDashedMaterial, LineSegments, Mesh, MeshBasicMaterial, MeshLambertMaterial, PerspectiveCamera, Plane,
  PlaneGeometry, Points, PointsMaterial, Raycaster, Scene, SphereGeometry, Vector2, Vector3, WebGLRenderer,
} from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';
import { fmtValue } from './plots.js';
import { viridis } from './colormap.js';
import { Y_AXIS, COM_COLOR, CLOUD_NONE_COLOR, CLOUD_HIGHLIGHT_COLOR } from './viewer_constants.js';
import { clipPolyline, hullTriangles } from './viewer_geometry.js';

const SLACK_COLOR = new Color(0x8a8a8a);
const PATH_COLORS = { target: '#e03131', track: '#ae3ec9' };
const JOINT_COLORS = { revolute: '#c2255c', prismatic: '#1098ad' };
const SOFTWARE_MAX_PIXELS = 250000;

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

export const sceneMethods = {
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
    this.attachPointer();
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.view3d);
    this.pro = new ResizeObserver(() => this.fitPlotHeights());
    this.pro.observe(this.plotsEl);
  },

  resize() {
    const w = this.renderSize ? this.renderSize.width : Math.max(1, this.view3d.clientWidth);
    const h = this.renderSize ? this.renderSize.height : Math.max(1, this.view3d.clientHeight);
    if (this.renderSize) {
      this.renderer.setPixelRatio(1);
    } else if (this.software) {
      // CPU rasterising and the compositor's read-back scale with the pixel count: cap it.
      this.renderer.setPixelRatio(Math.min(1, Math.sqrt(SOFTWARE_MAX_PIXELS / (w * h))));
    }
    this.renderer.setSize(w, h, true);
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.dirty = true;
  },

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
  },

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
  },

  /// Cable value -> colour: viridis over [0, max] (tension, strain) or [min, max] (signed forces).
  cableColor(v, out) {
    const useT = this.colorMode === 'tension';
    const max = useT ? this.maxTension : this.maxStrain;
    const min = useT && this.meta.cable_force_signed ? Math.min(0, this.minTension) : 0;
    return viridis(max > min ? (v - min) / (max - min) : 0, out);
  },

  sizeScale() {
    const d = this.bbMax.clone().sub(this.bbMin);
    return Math.max(d.length(), 1e-3);
  },

  initialScale() {
    const d = this.bb0Max.clone().sub(this.bb0Min);
    return Math.max(d.length(), 1e-3);
  },

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
  },

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
  },

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
  },

  /// The region of interest in x, y: the run's extent (all frames) widened by half the initial
  /// pose's size: {x0, x1, y0, y1}.
  regionOfInterest() {
    const m = 0.5 * this.initialScale();
    return { x0: this.bbMin.x - m, x1: this.bbMax.x + m, y0: this.bbMin.y - m, y1: this.bbMax.y + m };
  },

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
  },

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
  },

  /// Shows or hides a layer: 'rods', 'cables', 'points', 'labels', 'forces', 'paths', 'grid'.
  setLayer(name, on) {
    if (!(name in this.layers)) return;
    this.layers[name] = !!on;
    if (this.layerBoxes[name].checked !== !!on) this.layerBoxes[name].checked = !!on;
    this.applyLayers();
    if (this.store && this.store.n) this.applyFrame(this.frameIndex);
    this.dirty = true;
  },

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
  },

  /// Puts frame k into the three.js objects: rods, cables (colour, slack), points, the platform
  /// body, faces, joint axes, the tracks and the COM track up to frame k.
  updateObjects(k) {
    const st = this.store;
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
  },
};
