// Studio tests against `$TENDYN_CLI serve` (skipped when TENDYN_CLI is unset or has no serve;
// TENDYN_STUDIO_MOCK=1 runs them against tests/fixtures/mock_server.mjs instead).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { bundle, cliCaps, freePort, launch, newPage, startServer, tempDir, WEB_DIR } from './helpers.mjs';

const MOCK = process.env.TENDYN_STUDIO_MOCK === '1';
let server = null;
let browser = null;
let skipWhy = null;
let dir = null;

async function startMock() {
  const port = await freePort();
  const proc = spawn(process.execPath, [path.join(WEB_DIR, 'tests/fixtures/mock_server.mjs'), String(port), bundle()], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, stop: async () => proc.kill('SIGTERM'), log: () => '' };
}

before(async () => {
  dir = tempDir('studio');
  if (!MOCK && !cliCaps().serve) {
    skipWhy = process.env.TENDYN_CLI ? `${process.env.TENDYN_CLI} has no \`serve\` subcommand` : 'TENDYN_CLI is not set (path of the tendyn binary with `serve`)';
    return;
  }
  server = MOCK ? await startMock() : await startServer();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

async function needBrowser(t) {
  if (skipWhy) {
    t.skip(skipWhy);
    return null;
  }
  if (!browser) browser = await launch();
  if (!browser) t.skip('no Chromium at /usr/bin/chromium');
  return browser;
}

async function openStudio(errors) {
  const page = await newPage(browser, errors);
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => window.tendyn && window.tendyn.ready === true, null, { timeout: 30000 });
  return page;
}

async function runAndWait(page) {
  const runs = await page.evaluate(() => window.tendyn.runs || 0);
  await page.click('#run');
  await page.waitForFunction((n) => (window.tendyn.runs || 0) > n || document.querySelector('#status').dataset.status === 'error', runs, { timeout: 90000 });
  const status = await page.$eval('#status', (e) => e.dataset.status);
  if (status !== 'done') throw new Error(`run ended with status ${status}: ${await page.textContent('#error')}`);
}

describe('studio', () => {
  test('edit a cable in the table, run forward 1 s, results change', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    const errors = [];
    const page = await openStudio(errors);
    try {
      const names = await page.$$eval('#model-select option', (os) => os.map((o) => o.value));
      assert.ok(names.includes('prism3'), `models: ${names}`);
      await page.selectOption('#model-select', 'prism3');
      await page.click('#load-model');
      await page.waitForSelector('tr[data-cable] input[data-field="stiffness_Npm"]');
      await page.fill('#duration', '1');
      await page.fill('#output-interval', '0.01');
      // run before the edit
      await runAndWait(page);
      const t1 = await page.textContent('#time-readout');
      assert.match(t1, /^t = 1\.000 s$/);
      const plots1 = await page.evaluate(() => window.tendyn.plotData());
      assert.ok(plots1.length > 0 && plots1[0].data[0].length >= 100, 'plots have the streamed frames');
      // edit the first cable's stiffness: the YAML is replaced by the server's canonical one
      const cable = await page.$eval('tr[data-cable]', (tr) => tr.dataset.cable);
      const input = `tr[data-cable="${cable}"] input[data-field="stiffness_Npm"]`;
      const k0 = Number(await page.inputValue(input));
      const yaml0 = await page.inputValue('#yaml');
      await page.fill(input, String(k0 * 3));
      await page.press(input, 'Enter');
      await page.locator(input).blur();
      await page.waitForFunction((y) => document.querySelector('#yaml').value !== y, yaml0, { timeout: 15000 });
      assert.equal(Number(await page.inputValue(input)), k0 * 3);
      assert.equal(await page.isVisible('#error'), false);
      // run after the edit
      await runAndWait(page);
      assert.match(await page.textContent('#time-readout'), /^t = 1\.000 s$/);
      const plots2 = await page.evaluate(() => window.tendyn.plotData());
      assert.equal(plots2[0].title, plots1[0].title);
      assert.notDeepEqual(plots2[0].data.slice(1), plots1[0].data.slice(1), 'cable plot unchanged after the stiffness edit');
      const c = await page.evaluate(() => window.tendyn.counts());
      assert.ok(c.rods > 0 && c.cables > 0, JSON.stringify(c));
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  test('malformed YAML: the run shows the server message with its line', { timeout: 120000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    const errors = [];
    const page = await openStudio(errors);
    try {
      await page.fill('#yaml', 'tendyn: tensegrity\nname: broken\nnodes:\n  - id: a\n    position: [0, 0\n  - {id: b, position: [1, 0, 0]}\n');
      await page.fill('#duration', '1');
      await page.click('#run');
      await page.waitForSelector('#error', { state: 'visible', timeout: 30000 });
      await page.waitForFunction(() => document.querySelector('#status').dataset.status === 'error', null, { timeout: 30000 });
      const msg = await page.textContent('#error');
      console.log(`# studio error box: ${msg}`);
      assert.match(msg, /:\d+:\d+|line \d+/, msg);
    } finally {
      await page.close();
    }
  });

  test('a 2 MB request body gets 413 with a JSON error', { timeout: 60000 }, async (t) => {
    if (skipWhy) return t.skip(skipWhy);
    const body = JSON.stringify({ yaml: `# ${'x'.repeat(2 * 1024 * 1024)}\n`, mode: 'forward', duration_s: 1, output_interval_s: 0.01 });
    let res;
    try {
      res = await fetch(`${server.url}/api/run`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal: AbortSignal.timeout(30000) });
    } catch (e) {
      assert.fail(`POST /api/run with 2 MB failed without an HTTP answer: ${e.cause ? e.cause.code || e.cause.message : e.message}`);
    }
    assert.equal(res.status, 413);
    assert.match(res.headers.get('content-type') || '', /application\/json/);
    const json = await res.json();
    assert.equal(typeof json.error, 'string');
    assert.ok(json.error.length > 0);
  });
});
