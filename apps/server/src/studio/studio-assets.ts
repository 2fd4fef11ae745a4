/**
 * The studio's stylesheet and script, served from `/studio/assets/` so the
 * page's CSP needs no inline code. Plain text constants: no bundler, no
 * web fonts, nothing fetched from elsewhere, no input ever reaches them.
 */
export const STUDIO_CSS = `
:root {
  color-scheme: light dark;
  --bg: #f6f7f9; --panel: #ffffff; --text: #1f2328; --muted: #5f6b7a; --line: #d9dee5; --head: #eef1f5;
  --accent: #1f6feb; --accent-soft: #e3edff; --bad: #c0271d; --bad-soft: #fdecea; --good: #1a7f37; --good-soft: #e3f6e8;
  --warn: #9a6700; --warn-soft: #fff5d6; --chart-1: #1f6feb; --chart-2: #d4570f; --chart-3: #1a7f37; --chart-4: #8250df;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  --radius: 6px;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1318; --panel: #161b22; --text: #e6edf3; --muted: #9aa5b1; --line: #30363d; --head: #1c232c;
    --accent: #58a6ff; --accent-soft: #122a4a; --bad: #ff7b72; --bad-soft: #3a1714; --good: #56d364; --good-soft: #10291a;
    --warn: #e3b341; --warn-soft: #33280c; --chart-1: #58a6ff; --chart-2: #f0883e; --chart-3: #56d364; --chart-4: #bc8cff;
  }
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { background: var(--bg); color: var(--text); }
body { margin: 0; font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
a { color: var(--accent); text-decoration: none; }
a:hover { text-decoration: underline; }
code, pre, kbd, samp { font-family: var(--mono); font-size: 12.5px; }
header.top { display: flex; gap: 1.25rem; align-items: center; padding: .55rem 1.25rem; background: var(--panel); border-bottom: 1px solid var(--line); flex-wrap: wrap; position: relative; z-index: 3; }
.brand { font-weight: 700; color: var(--text); letter-spacing: .01em; white-space: nowrap; }
.brand span { color: var(--muted); font-weight: 500; }
header.top nav { display: flex; gap: .15rem; flex-wrap: wrap; align-items: center; }
header.top nav .group { color: var(--muted); font-size: 11px; text-transform: uppercase; letter-spacing: .06em; margin: 0 .3rem 0 .7rem; }
header.top nav .group:first-child { margin-left: 0; }
header.top nav a { color: var(--text); padding: .2rem .55rem; border-radius: var(--radius); white-space: nowrap; }
header.top nav a:hover { background: var(--head); text-decoration: none; }
header.top nav a[aria-current="page"] { background: var(--accent-soft); color: var(--accent); font-weight: 600; }
header.top .sign-out { margin-left: auto; }
main { padding: 1rem 1.25rem 3rem; max-width: 110rem; }
h1 { font-size: 1.35rem; margin: .25rem 0 .75rem; font-weight: 650; }
h2 { font-size: 1.05rem; margin: 1.6rem 0 .5rem; font-weight: 650; }
h3 { font-size: .95rem; margin: 1.2rem 0 .4rem; }
p { margin: .4rem 0 .8rem; }
.muted, small { color: var(--muted); }
.toolbar { display: flex; gap: .75rem; align-items: center; flex-wrap: wrap; margin: .25rem 0 .75rem; }
.toolbar .spacer { flex: 1; }
.total { color: var(--muted); white-space: nowrap; }
button, .button { font: inherit; border: 1px solid var(--line); background: var(--panel); color: var(--text); border-radius: var(--radius); padding: .25rem .7rem; cursor: pointer; line-height: 1.4; display: inline-block; }
button:hover, .button:hover { border-color: var(--accent); text-decoration: none; }
button.primary, .button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
button.danger, .danger { color: var(--bad); }
button.danger { border-color: var(--bad); }
input, select, textarea { font: inherit; color: var(--text); background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: .25rem .45rem; }
input:focus, select:focus, textarea:focus, button:focus-visible, a:focus-visible { outline: 2px solid var(--accent); outline-offset: 1px; }
textarea { width: 100%; min-height: 8rem; font-family: var(--mono); font-size: 12.5px; }
.error, .notice, .hint { border: 1px solid; padding: .55rem .8rem; margin: .6rem 0; border-radius: var(--radius); }
.error { border-color: var(--bad); color: var(--bad); background: var(--bad-soft); }
.notice { border-color: var(--good); color: var(--good); background: var(--good-soft); }
.hint { border-color: var(--line); background: var(--panel); }
.hint h2 { margin-top: .2rem; }
form.fields { display: grid; grid-template-columns: max-content minmax(12rem, 44rem); gap: .5rem .9rem; align-items: start; background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: 1rem; max-width: 62rem; }
form.fields label { padding-top: .25rem; font-weight: 600; }
form.fields label small { display: block; font-weight: 400; }
form.fields .actions { grid-column: 2; }
form.inline { display: inline; }
form.filter { display: flex; gap: .6rem; align-items: end; flex-wrap: wrap; margin: .5rem 0 .75rem; }
form.filter label { display: flex; flex-direction: column; gap: .1rem; font-size: 12px; color: var(--muted); }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: .75rem; overflow: auto; white-space: pre-wrap; }
.table-wrap { overflow: auto; max-height: calc(100vh - 13rem); background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); margin: .25rem 0 .5rem; }
table { border-collapse: collapse; width: 100%; }
.table-wrap table { margin: 0; }
th, td { padding: .35rem .65rem; text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); }
th { background: var(--head); font-weight: 600; white-space: nowrap; word-break: keep-all; overflow-wrap: normal; font-size: 12.5px; }
thead th { position: sticky; top: 0; z-index: 1; box-shadow: inset 0 -1px 0 var(--line); border-bottom: 0; }
td { max-width: 32rem; overflow-wrap: break-word; }
td.wide { min-width: 14rem; max-width: 24rem; }
tbody tr:hover td { background: color-mix(in srgb, var(--accent-soft) 45%, transparent); }
tbody tr:last-child td { border-bottom: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.nowrap { white-space: nowrap; }
td.actions { white-space: nowrap; text-align: right; }
th a.sort { color: inherit; display: inline-flex; gap: .25rem; align-items: center; }
th a.sort .arrow { color: var(--muted); font-size: 10px; }
th a.sort[aria-sort] .arrow, th[aria-sort] a.sort .arrow { color: var(--accent); }
.null { color: var(--muted); font-style: italic; }
.id { display: inline-flex; align-items: center; gap: .25rem; white-space: nowrap; }
.id code { font-size: 12px; }
button.copy { border: 0; background: transparent; padding: .1rem .2rem; color: var(--muted); line-height: 0; }
button.copy:hover { color: var(--accent); }
button.copy.copied { color: var(--good); }
details.fold summary { cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; max-width: 26rem; list-style-position: inside; }
details.fold summary code { color: var(--muted); }
details.fold[open] summary code { display: none; }
details.fold pre { margin: .35rem 0 0; max-height: 22rem; max-width: 40rem; }
td[data-edit] { cursor: text; }
td[data-edit]:hover { box-shadow: inset 0 0 0 1px var(--line); }
td .cell-editor { display: flex; gap: .3rem; align-items: center; }
td .cell-editor input, td .cell-editor select { min-width: 8rem; max-width: 22rem; }
.pager { display: flex; gap: 1rem; margin: .5rem 0; }
.badge { display: inline-block; padding: 0 .45rem; border-radius: 999px; font-size: 12px; border: 1px solid var(--line); white-space: nowrap; }
.badge.good, .status-2xx, .status-done { color: var(--good); border-color: var(--good); background: var(--good-soft); }
.badge.bad, .status-5xx, .status-dead, .status-failed { color: var(--bad); border-color: var(--bad); background: var(--bad-soft); }
.badge.warn, .status-4xx, .status-pending { color: var(--warn); border-color: var(--warn); background: var(--warn-soft); }
.status-3xx, .status-running { color: var(--accent); border-color: var(--accent); background: var(--accent-soft); }
table.matrix td small, table.matrix td strong { display: block; }
.verdict-allow strong, .level-info { color: var(--good); }
.verdict-deny strong, .level-error { color: var(--bad); }
.verdict-some strong, .level-warning { color: var(--warn); }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(24rem, 1fr)); gap: .9rem; margin: .5rem 0 1rem; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: var(--radius); padding: .75rem .9rem .6rem; min-width: 0; }
.card h2 { margin: 0 0 .15rem; font-size: .95rem; }
.card .figure { font-size: 1.35rem; font-weight: 650; font-variant-numeric: tabular-nums; }
.card .legend { display: flex; gap: .8rem; flex-wrap: wrap; font-size: 12px; color: var(--muted); }
.card .legend i { display: inline-block; width: .7rem; height: .2rem; vertical-align: middle; margin-right: .25rem; border-radius: 1px; }
.stats { display: flex; gap: 1.5rem; flex-wrap: wrap; margin: .25rem 0 .75rem; }
.stats div { display: flex; flex-direction: column; }
.stats strong { font-size: 1.2rem; font-variant-numeric: tabular-nums; }
svg.chart { width: 100%; height: auto; display: block; margin-top: .35rem; overflow: visible; }
svg.chart .grid { stroke: var(--line); stroke-width: 1; }
svg.chart .axis { fill: var(--muted); font: 11px system-ui, sans-serif; }
svg.chart .series-1 { stroke: var(--chart-1); } svg.chart .fill-1 { fill: var(--chart-1); }
svg.chart .series-2 { stroke: var(--chart-2); } svg.chart .fill-2 { fill: var(--chart-2); }
svg.chart .series-3 { stroke: var(--chart-3); } svg.chart .fill-3 { fill: var(--chart-3); }
svg.chart .series-4 { stroke: var(--chart-4); } svg.chart .fill-4 { fill: var(--chart-4); }
svg.chart polyline { fill: none; stroke-width: 1.75; stroke-linejoin: round; stroke-linecap: round; }
svg.chart .empty { fill: var(--muted); font: 12px system-ui, sans-serif; }
.legend .s1 { background: var(--chart-1); } .legend .s2 { background: var(--chart-2); } .legend .s3 { background: var(--chart-3); } .legend .s4 { background: var(--chart-4); }
`;

