-- The ad request's limit and count in one step: a fixed window of ARGV[2] seconds from the publisher's
-- first request (as rate-limiter-flexible's Redis limiter keeps it), then, if within the limit and a
-- creative was chosen (a field to count, ARGV[7], is given), the count. Idempotent per allocation: the
-- allocation id joins a short-lived set, and a call that finds it there (ioredis resends a script whose
-- answer a broken connection lost) answers as the first did without counting again.
-- KEYS: [1] limit, [2] open intervals, [3] owners, [4] recently counted ad requests.
-- ARGV: [1] points, [2] window seconds, [3] allocation id ('' when nothing is chosen), [4] ttl ms of the
--       recently counted set, [5 ..] countFact's from 5 (all '' and a grain count of 0 when nothing counts).
-- Returns {consumed, ms until the window ends, counted (1 or 0), allowed (1 or 0)}.

-- Adds 1 to field ARGV[a + 2] of the hash of each of the ARGV[a + 7] grains that follow, then 1 to the
-- field of each (grain, field) pair after them (the breakdown and hourly counts), and notes the interval
-- among the open ones (KEYS[k]) and the owners (KEYS[k + 1]). ARGV[a] interval, ARGV[a + 1] its prefix,
-- ARGV[a + 2] field, ARGV[a + 3 .. a + 6] two owner fields with their values, ARGV[a + 7] number of
-- grains, the grains, then the pairs up to the end of ARGV.
-- The same in count-ad-request.lua, count-once.lua and count-every-time.lua (a script cannot load another;
-- the Lua lint keeps the copies equal).
local function countFact(a, k)
  local prefix = ARGV[a + 1]
  local grainsEnd = a + 7 + tonumber(ARGV[a + 7])
  for i = a + 8, grainsEnd do
    redis.call('HINCRBY', prefix .. 'g:' .. ARGV[i], ARGV[a + 2], 1)
    redis.call('SADD', prefix .. 'grains', ARGV[i])
  end
  for i = grainsEnd + 1, #ARGV, 2 do
    redis.call('HINCRBY', prefix .. 'g:' .. ARGV[i], ARGV[i + 1], 1)
    redis.call('SADD', prefix .. 'grains', ARGV[i])
  end
  redis.call('ZADD', KEYS[k], 'NX', ARGV[a], ARGV[a])
  redis.call('HSET', KEYS[k + 1], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6])
end

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
countFact(5, 2)
return {consumed, ttl, 1, 1}
