// Playback frame rate of a viewer page in Debian's headless Chromium (software WebGL), with the
// force-arrow layer on and off, alternated. A benchmark, not a test (docs/BENCHMARKS.md, "Viewer").
//
// Usage (from the source directory, after building the program):
//   node bench/viewer_fps.mjs [--page view.html] [--duration 60] [--rounds 3] [--seconds 3]
// Without --page it makes the page the issue names: `tendyn simulate models/tower.yaml --html
// --duration 60` (TENDYN_CLI, default build/tendyn) into a temporary directory. Prints one line per
// round and layer: rendered frames per second of wall time over --seconds of playback, after a
// 0.5 s warm-up, and the load average before and after.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { launch, newPage, waitReady } from '../web/tests/helpers.mjs';

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = process.argv[i + 1];
  if (v === undefined) throw new Error(`--${name} needs a value`);
  return v;
}

const seconds = Number(option('seconds', '3'));
const rounds = Number(option('rounds', '3'));
const duration = Number(option('duration', '60'));
for (const [name, v] of [['seconds', seconds], ['rounds', rounds], ['duration', duration]]) {
  if (!Number.isFinite(v) || v <= 0) {
    console.error(`viewer_fps: --${name} must be a positive number`);
    process.exit(2);
  }
}

let html = option('page', '');
if (!html) {
  const cli = process.env.TENDYN_CLI || path.resolve('build/tendyn');
  if (!fs.existsSync(cli)) {
    console.error(`viewer_fps: no program at ${cli} (build it, or set TENDYN_CLI, or pass --page)`);
    process.exit(2);
  }
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'tendyn-fps-'));
  execFileSync(cli, ['simulate', 'models/tower.yaml', '--html', '-q', '--duration', String(duration), '-o', out], { stdio: 'inherit' });
  html = path.join(out, 'view.html');
}
if (!fs.existsSync(html)) {
  console.error(`viewer_fps: no page at ${html}`);
  process.exit(2);
}

const browser = await launch();
if (!browser) {
  console.error('viewer_fps: no Chromium (set TENDYN_CHROMIUM)');
  process.exit(2);
}
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
console.log(`page ${html} (${(fs.statSync(html).size / 1e6).toFixed(2)} MB); load average ${load()}; ${os.cpus().length} CPUs`);
try {
  const errors = [];
  const page = await newPage(browser, errors);
  await page.goto(`file://${path.resolve(html)}`);
  await waitReady(page);
  console.log(`frames in the page: ${await page.$eval('#scrub', (el) => Number(el.max) + 1)}`);
  for (let r = 0; r < rounds; r++) {
    for (const arrows of [true, false]) {
      if (arrows) await page.check('#layer-forces');
      else await page.uncheck('#layer-forces');
      await page.evaluate(() => window.tendyn.seek(0));
      await page.evaluate(() => window.tendyn.play());
      await page.waitForTimeout(500);
      const m = await page.evaluate(async (ms) => {
        const f0 = window.tendyn.renderedFrames();
        const t0 = performance.now();
        await new Promise((res) => setTimeout(res, ms));
        return { frames: window.tendyn.renderedFrames() - f0, ms: performance.now() - t0 };
      }, 1000 * seconds);
      await page.evaluate(() => window.tendyn.pause());
      console.log(`round ${r + 1}, force arrows ${arrows ? 'on ' : 'off'}: ${((1000 * m.frames) / m.ms).toFixed(1)} fps (${m.frames} frames in ${m.ms.toFixed(0)} ms)`);
    }
  }
  if (errors.length) {
    console.error(`viewer_fps: the page reported errors:\n${errors.join('\n')}`);
    process.exitCode = 1;
  }
} finally {
  await browser.close();
}
console.log(`load average after: ${load()}`);
