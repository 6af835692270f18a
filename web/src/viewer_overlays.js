// What the viewer draws over the model: force arrows, the compared runs' ghosts, the measurement
// between picked points, the picked point's trail and the point labels.
// Methods of Viewer (viewer.js installs them on its prototype): `this` is the viewer, whose
// state they share.
import { BufferAttribute, BufferGeometry, Line, LineBasicMaterial, LineSegments } from 'three';
import { fmtValue } from './plots.js';
import { el } from './dom.js';
import { ArrowSet, forceArrowSpecs, forceMaxima, forceVectors } from './forces.js';

const MEASURE_COLOR = '#0b7285';
const TRAIL_COLOR = '#1864ab';
const MAX_LABELS = 200;
const GHOST_COLORS = ['#5c7cfa', '#f76707', '#37b24d', '#ae3ec9'];

export const overlayMethods = {
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
  },

  /// Multiplies the arrows' default length scale (1: the largest force of the run is a quarter of
  /// the initial pose's size).
  setForceScale(mul) {
    if (!(mul > 0)) return;
    this.forceScaleMul = mul;
    if (this.forceScaleSel.value !== String(mul)) this.forceScaleSel.value = String(mul);
    this.updateForceLegend();
    if (this.store && this.store.n) this.applyFrame(this.frameIndex);
  },

  /// Arrow length per unit force [m/N] or per unit moment [m/(N m)].
  forceScale(unit) {
    if (!this.forceMax) this.forceMax = forceMaxima(this.meta, this.forceSpecs, this.store.f, this.store.n, this.tauPlot);
    const max = this.forceMax[unit] || 0;
    return max > 0 ? (0.25 * this.initialScale() * this.forceScaleMul) / max : 0;
  },

  updateForces(k) {
    if (!this.arrows || !this.forceSpecs.length || !this.layers.forces) return;
    forceVectors(this.meta, this.forceSpecs, this.store.f, k, this.tauPlot, this.forceVec);
    this.arrows.update(this.forceSpecs, this.forceVec, (u) => this.forceScale(u));
  },

  /// The drawn arrows at the current frame: [{kind, name, unit, origin_m, vector, magnitude,
  /// length_m, tip_m}] (vector in N or N m from scene.json; length and tip as drawn).
  forceArrows() {
    if (!this.arrows || !this.layers.forces) return [];
    return this.forceSpecs.map((a, i) => {
      const v = Array.from(this.forceVec.slice(6 * i, 6 * i + 6));
      return { kind: a.kind, name: a.name, unit: a.unit, point: this.meta.points[a.point], origin_m: v.slice(0, 3), vector: v.slice(3), magnitude: Math.hypot(v[3], v[4], v[5]), length_m: this.arrows.lengths[i], tip_m: this.arrows.lengths[i] > 0 ? this.arrows.tip(i) : v.slice(0, 3), scale: this.forceScale(a.unit) };
    });
  },

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
  },

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
  },

  /// The compared runs' ghosts at the current frame: [{label, title, frame, t_s, segments}].
  ghostState() {
    return (this.ghosts || []).map((g) => {
      const j = this.runFrame(g.run, this.frameIndex);
      return { label: g.run.label, title: g.run.meta.title, frame: j, t_s: g.run.store.f.t_s[j], segments: g.segs.length, positions_m: Array.from(g.pos.array.slice(0, 6 * g.segs.length)) };
    });
  },

  toggleMeasurePoint(i) {
    const m = this.measure.slice();
    const at = m.indexOf(i);
    if (at >= 0) m.splice(at, 1);
    else {
      m.push(i);
      if (m.length > 3) m.shift();
    }
    this.setMeasure(m);
  },

  /// Points to measure (indices or names; [] clears): 2 give their distance, 3 the two distances
  /// and the angle at the middle one.
  setMeasure(list) {
    if (!this.meta) return;
    this.measure = list.map((v) => (typeof v === 'number' ? v : this.meta.points.indexOf(String(v)))).filter((i) => i >= 0 && i < this.meta.points.length).slice(-3);
    this.measureEl.dataset.key = '';
    this.updateMeasure();
    this.dirty = true;
  },

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
  },

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
  },

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
  },

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
  },
};
