// Shared helpers of the browser tests: inputs from the environment, the bundle, scene pages
// (from $TENDYN_CLI when it has --html, else synthetic scenes), Chromium, and `tendyn serve`.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageHtml } from '../make_html.mjs';
import * as synth from './fixtures/synth.mjs';

export const WEB_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SOURCE_DIR = process.env.TENDYN_SOURCE_DIR || path.resolve(WEB_DIR, '..');
export const CLI = process.env.TENDYN_CLI || '';
export const CHROMIUM = process.env.TENDYN_CHROMIUM || '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--headless=new', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist', '--disable-gpu-compositing', '--disable-dev-shm-usage'];

export function tempDir(tag) {
  return fs.mkdtempSync(path.join(process.env.TENDYN_TEST_TMP || os.tmpdir(), `tendyn-web-${tag}-`));
}

let cliHelp = null;
function help(args) {
  try {
    return execFileSync(CLI, [...args, '--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 30000 });
  } catch (e) {
    return String(e.stdout || '');
  }
}
/// What $TENDYN_CLI can do: {html: simulate --html, serve: the serve subcommand}.
export function cliCaps() {
  if (cliHelp) return cliHelp;
  cliHelp = { html: false, serve: false };
  if (CLI && fs.existsSync(CLI)) {
    cliHelp.html = /--html\b/.test(help(['simulate']));
    cliHelp.serve = /^\s+serve\b/m.test(help([]));
  }
  return cliHelp;
}

/// Bundle directory: $TENDYN_WEB_OUT, or a fresh build in a temp dir.
let bundleDir = null;
export function bundle() {
  if (bundleDir) return bundleDir;
  const env = process.env.TENDYN_WEB_OUT;
  if (env && fs.existsSync(path.join(env, 'viewer.js'))) {
    bundleDir = env;
  } else {
    bundleDir = tempDir('bundle');
    execFileSync(process.execPath, [path.join(WEB_DIR, 'build.mjs'), bundleDir], { stdio: 'ignore', timeout: 120000 });
  }
  return bundleDir;
}

export function htmlFromScene(scene, outPath) {
  const dir = bundle();
  const js = fs.readFileSync(path.join(dir, 'viewer.js'), 'utf8').replace(/\n$/, '');
  const css = fs.readFileSync(path.join(dir, 'viewer.css'), 'utf8').replace(/\n$/, '');
  const sceneJson = typeof scene === 'string' ? scene : JSON.stringify(scene);
  fs.writeFileSync(outPath, pageHtml({ js, css, sceneJson, title: (typeof scene === 'object' && scene.title) || 'viewer' }));
  return outPath;
}

/// A viewer page of a model run for 10 s at 100 Hz (1,001 frames):
/// {html, scene, source: 'cli' | 'synthetic'}. name: 'prism3' | 'tower'.
export function scenePage(name, dir) {
  if (cliCaps().html) {
    const out = path.join(dir, name);
    execFileSync(CLI, ['simulate', '--html', '-q', '--duration', '10', '--output-interval', '0.01', '-o', out, path.join(SOURCE_DIR, 'models', `${name}.yaml`)], { cwd: SOURCE_DIR, stdio: ['ignore', 'ignore', 'pipe'], timeout: 300000 });
    return { html: path.join(out, 'view.html'), scene: JSON.parse(fs.readFileSync(path.join(out, 'scene.json'), 'utf8')), source: 'cli' };
  }
  const scene = name === 'prism3' ? synth.prism3({ nframes: 1001 }) : synth[name]({ nframes: 1001 });
  return { html: htmlFromScene(scene, path.join(dir, `${name}.html`)), scene, source: 'synthetic' };
}

async function waitForFile(p, seconds) {
  for (let i = 0; i < seconds; i++) {
    if (fs.existsSync(p)) return true;
    await new Promise((r) => setTimeout(r, 1000));
  }
  return fs.existsSync(p);
}

/// Launches Chromium (waits up to 2 minutes for it to appear). Returns null if it is missing,
/// so the caller can skip (unless TENDYN_REQUIRE_BROWSER=1, then it throws).
export async function launch() {
  if (!(await waitForFile(CHROMIUM, process.env.CI ? 5 : 120))) {
    if (process.env.TENDYN_REQUIRE_BROWSER === '1') throw new Error(`${CHROMIUM} not found`);
    return null;
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, timeout: 60000 });
}

// Skips test t (and says why) when no browser could be launched; true when skipped.
export function skipWithoutBrowser(t, browser) {
  if (browser) return false;
  t.skip(`no Chromium at ${CHROMIUM} (set TENDYN_CHROMIUM)`);
  return true;
}

export async function newPage(browser, errors) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(30000);
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    // "Failed to load resource" is the browser's note on any 4xx answer (favicon, or an API
    // error the studio test provokes on purpose); the page reports what matters in #error.
    if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) errors.push(`console: ${m.text()}`);
  });
  return page;
}

export async function waitReady(page) {
  await page.waitForFunction(() => window.tendyn && window.tendyn.ready === true, null, { timeout: 30000 });
}

/// Luminance variance of the middle of a PNG screenshot (decoded by the page itself).
export async function pngVariance(page, png) {
  return page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const x0 = Math.floor(img.width * 0.3), y0 = Math.floor(img.height * 0.3);
    const d = g.getImageData(x0, y0, Math.floor(img.width * 0.4), Math.floor(img.height * 0.4)).data;
    let s = 0, s2 = 0, n = 0;
    for (let i = 0; i < d.length; i += 4) {
      const l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      s += l; s2 += l * l; n++;
    }
    const m = s / n;
    return s2 / n - m * m;
  }, png.toString('base64'));
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/// Starts `$TENDYN_CLI serve --port N` and waits for /api/health and the printed token.
/// Returns {url, token, stop(), log()}; pages are opened at `${url}/?token=${token}`.
export async function startServer() {
  const port = await freePort();
  const proc = spawn(CLI, ['serve', '--port', String(port), '--host', '127.0.0.1'], { cwd: SOURCE_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  let exited = false;
  proc.on('exit', () => { exited = true; });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (exited) return;
    proc.kill('SIGTERM');
    for (let i = 0; i < 50 && !exited; i++) await new Promise((r) => setTimeout(r, 100));
    if (!exited) proc.kill('SIGKILL');
  };
  const deadline = Date.now() + 30000;
  let token = '';
  for (;;) {
    if (exited) throw new Error(`tendyn serve exited early:\n${out}`);
    const m = /\?token=([0-9a-f]+)/.exec(out);  // the printed address carries the server's secret
    if (m) token = m[1];
    try {
      const r = await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2000) });
      if (r.ok && token) break;
    } catch {
      // not up yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`tendyn serve did not answer /api/health within 30 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, token, stop, log: () => out };
}

export function lastOf(a) {
  return a[a.length - 1];
}
