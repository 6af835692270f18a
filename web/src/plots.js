// Small wrapper around one uPlot chart: fixed series, data replaced in place, a cheap vertical
// time cursor (one absolutely positioned div moved with a transform), responsive size through a
// ResizeObserver on the container, and our own legend: every series with its value at the current
// time, click to hide/show, and a filter box when there are many series (uPlot's legend is off).
import uPlot from 'uplot';

export const PLOT_HEIGHT = 170;
const FILTER_MIN_SERIES = 7;

// Series styles: a categorical palette of 10 colours (Tableau 10, Maureen Stone's palette as in
// matplotlib's "tab10"), then the same 10 colours with a different dash pattern for each further
// group of 10, so that no two of the first 50 series look alike; beyond that, golden-angle hues.
const TAB10 = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
const DASHES = [null, [7, 3], [2, 2], [9, 3, 2, 3], [1, 3]];

/// Style of series i: {color, dash} (dash: null = solid, else a canvas dash pattern in px).
export function seriesStyle(i) {
  const group = Math.floor(i / TAB10.length);
  if (group < DASHES.length) return { color: TAB10[i % TAB10.length], dash: DASHES[group] };
  return { color: `hsl(${Math.round((i * 137.508) % 360)}, 60%, 42%)`, dash: DASHES[group % DASHES.length] };
}

/// n series styles (see seriesStyle).
export function palette(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(seriesStyle(i));
  return out;
}

/// A number for a legend or readout: 5 significant digits, no exponent for ordinary magnitudes.
export function fmtValue(v) {
  if (v === undefined || v === null || !Number.isFinite(v)) return '-';
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e-4 && a < 1e6) return String(Number(v.toPrecision(5)));
  return v.toExponential(4);
}

/// Tick labels of a numeric axis. splits: the tick values, incr: their spacing. Ordinary ranges:
/// fixed decimals from the spacing (exponent form for very large or small magnitudes). A tiny range
/// far from zero (e.g. 0.3110001 ... 0.3110003, which plain 3-decimal labels show as three
/// "0.311"): offset notation, value = base + scale * label; returns {labels, offset} with offset
/// {base, scale, text: "0.311 + 1e-7 x"} or null.
export function axisTicks(splits, incr) {
  const vals = splits.filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  if (!vals.length || !(incr > 0)) return { labels: splits.map((v) => (v === null || v === undefined ? '' : String(v))), offset: null };
  const mag = Math.max(...vals.map(Math.abs));
  const e = Math.floor(Math.log10(incr) + 1e-9); // decade of the spacing
  const fmtExp = (v, d) => (v === 0 ? '0' : v.toExponential(Math.max(0, d)).replace(/\.?0+e/, 'e').replace('e+', 'e'));
  if (mag > 0 && mag / incr >= 1e5) {
    const scale = 10 ** e;
    const unit = 10 ** (e + 4);
    const mid = vals[Math.floor(vals.length / 2)];
    const base = Number((Math.round(mid / unit) * unit).toPrecision(12));
    const labels = splits.map((v) => (v === null || v === undefined ? '' : String(Math.round(((v - base) / scale) * 1000) / 1000)));
    const baseText = Math.abs(base) >= 1e-3 && Math.abs(base) < 1e6 || base === 0 ? String(base) : fmtExp(base, 8);
    const scaleText = e === 0 ? '1' : `1e${e}`;
    return { labels, offset: { base, scale, text: `${baseText} + ${scaleText} x` } };
  }
  if (mag >= 1e6 || (mag > 0 && mag < 1e-3)) {
    const d = Math.max(0, Math.floor(Math.log10(mag)) - e);
    return { labels: splits.map((v) => (v === null || v === undefined ? '' : fmtExp(v, d))), offset: null };
  }
  const d = Math.max(0, -e);
  return { labels: splits.map((v) => (v === null || v === undefined ? '' : (Math.abs(v) < incr * 1e-9 ? 0 : v).toFixed(d))), offset: null };
}

/// y range of a chart: uPlot's padded range, except for a flat series: an all-zero series gets
/// the small symmetric [-1, 1], a constant v gets v +- 10 %.
export function yRange(dmin, dmax) {
  if (dmin === null || dmax === null || dmin === undefined || dmax === undefined) return [null, null];
  const m = Math.max(Math.abs(dmin), Math.abs(dmax));
  if (m === 0) return [-1, 1];
  if (dmax - dmin <= m * 1e-12) return [dmin - 0.1 * m, dmax + 0.1 * m];
  return uPlot.rangeNum(dmin, dmax, 0.1, true);
}

