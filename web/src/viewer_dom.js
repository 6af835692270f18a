// The viewer's DOM: header, readouts, legends (colour bars, key of the lines, force arrows), help
// overlay, controls (play, scrub, speed, loop, cable colour, camera, layers, arrow scale, save) and
// the keyboard shortcuts.
// Methods of Viewer (viewer.js installs them on its prototype): `this` is the viewer, whose
// state they share.
import { fmtValue } from './plots.js';
import { viridisGradient } from './colormap.js';
import { el } from './dom.js';
import { FORCE_KINDS } from './forces.js';
import {
  ENERGY_KEYS, CAMERA_MODES, COM_COLOR, LAYERS, CLOUD_NONE_COLOR, CLOUD_HIGHLIGHT_COLOR,
} from './viewer_constants.js';

const SPEEDS = [0.25, 0.5, 1, 2, 4];
const FORCE_SCALES = [0.25, 0.5, 1, 2, 4];
const SHORTCUTS = [
  ['space', 'play / pause'],
  ['\u2190 / \u2192', 'previous / next frame (shift: 10 frames)'],
  ['Home', 'first frame, camera reset (fit to the initial pose)'],
  ['End', 'last frame'],
  ['c', 'next camera mode (fit, follow, free)'],
  ['Esc', 'clear the selection, close this help'],
  ['?', 'show / hide this help'],
  ['mouse', 'left drag: orbit, right drag: pan, wheel: zoom'],
  ['click', 'pick a rod, cable or point: its values and its plot (a point: its trail); click empty space to clear'],
  ['shift + click', 'add a point to the measurement: 2 points give their distance, 3 the angle at the middle one'],
];

