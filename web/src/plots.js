// Small wrapper around one uPlot chart: fixed series, data replaced in place, a cheap
// vertical time cursor (one absolutely positioned div moved with a transform) and
// responsive width through a ResizeObserver on the container.
import uPlot from 'uplot';

const PLOT_HEIGHT = 170;

export class TimePlot {
  /// container: element to put the chart in; names/colors: one per series (excluding x).
  constructor(container, { title, yLabel, names, colors, onSeek }) {
    this.box = document.createElement('div');
    this.box.className = 'tv-plot';
    container.appendChild(this.box);
    this.title = title;
    this.names = names;
    this.cursorT = null;
    const width = Math.max(200, Math.floor(this.box.clientWidth || container.clientWidth || 400));
    const series = [{ label: 't [s]' }];
    names.forEach((name, i) => series.push({ label: name, stroke: colors[i], width: 1.25, spanGaps: false, points: { show: false } }));
    const opts = {
      title,
      width,
      height: PLOT_HEIGHT,
      scales: { x: { time: false } },
      series,
      axes: [
        { label: 't [s]', labelSize: 18, size: 34 },
        { label: yLabel, labelSize: 18, size: 56 },
      ],
      legend: { show: names.length <= 12, live: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
    };
    this.u = new uPlot(opts, [[], ...names.map(() => [])], this.box);
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
    this.ro = new ResizeObserver(() => this.resize());
    this.ro.observe(this.box);
  }

  resize() {
    const w = Math.floor(this.box.clientWidth);
    if (w > 50 && w !== this.u.width) {
      this.u.setSize({ width: w, height: PLOT_HEIGHT });
      this.placeCursor();
    }
  }

  /// data: [x, y1, y2, ...] (arrays, may be the caller's own growing arrays).
  setData(data) {
    this.u.setData(data);
    this.placeCursor();
  }

  setCursor(t) {
    this.cursorT = t;
    this.placeCursor();
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

/// n visually distinct colours (golden-angle hues).
export function palette(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(`hsl(${Math.round((i * 137.508) % 360)}, 65%, 45%)`);
  return out;
}
