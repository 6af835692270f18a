// Validation and normalisation of a tendyn scene (docs/VIEWER.md, format "tendyn-scene" v1).
// Everything the viewer reads goes through here, so a malformed file gives one clear message.

export class SceneError extends Error {}

function fail(msg) {
  throw new SceneError(msg);
}

function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

function checkIndex(v, npoints, where) {
  if (!Number.isInteger(v) || v < 0 || v >= npoints) fail(`${where}: point index ${JSON.stringify(v)} out of range 0..${npoints - 1}`);
}

/// Checks the static part of a scene (everything but "frames"); returns a normalised copy.
export function normalizeSceneMeta(s) {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) fail('scene is not a JSON object');
  if (s.format !== undefined && s.format !== 'tendyn-scene') fail(`unknown scene format ${JSON.stringify(s.format)} (expected "tendyn-scene")`);
  if (s.version !== undefined && s.version !== 1) fail(`unsupported scene version ${JSON.stringify(s.version)} (this viewer reads version 1)`);
  if (!Array.isArray(s.points)) fail('scene.points must be an array of point names');
  const npoints = s.points.length;
  const rods = s.rods === undefined || s.rods === null ? [] : s.rods;
  const cables = s.cables === undefined || s.cables === null ? [] : s.cables;
  const faces = s.faces === undefined || s.faces === null ? [] : s.faces;
  if (!Array.isArray(rods)) fail('scene.rods must be an array');
  if (!Array.isArray(cables)) fail('scene.cables must be an array');
  if (!Array.isArray(faces)) fail('scene.faces must be an array');
  const outRods = rods.map((r, i) => {
    const where = `rods[${i}]`;
    if (!r || typeof r !== 'object') fail(`${where} is not an object`);
    checkIndex(r.a, npoints, where + '.a');
    checkIndex(r.b, npoints, where + '.b');
    const radius = r.radius_m === undefined || r.radius_m === null ? 0 : r.radius_m;
    if (!isNum(radius) || radius < 0) fail(`${where}.radius_m must be a non-negative number`);
    const shape = r.shape === undefined ? 'cylinder' : r.shape;
    if (shape !== 'cylinder' && shape !== 'capsule') fail(`${where}.shape must be "cylinder" or "capsule"`);
    return { name: String(r.name ?? `rod${i}`), a: r.a, b: r.b, radius, shape };
  });
  const outCables = cables.map((c, i) => {
    const where = `cables[${i}]`;
    if (!c || typeof c !== 'object') fail(`${where} is not an object`);
    checkIndex(c.a, npoints, where + '.a');
    checkIndex(c.b, npoints, where + '.b');
    return { name: String(c.name ?? `cable${i}`), a: c.a, b: c.b };
  });
  const outFaces = faces.map((f, i) => {
    if (!Array.isArray(f) || f.length < 3) fail(`faces[${i}] must list at least 3 point indices`);
    f.forEach((p, k) => checkIndex(p, npoints, `faces[${i}][${k}]`));
    return f.slice();
  });
  let ground = s.ground_z_m;
  if (ground === undefined) ground = null;
  if (ground !== null && !isNum(ground)) fail('scene.ground_z_m must be a number or null');
  const plots = s.plots === undefined || s.plots === null ? [] : s.plots;
  if (!Array.isArray(plots)) fail('scene.plots must be an array');
  plots.forEach((p, i) => {
    if (!p || typeof p !== 'object' || !Array.isArray(p.series)) fail(`plots[${i}].series must be an array`);
    // a plot may have its own time base (t_s); then every series has one value per time
    if (p.t_s !== undefined && p.t_s !== null) {
      if (!Array.isArray(p.t_s) || !p.t_s.every(isNum)) fail(`plots[${i}].t_s must be an array of numbers`);
    }
    p.series.forEach((se, k) => {
      if (!se || !Array.isArray(se.values)) fail(`plots[${i}].series[${k}].values must be an array`);
      if (Array.isArray(p.t_s) && se.values.length !== p.t_s.length)
        fail(`plots[${i}].series[${k}] has ${se.values.length} values for ${p.t_s.length} times`);
    });
  });
  const paths = s.paths === undefined || s.paths === null ? [] : s.paths;
  if (!Array.isArray(paths)) fail('scene.paths must be an array');
  const outPaths = paths.map((p, i) => {
    const where = `paths[${i}]`;
    if (!p || typeof p !== 'object' || !Array.isArray(p.points_m)) fail(`${where}.points_m must be an array of [x, y, z]`);
    p.points_m.forEach((q, k) => {
      if (!Array.isArray(q) || q.length !== 3 || !q.every(isNum)) fail(`${where}.points_m[${k}] must be [x, y, z]`);
    });
    return { name: String(p.name ?? `path${i}`), points: p.points_m, per_frame: p.per_frame === true };
  });
  // point clouds (a CDPR workspace): static points, one value or null each, highlighted indices
  const clouds = s.clouds === undefined || s.clouds === null ? [] : s.clouds;
  if (!Array.isArray(clouds)) fail('scene.clouds must be an array');
  const outClouds = clouds.map((c, i) => {
    const where = `clouds[${i}]`;
    if (!c || typeof c !== 'object' || !Array.isArray(c.points_m)) fail(`${where}.points_m must be an array of [x, y, z]`);
    const n = c.points_m.length;
    c.points_m.forEach((q, k) => {
      if (!Array.isArray(q) || q.length !== 3 || !q.every(isNum)) fail(`${where}.points_m[${k}] must be [x, y, z]`);
    });
    if (!Array.isArray(c.values) || c.values.length !== n) fail(`${where}.values must have one number (or null) per point (${n})`);
    c.values.forEach((v, k) => {
      if (v !== null && !isNum(v)) fail(`${where}.values[${k}] must be a number or null`);
    });
    const hl = c.highlight === undefined || c.highlight === null ? [] : c.highlight;
    if (!Array.isArray(hl)) fail(`${where}.highlight must be an array of point indices`);
    hl.forEach((h, k) => {
      if (!Number.isInteger(h) || h < 0 || h >= n) fail(`${where}.highlight[${k}]: point index ${JSON.stringify(h)} out of range 0..${n - 1}`);
    });
    return { name: String(c.name ?? `cloud${i}`), value_label: String(c.value_label ?? 'value'), points: c.points_m, values: c.values, highlight: hl };
  });
  const joints = s.joints === undefined || s.joints === null ? [] : s.joints;
  if (!Array.isArray(joints)) fail('scene.joints must be an array');
  const outJoints = joints.map((j, i) => {
    const where = `joints[${i}]`;
    if (!j || typeof j !== 'object') fail(`${where} is not an object`);
    checkIndex(j.point, npoints, where + '.point');
    const idx = (v, k) => {
      if (v === undefined || v === null) return -1;
      if (!Number.isInteger(v) || v < -1) fail(`${where}.${k} must be an integer >= -1`);
      return v;
    };
    return { name: String(j.name ?? `joint${i}`), type: String(j.type ?? 'revolute'), point: j.point, q_index: idx(j.q_index, 'q_index'), v_index: idx(j.v_index, 'v_index') };
  });
  // end-cap sphere radius of each point [m] (null: plain points)
  let pointRadius = null;
  if (s.point_radius_m !== undefined && s.point_radius_m !== null) {
    if (!Array.isArray(s.point_radius_m) || s.point_radius_m.length !== npoints || !s.point_radius_m.every((r) => isNum(r) && r >= 0))
      fail('scene.point_radius_m must be an array of one non-negative radius per point');
    pointRadius = s.point_radius_m;
  }
  // a page of a long run keeps every stride-th frame (tendyn --max-page-mb)
  let thinned = null;
  if (s.thinned !== undefined && s.thinned !== null) {
    const t = s.thinned;
    if (!t || typeof t !== 'object' || !Number.isInteger(t.stride) || t.stride < 1 || !Number.isInteger(t.frames_in_run) || t.frames_in_run < 0)
      fail('scene.thinned must be {"stride": integer >= 1, "frames_in_run": integer >= 0}');
    thinned = { stride: t.stride, frames_in_run: t.frames_in_run };
  }
  return {
    thinned,
    plotData: s.plot_data === undefined || s.plot_data === null ? null : decodePlotData(s.plot_data, outCables.length, plots),
    title: typeof s.title === 'string' && s.title ? s.title : 'scene',
    point_radius_m: pointRadius,
    kind: typeof s.kind === 'string' ? s.kind : 'tensegrity',
    ground_z_m: ground,
    // signed cable forces (a model under cable_force_sign: paper_law): negative values allowed
    cable_force_signed: s.cable_force_signed === true,
    points: s.points.map(String),
    rods: outRods,
    cables: outCables,
    faces: outFaces,
    paths: outPaths,
    clouds: outClouds,
    joints: outJoints,
    plots: plots.map((p) => ({
      title: String(p.title ?? ''),
      y_label: String(p.y_label ?? ''),
      id: typeof p.id === 'string' ? p.id : '',
      t_s: Array.isArray(p.t_s) ? p.t_s : null,
      series: p.series.map((se, k) => ({ name: String(se.name ?? `series ${k}`), values: se.values })),
    })),
  };
}

