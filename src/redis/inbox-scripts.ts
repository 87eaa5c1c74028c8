/**
 * The deferred inbox's Lua scripts. Each runs atomically on the server, with the server's clock
 * (`TIME`), so processes on machines whose clocks differ agree on leases and due times.
 *
 * Keys, under `P = <prefix>dlv:` (ARGV[1] of every script): `P<eventId>` a hash per delivery;
 * `Pdue` pending deliveries scored by when they may next be claimed (due time, or the end of the
 * lease of a claimed one); `Ps:<state>` each state's deliveries scored by reception (list,
 * stats, statsByTenant); `Psettled` handled deliveries scored by when, for retention. The keys
 * are built inside the scripts, so the store needs one Redis server (not a Cluster).
 */
const NOW = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Moves a delivery between state sets. */
const MOVE = `local function move(P, id, from, to, score)
  redis.call('ZREM', P .. 's:' .. from, id)
  redis.call('ZADD', P .. 's:' .. to, score, id)
end`;

/** ARGV: P, id, owner, attempt. Whether this claim still holds the delivery. */
const MINE = `local function mine(P, id, owner, attempt)
  local h = redis.call('HMGET', P .. id, 'state', 'owner', 'attempts')
  return h[1] == 'pending' and h[2] == owner and h[3] == attempt
end`;

