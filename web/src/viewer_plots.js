// The viewer's plots (uPlot, through plots.js): cable tension or strain, the picked element, a tree's
// joint plots, energies, centre of mass, the differences to compared runs and the scene's own
// plots; their data as frames arrive, time cursors and heights.
// Methods of Viewer (viewer.js installs them on its prototype): `this` is the viewer, whose
// state they share.
import { PLOT_HEIGHT, TimePlot, palette } from './plots.js';
import { ENERGY_KEYS } from './viewer_constants.js';

const ENERGY_COLORS = ['#d62728', '#1f77b4', '#2ca02c', '#222222'];

export const plotMethods = {
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
  },

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
  },

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
  },

  /// A long run's page keeps the plotted series at every row (or the min/max of every k) in "plot_data":
  /// the cable, energy, COM and the scene's own plots draw those (not with compared runs, whose
  /// series are matched to this run's frames).
  fullRateData() {
    const pd = this.meta.plotData;
    return pd && !(this.runs && this.runs.length) ? pd : null;
  },

  updatePlotData() {
    const f = this.store.f;
    const n = this.store.n;
    const t = f.t_s;
    const full = this.fullRateData();
    for (const p of this.plots) {
      if (full && this.setFullRateData(p, full)) continue;
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
  },

  /// Draws plot p from the page's plot_data when it holds p's series; false otherwise.
  setFullRateData(p, full) {
    const t = full.t_s;
    if (p.kind === 'cable') {
      const cols = this.colorMode === 'tension' ? full.cable_tension_N : full.cable_strain;
      if (!cols) return false;
      p.setData([t, ...cols]);
      return true;
    }
    if (p.kind === 'energy') {
      const keys = this.store.energyKeys;
      if (!keys.every((k) => full.energy_J[k])) return false;
      p.setData([t, ...keys.map((k) => full.energy_J[k])]);
      return true;
    }
    if (p.kind === 'com') {
      if (!full.com_m) return false;
      p.setData([t, ...full.com_m]);
      return true;
    }
    if (p.kind === 'extra') {
      const i = this.meta.plots.indexOf(p.extra);
      const xp = i >= 0 ? full.plots[i] : null;
      if (!xp || p.order.some((k) => !xp.series[k])) return false;
      p.setData([xp.t_s || t, ...p.order.map((k) => xp.series[k])]);
      return true;
    }
    return false;
  },

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
  },

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
  },

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
  },

  placeCursors() {
    if (!this.store || this.store.n === 0) return;
    const t = this.store.f.t_s[this.frameIndex];
    for (const pl of this.plots) pl.setCursor(t);
  },

  plotData() {
    return this.plots.map((p) => ({ title: p.title, kind: p.kind, series: p.names, data: p.data(), legend: p.legendValues(), shown: p.shownSeries(), ticks: p.ticks.slice(), offset: p.tickOffset ? p.tickOffset.text : null, yRange: [p.u.scales.y.min, p.u.scales.y.max] }));
  },
};
