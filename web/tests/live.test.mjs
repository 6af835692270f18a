// The live view (docs/VIEWER.md, "Live view"): a Python loop pushes 200 frames of a simulated
// prism to a running `$TENDYN_CLI serve` through tendyn.viewer (the bound viz::LiveClient) while the
// page /live is open in headless Chromium; the page ends on the last frame pushed (time and every
// node position, read back from the page's state) and polls at most 30 times a second.
// Needs TENDYN_CLI (with serve) and TENDYN_PYTHONPATH (the built Python package); skipped without.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cliCaps, launch, newPage, SOURCE_DIR, startServer } from './helpers.mjs';

const PYTHONPATH = process.env.TENDYN_PYTHONPATH || '';
// the interpreter the module is built for (CMakeLists.txt prefers /usr/bin/python3)
const PYTHON = process.env.TENDYN_PYTHON || (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
let server = null;
let browser = null;
let skipWhy = null;

// 200 steps of 1 ms, one update per step, 4 ms of wall time between them (a loop slower than
// real time, faster than the 30 Hz rate limit), then the last frame as JSON on stdout.
const PUSHER = `
import json, sys, time
import tendyn, tendyn.viewer
ts = tendyn.tensegrity
port, model_path = int(sys.argv[1]), sys.argv[2]
model = ts.load_model_file(model_path).model
n, pause_s, keep_all = (int(sys.argv[3]), float(sys.argv[4]), sys.argv[5] == "1") if len(sys.argv) > 3 else (200, 0.004, False)
view = tendyn.viewer.show(model, port=port, quiet=True, keep_all=keep_all)
state, data = model.initial_state, ts.make_data(model)
ts.compute_derivative(model, state, data)
for k in range(1, n + 1):
    ts.step(model, data, state, 1e-3, t_end_s=k * 1e-3)
    view.update(state, data=data)
    if pause_s > 0:
        time.sleep(pause_s)
assert view.flush(20.0), view.stats
p = data.p_W_node
s = view.stats
print(json.dumps({"t_s": state.time_s, "positions_m": [float(p[c, i]) for i in range(p.shape[1]) for c in range(3)],
                  "given": s.given, "sent": s.sent, "replaced": s.replaced}))
view.close()
`;

function runPython(args) {  // port, model[, steps, pause_s, keep_all (1/0)]
  return new Promise((resolve, reject) => {
    const proc = spawn(PYTHON, ['-c', PUSHER, ...args], { env: { ...process.env, PYTHONPATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    proc.stdout.on('data', (d) => { out += d; });
    proc.stderr.on('data', (d) => { err += d; });
    proc.on('error', reject);
    proc.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`python exited with ${code}:\n${err}`))));
  });
}

before(async () => {
  if (!cliCaps().serve) {
    skipWhy = process.env.TENDYN_CLI ? `${process.env.TENDYN_CLI} has no \`serve\` subcommand` : 'TENDYN_CLI is not set';
    return;
  }
  if (!PYTHONPATH) {
    skipWhy = 'TENDYN_PYTHONPATH is not set (the built Python package: <build>/python)';
    return;
  }
  server = await startServer();
});

after(async () => {
  if (browser) await browser.close();
  if (server) await server.stop();
});

