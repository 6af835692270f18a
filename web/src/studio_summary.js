// The studio's run summary written for people (docs/VIEWER.md, "Run summary"). Every number comes
// from the server's summary (src/viz/studio.cpp); this file only words and formats them.

/// A number with `digits` significant digits, without trailing zeros; exponent form when very
/// large or small.
export function fmtNum(v, digits = 4) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return String(v);
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(digits - 1).replace(/\.?0+e/, 'e');
  const s = v.toPrecision(digits);
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/// "1.23 m"
export function qty(v, unit, digits = 4) {
  return `${fmtNum(v, digits)} ${unit}`;
}

/// Times with millisecond resolution: "0.130 s".
export function fmtTime(t) {
  return `${Number(t).toFixed(3)} s`;
}

/// Lengths and positions: below 1 nm (round-off of a symmetric motion) printed as 0.
const metres = (v) => (Math.abs(v) < 1e-9 ? 0 : v);

function vec(v, unit) {
  return `(${v.map((x) => fmtNum(metres(x), 4)).join(', ')}) ${unit}`;
}

function listCables(items, max = 6) {
  const shown = items.slice(0, max).map((c) => `${c.cable} at ${fmtTime(c.t_s)}`);
  if (items.length > max) shown.push(`and ${items.length - max} more`);
  return shown.join(', ');
}

/// The verdict in words: "normal mode: ..." or "not normal: cable top2 slack at 0.130 s".
export function verdict(s) {
  if (s.mode === 'cdpr') {
    if (!s.not_ok_poses) return `all ${s.poses} poses solved (${s.method}): the cables hold the platform along the whole path`;
    const f = s.first_not_ok || {};
    return `${s.not_ok_poses} of ${s.poses} poses not solved (${s.method}); the first at ${fmtTime(f.t_s)}: ${f.status}${f.reason ? ` (${f.reason})` : ''}`;
  }
  if (s.normal_mode) {
    const limit = typeof s.strain_limit === 'number' ? `, no strain above ${fmtNum(100 * s.strain_limit, 3)} %` : '';
    return `normal mode: no cable went slack${limit}`;
  }
  const why = [];
  if (s.first_slack) why.push(`cable ${s.first_slack.cable} slack at ${fmtTime(s.first_slack.t_s)}`);
  if (s.first_overstrain) {
    const limit = typeof s.strain_limit === 'number' ? ` (strain above ${fmtNum(100 * s.strain_limit, 3)} %)` : '';
    why.push(`cable ${s.first_overstrain.cable} over-strained${limit} at ${fmtTime(s.first_overstrain.t_s)}`);
  }
  return `not normal: ${why.length ? why.join('; ') : 'see the cable plots'}`;
}

/// The summary as labelled lines: [{key, label, text}], key = the element id's suffix.
export function summaryLines(s) {
  const out = [];
  const add = (key, label, text) => out.push({ key, label, text });
  if (s.mode === 'cdpr' || typeof s.normal_mode === 'boolean') add('verdict', s.mode === 'cdpr' ? 'result' : 'verdict', verdict(s));
  if (s.mode === 'cdpr') {
    if (s.tension_N) {
      const lo = s.tension_N.min, hi = s.tension_N.max;
      const b = s.tension_bounds_N || {};
      const bounds = b.max === null || b.max === undefined ? `bounds: at least ${qty(b.min, 'N')}` : `bounds ${qty(b.min, 'N')} to ${qty(b.max, 'N')}`;
      add('tension', 'tensions', `lowest ${lo.cable} ${qty(lo.value_N, 'N')} at ${fmtTime(lo.t_s)}, highest ${hi.cable} ${qty(hi.value_N, 'N')} at ${fmtTime(hi.t_s)} (${bounds})`);
    }
    add('slack', 'slack', s.first_at_min
      ? `first cable at its lower tension bound: ${s.first_at_min.cable} at ${fmtTime(s.first_at_min.t_s)}${s.first_slack ? `; first at zero tension: ${s.first_slack.cable} at ${fmtTime(s.first_slack.t_s)}` : ''}`
      : 'no cable at its lower tension bound');
  } else if (Array.isArray(s.slack_cables)) {
    add('slack', 'slack cables', s.slack_cables.length
      ? `${listCables(s.slack_cables)} (first frame with zero tension)`
      : 'no cable went slack in the recorded frames');
  }
  if (s.com) {
    const c = s.com;
    const what = s.mode === 'cdpr' ? 'platform centre of mass' : 'centre of mass';
    add('com', what, `travelled ${qty(metres(c.travelled_m), 'm')} (on the floor ${qty(metres(c.floor_travelled_m), 'm')}), moved ${qty(metres(c.displacement_m), 'm')} from ${vec(c.initial_m, 'm')} to ${vec(c.final_m, 'm')}`);
  }
  if (s.energy_J) {
    const e = s.energy_J;
    let text = `initial ${qty(e.initial, 'J')}, final ${qty(e.final, 'J')}, min ${qty(e.min, 'J')} at ${fmtTime(e.min_t_s)}, max ${qty(e.max, 'J')} at ${fmtTime(e.max_t_s)}; drift (final - initial) ${qty(e.drift, 'J')}`;
    if (typeof s.energy_max_abs_drift_J === 'number') text += `, largest |E(t) - E(0)| ${qty(s.energy_max_abs_drift_J, 'J')}`;
    add('energy', 'total energy', text);
  }
  const run = [];
  if (typeof s.duration_s === 'number') run.push(`${fmtTime(s.duration_s)} simulated`);
  if (typeof s.frames === 'number') run.push(`${s.frames} frames`);
  if (typeof s.steps === 'number') run.push(`${s.steps} steps`);
  if (typeof s.simulation_wall_time_s === 'number') run.push(`wall time ${qty(s.simulation_wall_time_s, 's', 3)}`);
  if (s.mode === 'cdpr') run.push(`path ${qty(s.path_length_m, 'm')} at ${qty(s.speed_mps, 'm/s')}`, `platform mass ${qty(s.platform_mass_kg, 'kg')}`);
  if (run.length) add('run', 'run', run.join(', '));
  if (s.mode === 'inverse') {
    add('plan', 'plan', `speed ${qty(s.speed_mps, 'm/s')}, progress ${qty(s.progress_m, 'm')}, largest path error ${qty(s.max_path_error_m, 'm')}, ${s.rollouts} rollouts, planning wall time ${qty(s.planning_wall_time_s, 's', 3)}`);
  }
  return out;
}
