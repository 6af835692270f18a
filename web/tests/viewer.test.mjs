// Viewer tests: counts, scrubbing and readouts, screenshot, fps, page size, generic kinds,
// missing optional fields and malformed scenes. Run: node --test web/tests/
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as synth from './fixtures/synth.mjs';
import { cliCaps, htmlFromScene, lastOf, launch, newPage, pngVariance, scenePage, tempDir, waitReady } from './helpers.mjs';

let browser = null;
let dir = null;
const pages = {};

before(async () => {
  dir = tempDir('viewer');
  browser = await launch();
  if (!browser) return;
  if (!cliCaps().html) console.log('# viewer tests: TENDYN_CLI unset or without `simulate --html`: using synthetic scenes');
  for (const name of ['prism3', 'tower']) pages[name] = scenePage(name, dir);
});

after(async () => {
  if (browser) await browser.close();
});

const skipNoBrowser = (t) => {
  if (!browser) {
    t.skip('no Chromium at /usr/bin/chromium (set TENDYN_CHROMIUM)');
    return true;
  }
  return false;
};

async function open(file, errors) {
  const page = await newPage(browser, errors);
  await page.goto(`file://${file}`);
  return page;
}

async function scrubTo(page, i) {
  await page.$eval('#scrub', (el, v) => {
    el.value = String(v);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, i);
}

function expectedCounts(scene) {
  return { rods: scene.rods.length, cables: scene.cables.length, points: scene.points.length, faces: (scene.faces || []).length };
}

describe('viewer page', () => {
  for (const [name, counts] of [['prism3', { rods: 3, cables: 9, points: 6 }], ['tower', { rods: 6, cables: 24, points: 12 }]]) {
    test(`${name}: counts, scrub to the end, readouts, screenshot`, { timeout: 120000 }, async (t) => {
      if (skipNoBrowser(t)) return;
      const { html, scene, source } = pages[name];
      const errors = [];
      const page = await open(html, errors);
      try {
        await waitReady(page);
        const c = await page.evaluate(() => window.tendyn.counts());
        assert.equal(c.rods, counts.rods);
        assert.equal(c.cables, counts.cables);
        if (source === 'synthetic') assert.equal(c.points, counts.points);
        assert.deepEqual(c, expectedCounts(scene));
        const n = scene.frames.t_s.length;
        assert.equal(await page.$eval('#scrub', (el) => el.max), String(n - 1));
        await scrubTo(page, n - 1);
        assert.equal(await page.evaluate(() => window.tendyn.frame()), n - 1);
        const time = await page.textContent('#time-readout');
        const m = /^t = (-?[0-9.]+) s$/.exec(time.trim());
        assert.ok(m, `time readout "${time}"`);
        assert.ok(Math.abs(Number(m[1]) - lastOf(scene.frames.t_s)) <= 0.0005 + 1e-9, `time ${m[1]} vs ${lastOf(scene.frames.t_s)}`);
        const energy = scene.frames.energy_J;
        if (energy && energy.total) {
          const want = lastOf(energy.total);
          const got = Number(await page.textContent('#energy-total'));
          assert.ok(Math.abs(got - want) <= 1e-4 * Math.abs(want) + 1e-12, `total energy ${got} vs ${want}`);
          for (const k of ['kinetic', 'elastic', 'gravitational']) {
            const g = Number(await page.textContent(`#energy-${k}`));
            const w = lastOf(energy[k]);
            assert.ok(Math.abs(g - w) <= 1e-4 * Math.abs(w) + 1e-12, `${k} energy ${g} vs ${w}`);
          }
        }
        await page.waitForTimeout(200);
        const png = await page.locator('.tv-3d canvas').screenshot({ path: path.join(dir, `${name}.png`) });
        const variance = await pngVariance(page, png);
        assert.ok(variance > 20, `3D view looks blank (luminance variance ${variance.toFixed(1)})`);
        // the colour toggle swaps the cable plot to strain
        await page.selectOption('#color-mode', 'strain');
        const plots = await page.evaluate(() => window.tendyn.plotData());
        assert.equal(plots[0].title, 'cable strain');
        assert.deepEqual(plots[0].data[1].slice(-1), [lastOf(scene.frames.cable_strain)[0]]);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    });
  }

  test('fps: playing the 1,000-frame tower stays >= 30 fps', { timeout: 120000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const { html, scene } = pages.tower;
    assert.ok(scene.frames.t_s.length >= 1000);
    const errors = [];
    const page = await open(html, errors);
    try {
      await waitReady(page);
      await page.evaluate(() => window.tendyn.play());
      await page.waitForTimeout(500); // warm-up
      const r = await page.evaluate(async () => {
        const f0 = window.tendyn.renderedFrames();
        const i0 = window.tendyn.frame();
        const t0 = performance.now();
        await new Promise((res) => setTimeout(res, 3000));
        return { frames: window.tendyn.renderedFrames() - f0, ms: performance.now() - t0, advanced: window.tendyn.frame() - i0 };
      });
      await page.evaluate(() => window.tendyn.pause());
      const fps = (1000 * r.frames) / r.ms;
      console.log(`# tower playback: ${fps.toFixed(1)} fps (${r.frames} frames in ${r.ms.toFixed(0)} ms)`);
      assert.ok(r.advanced !== 0, 'playback did not advance the frame');
      assert.ok(fps >= 30, `playback at ${fps.toFixed(1)} fps`);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('size: a 10 s run at 100 Hz makes a page under 5 MB', (t) => {
    if (!pages.tower) return t.skip('no pages (no browser)');
    for (const name of ['prism3', 'tower']) {
      const size = fs.statSync(pages[name].html).size;
      console.log(`# ${name} page: ${(size / 1e6).toFixed(2)} MB (${pages[name].source})`);
      assert.ok(size < 5e6, `${name} page is ${size} bytes`);
    }
  });

  test('generic kinds: cdpr (faces, fixed anchors) and tree (capsules, no cables)', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    for (const scene of [synth.cdpr(), synth.tree()]) {
      const errors = [];
      const page = await open(htmlFromScene(scene, path.join(dir, `${scene.kind}.html`)), errors);
      try {
        await waitReady(page);
        assert.deepEqual(await page.evaluate(() => window.tendyn.counts()), expectedCounts(scene));
        assert.equal(await page.isVisible('#error'), false);
        const plots = await page.evaluate(() => window.tendyn.plotData().map((p) => p.title));
        for (const p of scene.plots) assert.ok(plots.includes(p.title), `plot "${p.title}" in ${plots}`);
        for (const p of scene.plots.filter((q) => q.t_s)) {
          // drawn against its own times, every sample
          const d = await page.evaluate((title) => window.tendyn.plotData().find((q) => q.title === title).data, p.title);
          assert.equal(d[0].length, p.t_s.length);
          assert.equal(d[0][d[0].length - 1], p.t_s[p.t_s.length - 1]);
          assert.equal(d[1][d[1].length - 1], p.series[0].values[p.series[0].values.length - 1]);
        }
        await scrubTo(page, 50);
        assert.match(await page.textContent('#time-readout'), /^t = [0-9.]+ s$/);
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    }
  });

  test('absent optional fields: no energies, COM, plots, faces; ground null', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    const scene = synth.prism3({ nframes: 20 });
    delete scene.frames.energy_J;
    delete scene.frames.com_m;
    delete scene.faces;
    delete scene.plots;
    scene.ground_z_m = null;
    const errors = [];
    const page = await open(htmlFromScene(scene, path.join(dir, 'minimal.html')), errors);
    try {
      await waitReady(page);
      assert.deepEqual(await page.evaluate(() => window.tendyn.counts()), { rods: 3, cables: 9, points: 6, faces: 0 });
      await page.evaluate(() => window.tendyn.seek(19));
      assert.equal(await page.textContent('#time-readout'), 't = 0.190 s');
      assert.equal(await page.isVisible('#error'), false);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('signed cable forces (cable_force_sign: paper_law): colour bar below 0, pushing cable not slack', { timeout: 60000 }, async (t) => {
    if (skipNoBrowser(t)) return;
    for (const signed of [true, false]) {
      const scene = synth.prism3({ nframes: 20 });
      if (signed) scene.cable_force_signed = true;
      for (const row of scene.frames.cable_tension_N) {
        row[0] = -0.99; // top1 pushes (document 000's damping law on a fast-closing cable)
        row[1] = 0; // bottom1 slack
      }
      const errors = [];
      const page = await open(htmlFromScene(scene, path.join(dir, `signed_${signed}.html`)), errors);
      try {
        await waitReady(page);
        await page.evaluate(() => window.tendyn.seek(5));
        const r = await page.evaluate(() => {
          const v = window.tendyn._viewer;
          const min = document.querySelector('#colorbar-min');
          return {
            min: min ? min.textContent : null,
            option: document.querySelector('#color-mode').options[0].textContent,
            slack: v.cableObjs.slice(0, 3).map((o) => o.slack),
          };
        });
        if (signed) {
          assert.equal(r.min, '-0.99 N');
          assert.equal(r.option, 'force');
          assert.deepEqual(r.slack, [false, true, false]);
        } else {
          assert.equal(r.min, null);
          assert.equal(r.option, 'tension');
          assert.deepEqual(r.slack, [true, true, false]);
        }
        assert.deepEqual(errors, []);
      } finally {
        await page.close();
      }
    }
  });

  for (const [what, json, pattern] of [
    ['not JSON', '{"format": "tendyn-scene", "points": [', /not valid JSON/],
    ['bad point index', JSON.stringify({ ...synth.prism3({ nframes: 3 }), rods: [{ name: 'I', a: 0, b: 99 }] }), /rods\[0\]\.b/],
    ['short positions', JSON.stringify((() => { const s = synth.prism3({ nframes: 3 }); s.frames.positions_m[1].pop(); return s; })()), /positions_m\[1\]/],
  ]) {
    test(`malformed scene (${what}) shows an error in the page`, { timeout: 60000 }, async (t) => {
      if (skipNoBrowser(t)) return;
      const errors = [];
      const page = await open(htmlFromScene(json, path.join(dir, 'bad.html')), errors);
      try {
        await page.waitForSelector('#error', { state: 'visible', timeout: 15000 });
        assert.match(await page.textContent('#error'), pattern);
      } finally {
        await page.close();
      }
    });
  }
});