/// The bytes of base64 text as an ArrayBuffer (null when it is not base64).
function base64Bytes(text) {
  if (typeof text !== 'string') return null;
  let bin;
  try {
    bin = atob(text);
  } catch {
    return null;
  }
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return bytes.buffer;
}

/// Plain numbers of a typed array, NaN as null (uPlot's gap).
function plainValues(a) {
  const out = new Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = Number.isNaN(a[i]) ? null : a[i];
  return out;
}

/// The packing of a page's plot_data blocks (docs/VIEWER.md "plot_data"): per column the IEEE bit
/// patterns' differences of order d, the block's bytes shuffled, zlib deflate, base64.
const PLOT_PACKING = /^delta([0-3])\+shuffle\+deflate$/;

async function inflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/// One packed block of plot_data: base64 text -> the raw little-endian values (ArrayBuffer) of
/// `width`-byte values in columns of n, or null when the text is not a block.
async function unpackBlock(text, width, n, order) {
  const packed = base64Bytes(text);
  if (!packed) return null;
  let bytes;
  try {
    bytes = await inflate(packed);
  } catch {
    return null;  // not zlib data
  }
  if (bytes.length % (width * Math.max(n, 1)) !== 0) return null;
  const count = bytes.length / width;
  const out = new Uint8Array(bytes.length);
  for (let b = 0; b < width; b++) {
    const plane = bytes.subarray(b * count, (b + 1) * count);
    for (let i = 0; i < count; i++) out[i * width + b] = plane[i];
  }
  if (width === 4) {
    const v = new Uint32Array(out.buffer);
    for (let c0 = 0; c0 < count; c0 += n) for (let d = 0; d < order; d++) for (let i = 1; i < n; i++) v[c0 + i] = (v[c0 + i] + v[c0 + i - 1]) >>> 0;
  } else {
    const v = new BigUint64Array(out.buffer);
    for (let c0 = 0; c0 < count; c0 += n) for (let d = 0; d < order; d++) for (let i = 1; i < n; i++) v[c0 + i] = BigInt.asUintN(64, v[c0 + i] + v[c0 + i - 1]);
  }
  return out.buffer;
}

