#!lua flags=allow-oom
-- Claims interval ARGV[1] for folding: its hashes are renamed under a fold numbered by the interval itself
-- (the instant it ends), or just above the last fold claimed when a writer with a late clock reopened an
-- interval already claimed. A document in MongoDB records the highest fold it holds, so the same interval
-- claimed again by a Redis that went back in time (a restore, a failover to a replica that missed the
-- claim) gets the same number and adds nothing there, while a reopened interval's new counts get a new one.
-- No step can fail half-way and strand counts: a grain whose hash is gone (a Redis that evicted it) is
-- skipped rather than failing RENAME, the interval leaves the open ones only once its fold is pending, and
-- the script runs whole even when Redis is out of memory (the allow-oom flag above; without it Redis may
-- refuse the script at a write in the middle): folding is what frees Redis' memory, so it must go on when
-- nothing else can.
-- KEYS: [1] open intervals, [2] pending folds, [3] the last fold's number.
-- ARGV: [1] interval, [2] its prefix, [3] fold base prefix.
-- Returns the fold's number, or 0 when the interval held nothing.

local grains = redis.call('SMEMBERS', ARGV[2] .. 'grains')
if #grains == 0 then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
local number = math.max(tonumber(ARGV[1]), tonumber(redis.call('GET', KEYS[3]) or '0') + 1)
local seq = string.format('%.0f', number)
redis.call('SET', KEYS[3], seq)
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