export const domMethods = {
  buildDom() {
    const r = this.root;
    r.classList.add('tv-root');
    if (this.page) r.classList.add('tv-page');
    this.titleEl = el('h1', { class: 'tv-title', text: 'tendyn' });
    this.kindEl = el('span', { class: 'tv-kind' });
    this.thinnedEl = el('span', { class: 'tv-thinned', id: 'thinned-note' });
    this.thinnedEl.hidden = true;
    this.helpBtn = el('button', { id: 'help', type: 'button', class: 'tv-btn tv-help-btn', title: 'keyboard shortcuts and mouse (?)', text: '?' });
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
    // bottom left: colour bar and the key of the lines (paths, COM track, joint axes)
    this.legendEl = el('div', { class: 'tv-colorbar', id: 'colorbar' });
    this.keyEl = el('div', { class: 'tv-key', id: 'path-legend' });
    this.forceLegendEl = el('div', { class: 'tv-force-legend', id: 'force-legend' });
    this.forceLegendEl.hidden = true;
    this.cloudLegendEl = el('div', { class: 'tv-colorbar', id: 'cloud-colorbar' });
    this.view3d.appendChild(el('div', { class: 'tv-bottom-left' }, [this.keyEl, this.forceLegendEl, this.cloudLegendEl, this.legendEl]));
    // names of the points (layer "labels") and the measurement panel
    this.labelsEl = el('div', { class: 'tv-labels', id: 'labels' });
    this.labelsEl.hidden = true;
    this.view3d.appendChild(this.labelsEl);
    this.measureEl = el('div', { id: 'measure', class: 'tv-measure' });
    this.measureEl.hidden = true;
    this.view3d.appendChild(this.measureEl);
    // bottom right: world readout, grid scale, axis triad
    this.worldEl = el('div', { id: 'world-readout', class: 'tv-world', text: '' });
    this.gridEl = el('div', { id: 'grid-scale', class: 'tv-grid-scale', text: '' });
    // the axis triad: an SVG (the 3D view's only canvas stays the WebGL one)
    const ns = 'http://www.w3.org/2000/svg';
    this.triad = document.createElementNS(ns, 'svg');
    for (const [k, v] of Object.entries({ id: 'axis-triad', class: 'tv-triad', width: '84', height: '84', viewBox: '0 0 84 84', role: 'img', 'aria-label': 'world axes x (red), y (green), z (blue)' })) this.triad.setAttribute(k, v);
    this.triadAxes = [['x', '#d62728'], ['y', '#2b8a3e'], ['z', '#1c63d6']].map(([name, color]) => {
      const line = document.createElementNS(ns, 'line');
      line.setAttribute('stroke', color);
      line.setAttribute('stroke-width', '2.5');
      line.setAttribute('stroke-linecap', 'round');
      const text = document.createElementNS(ns, 'text');
      text.setAttribute('fill', color);
      text.setAttribute('text-anchor', 'middle');
      text.setAttribute('dominant-baseline', 'central');
      text.setAttribute('font-size', '12');
      text.setAttribute('font-weight', '700');
      text.textContent = name;
      const g = document.createElementNS(ns, 'g');
      g.append(line, text);
      this.triad.appendChild(g);
      return { name, g, line, text };
    });
    this.view3d.appendChild(el('div', { class: 'tv-bottom-right' }, [el('div', { class: 'tv-world-box' }, [this.worldEl, this.gridEl]), this.triad]));
    // top right: the picked element
    this.pickEl = el('div', { id: 'pick-info', class: 'tv-pick' });
    this.pickEl.hidden = true;
    this.view3d.appendChild(this.pickEl);
    this.hoverEl = el('div', { id: 'hover-info', class: 'tv-hover' });
    this.hoverEl.hidden = true;
    this.view3d.appendChild(this.hoverEl);
    // help overlay
    const rows = SHORTCUTS.map(([k, what]) => el('tr', {}, [el('td', {}, [el('kbd', { text: k })]), el('td', { text: what })]));
    this.helpEl = el('div', { id: 'help-overlay', class: 'tv-help', role: 'dialog', 'aria-label': 'keyboard shortcuts' }, [
      el('h2', { text: 'Keyboard and mouse' }), el('table', {}, rows),
      el('p', { class: 'tv-help-note', text: 'Camera: "fit" frames the initial pose, "follow" keeps the centre of mass in the middle, "free" leaves the camera where you put it. Plots: click to seek; legend: click a series to hide it, type in the box to filter.' }),
    ]);
    this.helpEl.hidden = true;
    this.view3d.appendChild(this.helpEl);
    // controls
    this.playBtn = el('button', { id: 'play', type: 'button', class: 'tv-btn', title: 'play / pause (space)', text: 'Play' });
    this.scrub = el('input', { id: 'scrub', type: 'range', min: '0', max: '0', step: '1', value: '0', 'aria-label': 'frame', title: 'frame (\u2190 \u2192, Home, End)' });
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
    this.cableCtl = el('label', { class: 'tv-ctl', id: 'cable-control' }, ['cables ', this.colorSel]);
    this.cameraSel = el('select', { id: 'camera-mode', 'aria-label': 'camera', title: 'camera mode (c)' });
    for (const [v, text] of CAMERA_MODES) this.cameraSel.appendChild(el('option', { value: v, text }));
    // layers and the force arrows' scale
    this.layerBoxes = {};
    const layerItems = LAYERS.map(([name]) => {
      const box = el('input', { id: `layer-${name}`, type: 'checkbox' });
      box.checked = this.layers[name];
      box.addEventListener('change', () => this.setLayer(name, box.checked));
      this.layerBoxes[name] = box;
      return el('label', { class: 'tv-layer', id: `layer-${name}-item` }, [box, ` ${name}`]);
    });
    this.forceScaleSel = el('select', { id: 'force-scale', 'aria-label': 'force arrow scale', title: 'length of the force arrows' });
    for (const v of FORCE_SCALES) {
      const o = el('option', { value: String(v), text: `${v}x` });
      if (v === 1) o.selected = true;
      this.forceScaleSel.appendChild(o);
    }
    this.forceScaleSel.addEventListener('change', () => this.setForceScale(Number(this.forceScaleSel.value) || 1));
    // record: a still (PNG) of the current frame, the playback as WebM
    this.stillBtn = el('button', { id: 'record-still', type: 'button', class: 'tv-btn', title: 'save the 3D view at this time as PNG', text: 'PNG' });
    this.webmBtn = el('button', { id: 'record-webm', type: 'button', class: 'tv-btn', title: 'record the playback (first to last frame, 1x) as WebM video', text: 'WebM' });
    this.stillBtn.addEventListener('click', () => this.download(this.still(), `${this.meta ? this.meta.title : 'view'}-t${this.store && this.store.n ? this.store.f.t_s[this.frameIndex].toFixed(3) : 0}.png`));
    this.webmBtn.addEventListener('click', async () => {
      if (this.recording) return;
      this.webmBtn.textContent = 'recording...';
      try {
        const blob = await this.recordWebm();
        this.download(URL.createObjectURL(blob), `${this.meta ? this.meta.title : 'view'}.webm`);
      } catch (e) {
        this.onError(e);
      } finally {
        this.webmBtn.textContent = 'WebM';
      }
    });
    const controls = el('div', { class: 'tv-controls' }, [
      this.playBtn, this.scrub,
      el('label', { class: 'tv-ctl' }, ['speed ', this.speedSel]),
      el('label', { class: 'tv-ctl' }, [this.loopBox, ' loop']),
      this.cableCtl,
      el('label', { class: 'tv-ctl' }, ['camera ', this.cameraSel]),
      el('span', { class: 'tv-ctl tv-layers', id: 'layers' }, ['show', ...layerItems]),
      el('label', { class: 'tv-ctl', id: 'force-scale-control' }, ['arrows ', this.forceScaleSel]),
      el('span', { class: 'tv-ctl', id: 'record' }, ['save ', this.stillBtn, ' ', this.webmBtn]),
    ]);
    this.plotsEl = el('div', { class: 'tv-plots' });
    const left = el('div', { class: 'tv-left' }, [this.view3d, controls]);
    r.appendChild(el('div', { class: 'tv-header' }, [this.titleEl, this.kindEl, this.thinnedEl, el('span', { class: 'tv-spacer' }), this.helpBtn]));
    r.appendChild(el('div', { class: 'tv-body' }, [left, this.plotsEl]));

    this.playBtn.addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    this.scrub.addEventListener('input', () => {
      this.pause();
      this.seek(Number(this.scrub.value));
    });
    this.speedSel.addEventListener('change', () => { this.speed = Number(this.speedSel.value) || 1; });
    this.loopBox.addEventListener('change', () => { this.loop = this.loopBox.checked; });
    this.colorSel.addEventListener('change', () => this.setColorMode(this.colorSel.value));
    this.cameraSel.addEventListener('change', () => this.setCameraMode(this.cameraSel.value));
    this.helpBtn.addEventListener('click', () => this.toggleHelp());
    this.keyHandler = (ev) => this.onKey(ev);
    window.addEventListener('keydown', this.keyHandler);
  },

  onKey(ev) {
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const tag = ev.target && ev.target.tagName;
    const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
    if (typing && !(tag === 'INPUT' && ev.target.type === 'range' && (ev.key === 'Home' || ev.key === ' '))) return;
    const n = this.store ? this.store.n : 0;
    switch (ev.key) {
      case ' ':
        if (tag === 'BUTTON') return; // the button's own click
        ev.preventDefault();
        if (this.playing) this.pause();
        else this.play();
        break;
      case 'ArrowRight':
      case 'ArrowLeft':
        if (!n) return;
        ev.preventDefault();
        this.pause();
        this.seek(this.frameIndex + (ev.key === 'ArrowRight' ? 1 : -1) * (ev.shiftKey ? 10 : 1));
        break;
      case 'Home':
        ev.preventDefault();
        this.pause();
        this.seek(0);
        this.resetCamera();
        break;
      case 'End':
        if (!n) return;
        ev.preventDefault();
        this.pause();
        this.seek(n - 1);
        break;
      case 'c': {
        const i = CAMERA_MODES.findIndex(([v]) => v === this.cameraMode);
        this.setCameraMode(CAMERA_MODES[(i + 1) % CAMERA_MODES.length][0]);
        break;
      }
      case '?':
        this.toggleHelp();
        break;
      case 'Escape':
        if (!this.helpEl.hidden) this.toggleHelp(false);
        else if (this.measure.length) this.setMeasure([]);
        else this.select(null);
        break;
      default:
    }
  },

  toggleHelp(show) {
    this.helpEl.hidden = show === undefined ? !this.helpEl.hidden : !show;
  },

  /// Time, frame number, energies and the slider at frame k.
  updateReadouts(k) {
    const st = this.store;
    const f = st.f;
    const t = f.t_s[k];
    this.timeEl.textContent = `t = ${t.toFixed(3)} s`;
    this.frameEl.textContent = `frame ${k + 1} / ${st.n}`;
    if (st.hasEnergy) for (const key of ENERGY_KEYS) {
      const arr = f.energy_J[key];
      this.energyEls[key].textContent = arr ? fmtValue(arr[k]) : '-';
    }
    if (this.scrub.value !== String(k)) this.scrub.value = String(k);
  },

  updateColorbar() {
    const box = this.legendEl;
    const useT = this.colorMode === 'tension';
    const max = useT ? this.maxTension : this.maxStrain;
    const signed = !!this.meta && useT && this.meta.cable_force_signed && this.minTension < 0;
    const min = signed ? this.minTension : 0;
    // rebuilt only when something shown changes (streamed frames call this for every block)
    const key = this.meta && this.meta.cables.length ? `${this.colorMode}|${this.forceName()}|${min}|${max}` : '';
    if (key === this.colorbarKey && box.childElementCount === (key ? 2 : 0)) return;
    this.colorbarKey = key;
    box.innerHTML = '';
    if (!key) return;
    const unit = useT ? ' N' : '';
    const label = useT ? `cable ${this.forceName()} [N]` : 'cable strain (l - l0) / l0';
    box.appendChild(el('div', { id: 'colorbar-label', class: 'tv-cb-label', text: label }));
    const ramp = el('div', { class: 'tv-ramp' });
    ramp.style.background = viridisGradient();
    const ticks = el('div', { class: 'tv-cb-ticks' });
    if (signed) {
      ticks.appendChild(el('span', { id: 'colorbar-min', text: `${fmtValue(min)}${unit}` }));
      const zero = el('span', { id: 'colorbar-zero', class: 'tv-cb-zero', text: '0' });
      const x = max > min ? (100 * -min) / (max - min) : 0;
      zero.style.left = `${x.toFixed(1)}%`;
      const mark = el('span', { class: 'tv-cb-mark' });
      mark.style.left = `${x.toFixed(1)}%`;
      ramp.appendChild(mark);
      ticks.appendChild(zero);
    } else {
      ticks.appendChild(el('span', { id: 'colorbar-zero', text: '0' }));
    }
    ticks.appendChild(el('span', { id: 'colorbar-max', class: 'tv-cb-max', text: `${fmtValue(max)}${unit}` }));
    box.appendChild(el('div', { class: 'tv-cb-row' }, [el('div', { class: 'tv-cb-bar' }, [ramp, ticks]), el('span', { class: 'tv-slack-key', text: 'slack' })]));
  },

  /// 'force' for signed cable forces, else the colour mode ('tension' | 'strain').
  forceName() {
    if (this.colorMode !== 'tension') return this.colorMode;
    return this.meta && this.meta.cable_force_signed ? 'force' : 'tension';
  },

  /// The key of the lines in the 3D view (COM track, paths, joint axes).
  updateKey() {
    this.keyEl.innerHTML = '';
    const item = (color, text, cls = '') => {
      const sw = el('span', { class: `tv-key-line ${cls}` });
      sw.style.borderColor = color;
      this.keyEl.appendChild(el('span', { class: 'tv-key-item' }, [sw, text]));
    };
    if (this.store && this.store.hasCom) item(COM_COLOR, 'COM track (floor)');
    for (const o of this.pathObjs) item(o.color, o.path.name);
    for (const o of this.jointObjs) item(o.seg.material.color.getStyle(), o.seg.name);
    for (const g of this.ghosts || []) item(g.color, `${g.run.label}: ${g.run.meta.title} (ghost)`);
  },

  updateCloudLegend() {
    const box = this.cloudLegendEl;
    box.innerHTML = '';
    const o = this.cloudObjs && this.cloudObjs[0];
    if (!o) return;
    box.appendChild(el('div', { id: 'cloud-colorbar-label', class: 'tv-cb-label', text: `${o.cloud.name}: ${o.cloud.value_label}` }));
    const ramp = el('div', { class: 'tv-ramp' });
    ramp.style.background = viridisGradient();
    const ticks = el('div', { class: 'tv-cb-ticks' }, [
      el('span', { id: 'cloud-colorbar-min', text: o.withValue.length ? fmtValue(o.min) : '-' }),
      el('span', { id: 'cloud-colorbar-max', class: 'tv-cb-max', text: o.withValue.length ? fmtValue(o.max) : '-' }),
    ]);
    box.appendChild(el('div', { class: 'tv-cb-row' }, [el('div', { class: 'tv-cb-bar' }, [ramp, ticks])]));
    const keys = [];
    const dot = (color, text, id) => el('span', { class: 'tv-key-item', id }, [Object.assign(el('span', { class: 'tv-key-dot' }), { style: `background:${color}` }), text]);
    if (o.cloud.highlight.length) keys.push(dot(CLOUD_HIGHLIGHT_COLOR, `boundary (${o.cloud.highlight.length})`, 'cloud-key-highlight'));
    if (o.without.length) keys.push(dot(CLOUD_NONE_COLOR, `no value (${o.without.length})`, 'cloud-key-none'));
    if (keys.length) box.appendChild(el('div', { class: 'tv-key' }, keys));
  },

  updateForceLegend() {
    const box = this.forceLegendEl;
    const show = !!this.meta && this.layers.forces && this.forceSpecs && this.forceSpecs.length > 0 && this.store && this.store.n > 0;
    box.hidden = !show;
    if (!show) return;
    box.innerHTML = '';
    const kinds = new Set(this.forceSpecs.map((a) => a.kind));
    box.appendChild(el('div', { class: 'tv-cb-label', text: 'forces' }));
    for (const [k, label, color] of FORCE_KINDS) {
      if (!kinds.has(k)) continue;
      const sw = el('span', { class: 'tv-key-line' });
      sw.style.borderColor = color;
      box.appendChild(el('div', { class: 'tv-key-item', 'data-kind': k }, [sw, label]));
    }
    for (const unit of ['N', 'N m']) {
      if (!this.forceSpecs.some((a) => a.unit === unit)) continue;
      const sc = this.forceScale(unit);
      box.appendChild(el('div', { class: 'tv-force-scale', 'data-unit': unit, text: sc > 0 ? `1 ${unit} = ${fmtValue(sc)} m (largest ${fmtValue(this.forceMax[unit])} ${unit})` : `no ${unit} in this run` }));
    }
  },
};
