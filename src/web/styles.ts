/**
 * The dashboard's one stylesheet, served at ASSET_PATHS.css. Calm and plain: system fonts, one accent,
 * text contrast at least 4.5:1 (WCAG AA), a visible focus ring on everything focusable, one column on
 * a phone.
 */
export const STYLESHEET = `
:root {
  --text: #1f2328; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --card: #ffffff;
  --accent: #1f55c4; --accent-text: #ffffff; --danger: #b42318; --ok: #1a7f37; --warn: #8a5a00;
  color-scheme: light;
}
* { box-sizing: border-box; }
/* Above the display rules below: the copy buttons stay hidden until the script shows them. */
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  /* A long email or URL breaks rather than running past a phone's edge. */
  overflow-wrap: break-word;
}
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; border-radius: 3px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem 1rem; }
.skip:focus { left: 1rem; z-index: 10; }
header.top { background: var(--card); border-bottom: 1px solid var(--line); }
header.top .bar {
  max-width: 60rem; margin: 0 auto; padding: .75rem 1rem;
  display: flex; flex-wrap: wrap; gap: .5rem 1.5rem; align-items: center;
}
.brand { font-weight: 700; font-size: 1.125rem; color: var(--text); text-decoration: none; }
nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem 1rem; }
nav a { text-decoration: none; color: var(--muted); padding: .25rem 0; display: inline-block; }
nav a[aria-current="page"] { color: var(--text); font-weight: 600; border-bottom: 2px solid var(--accent); }
.who { margin-left: auto; display: flex; gap: .75rem; align-items: center; color: var(--muted); font-size: .9rem; }
.who form { margin: 0; display: flex; }
form { margin: 0; }
main { max-width: 60rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 0 0 .75rem; }
h3 { font-size: 1.05rem; margin: 0; }
h2.section { margin: 2rem 0 .75rem; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 1.25rem; margin-bottom: 1.25rem; }
.card > :first-child { margin-top: 0; }
.card > :last-child { margin-bottom: 0; }
.grid { display: grid; gap: 1.25rem; grid-template-columns: repeat(auto-fit, minmax(17rem, 1fr)); }
.muted { color: var(--muted); }
.stat { font-size: 1.8rem; font-weight: 700; margin: .25rem 0 .5rem; }
progress { width: 100%; height: .6rem; accent-color: var(--accent); }
label { display: block; font-weight: 600; margin: .75rem 0 .25rem; }
input[type="email"], input[type="password"], input[type="text"], input[type="url"] {
  width: 100%; max-width: 28rem; font: inherit; padding: .5rem .65rem;
  border: 1px solid #8c959f; border-radius: 6px; background: var(--card); color: var(--text);
}
.hint { font-size: .875rem; color: var(--muted); margin: .25rem 0 0; }
button, .button {
  font: inherit; font-weight: 600; cursor: pointer; display: inline-block; text-decoration: none;
  padding: .5rem 1rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-text); margin-top: 1rem;
}
button.secondary, .button.secondary { background: var(--card); color: var(--accent); }
button.danger { background: var(--card); color: var(--danger); border-color: var(--danger); margin-top: 0; }
button.link { background: none; border: none; color: var(--muted); padding: 0; margin: 0; font-weight: 400; text-decoration: underline; }
.notice { border-radius: 6px; padding: .75rem 1rem; margin-bottom: 1.25rem; border: 1px solid; }
.notice.error { color: var(--danger); border-color: var(--danger); background: #fff5f4; }
.notice.ok { color: var(--ok); border-color: var(--ok); background: #f0fff4; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .5rem .5rem .5rem 0; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: .875rem; color: var(--muted); font-weight: 600; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .875rem; }
pre {
  background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; margin: .5rem 0 0;
  overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere;
}
.copy-row { display: flex; align-items: center; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
.copy-row button { margin-top: 0; }
.secret {
  display: block; word-break: break-all; font-size: 1rem; padding: .75rem; border-radius: 6px;
  background: var(--bg); border: 1px dashed var(--accent);
}
.badge { display: inline-block; font-size: .8rem; font-weight: 600; padding: .05rem .5rem; border-radius: 999px; border: 1px solid; }
.badge.deny { color: var(--danger); }
.badge.ask { color: var(--warn); }
.badge.allow { color: var(--ok); }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; margin: .5rem 0 0; }
legend { font-weight: 600; padding: 0 .25rem; }
fieldset label { display: flex; gap: .5rem; align-items: baseline; font-weight: 400; margin: .25rem 0; }
.or { color: var(--muted); margin: 1rem 0 0; }
.or + .button { margin-top: .5rem; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; }
.actions button, .actions .button { margin-top: 0; }
td { overflow-wrap: anywhere; }
output { display: block; margin-top: .5rem; }
.findings { list-style: none; padding: 0; margin: .75rem 0 0; }
.findings li { border-top: 1px solid var(--line); padding: .75rem 0; }
.findings h3 { font-size: 1rem; margin: 0 0 .5rem; display: flex; gap: .5rem; align-items: center; flex-wrap: wrap; }
.findings dl { display: grid; grid-template-columns: 7rem minmax(0, 1fr); gap: .3rem .75rem; margin: 0; }
.findings dt { color: var(--muted); font-size: .875rem; }
.findings dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.findings dd code { min-width: 0; overflow-wrap: anywhere; }
.findings dd.copy-row { justify-content: flex-start; }
details.card > summary { cursor: pointer; font-weight: 600; }
details.card[open] > summary { margin-bottom: .5rem; }
@media (max-width: 40rem) {
  .who { margin-left: 0; width: 100%; }
  h1 { font-size: 1.35rem; }
  .findings dl { grid-template-columns: minmax(0, 1fr); }
  .findings dd { margin-bottom: .25rem; }
  /* Tables reflow: each row a block, each cell a "heading  value" line (the heading from data-label). */
  table.data, table.data tbody, table.data tr, table.data td { display: block; width: 100%; }
  table.data thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.data tr { border-bottom: 1px solid var(--line); padding: .5rem 0; }
  /* A cell with nothing in it (no action on your own row) shows no label either. */
  table.data td:empty { display: none; }
  table.data td { border: none; padding: .2rem 0 .2rem 7.25rem; position: relative; min-height: 1.9rem; }
  table.data td::before {
    content: attr(data-label); position: absolute; left: 0; top: .3rem; width: 6.5rem;
    color: var(--muted); font-size: .875rem; font-weight: 600;
  }
}
/* Teams: a heading inside a card's section (the invitations list). */
h3.subhead { margin: 1.25rem 0 .5rem; }
`;
