// The studio summary's wording (web/src/studio_summary.js), without a browser: every number of
// the server's summary appears with its unit, and the verdict names the cable and the time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fmtNum, summaryLines, verdict } from '../src/studio_summary.js';

test('verdict names the first slack and over-strained cables with their times', () => {
  const s = { mode: 'forward', normal_mode: false, strain_limit: 1, first_slack: { cable: 'top2', t_s: 0.13 }, first_overstrain: { cable: 'side1', t_s: 0.284 } };
  assert.equal(verdict(s), 'not normal: cable top2 slack at 0.130 s; cable side1 over-strained (strain above 100 %) at 0.284 s');
  assert.equal(verdict({ normal_mode: true, strain_limit: 0.5 }), 'normal mode: no cable went slack, no strain above 50 %');
});

test('CDPR summary: unsolved poses, tension extremes with units', () => {
  const s = {
    mode: 'cdpr', method: 'exact', poses: 40, not_ok_poses: 3, first_not_ok: { t_s: 0.5, status: 'infeasible', reason: 'no f within the bounds' },
    tension_N: { min: { cable: 'c3', t_s: 0.25, value_N: 1 }, max: { cable: 'c1', t_s: 0, value_N: 25.25 } }, tension_bounds_N: { min: 1, max: null },
    first_at_min: { cable: 'c3', t_s: 0.25 }, first_slack: null, slack_cables: [], duration_s: 2, frames: 41, path_length_m: 0.4, speed_mps: 0.2, platform_mass_kg: 3,
  };
  const lines = Object.fromEntries(summaryLines(s).map((l) => [l.key, l.text]));
  assert.equal(lines.verdict, '3 of 40 poses not solved (exact); the first at 0.500 s: infeasible (no f within the bounds)');
  assert.equal(lines.tension, 'lowest c3 1 N at 0.250 s, highest c1 25.25 N at 0.000 s (bounds: at least 1 N)');
  assert.equal(lines.slack, 'first cable at its lower tension bound: c3 at 0.250 s');
  assert.equal(lines.run, '2.000 s simulated, 41 frames, path 0.4 m at 0.2 m/s, platform mass 3 kg');
});

test('numbers: significant digits, no trailing zeros, exponents for extremes', () => {
  assert.equal(fmtNum(0.860050829), '0.8601');
  assert.equal(fmtNum(2), '2');
  assert.equal(fmtNum(-0.72330), '-0.7233');
  assert.equal(fmtNum(123456), '1.235e+5');
  assert.equal(fmtNum(3.5e-17), '3.5e-17');
  assert.equal(fmtNum(0), '0');
});
