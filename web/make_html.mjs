// node web/make_html.mjs VIEWER_JS VIEWER_CSS SCENE_JSON OUT_HTML
// node web/make_html.mjs VIEWER_JS VIEWER_CSS --studio OUT_HTML
// Writes the page template of docs/VIEWER.md (the C++ program writes the same template).
import fs from 'node:fs';

export function pageHtml({ js, css, sceneJson = null, title = 'viewer' }) {
  const studio = sceneJson === null;
  const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const parts = [
    '<!doctype html>\n',
    '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\n',
    `<title>${esc(title)} - tendyn</title>\n`,
    `<style>${css}</style>\n`,
    '</head><body>\n',
    `<script type="application/json" id="tendyn-config">{"mode":"${studio ? 'studio' : 'viewer'}"}</script>\n`,
  ];
  if (!studio) parts.push(`<script type="application/json" id="tendyn-scene">${sceneJson.replace(/<\//g, '<\\/')}</script>\n`);
  parts.push(`<script>${js}</script>\n`, '</body></html>\n');
  return parts.join('');
}

function titleOf(sceneJson) {
  try {
    const s = JSON.parse(sceneJson);
    if (s && typeof s.title === 'string' && s.title) return s.title;
  } catch {
    // a malformed scene still gets a page (which shows the error)
  }
  return 'viewer';
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [jsPath, cssPath, scenePath, outPath] = process.argv.slice(2);
  if (!outPath) {
    console.error('usage: node make_html.mjs VIEWER_JS VIEWER_CSS (SCENE_JSON | --studio) OUT_HTML');
    process.exit(2);
  }
  const js = fs.readFileSync(jsPath, 'utf8').replace(/\n$/, '');
  const css = fs.readFileSync(cssPath, 'utf8').replace(/\n$/, '');
  const studio = scenePath === '--studio';
  const sceneJson = studio ? null : fs.readFileSync(scenePath, 'utf8').replace(/\n$/, '');
  const html = pageHtml({ js, css, sceneJson, title: studio ? 'studio' : titleOf(sceneJson) });
  fs.writeFileSync(outPath, html);
  console.log(`${outPath}: ${Buffer.byteLength(html)} bytes`);
}
