// node web/build.mjs OUTDIR
// Bundles src/main.js (three.js, uPlot and our code) into OUTDIR/viewer.js and all CSS into
// OUTDIR/viewer.css: minified IIFE, ES2020, ASCII only, no source maps. Deterministic: the same
// sources and package-lock.json give the same bytes.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const outdir = process.argv[2];
if (!outdir) {
  console.error('usage: node build.mjs OUTDIR');
  process.exit(2);
}
fs.mkdirSync(outdir, { recursive: true });

const result = await esbuild.build({
  absWorkingDir: here,
  entryPoints: { viewer: 'src/main.js' },
  bundle: true,
  minify: true,
  format: 'iife',
  target: 'es2020',
  platform: 'browser',
  charset: 'ascii',
  sourcemap: false,
  legalComments: 'eof',  // keep the libraries' licence notices (three.js, uPlot: MIT)
  treeShaking: true,
  banner: { js: '/*! tendyn viewer. Includes three.js (MIT, Copyright 2010-2026 Three.js Authors) and uPlot (MIT, Copyright (c) 2022 Leon Sorokin). */' },
  define: { 'process.env.NODE_ENV': '"production"' },
  write: false,
  metafile: true,
  outdir: path.resolve(outdir),
  logLevel: 'warning',
});

// CMake rebuilds the bundle when a file of sources.cmake changes: every bundled file of src/ must
// be listed there.
const listed = new Set([...fs.readFileSync(path.join(here, 'sources.cmake'), 'utf8').matchAll(/\/(src\/[\w.-]+)/g)].map((m) => m[1]));
const unlisted = Object.keys(result.metafile.inputs).filter((f) => f.startsWith('src/') && !listed.has(f));
if (unlisted.length) {
  console.error(`${path.join(here, 'sources.cmake')}: not listed (add them to TENDYN_WEB_SOURCES): ${unlisted.join(', ')}`);
  process.exit(1);
}

let total = 0;
for (const f of [...result.outputFiles].sort((a, b) => a.path.localeCompare(b.path))) {
  let text = f.text;
  // The bundle is inlined in <script> and <style> elements: it must not contain their end tags
  // (nor "<!--", which changes how a script element is parsed).
  const bad = f.path.endsWith('.js') ? /<\/script|<!--/i : /<\/style/i;
  if (bad.test(text)) {
    console.error(`${f.path}: contains ${text.match(bad)[0]}, which cannot be inlined in the page`);
    process.exit(1);
  }
  if (!text.endsWith('\n')) text += '\n';
  fs.writeFileSync(f.path, text);
  const size = Buffer.byteLength(text);
  total += size;
  console.log(`${path.relative(process.cwd(), f.path)}: ${size} bytes (${(size / 1024).toFixed(1)} KiB)`);
}
console.log(`total: ${total} bytes`);
