// Viewer test of point clouds (scene "clouds", docs/VIEWER.md): a CDPR workspace page from
// `tendyn cdpr workspace --html --cloud-outside` (a synthetic cloud when $TENDYN_CLI lacks it):
// the cloud's point counts match grid.csv and boundary.csv, each inside point's colour is the
// viridis colour of its capacity margin over the cloud's range, the legend names the range.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { viridis } from '../src/colormap.js';
import * as synth from './fixtures/synth.mjs';
import { CLI, SOURCE_DIR, htmlFromScene, launch, newPage, tempDir, waitReady } from './helpers.mjs';

let browser = null;
let dir = null;

before(async () => {
  dir = tempDir('cloud');
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
});

function cliHasWorkspaceHtml() {
  if (!CLI || !fs.existsSync(CLI)) return false;
  try {
    return /--cloud-outside\b/.test(execFileSync(CLI, ['cdpr', 'workspace', '--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 }));
  } catch {
    return false;
  }
}

function readCsv(p) {
  const [head, ...rows] = fs.readFileSync(p, 'utf8').trim().split('\n');
  const keys = head.split(',');
  return rows.map((r) => Object.fromEntries(r.split(',').map((v, i) => [keys[i], v])));
}

/// {html, inside, outside, boundary, margins (inside points, grid order)}
function workspacePage() {
  if (cliHasWorkspaceHtml()) {
    const out = path.join(dir, 'ws');
    execFileSync(CLI, ['cdpr', 'workspace', path.join(SOURCE_DIR, 'models', 'cdpr', 'planar4.yaml'), '--grid', '-1:1:24,-1:1:24', '--html', '--cloud-outside', '-q', '-o', out], { cwd: SOURCE_DIR, stdio: ['ignore', 'ignore', 'pipe'], timeout: 120000 });
    const grid = readCsv(path.join(out, 'grid.csv'));
    const inside = grid.filter((r) => r.status === 'inside');
    return { html: path.join(out, 'view.html'), inside: inside.length, outside: grid.length - inside.length, boundary: readCsv(path.join(out, 'boundary.csv')).length, margins: inside.map((r) => Number(r.capacity_margin_N)), source: 'cli' };
  }
  // synthetic: a 12 x 12 grid at z = 0.8, inside a disc, margin = distance to the disc's edge
  const s = synth.cdpr({ nframes: 3 });
  const pts = [], values = [], highlight = [];
  for (let j = 0; j < 12; j++) for (let i = 0; i < 12; i++) {
    const x = -0.9 + (1.8 * i) / 11, y = -0.9 + (1.8 * j) / 11, r = Math.hypot(x, y);
    pts.push([x, y, 0.8]);
    values.push(r < 0.8 ? 0.8 - r : null);
    if (r < 0.8 && r > 0.62) highlight.push(pts.length - 1);
  }
  s.clouds = [{ name: 'workspace', value_label: 'capacity margin [N]', points_m: pts, values, highlight }];
  const margins = values.filter((v) => v !== null);
  return { html: htmlFromScene(s, path.join(dir, 'synthetic.html')), inside: margins.length, outside: values.length - margins.length, boundary: highlight.length, margins, source: 'synthetic' };
}

test('workspace point cloud: counts from grid.csv, colours follow the capacity margin, legend, layer toggle', { timeout: 120000 }, async (t) => {
  if (!browser) {
    t.skip('no Chromium at /usr/bin/chromium (set TENDYN_CHROMIUM)');
    return;
  }
  const w = workspacePage();
  assert.ok(w.inside > 10 && w.outside > 0 && w.boundary > 0, `degenerate workspace: ${JSON.stringify({ ...w, margins: w.margins.length })}`);
  const errors = [];
  const page = await newPage(browser, errors);
  try {
    await page.goto(`file://${w.html}`);
    await waitReady(page);
    const [c] = await page.evaluate(() => window.tendyn.clouds());
    assert.equal(c.points, w.inside + w.outside, `source ${w.source}`);
    assert.equal(c.valued, w.inside);
    assert.equal(c.faint, w.outside);
    assert.equal(c.highlighted, w.boundary);
    assert.equal(c.colors.length, w.inside);
    // values in grid order, as written (7 significant digits)
    c.colors.forEach(([v], k) => assert.ok(Math.abs(v - w.margins[k]) <= 1e-6 * Math.max(1, Math.abs(w.margins[k])), `point ${k}: value ${v}, grid.csv ${w.margins[k]}`));
    const min = Math.min(...w.margins), max = Math.max(...w.margins);
    assert.ok(max > min, 'the margin does not vary over the workspace');
    assert.ok(Math.abs(c.min - min) <= 1e-6 * Math.max(1, Math.abs(min)) && Math.abs(c.max - max) <= 1e-6 * Math.max(1, Math.abs(max)));
    // each colour is viridis((v - min) / (max - min)), within rounding
    const rgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
    let lo = null, hi = null;
    for (const [v, hex] of c.colors) {
      const e = { setRGB(r, g, b) { this.v = [r, g, b].map((x) => Math.round(255 * x)); return this; } };
      viridis((v - c.min) / (c.max - c.min), e);
      const got = rgb(hex);
      assert.ok(got.every((x, k) => Math.abs(x - e.v[k]) <= 2), `margin ${v}: colour ${hex}, expected rgb(${e.v})`);
      if (v === c.min) lo = hex;
      if (v === c.max) hi = hex;
    }
    assert.equal(lo, '#440154'); // the smallest margin: dark violet
    assert.equal(hi, '#fde725'); // the largest: yellow
    // the legend: the value's name and range, the boundary and the points without a value
    assert.equal(await page.textContent('#cloud-colorbar-label'), 'workspace: capacity margin [N]');
    assert.ok((await page.textContent('#cloud-colorbar-max')).length > 0);
    assert.match(await page.textContent('#cloud-key-highlight'), new RegExp(`boundary \\(${w.boundary}\\)`));
    assert.match(await page.textContent('#cloud-key-none'), new RegExp(`no value \\(${w.outside}\\)`));
    // the layer toggle hides the cloud
    await page.uncheck('#layer-cloud');
    assert.equal((await page.evaluate(() => window.tendyn.clouds()))[0].visible, false);
    assert.deepEqual(errors, []);
  } finally {
    await page.close();
  }
});
