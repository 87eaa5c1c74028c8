/**
 * The operators' page: its script polls `api/overview` and builds the DOM with `textContent` only, so
 * event data is always text, never markup; the CSP lets only this script (its nonce) run, a second guard.
 */
export function dashboardHtml(nonce: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Loyalty outbox and inbox</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style nonce="${nonce}">
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2327; background: #fafafa; }
  h1 { font-size: 1.3rem; margin: 0 0 .2rem; } h2 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
  table { border-collapse: collapse; width: 100%; background: #fff; margin-bottom: .6rem; }
  th, td { border: 1px solid #dcdcde; padding: .25rem .45rem; text-align: left; vertical-align: top; }
  th { background: #f0f0f1; font-weight: 600; } code { font-size: 12px; word-break: break-all; }
  .dead, .refused { color: #b32d2e; } .parked, .expired { color: #996800; } .muted { color: #646970; }
  .done { color: #00703c; } button { margin: 0 .3rem .2rem 0; padding: .2rem .6rem; cursor: pointer; }
  #message { min-height: 1.2rem; }
</style>
</head>
<body>
<h1>Loyalty outbox and inbox</h1>
<p class="muted"><span id="source"></span> <span id="mode"></span> <span id="updated"></span></p>
<p id="message" role="status"></p>
<p><label>Tenant <input id="tenant" placeholder="all (busiest first)" autocomplete="off"></label></p>
${storeSection('outbox', 'Outbox: events')}
${storeSection('inbox', 'Inbox: deliveries')}
<h2>Audit trail</h2>
<table id="audit"></table>
<script nonce="${nonce}">
'use strict';
const $ = (id) => document.getElementById(id);
function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}
function age(at, now) {
  if (at === null || at === undefined) return '';
  const s = Math.max(0, Math.round((now - at) / 1000));
  if (s < 120) return s + 's';
  if (s < 7200) return Math.round(s / 60) + 'm';
  if (s < 172800) return Math.round(s / 3600) + 'h';
  return Math.round(s / 86400) + 'd';
}
function fill(table, headers, rows) {
  const head = el('tr');
  for (const h of headers) head.append(el('th', h));
  table.replaceChildren(head);
  if (rows.length === 0) {
    const empty = el('tr');
    const cell = el('td', 'none', 'muted');
    cell.colSpan = headers.length;
    empty.append(cell);
    table.append(empty);
  }
  for (const cells of rows) {
    const tr = el('tr');
    for (const cell of cells) tr.append(cell instanceof Node ? cell : el('td', cell));
    table.append(tr);
  }
}
function cell(child) {
  const td = el('td');
  td.append(child);
  return td;
}
let allowActions = false;
async function act(action, eventId) {
  const label = action.replace('.', ' ');
  if (!confirm(label + ' ' + eventId + '?')) return;
  const response = await fetch('api/actions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ action, eventId }),
  });
  const answer = await response.json().catch(() => ({}));
  $('message').textContent = label + ' ' + eventId + ': ' + (answer.message || response.status);
  $('message').className = answer.done ? 'done' : 'refused';
  refresh();
}
function actions(side, row) {
  const td = el('td');
  if (!allowActions) return td;
  const names = side === 'outbox' ? ['redeliver', 'discard'] : ['replay', 'discard'];
  for (const name of names) {
    const button = el('button', name);
    button.type = 'button';
    button.addEventListener('click', () => act(side + '.' + name, row.eventId));
    td.append(button);
  }
  return td;
}
function attention(side, table, rows, now) {
  fill(
    table,
    ['Event id', 'Tenant', 'Type', 'State', 'Attempts', 'Age', 'Last error', ...(side === 'outbox' ? ['Payload'] : []), ''],
    rows.map((r) => [
      cell(el('code', r.eventId)),
      r.tenantId,
      r.eventType,
      el('td', r.state, r.state),
      r.attempts,
      age(r.since, now),
      r.lastError,
      ...(side === 'outbox' ? [cell(el('code', r.payload))] : []),
      actions(side, r),
    ]),
  );
}
function count(total, shown) {
  if (total === null) return '';
  return shown < total ? shown + ' of ' + total + ' tenants shown, busiest first' : total + ' tenants';
}
function render(o) {
  allowActions = o.allowActions;
  $('source').textContent = o.source;
  $('mode').textContent = o.allowActions ? '· actions allowed' : '· read-only (start with --allow-actions to act)';
  $('updated').textContent = '· updated ' + new Date(o.now).toLocaleTimeString();
  // Per tenant, then counted for all tenants only (handled deliveries).
  const columns = { outbox: [['pending', 'parked', 'dead', 'expired'], []], inbox: [['pending', 'dead', 'parked'], ['handled']] };
  for (const [side, [states, allOnly]] of Object.entries(columns)) {
    const store = o[side];
    $(side).hidden = !store;
    if (!store) continue;
    const rows = store.tenants.map((t) => [t.tenantId, ...states.map((s) => t.states[s] || 0), ...allOnly.map(() => ''), age(t.oldestPendingAt, o.now)]);
    rows.push(['all tenants', ...[...states, ...allOnly].map((s) => store.totals[s]), age(store.oldestPendingAt, o.now)]);
    $(side + '-count').textContent = count(store.totalTenants, store.tenants.length);
    fill($(side + '-tenants'), ['Tenant', ...states, ...allOnly, 'Oldest pending'], rows);
    attention(side, $(side + '-attention'), store.attention, o.now);
  }
  fill($('audit'), ['When', 'Who', 'Action', 'Event id', 'Detail'], o.audit.map((a) => [
    new Date(a.at).toLocaleString(), a.actor, a.action, cell(el('code', a.target)), JSON.stringify(a.detail),
  ]));
}
async function refresh() {
  try {
    const tenant = $('tenant').value.trim();
    const response = await fetch('api/overview' + (tenant ? '?tenant=' + encodeURIComponent(tenant) : ''), { cache: 'no-store' });
    if (!response.ok) throw new Error('HTTP ' + response.status);
    render(await response.json());
  } catch (err) {
    $('updated').textContent = '· cannot read the stores: ' + err.message;
  }
}
$('tenant').addEventListener('change', refresh);
refresh();
setInterval(refresh, 3000);
</script>
</body>
</html>
`;
}

/** The outbox's or the inbox's part of the page: its tenants, and what needs a person. */
const storeSection = (id: 'outbox' | 'inbox', heading: string) => `<section id="${id}" hidden>
<h2>${heading} per tenant and state</h2>
<p class="muted" id="${id}-count"></p>
<table id="${id}-tenants"></table>
<h2>${heading} needing a person</h2>
<table id="${id}-attention"></table>
</section>`;