export const SCRIPTS = {
  /** ARGV: P, id, type, tenant, body, correlation, sigTs, secretIndex, receivedAt, state, reason. */
  store: `${NOW}
local P, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', P .. id) == 1 then return 0 end
local state = ARGV[10]
redis.call('HSET', P .. id, 'event_type', ARGV[3], 'tenant_id', ARGV[4], 'raw_body', ARGV[5],
  'correlation_id', ARGV[6], 'sig_ts', ARGV[7], 'secret_index', ARGV[8], 'received_at', ARGV[9],
  'state', state, 'attempts', '0', 'next_at', now)
redis.call('ZADD', P .. 's:' .. state, ARGV[9], id)
if state == 'pending' then redis.call('ZADD', P .. 'due', now, id)
else redis.call('HSET', P .. id, 'last_error', ARGV[11], 'settled_at', now) end
return 1`,
  /** ARGV: P, owner, limit, leaseMs. Returns flat [id, type, tenant, body, corr, sigTs, idx, receivedAt, attempt]... */
  claimDue: `${NOW}
local P, owner, lease = ARGV[1], ARGV[2], tonumber(ARGV[4])
local ids = redis.call('ZRANGEBYSCORE', P .. 'due', '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  local attempt = redis.call('HINCRBY', P .. id, 'attempts', 1)
  redis.call('HSET', P .. id, 'owner', owner)
  redis.call('ZADD', P .. 'due', now + lease, id)
  local h = redis.call('HMGET', P .. id, 'event_type', 'tenant_id', 'raw_body', 'correlation_id', 'sig_ts',
    'secret_index', 'received_at')
  table.insert(out, id)
  for i = 1, 7 do table.insert(out, h[i]) end
  table.insert(out, tostring(attempt))
end
return out`,
  /** ARGV: P, owner, leaseMs, ids... Returns the ids no longer held. */
  extendLease: `${NOW}
local P, owner, lease = ARGV[1], ARGV[2], tonumber(ARGV[3])
local lost = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local h = redis.call('HMGET', P .. id, 'state', 'owner')
  if h[1] == 'pending' and h[2] == owner then redis.call('ZADD', P .. 'due', now + lease, id)
  else table.insert(lost, id) end
end
return lost`,
  /** ARGV: P, id, owner, attempt, outcome ('handled' | 'retry' | 'dead' | 'parked'), error, retry in ms. */
  settle: `${NOW}
${MOVE}
${MINE}
local P, id, outcome = ARGV[1], ARGV[2], ARGV[5]
if not mine(P, id, ARGV[3], ARGV[4]) then return 0 end
local received = redis.call('HGET', P .. id, 'received_at')
redis.call('HDEL', P .. id, 'owner')
if outcome == 'retry' then
  local due = now + tonumber(ARGV[7])
  redis.call('HSET', P .. id, 'last_error', ARGV[6], 'next_at', due)
  redis.call('ZADD', P .. 'due', due, id)
  return 1
end
redis.call('ZREM', P .. 'due', id)
move(P, id, 'pending', outcome, received)
redis.call('HSET', P .. id, 'state', outcome, 'settled_at', now)
if outcome == 'handled' then
  redis.call('HDEL', P .. id, 'last_error')
  redis.call('ZADD', P .. 'settled', now, id)
else redis.call('HSET', P .. id, 'last_error', ARGV[6]) end
return 1`,
  /** ARGV: P, id. */
  replay: `${NOW}
${MOVE}
local P, id = ARGV[1], ARGV[2]
local h = redis.call('HMGET', P .. id, 'state', 'raw_body', 'received_at')
if not h[1] or h[1] == 'pending' or not h[2] then return 0 end
move(P, id, h[1], 'pending', h[3])
redis.call('ZREM', P .. 'settled', id)
redis.call('HSET', P .. id, 'state', 'pending', 'attempts', '0', 'next_at', now)
redis.call('HDEL', P .. id, 'owner', 'settled_at')
redis.call('ZADD', P .. 'due', now, id)
return 1`,
  /** ARGV: P, id. */
  discard: `${NOW}
${MOVE}
local P, id = ARGV[1], ARGV[2]
local h = redis.call('HMGET', P .. id, 'state', 'received_at')
if not h[1] or h[1] == 'handled' then return 0 end
move(P, id, h[1], 'handled', h[2])
redis.call('ZREM', P .. 'due', id)
redis.call('ZADD', P .. 'settled', now, id)
redis.call('HSET', P .. id, 'state', 'handled', 'last_error', 'discarded', 'settled_at', now)
redis.call('HDEL', P .. id, 'owner', 'raw_body')
return 1`,
  /** ARGV: P, retentionMs, batch. */
  cleanup: `${NOW}
local P = ARGV[1]
local ids = redis.call('ZRANGEBYSCORE', P .. 'settled', '-inf', now - tonumber(ARGV[2]), 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do
  redis.call('DEL', P .. id)
  redis.call('ZREM', P .. 'settled', id)
  redis.call('ZREM', P .. 's:handled', id)
end
return #ids`,
  /**
   * ARGV: P. Flat [tenant, state, count, oldest receivedAt]... for pending, dead and parked
   * deliveries (handled ones, kept for the retention, are not read). Each state set is read in
   * reception order, so a tenant's first delivery seen is its oldest.
   */
  statsByTenant: `local P = ARGV[1]
local out = {}
for _, state in ipairs({'pending', 'dead', 'parked'}) do
  local counts, oldest, tenants, start = {}, {}, {}, 0
  while true do
    local page = redis.call('ZRANGE', P .. 's:' .. state, start, start + 199, 'WITHSCORES')
    if #page == 0 then break end
    start = start + 200
    for i = 1, #page, 2 do
      local tenant = redis.call('HGET', P .. page[i], 'tenant_id') or ''
      if not counts[tenant] then
        counts[tenant], oldest[tenant] = 0, page[i + 1]
        table.insert(tenants, tenant)
      end
      counts[tenant] = counts[tenant] + 1
    end
  end
  for _, tenant in ipairs(tenants) do
    table.insert(out, tenant)
    table.insert(out, state)
    table.insert(out, tostring(counts[tenant]))
    table.insert(out, oldest[tenant])
  end
end
return out`,
  /** ARGV: P, state, tenant ('' for any), limit. Flat rows of LIST_FIELDS, id first. */
  list: `local P, state, tenant, limit = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
local out, found, start = {}, 0, 0
while found < limit do
  local ids = redis.call('ZRANGE', P .. 's:' .. state, start, start + 199)
  if #ids == 0 then break end
  start = start + 200
  for _, id in ipairs(ids) do
    local h = redis.call('HMGET', P .. id, 'event_type', 'tenant_id', 'attempts', 'last_error', 'received_at',
      'next_at', 'settled_at')
    if found < limit and (tenant == '' or h[2] == tenant) then
      found = found + 1
      table.insert(out, id)
      for i = 1, 7 do table.insert(out, h[i] or '') end
    end
  end
end
return out`,
} as const;
