/**
 * The Redis inbox's keys and Lua scripts: ONE record per `eventId` (a hash), whatever the mode.
 * Scripts run atomically on the server's clock (`TIME`), so processes agree on leases and due times.
 * Every key is under one hash tag (one Cluster slot) and in KEYS: the indexes (1..7), then records.
 *
 * - `e:<eventId>` the record: state, body (absent while only an immediate receipt holds it),
 *   owner and lease, attempts, due time, last error. A record without a body expires with the
 *   dedup window; one with a body is kept until `cleanup` (handled) or an operator (dead, parked).
 * - `due`: pending records with a body, scored by when they may next be claimed (the due time,
 *   or the end of a live lease).
 * - `s:<state>`: each state's records with a body, scored by reception (list, stats).
 * - `settled`: handled records scored by when, for retention.
 * - `audit`: the operators' actions, newest first, capped.
 */
export function inboxKeys(prefix: string) {
  const base = /\{[^{}]+\}/.test(prefix) ? prefix : `${prefix}{inbox}:`;
  const indexes = ['due', 's:pending', 's:handled', 's:dead', 's:parked', 'settled', 'audit'].map(
    (name) => base + name,
  );
  return {
    indexes,
    record: (eventId: string) => `${base}e:${eventId}`,
    due: indexes[0]!,
    state: (state: string) => `${base}s:${state}`,
    settled: indexes[5]!,
    audit: indexes[6]!,
  };
}

/** How many entries the audit list keeps (LTRIM): the newest. */
export const AUDIT_LENGTH = 10_000;

/** Why a record is parked when its hash vanished while its id stayed in the indexes. */
export const LOST_REASON =
  'lost from Redis (its record was evicted or deleted; the body is gone): maxmemory-policy must be noeviction';

/** `now`: the server's clock, in epoch milliseconds (the same for every process). */
export const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const PRELUDE = `${NOW}
local DUE, SETTLED, AUDIT = KEYS[1], KEYS[6], KEYS[7]
local SET = {pending = KEYS[2], handled = KEYS[3], dead = KEYS[4], parked = KEYS[5]}
local function move(id, from, to, received)
  if from then redis.call('ZREM', SET[from], id) end
  if from == 'pending' then redis.call('ZREM', DUE, id) end
  if from == 'handled' then redis.call('ZREM', SETTLED, id) end
  redis.call('ZADD', SET[to], received, id)
  if to == 'handled' then redis.call('ZADD', SETTLED, now, id) end
end
local function audit(action, id, from)
  if ARGV[#ARGV - 1] == '' then return end
  local detail = cjson.decode(ARGV[#ARGV])
  detail['from'] = from
  redis.call('LPUSH', AUDIT, cjson.encode({at = now, actor = ARGV[#ARGV - 1], action = action, target = id,
    detail = detail}))
  redis.call('LTRIM', AUDIT, 0, ${AUDIT_LENGTH - 1})
end`;

/** The script of one record: KEYS[8]. */
const one = (body: string) => `${PRELUDE}
local rec, id = KEYS[8], ARGV[1]
${body}`;

const LIVE = `tonumber(h.lease or '0') > now`;

/** `h` = the record's fields by name. */
const READ = (fields: string[]) => `local h = {}
do
  local v = redis.call('HMGET', rec, ${fields.map((f) => `'${f}'`).join(', ')})
  ${fields.map((f, i) => `h['${f}'] = v[${i + 1}]`).join('; ')}
end`;

