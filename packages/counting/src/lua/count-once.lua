-- Counts a fact at most once per allocation: only the call that adds the allocation id to its hour's set
-- counts. A call that finds its own attempt id in the minute's set is a resend: it answers 1 again.
-- KEYS: [1] the hour's counted-once set, [2] hours with counted-once sets, [3] open intervals, [4] owners,
--       [5] recent attempts.
-- ARGV: [1] allocation id, [2] set ttl ms, [3] hour, [4] attempt id, [5 ..] countFact's from 5.
-- Returns 1 when counted (or this very call counted it before), 0 when already counted.

-- How long an attempt id is remembered: far longer than a reconnect and its resend.
local RECENT_ATTEMPTS_MS = 300000

-- uses: count-fact.lua

if redis.call('SADD', KEYS[1], ARGV[1]) == 0 then
  return redis.call('SISMEMBER', KEYS[5], ARGV[4])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[5], ARGV[4])
redis.call('PEXPIRE', KEYS[5], RECENT_ATTEMPTS_MS)
redis.call('ZADD', KEYS[2], 'NX', ARGV[3], ARGV[3])
countFact(5, 3)
return 1
