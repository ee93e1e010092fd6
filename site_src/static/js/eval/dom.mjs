// Small DOM helpers the workbench's modules share: text is always set as text, never as HTML.

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

// A table in a focusable wrapper that scrolls sideways on a narrow screen, not the page. Each cell carries its
// column's name, which a table of class "stack" shows beside it when a phone stacks its rows.
export function table(label, headers, rows, attributes = {}) {
  const t = element("table", null, attributes);
  const head = t.createTHead().insertRow();
  for (const h of headers) head.append(element("th", h, { scope: "col" }));
  const body = t.createTBody();
  for (const r of rows) {
    const tr = row(body, r);
    [...tr.cells].forEach((td, i) => td.setAttribute("data-label", headers[i]));
  }
  const wrap = element("div", null, { class: "table-wrap", tabindex: "0", role: "region", "aria-label": label });
  wrap.append(t);
  return wrap;
}

/** Replace a select's options with [value, label] pairs, keeping the chosen value while it is still offered. */
export function fillSelect(select, options) {
  const keep = select.value;
  select.replaceChildren(...options.map(([value, label]) => element("option", label, { value })));
  if ([...select.options].some((o) => o.value === keep)) select.value = keep;
}

/** A list of figures (label, text); a missing text leaves its row out, a list is joined. */
export function figures(rows, attributes = {}) {
  const list = element("dl", null, { class: "stats", ...attributes });
  for (const [label, text] of rows) {
    if (text === undefined || text === null || text === "") continue;
    list.append(element("dt", label), element("dd", Array.isArray(text) ? text.join("; ") : text));
  }
  return list;
}
