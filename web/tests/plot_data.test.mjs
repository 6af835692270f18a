// A long run's packed plot data (docs/VIEWER.md "plot_data"), without a browser: the test packs
// blocks itself as the format says (IEEE bit patterns' first differences per column, bytes
// shuffled, zlib deflate, base64) and checks that the viewer's reader gives the values back bit
// for bit, and that a damaged or unknown packing gives a clear message.
import assert from 'node:assert/strict';
import zlib from 'node:zlib';
import { test } from 'node:test';
import { SceneError, decodePlotData, unpackPlotData } from '../src/scene.js';

/// The packed block of columns (arrays of n values) as float32 (width 4) or float64 (width 8).
function pack(columns, width) {
  const n = columns[0].length;
  const count = n * columns.length;
  const buf = new ArrayBuffer(width * count);
  if (width === 4) new Float32Array(buf).set(columns.flat());
  else new Float64Array(buf).set(columns.flat());
  if (width === 4) {
    const v = new Uint32Array(buf);
    for (let c0 = 0; c0 < count; c0 += n) for (let d = 0; d < 1; d++) for (let i = n - 1; i > 0; i--) v[c0 + i] = (v[c0 + i] - v[c0 + i - 1]) >>> 0;
  } else {
    const v = new BigUint64Array(buf);
    for (let c0 = 0; c0 < count; c0 += n) for (let d = 0; d < 1; d++) for (let i = n - 1; i > 0; i--) v[c0 + i] = BigInt.asUintN(64, v[c0 + i] - v[c0 + i - 1]);
  }
  const bytes = new Uint8Array(buf);
  const shuffled = new Uint8Array(bytes.length);
  for (let i = 0; i < count; i++) for (let b = 0; b < width; b++) shuffled[b * count + i] = bytes[i * width + b];
  return zlib.deflateSync(shuffled).toString('base64');
}

const n = 500;
const t = Array.from({ length: n }, (_, i) => 0.01 * i);
const tension = [t.map((x) => 100 + 5 * Math.sin(x)), t.map((x) => (x > 2 && x < 3 ? 0 : 40 + x * x))];
tension[1][123] = 1e6; // a one-row spike
const com = [t.map((x) => x / 3), t.map(() => 0), t.map((x) => 0.5 - 1e-3 * Math.cos(7 * x))];

function packed() {
  return {
    packing: 'delta1+shuffle+deflate', bucket: 1, samples: n, samples_in_run: n,
    t_s: pack([t], 8), cable_tension_N: pack(tension, 4), com_m: pack(com, 4),
    energy_J: { total: pack([t.map((x) => -3 + x)], 4) },
    plots: [null, { series: [pack([t.map((x) => Math.exp(-x))], 4)] }],
  };
}

test('packed plot_data: every value back, float64 times and float32 values bit for bit', async () => {
  const plots = [{ title: 'a', series: [] }, { title: 'b', series: [{ name: 'e', values: [] }] }];
  const pd = decodePlotData(await unpackPlotData(packed()), 2, plots);
  assert.equal(pd.bucket, 1);
  assert.deepEqual(pd.t_s, t);
  tension.forEach((col, c) => col.forEach((v, i) => assert.equal(pd.cable_tension_N[c][i], Math.fround(v), `cable ${c} row ${i}`)));
  com.forEach((col, c) => col.forEach((v, i) => assert.equal(pd.com_m[c][i], Math.fround(v))));
  assert.equal(pd.cable_tension_N[1][123], 1e6);
  assert.equal(pd.energy_J.total[n - 1], Math.fround(-3 + t[n - 1]));
  assert.equal(pd.plots[0], null);
  assert.equal(pd.plots[1].series[0][250], Math.fround(Math.exp(-t[250])));
});

test('packed plot_data: a damaged block, an unknown packing, a packed block read without inflating: clear messages', async () => {
  const bad = packed();
  bad.cable_tension_N = bad.cable_tension_N.slice(0, 40);
  await assert.rejects(async () => decodePlotData(await unpackPlotData(bad), 2, []), (e) => e instanceof SceneError && /cable_tension_N must hold 1000 float32 values/.test(e.message));
  const unknown = { ...packed(), packing: 'lz4' };
  await assert.rejects(unpackPlotData(unknown), (e) => e instanceof SceneError && /packing "lz4" is not known/.test(e.message));
  assert.throws(() => decodePlotData(packed(), 2, []), /is packed: unpackPlotData first/);
});
