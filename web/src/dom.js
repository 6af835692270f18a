// The one DOM element builder of the viewer, studio and live pages.
// el('div', {class: 'x', text: 'hello', 'data-k': 1}, [child, 'text']): `text` sets textContent,
// `class` className, `value` the value property (inputs), anything else an attribute; children
// are nodes or strings.
export function el(tag, attrs = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v;
    else if (k === 'class') e.className = v;
    else if (k === 'value') e.value = v;
    else e.setAttribute(k, v);
  }
  for (const c of children) e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return e;
}
