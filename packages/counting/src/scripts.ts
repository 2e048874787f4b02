/**
 * The pipeline's Lua scripts: each is one atomic step in Redis. They build the names of per-grain hashes
 * from prefixes passed in ARGV (the grains are not known in advance), so the pipeline needs one Redis, or
 * one cluster slot for the deployment prefix (docs/decisions/0013).
 */

/** How long a counting call's attempt id is remembered: far longer than a reconnect and its resend. */
const RECENT_ATTEMPTS_MS = 5 * 60_000;

// Adds 1 to `field` of the hash of each of the ARGV[a+7] grains that follow, then 1 to the field of each
// (grain, field) pair after them (the breakdown grains), and notes the interval and the owners.
// Expects: ARGV[a] interval, ARGV[a+1] interval prefix, ARGV[a+2] field, ARGV[a+3..a+6] owner fields,
// ARGV[a+7] number of grains, the grains, then pairs; KEYS[k] open intervals, KEYS[k+1] owners.
const COUNT_BLOCK = (a: number, k: number) => `
local grainsEnd = ${a + 7} + tonumber(ARGV[${a + 7}])
for i = ${a + 8}, grainsEnd do
  redis.call('HINCRBY', ARGV[${a + 1}] .. 'g:' .. ARGV[i], ARGV[${a + 2}], 1)
  redis.call('SADD', ARGV[${a + 1}] .. 'grains', ARGV[i])
end
for i = grainsEnd + 1, #ARGV, 2 do
  redis.call('HINCRBY', ARGV[${a + 1}] .. 'g:' .. ARGV[i], ARGV[i + 1], 1)
  redis.call('SADD', ARGV[${a + 1}] .. 'grains', ARGV[i])
end
redis.call('ZADD', KEYS[${k}], 'NX', ARGV[${a}], ARGV[${a}])
redis.call('HSET', KEYS[${k + 1}], ARGV[${a + 3}], ARGV[${a + 4}], ARGV[${a + 5}], ARGV[${a + 6}])
`;

/**
 * The ad request's limit and count in one step: a fixed window of ARGV[2] seconds from the publisher's
 * first request (as rate-limiter-flexible's Redis limiter keeps it), then, if within the limit and a
 * creative was chosen (ARGV[5] != ''), the count. Idempotent per allocation (ARGV[3 + 7 + ...]: see
 * below): the allocation id joins a short-lived set, and a call that finds it there (ioredis resends a
 * script whose answer a broken connection lost) answers as the first did without counting again.
 * Returns {consumed, ms until the window ends, counted, allowed}.
 * KEYS: limit, open intervals, owners, recently counted ad requests.
 * ARGV: points, window seconds, allocation id ('' when nothing is chosen), set ttl ms, then the count
 * block's from 5.
 */
export const COUNT_AD_REQUEST = {
  numberOfKeys: 4,
  lua: `
if ARGV[3] ~= '' and redis.call('SISMEMBER', KEYS[4], ARGV[3]) == 1 then
  return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1]), 1, 1}
end
redis.call('SET', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local consumed = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  ttl = 1000 * tonumber(ARGV[2])
end
if consumed > tonumber(ARGV[1]) then return {consumed, ttl, 0, 0} end
if ARGV[7] == '' then return {consumed, ttl, 0, 1} end
redis.call('SADD', KEYS[4], ARGV[3])
redis.call('PEXPIRE', KEYS[4], ARGV[4])
${COUNT_BLOCK(5, 2)}
return {consumed, ttl, 1, 1}
`,
};

/**
 * Counts a fact at most once per allocation: the allocation id joins the set of its hour (which expires
 * after ARGV[2] ms), and only the call that added it counts. Returns 1 when counted, 0 when already there.
 * Idempotent per call: the call's attempt id (ARGV[4]) joins a short-lived set of the minute, and a call
 * that finds its allocation counted and its own attempt id there is ioredis resending a script whose
 * answer a broken connection lost: it answers 1 again, without counting again.
 * KEYS: once set, once hours, open intervals, owners, recent attempts. ARGV: allocation id, set ttl ms,
 * hour, attempt id, then the count block's from 5.
 */
