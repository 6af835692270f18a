// The studio: edit a model through `tendyn serve`'s JSON API (docs/VIEWER.md), run it and watch
// the streamed frames in the same viewer component as the standalone page.

import './studio.css';
import { fmtNum, summaryLines } from './studio_summary.js';
import { el } from './dom.js';

const POLL_MS = 200;

/// The server's secret, from the address `tendyn serve` printed (http://HOST:PORT/?token=...):
/// sent with every API request (X-Tendyn-Token) and in download links (?token=).
const TOKEN = typeof location !== 'undefined' ? new URLSearchParams(location.search).get('token') || '' : '';
/// This page's id for the server's fair run queue (X-Tendyn-Client): one per tab.
const CLIENT_ID = Math.random().toString(36).slice(2, 12) + Date.now().toString(36);


export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/// fetch + JSON; any non-2xx answer or network failure becomes an ApiError with the server's
/// {"error": "..."} message.
export async function api(method, path, body) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), 'X-Tendyn-Token': TOKEN, 'X-Tendyn-Client': CLIENT_ID },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(`${method} ${path}: network error (${e.message}); is tendyn serve running?`, 0);
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) {
    const msg = json && typeof json.error === 'string' ? json.error : text.slice(0, 500) || res.statusText;
    throw new ApiError(`${msg} (HTTP ${res.status} from ${method} ${path.split('?')[0]})`, res.status);
  }
  if (json === null) throw new ApiError(`${method} ${path}: the answer is not JSON`, res.status);
  return json;
}

// editable fields: [field, header, check(v) -> error text or '']
const positive = (v) => (v > 0 ? '' : 'must be > 0');
const nonNegative = (v) => (v >= 0 ? '' : 'must be >= 0');
const any = () => '';

/// A number cell's text: the exact value, except for long ones below 1e-3 or from 1e5 on, whose
/// exponent a narrow cell would clip (5.551115123125783e-17 read "5.55111"): those with 4
/// significant digits and the exponent ("5.551e-17"). A clipped ordinary value loses only its last
/// digits. The exact value is in the cell's tooltip.
export function cellText(v) {
  const exact = String(v);
  if (typeof v !== 'number' || !Number.isFinite(v) || exact.length <= 9) return exact;
  const a = Math.abs(v);
  return a >= 1e5 || (a < 1e-3 && a > 0) ? fmtNum(v, 4) : exact;
}

/// A scene (scene.json's layout, one frame at t = 0) of a tensegrity model as /api/model describes
/// it: its points at their initial positions, rods and cables, no tensions; null for other kinds.
export function previewScene(m) {
  if (!m || m.kind !== 'tensegrity' || !Array.isArray(m.node_positions) || !Array.isArray(m.nodes)) return null;
  const index = new Map(m.nodes.map((n, i) => [n, i]));
  const at = (id) => {
    if (!index.has(id)) throw new Error(`unknown node ${JSON.stringify(id)}`);
    return index.get(id);
  };
  const pos = new Map(m.node_positions.map((p) => [p.id, [p.x_m, p.y_m, p.z_m]]));
  const positions = m.nodes.flatMap((n) => pos.get(n) || [0, 0, 0]);
  const cables = m.cables || [];
  return {
    format: 'tendyn-scene', version: 1, title: m.name || 'model', kind: 'tensegrity',
    points: m.nodes.slice(),
    rods: (m.rods || []).map((r) => ({ name: r.id, a: at(r.from), b: at(r.to), radius_m: r.radius_m || 0 })),
    cables: cables.map((c) => ({ name: c.id, a: at(c.from), b: at(c.to) })),
    frames: { t_s: [0], positions_m: [positions], cable_tension_N: [cables.map(() => 0)], cable_strain: [cables.map(() => 0)] },
  };
}
const ROD_FIELDS = [['length_m', 'length [m]', positive], ['mass_kg', 'mass [kg]', positive], ['radius_m', 'radius [m]', nonNegative]];
const CABLE_FIELDS = [['stiffness_Npm', 'k [N/m]', nonNegative], ['damping_Nspm', 'c [N s/m]', nonNegative], ['rest_length_m', 'l0 [m]', nonNegative]];
const NODE_FIELDS = [['x_m', 'x [m]', any], ['y_m', 'y [m]', any], ['z_m', 'z [m]', any]];
const AXES = ['x', 'y', 'z'];

/// Marks an input as invalid with the message under it (a validation error shown at the cell).
function setCellError(inp, msg) {
  const td = inp.closest('td') || inp.parentElement;
  let box = td.querySelector('.st-cell-error');
  if (!msg) {
    inp.classList.remove('st-invalid');
    inp.removeAttribute('aria-invalid');
    inp.removeAttribute('title');
    if (box) box.remove();
    return;
  }
  inp.classList.add('st-invalid');
  inp.setAttribute('aria-invalid', 'true');
  inp.title = msg;
  if (!box) {
    box = el('div', { class: 'st-cell-error', role: 'alert' });
    td.appendChild(box);
  }
  box.textContent = msg;
}

