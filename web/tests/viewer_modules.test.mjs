// The viewer's module layout (web/src/viewer*.js), without a browser: no source file grows back
// into a monolith, the Viewer has every method the page hooks, the studio and the live page call
// (its methods come from several modules), and the geometric helpers give the right numbers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Viewer, createViewer } from '../src/viewer.js';
import { clipPolyline, hullTriangles, segDist } from '../src/viewer_geometry.js';

const srcDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
const MAX_LINES = 800;

test(`every web/src file has at most ${MAX_LINES} lines`, () => {
  const long = fs.readdirSync(srcDir).filter((f) => f.endsWith('.js'))
    .map((f) => [f, fs.readFileSync(path.join(srcDir, f), 'utf8').split('\n').length - 1])
    .filter(([, n]) => n > MAX_LINES);
  assert.deepEqual(long, [], `split these files by concern (web/README.md lists the modules): ${long.map(([f, n]) => `${f} (${n} lines)`).join(', ')}`);
});

test('the Viewer has the methods of every module, as class methods (not enumerable)', () => {
  assert.equal(typeof createViewer, 'function');
  const used = [
    // main.js hooks (web/README.md "Test hooks")
    'counts', 'seek', 'play', 'pause', 'plotData', 'setColorMode', 'select', 'elementInfo', 'pickAt', 'setCameraMode',
    'project', 'setLayer', 'setForceScale', 'forceArrows', 'cloudState', 'setMeasure', 'measurement', 'ghostState',
    'still', 'pngFrames', 'recordWebm',
    // studio.js, live.js
    'load', 'append', 'appendFrame', 'clear',
    // one of each module: DOM, scene, overlays, camera, picking, plots
    'buildDom', 'buildThree', 'applyFrame', 'updateObjects', 'updateReadouts', 'buildOverlays', 'fitInitial', 'attachPointer',
    'updatePickInfo', 'buildPlots', 'updatePlotData',
  ];
  for (const m of used) assert.equal(typeof Viewer.prototype[m], 'function', `Viewer.prototype.${m}`);
  const names = Object.getOwnPropertyNames(Viewer.prototype);
  assert.ok(names.length >= 85, `${names.length} methods`);
  assert.deepEqual(names.filter((n) => Object.getOwnPropertyDescriptor(Viewer.prototype, n).enumerable), []);
});

test('clipPolyline: Liang-Barsky against the rectangle, z interpolated', () => {
  // from (-1, 0.5, 0) to (3, 0.5, 4) through [0, 2] x [0, 1]: enters at x = 0 (z = 1), leaves at x = 2 (z = 3)
  assert.deepEqual(clipPolyline([[-1, 0.5, 0], [3, 0.5, 4]], 0, 2, 0, 1), [[[0, 0.5, 1], [2, 0.5, 3]]]);
  // a segment wholly outside is dropped; (6, 6) -> (1, 0.5) enters through y = 1 at x = 6 - 5 * 10/11
  const segs = clipPolyline([[5, 5, 0], [6, 6, 0], [1, 0.5, 0]], 0, 2, 0, 1);
  assert.equal(segs.length, 1);
  assert.ok(Math.abs(segs[0][0][0] - 16 / 11) < 1e-12, String(segs[0][0][0]));
  assert.deepEqual([segs[0][0][1], segs[0][0][2], segs[0][1]], [1, 0, [1, 0.5, 0]]);
});

test('hullTriangles: a tetrahedron has 4 faces; a cube 6 faces x 4 triangles of their 4 coplanar corners', () => {
  assert.equal(hullTriangles([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], 1e-9).length, 4);
  const cube = [];
  for (const x of [0, 1]) for (const y of [0, 1]) for (const z of [0, 1]) cube.push([x, y, z]);
  assert.equal(hullTriangles(cube, 1e-9).length, 24);
  // an inner point is in no triangle
  assert.ok(hullTriangles([...cube, [0.5, 0.5, 0.5]], 1e-9).every((t) => !t.includes(8)));
});

test('segDist: to the segment, not to its line', () => {
  assert.equal(segDist(0, 1, -1, 0, 1, 0), 1);
  assert.equal(segDist(4, 4, -1, 0, 1, 0), 5); // nearest: the end (1, 0)
  assert.equal(segDist(3, 4, 0, 0, 0, 0), 5); // a degenerate segment is a point
});
