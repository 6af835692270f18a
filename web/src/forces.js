// Force arrows of the 3D view: which arrows a scene has (cable forces at the body points they
// pull, ground contact forces split into normal and friction, a CDPR platform's cable wrench,
// a tree's joint torques) and their vectors at a frame, computed from scene.json's own numbers;
// ArrowSet draws them (two instanced meshes: shafts and heads) with one length scale per unit.
import { Color, ConeGeometry, CylinderGeometry, Group, InstancedMesh, Matrix4, MeshLambertMaterial, Quaternion, Vector3 } from 'three';

export const FORCE_KINDS = [
  ['cable', 'cable force', '#f08c00'],
  ['contact', 'contact normal', '#2b8a3e'],
  ['friction', 'contact friction', '#8d5524'],
  ['platform force', 'platform force (cables)', '#c92a2a'],
  ['platform moment', 'platform moment about P', '#7048e8'],
  ['joint torque', 'joint torque / force', '#d6336c'],
];
const COLOR = Object.fromEntries(FORCE_KINDS.map(([k, , c]) => [k, c]));
const Y = new Vector3(0, 1, 0);

/// Points that belong to a moving body (rod ends, face corners; a CDPR's attachment points):
/// cable forces are drawn there (not at fixed anchors).
function bodyPoints(meta) {
  const body = new Set();
  if (meta.kind === 'cdpr') {
    // the platform: its attachment points (B_<cable>) and its faces; towers and anchors are fixed
    meta.points.forEach((n, i) => { if (n.startsWith('B_')) body.add(i); });
    for (const f of meta.faces) for (const p of f) body.add(p);
    return body;
  }
  for (const r of meta.rods) { body.add(r.a); body.add(r.b); }
  for (const f of meta.faces) for (const p of f) body.add(p);
  return body;
}

/// The arrows of a scene: [{kind, unit, name, point, ...}]. hasContact: frames carry
/// contact_force_N; tau: the tree's "tau" plot (or undefined).
export function forceArrowSpecs(meta, { hasContact = false, hasAxes = false, tau = undefined } = {}) {
  const specs = [];
  const body = bodyPoints(meta);
  meta.cables.forEach((c, i) => {
    for (const [at, other] of [[c.a, c.b], [c.b, c.a]]) {
      if (body.has(at)) specs.push({ kind: 'cable', unit: 'N', cable: i, point: at, other, name: `${c.name} at ${meta.points[at]}` });
    }
  });
  if (hasContact) {
    const touching = meta.kind === 'tensegrity' ? [...body] : meta.points.map((_, i) => i);
    for (const i of touching.sort((a, b) => a - b)) {
      specs.push({ kind: 'contact', unit: 'N', point: i, name: `contact normal at ${meta.points[i]}` });
      specs.push({ kind: 'friction', unit: 'N', point: i, name: `friction at ${meta.points[i]}` });
    }
  }
  if (meta.kind === 'cdpr') {
    const P = meta.points.indexOf('P');
    if (P >= 0 && meta.cables.length) {
      specs.push({ kind: 'platform force', unit: 'N', point: P, name: 'platform: resultant cable force' });
      specs.push({ kind: 'platform moment', unit: 'N m', point: P, name: 'platform: cable moment about P' });
    }
  }
  if (tau && hasAxes) {
    meta.joints.forEach((j, i) => {
      if (j.v_index < 0 || j.v_index >= tau.series.length) return;
      specs.push({ kind: 'joint torque', unit: j.type === 'prismatic' ? 'N' : 'N m', joint: i, point: j.point, name: `joint ${j.name} ${j.type === 'prismatic' ? 'force' : 'torque'}` });
    });
  }
  return specs;
}

/// Fills out[6 i .. 6 i + 5] with arrow i's origin [m] and vector [N or N m] at frame k.
export function forceVectors(meta, specs, f, k, tau, out) {
  const p = f.positions_m[k];
  const T = f.cable_tension_N[k];
  const contact = f.contact_force_N ? f.contact_force_N[k] : null;
  const axes = f.joint_axes_W ? f.joint_axes_W[k] : null;
  let wrench = null;
  for (let s = 0; s < specs.length; s++) {
    const a = specs[s];
    const o = 6 * s;
    const i = a.point;
    out[o] = p[3 * i]; out[o + 1] = p[3 * i + 1]; out[o + 2] = p[3 * i + 2];
    let vx = 0, vy = 0, vz = 0;
    if (a.kind === 'cable') {
      const j = a.other;
      const dx = p[3 * j] - p[3 * i], dy = p[3 * j + 1] - p[3 * i + 1], dz = p[3 * j + 2] - p[3 * i + 2];
      const l = Math.hypot(dx, dy, dz);
      if (l > 0) { vx = (T[a.cable] * dx) / l; vy = (T[a.cable] * dy) / l; vz = (T[a.cable] * dz) / l; }
    } else if (a.kind === 'contact' || a.kind === 'friction') {
      if (contact) {
        if (a.kind === 'contact') vz = contact[3 * i + 2];
        else { vx = contact[3 * i]; vy = contact[3 * i + 1]; }
      }
    } else if (a.kind === 'platform force' || a.kind === 'platform moment') {
      if (!wrench) {
        // sum over the cables (anchor a -> attachment b): force T u(b -> a) at b, moment (b - P) x F
        wrench = [0, 0, 0, 0, 0, 0];
        meta.cables.forEach((c, ci) => {
          const ax = p[3 * c.a] - p[3 * c.b], ay = p[3 * c.a + 1] - p[3 * c.b + 1], az = p[3 * c.a + 2] - p[3 * c.b + 2];
          const l = Math.hypot(ax, ay, az);
          if (!(l > 0)) return;
          const fx = (T[ci] * ax) / l, fy = (T[ci] * ay) / l, fz = (T[ci] * az) / l;
          const rx = p[3 * c.b] - p[3 * i], ry = p[3 * c.b + 1] - p[3 * i + 1], rz = p[3 * c.b + 2] - p[3 * i + 2];
          wrench[0] += fx; wrench[1] += fy; wrench[2] += fz;
          wrench[3] += ry * fz - rz * fy; wrench[4] += rz * fx - rx * fz; wrench[5] += rx * fy - ry * fx;
        });
      }
      const w = a.kind === 'platform force' ? 0 : 3;
      vx = wrench[w]; vy = wrench[w + 1]; vz = wrench[w + 2];
    } else if (a.kind === 'joint torque') {
      const j = meta.joints[a.joint];
      const v = tau.series[j.v_index].values[k];
      if (axes && typeof v === 'number') { vx = v * axes[3 * a.joint]; vy = v * axes[3 * a.joint + 1]; vz = v * axes[3 * a.joint + 2]; }
    }
    out[o + 3] = vx; out[o + 4] = vy; out[o + 5] = vz;
  }
  return out;
}