export const COUNT_ONCE = {
  numberOfKeys: 5,
  lua: `
if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return redis.call('SISMEMBER', KEYS[5], ARGV[4])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[5], ARGV[4])
redis.call('PEXPIRE', KEYS[5], ${RECENT_ATTEMPTS_MS})
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[3])
${COUNT_BLOCK(5, 3)}
return 1
`,
};

/**
 * Remembers a fact of a test allocation (sandbox, decision 0021) without counting it: 1 the first time,
 * 0 after, so a test confirmation answers `first_confirmation` as a live one would. KEYS: the set.
 * ARGV: allocation id, set ttl ms.
 */
export const MARK_ONCE = {
  numberOfKeys: 1,
  lua: `
local added = redis.call('SADD', KEYS[1], ARGV[1])
if added == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return added
`,
};

/** Counts a fact every time (filtered visits). KEYS: open intervals, owners. ARGV: the count block's from 1. */
export const COUNT_EVERY_TIME = {
  numberOfKeys: 2,
  lua: `${COUNT_BLOCK(1, 1)}
return 1`,
};

/**
 * Claims interval ARGV[1] for folding: its hashes are renamed under a new fold sequence number, so a
 * writer still counting into that interval (a late clock) starts it afresh and nothing is lost or folded
 * twice. The number is above ARGV[4], the highest fold MongoDB may hold (the folder's floor): a Redis that
 * went back in time (a restore, a failover to a lagging replica) never numbers a new fold at or below one
 * already applied. Returns the sequence number, or 0 when the interval held nothing.
 * No step can fail half-way and strand counts: a grain whose hash is gone (a Redis that evicted it) is
 * skipped rather than failing RENAME, the interval leaves the open ones only once its fold is pending, and
 * the script runs whole even when Redis is out of memory (`allow-oom`; without the flag Redis may refuse it
 * at a write in the middle): folding is what frees Redis' memory, so it must go on when nothing else can.
 * KEYS: open intervals, pending folds, sequence. ARGV: interval, its prefix, the fold base prefix, floor.
 */
export const CLAIM_INTERVAL = {
  numberOfKeys: 3,
  lua: `#!lua flags=allow-oom
local grains = redis.call('SMEMBERS', ARGV[2] .. 'grains')
if #grains == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
local seq = redis.call('INCR', KEYS[3])
if seq <= tonumber(ARGV[4]) then
  seq = tonumber(ARGV[4]) + 1
  redis.call('SET', KEYS[3], seq)
end
local fold = ARGV[3] .. seq .. ':'
for _, grain in ipairs(grains) do
  if redis.call('EXISTS', ARGV[2] .. 'g:' .. grain) == 1 then
    redis.call('RENAME', ARGV[2] .. 'g:' .. grain, fold .. 'g:' .. grain)
  end
end
redis.call('RENAME', ARGV[2] .. 'grains', fold .. 'grains')
redis.call('ZADD', KEYS[2], seq, seq)
redis.call('ZREM', KEYS[1], ARGV[1])
return seq
`,
};

/**
 * Adds the grains of fold ARGV[2] to the set KEYS[1] (expiring after ARGV[3] ms), for the folder to walk
 * in chunks; one fold a call, so no call holds Redis long. ARGV: fold base prefix, sequence number, ms.
 * Returns the number of grains gathered so far.
 */
export const GATHER_GRAINS = {
  numberOfKeys: 1,
  lua: `
local count = redis.call('SUNIONSTORE', KEYS[1], KEYS[1], ARGV[1] .. ARGV[2] .. ':grains')
if count > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return count
`,
};

/** SSCAN of KEYS[1] from cursor ARGV[1], about ARGV[2] members, renewing its life to ARGV[3] ms; nil when it is gone. */
export const SCAN_GRAINS = {
  numberOfKeys: 1,
  lua: `
if redis.call('PEXPIRE', KEYS[1], ARGV[3]) == 0 then return false end
return redis.call('SSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
`,
};

