/**
 * The studio's stylesheet and script, served from `/studio/assets/` so the
 * page's CSP needs no inline code. Plain text constants: no bundler, no
 * input ever reaches them.
 */
export const STUDIO_CSS = `
:root { color-scheme: light dark; --line: #8884; --accent: #2563eb; --bad: #b91c1c; --good: #15803d; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; }
header { display: flex; gap: 1rem; align-items: center; padding: .5rem 1rem; border-bottom: 1px solid var(--line); flex-wrap: wrap; }
header nav { display: flex; gap: .75rem; flex-wrap: wrap; }
header .sign-out { margin-left: auto; }
.brand { font-weight: 700; text-decoration: none; }
main { padding: 1rem; max-width: 80rem; }
h1 { font-size: 1.3rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.1rem; margin-top: 1.5rem; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { border: 1px solid var(--line); padding: .25rem .5rem; text-align: left; vertical-align: top; max-width: 28rem; overflow-wrap: anywhere; }
th { background: #8881; }
.null { opacity: .5; font-style: italic; }
.error { border: 1px solid var(--bad); color: var(--bad); padding: .5rem .75rem; margin: .5rem 0; border-radius: 4px; }
.notice { border: 1px solid var(--good); color: var(--good); padding: .5rem .75rem; margin: .5rem 0; border-radius: 4px; }
form.fields { display: grid; grid-template-columns: max-content minmax(12rem, 40rem); gap: .4rem .75rem; align-items: start; }
form.fields .actions { grid-column: 2; }
form.inline { display: inline; }
form.filter { display: flex; gap: .5rem; align-items: end; flex-wrap: wrap; margin: .5rem 0; }
label small { display: block; opacity: .7; }
input, select, textarea, button { font: inherit; }
textarea { width: 100%; min-height: 8rem; font-family: ui-monospace, monospace; }
pre { background: #8881; padding: .75rem; overflow: auto; white-space: pre-wrap; }
.pager { display: flex; gap: 1rem; margin: .5rem 0; }
.danger { color: var(--bad); }
table.matrix td small, table.matrix td strong { display: block; }
.verdict-allow strong, .level-info { color: var(--good); }
.verdict-deny strong, .level-error { color: var(--bad); }
.verdict-some strong, .level-warning { color: #b45309; }
`;

/** Progressive enhancement only: a confirmation before destructive forms. Every page works without it. */
export const STUDIO_JS = `
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});
`;
