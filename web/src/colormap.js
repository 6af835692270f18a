// The viridis colour map (perceptually uniform, readable in grey scale and by colour-blind
// readers): S. van der Walt and N. Smith's map for matplotlib (CC0). The 11 stops below are the
// map sampled at 0, 0.1, ..., 1 (the values of viridisLite::viridis(11)); between stops the
// colour is interpolated linearly in sRGB, which stays within a few percent of the full table.

export const VIRIDIS_STOPS = ['#440154', '#482576', '#414487', '#35608d', '#2a788e', '#21908c', '#22a884', '#43bf71', '#7ad151', '#bbdf27', '#fde725'];

const RGB = VIRIDIS_STOPS.map((h) => [1, 3, 5].map((k) => parseInt(h.slice(k, k + 2), 16) / 255));

/// Writes viridis(x), x clamped to [0, 1], into the three.js Color `out` (sRGB components) and
/// returns it.
export function viridis(x, out) {
  const c = Math.min(1, Math.max(0, Number.isFinite(x) ? x : 0)) * (RGB.length - 1);
  const i = Math.min(RGB.length - 2, Math.floor(c));
  const f = c - i;
  const a = RGB[i], b = RGB[i + 1];
  return out.setRGB(a[0] + f * (b[0] - a[0]), a[1] + f * (b[1] - a[1]), a[2] + f * (b[2] - a[2]), 'srgb');
}

/// CSS linear-gradient of the map, left = 0, right = 1.
export function viridisGradient() {
  return `linear-gradient(90deg, ${VIRIDIS_STOPS.map((c, i) => `${c} ${(100 * i) / (VIRIDIS_STOPS.length - 1)}%`).join(', ')})`;
}