/// A page's plot_data with its packed blocks inflated (asynchronous: DecompressionStream), ready
/// for decodePlotData; returned as is when it is not packed. A block that is not valid is left as
/// its text (decodePlotData then says which).
export async function unpackPlotData(pd) {
  if (!pd || typeof pd !== 'object' || pd.packing === undefined) return pd;
  const m = typeof pd.packing === 'string' ? PLOT_PACKING.exec(pd.packing) : null;
  if (!m) fail(`scene.plot_data.packing "${pd.packing}" is not known (this viewer reads "delta<d>+shuffle+deflate")`);
  if (typeof DecompressionStream !== 'function') fail('scene.plot_data is deflated and this browser has no DecompressionStream to inflate it');
  const order = Number(m[1]);
  const n = pd.samples;
  const one = async (text, width, count) => (await unpackBlock(text, width, count, order)) || text;
  const out = { ...pd, packing: undefined };
  out.t_s = await one(pd.t_s, 8, n);
  for (const key of ['cable_tension_N', 'cable_strain', 'com_m']) if (pd[key] !== undefined) out[key] = await one(pd[key], 4, n);
  if (pd.energy_J && typeof pd.energy_J === 'object') {
    out.energy_J = {};
    for (const [k, v] of Object.entries(pd.energy_J)) out.energy_J[k] = await one(v, 4, n);
  }
  if (Array.isArray(pd.plots)) {
    out.plots = [];
    for (const p of pd.plots) {
      if (!p || typeof p !== 'object') { out.plots.push(p); continue; }
      const own = p.t_s !== undefined;
      const pm = own ? p.samples : n;
      const q = { ...p };
      if (own) q.t_s = await one(p.t_s, 8, pm);
      if (Array.isArray(p.series)) {
        q.series = [];
        for (const se of p.series) q.series.push(se === null ? null : await one(se, 4, pm));
      }
      out.plots.push(q);
    }
  }
  return out;
}

