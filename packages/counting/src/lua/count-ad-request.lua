-- The ad request's limit and count in one step: a fixed window of ARGV[2] seconds from the platform's
-- first request (as rate-limiter-flexible keeps it), then, within it and with a field to count (ARGV[7]),
-- the count. A call whose id is in the recent set (ioredis resending after a lost answer) counts nothing.
-- KEYS: [1] limit, [2] open intervals, [3] owners, [4] recently counted ad requests.
-- ARGV: [1] points, [2] window seconds, [3] allocation id ('' when nothing is chosen), [4] ttl ms of the
--       recently counted set, [5 ..] countFact's from 5 (all '' and a grain count of 0 when nothing counts).
-- Returns {consumed, ms until the window ends, counted (1 or 0), allowed (1 or 0)}.

-- uses: count-fact.lua

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