export function startStudio(root, { Viewer, hooks, showError, clearError }) {
  const state = { model: null, models: [], busy: 0, runToken: 0, jobId: null, preview: true, lastRun: null, prevRun: null };

  // ------------------------------------------------------------ model panel
  const modelSelect = el('select', { id: 'model-select', 'aria-label': 'built-in model' });
  const loadBtn = el('button', { id: 'load-model', type: 'button', class: 'st-btn', text: 'Load' });
  const fileInput = el('input', { id: 'yaml-file', type: 'file', accept: '.yaml,.yml,text/yaml' });
  const saveBtn = el('button', { id: 'save-yaml', type: 'button', class: 'st-btn', text: 'Save YAML' });
  const yamlArea = el('textarea', { id: 'yaml', spellcheck: 'false', placeholder: 'model YAML (docs/MODEL_FORMAT.md)' });
  const applyBtn = el('button', { id: 'apply-yaml', type: 'button', class: 'st-btn', text: 'Apply YAML' });
  const modelDesc = el('div', { class: 'st-hint', id: 'model-description' });
  const tables = el('div', { class: 'st-tables' });
  const modelPanel = el('div', { class: 'st-panel' }, [
    el('h2', { text: 'Model' }),
    el('div', { class: 'st-row' }, [modelSelect, loadBtn]),
    modelDesc,
    el('div', { class: 'st-row' }, [el('label', { text: 'file ' }), fileInput]),
    yamlArea,
    el('div', { class: 'st-row' }, [applyBtn, saveBtn]),
    tables,
  ]);

  // ------------------------------------------------------------ run panel
  const modeSel = el('select', { id: 'mode' }, [el('option', { value: 'forward', text: 'forward (drive cables)' }), el('option', { value: 'inverse', text: 'inverse (plan a path)' })]);
  const duration = el('input', { id: 'duration', type: 'number', step: 'any', min: '0', value: '2', class: 'st-num' });
  const outInt = el('input', { id: 'output-interval', type: 'number', step: 'any', min: '0', value: '0.01', class: 'st-num' });
  const drivesBody = el('tbody');
  const addDriveBtn = el('button', { id: 'add-drive', type: 'button', class: 'st-btn', text: 'Add drive' });
  const fwdBox = el('div', { id: 'forward-panel' }, [
    el('div', { class: 'st-hint', text: 'u = a sin(b t + c) + d  [m], added to the rest length' }),
    el('table', { class: 'st-table' }, [el('thead', {}, [el('tr', {}, ['cable', 'a [m]', 'b [rad/s]', 'c [rad]', 'd [m]', ''].map((h) => el('th', { text: h })))]), drivesBody]),
    addDriveBtn,
  ]);
  const driveCables = el('input', { id: 'drive-cables', type: 'text', placeholder: 'c1,c2,c3,c4', style: 'width: 100%' });
  const u0 = el('input', { id: 'u0', type: 'number', step: 'any', value: '0.005', class: 'st-num' });
  const period = el('input', { id: 'period', type: 'number', step: 'any', value: '0.1', class: 'st-num' });
  const pathArea = el('textarea', { id: 'path', spellcheck: 'false' });
  pathArea.value = '0, 0\n1, 0';
  const planner = el('select', { id: 'planner' }, [el('option', { value: 'exhaustive', text: 'exhaustive' }), el('option', { value: 'coordinate', text: 'coordinate' }), el('option', { value: 'lookahead', text: 'lookahead' })]);
  const invBox = el('div', { id: 'inverse-panel', hidden: '' }, [
    el('div', { class: 'st-row' }, [el('label', { text: 'drive cables' })]), driveCables,
    el('div', { class: 'st-row' }, [el('label', { text: 'u0 [m]' }), u0, el('label', { text: 'period [s]' }), period]),
    el('div', { class: 'st-row' }, [el('label', { text: 'path: one "x, y" point [m] per line' })]), pathArea,
    el('div', { class: 'st-row' }, [el('label', { text: 'planner' }), planner]),
  ]);
  const cdprPath = el('textarea', { id: 'cdpr-path', spellcheck: 'false' });
  const cdprSpeed = el('input', { id: 'cdpr-speed', type: 'number', step: 'any', min: '0', value: '0.2', class: 'st-num' });
  const cdprMethod = el('select', { id: 'cdpr-method' }, ['exact', 'lawson-hanson', 'exhaustive', 'closed-form', 'improved-closed-form'].map((m) => el('option', { value: m, text: m })));
  const cdprBox = el('div', { id: 'cdpr-panel', hidden: '' }, [
    el('div', { class: 'st-hint', text: 'tension distribution (J f = w, gravity) at poses along the platform path, as tendyn tension trajectory' }),
    el('div', { class: 'st-row' }, [el('label', { text: 'path of the platform point P: one "x, y" (planar) or "x, y, z" point [m] per line' })]), cdprPath,
    el('div', { class: 'st-row' }, [el('label', { text: 'speed [m/s]' }), cdprSpeed, el('label', { text: 'solver' }), cdprMethod]),
  ]);
  const runBtn = el('button', { id: 'run', type: 'button', class: 'st-btn', text: 'Run' });
  const cancelBtn = el('button', { id: 'cancel-run', type: 'button', class: 'st-btn', text: 'Cancel', disabled: '', title: 'stop the queued or running run' });
  const runBlocked = el('div', { id: 'run-blocked', class: 'st-cell-error', role: 'alert', hidden: '' });
  const status = el('span', { id: 'status', 'data-status': 'idle', text: 'idle' });
  const progress = el('progress', { id: 'progress', max: '1', value: '0' });
  const csvBtn = el('button', { id: 'download-csv', type: 'button', class: 'st-btn', text: 'Download CSV', disabled: '', title: 'the run: one line per frame, header with units' });
  const jsonBtn = el('button', { id: 'download-json', type: 'button', class: 'st-btn', text: 'Download JSON', disabled: '', title: 'the run as scene.json (tendyn view reads it) with the summary' });
  const summary = el('div', { id: 'summary', class: 'st-summary' });
  // compare with the previous run: drawn as a ghost, series plotted together, their difference
  // (the viewer's compare path, as `tendyn view A B`)
  const compareBox = el('input', { id: 'compare-prev', type: 'checkbox', disabled: '' });
  const compareNote = el('span', { id: 'compare-note', class: 'st-hint', text: 'after two runs' });
  const modeRow = el('div', { class: 'st-row' }, [el('label', { text: 'mode' }), modeSel]);
  const durationRow = el('div', { class: 'st-row' }, [el('label', { text: 'duration [s]' }), duration]);
  const runPanel = el('div', { class: 'st-panel' }, [
    el('h2', { text: 'Run' }),
    modeRow,
    durationRow,
    el('div', { class: 'st-row' }, [el('label', { text: 'output every [s]' }), outInt]),
    fwdBox, invBox, cdprBox,
    el('div', { class: 'st-row' }, [runBtn, cancelBtn, status]),
    runBlocked,
    progress,
    el('div', { class: 'st-row' }, [csvBtn, jsonBtn]),
    el('div', { class: 'st-row' }, [el('label', { title: 'draw the previous run as a ghost, plot both runs and their difference' }, [compareBox, ' compare with previous run']), compareNote]),
  ]);
  // the run's summary above the 3D view: in sight without scrolling (the model tables make the
  // side column taller than a 800 px window)
  const summaryBox = el('div', { id: 'summary-box', class: 'st-panel st-summary-box', hidden: '' }, [el('h2', { text: 'Summary of the run' }), summary]);

  const viewerRoot = el('div', { id: 'viewer' });
  root.classList.add('st-root');
  root.appendChild(el('div', { class: 'st-side' }, [el('h1', { class: 'tv-title', text: 'tendyn studio' }), modelPanel, runPanel]));
  root.appendChild(el('div', { class: 'st-main' }, [summaryBox, viewerRoot]));
  const viewer = new Viewer(viewerRoot);
  viewer.titleEl.textContent = 'no run yet';

  function setStatus(s, text) {
    status.dataset.status = s;
    status.textContent = text || s;
    status.className = s === 'error' ? 'st-status-error' : s === 'done' ? 'st-status-done' : '';
  }

  function report(e) {
    showError(e && e.message ? e.message : String(e));
  }

  /// The reason the Run button did not run, shown next to it ('' hides it).
  function runNote(text) {
    runBlocked.textContent = text;
    runBlocked.hidden = !text;
  }

  /// The model's table cells that hold a number.
  const tableCells = () => [...tables.querySelectorAll('input[data-element][data-field]')];

  /// Checks every table cell as its change handler does; the first invalid one's message, or ''.
  function invalidCell() {
    for (const inp of tableCells()) {
      const v = Number(inp.value);
      const bad = inp.value.trim() === '' || !Number.isFinite(v);
      if (bad && !inp.classList.contains('st-invalid')) setCellError(inp, `${inp.dataset.element} ${inp.dataset.id}: ${inp.dataset.field}: must be a number`);
      if (inp.classList.contains('st-invalid')) return { inp, msg: inp.title || `${inp.dataset.element} ${inp.dataset.id}: ${inp.dataset.field}: invalid` };
    }
    return null;
  }

  /// The cells whose value differs from the model's: sent with the run as edits (so the run uses
  /// what the table shows, even before the server has answered the cell's own edit).
  function cellEdits() {
    const cells = [];
    const edits = [];
    for (const inp of tableCells()) {
      if (inp.value === inp.dataset.orig) continue;
      cells.push(inp);
      edits.push({ op: 'set', element: inp.dataset.element, id: inp.dataset.id, field: inp.dataset.field, value: Number(inp.value) });
    }
    return { cells, edits };
  }

  // ------------------------------------------------------------ model
  function cableOptions(select, selected) {
    select.innerHTML = '';
    for (const c of state.model ? state.model.cables : []) select.appendChild(el('option', { value: c.id, text: c.id }));
    if (selected !== undefined) select.value = selected;
  }

  function nodeSelect(cls) {
    const s = el('select', { class: cls });
    for (const n of state.model.nodes || []) s.appendChild(el('option', { value: n, text: n }));
    return s;
  }

  /// A number cell: checked here (a number, the field's range), then sent as a "set" edit; an
  /// error (here or from the server) is shown at the cell and the value stays for correction.
  function numInput(value, element, id, field, check = any) {
    const text = value === undefined || value === null ? '' : cellText(value);
    const inp = el('input', { type: 'number', step: 'any', 'data-field': field, 'data-element': element, 'data-id': id, 'data-orig': text, value: text });
    if (text !== '' && text !== String(value)) inp.title = `${element} ${id}: ${field} = ${String(value)} (shown rounded; an unchanged cell keeps this exact value)`;
    inp.addEventListener('input', () => runNote(''));
    inp.addEventListener('change', () => {
      const v = Number(inp.value);
      let why = '';
      if (inp.value.trim() === '' || !Number.isFinite(v)) why = `${field}: must be a number`;
      else if (check(v)) why = `${field}: ${check(v)}`;
      if (why) {
        setCellError(inp, `${element} ${id}: ${why}`);
        return;
      }
      setCellError(inp, '');
      edit([{ op: 'set', element, id, field, value: v }], inp);
    });
    return inp;
  }

  function table(id, headers, rows) {
    return el('table', { class: 'st-table', id }, [el('thead', {}, [el('tr', {}, headers.map((h) => el('th', { text: h })))]), el('tbody', {}, rows)]);
  }

  function section(title, node) {
    return el('div', { class: 'st-section' }, [el('h3', { text: title }), node]);
  }

  function renderTables() {
    tables.innerHTML = '';
    const m = state.model;
    if (!m) return;
    if (m.kind === 'cdpr') {
      renderCdprTables(m);
      return;
    }
    const rods = m.rods || [];
    const cables = m.cables || [];
    const ends = {};
    const endRod = {};
    // rods with body points or a full inertia tensor are edited in the YAML (read-only cells)
    const locked = new Set(rods.filter((r) => r.general_inertia).map((r) => r.id));
    for (const n of m.node_positions || []) if (n.on) locked.add(n.on);
    for (const r of rods) {
      ends[r.from] = `${r.id} end 0`;
      ends[r.to] = `${r.id} end 1`;
      endRod[r.from] = r.id;
      endRod[r.to] = r.id;
    }
    const fixedCell = (v, attrs = {}) => el('td', { ...attrs, class: 'st-fixed', text: v === undefined || v === null ? '' : String(v) });
    if (m.node_positions && m.node_positions.length) {
      const capped = m.node_positions.some((n) => n.end_cap_radius_m > 0);
      const headers = ['node', ...NODE_FIELDS.map((f) => f[1]), 'on', ...(capped ? ['end-cap r [m]'] : [])];
      tables.appendChild(section('Nodes (initial positions; moving a rod end changes the rod length)', table('node-table', headers,
        m.node_positions.map((n) => el('tr', { 'data-node': n.id }, [
          el('td', { text: n.id }),
          ...NODE_FIELDS.map(([f, , check]) => (locked.has(n.on || endRod[n.id])
            ? fixedCell(n[f], { 'data-field': f })
            : el('td', {}, [numInput(n[f], 'node', n.id, f, check)]))),
          el('td', { class: 'st-hint', text: n.fixed ? 'anchor' : n.on ? `point on ${n.on}${n.contact ? ' (contact)' : ''}` : ends[n.id] || '' }),
          ...(capped ? [fixedCell(n.end_cap_radius_m > 0 ? n.end_cap_radius_m : '', { 'data-field': 'end_cap_radius_m' })] : []),
        ])))));
    }
    if (rods.length) {
      tables.appendChild(section('Rods', table('rod-table', ['rod', 'nodes', ...ROD_FIELDS.map((f) => f[1])],
        rods.map((r) => el('tr', { 'data-rod': r.id }, [
          el('td', { text: r.id }), el('td', { text: `${r.from}-${r.to}` }),
          ...ROD_FIELDS.map(([f, , check]) => (r.general_inertia
            ? fixedCell(f === 'radius_m' ? 'full tensor' : r[f], { 'data-field': f })
            : el('td', {}, [numInput(r[f], 'rod', r.id, f, check)]))),
        ])))));
    }
    const rows = [];
    for (const c of cables) {
      const rm = el('button', { type: 'button', class: 'st-x', title: `remove cable ${c.id}`, 'data-remove': c.id, text: 'x' });
      rm.addEventListener('click', () => edit([{ op: 'remove_cable', id: c.id }]));
      rows.push(el('tr', { 'data-cable': c.id }, [
        el('td', { text: c.id }), el('td', { text: `${c.from}-${c.to}` }),
        ...CABLE_FIELDS.map(([f, , check]) => el('td', {}, [numInput(c[f], 'cable', c.id, f, check)])),
        el('td', {}, [rm]),
      ]));
    }
    // add-cable row
    const newId = el('input', { type: 'text', class: 'st-id', id: 'new-cable-id', placeholder: 'id' });
    const from = nodeSelect('st-from');
    from.id = 'new-cable-from';
    const to = nodeSelect('st-to');
    to.id = 'new-cable-to';
    if (to.options.length > 1) to.selectedIndex = 1;
    const k = el('input', { type: 'number', step: 'any', id: 'new-cable-stiffness', value: cables.length ? String(cables[0].stiffness_Npm) : '100' });
    const l0 = el('input', { type: 'number', step: 'any', id: 'new-cable-rest-length', value: cables.length ? String(cables[0].rest_length_m) : '0.2' });
    const add = el('button', { type: 'button', class: 'st-btn', id: 'add-cable', text: 'add' });
    add.addEventListener('click', () => {
      const id = newId.value.trim();
      if (!id) {
        setCellError(newId, 'new cable: give it an id');
        return;
      }
      setCellError(newId, '');
      edit([{ op: 'add_cable', id, from: from.value, to: to.value, stiffness_Npm: Number(k.value), rest_length_m: Number(l0.value) }], newId);
    });
    rows.push(el('tr', { class: 'st-add' }, [el('td', {}, [newId]), el('td', {}, [from, to]), el('td', {}, [k]), el('td', {}), el('td', {}, [l0]), el('td', {}, [add])]));
    tables.appendChild(section('Cables', table('cable-table', ['cable', 'nodes', ...CABLE_FIELDS.map((f) => f[1]), ''], rows)));
    if (m.winches && m.winches.length) {
      const W = [['control', 'control'], ['spool_radius_m', 'spool r [m]'], ['gear_ratio', 'gear'], ['stall_torque_Nm', 'stall [N m]'],
        ['no_load_speed_radps', 'no-load [rad/s]'], ['kp_per_m', 'kp [1/m]'], ['max_rate_mps', 'max rate [m/s]']];
      tables.appendChild(section('Winches (edit in the YAML)', table('winch-table', ['cable', ...W.map((f) => f[1])],
        m.winches.map((w) => el('tr', { 'data-winch': w.cable }, [el('td', { text: w.cable }), ...W.map(([f]) => fixedCell(w[f], { 'data-field': f }))])))));
    }
    // drive selectors follow the cables
    for (const sel of drivesBody.querySelectorAll('select')) cableOptions(sel, sel.value);
    if (drivesBody.children.length === 0 && cables.length) addDrive();
  }

  function renderCdprTables(m) {
    const dim = m.motion === 'planar' ? 2 : 3;
    const axes = AXES.slice(0, dim);
    const p = m.platform || {};
    tables.appendChild(section(`Platform (${m.motion})`, table('platform-table', ['mass [kg]', ...axes.map((a) => `COM ${a} [m]`)], [
      el('tr', { 'data-platform': '' }, [
        el('td', {}, [numInput(p.mass_kg, 'platform', '', 'mass_kg', nonNegative)]),
        ...axes.map((a, i) => el('td', {}, [numInput(p.com_m[i], 'platform', '', `com_${a}_m`)])),
      ]),
    ])));
    const t = m.tension || {};
    tables.appendChild(section('Cable tension bounds', table('tension-table', ['min [N]', 'max [N]'], [
      el('tr', {}, [el('td', {}, [numInput(t.min_N, 'tension', '', 'min_N', nonNegative)]), el('td', {}, [numInput(t.max_N, 'tension', '', 'max_N', positive)])]),
    ])));
    const units = (f) => (f.endsWith('_rad') ? `${f.slice(0, -4)} [rad]` : `${f.slice(0, -2)} [m]`);
    tables.appendChild(section('Start pose', table('pose-table', (m.pose_fields || []).map(units), [
      el('tr', {}, (m.pose_fields || []).map((f, i) => el('td', {}, [numInput(m.pose[i], 'pose', '', f)]))),
    ])));
    tables.appendChild(section('Cables (anchor in the world, attachment in the platform frame)', table('cable-table',
      ['cable', 'group', ...axes.map((a) => `anchor ${a} [m]`), ...axes.map((a) => `attach. ${a} [m]`)],
      m.cables.map((c) => el('tr', { 'data-cable': c.id }, [
        el('td', { text: c.id }), el('td', { class: 'st-hint', text: c.group || '' }),
        ...axes.map((a, i) => el('td', {}, [numInput(c.anchor_m[i], 'cable', c.id, `anchor_${a}_m`)])),
        ...axes.map((a, i) => el('td', {}, [numInput(c.attachment_m[i], 'cable', c.id, `attachment_${a}_m`)])),
      ])))));
  }

  /// Shows the run controls of the model's kind; a new CDPR model gets its default path.
  function showKind(fresh) {
    const cdpr = state.model && state.model.kind === 'cdpr';
    modeRow.hidden = cdpr;
    durationRow.hidden = cdpr;
    fwdBox.hidden = cdpr || modeSel.value !== 'forward';
    invBox.hidden = cdpr || modeSel.value !== 'inverse';
    cdprBox.hidden = !cdpr;
    if (cdpr && (fresh || !cdprPath.value.trim()) && Array.isArray(state.model.default_path_m))
      cdprPath.value = state.model.default_path_m.map((pt) => pt.map((v) => fmtNum(v, 6)).join(', ')).join('\n');
  }

  /// The model at rest (its initial positions, no tensions) in the 3D view until a run replaces it,
  /// and again after each model change while no run has been shown. Tensegrity models only (the
  /// CDPR model JSON carries no world positions of the platform's points).
  function showPreview() {
    if (!state.preview) return;
    const scene = previewScene(state.model);
    if (!scene) return;
    try {
      viewer.load(scene);
      viewer.titleEl.textContent = `${scene.title}: the model before a run (initial positions, no tensions)`;
      window.tendyn.previews = (window.tendyn.previews || 0) + 1;
    } catch (e) {
      report(new Error(`the model could not be drawn: ${e.message}`));
    }
  }

  /// Sends the YAML and the edits; the server's canonical YAML and model replace ours. An error
  /// of an edit made in a cell is shown at that cell (its value stays for correction); others in
  /// the error box, and the tables show the last good model again.
  async function edit(edits, cell, fresh = false) {
    clearError();
    try {
      const r = await api('POST', '/api/model', { yaml: yamlArea.value, edits });
      yamlArea.value = r.yaml;
      const kindChanged = !state.model || state.model.kind !== r.model.kind || state.model.name !== r.model.name;
      state.model = r.model;
      renderTables();
      showKind(fresh || kindChanged);
      showPreview();
    } catch (e) {
      if (cell && cell.isConnected) {
        setCellError(cell, e.message);
        return;
      }
      report(e);
      renderTables(); // put back the last good values
    }
  }

  async function loadBuiltin() {
    clearError();
    const name = modelSelect.value;
    if (!name) return;
    try {
      const r = await api('GET', `/api/models/${encodeURIComponent(name)}`);
      yamlArea.value = r.yaml;
      drivesBody.innerHTML = '';
      forgetRuns(); // another model: its runs are not compared with the previous model's
      await edit([], undefined, true);
      window.tendyn.loads = (window.tendyn.loads || 0) + 1;
    } catch (e) {
      report(e);
    }
  }

  loadBtn.addEventListener('click', loadBuiltin);
  modelSelect.addEventListener('change', () => {
    const m = state.models.find((x) => x.name === modelSelect.value);
    modelDesc.textContent = m && m.description ? m.description : '';
  });
  applyBtn.addEventListener('click', () => edit([]));
  fileInput.addEventListener('change', async () => {
    const f = fileInput.files && fileInput.files[0];
    if (!f) return;
    yamlArea.value = await f.text();
    drivesBody.innerHTML = '';
    edit([], undefined, true);
  });
  saveBtn.addEventListener('click', () => {
    const blob = new Blob([yamlArea.value], { type: 'text/yaml' });
    const a = el('a', { href: URL.createObjectURL(blob), download: `${(state.model && state.model.name) || 'model'}.yaml` });
    document.body.appendChild(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  });

  // ------------------------------------------------------------ run
  function addDrive() {
    const sel = el('select', { 'data-field': 'cable' });
    cableOptions(sel);
    const nums = [['a', '0.01'], ['b', '6.28'], ['c', '0'], ['d', '0']].map(([f, v]) => el('input', { type: 'number', step: 'any', 'data-field': f, value: v, class: 'st-num' }));
    const rm = el('button', { type: 'button', class: 'st-x', text: 'x', title: 'remove drive' });
    const tr = el('tr', { class: 'st-drive' }, [el('td', {}, [sel]), ...nums.map((n) => el('td', {}, [n])), el('td', {}, [rm])]);
    rm.addEventListener('click', () => tr.remove());
    drivesBody.appendChild(tr);
  }
  addDriveBtn.addEventListener('click', addDrive);
  modeSel.addEventListener('change', () => showKind(false));

  function parsePath(text, dim = 2, what = 'path') {
    const pts = [];
    const want = dim === 2 ? '"x, y"' : '"x, y, z"';
    text.split(/[\n;]+/).forEach((line, i) => {
      const s = line.trim();
      if (!s) return;
      const xy = s.split(/[\s,]+/).map(Number);
      if (xy.length !== dim || !xy.every(Number.isFinite)) throw new Error(`${what} line ${i + 1}: expected ${want}, got "${s}"`);
      pts.push(xy);
    });
    if (pts.length < 2) throw new Error(`${what}: give at least 2 points`);
    return pts;
  }

  function runRequest(edits) {
    if (state.model && state.model.kind === 'cdpr') {
      return {
        yaml: yamlArea.value,
        edits,
        output_interval_s: Number(outInt.value),
        cdpr: { path: parsePath(cdprPath.value, state.model.motion === 'planar' ? 2 : 3, 'platform path'), speed_mps: Number(cdprSpeed.value), method: cdprMethod.value },
      };
    }
    const req = {
      yaml: yamlArea.value,
      edits,
      mode: modeSel.value,
      duration_s: Number(duration.value),
      output_interval_s: Number(outInt.value),
    };
    if (req.mode === 'forward') {
      const drives = [];
      for (const tr of drivesBody.querySelectorAll('tr.st-drive')) {
        const get = (f) => tr.querySelector(`[data-field="${f}"]`).value;
        drives.push({ cable: get('cable'), a: Number(get('a')), b: Number(get('b')), c: Number(get('c')), d: Number(get('d')) });
      }
      req.forward = { drives };
    } else {
      req.inverse = {
        drive_cables: driveCables.value.split(/[\s,]+/).filter(Boolean),
        u0_m: Number(u0.value),
        period_s: Number(period.value),
        path: parsePath(pathArea.value),
        planner: planner.value,
      };
    }
    return req;
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  async function run() {
    clearError();
    runNote('');
    // an invalid cell blocks the run: it would otherwise run with the model's previous value
    const bad = invalidCell();
    if (bad) {
      runNote(`not run: ${bad.msg} (fix the red cell)`);
      setStatus('blocked', 'not run: invalid cell');
      bad.inp.focus();
      return;
    }
    const token = ++state.runToken;
    const pending = cellEdits();
    let req;
    try {
      req = runRequest(pending.edits);
    } catch (e) {
      runNote(`not run: ${e.message}`);
      report(e);
      setStatus('error');
      return;
    }
    state.preview = false;
    setStatus('starting', 'starting...');
    progress.value = 0;
    summary.textContent = '';
    summaryBox.hidden = true;
    window.tendyn.summary = null;
    csvBtn.disabled = true;
    jsonBtn.disabled = true;
    let job;
    try {
      const r = await api('POST', '/api/run', req);
      job = r.job;
      if (job === undefined || job === null) throw new Error('POST /api/run: no job id in the answer');
    } catch (e) {
      if (token === state.runToken) {
        // a table value the server refused: shown at its cell and next to the Run button
        const m = /request\.edits\[(\d+)\]/.exec(e.message || '');
        const cell = m ? pending.cells[Number(m[1])] : null;
        if (cell && cell.isConnected) setCellError(cell, e.message);
        runNote(`not run: ${e.message}`);
        report(e);
        setStatus('error');
      }
      return;
    }
    state.jobId = String(job);
    cancelBtn.disabled = false;
    viewer.clear();
    let from = 0;
    let meta = null;
    let loaded = false;
    let errors = 0;
    for (;;) {
      if (token !== state.runToken) return; // a newer run took over
      let r;
      try {
        r = await api('GET', `/api/jobs/${encodeURIComponent(state.jobId)}?from=${from}`);
        errors = 0;
      } catch (e) {
        // a transient network hiccup is retried a few times; an HTTP error ends the poll
        if (e.status === 0 && ++errors < 5) {
          await sleep(POLL_MS * 2);
          continue;
        }
        report(e);
        setStatus('error');
        return;
      }
      if (token !== state.runToken) return;
      try {
        if (r.scene) meta = r.scene;
        const fr = r.frames;
        const n = fr && Array.isArray(fr.t_s) ? fr.t_s.length : 0;
        if (n > 0) {
          if (!meta) throw new Error(`job ${state.jobId}: frames arrived without the scene`);
          if (!loaded) {
            viewer.load(meta, fr);
            loaded = true;
          } else {
            viewer.append(fr);
          }
          from += n;
          if (!viewer.playing) viewer.seek(viewer.store.n - 1); // follow the newest frame
        }
      } catch (e) {
        report(new Error(`bad data from the server: ${e.message}`));
        setStatus('error');
        return;
      }
      if (typeof r.progress === 'number') progress.value = Math.min(1, Math.max(0, r.progress));
      if (r.status === 'done') {
        cancelBtn.disabled = true;
        progress.value = 1;
        if (r.summary) showSummary(r.summary);
        csvBtn.disabled = false;
        jsonBtn.disabled = false;
        await keepRun(state.jobId, token);
        setStatus('done');
        window.tendyn.runs = (window.tendyn.runs || 0) + 1;
        return;
      }
      if (r.status === 'error') {
        cancelBtn.disabled = true;
        runNote(`run failed: ${r.error || 'the job failed'}`);
        report(new Error(r.error || 'the job failed'));
        setStatus('error');
        return;
      }
      if (r.status === 'cancelled') {
        cancelBtn.disabled = true;
        setStatus('cancelled');
        return;
      }
      if (r.status === 'queued') setStatus('queued', 'queued: waiting for a free run slot');
      else setStatus('running', `running ${Math.round(100 * (r.progress || 0))} %`);
      await sleep(POLL_MS);
    }
  }
  runBtn.addEventListener('click', run);
  cancelBtn.addEventListener('click', async () => {
    if (!state.jobId) return;
    cancelBtn.disabled = true;
    try {
      await api('POST', `/api/jobs/${encodeURIComponent(state.jobId)}/cancel`, {});
    } catch (e) {
      report(e);
    }
  });

  /// Keeps the finished run's scene (run.json, all frames) as the last run, the one before as
  /// the previous run, and shows the comparison when it is ticked.
  async function keepRun(jobId, token) {
    let scene;
    try {
      scene = await api('GET', `/api/jobs/${encodeURIComponent(jobId)}/run.json`);
    } catch (e) {
      report(new Error(`the run is done but could not be kept for a comparison: ${e.message}`));
      return;
    }
    if (token !== state.runToken) return;
    delete scene.summary;
    state.prevRun = state.lastRun;
    state.lastRun = { jobId, scene };
    compareBox.disabled = !state.prevRun;
    compareNote.textContent = state.prevRun ? '' : 'after two runs';
    if (compareBox.checked && state.prevRun) showRuns();
  }

  function forgetRuns() {
    state.lastRun = null;
    state.prevRun = null;
    compareBox.disabled = true;
    compareNote.textContent = 'after two runs';
  }

  /// The last run alone, or with the previous one as run B (a ghost, its series, the difference).
  function showRuns() {
    if (!state.lastRun) return;
    const cur = state.lastRun.scene;
    const both = compareBox.checked && state.prevRun;
    try {
      if (both) {
        const prev = state.prevRun.scene;
        viewer.load({ ...cur, compare: [{ ...prev, title: `${prev.title || 'run'} (previous run)` }] });
      } else {
        viewer.load(cur);
      }
      if (viewer.store && viewer.store.n) viewer.seek(viewer.store.n - 1);
    } catch (e) {
      report(new Error(`cannot show the runs: ${e.message}`));
    }
  }
  compareBox.addEventListener('change', showRuns);

  function showSummary(s) {
    window.tendyn.summary = s;
    summary.innerHTML = '';
    summaryBox.hidden = false;
    let lines;
    try {
      lines = summaryLines(s);
    } catch (e) {
      report(new Error(`the run's summary could not be shown: ${e.message}`));
      return;
    }
    for (const l of lines) {
      summary.appendChild(el('div', { class: `st-sum st-sum-${l.key}`, id: `summary-${l.key}` }, [el('b', { text: `${l.label}: ` }), l.text]));
    }
    const v = summary.querySelector('#summary-verdict');
    if (v) v.classList.add(s.mode === 'cdpr' ? (s.not_ok_poses ? 'st-bad' : 'st-good') : s.normal_mode ? 'st-good' : 'st-bad');
  }

  function download(ext) {
    if (!state.jobId) return;
    const name = `${((state.model && state.model.name) || 'run').replace(/[^A-Za-z0-9_.-]+/g, '_')}-run-${state.jobId}.${ext}`;
    const a = el('a', { href: `/api/jobs/${encodeURIComponent(state.jobId)}/run.${ext}?token=${encodeURIComponent(TOKEN)}`, download: name });
    document.body.appendChild(a);
    a.click();
    setTimeout(() => a.remove(), 1000);
  }
  csvBtn.addEventListener('click', () => download('csv'));
  jsonBtn.addEventListener('click', () => download('json'));

  // ------------------------------------------------------------ start
  window.tendyn = hooks(viewer, { mode: 'studio', model: () => state.model, jobId: () => state.jobId });
  (async () => {
    try {
      const r = await api('GET', '/api/models');
      state.models = Array.isArray(r.models) ? r.models : [];
      for (const m of state.models) modelSelect.appendChild(el('option', { value: m.name, text: m.name }));
      const pick = state.models.find((m) => m.name === 'prism3') || state.models[0];
      for (const o of modelSelect.options) {
        const m = state.models.find((x) => x.name === o.value);
        if (m && m.kind === 'cdpr') o.textContent = `${m.name} (CDPR)`;
      }
      if (pick) {
        modelSelect.value = pick.name;
        modelSelect.dispatchEvent(new Event('change'));
        await loadBuiltin();
      }
    } catch (e) {
      report(e);
    }
    window.tendyn.ready = true;
  })();
}