/// A long run's plotted series, "plot_data" of a page (docs/VIEWER.md "Long runs"): every sample
/// (bucket 1) or the minimum and maximum of every `bucket` rows; float64 times and float32 values,
/// series after series, as base64 text or (after unpackPlotData) the raw bytes.
/// Returns {bucket, samples, samples_in_run, t_s, cable_tension_N: [per cable], cable_strain,
/// com_m: [x, y, z], energy_J: {key: values}, plots: [null | {t_s, series: [values | null]}]}.
export function decodePlotData(pd, ncable, plots) {
  const bad = (what) => fail(`scene.plot_data: ${what}`);
  if (!pd || typeof pd !== 'object') bad('must be an object');
  const n = pd.samples;
  if (!Number.isInteger(n) || n < 1) bad('samples must be an integer >= 1');
  if (pd.packing !== undefined) bad('is packed: unpackPlotData first');
  if (!Number.isInteger(pd.bucket) || pd.bucket < 1 || !Number.isInteger(pd.samples_in_run)) bad('bucket and samples_in_run must be integers >= 1');
  const bytesOf = (v) => (v instanceof ArrayBuffer ? v : base64Bytes(v));
  const f64 = (text, count, what) => {
    const b = bytesOf(text);
    if (!b || b.byteLength !== 8 * count) bad(`${what} must hold ${count} float64 values in base64`);
    return Array.from(new Float64Array(b));
  };
  const f32 = (text, count, what) => {
    const b = bytesOf(text);
    if (!b || b.byteLength !== 4 * count) bad(`${what} must hold ${count} float32 values in base64`);
    return new Float32Array(b);
  };
  const columns = (text, width, what) => {
    const a = f32(text, n * width, what);
    const out = [];
    for (let c = 0; c < width; c++) out.push(plainValues(a.subarray(c * n, (c + 1) * n)));
    return out;
  };
  const out = { bucket: pd.bucket, samples: n, samples_in_run: pd.samples_in_run, t_s: f64(pd.t_s, n, 't_s'), cable_tension_N: null, cable_strain: null, com_m: null, energy_J: {}, plots: [] };
  for (const key of ['cable_tension_N', 'cable_strain']) if (pd[key] !== undefined) out[key] = columns(pd[key], ncable, key);
  if (pd.com_m !== undefined) out.com_m = columns(pd.com_m, 3, 'com_m');
  if (pd.energy_J && typeof pd.energy_J === 'object') for (const [k, v] of Object.entries(pd.energy_J)) out.energy_J[k] = plainValues(f32(v, n, `energy_J.${k}`));
  if (Array.isArray(pd.plots)) {
    pd.plots.forEach((p, i) => {
      if (!p || !plots[i]) { out.plots.push(null); return; }
      const own = p.t_s !== undefined;
      const m = own ? p.samples : n;
      if (!Number.isInteger(m) || m < 1) bad(`plots[${i}].samples must be an integer >= 1`);
      out.plots.push({
        t_s: own ? f64(p.t_s, m, `plots[${i}].t_s`) : null,
        series: (p.series || []).map((se, k) => (se === null ? null : plainValues(f32(se, m, `plots[${i}].series[${k}]`)))),
      });
    });
  }
  return out;
}

