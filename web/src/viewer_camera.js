// The viewer's camera: fit to the initial pose, follow the centre of mass, free; screen projection
// and the axis triad.
// Methods of Viewer (viewer.js installs them on its prototype): `this` is the viewer, whose
// state they share.
import { Vector3 } from 'three';
import { CAMERA_MODES } from './viewer_constants.js';

export const cameraMethods = {
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
  },

  placeSun() {
    const c = this.controls.target;
    const r = this.initialScale() * 0.5;
    this.sun.position.copy(c).add(new Vector3(r, -2 * r, 3 * r));
    this.sun.target.position.copy(c);
    this.sun.target.updateMatrixWorld();
  },

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
  },

  resetCamera() {
    if (this.meta) this.fitInitial();
  },

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
  },

  /// The point followed at frame k: the COM, else the centre of the points.
  followPoint(k, out) {
    const f = this.store.f;
    if (this.store.hasCom && f.com_m[k] && Number.isFinite(f.com_m[k][0])) return out.fromArray(f.com_m[k]);
    const p = f.positions_m[k];
    out.set(0, 0, 0);
    const n = p.length / 3;
    for (let i = 0; i < p.length; i += 3) { out.x += p[i]; out.y += p[i + 1]; out.z += p[i + 2]; }
    return n ? out.multiplyScalar(1 / n) : out;
  },

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
  },

  /// Screen position of a world point: {x, y} in CSS pixels from the canvas's top left, ndc
  /// [-1, 1]^2 (inside the view when both are in range and z < 1).
  project(x, y, z) {
    this.camera.updateMatrixWorld();
    const v = new Vector3(x, y, z).project(this.camera);
    const w = this.renderer.domElement.clientWidth, h = this.renderer.domElement.clientHeight;
    return { x: ((v.x + 1) / 2) * w, y: ((1 - v.y) / 2) * h, ndc: [v.x, v.y, v.z] };
  },

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
  },
};