/// Largest arrow magnitude per unit over all frames: {N: max, 'N m': max}.
export function forceMaxima(meta, specs, f, n, tau) {
  const max = { N: 0, 'N m': 0 };
  const buf = new Float64Array(6 * specs.length);
  for (let k = 0; k < n; k++) {
    forceVectors(meta, specs, f, k, tau, buf);
    for (let s = 0; s < specs.length; s++) {
      const m = Math.hypot(buf[6 * s + 3], buf[6 * s + 4], buf[6 * s + 5]);
      if (m > max[specs[s].unit]) max[specs[s].unit] = m;
    }
  }
  return max;
}

/// The drawn arrows: shaft cylinders and head cones, one instance each per arrow.
export class ArrowSet {
  constructor(count, radius) {
    this.group = new Group();
    this.group.name = 'forces';
    this.radius = radius;
    const shaft = new CylinderGeometry(1, 1, 1, 8, 1, false);
    shaft.translate(0, 0.5, 0); // base at the origin, along +y
    const head = new ConeGeometry(1, 1, 12, 1, false);
    head.translate(0, 0.5, 0);
    const mat = new MeshLambertMaterial({ color: 0xffffff });
    this.shafts = new InstancedMesh(shaft, mat, Math.max(1, count));
    this.heads = new InstancedMesh(head, mat, Math.max(1, count));
    for (const m of [this.shafts, this.heads]) {
      m.count = count;
      m.frustumCulled = false;
      this.group.add(m);
    }
    this.count = count;
    this.lengths = new Float64Array(count); // drawn length [m] of each arrow
    this.m = new Matrix4();
    this.q = new Quaternion();
    this.v = new Vector3();
    this.o = new Vector3();
    this.s = new Vector3();
    this.c = new Color();
  }

  setColors(specs) {
    specs.forEach((a, i) => {
      this.c.set(COLOR[a.kind]);
      this.shafts.setColorAt(i, this.c);
      this.heads.setColorAt(i, this.c);
    });
    for (const m of [this.shafts, this.heads]) if (m.instanceColor) m.instanceColor.needsUpdate = true;
  }

  /// vec: origin + vector per arrow (forceVectors); scale(unit) -> m per unit.
  update(specs, vec, scaleOf) {
    const { m, q, v, o, s } = this;
    const r = this.radius;
    for (let i = 0; i < this.count; i++) {
      o.set(vec[6 * i], vec[6 * i + 1], vec[6 * i + 2]);
      v.set(vec[6 * i + 3], vec[6 * i + 4], vec[6 * i + 5]).multiplyScalar(scaleOf(specs[i].unit));
      const L = v.length();
      this.lengths[i] = L;
      if (!(L > 1e-12)) {
        m.makeScale(0, 0, 0);
        this.shafts.setMatrixAt(i, m);
        this.heads.setMatrixAt(i, m);
        continue;
      }
      q.setFromUnitVectors(Y, v.multiplyScalar(1 / L));
      const h = Math.min(0.35 * L, 7 * r);
      s.set(r, L - h, r);
      m.compose(o, q, s);
      this.shafts.setMatrixAt(i, m);
      o.addScaledVector(v, L - h);
      s.set(2.4 * r, h, 2.4 * r);
      m.compose(o, q, s);
      this.heads.setMatrixAt(i, m);
    }
    this.shafts.instanceMatrix.needsUpdate = true;
    this.heads.instanceMatrix.needsUpdate = true;
  }

  /// Tip of arrow i as drawn (from the instance matrices): [x, y, z].
  tip(i) {
    this.heads.getMatrixAt(i, this.m);
    const e = this.m.elements;
    // the head's base + its height along its axis (the matrix's second column)
    return [e[12] + e[4], e[13] + e[5], e[14] + e[6]];
  }

  dispose() {
    for (const mesh of [this.shafts, this.heads]) mesh.geometry.dispose();
    this.shafts.material.dispose();
  }
}

export function forceColor(kind) {
  return COLOR[kind];
}