/// A legend value: fmtValue, with round-off noise (|v| below 1e-10 of the series' largest
/// magnitude, e.g. 1e-14 J on a 0.5 J energy) shown as 0.
export function fmtLegend(v, seriesMax) {
  if (typeof v === 'number' && v !== 0 && seriesMax > 0 && Math.abs(v) < 1e-10 * seriesMax) return '0';
  return fmtValue(v);
}

function swatch(style) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('width', '22');
  svg.setAttribute('height', '8');
  svg.setAttribute('class', 'tv-swatch');
  const line = document.createElementNS(ns, 'line');
  line.setAttribute('x1', '0');
  line.setAttribute('y1', '4');
  line.setAttribute('x2', '22');
  line.setAttribute('y2', '4');
  line.setAttribute('stroke', style.color);
  line.setAttribute('stroke-width', '2');
  if (style.dash) line.setAttribute('stroke-dasharray', style.dash.join(' '));
  svg.appendChild(line);
  return svg;
}

export class TimePlot {
  /// container: element to put the chart in; names: one per series (excluding x); styles: one
  /// {color, dash} (or a colour string) per series; onSeek(t): click in the chart.
  constructor(container, { title, yLabel, names, styles, colors, onSeek, closable = false, onClose = null }) {
    this.box = document.createElement('div');
    this.box.className = 'tv-plot';
    container.appendChild(this.box);
    this.title = title;
    this.names = names;
    this.cursorT = null;
    this.height = PLOT_HEIGHT;
    const st = (styles || colors || palette(names.length)).map((s) => (typeof s === 'string' ? { color: s, dash: null } : s));
    this.styles = st;
    const width = Math.max(200, Math.floor(this.box.clientWidth || container.clientWidth || 400));
    const series = [{ label: 't [s]' }];
    names.forEach((name, i) => {
      const s = { label: name, stroke: st[i].color, width: 1.25, spanGaps: false, points: { show: false } };
      if (st[i].dash) s.dash = st[i].dash;
      series.push(s);
    });
    const opts = {
      title,
      width,
      height: this.height,
      scales: { x: { time: false }, y: { range: (u, dmin, dmax) => yRange(dmin, dmax) } },
      series,
      axes: [
        { label: 't [s]', labelSize: 18, size: 34, values: (u, splits, ax, space, incr) => axisTicks(splits, incr).labels },
        { label: yLabel, labelSize: 18, size: 56, values: (u, splits, ax, space, incr) => this.yTicks(splits, incr) },
      ],
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
    };
    this.yLabel = yLabel;
    this.ticks = [];
    this.tickOffset = null;
    // the y axis' offset ("0.311 + 1e-7 x") when its ticks need one
    this.offsetEl = document.createElement('div');
    this.offsetEl.className = 'tv-axis-offset';
    this.offsetEl.hidden = true;
    this.colMax = [];
    this.u = new uPlot(opts, [[], ...names.map(() => [])], this.box);
    this.u.over.appendChild(this.offsetEl);
    if (closable) {
      const x = document.createElement('button');
      x.type = 'button';
      x.className = 'tv-plot-close';
      x.textContent = '\u00d7';
      x.title = 'close (Esc)';
      x.addEventListener('click', () => onClose && onClose());
      this.box.appendChild(x);
      this.closeBtn = x;
    }
    // the time cursor
    this.line = document.createElement('div');
    this.line.className = 'tv-plot-cursor';
    this.u.over.appendChild(this.line);
    if (onSeek) {
      this.u.over.addEventListener('click', (ev) => {
        const rect = this.u.over.getBoundingClientRect();
        const t = this.u.posToVal(ev.clientX - rect.left, 'x');
        if (Number.isFinite(t)) onSeek(t);
      });
    }
    this.buildLegend();
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.box);
  }

  /// Labels of the y ticks (axisTicks), remembered for the offset note and the tests.
  yTicks(splits, incr) {
    const r = axisTicks(splits, incr);
    this.ticks = r.labels;
    const text = r.offset ? `${this.yLabel ? `${this.yLabel}: ` : ''}${r.offset.text}` : '';
    this.tickOffset = r.offset;
    if (this.offsetEl.textContent !== text) this.offsetEl.textContent = text;
    this.offsetEl.hidden = !r.offset;
    return r.labels;
  }

  buildLegend() {
    const lg = document.createElement('div');
    lg.className = 'tv-legend';
    this.legendEl = lg;
    this.filter = '';
    if (this.names.length >= FILTER_MIN_SERIES) {
      const f = document.createElement('input');
      f.type = 'search';
      f.className = 'tv-legend-filter';
      f.placeholder = `filter ${this.names.length} series`;
      f.setAttribute('aria-label', `filter the series of ${this.title}`);
      f.addEventListener('input', () => this.setFilter(f.value));
      this.filterEl = f;
      lg.appendChild(f);
    }
    const list = document.createElement('div');
    list.className = 'tv-legend-items';
    this.items = this.names.map((name, i) => {
      const it = document.createElement('span');
      it.className = 'tv-legend-item';
      it.dataset.series = name;
      it.title = 'click: hide / show';
      const nm = document.createElement('span');
      nm.className = 'tv-legend-name';
      nm.textContent = name;
      const val = document.createElement('span');
      val.className = 'tv-legend-value';
      val.textContent = '-';
      it.append(swatch(this.styles[i]), nm, val);
      it.addEventListener('click', () => {
        const show = !this.u.series[i + 1].show;
        this.u.setSeries(i + 1, { show });
        it.classList.toggle('tv-off', !show);
      });
      list.appendChild(it);
      return { it, val, last: '' };
    });
    lg.appendChild(list);
    this.box.appendChild(lg);
  }

  /// Shows only the series whose name contains `text` (case-insensitive), in the chart and legend.
  setFilter(text) {
    this.filter = String(text || '').toLowerCase();
    if (this.filterEl && this.filterEl.value !== text) this.filterEl.value = text;
    this.u.batch(() => {
      this.names.forEach((name, i) => {
        const match = !this.filter || name.toLowerCase().includes(this.filter);
        this.items[i].it.hidden = !match;
        this.items[i].it.classList.remove('tv-off');
        if (this.u.series[i + 1].show !== match) this.u.setSeries(i + 1, { show: match });
      });
    });
  }

  /// Names of the series drawn now.
  shownSeries() {
    return this.names.filter((_, i) => this.u.series[i + 1].show);
  }

  resize() {
    const w = Math.floor(this.box.clientWidth);
    if (w > 50 && (w !== this.u.width || this.height !== this.u.height)) {
      this.u.setSize({ width: w, height: this.height });
      this.placeCursor();
    }
  }

  setHeight(h) {
    const hh = Math.max(PLOT_HEIGHT, Math.round(h));
    if (hh === this.height) return;
    this.height = hh;
    this.resize();
  }

  /// data: [x, y1, y2, ...] (arrays, may be the caller's own growing arrays).
  setData(data) {
    // largest magnitude of each series (for the legend's noise floor), scanned incrementally
    for (let i = 1; i < data.length; i++) {
      const col = data[i];
      let st = this.colMax[i - 1];
      if (!st || st.col !== col || st.n > col.length) st = { col, n: 0, max: 0 };
      let m = st.max;
      for (let k = st.n; k < col.length; k++) {
        const a = Math.abs(col[k]);
        if (a > m) m = a;
      }
      st.max = m;
      st.n = col.length;
      this.colMax[i - 1] = st;
    }
    this.u.setData(data);
    this.placeCursor();
    if (this.cursorT !== null) this.updateValues();
  }

  setCursor(t) {
    this.cursorT = t;
    this.placeCursor();
    this.updateValues();
  }

  /// Index of the last sample with x <= t (binary search on the x data).
  indexAt(t) {
    const x = this.u.data[0];
    const n = x ? x.length : 0;
    if (!n || !(t >= x[0])) return n ? 0 : -1;
    let lo = 0, hi = n - 1;
    if (t >= x[hi]) return hi;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (x[mid] <= t) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /// The legend's values at the cursor time (the last sample at or before it).
  updateValues() {
    const k = this.cursorT === null ? -1 : this.indexAt(this.cursorT);
    for (let i = 0; i < this.items.length; i++) {
      const col = this.u.data[i + 1];
      const text = k >= 0 && col && k < col.length ? fmtLegend(col[k], this.colMax[i] ? this.colMax[i].max : 0) : '-';
      const item = this.items[i];
      if (item.last !== text) {
        item.val.textContent = text;
        item.last = text;
      }
    }
  }

  /// Values shown in the legend now: {name: text}.
  legendValues() {
    const out = {};
    this.names.forEach((n, i) => { out[n] = this.items[i].last; });
    return out;
  }

  placeCursor() {
    const t = this.cursorT;
    if (t === null || !this.u.scales.x || this.u.scales.x.min === null) {
      this.line.style.display = 'none';
      return;
    }
    const px = this.u.valToPos(t, 'x');
    if (!Number.isFinite(px)) {
      this.line.style.display = 'none';
      return;
    }
    this.line.style.display = '';
    this.line.style.transform = `translateX(${px.toFixed(1)}px)`;
  }

  data() {
    return this.u.data.map((a) => Array.from(a));
  }

  destroy() {
    this.ro.disconnect();
    this.u.destroy();
    this.box.remove();
  }
}
