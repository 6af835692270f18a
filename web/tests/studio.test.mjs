// Studio tests against `$TENDYN_CLI serve` (skipped when TENDYN_CLI is unset or has no serve;
// TENDYN_STUDIO_MOCK=1 runs them against tests/fixtures/mock_server.mjs instead).
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
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
  await page.goto(`${server.url}/?token=${server.token || ''}`);
  await page.waitForFunction(() => window.tendyn && window.tendyn.ready === true, null, { timeout: 30000 });
  return page;
}

/// Loads a shipped model and waits until its tables show it (window.tendyn.loads counts loads).
async function loadModel(page, name) {
  const loads = await page.evaluate(() => window.tendyn.loads || 0);
  await page.selectOption('#model-select', name);
  await page.click('#load-model');
  await page.waitForFunction((n) => (window.tendyn.loads || 0) > n && document.querySelector('#cable-table tr[data-cable]'), loads, { timeout: 30000 });
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
      await loadModel(page, 'prism3');
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

  test('compare with previous run: the previous run as a ghost, both series and their difference', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    const errors = [];
    const page = await openStudio(errors);
    try {
      await loadModel(page, 'prism3');
      await page.fill('#duration', '0.5');
      await page.fill('#output-interval', '0.01');
      await runAndWait(page);
      assert.equal(await page.isDisabled('#compare-prev'), true, 'nothing to compare with after one run');
      const cable = await page.$eval('tr[data-cable]', (tr) => tr.dataset.cable);
      const input = `tr[data-cable="${cable}"] input[data-field="stiffness_Npm"]`;
      const k0 = Number(await page.inputValue(input));
      await page.fill(input, String(k0 * 3));
      await page.press(input, 'Enter');
      await page.locator(input).blur();
      await runAndWait(page);
      assert.equal(await page.isDisabled('#compare-prev'), false);
      await page.check('#compare-prev');
      await page.waitForFunction(() => window.tendyn.ghosts().length === 1, null, { timeout: 10000 });
      const ghosts = await page.evaluate(() => window.tendyn.ghosts());
      assert.match(ghosts[0].title, /\(previous run\)$/);
      const plots = await page.evaluate(() => window.tendyn.plotData());
      const diff = plots.find((p) => p.title.startsWith('difference to A'));
      assert.ok(diff, `plots: ${plots.map((p) => p.title)}`);
      // the stiffer cable moves the nodes: the largest point distance between the runs grows from 0
      const d = diff.data[1];
      assert.equal(d[0], 0, 'same initial pose');
      assert.ok(Math.max(...d) > 1e-6, `difference ${Math.max(...d)}`);
      const cablePlot = plots.find((p) => p.series.some((n) => n.endsWith(' [B]')));
      assert.ok(cablePlot, 'the previous run\'s series are plotted beside this one\'s');
      assert.ok(cablePlot.series.includes(`${cable} [B]`) && cablePlot.series.includes(cable), cablePlot.series.join(', '));
      // untick: the last run alone again
      await page.uncheck('#compare-prev');
      await page.waitForFunction(() => window.tendyn.ghosts().length === 0, null, { timeout: 10000 });
      assert.ok(!(await page.evaluate(() => window.tendyn.plotData())).some((p) => p.title.startsWith('difference to A')));
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  // An invalid cell blocks the run (before: "done" with the model's previous value); the message
  // is next to the Run button and at the cell; the corrected value is the one run.
  test('an invalid table cell blocks the run and says why; the corrected value runs', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    if (MOCK) return t.skip('needs tendyn serve (run edits)');
    const errors = [];
    const page = await openStudio(errors);
    const runPosts = [];
    page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/run')) runPosts.push(JSON.parse(r.postData()));
    });
    try {
      await loadModel(page, 'prism3');
      await page.fill('#duration', '0.2');
      const cable = await page.$eval('tr[data-cable]', (tr) => tr.dataset.cable);
      const input = `tr[data-cable="${cable}"] input[data-field="stiffness_Npm"]`;
      await page.fill(input, '-5');
      await page.locator(input).blur();
      await page.waitForSelector(`tr[data-cable="${cable}"] .st-cell-error`);
      await page.click('#run');
      await page.waitForFunction(() => document.querySelector('#status').dataset.status === 'blocked', null, { timeout: 10000 });
      assert.equal(await page.isVisible('#run-blocked'), true);
      const why = await page.textContent('#run-blocked');
      assert.match(why, new RegExp(`cable ${cable}: stiffness_Npm: must be >= 0`), why);
      assert.match(await page.textContent(`tr[data-cable="${cable}"] .st-cell-error`), /must be >= 0/);
      assert.equal(runPosts.length, 0, 'no run was started with the invalid cell');
      // corrected: the run carries the new value and ends done
      await page.fill(input, '20');
      await page.locator(input).blur();
      await runAndWait(page);
      assert.equal(await page.isVisible('#run-blocked'), false);
      assert.equal(runPosts.length, 1);
      // the cable's stiffness in the canonical YAML: the first "stiffness:" after "- id: CABLE"
      const yamlK = (y) => { const m = /stiffness: ([0-9.e+-]+)/.exec(y.split(`- id: ${cable}\n`)[1] || ''); return m ? Number(m[1]) : NaN; };
      const sent = runPosts[0].edits.find((e) => e.id === cable && e.field === 'stiffness_Npm');
      assert.ok(sent ? sent.value === 20 : yamlK(runPosts[0].yaml) === 20, JSON.stringify(runPosts[0].edits));
      // the server refuses an invalid value itself, naming the element and field
      const refused = await page.evaluate(async (c) => {
        const yaml = document.querySelector('#yaml').value;
        const r = await fetch('/api/run', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Tendyn-Token': new URLSearchParams(location.search).get('token') },
          body: JSON.stringify({ yaml, duration_s: 0.2, edits: [{ op: 'set', element: 'cable', id: c, field: 'stiffness_Npm', value: -5 }] }) });
        return { status: r.status, body: await r.json() };
      }, cable);
      assert.equal(refused.status, 422);
      assert.match(refused.body.error, new RegExp(`request\\.edits\\[0\\]: cable '${cable}' stiffness_Npm = -5: must be >= 0`));
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  // Issue 17: a run in which a driven cable goes slack; the summary names the first slack cable
  // and its time, which the streamed scene confirms (its first zero-tension frame).
  test('summary names the first slack cable and its time (scene data agrees)', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    if (MOCK) return t.skip('needs tendyn serve (the mock server has no summary, node table or downloads)');
    const errors = [];
    const page = await openStudio(errors);
    try {
      await loadModel(page, 'prism3');
      await page.fill('#duration', '1');
      await page.fill('#output-interval', '0.01');
      const drive = 'tr.st-drive';
      await page.waitForSelector(drive);
      const cable = await page.$eval(`${drive} select`, (s) => s.value);
      await page.fill(`${drive} input[data-field="a"]`, '0.08');
      await page.fill(`${drive} input[data-field="b"]`, '12');
      await runAndWait(page);
      const s = await page.evaluate(() => window.tendyn.summary);
      assert.ok(s && s.first_slack, `no first_slack in ${JSON.stringify(s)}`);
      // the scene: the first frame in which a cable's tension is 0
      const job = await page.evaluate(async () => (await fetch(`/api/jobs/${window.tendyn.jobId()}?from=0&token=${new URLSearchParams(location.search).get('token')}`)).json());
      const names = job.scene.cables.map((c) => c.name);
      // (several cables may be slack by that frame: the server's monitor, which sees every
      // integration step, tells which went first)
      let first = null;
      job.frames.cable_tension_N.some((row, f) => {
        const slack = names.filter((n, k) => row[k] === 0);
        if (slack.length) first = { cables: slack, t: job.frames.t_s[f] };
        return slack.length > 0;
      });
      assert.ok(first, 'no slack frame in the scene');
      assert.ok(first.cables.includes(s.first_slack.cable), `summary ${s.first_slack.cable}, slack in the first slack frame: ${first.cables}`);
      assert.ok(s.first_slack.t_s <= first.t + 1e-9 && s.first_slack.t_s > first.t - 0.01 - 1e-9, `summary ${s.first_slack.t_s} s, scene ${first.t} s`);
      console.log(`# driven cable ${cable}; first slack ${s.first_slack.cable} at ${s.first_slack.t_s} s (frame ${first.t} s: ${first.cables})`);
      // ... and says it in words, with units
      const verdict = await page.textContent('#summary-verdict');
      assert.ok(verdict.includes(`not normal: cable ${s.first_slack.cable} slack at ${s.first_slack.t_s.toFixed(3)} s`), verdict);
      assert.match(await page.textContent('#summary-slack'), new RegExp(`${first.cables[0]} at ${first.t.toFixed(3)} s`));
      const com = await page.textContent('#summary-com');
      assert.match(com, /travelled [-0-9.e]+ m .*moved [-0-9.e]+ m/, com);
      const energy = await page.textContent('#summary-energy');
      assert.match(energy, /initial [-0-9.e]+ J, final [-0-9.e]+ J, min [-0-9.e]+ J at [0-9.]+ s, max [-0-9.e]+ J at [0-9.]+ s; drift/, energy);
      const e0 = job.frames.energy_J.total[0];
      assert.ok(Math.abs(s.energy_J.initial - e0) <= 1e-6 * Math.max(1, Math.abs(e0)), `${s.energy_J.initial} vs ${e0}`);
      assert.ok(!(await page.textContent('#summary')).includes('normal_mode'), 'raw keys in the summary');
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  // Issue 17: node positions are edited in a table; the edit reaches the model the run sends.
  test('editing a node position in the table changes the model sent to the server; bad values are shown at the cell', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    if (MOCK) return t.skip('needs tendyn serve (the mock server has no summary, node table or downloads)');
    const errors = [];
    const page = await openStudio(errors);
    try {
      await loadModel(page, 'prism3');
      const node = await page.$eval('#node-table tr[data-node]', (tr) => tr.dataset.node);
      const input = `#node-table tr[data-node="${node}"] input[data-field="x_m"]`;
      const x0 = Number(await page.inputValue(input));
      const x1 = Number((x0 + 0.015).toFixed(6));
      const yaml0 = await page.inputValue('#yaml');
      await page.fill(input, String(x1));
      await page.press(input, 'Enter');
      await page.waitForFunction((y) => document.querySelector('#yaml').value !== y, yaml0, { timeout: 15000 });
      assert.ok(Math.abs(Number(await page.inputValue(input)) - x1) < 1e-9, await page.inputValue(input));
      // the rod of that node got the new length
      const m = await page.evaluate(() => window.tendyn.model());
      const rod = m.rods.find((r) => r.from === node || r.to === node);
      const pos = Object.fromEntries(m.node_positions.map((n) => [n.id, [n.x_m, n.y_m, n.z_m]]));
      const d = Math.hypot(...[0, 1, 2].map((i) => pos[rod.from][i] - pos[rod.to][i]));
      assert.ok(Math.abs(Number(await page.inputValue(`#rod-table tr[data-rod="${rod.id}"] input[data-field="length_m"]`)) - d) < 1e-9);
      // the run request carries the moved node
      const sent = [];
      page.on('request', (r) => { if (r.url().endsWith('/api/run')) sent.push(r.postDataJSON()); });
      await page.fill('#duration', '0.1');
      await runAndWait(page);
      assert.equal(sent.length, 1);
      const check = await page.evaluate(async (yaml) => (await fetch('/api/model', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Tendyn-Token': new URLSearchParams(location.search).get('token') }, body: JSON.stringify({ yaml }) })).json(), sent[0].yaml);
      const n = check.model.node_positions.find((q) => q.id === node);
      assert.ok(Math.abs(n.x_m - x1) < 1e-9, `sent x = ${n.x_m}, edited ${x1}`);
      // the first frame of the run has the node there
      const job = await page.evaluate(async () => (await fetch(`/api/jobs/${window.tendyn.jobId()}?from=0&token=${new URLSearchParams(location.search).get('token')}`)).json());
      const p = job.scene.points.indexOf(node);
      assert.ok(Math.abs(job.frames.positions_m[0][3 * p] - x1) < 1e-6, `frame 0 x = ${job.frames.positions_m[0][3 * p]}`);
      // a rod mass <= 0 is refused at the cell, nothing is sent, the model stays
      const mass = `#rod-table tr[data-rod="${rod.id}"] input[data-field="mass_kg"]`;
      const yaml1 = await page.inputValue('#yaml');
      await page.fill(mass, '-2');
      await page.press(mass, 'Enter');
      await page.waitForSelector(`#rod-table tr[data-rod="${rod.id}"] .st-cell-error`);
      assert.match(await page.textContent(`#rod-table tr[data-rod="${rod.id}"] .st-cell-error`), /mass_kg: must be > 0/);
      assert.equal(await page.getAttribute(mass, 'aria-invalid'), 'true');
      assert.equal(await page.inputValue('#yaml'), yaml1);
      // a server-side refusal is shown at the cell too (a node onto its rod's other end)
      const other = rod.from === node ? rod.to : rod.from;
      const errCell = `#node-table tr[data-node="${node}"] input[data-field="x_m"]`;
      const [ox, oy, oz] = pos[other];
      for (const [f, v] of [['y_m', oy], ['z_m', oz]]) {
        const sel = `#node-table tr[data-node="${node}"] input[data-field="${f}"]`;
        const y = await page.inputValue('#yaml');
        await page.fill(sel, String(v));
        await page.press(sel, 'Enter');
        await page.waitForFunction((yy) => document.querySelector('#yaml').value !== yy, y, { timeout: 15000 });
      }
      await page.fill(errCell, String(ox));
      await page.press(errCell, 'Enter');
      await page.waitForSelector(`#node-table tr[data-node="${node}"] .st-cell-error`, { timeout: 15000 });
      assert.match(await page.textContent(`#node-table tr[data-node="${node}"] .st-cell-error`), /two nodes at one point/);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  // Issue 17: the run is downloaded as CSV (header with units) and JSON; both match the run.
  test('download buttons give CSV and JSON of the run', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    if (MOCK) return t.skip('needs tendyn serve (the mock server has no summary, node table or downloads)');
    const errors = [];
    const page = await openStudio(errors);
    try {
      await loadModel(page, 'prism3');
      await page.fill('#duration', '0.3');
      await page.fill('#output-interval', '0.01');
      assert.equal(await page.isDisabled('#download-csv'), true);
      await runAndWait(page);
      const job = await page.evaluate(async () => (await fetch(`/api/jobs/${window.tendyn.jobId()}?from=0&token=${new URLSearchParams(location.search).get('token')}`)).json());
      const get = async (button) => {
        const [dl] = await Promise.all([page.waitForEvent('download'), page.click(button)]);
        const file = path.join(dir, dl.suggestedFilename());
        await dl.saveAs(file);
        return { name: dl.suggestedFilename(), text: fs.readFileSync(file, 'utf8') };
      };
      const csv = await get('#download-csv');
      assert.match(csv.name, /\.csv$/);
      const lines = csv.text.trimEnd().split('\n');
      const header = lines[0].split(',');
      assert.equal(lines.length, job.frames.t_s.length + 1);
      assert.deepEqual(header.slice(0, 8), ['t_s', 'com_x_m', 'com_y_m', 'com_z_m', 'kinetic_J', 'elastic_J', 'gravitational_J', 'total_J']);
      for (const h of header) assert.match(h, /_(s|m|J|N)$|\.strain$/, `column without unit: ${h}`);
      const c0 = job.scene.cables[0].name;
      const col = header.indexOf(`${c0}.tension_N`);
      assert.ok(col > 0, header.join(','));
      for (const f of [0, 10, job.frames.t_s.length - 1]) {
        const row = lines[f + 1].split(',').map(Number);
        assert.ok(Math.abs(row[0] - job.frames.t_s[f]) < 1e-9);
        const want = job.frames.cable_tension_N[f][0];
        assert.ok(Math.abs(row[col] - want) <= 1e-6 * Math.max(1, Math.abs(want)), `frame ${f}: ${row[col]} vs ${want}`);
        const p = header.indexOf(`${job.scene.points[1]}.z_m`);
        assert.ok(Math.abs(row[p] - job.frames.positions_m[f][5]) <= 1e-6);
      }
      const js = await get('#download-json');
      assert.match(js.name, /\.json$/);
      const run = JSON.parse(js.text);
      assert.equal(run.format, 'tendyn-scene');
      assert.deepEqual(run.frames.t_s, job.frames.t_s);
      assert.deepEqual(run.frames.cable_tension_N, job.frames.cable_tension_N);
      assert.deepEqual(run.summary, await page.evaluate(() => window.tendyn.summary));
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });

  // Issue 17: CDPR models load, are edited in tables and run like tensegrity ones.
  test('a CDPR model loads, its platform mass is edited, and it runs', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    if (MOCK) return t.skip('needs tendyn serve (the mock server has no CDPR models)');
    const errors = [];
    const page = await openStudio(errors);
    try {
      const names = await page.$$eval('#model-select option', (os) => os.map((o) => o.value));
      if (!names.includes('cdpr-planar4')) return t.skip(`no CDPR models (built without the CDPR module?): ${names}`);
      await loadModel(page, 'cdpr-planar4');
      await page.waitForSelector('#platform-table input[data-field="mass_kg"]');
      assert.equal(await page.isVisible('#cdpr-panel'), true);
      assert.equal(await page.isVisible('#forward-panel'), false);
      assert.equal(await page.isVisible('#mode'), false, 'the tensegrity run mode is shown for a CDPR model');
      assert.equal(await page.isVisible('#duration'), false, 'the duration is the path length / speed for a CDPR model');
      assert.equal(await page.$$eval('#cable-table tr[data-cable]', (r) => r.length), 4);
      assert.equal(Number(await page.inputValue('#cable-table tr[data-cable="c1"] input[data-field="anchor_x_m"]')), -1);
      assert.match(await page.inputValue('#cdpr-path'), /\d.*\n.*\d/);
      await page.fill('#output-interval', '0.05');
      await runAndWait(page);
      const s1 = await page.evaluate(() => window.tendyn.summary);
      assert.equal(s1.mode, 'cdpr');
      assert.equal(s1.platform_mass_kg, 1);
      const c1 = await page.evaluate(() => window.tendyn.counts());
      assert.equal(c1.cables, 4);
      // edit the platform mass in its table: the model sent with the next run has it
      const mass = '#platform-table input[data-field="mass_kg"]';
      const yaml0 = await page.inputValue('#yaml');
      await page.fill(mass, '3');
      await page.press(mass, 'Enter');
      await page.waitForFunction((y) => document.querySelector('#yaml').value !== y, yaml0, { timeout: 15000 });
      assert.match(await page.inputValue('#yaml'), /platform: \{mass: 3,/);
      const sent = [];
      page.on('request', (r) => { if (r.url().endsWith('/api/run')) sent.push(r.postDataJSON()); });
      await runAndWait(page);
      assert.equal(sent.length, 1);
      assert.match(sent[0].yaml, /mass: 3/);
      assert.ok(Array.isArray(sent[0].cdpr.path) && sent[0].cdpr.path.length >= 2);
      const s3 = await page.evaluate(() => window.tendyn.summary);
      assert.equal(s3.platform_mass_kg, 3);
      assert.equal(s3.not_ok_poses, 0);
      assert.ok(s3.tension_N.max.value_N > 2 * s1.tension_N.max.value_N, `${s3.tension_N.max.value_N} vs ${s1.tension_N.max.value_N}`);
      assert.match(await page.textContent('#summary-verdict'), /all \d+ poses solved/);
      assert.match(await page.textContent('#summary-tension'), /highest c\d [0-9.e]+ N at [0-9.]+ s/);
      // the scene's last frame: the platform point P at the path's end
      const job = await page.evaluate(async () => (await fetch(`/api/jobs/${window.tendyn.jobId()}?from=0&token=${new URLSearchParams(location.search).get('token')}`)).json());
      const P = job.scene.points.indexOf('P');
      const last = job.frames.positions_m[job.frames.positions_m.length - 1];
      const end = sent[0].cdpr.path[sent[0].cdpr.path.length - 1];
      assert.ok(Math.abs(last[3 * P] - end[0]) < 1e-6 && Math.abs(last[3 * P + 1] - end[1]) < 1e-6, `P at ${last.slice(3 * P, 3 * P + 2)}, path end ${end}`);
      // a planar path point with three numbers is refused before sending
      await page.fill('#cdpr-path', '0, 0, 0\n0.1, 0, 0');
      await page.click('#run');
      await page.waitForSelector('#error', { state: 'visible' });
      assert.match(await page.textContent('#error'), /platform path line 1: expected "x, y"/);
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
      res = await fetch(`${server.url}/api/run`, { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-Tendyn-Token': server.token || '' }, body, signal: AbortSignal.timeout(30000) });
    } catch (e) {
      assert.fail(`POST /api/run with 2 MB failed without an HTTP answer: ${e.cause ? e.cause.code || e.cause.message : e.message}`);
    }
    assert.equal(res.status, 413);
    assert.match(res.headers.get('content-type') || '', /application\/json/);
    const json = await res.json();
    assert.equal(typeof json.error, 'string');
    assert.ok(json.error.length > 0);
  });
  // Layout: the model is drawn before a run; a run's error is next to the Run button; the summary
  // is in view at 1280 x 800 without scrolling; a tiny number reads with its exponent.
  test('the model before a run, run errors at the Run button, the summary in view, readable tiny numbers', { timeout: 240000 }, async (t) => {
    if (!(await needBrowser(t))) return;
    if (MOCK) return t.skip('needs tendyn serve (summary, model JSON)');
    const errors = [];
    const page = await openStudio(errors);
    try {
      await loadModel(page, 'prism3');
      // drawn before any run: 3 rods, 9 cables at their initial positions
      await page.waitForFunction(() => (window.tendyn.previews || 0) > 0, null, { timeout: 10000 });
      const c = await page.evaluate(() => window.tendyn.counts());
      assert.equal(c.rods, 3);
      assert.equal(c.cables, 9);
      assert.match(await page.textContent('#viewer .tv-title'), /before a run/);
      // a tiny value: shown with its exponent, not clipped to "5.55111"
      const cable = await page.$eval('tr[data-cable]', (tr) => tr.dataset.cable);
      const input = `tr[data-cable="${cable}"] input[data-field="damping_Nspm"]`;
      const yaml0 = await page.inputValue('#yaml');
      await page.fill(input, '5.551115123125783e-17');
      await page.locator(input).blur();
      await page.waitForFunction((y) => document.querySelector('#yaml').value !== y, yaml0, { timeout: 15000 });
      await page.waitForFunction((sel) => document.querySelector(sel).value === '5.551e-17', input, { timeout: 10000 });
      const fit = await page.$eval(input, (e) => ({ scroll: e.scrollWidth, client: e.clientWidth }));
      assert.ok(fit.scroll <= fit.client, `the cell shows its whole text (text ${fit.scroll} px, cell ${fit.client} px)`);
      assert.match(await page.getAttribute(input, 'title'), /5\.551115123125783e-17/);
      // a run the server refuses (negative duration): the reason next to the Run button
      await page.fill('#duration', '-1');
      await page.click('#run');
      await page.waitForFunction(() => document.querySelector('#status').dataset.status === 'error', null, { timeout: 15000 });
      assert.equal(await page.isVisible('#run-blocked'), true);
      assert.match(await page.textContent('#run-blocked'), /duration/);
      // a good run: the summary in view without scrolling
      await page.fill('#duration', '0.3');
      await runAndWait(page);
      assert.equal(await page.isVisible('#run-blocked'), false);
      const box = await page.$eval('#summary-verdict', (e) => { const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, scrollY: window.scrollY }; });
      assert.equal(box.scrollY, 0);
      assert.ok(box.top >= 0 && box.bottom <= 800, `summary verdict at ${box.top}..${box.bottom} px (window 800 px)`);
      await page.screenshot({ path: path.join(dir, 'studio-layout.png') });
      if (process.env.TENDYN_SCREENSHOT_DIR) {  // docs/img/viewer: the pictures of docs/VIEWER.md
        fs.mkdirSync(process.env.TENDYN_SCREENSHOT_DIR, { recursive: true });
        fs.copyFileSync(path.join(dir, 'studio-layout.png'), path.join(process.env.TENDYN_SCREENSHOT_DIR, 'studio-layout.png'));
      }
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
});
