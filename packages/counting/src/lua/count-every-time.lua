-- Counts a fact every time (filtered visits, a website placement's impressions).
-- KEYS: [1] open intervals, [2] owners.
-- ARGV: countFact's from 1.
-- Returns 1.

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

countFact(1, 1)
return 1
