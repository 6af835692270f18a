// Picking in the viewer: pointer input on the 3D view, the element under the pointer, the
// selection and its panel (#pick-info), highlights, hover tooltip and the world readout.
// Methods of Viewer (viewer.js installs them on its prototype): `this` is the viewer, whose
// state they share.
import { fmtValue } from './plots.js';
import { el } from './dom.js';
import { Y_AXIS } from './viewer_constants.js';
import { segDist } from './viewer_geometry.js';

const PICK_PX = 8; // how close (CSS pixels) the pointer must be to an element to pick it

/// A coordinate in metres for the readouts (mm resolution, more for small scenes).
function fmtM(v, step) {
  const d = Math.max(3, Math.min(6, 1 - Math.floor(Math.log10(Math.max(step, 1e-9)))));
  return v.toFixed(d);
}

export const pickMethods = {
  /// Hover, click (select) and shift + click (measure) on the 3D view's canvas; a drag (orbit, pan)
  /// is not a click.
  attachPointer() {
    const cv = this.renderer.domElement;
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
  },

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
  },

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
  },

  /// The joint drawn at a point (tree robots), or null.
  jointOfPoint(i) {
    const j = this.jointAt ? this.jointAt.get(i) : undefined;
    return j === undefined ? null : this.meta.joints[j];
  },

  jointOf(sel) {
    if (!sel || !this.meta.joints.length) return null;
    if (sel.type === 'point') return this.jointOfPoint(sel.index);
    if (sel.type === 'rod') return this.jointOfPoint(this.meta.rods[sel.index].a); // a link is moved by the joint at its origin
    return null;
  },

  /// Value of plot `id` ("q", "qd", "tau") series `s` at frame k, or undefined.
  jointValue(id, s, k) {
    const p = this.plotById[id];
    if (!p || s < 0 || s >= p.series.length) return undefined;
    const v = p.series[s].values[k];
    return typeof v === 'number' ? v : undefined;
  },

  elementName(sel) {
    if (sel.type === 'cable') return this.meta.cables[sel.index].name;
    if (sel.type === 'rod') return this.meta.rods[sel.index].name;
    return this.meta.points[sel.index];
  },

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
  },

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
  },

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
  },

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
  },

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
  },
};
