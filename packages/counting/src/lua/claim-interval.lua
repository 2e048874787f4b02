#!lua flags=allow-oom
-- Claims interval ARGV[1] for folding: its hashes are renamed under a new fold sequence number, so a
-- writer still counting into that interval (a late clock) starts it afresh and nothing is lost or folded
-- twice. The number is above ARGV[4], the highest fold MongoDB may hold (the folder's floor): a Redis that
-- went back in time (a restore, a failover to a lagging replica) never numbers a new fold at or below one
-- already applied.
-- No step can fail half-way and strand counts: a grain whose hash is gone (a Redis that evicted it) is
-- skipped rather than failing RENAME, the interval leaves the open ones only once its fold is pending, and
-- the script runs whole even when Redis is out of memory (the allow-oom flag above; without it Redis may
-- refuse the script at a write in the middle): folding is what frees Redis' memory, so it must go on when
-- nothing else can.
-- KEYS: [1] open intervals, [2] pending folds, [3] fold sequence.
-- ARGV: [1] interval, [2] its prefix, [3] fold base prefix, [4] floor.
-- Returns the fold's sequence number, or 0 when the interval held nothing.

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
