// The studio: edit a model through `tendyn serve`'s JSON API (docs/VIEWER.md), run it and watch
// the streamed frames in the same viewer component as the standalone page.

const POLL_MS = 200;

function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k === 'value') e.value = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}

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
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(`${method} ${path}: network error (${e.message}); is tendyn serve running?`, 0);
  }
  const text = await res.text();
  let json = null;
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

const ROD_FIELDS = ['length_m', 'mass_kg', 'radius_m'];
const CABLE_FIELDS = ['stiffness_Npm', 'damping_Nspm', 'rest_length_m'];

export function startStudio(root, { Viewer, hooks, showError, clearError }) {
  const state = { model: null, models: [], busy: 0, runToken: 0, jobId: null };

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
  const runBtn = el('button', { id: 'run', type: 'button', class: 'st-btn', text: 'Run' });
  const status = el('span', { id: 'status', 'data-status': 'idle', text: 'idle' });
  const progress = el('progress', { id: 'progress', max: '1', value: '0' });
  const summary = el('div', { id: 'summary', class: 'st-hint' });
  const runPanel = el('div', { class: 'st-panel' }, [
    el('h2', { text: 'Run' }),
    el('div', { class: 'st-row' }, [el('label', { text: 'mode' }), modeSel]),
    el('div', { class: 'st-row' }, [el('label', { text: 'duration [s]' }), duration, el('label', { text: 'output every [s]' }), outInt]),
    fwdBox, invBox,
    el('div', { class: 'st-row' }, [runBtn, status]),
    progress, summary,
  ]);

  const viewerRoot = el('div', { id: 'viewer' });
  root.classList.add('st-root');
  root.appendChild(el('div', { class: 'st-side' }, [el('h1', { class: 'tv-title', text: 'tendyn studio' }), modelPanel, runPanel]));
  root.appendChild(el('div', { class: 'st-main' }, [viewerRoot]));
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

  function numInput(value, element, id, field) {
    const inp = el('input', { type: 'number', step: 'any', 'data-field': field, value: value === undefined || value === null ? '' : String(value) });
    inp.addEventListener('change', () => {
      const v = Number(inp.value);
      if (inp.value.trim() === '' || !Number.isFinite(v)) {
        showError(`${element} ${id}: ${field} must be a number`);
        return;
      }
      edit([{ op: 'set', element, id, field, value: v }]);
    });
    return inp;
  }

  function renderTables() {
    tables.innerHTML = '';
    const m = state.model;
    if (!m) return;
    const rods = m.rods || [];
    const cables = m.cables || [];
    if (rods.length) {
      const body = el('tbody');
      for (const r of rods) {
        body.appendChild(el('tr', { 'data-rod': r.id }, [
          el('td', { text: r.id }), el('td', { text: `${r.from}-${r.to}` }),
          ...ROD_FIELDS.map((f) => el('td', {}, [numInput(r[f], 'rod', r.id, f)])),
        ]));
      }
      tables.appendChild(el('table', { class: 'st-table', id: 'rod-table' }, [
        el('thead', {}, [el('tr', {}, ['rod', 'nodes', 'length [m]', 'mass [kg]', 'radius [m]'].map((h) => el('th', { text: h })))]), body]));
    }
    const body = el('tbody');
    for (const c of cables) {
      const rm = el('button', { type: 'button', class: 'st-x', title: `remove cable ${c.id}`, 'data-remove': c.id, text: 'x' });
      rm.addEventListener('click', () => edit([{ op: 'remove_cable', id: c.id }]));
      body.appendChild(el('tr', { 'data-cable': c.id }, [
        el('td', { text: c.id }), el('td', { text: `${c.from}-${c.to}` }),
        ...CABLE_FIELDS.map((f) => el('td', {}, [numInput(c[f], 'cable', c.id, f)])),
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
        showError('new cable: give it an id');
        return;
      }
      edit([{ op: 'add_cable', id, from: from.value, to: to.value, stiffness_Npm: Number(k.value), rest_length_m: Number(l0.value) }]);
    });
    body.appendChild(el('tr', { class: 'st-add' }, [el('td', {}, [newId]), el('td', {}, [from, to]), el('td', {}, [k]), el('td', {}), el('td', {}, [l0]), el('td', {}, [add])]));
    tables.appendChild(el('table', { class: 'st-table', id: 'cable-table' }, [
      el('thead', {}, [el('tr', {}, ['cable', 'nodes', 'k [N/m]', 'c [N s/m]', 'l0 [m]', ''].map((h) => el('th', { text: h })))]), body]));
    // drive selectors follow the cables
    for (const sel of drivesBody.querySelectorAll('select')) cableOptions(sel, sel.value);
    if (drivesBody.children.length === 0 && cables.length) addDrive();
  }

  async function edit(edits) {
    clearError();
    try {
      const r = await api('POST', '/api/model', { yaml: yamlArea.value, edits });
      yamlArea.value = r.yaml;
      state.model = r.model;
      renderTables();
    } catch (e) {
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
      await edit([]);
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
    edit([]);
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
  modeSel.addEventListener('change', () => {
    fwdBox.hidden = modeSel.value !== 'forward';
    invBox.hidden = modeSel.value !== 'inverse';
  });

  function parsePath(text) {
    const pts = [];
    text.split(/[\n;]+/).forEach((line, i) => {
      const s = line.trim();
      if (!s) return;
      const xy = s.split(/[\s,]+/).map(Number);
      if (xy.length !== 2 || !xy.every(Number.isFinite)) throw new Error(`path line ${i + 1}: expected "x, y", got "${s}"`);
      pts.push(xy);
    });
    if (pts.length < 2) throw new Error('path: give at least 2 points');
    return pts;
  }

  function runRequest() {
    const req = {
      yaml: yamlArea.value,
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
    const token = ++state.runToken;
    let req;
    try {
      req = runRequest();
    } catch (e) {
      report(e);
      setStatus('error');
      return;
    }
    setStatus('starting', 'starting...');
    progress.value = 0;
    summary.textContent = '';
    let job;
    try {
      const r = await api('POST', '/api/run', req);
      job = r.job;
      if (job === undefined || job === null) throw new Error('POST /api/run: no job id in the answer');
    } catch (e) {
      if (token === state.runToken) {
        report(e);
        setStatus('error');
      }
      return;
    }
    state.jobId = String(job);
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
        progress.value = 1;
        if (r.summary) summary.textContent = summaryText(r.summary);
        setStatus('done');
        window.tendyn.runs = (window.tendyn.runs || 0) + 1;
        return;
      }
      if (r.status === 'error') {
        report(new Error(r.error || 'the job failed'));
        setStatus('error');
        return;
      }
      setStatus('running', `running ${Math.round(100 * (r.progress || 0))} %`);
      await sleep(POLL_MS);
    }
  }
  runBtn.addEventListener('click', run);

  function summaryText(s) {
    const parts = [];
    for (const [k, v] of Object.entries(s)) {
      if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') parts.push(`${k}: ${v}`);
      if (parts.length >= 8) break;
    }
    return parts.join(', ');
  }

  // ------------------------------------------------------------ start
  window.tendyn = hooks(viewer, { mode: 'studio', model: () => state.model, jobId: () => state.jobId });
  (async () => {
    try {
      const r = await api('GET', '/api/models');
      state.models = Array.isArray(r.models) ? r.models : [];
      for (const m of state.models) modelSelect.appendChild(el('option', { value: m.name, text: m.name }));
      const pick = state.models.find((m) => m.name === 'prism3') || state.models[0];
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