function emptyFrames() {
  return {
    t_s: [], positions_m: [], cable_tension_N: [], cable_strain: [], com_m: null,
    energy_J: null, joint_axes_W: null, contact_force_N: null,
  };
}

/// Checks a block of frames against the scene's sizes; returns the number of frames.
export function checkFrames(meta, f, where = 'frames') {
  if (!f || typeof f !== 'object') fail(`${where} is missing or not an object`);
  if (!Array.isArray(f.t_s)) fail(`${where}.t_s must be an array`);
  const n = f.t_s.length;
  const npos = 3 * meta.points.length;
  const nc = meta.cables.length;
  if (!Array.isArray(f.positions_m) || f.positions_m.length !== n) fail(`${where}.positions_m must have one entry per frame (${n})`);
  for (let i = 0; i < n; i++) {
    if (!isNum(f.t_s[i])) fail(`${where}.t_s[${i}] is not a number`);
    const p = f.positions_m[i];
    if (!Array.isArray(p) || p.length !== npos) fail(`${where}.positions_m[${i}] must have 3 x ${meta.points.length} = ${npos} numbers`);
  }
  for (const key of ['cable_tension_N', 'cable_strain']) {
    const a = f[key];
    if (a === undefined || a === null) {
      if (nc > 0) fail(`${where}.${key} is missing`);
      continue;
    }
    if (!Array.isArray(a) || a.length !== n) fail(`${where}.${key} must have one entry per frame (${n})`);
    for (let i = 0; i < n; i++) if (!Array.isArray(a[i]) || a[i].length !== nc) fail(`${where}.${key}[${i}] must have ${nc} numbers (one per cable)`);
  }
  if (f.com_m !== undefined && f.com_m !== null) {
    if (!Array.isArray(f.com_m) || f.com_m.length !== n) fail(`${where}.com_m must have one entry per frame (${n})`);
    for (let i = 0; i < n; i++) if (!Array.isArray(f.com_m[i]) || f.com_m[i].length !== 3) fail(`${where}.com_m[${i}] must be [x, y, z]`);
  }
  if (f.joint_axes_W !== undefined && f.joint_axes_W !== null) {
    const na = 3 * meta.joints.length;
    if (!Array.isArray(f.joint_axes_W) || f.joint_axes_W.length !== n) fail(`${where}.joint_axes_W must have one entry per frame (${n})`);
    for (let i = 0; i < n; i++) if (!Array.isArray(f.joint_axes_W[i]) || f.joint_axes_W[i].length !== na) fail(`${where}.joint_axes_W[${i}] must have 3 x ${meta.joints.length} numbers`);
  }
  if (f.contact_force_N !== undefined && f.contact_force_N !== null) {
    // ground contact force on each point [N] (3 per point; 0 where it does not touch)
    if (!Array.isArray(f.contact_force_N) || f.contact_force_N.length !== n) fail(`${where}.contact_force_N must have one entry per frame (${n})`);
    for (let i = 0; i < n; i++) if (!Array.isArray(f.contact_force_N[i]) || f.contact_force_N[i].length !== npos) fail(`${where}.contact_force_N[${i}] must have 3 x ${meta.points.length} = ${npos} numbers`);
  }
  if (f.energy_J !== undefined && f.energy_J !== null) {
    if (typeof f.energy_J !== 'object') fail(`${where}.energy_J must be an object`);
    for (const k of ['kinetic', 'elastic', 'gravitational', 'total']) {
      const a = f.energy_J[k];
      if (a !== undefined && a !== null && (!Array.isArray(a) || a.length !== n)) fail(`${where}.energy_J.${k} must have one entry per frame (${n})`);
    }
  }
  return n;
}