export const SCRIPTS = {
  /** ARGV: id, token, leaseMs, ttlMs, eventType, tenant. 'new' | 'done' | 'in-progress'. */
  begin: one(`local token, lease, ttl = ARGV[2], tonumber(ARGV[3]), ARGV[4]
${READ(['state', 'lease', 'body', 'received'])}
if not h.state then
  redis.call('HSET', rec, 'state', 'pending', 'type', ARGV[5], 'tenant', ARGV[6], 'owner', token,
    'lease', now + lease, 'attempts', 1, 'received', now)
  redis.call('PEXPIRE', rec, ttl)
  return 'new'
end
if h.state == 'handled' then return 'done' end
if h.state == 'pending' and ${LIVE} then return 'in-progress' end
-- Stored and not running, or dead or parked (the service sent it again): this receipt runs it.
redis.call('HSET', rec, 'owner', token, 'lease', now + lease)
redis.call('HINCRBY', rec, 'attempts', 1)
if h.body then
  if h.state ~= 'pending' then
    move(id, h.state, 'pending', h.received)
    redis.call('HSET', rec, 'state', 'pending')
    redis.call('HDEL', rec, 'settled')
  end
  redis.call('ZADD', DUE, now + lease, id)
else
  if h.state ~= 'pending' then redis.call('ZREM', SET[h.state], id) end
  redis.call('HSET', rec, 'state', 'pending')
  redis.call('PEXPIRE', rec, ttl)
end
return 'new'`),
  /** ARGV: id, token, ttlMs. 1 when this claim was still held. */
  complete: one(`${READ(['state', 'owner', 'body', 'received'])}
if h.state ~= 'pending' or h.owner ~= ARGV[2] then return 0 end
redis.call('HSET', rec, 'state', 'handled', 'settled', now)
redis.call('HDEL', rec, 'owner', 'lease', 'error')
if h.body then move(id, 'pending', 'handled', h.received)
else redis.call('PEXPIRE', rec, ARGV[3]) end
return 1`),
  /** ARGV: id, token. A stored record goes back to the deferred runner, due now; another is deleted. */
  release: one(`${READ(['state', 'owner', 'body'])}
if h.state ~= 'pending' or h.owner ~= ARGV[2] then return 0 end
if not h.body then return redis.call('DEL', rec) end
redis.call('HDEL', rec, 'owner', 'lease')
redis.call('HSET', rec, 'next', now)
redis.call('ZADD', DUE, now, id)
return 1`),
  /** ARGV: id, token, leaseMs. */
  extend: one(`${READ(['state', 'owner', 'body'])}
if h.state ~= 'pending' or h.owner ~= ARGV[2] then return 0 end
redis.call('HSET', rec, 'lease', now + tonumber(ARGV[3]))
if h.body then redis.call('ZADD', DUE, now + tonumber(ARGV[3]), id) end
return 1`),
  /**
   * ARGV: id, type, tenant, body, correlation, sigTs, secretIndex, receivedAt, state, reason. 1 stored,
   * 0 duplicate. A bodiless record not handled takes it: an immediate claim in flight keeps its lease
   * (if it fails, the event stays stored), a lost one starts again.
   */
  store: one(`${READ(['state', 'body'])}
if h.body or h.state == 'handled' then return 0 end
local state, received = ARGV[9], ARGV[8]
redis.call('PERSIST', rec)
redis.call('HSET', rec, 'type', ARGV[2], 'tenant', ARGV[3], 'body', ARGV[4], 'corr', ARGV[5], 'sig', ARGV[6],
  'idx', ARGV[7], 'received', received)
if h.state == 'pending' then
  redis.call('ZADD', SET.pending, received, id)
  redis.call('ZADD', DUE, math.max(now, tonumber(redis.call('HGET', rec, 'lease') or '0')), id)
  return 1
end
if h.state then redis.call('ZREM', SET[h.state], id) end
redis.call('HSET', rec, 'state', state, 'attempts', 0, 'next', now)
redis.call('HDEL', rec, 'owner', 'lease', 'error', 'settled')
redis.call('ZADD', SET[state], received, id)
if state == 'pending' then redis.call('ZADD', DUE, now, id)
else redis.call('HSET', rec, 'error', ARGV[10], 'settled', now) end
return 1`),
  /** KEYS[1] only. ARGV: limit. The ids due now. */
  due: `${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[1]))`,
  /**
   * KEYS[8..]: the records of ARGV[3..]. ARGV: owner, leaseMs, ids. Returns {claims, lost}:
   * claims flat [id, type, tenant, body, corr, sigTs, idx, receivedAt, attempt]...; lost: ids
   * whose record vanished, parked here (a stub without body) and nothing claimed this time.
   */
  claim: `${PRELUDE}
local owner, lease = ARGV[1], tonumber(ARGV[2])
local lost = {}
for i = 3, #ARGV do
  local id, rec = ARGV[i], KEYS[i + 5]
  if redis.call('ZSCORE', DUE, id) and redis.call('EXISTS', rec) == 0 then
    local received = redis.call('ZSCORE', SET.pending, id) or now
    move(id, 'pending', 'parked', received)
    redis.call('HSET', rec, 'state', 'parked', 'type', '', 'tenant', '', 'attempts', 0, 'received', received,
      'error', '${LOST_REASON}', 'settled', now)
    table.insert(lost, id)
  end
end
if #lost > 0 then return {{}, lost} end
local out = {}
for i = 3, #ARGV do
  local id, rec = ARGV[i], KEYS[i + 5]
  local due = redis.call('ZSCORE', DUE, id)
  local v = redis.call('HMGET', rec, 'state', 'type', 'tenant', 'body', 'corr', 'sig', 'idx', 'received')
  if due and tonumber(due) <= now and v[1] == 'pending' and v[4] then
    local attempt = redis.call('HINCRBY', rec, 'attempts', 1)
    redis.call('HSET', rec, 'owner', owner, 'lease', now + lease)
    redis.call('ZADD', DUE, now + lease, id)
    table.insert(out, id)
    for k = 2, 8 do table.insert(out, v[k]) end
    table.insert(out, tostring(attempt))
  elseif due and (v[1] ~= 'pending' or not v[4]) then
    -- Indexed as due, but not a stored pending record (re-created without its body after an
    -- eviction): out of the due index, so it never takes the place of one that is.
    redis.call('ZREM', DUE, id)
    if not v[4] then redis.call('ZREM', SET.pending, id) end
  end
end
return {out, {}}`,
  /** KEYS[8..]: the records of ARGV[3..]. ARGV: owner, leaseMs, ids. Returns the ids no longer held. */
  extendLease: `${PRELUDE}
local owner, lease = ARGV[1], tonumber(ARGV[2])
local lost = {}
for i = 3, #ARGV do
  local id, rec = ARGV[i], KEYS[i + 5]
  local v = redis.call('HMGET', rec, 'state', 'owner')
  if v[1] == 'pending' and v[2] == owner then
    redis.call('HSET', rec, 'lease', now + lease)
    redis.call('ZADD', DUE, now + lease, id)
  else table.insert(lost, id) end
end
return lost`,
  /** ARGV: id, owner, attempt, outcome (handled, retry, dead, parked), error, retryInMs. 1: still held. */
  settle: one(`${READ(['state', 'owner', 'attempts', 'received'])}
if h.state ~= 'pending' or h.owner ~= ARGV[2] or h.attempts ~= ARGV[3] then return 0 end
local outcome = ARGV[4]
redis.call('HDEL', rec, 'owner', 'lease')
if outcome == 'retry' then
  local at = now + tonumber(ARGV[6])
  redis.call('HSET', rec, 'error', ARGV[5], 'next', at)
  redis.call('ZADD', DUE, at, id)
  return 1
end
move(id, 'pending', outcome, h.received)
redis.call('HSET', rec, 'state', outcome, 'settled', now)
if outcome == 'handled' then redis.call('HDEL', rec, 'error') else redis.call('HSET', rec, 'error', ARGV[5]) end
return 1`),
  /** ARGV: id, actor ('' for no audit entry), detail (JSON). From dead, parked or handled, with a body. */
  replay: one(`${READ(['state', 'body', 'received'])}
if not h.state or h.state == 'pending' or not h.body then return 0 end
move(id, h.state, 'pending', h.received)
redis.call('HSET', rec, 'state', 'pending', 'attempts', 0, 'next', now)
redis.call('HDEL', rec, 'owner', 'lease', 'settled')
redis.call('ZADD', DUE, now, id)
audit('inbox.replay', id, h.state)
return 1`),
  /** ARGV: id, actor, detail. Refused (0) when handled, absent, or while a handler runs it. */
  discard: one(`${READ(['state', 'received', 'lease'])}
if not h.state or h.state == 'handled' then return 0 end
if h.state == 'pending' and ${LIVE} then return 0 end
move(id, h.state, 'handled', h.received or now)
redis.call('PERSIST', rec)
redis.call('HSET', rec, 'state', 'handled', 'error', 'discarded', 'settled', now)
redis.call('HDEL', rec, 'owner', 'lease', 'body')
audit('inbox.discard', id, h.state)
return 1`),
  /** KEYS[1]: settled. ARGV: retentionMs, batch. The ids handled before the retention. */
  expired: `${NOW}
return redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[1]), 'LIMIT', 0, tonumber(ARGV[2]))`,
  /** KEYS[8..]: the records of ARGV[2..]. ARGV: retentionMs, ids. Deletes those still handled that long. */
  cleanup: `${PRELUDE}
local n = 0
for i = 2, #ARGV do
  local id, rec = ARGV[i], KEYS[i + 6]
  local settled = redis.call('ZSCORE', SETTLED, id)
  if settled and tonumber(settled) <= now - tonumber(ARGV[1]) then
    if redis.call('HGET', rec, 'state') == 'handled' then redis.call('DEL', rec) end
    redis.call('ZREM', SETTLED, id)
    redis.call('ZREM', SET.handled, id)
    n = n + 1
  end
end
return n`,
  /** KEYS: records. Flat [type, tenant, attempts, error, received, next, settled] each ('' when absent). */
  read: `local out = {}
for i = 1, #KEYS do
  local v = redis.call('HMGET', KEYS[i], 'type', 'tenant', 'attempts', 'error', 'received', 'next', 'settled')
  for k = 1, 7 do table.insert(out, v[k] or '') end
end
return out`,
} as const;