/**
 * Progressive enhancement only; every page works without it: a
 * confirmation before destructive forms, copy buttons for shortened ids,
 * and inline editing of a row's cell (double-click, Enter saves, Escape
 * cancels) that posts the row's ordinary edit form with just that field.
 */
export const STUDIO_JS = `
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button.copy[data-copy]")) button.hidden = false;
});

document.addEventListener("click", (event) => {
  const button = event.target instanceof Element ? event.target.closest("button.copy[data-copy]") : null;
  if (!button) return;
  event.preventDefault();
  const done = () => {
    button.classList.add("copied");
    button.title = "Copied";
    setTimeout(() => { button.classList.remove("copied"); button.title = "Copy"; }, 1200);
  };
  if (navigator.clipboard) navigator.clipboard.writeText(button.dataset.copy).then(done, () => undefined);
});

document.addEventListener("dblclick", (event) => {
  const cell = event.target instanceof Element ? event.target.closest("td[data-edit]") : null;
  if (!cell || cell.querySelector("form")) return;
  const table = cell.closest("table[data-row-url]");
  const row = cell.closest("tr[data-id]");
  const token = document.querySelector('input[name="_csrf"]');
  if (!table || !row || !token) return;
  const field = cell.dataset.field;
  const form = document.createElement("form");
  form.method = "post";
  form.className = "cell-editor";
  form.action = table.dataset.rowUrl.replace("__id__", encodeURIComponent(row.dataset.id));
  const hidden = (name, value) => {
    const input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.append(input);
  };
  hidden("_csrf", token.value);
  hidden("_return", location.pathname + location.search);
  let box;
  const choices = cell.dataset.choices;
  if (choices !== undefined) {
    box = document.createElement("select");
    for (const choice of JSON.parse(choices)) {
      const option = document.createElement("option");
      option.value = choice;
      option.textContent = choice === "" ? "null" : choice;
      option.selected = choice === cell.dataset.value;
      box.append(option);
    }
  } else {
    box = document.createElement("input");
    box.type = cell.dataset.edit === "number" ? "number" : "text";
    if (box.type === "number") box.step = "any";
    box.value = cell.dataset.value ?? "";
  }
  box.name = field;
  box.setAttribute("aria-label", field);
  const save = document.createElement("button");
  save.type = "submit";
  save.textContent = "Save";
  const original = Array.from(cell.childNodes);
  const cancel = () => cell.replaceChildren(...original);
  box.addEventListener("keydown", (key) => {
    if (key.key === "Escape") cancel();
  });
  form.append(box, save);
  cell.replaceChildren(form);
  box.focus();
});
`;

/** The studio's tab icon: a rounded square with an "s" (so browsers ask for no /favicon.ico). */
export const STUDIO_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f6feb"/><path d="M21 11.5c-1-1.6-2.8-2.5-5-2.5-3 0-5 1.6-5 3.9 0 5 9.6 3 9.6 7.3 0 1.6-1.7 2.8-4.4 2.8-2.3 0-4.1-1-5.2-2.7" fill="none" stroke="#fff" stroke-width="2.6" stroke-linecap="round"/></svg>`;
