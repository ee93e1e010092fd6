// Small DOM helpers the evaluation page's modules share: text is always set as text, never as HTML.

export function element(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

export function row(body, cells, attributes = {}) {
  const tr = body.insertRow();
  for (const [key, value] of Object.entries(attributes)) tr.setAttribute(key, value);
  for (const value of cells) {
    const td = tr.insertCell();
    if (value instanceof Node) td.append(value);
    else td.textContent = value ?? "–";
  }
  return tr;
}

// A table in a focusable wrapper that scrolls sideways on a narrow screen, not the page.
export function table(label, headers, rows, attributes = {}) {
  const t = element("table", null, attributes);
  const head = t.createTHead().insertRow();
  for (const h of headers) head.append(element("th", h, { scope: "col" }));
  const body = t.createTBody();
  for (const r of rows) row(body, r);
  const wrap = element("div", null, { class: "table-wrap", tabindex: "0", role: "region", "aria-label": label });
  wrap.append(t);
  return wrap;
}