describe('live view', () => {
  test('a Python loop pushes 200 frames; the page shows the last one', { timeout: 180000 }, async (t) => {
    if (skipWhy) return t.skip(skipWhy);
    browser = await launch();
    if (!browser) return t.skip('no Chromium at /usr/bin/chromium');
    const errors = [];
    const page = await newPage(browser, errors);
    try {
      await page.goto(`${server.url}/live?token=${server.token}`);
      await page.waitForFunction(() => window.tendyn && window.tendyn.ready === true, null, { timeout: 30000 });
      const before = await page.evaluate(() => window.tendyn.live());
      assert.equal(before.frames, 0);
      assert.match(await page.textContent('#live-status'), /waiting for a program/);
      const wall0 = Date.now();
      const polls0 = before.polls;
      const pushed = JSON.parse(await runPython([String(server.url.split(':').pop()), path.join(SOURCE_DIR, 'models', 'prism3.yaml')]));
      assert.equal(pushed.given, 200);
      assert.equal(pushed.sent + pushed.replaced, 200);
      assert.ok(pushed.replaced > 0, 'the rate limit dropped frames pushed faster than 30 Hz');
      // the page catches up with the last frame
      await page.waitForFunction((tEnd) => {
        const l = window.tendyn.live();
        return l.last && Math.abs(l.last.t_s - tEnd) < 1e-9 && l.count >= 1;
      }, pushed.t_s, { timeout: 15000 });
      const live = await page.evaluate(() => window.tendyn.live());
      const wall = (Date.now() - wall0) / 1000;
      console.log(`# live: ${pushed.sent} of 200 frames posted, page holds ${live.frames} after ${live.polls - polls0} polls in ${wall.toFixed(2)} s`);
      assert.equal(live.session, 1);
      assert.equal(live.count, pushed.sent);
      assert.equal(live.frames, pushed.sent, 'every posted frame reached the page');
      assert.ok(live.frames > 1, 'frames arrived while the loop ran, not only the last one');
      assert.equal(live.shown, live.frames - 1, 'the page follows the newest frame');
      assert.equal(live.last.t_s, pushed.t_s);
      assert.equal(live.last.positions_m.length, pushed.positions_m.length);
      pushed.positions_m.forEach((v, i) => {
        assert.ok(Math.abs(live.last.positions_m[i] - v) <= 1e-6 * Math.abs(v) + 1e-12, `position ${i}: page ${live.last.positions_m[i]}, pushed ${v}`);
      });
      assert.match(await page.textContent('#time-readout'), /^t = 0\.200 s$/);
      assert.match(await page.textContent('#live-status'), /session 1: \d+ frames received, last t = 0\.200 s/);
      // the browser is throttled: at most 30 polls a second (+1 for the one in flight)
      assert.ok(live.polls - polls0 <= 30 * wall + 2, `${live.polls - polls0} polls in ${wall} s`);
      const c = await page.evaluate(() => window.tendyn.counts());
      assert.equal(c.rods, 3);
      assert.equal(c.cables, 9);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
    }
  });
  test('keep every frame: a fast loop\'s 3000 frames all reach the page; a quiet program and a stopped server are said so', { timeout: 180000 }, async (t) => {
    if (skipWhy) return t.skip(skipWhy);
    if (!browser) browser = await launch();
    if (!browser) return t.skip('no Chromium at /usr/bin/chromium');
    const own = await startServer();  // this test stops it
    const errors = [];
    const page = await newPage(browser, errors);
    try {
      await page.goto(`${own.url}/live?token=${own.token}&keep=1`);
      await page.waitForFunction(() => window.tendyn && window.tendyn.ready === true, null, { timeout: 30000 });
      assert.equal(await page.isChecked('#live-keep'), true, '?keep=1 ticks "keep every frame"');
      // no pause between steps: thousands of frames a second, far beyond the 30 Hz rate limit
      const pushed = JSON.parse(await runPython([String(own.url.split(':').pop()), path.join(SOURCE_DIR, 'models', 'prism3.yaml'), '3000', '0', '1']));
      assert.equal(pushed.given, 3000);
      assert.equal(pushed.replaced, 0, 'keep_all replaces no frame');
      assert.equal(pushed.sent, 3000);
      await page.waitForFunction(() => window.tendyn.live().frames >= 3000, null, { timeout: 30000 });
      const live = await page.evaluate(() => window.tendyn.live());
      assert.equal(live.frames, 3000, 'the page holds every frame');
      assert.equal(live.count, 3000);
      assert.equal(live.last.t_s, pushed.t_s);
      // every frame, in order, 1 ms apart: scrubbable after the run
      const times = await page.evaluate(() => Array.from(window.tendyn._viewer.store.f.t_s));
      times.forEach((v, i) => assert.ok(Math.abs(v - (i + 1) * 1e-3) < 1e-9, `frame ${i}: t = ${v}`));
      await page.evaluate(() => window.tendyn.seek(1234));
      assert.match(await page.textContent('#time-readout'), /^t = 1\.235 s$/);
      // the program is gone: after 3 s without a frame the page says so
      await page.waitForFunction(() => window.tendyn.live().stale, null, { timeout: 10000 });
      assert.match(await page.textContent('#live-note'), /no new frame for \d+ s \(program stopped or paused\?\)/);
      const shot = path.join(process.env.TENDYN_TEST_TMP || '/tmp', 'live-keep.png');
      await page.screenshot({ path: shot });
      if (process.env.TENDYN_SCREENSHOT_DIR) {  // docs/img/viewer: the pictures of docs/VIEWER.md
        fs.mkdirSync(process.env.TENDYN_SCREENSHOT_DIR, { recursive: true });
        fs.copyFileSync(shot, path.join(process.env.TENDYN_SCREENSHOT_DIR, 'live-keep.png'));
      }
      // the server is gone: a clear message, not the browser's "Failed to fetch"
      await own.stop();
      await page.waitForFunction(() => window.tendyn.live().gone, null, { timeout: 15000 });
      const err = await page.textContent('#error');
      assert.match(err, /does not answer: it was stopped or crashed/);
      assert.doesNotMatch(err, /Failed to fetch/i);
      assert.match(await page.textContent('#live-status'), /server gone/);
      assert.equal((await page.evaluate(() => window.tendyn.live())).frames, 3000, 'the frames stay');
      assert.deepEqual(errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e)), []);
    } finally {
      await page.close();
      await own.stop();
    }
  });
  test('pause and step the running program from the page: it waits in update until resumed', { timeout: 180000 }, async (t) => {
    if (skipWhy) return t.skip(skipWhy);
    if (!browser) browser = await launch();
    if (!browser) return t.skip('no Chromium at /usr/bin/chromium');
    const own = await startServer();
    const errors = [];
    const page = await newPage(browser, errors);
    // frames the server holds, asked directly (the page may be busy drawing a poll of 2000 frames)
    const count = async () => {
      const r = await fetch(`${own.url}/live/state?session=0&after=0`, { headers: { 'X-Tendyn-Token': own.token } });
      return (await r.json()).count;
    };
    const settle = async () => {  // the count once it stops changing for 0.5 s
      let c = await count();
      for (let i = 0; i < 40; i++) {
        await new Promise((r) => setTimeout(r, 500));
        const c2 = await count();
        if (c2 === c) return c;
        c = c2;
      }
      return c;
    };
    try {
      await page.goto(`${own.url}/live?token=${own.token}&keep=1`);
      await page.waitForFunction(() => window.tendyn && window.tendyn.ready === true, null, { timeout: 30000 });
      // 6000 frames, 2 ms of sleep each: at least 12 s unpaused, every frame kept
      const done = runPython([String(own.url.split(':').pop()), path.join(SOURCE_DIR, 'models', 'prism3.yaml'), '6000', '0.002', '1']);
      let finished = false;
      done.then(() => { finished = true; }, () => { finished = true; });
      await page.waitForFunction(() => window.tendyn.live().count >= 300, null, { timeout: 30000 });
      await page.click('#live-pause');
      // (a poll answered before the pause may still arrive and show "running" once: wait for the
      // state the server holds, which every later answer carries)
      await page.waitForFunction(() => window.tendyn.live().paused
        && document.querySelector('#live-control').textContent.includes('paused: the program waits in send_frame'), null, { timeout: 5000 });
      assert.match(await page.textContent('#live-pause'), /resume program/);
      assert.match(await page.textContent('#live-control'), /paused: the program waits in send_frame/);
      const c0 = await settle();
      assert.ok(c0 < 6000 && !finished, `the program ran on to ${c0} frames`);
      await new Promise((r) => setTimeout(r, 1500));
      assert.equal(await count(), c0, 'no frame while paused');
      assert.equal(finished, false);
      // step 5 frames: exactly five more, then it waits again
      await page.fill('#live-step-n', '5');
      await page.click('#live-step');
      assert.equal(await settle(), c0 + 5);
      await new Promise((r) => setTimeout(r, 1000));
      assert.equal(await count(), c0 + 5, 'the step let 5 frames through, no more');
      const l = await page.evaluate(() => window.tendyn.live());
      assert.equal(l.paused, true);
      assert.equal(l.steps_left, 0);
      // resume: the program runs to its end, every frame in order
      await page.click('#live-pause');
      const pushed = JSON.parse(await done);
      assert.equal(pushed.given, 6000);
      assert.equal(await count(), 6000, 'the server has every frame');
      await page.waitForFunction(() => window.tendyn.live().frames >= 6000, null, { timeout: 60000 });
      const times = await page.evaluate(() => Array.from(window.tendyn._viewer.store.f.t_s));
      assert.equal(times.length, 6000);
      times.forEach((v, i) => { if (Math.abs(v - (i + 1) * 1e-3) >= 1e-9) assert.fail(`frame ${i}: t = ${v}`); });
      assert.equal((await page.evaluate(() => window.tendyn.live())).paused, false);
      // a bad step count is refused at the page, nothing sent
      await page.fill('#live-step-n', '0');
      await page.click('#live-step');
      assert.match(await page.textContent('#error'), /frames per step: 0 is not an integer in \[1, 1000000\]/);
      assert.equal((await page.evaluate(() => window.tendyn.live())).paused, false);
      assert.deepEqual(errors, []);
    } finally {
      await page.close();
      await own.stop();
    }
  });
});
