// Viewer tests of the debugging tools: readable plot axes and legends, floor lines, force arrows
// (cable forces, contact forces, a CDPR platform's cable wrench, joint torques) with their scale
// and legend, layer toggles, readouts that follow a seek, distance and angle between points, a
// point's trail. Synthetic scenes (tests/fixtures/synth.mjs) unless said otherwise.
// Screenshots go to the test's temp directory, and also to $TENDYN_SCREENSHOT_DIR when set
// (docs/img/viewer: the pictures of docs/VIEWER.md).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as synth from './fixtures/synth.mjs';
import { execFileSync } from 'node:child_process';
import { CLI, SOURCE_DIR, cliCaps, htmlFromScene, launch, skipWithoutBrowser, newPage, tempDir, waitReady } from './helpers.mjs';

let browser = null;
let dir = null;

before(async () => {
  dir = tempDir('inspect');
  browser = await launch();
});

after(async () => {
  if (browser) await browser.close();
});

const skipNoBrowser = (t) => skipWithoutBrowser(t, browser);

async function openScene(scene, name, errors) {
  const page = await newPage(browser, errors);
  await page.goto(`file://${htmlFromScene(scene, path.join(dir, `${name}.html`))}`);
  await waitReady(page);
  return page;
}

async function shot(page, name, whole = false) {
  const target = whole ? page : page.locator('.tv-3d canvas');
  await page.waitForTimeout(150);
  await target.screenshot({ path: path.join(dir, name) });
  const docs = process.env.TENDYN_SCREENSHOT_DIR;
  if (docs) {
    fs.mkdirSync(docs, { recursive: true });
    fs.copyFileSync(path.join(dir, name), path.join(docs, name));
  }
}

const near = (a, b, tol) => Math.abs(a - b) <= tol;

