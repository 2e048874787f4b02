#!lua flags=allow-oom
-- Claims interval ARGV[1]: its hashes are renamed under a fold numbered by the interval itself, or just
-- above the last fold when a writer with a late clock reopened a claimed interval. A Redis gone back in
-- time (a restore, a failover) claims an interval again under the same number, which MongoDB's documents
-- record (`lastFold`) and skip. No step strands counts: an evicted grain's hash is skipped, the interval
-- leaves the open ones only once its fold is pending, and allow-oom lets the script run whole when Redis
-- is out of memory (folding is what frees it).
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
