// Small geometric helpers of the viewer (no three.js, no DOM).

export /// Clips the polyline pts ([[x, y, z]...]) to the rectangle [x0, x1] x [y0, y1] (z kept as
/// interpolated): a list of segments [[a, b]...] (Liang-Barsky per segment).
function clipPolyline(pts, x0, x1, y0, y1) {
  const out = [];
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i], b = pts[i + 1];
    const dx = b[0] - a[0], dy = b[1] - a[1];
    let t0 = 0, t1 = 1;
    let ok = true;
    for (const [p, q] of [[-dx, a[0] - x0], [dx, x1 - a[0]], [-dy, a[1] - y0], [dy, y1 - a[1]]]) {
      if (p === 0) {
        if (q < 0) { ok = false; break; }
        continue;
      }
      const r = q / p;
      if (p < 0) { if (r > t1) { ok = false; break; } if (r > t0) t0 = r; } else { if (r < t0) { ok = false; break; } if (r < t1) t1 = r; }
    }
    if (!ok) continue;
    const at = (t) => [a[0] + t * dx, a[1] + t * dy, a[2] + t * (b[2] - a[2])];
    out.push([at(t0), at(t1)]);
  }
  return out;
}

export /// Triangles of the convex hull of a few points ([[x, y, z]...]; index triples): every triple whose
/// plane has all points on one side (within eps). Coplanar points give all their triangles (drawn
/// as one flat face); O(n^4), for the few attachment points of a platform.
function hullTriangles(pts, eps) {
  const n = pts.length;
  const out = [];
  if (n < 3 || n > 40) return out;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) for (let k = j + 1; k < n; k++) {
    const [a, b, c] = [pts[i], pts[j], pts[k]];
    const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]], v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    const nn = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    const len = Math.hypot(...nn);
    if (!(len > eps * eps)) continue; // collinear
    let pos = 0, neg = 0;
    for (let m = 0; m < n; m++) {
      const s = ((pts[m][0] - a[0]) * nn[0] + (pts[m][1] - a[1]) * nn[1] + (pts[m][2] - a[2]) * nn[2]) / len;
      if (s > eps) pos++;
      else if (s < -eps) neg++;
    }
    if (pos === 0 || neg === 0) out.push([i, j, k]);
  }
  return out;
}

export /// Distance from (px, py) to the segment a-b in the plane.
function segDist(px, py, ax, ay, bx, by) {
  const dx = bx - ax, dy = by - ay;
  const l2 = dx * dx + dy * dy;
  let t = l2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / l2 : 0;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}