describe('readability', () => {
  test('a tiny range far from 0 gets distinct ticks in offset notation; an all-zero series a small symmetric axis; no 1e-14 noise in legends', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.prism3({ nframes: 50 });
    const n = s.frames.t_s.length;
    s.plots = [
      { title: 'tiny', y_label: 'm', series: [{ name: 'x', values: s.frames.t_s.map((_, i) => 0.311 + 3e-7 * Math.sin(i / 5)) }] },
      { title: 'zero', y_label: 'N', series: [{ name: 'z', values: new Array(n).fill(0) }] },
      { title: 'noisy', y_label: 'J', series: [{ name: 'e', values: s.frames.t_s.map((_, i) => (i === 10 ? 1.3e-14 : 0.5 + 0.01 * i)) }] },
    ];
    const errors = [];
    const page = await openScene(s, 'ticks', errors);
    try {
      await page.evaluate(() => window.tendyn.seek(10));
      const plots = await page.evaluate(() => window.tendyn.plotData());
      const tiny = plots.find((p) => p.title === 'tiny');
      const ticks = tiny.ticks.filter((x) => x !== '');
      assert.ok(ticks.length >= 2, `ticks ${ticks}`);
      assert.equal(new Set(ticks).size, ticks.length, `repeated tick labels: ${ticks}`);
      assert.match(tiny.offset, /^0\.311 \+ 1e-\d+ x$/);
      // the offset and the labels give back values inside the axis range
      const m = /^([0-9.]+) \+ 1e(-\d+) x$/.exec(tiny.offset);
      for (const lab of ticks) {
        const v = Number(m[1]) + Number(lab) * 10 ** Number(m[2]);
        assert.ok(v >= tiny.yRange[0] - 1e-12 && v <= tiny.yRange[1] + 1e-12, `tick ${lab} -> ${v} outside ${tiny.yRange}`);
      }
      assert.equal(await page.locator('.tv-axis-offset:visible').count(), 1);
      const zero = plots.find((p) => p.title === 'zero');
      assert.deepEqual(zero.yRange, [-1, 1]);
      assert.ok(zero.ticks.includes('0'), `zero ticks ${zero.ticks}`);
      const noisy = plots.find((p) => p.title === 'noisy');
      assert.equal(noisy.legend.e, '0');
      await page.evaluate(() => window.tendyn.seek(11));
      assert.equal((await page.evaluate(() => window.tendyn.plotData())).find((p) => p.title === 'noisy').legend.e, '0.61');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a taut cable lying on the floor is drawn whole over the floor and grid (not dashed)', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.prism3({ nframes: 5 });
    s.ground_z_m = -0.2;
    // bottom1 (b1 - b2) lies on the floor, taut and at the largest tension (viridis yellow)
    const c = s.cables.findIndex((x) => x.name === 'bottom1');
    for (let k = 0; k < 5; k++) {
      const p = s.frames.positions_m[k];
      p[3 * 3 + 2] = -0.2;
      p[3 * 4 + 2] = -0.2;
      s.frames.cable_tension_N[k] = s.frames.cable_tension_N[k].map((v, i) => (i === c ? 50 : Math.min(v, 1)));
    }
    const errors = [];
    const page = await openScene(s, 'floor', errors);
    try {
      await page.evaluate(() => { for (const l of ['rods', 'points', 'paths']) window.tendyn.setLayer(l, false); });
      await page.waitForTimeout(200);
      const p = s.frames.positions_m[0];
      const a = await page.evaluate((q) => window.tendyn.project(...q), p.slice(9, 12));
      const b = await page.evaluate((q) => window.tendyn.project(...q), p.slice(12, 15));
      const png = await page.locator('.tv-3d canvas').screenshot({ path: path.join(dir, 'floor.png') });
      // along the cable (10 % to 90 %): a pixel of the cable's colour (saturated yellow) within 1 px
      const frac = await page.evaluate(async ({ b64, a, b }) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        const cv = document.createElement('canvas');
        cv.width = img.width; cv.height = img.height;
        const g = cv.getContext('2d');
        g.drawImage(img, 0, 0);
        const sx = img.width / document.querySelector('.tv-3d canvas').clientWidth;
        let hit = 0, n = 0;
        for (let i = 10; i <= 90; i++) {
          const x = (a.x + ((b.x - a.x) * i) / 100) * sx, y = (a.y + ((b.y - a.y) * i) / 100) * sx;
          const d = g.getImageData(Math.round(x) - 1, Math.round(y) - 1, 3, 3).data;
          let ok = false;
          for (let j = 0; j < d.length; j += 4) if (d[j] > 170 && d[j + 1] > 160 && d[j] - d[j + 2] > 70) ok = true; // yellow, also where the canvas is scaled up
          n++;
          if (ok) hit++;
        }
        return hit / n;
      }, { b64: png.toString('base64'), a, b });
      assert.ok(frac >= 0.97, `only ${(100 * frac).toFixed(0)} % of the floor cable drawn in its colour`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test("a plan's target path is clipped to the region of interest and is in the default view", { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.plan();
    s.paths[0].points_m = [[0, 0, -0.2], [0.3, 0, -0.2], [50, 0, -0.2], [50, 40, -0.2]]; // far beyond the motion
    const errors = [];
    const page = await openScene(s, 'plan-clip', errors);
    try {
      const r = await page.evaluate(() => {
        const v = window.tendyn._viewer;
        const o = v.pathObjs.find((q) => q.path.name === 'target path');
        const a = o.line.geometry.getAttribute('position');
        return { roi: v.regionOfInterest(), clipped: o.line.userData.clipped, pts: Array.from({ length: o.line.geometry.drawRange.count }, (_, i) => [a.getX(i), a.getY(i), a.getZ(i)]) };
      });
      assert.equal(r.clipped, true);
      assert.ok(r.pts.length >= 2);
      for (const q of r.pts) assert.ok(q[0] >= r.roi.x0 - 1e-6 && q[0] <= r.roi.x1 + 1e-6 && q[1] >= r.roi.y0 - 1e-6 && q[1] <= r.roi.y1 + 1e-6, `${q} outside ${JSON.stringify(r.roi)}`);
      // the part inside is kept: from the start along x to the region's edge
      assert.deepEqual(r.pts[0].map((v) => Number(v.toFixed(6))), [0, 0, -0.2]);
      assert.ok(near(Math.max(...r.pts.map((q) => q[0])), r.roi.x1, 1e-5));
      // every drawn point in the default (fit) view
      for (const q of r.pts) {
        const p = await page.evaluate((q) => window.tendyn.project(...q), q);
        assert.ok(Math.abs(p.ndc[0]) <= 1 && Math.abs(p.ndc[1]) <= 1 && p.ndc[2] < 1, `${q} out of view: ${p.ndc}`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('a CDPR platform is drawn as one solid body through its attachment points', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.cdpr();
    // a box platform: the 4 points of the face and 4 more 5 cm lower (two levels, as the writer's faces)
    s.points.push('q1', 'q2', 'q3', 'q4');
    s.faces = [[8, 9, 10, 11], [12, 13, 14, 15]];
    s.frames.positions_m = s.frames.positions_m.map((p) => [...p, ...p.slice(24, 36).map((v, i) => (i % 3 === 2 ? Number((v - 0.05).toPrecision(7)) : v))]);
    const errors = [];
    const page = await openScene(s, 'cdpr-body', errors);
    try {
      const k = 77;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const r = await page.evaluate(() => {
        const b = window.tendyn._viewer.platformBody;
        if (!b) return null;
        const a = b.mesh.geometry.getAttribute('position');
        return { transparent: b.mesh.material.transparent, visible: b.mesh.visible, n: a.count, v: Array.from(a.array) };
      });
      assert.ok(r, 'no platform body');
      assert.equal(r.transparent, false);
      assert.ok(r.n >= 12 * 3, `${r.n / 3} triangles for a box`);
      const p = s.frames.positions_m[k];
      const pts = [8, 9, 10, 11, 12, 13, 14, 15].map((i) => p.slice(3 * i, 3 * i + 3));
      for (let i = 0; i < r.n; i++) {
        const v = r.v.slice(3 * i, 3 * i + 3);
        assert.ok(pts.some((q) => Math.hypot(q[0] - v[0], q[1] - v[1], q[2] - v[2]) < 1e-6), `vertex ${v} is not an attachment point`);
      }
      // every attachment point is a corner of the body
      for (const q of pts) assert.ok(Array.from({ length: r.n }, (_, i) => r.v.slice(3 * i, 3 * i + 3)).some((v) => Math.hypot(q[0] - v[0], q[1] - v[1], q[2] - v[2]) < 1e-6));
      assert.equal((await page.evaluate(() => window.tendyn.counts())).faces, 2);
      await shot(page, 'cdpr-body.png');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('tree: the points of no body (a fictitious chain) are not drawn; the joint plots list the real joints first', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.tree();
    // a fictitious base coordinate before the real joints, and its point (on no link)
    s.points.push('virtual_base');
    s.frames.positions_m = s.frames.positions_m.map((p) => [...p, 0, 0, 0.5]);
    for (const p of s.plots) p.series.unshift({ name: 'base_x', values: p.series[0].values.map(() => 0) });
    s.joints = s.joints.map((j) => ({ ...j, q_index: j.q_index + 1, v_index: j.v_index + 1 }));
    const errors = [];
    const page = await openScene(s, 'tree-hidden', errors);
    try {
      const plots = await page.evaluate(() => window.tendyn.plotData());
      for (const id of ['q', 'qd', 'tau']) {
        const title = s.plots.find((p) => p.id === id).title;
        const p = plots.find((q) => q.title === title);
        assert.deepEqual(p.series, ['shoulder', 'elbow', 'base_x'], id);
        assert.equal(p.data[1][10], s.plots.find((q) => q.id === id).series[1].values[10]); // columns follow the names
      }
      const r = await page.evaluate(() => {
        const v = window.tendyn._viewer;
        const m = v.pointMesh.instanceMatrix.array;
        return Array.from({ length: v.pointMesh.count }, (_, i) => m[16 * i]);
      });
      assert.equal(r[3], 0, 'the fictitious point is drawn');
      assert.ok(r[0] > 0 && r[1] > 0 && r[2] > 0);
      // not pickable where it is
      const q = await page.evaluate(() => window.tendyn.project(0, 0, 0.5));
      const hit = await page.evaluate(([x, y]) => window.tendyn.pickAt(x, y), [q.x, q.y]);
      assert.ok(!hit || hit.type !== 'point' || hit.index !== 3, JSON.stringify(hit));
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('CDPR pages offer no strain colouring', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const errors = [];
    const page = await openScene(synth.cdpr(), 'cdpr-colour', errors);
    try {
      const opts = await page.$$eval('#color-mode option', (os) => os.filter((o) => !o.hidden && !o.disabled).map((o) => o.value));
      assert.deepEqual(opts, ['tension']);
      await page.evaluate(() => window.tendyn.setColorMode('strain'));
      assert.equal(await page.$eval('#color-mode', (e) => e.value), 'tension');
      assert.equal(await page.textContent('#colorbar-label'), 'cable tension [N]');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});

describe('measure and inspect', () => {
  test('a seek updates the tooltip and the world readout of the hovered point (no stale frame-0 values)', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.prism3({ nframes: 101 });
    // t1 moves 5 cm up over the run, slowly enough to stay under the pointer
    const p0 = s.frames.positions_m[0].slice();
    for (let k = 0; k < 101; k++) {
      s.frames.positions_m[k] = p0.slice();
      s.frames.positions_m[k][2] = Number((p0[2] + 0.0005 * k).toPrecision(7));
    }
    const errors = [];
    const page = await openScene(s, 'hover-seek', errors);
    try {
      await page.waitForTimeout(300); // the layout settled (plot heights): the 3D view does not move under the pointer
      const box = await page.locator('.tv-3d canvas').boundingBox();
      const at = async (k) => page.evaluate((q) => window.tendyn.project(...q), s.frames.positions_m[k].slice(0, 3));
      const p0 = await at(0);
      await page.mouse.move(box.x + p0.x, box.y + p0.y);
      await page.waitForFunction(() => /^t1: \(/.test(document.querySelector('#world-readout').textContent));
      const k = 4;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const want = s.frames.positions_m[k][2];
      const w = await page.textContent('#world-readout');
      const m = /^t1: \((-?[0-9.]+), (-?[0-9.]+), (-?[0-9.]+)\) m$/.exec(w);
      assert.ok(m, `world readout "${w}"`);
      assert.ok(near(Number(m[3]), want, 1e-4), `readout z ${m[3]} vs frame ${k}: ${want}`);
      // far away: the tooltip follows the frame (the point has left the pointer or shows its new value)
      await page.evaluate(() => window.tendyn.seek(100));
      const w2 = await page.textContent('#world-readout');
      const m2 = /^t1: \((-?[0-9.]+), (-?[0-9.]+), (-?[0-9.]+)\) m$/.exec(w2);
      if (m2) assert.ok(near(Number(m2[3]), s.frames.positions_m[100][2], 1e-4), `readout ${w2} at frame 100`);
      const hover = await page.evaluate(() => (document.querySelector('#hover-info').hidden ? null : document.querySelector('#hover-info').textContent));
      assert.ok(hover === null || !/^point t1/.test(hover) || m2, `tooltip "${hover}" but readout "${w2}"`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('distance and angle between picked points follow the time; shift+click adds a point; Esc clears', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.prism3({ nframes: 101 });
    const errors = [];
    const page = await openScene(s, 'measure', errors);
    try {
      const P = (k, i) => s.frames.positions_m[k].slice(3 * i, 3 * i + 3);
      const dist = (u, v) => Math.hypot(u[0] - v[0], u[1] - v[1], u[2] - v[2]);
      // shift+click on t1 then t2 (their projections), then b1 by the hook
      for (const i of [0, 1]) {
        const box = await page.locator('.tv-3d canvas').boundingBox();
        const q = await page.evaluate((q) => window.tendyn.project(...q), P(0, i));
        await page.keyboard.down('Shift');
        await page.mouse.click(box.x + q.x, box.y + q.y);
        await page.keyboard.up('Shift');
      }
      let m = await page.evaluate(() => window.tendyn.measurement());
      assert.deepEqual(m.points, ['t1', 't2']);
      assert.ok(near(m.distances_m[0], dist(P(0, 0), P(0, 1)), 1e-6));
      assert.equal(await page.textContent('#measure-distance'), `${Number(dist(P(0, 0), P(0, 1)).toPrecision(5))} m`);
      await page.evaluate(() => window.tendyn.measure(['t1', 'b1', 't2']));
      const k = 77;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      m = await page.evaluate(() => window.tendyn.measurement());
      const a = P(k, 0), b = P(k, 3), c = P(k, 1);
      const u = a.map((x, j) => x - b[j]), v = c.map((x, j) => x - b[j]);
      const ang = (Math.acos((u[0] * v[0] + u[1] * v[1] + u[2] * v[2]) / (Math.hypot(...u) * Math.hypot(...v))) * 180) / Math.PI;
      assert.ok(near(m.angle_deg, ang, 1e-6), `angle ${m.angle_deg} vs ${ang}`);
      assert.ok(near(m.distances_m[1], dist(b, c), 1e-6));
      assert.equal(await page.textContent('#measure-angle'), `${Number(ang.toPrecision(5))} deg`);
      await shot(page, 'measure.png');
      await page.locator('.tv-3d canvas').click({ position: { x: 3, y: 3 } });
      await page.keyboard.press('Escape');
      assert.equal(await page.evaluate(() => window.tendyn.measurement()), null);
      assert.equal(await page.isVisible('#measure'), false);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test("a picked point's trail: its positions of every frame, drawn up to the current one", { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.walker({ nframes: 301 });
    const errors = [];
    const page = await openScene(s, 'trail', errors);
    try {
      await page.evaluate(() => window.tendyn.select('point', 'b2'));
      const k = 200;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const tr = await page.evaluate(() => window.tendyn.trail());
      assert.equal(tr.point, 'b2');
      assert.equal(tr.count, k + 1);
      for (const j of [0, 57, k]) for (let c = 0; c < 3; c++) assert.ok(near(tr.points_m[3 * j + c], s.frames.positions_m[j][3 * 4 + c], 1e-5));
      await page.evaluate(() => window.tendyn.select(null));
      assert.equal(await page.evaluate(() => window.tendyn.trail()), null);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});

/// Checks that every arrow starts at its point, points along its force and has the length
/// scale x |force| (the scale per unit the page reports).
function checkArrows(arrows) {
  for (const a of arrows) {
    const want = a.scale * a.magnitude;
    assert.ok(near(a.length_m, want, 1e-6 * Math.max(1, want) + 1e-9), `${a.name}: length ${a.length_m} vs ${want}`);
    if (a.magnitude > 0) {
      for (let c = 0; c < 3; c++) {
        const tip = a.origin_m[c] + (a.vector[c] / a.magnitude) * a.length_m;
        assert.ok(near(a.tip_m[c], tip, 1e-5 * Math.max(1, a.length_m)), `${a.name}: tip ${a.tip_m} vs ${tip}`);
      }
    }
  }
}

describe('forces in 3D', () => {
  test('cable force arrows at the rod ends: |arrow| proportional to the tension in scene.json, scale control, legend, layer toggles', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.prism3({ nframes: 101 });
    const errors = [];
    const page = await openScene(s, 'forces', errors);
    try {
      assert.deepEqual(await page.evaluate(() => window.tendyn.forceArrows()), []); // layer off by default
      assert.equal(await page.isVisible('#force-legend'), false);
      await page.check('#layer-forces');
      const k = 40;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const arrows = await page.evaluate(() => window.tendyn.forceArrows());
      assert.equal(arrows.length, 2 * s.cables.length); // every cable pulls both its ends (all on rods)
      for (const [i, c] of s.cables.entries()) {
        const T = s.frames.cable_tension_N[k][i];
        for (const [at, other] of [[c.a, c.b], [c.b, c.a]]) {
          const a = arrows.find((x) => x.name === `${c.name} at ${s.points[at]}`);
          assert.ok(a, `arrow of ${c.name} at ${s.points[at]}`);
          assert.equal(a.magnitude.toPrecision(6), Math.abs(T).toPrecision(6));
          const p = s.frames.positions_m[k];
          const d = [0, 1, 2].map((j) => p[3 * other + j] - p[3 * at + j]);
          const l = Math.hypot(...d);
          for (let j = 0; j < 3; j++) assert.ok(near(a.vector[j], (T * d[j]) / l, 1e-9 + 1e-9 * T));
        }
      }
      checkArrows(arrows);
      // lengths proportional to the forces: one scale for all, the largest force of the run a quarter of the pose
      const scales = new Set(arrows.map((a) => a.scale.toPrecision(12)));
      assert.equal(scales.size, 1);
      const maxT = Math.max(...s.frames.cable_tension_N.flat());
      const legend = await page.textContent('#force-legend');
      assert.match(legend, /cable force/);
      assert.match(legend, new RegExp(`1 N = ${Number(arrows[0].scale.toPrecision(5))} m \\(largest ${Number(maxT.toPrecision(5))} N\\)`));
      await shot(page, 'forces.png');
      await page.selectOption('#force-scale', '2');
      const doubled = await page.evaluate(() => window.tendyn.forceArrows());
      doubled.forEach((a, i) => assert.ok(near(a.length_m, 2 * arrows[i].length_m, 1e-9)));
      checkArrows(doubled);
      // layer toggles hide the objects
      for (const name of ['rods', 'cables', 'points', 'paths', 'grid']) {
        await page.uncheck(`#layer-${name}`);
        const vis = await page.evaluate(() => {
          const v = window.tendyn._viewer;
          return { rods: v.rodGroup.visible, cables: v.cableGroup.visible, points: v.pointMesh.visible, paths: v.pathGroup.visible, grid: v.groundGroup.visible };
        });
        assert.equal(vis[name], false, name);
        await page.check(`#layer-${name}`);
      }
      // labels on demand: one per point, at the point
      await page.check('#layer-labels');
      await page.waitForTimeout(100);
      const labels = await page.$$eval('.tv-label', (es) => es.map((e) => ({ text: e.textContent, hidden: e.hidden, tr: e.style.transform })));
      assert.deepEqual(labels.map((l) => l.text), s.points);
      const q = await page.evaluate((p) => window.tendyn.project(...p), s.frames.positions_m[k].slice(0, 3));
      const mm = /translate\((-?\d+)px, (-?\d+)px\)/.exec(labels[0].tr);
      assert.ok(mm && near(Number(mm[1]), q.x + 6, 1.5) && near(Number(mm[2]), q.y - 16, 1.5), `label of t1 at ${labels[0].tr}, point at ${q.x}, ${q.y}`);
      await shot(page, 'labels.png');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('contact forces (normal and friction) at each contact, from frames.contact_force_N', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.prism3({ nframes: 20 });
    s.ground_z_m = -0.2;
    s.frames.contact_force_N = s.frames.t_s.map((_, k) => s.points.flatMap((_, i) => (i >= 3 ? [0.1 * k, -0.05 * i, 2 + 0.01 * k] : [0, 0, 0])));
    const errors = [];
    const page = await openScene(s, 'contact', errors);
    try {
      await page.evaluate(() => window.tendyn.setLayer('forces', true));
      const k = 12;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const arrows = await page.evaluate(() => window.tendyn.forceArrows());
      const fc = s.frames.contact_force_N[k];
      for (const i of [3, 4, 5]) {
        const n = arrows.find((a) => a.kind === 'contact' && a.point === s.points[i]);
        const f = arrows.find((a) => a.kind === 'friction' && a.point === s.points[i]);
        assert.deepEqual(n.vector, [0, 0, fc[3 * i + 2]]);
        assert.deepEqual(f.vector, [fc[3 * i], fc[3 * i + 1], 0]);
      }
      assert.equal(arrows.filter((a) => a.kind === 'contact' && a.point === 't1')[0].length_m, 0);
      checkArrows(arrows);
      assert.match(await page.textContent('#force-legend'), /contact normal.*contact friction/s);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('CDPR: cable forces at the attachment points, the platform wrench (resultant and moment about P)', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.cdpr();
    // the writer's naming: anchors A_<cable>, attachment points B_<cable>, the platform reference P
    s.points = ['g1', 'g2', 'g3', 'g4', 'A_c1', 'A_c2', 'A_c3', 'A_c4', 'B_c1', 'B_c2', 'B_c3', 'B_c4', 'P'];
    s.frames.positions_m = s.frames.positions_m.map((p) => {
      const c = [0, 1, 2].map((j) => (p[24 + j] + p[27 + j] + p[30 + j] + p[33 + j]) / 4);
      return [...p, ...c];
    });
    const errors = [];
    const page = await openScene(s, 'cdpr-forces', errors);
    try {
      await page.evaluate(() => window.tendyn.setLayer('forces', true));
      const k = 120;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const arrows = await page.evaluate(() => window.tendyn.forceArrows());
      const p = s.frames.positions_m[k];
      const T = s.frames.cable_tension_N[k];
      const cab = arrows.filter((a) => a.kind === 'cable');
      assert.deepEqual(cab.map((a) => a.point), ['B_c1', 'B_c2', 'B_c3', 'B_c4']); // none at the fixed anchors
      const F = [0, 0, 0], M = [0, 0, 0];
      s.cables.forEach((c, i) => {
        const d = [0, 1, 2].map((j) => p[3 * c.a + j] - p[3 * c.b + j]);
        const l = Math.hypot(...d);
        const f = d.map((x) => (T[i] * x) / l);
        const r = [0, 1, 2].map((j) => p[3 * c.b + j] - p[36 + j]);
        for (let j = 0; j < 3; j++) F[j] += f[j];
        M[0] += r[1] * f[2] - r[2] * f[1]; M[1] += r[2] * f[0] - r[0] * f[2]; M[2] += r[0] * f[1] - r[1] * f[0];
      });
      const pf = arrows.find((a) => a.kind === 'platform force');
      const pm = arrows.find((a) => a.kind === 'platform moment');
      assert.equal(pf.point, 'P');
      for (let j = 0; j < 3; j++) {
        assert.ok(near(pf.vector[j], F[j], 1e-9 * Math.hypot(...F) + 1e-12), `force ${pf.vector} vs ${F}`);
        assert.ok(near(pm.vector[j], M[j], 1e-9 * Math.hypot(...M) + 1e-12), `moment ${pm.vector} vs ${M}`);
      }
      assert.equal(pm.unit, 'N m');
      checkArrows(arrows);
      assert.match(await page.textContent('#force-legend'), /1 N m = /);
      await shot(page, 'cdpr-forces.png');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('tree: joint torques as arrows along the joint axes (tau plot x axis)', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.tree();
    const errors = [];
    const page = await openScene(s, 'tree-forces', errors);
    try {
      await page.evaluate(() => window.tendyn.setLayer('forces', true));
      const k = 100;
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const arrows = await page.evaluate(() => window.tendyn.forceArrows());
      const tau = s.plots.find((p) => p.id === 'tau');
      assert.equal(arrows.length, 2);
      arrows.forEach((a, i) => {
        assert.equal(a.kind, 'joint torque');
        assert.equal(a.point, s.points[s.joints[i].point]);
        const want = tau.series[i].values[k];
        [0, want, 0].forEach((w, j) => assert.ok(near(a.vector[j], w, 1e-12), `${a.name}: ${a.vector} vs tau ${want}`));
      });
      checkArrows(arrows);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});

describe('long runs', () => {
  test('60 s of the tower in a 3 MB page: the plots hold every row of results.csv from the packed (deflated) plot_data, each value the CSV\'s to float32', { timeout: 300000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    if (!cliCaps().html) return t.skip('TENDYN_CLI unset or without simulate --html');
    const out = path.join(dir, 'tower60');
    const said = execFileSync(CLI, ['simulate', '--html', '--duration', '60', '--output-interval', '0.01', '--max-page-mb', '3', '-o', out, path.join(SOURCE_DIR, 'models', 'tower.yaml')], { cwd: SOURCE_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 250000 });
    const html = fs.readFileSync(path.join(out, 'view.html'), 'utf8');
    assert.ok(html.length < 3e6, `page ${html.length} bytes`);
    assert.ok(html.includes('"packing":"delta1+shuffle+deflate"'), 'the page has no packed plot_data');
    const full = JSON.parse(fs.readFileSync(path.join(out, 'scene.json'), 'utf8'));
    const csv = fs.readFileSync(path.join(out, 'results.csv'), 'utf8').trim().split('\n');
    const head = csv[0].split(',');
    const cols = full.cables.map((c) => head.indexOf(`${c.name}.tension_N`));
    assert.ok(cols.every((c) => c > 0), 'tension columns in results.csv');
    const rows = csv.slice(1).map((l) => l.split(',').map(Number));
    assert.equal(rows.length, full.frames.t_s.length);
    assert.match(said, /plots: every sample/);
    // the packing ratio that makes 600 s (ten times the rows) fit a 10 MB page at every row: the
    // packed series at most 0.39 of plain float32 base64 (17.6 MB at 600 s; 3/4 of the page's
    // 9.25 MB of scene is 6.9 MB)
    const a = html.indexOf('id="tendyn-scene">') + 18;
    const pageScene = JSON.parse(html.slice(a, html.indexOf('</script>', a)));
    const nseries = 2 * full.cables.length + 3 + Object.keys(full.frames.energy_J).length + full.plots.reduce((k, p) => k + p.series.length, 0);
    const plain = (4 / 3) * rows.length * (8 + 4 * nseries);
    const packedBytes = JSON.stringify(pageScene.plot_data).length;
    console.log(`# tower 60 s: ${nseries} series x ${rows.length} rows packed into ${(packedBytes / 1e6).toFixed(3)} MB, ${(packedBytes / plain).toFixed(3)} of plain float32 base64 (${(plain / 1e6).toFixed(2)} MB)`);
    assert.ok(packedBytes < 0.39 * plain, `packed ${packedBytes} of plain ${plain}`);
    const errors = [];
    const page = await newPage(browser, errors);
    try {
      await page.goto(`file://${path.join(out, 'view.html')}`);
      await waitReady(page);
      const pd = await page.evaluate(() => { const d = window.tendyn._viewer.meta.plotData; return { bucket: d.bucket, samples: d.samples }; });
      const stride = await page.evaluate(() => window.tendyn._viewer.meta.thinned.stride);
      assert.ok(stride > 1, '3D frames thinned');
      assert.deepEqual(pd, { bucket: 1, samples: rows.length });
      assert.match(await page.textContent('#thinned-note'), new RegExp(`plots: all ${rows.length} samples`));
      const cable = (await page.evaluate(() => window.tendyn.plotData())).find((p) => p.kind === 'cable');
      assert.equal(cable.data[0].length, rows.length);
      // every cable at every row: float32 of scene.json's 7 digits, within 6e-7 of the CSV's 17
      let worst = 0;
      for (let k = 0; k < rows.length; k++) {
        assert.equal(cable.data[0][k], full.frames.t_s[k], `t at row ${k}`);
        cols.forEach((c, i) => {
          const want = rows[k][c], got = cable.data[1 + i][k];
          assert.equal(got, Math.fround(full.frames.cable_tension_N[k][i]), `cable ${i} row ${k}: float32 of scene.json`);
          const err = Math.abs(got - want);
          worst = Math.max(worst, err / Math.max(Math.abs(want), 1e-30));
          assert.ok(err <= 6e-7 * Math.abs(want) + 1e-12, `cable ${i} row ${k}: ${got} vs ${want}`);
        });
      }
      console.log(`# tower 60 s, 3 MB page: ${(html.length / 1e6).toFixed(2)} MB, 3D every ${stride}th frame, plots all ${rows.length} rows; worst relative difference to results.csv ${worst.toExponential(2)}`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('600 s of the tower: view.html under 10 MB (3D frames thinned, said in the page), the plots from the packed plot_data with every row of results.csv, scene.json keeps every frame; tendyn view --max-page-mb: min/max buckets', { timeout: 600000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    if (!cliCaps().html) return t.skip('TENDYN_CLI unset or without simulate --html');
    const out = path.join(dir, 'tower600');
    const said = execFileSync(CLI, ['simulate', '--html', '--duration', '600', '--output-interval', '0.01', '-o', out, path.join(SOURCE_DIR, 'models', 'tower.yaml')], { cwd: SOURCE_DIR, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 500000 });
    const size = fs.statSync(path.join(out, 'view.html')).size;
    const full = JSON.parse(fs.readFileSync(path.join(out, 'scene.json'), 'utf8'));
    const N = full.frames.t_s.length;
    // results.csv: its rows and the first cable's tension column
    const csv = fs.readFileSync(path.join(out, 'results.csv'), 'utf8').trim().split('\n');
    const head = csv[0].split(',');
    const ct = head.indexOf(`${full.cables[0].name}.tension_N`);
    assert.ok(ct > 0, 'no tension column in results.csv');
    const rows = csv.slice(1).map((l) => l.split(','));
    const R = rows.length;
    assert.ok(size < 10e6, `page ${size} bytes`);
    assert.equal(N, 60001);
    assert.equal(R, N, 'results.csv has one row per frame');
    const errors = [];
    const page = await newPage(browser, errors);
    try {
      await page.goto(`file://${path.join(out, 'view.html')}`);
      await waitReady(page);
      const n = await page.evaluate(() => window.tendyn.nframes());
      const stride = await page.evaluate(() => window.tendyn._viewer.meta.thinned.stride);
      const ps = await page.evaluate(() => window.tendyn._viewer.meta.plotData && window.tendyn._viewer.meta.plotData.bucket);
      assert.ok(stride > 1);
      assert.equal(ps, 1, 'the plots hold every row');
      assert.equal(n, Math.ceil((N - 1) / stride) + 1);
      const samples = R;
      console.log(`# tower 600 s: page ${(size / 1e6).toFixed(2)} MB, scene.json ${(fs.statSync(path.join(out, 'scene.json')).size / 1e6).toFixed(1)} MB, ${N} frames; 3D every ${stride}th frame, plots ${samples} of ${R} rows of results.csv`);
      const note = await page.textContent('#thinned-note');
      assert.match(note, new RegExp(`every ${stride}(st|nd|rd|th) of ${N} frames shown`));
      assert.match(note, new RegExp(`plots: all ${R} samples`));
      // the terminal says the same
      assert.match(said, /plots: every sample/);
      // frame i of the page is frame i * stride of the run; the last is the run's last
      const i = Math.floor(n / 3);
      await page.evaluate((i) => window.tendyn.seek(i), i);
      assert.equal(await page.textContent('#time-readout'), `t = ${full.frames.t_s[i * stride].toFixed(3)} s`);
      // the plots: every row of results.csv, each tension equal to the CSV's to float32 precision on
      // top of scene.json's 7 significant digits
      const plots = await page.evaluate(() => window.tendyn.plotData());
      const cable = plots.find((p) => p.kind === 'cable');
      assert.equal(cable.data[0].length, samples);
      let worst = 0;
      for (let k = 0; k < samples; k++) {
        const r = rows[k];
        assert.ok(Math.abs(cable.data[0][k] - Number(r[0])) <= 1e-9 * Math.max(1, Math.abs(Number(r[0]))), `t at sample ${k}`);
        const want = Number(r[ct]);
        const err = Math.abs(cable.data[1][k] - want);
        worst = Math.max(worst, err / Math.max(Math.abs(want), 1e-30));
        assert.ok(err <= 6e-7 * Math.abs(want) + 1e-12, `tension at sample ${k}: ${cable.data[1][k]} vs ${want}`);
      }
      console.log(`# worst relative difference of the plotted tension to results.csv: ${worst.toExponential(2)}`);
      const energy = plots.find((p) => p.kind === 'energy');
      assert.equal(energy.data[0].length, samples);
      await page.evaluate((n) => window.tendyn.seek(n - 1), n);
      assert.equal(await page.textContent('#time-readout'), 't = 600.000 s');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
    // tendyn view with a limit too small for every row: the min and max of every k rows, so the
    // plotted tensions reach the run's extremes (float32 of scene.json's)
    const small = path.join(dir, 'tower600-small');
    const report = execFileSync(CLI, ['view', out, '-o', small, '--max-page-mb', '1.2'], { encoding: 'utf8' });
    const mm = /every \d+(st|nd|rd|th) frame kept for the 3D view, plots: min\/max of every (\d+) rows \(full data: results.csv\)/.exec(report);
    assert.ok(mm, report);
    assert.ok(fs.statSync(path.join(small, 'view.html')).size < 1.2e6);
    const page2 = await newPage(browser, errors);
    try {
      await page2.goto(`file://${path.join(small, 'view.html')}`);
      await waitReady(page2);
      assert.match(await page2.textContent('#thinned-note'), new RegExp(`plots: min/max of every ${mm[2]} rows \\(full data: results.csv\\)`));
      const cable = (await page2.evaluate(() => window.tendyn.plotData())).find((p) => p.kind === 'cable');
      full.cables.forEach((c, i) => {
        const col = full.frames.cable_tension_N.map((r) => r[i]);
        const drawn = cable.data[1 + i];
        assert.equal(Math.max(...drawn), Math.fround(Math.max(...col)), `largest tension of ${c.name}`);
        assert.equal(Math.min(...drawn), Math.fround(Math.min(...col)), `smallest tension of ${c.name}`);
      });
      assert.deepEqual(errors, []);
    } finally {
      await page2.close();
    }
    // a limit below the viewer's own size: exit 2 naming the option
    let err = null;
    try {
      execFileSync(CLI, ['view', out, '-o', small, '--max-page-mb', '0.5'], { stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      err = e;
    }
    assert.ok(err, 'tendyn view --max-page-mb 0.5 succeeded');
    assert.equal(err.status, 2);
    assert.match(String(err.stderr), /--max-page-mb/);
  });
});

describe('compare runs', () => {
  test('two runs in one page: the other as a ghost at the same time, every series of both plotted, their difference', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const a = synth.prism3({ nframes: 101 });
    const b = synth.prism3({ nframes: 51, dt: 0.02 }); // another time base: frames at 0, 0.02, ...
    b.title = 'prism3 moved';
    b.frames.positions_m = b.frames.positions_m.map((p) => p.map((v, i) => (i % 3 === 0 ? Number((v + 0.1).toPrecision(7)) : v)));
    b.frames.com_m = b.frames.com_m.map((c) => [Number((c[0] + 0.1).toPrecision(7)), c[1], c[2]]);
    const page0 = { ...a, compare: [b] };
    const errors = [];
    const page = await openScene(page0, 'compare', errors);
    try {
      const k = 41; // t = 0.41 s: B's frame 20 (t = 0.40)
      await page.evaluate((k) => window.tendyn.seek(k), k);
      const g = await page.evaluate(() => window.tendyn.ghosts());
      assert.equal(g.length, 1);
      assert.equal(g[0].label, 'B');
      assert.equal(g[0].frame, 20);
      assert.equal(g[0].segments, b.rods.length + b.cables.length);
      const pb = b.frames.positions_m[20];
      const r0 = b.rods[0];
      for (let c = 0; c < 3; c++) {
        assert.ok(near(g[0].positions_m[c], pb[3 * r0.a + c], 1e-6));
        assert.ok(near(g[0].positions_m[3 + c], pb[3 * r0.b + c], 1e-6));
      }
      const plots = await page.evaluate(() => window.tendyn.plotData());
      const cable = plots.find((p) => p.kind === 'cable');
      assert.equal(cable.series.length, a.cables.length + b.cables.length);
      assert.equal(cable.series[a.cables.length], `${b.cables[0].name} [B]`);
      assert.equal(cable.data[1 + a.cables.length][k], b.frames.cable_tension_N[20][0]);
      const energy = plots.find((p) => p.kind === 'energy');
      assert.ok(energy.series.includes('total [B]'), energy.series.join(', '));
      const com = plots.find((p) => p.kind === 'com');
      assert.deepEqual(com.series.slice(3), ['x [B]', 'y [B]', 'z [B]']);
      const diff = plots.find((p) => p.kind === 'diff');
      assert.deepEqual(diff.series, ['max point distance B - A', 'COM distance B - A']);
      // at a common time (t = 0.4 s: A's frame 40, B's frame 20) B is A moved by 0.1 m in x
      assert.ok(near(diff.data[1][40], 0.1, 1e-5), `max point distance ${diff.data[1][40]}`);
      assert.ok(near(diff.data[2][40], 0.1, 1e-5), `COM distance ${diff.data[2][40]}`);
      assert.match(await page.textContent('#path-legend'), /B: prism3 moved \(ghost\)/);
      await shot(page, 'compare.png', true);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('tendyn view A B writes compare.html with both runs', { timeout: 300000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    if (!cliCaps().html) return t.skip('TENDYN_CLI unset or without simulate --html');
    const runs = [];
    for (const [name, integ] of [['rk4', 'rk4'], ['verlet', 'lie-verlet']]) {
      const out = path.join(dir, `cmp-${name}`);
      execFileSync(CLI, ['simulate', '-q', '--duration', '2', '--integrator', integ, '-o', out, path.join(SOURCE_DIR, 'models', 'prism3.yaml')], { cwd: SOURCE_DIR, stdio: ['ignore', 'ignore', 'pipe'] });
      runs.push(out);
    }
    const out = path.join(dir, 'cmp-page');
    const report = execFileSync(CLI, ['view', ...runs, '-o', out], { encoding: 'utf8' });
    assert.match(report, /compare\.html .*2 runs: A = .*cmp-rk4.*, B = .*cmp-verlet/);
    const errors = [];
    const page = await newPage(browser, errors);
    try {
      await page.goto(`file://${path.join(out, 'compare.html')}`);
      await waitReady(page);
      const g = await page.evaluate(() => window.tendyn.ghosts());
      assert.equal(g.length, 1);
      const sb = JSON.parse(fs.readFileSync(path.join(runs[1], 'scene.json'), 'utf8'));
      const n = await page.evaluate(() => window.tendyn.nframes());
      await page.evaluate((n) => window.tendyn.seek(n - 1), n);
      const last = await page.evaluate(() => window.tendyn.ghosts()[0]);
      assert.equal(last.t_s, sb.frames.t_s[sb.frames.t_s.length - 1]);
      const diff = (await page.evaluate(() => window.tendyn.plotData())).find((p) => p.kind === 'diff');
      assert.ok(diff && diff.data[1].length === n);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});

describe('record', () => {
  test('a still (PNG) at the current time, PNG frames, and the playback as a playable WebM', { timeout: 120000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const s = synth.prism3({ nframes: 101 });
    const errors = [];
    const page = await openScene(s, 'record', errors);
    try {
      await page.evaluate(() => window.tendyn.seek(50));
      const r = await page.evaluate(async () => {
        const url = window.tendyn.still();
        const img = new Image();
        img.src = url;
        await img.decode();
        const c = document.createElement('canvas');
        c.width = img.width; c.height = img.height;
        const g = c.getContext('2d');
        g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, img.width, img.height).data;
        const colours = new Set();
        for (let i = 0; i < d.length; i += 4 * 97) colours.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
        const frames = window.tendyn.pngFrames({ from: 0, to: 100, step: 25 });
        return { prefix: url.slice(0, 22), w: img.width, h: img.height, colours: colours.size, frames: frames.length, distinct: new Set(frames).size, frame: window.tendyn.frame() };
      });
      assert.equal(r.prefix, 'data:image/png;base64,');
      assert.ok(r.w > 100 && r.h > 100);
      assert.ok(r.colours > 20, `${r.colours} colours: a blank still`);
      assert.equal(r.frames, 5);
      assert.equal(r.distinct, 5); // the robot moves: every frame differs
      assert.equal(r.frame, 50); // the view is back at its frame
      const v = await page.evaluate(async () => {
        const blob = await window.tendyn.recordWebm({ fps: 20, speed: 2 });
        const head = new Uint8Array(await blob.slice(0, 4).arrayBuffer());
        const video = document.createElement('video');
        video.muted = true;
        video.src = URL.createObjectURL(blob);
        await new Promise((res, rej) => { video.onloadeddata = res; video.onerror = () => rej(new Error('the video does not load')); });
        return { size: blob.size, type: blob.type, head: Array.from(head), w: video.videoWidth, h: video.videoHeight };
      });
      assert.deepEqual(v.head, [0x1a, 0x45, 0xdf, 0xa3]); // EBML (Matroska / WebM)
      assert.equal(v.type, 'video/webm');
      assert.ok(v.size > 2000, `${v.size} bytes`);
      assert.ok(v.w > 100 && v.h > 100, `video ${v.w} x ${v.h}`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});