/// Growing per-frame store (the viewer's data; the studio appends streamed blocks).
export class FrameStore {
  constructor(meta) {
    this.meta = meta;
    this.f = emptyFrames();
    this.n = 0;
    this.hasCom = false;
    this.hasEnergy = false;
    this.hasAxes = false;
    this.hasContact = false;
    this.energyKeys = [];
  }

  append(block, where = 'frames') {
    const n = checkFrames(this.meta, block, where);
    if (n === 0) return 0;
    const f = this.f;
    const nc = this.meta.cables.length;
    const zeros = () => new Array(nc).fill(0);
    const wasEmpty = this.n === 0;
    if (wasEmpty) {
      this.hasCom = Array.isArray(block.com_m);
      this.hasEnergy = !!block.energy_J && typeof block.energy_J === 'object';
      if (this.hasCom) f.com_m = [];
      this.hasAxes = Array.isArray(block.joint_axes_W) && this.meta.joints.length > 0;
      if (this.hasAxes) f.joint_axes_W = [];
      this.hasContact = Array.isArray(block.contact_force_N);
      if (this.hasContact) f.contact_force_N = [];
      if (this.hasEnergy) {
        f.energy_J = {};
        this.energyKeys = ['kinetic', 'elastic', 'gravitational', 'total'].filter((k) => Array.isArray(block.energy_J[k]));
        for (const k of this.energyKeys) f.energy_J[k] = [];
      }
    }
    for (let i = 0; i < n; i++) {
      f.t_s.push(block.t_s[i]);
      f.positions_m.push(block.positions_m[i]);
      f.cable_tension_N.push(block.cable_tension_N ? block.cable_tension_N[i] : zeros());
      f.cable_strain.push(block.cable_strain ? block.cable_strain[i] : zeros());
      if (this.hasCom) f.com_m.push(Array.isArray(block.com_m) ? block.com_m[i] : [NaN, NaN, NaN]);
      if (this.hasContact) f.contact_force_N.push(Array.isArray(block.contact_force_N) ? block.contact_force_N[i] : null);
      if (this.hasAxes) f.joint_axes_W.push(Array.isArray(block.joint_axes_W) ? block.joint_axes_W[i] : null);
      if (this.hasEnergy) for (const k of this.energyKeys) f.energy_J[k].push(block.energy_J && block.energy_J[k] ? block.energy_J[k][i] : NaN);
    }
    this.n += n;
    return n;
  }
}

/// One frame -> a block of one frame (the "frames" layout): {t_s: t, positions_m: [x0, y0, z0, ...],
/// cable_tension_N: [...], cable_strain: [...], com_m: [x, y, z], energy_J: {kinetic: e, ...},
/// joint_axes_W: [...]} (everything but t_s and positions_m optional).
export function blockOfFrame(frame) {
  if (!frame || typeof frame !== 'object') fail('frame is missing or not an object');
  const one = (v) => (v === undefined || v === null ? undefined : [v]);
  const b = { t_s: [frame.t_s], positions_m: [frame.positions_m] };
  for (const k of ['cable_tension_N', 'cable_strain', 'com_m', 'joint_axes_W', 'contact_force_N']) {
    if (frame[k] !== undefined && frame[k] !== null) b[k] = one(frame[k]);
  }
  if (frame.energy_J && typeof frame.energy_J === 'object') {
    b.energy_J = {};
    for (const [k, v] of Object.entries(frame.energy_J)) b.energy_J[k] = [v];
  }
  return b;
}
