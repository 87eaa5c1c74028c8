/**
 * The dashboard at `/__emulator/`: one HTML string with a little script, nothing fetched from
 * elsewhere. It polls `/__emulator/state` once a second and posts the merchant's actions.
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Loyalty emulator</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5rem; color: #1d2327; background: #fafafa; }
  h1 { font-size: 1.3rem; margin: 0 0 .2rem; } h2 { font-size: 1.05rem; margin: 1.4rem 0 .4rem; }
  h3 { font-size: .95rem; margin: .8rem 0 .3rem; }
  table { border-collapse: collapse; width: 100%; background: #fff; margin-bottom: .6rem; }
  th, td { border: 1px solid #dcdcde; padding: .25rem .45rem; text-align: left; vertical-align: top; }
  th { background: #f0f0f1; font-weight: 600; } code { font-size: 12px; }
  .merchant { border: 1px solid #c3c4c7; background: #fff; padding: .6rem .9rem; margin-bottom: 1rem; border-radius: 6px; }
  .ok { color: #00703c; } .bad { color: #b32d2e; } .warn { color: #996800; } .muted { color: #646970; }
  button { margin: 0 .3rem .3rem 0; padding: .25rem .7rem; cursor: pointer; }
  #message { min-height: 1.2rem; }
</style>
</head>
<body>
<h1>Loyalty emulator</h1>
<p class="muted">A local test double of the Loyalty service. <span id="summary"></span></p>
<p id="message" role="status"></p>
<div id="merchants"></div>
<h2>Last events</h2>
<table><thead><tr><th>#</th><th>time</th><th>request</th><th>answer</th><th>event</th><th>tenant</th></tr></thead><tbody id="events"></tbody></table>
<h2>Last webhooks</h2>
<table><thead><tr><th>event</th><th>tenant</th><th>status</th><th>attempts (answer, verdict)</th><th>receiver</th></tr></thead><tbody id="deliveries"></tbody></table>
<script>
const base = location.pathname.replace(/\\/+$/, '');
const esc = (v) => String(v ?? '').replace(/[&<>"']/g, (c) => '&#' + c.charCodeAt(0) + ';');
const time = (ms) => new Date(ms).toISOString().slice(11, 19);
const tone = (ok) => (ok ? 'ok' : 'bad');
const ACTIONS = [
  ['pause', 'Pause', (m) => !m.paused], ['resume', 'Resume', (m) => m.paused],
  ['disable', 'Disable', (m) => m.status === 'Enabled'], ['enable', 'Enable', (m) => m.status === 'Disabled'],
  ['disconnect', 'Disconnect', (m) => m.status !== 'Disconnected'], ['reconnect', 'Reconnect', (m) => m.status === 'Disconnected'],
];
function merchantHtml(m) {
  const buttons = ACTIONS.filter(([, , shown]) => shown(m))
    .map(([action, label]) => '<button data-tenant="' + esc(m.tenantId) + '" data-action="' + action + '">' + label + '</button>').join('');
  const branches = m.branches.map((b) => '<tr><td>' + esc(b.externalBranchId) + '</td><td>' + esc(b.name) + '</td><td class="' + tone(b.confirmed) + '">' +
    (b.confirmed ? 'confirmed' : 'awaiting confirmation <button data-tenant="' + esc(m.tenantId) + '" data-branch="' + esc(b.externalBranchId) + '">Confirm</button>') + '</td></tr>').join('');
  const balances = m.balances.map((b) => '<tr><td>' + esc(b.externalCustomerId) + '</td><td>' + b.points + '</td><td>' +
    esc(Object.entries(b.stamps).map(([card, n]) => card + ': ' + n).join(', ')) + '</td></tr>').join('');
  const ledger = m.ledger.slice().reverse().map((e) => '<tr><td>' + time(e.at) + '</td><td>' + esc(e.kind) + '</td><td>' + esc(e.externalCustomerId) +
    '</td><td>' + e.points + '</td><td>' + e.stamps + '</td><td>' + esc(e.externalInvoiceId ?? e.redemptionId ?? '') + '</td></tr>').join('');
  return '<section class="merchant" data-tenant="' + esc(m.tenantId) + '"><h2>' + esc(m.tenantId) + ' <span class="connection ' +
    tone(m.connection === 'Active' && !m.paused) + '">' + esc(m.connection) + (m.paused ? ', paused' : '') + '</span></h2>' +
    '<p class="muted">' + esc(m.environment) + ' · subscription ' + esc(m.subscription) + ' · rule version ' + m.ruleVersion +
    ' · webhooks to ' + esc(m.receiverUrl ?? 'nowhere (queued)') + ' · ' + m.counts.customers + ' customers, ' + m.counts.products +
    ' products, ' + m.counts.invoices + ' invoices</p><div>' + buttons + '</div>' +
    (branches ? '<h3>Branches</h3><table><thead><tr><th>branch</th><th>name</th><th>pairing</th></tr></thead><tbody>' + branches + '</tbody></table>' : '') +
    '<h3>Balances</h3>' + (balances ? '<table><thead><tr><th>customer</th><th>points</th><th>stamps</th></tr></thead><tbody>' + balances + '</tbody></table>' : '<p class="muted">none yet</p>') +
    '<h3>Ledger (newest first)</h3>' + (ledger ? '<table><thead><tr><th>time</th><th>kind</th><th>customer</th><th>points</th><th>stamps</th><th>invoice</th></tr></thead><tbody>' + ledger + '</tbody></table>' : '<p class="muted">empty</p>') +
    '</section>';
}
function eventRow(r) {
  const answer = r.status === null ? 'no answer' : r.status + ' ' + r.outcome + (r.code ? ' ' + r.code : '');
  return '<tr><td>' + r.seq + '</td><td>' + time(r.at) + '</td><td>' + esc(r.method + ' ' + r.path) + '</td><td class="' +
    (r.status !== null && r.status < 300 ? 'ok' : r.outcome === 'fault' ? 'warn' : 'bad') + '">' + esc(answer) + (r.fault ? ' (fault ' + esc(r.fault) + ')' : '') +
    '</td><td>' + esc(r.eventType ?? '') + ' <code>' + esc(r.eventId ?? '') + '</code></td><td>' + esc(r.tenantId ?? '') + '</td></tr>';
}
function deliveryRow(d) {
  const attempts = d.attempts.map((a) => '#' + a.number + ' ' + time(a.at) + ' ' + esc(a.error ?? a.status ?? 'no answer') + ' ' + esc(a.verdict)).join('<br>');
  return '<tr><td>' + esc(d.eventType) + ' <code>' + esc(d.eventId) + '</code></td><td>' + esc(d.tenantId) + '</td><td class="' +
    (d.status === 'delivered' ? 'ok' : d.status === 'failed' || d.status === 'rejected' ? 'bad' : 'warn') + '">' + esc(d.status) +
    (d.nextAttemptAt ? ' (next ' + time(d.nextAttemptAt) + ')' : '') + '</td><td>' + (attempts || '<span class="muted">none</span>') + '</td><td>' + esc(d.url ?? '') + '</td></tr>';
}
async function refresh() {
  const state = await fetch(base + '/state', { cache: 'no-store' }).then((r) => r.json());
  document.getElementById('summary').textContent = state.requestsSeen + ' requests so far · latency ' + state.latencyMs + ' ms · faults ' +
    (state.faults ? state.faults.kinds.join(', ') : 'none') + (state.shipped.length ? ' · shipped ' + state.shipped.join(', ') : '');
  document.getElementById('merchants').innerHTML = state.merchants.map(merchantHtml).join('');
  document.getElementById('events').innerHTML = state.events.slice().reverse().map(eventRow).join('');
  document.getElementById('deliveries').innerHTML = state.deliveries.slice().reverse().map(deliveryRow).join('');
}
document.addEventListener('click', async (event) => {
  const button = event.target.closest('button');
  if (!button) return;
  const tenant = encodeURIComponent(button.dataset.tenant);
  const path = button.dataset.branch
    ? '/merchants/' + tenant + '/branches/' + encodeURIComponent(button.dataset.branch) + '/confirm'
    : '/merchants/' + tenant + '/' + button.dataset.action;
  const answer = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then((r) => r.json());
  document.getElementById('message').textContent = answer.ok ? button.textContent + ': done' : answer.code + ': ' + answer.message;
  await refresh();
});
refresh();
setInterval(() => refresh().catch(() => {}), 1000);
</script>
</body>
</html>
`;