/**
 * The fields of the grains ARGV[3 + ARGV[2]..] in the folds ARGV[3..2 + ARGV[2]]: {grain, seq, {field,
 * value, ...}} for each grain counted in a fold. ARGV: fold base prefix, number of folds, folds, grains.
 */
export const READ_GRAINS = {
  numberOfKeys: 0,
  lua: `
local folds = tonumber(ARGV[2])
local out = {}
for g = 3 + folds, #ARGV do
  for f = 3, 2 + folds do
    local fields = redis.call('HGETALL', ARGV[1] .. ARGV[f] .. ':g:' .. ARGV[g])
    if #fields > 0 then table.insert(out, {ARGV[g], tonumber(ARGV[f]), fields}) end
  end
end
return out
`,
};

/**
 * Deletes at most ARGV[5] of the folds applied before ARGV[1] (ms), so that one call holds Redis for a
 * few milliseconds however large the folds, and the counted-once sets of hours before ARGV[3].
 * KEYS: applied folds, once hours. ARGV: applied cutoff, fold base prefix, hour cutoff, once base prefix,
 * most folds. Returns {folds removed, hours removed}.
 */
export const SWEEP = {
  numberOfKeys: 2,
  lua: `
local folds = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, ARGV[5])
for _, seq in ipairs(folds) do
  local fold = ARGV[2] .. seq .. ':'
  for _, grain in ipairs(redis.call('SMEMBERS', fold .. 'grains')) do redis.call('DEL', fold .. 'g:' .. grain) end
  redis.call('DEL', fold .. 'grains')
  redis.call('ZREM', KEYS[1], seq)
end
local hours = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[3])
for _, hour in ipairs(hours) do
  redis.call('DEL', ARGV[4] .. 'confirmed:' .. hour, ARGV[4] .. 'clicked:' .. hour)
  redis.call('ZREM', KEYS[2], hour)
end
return {#folds, #hours}
`,
};

/**
 * What MongoDB does not hold yet, for the grains ARGV[5..] and the owners ARGV[4 + 1 .. 4 + ARGV[3]]:
 * {owner values}, {above, through}: every fold numbered above `above` up to `through`, the last numbered,
 * is pending or applied and still kept; then {0, grain, fields} per open interval and
 * {seq, grain, fields} per fold (pending or applied and still kept).
 * KEYS: open intervals, pending folds, applied folds, owners, fold sequence.
 * ARGV: interval base prefix, fold base prefix, number of owner fields, owner fields..., grains...
 */
export const READ_UNFOLDED = {
  numberOfKeys: 5,
  lua: `
local ownerCount = tonumber(ARGV[3])
local owners = {}
if ownerCount > 0 then owners = redis.call('HMGET', KEYS[4], unpack(ARGV, 4, 3 + ownerCount)) end
local held = {}
local pending = redis.call('ZRANGE', KEYS[2], 0, -1)
local applied = redis.call('ZRANGE', KEYS[3], 0, -1)
for _, seq in ipairs(pending) do held[tonumber(seq)] = true end
for _, seq in ipairs(applied) do held[tonumber(seq)] = true end
local through = tonumber(redis.call('GET', KEYS[5]) or '0')
local above = through
while held[above] do above = above - 1 end
local out = {owners, {above, through}}
local function collect(seq, prefix)
  for i = 4 + ownerCount, #ARGV do
    local fields = redis.call('HGETALL', prefix .. 'g:' .. ARGV[i])
    if #fields > 0 then table.insert(out, {seq, ARGV[i], fields}) end
  end
end
for _, interval in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do collect(0, ARGV[1] .. interval .. ':') end
for _, seq in ipairs(pending) do collect(tonumber(seq), ARGV[2] .. seq .. ':') end
for _, seq in ipairs(applied) do collect(tonumber(seq), ARGV[2] .. seq .. ':') end
return out
`,
};

/** Takes or renews the folder's lease: KEYS[1] lease, ARGV[1] holder, ARGV[2] ms. 1 when held by ARGV[1]. */
export const HOLD_LEASE = {
  numberOfKeys: 1,
  lua: `
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
`,
};
