-- Shared by the counting scripts (`-- uses:`). Adds 1 to field ARGV[a + 2] of each of the ARGV[a + 7] grains
-- that follow, then to each (grain, field) pair after them (hours, breakdowns); notes the grains in the
-- interval's set, the interval among the open ones (KEYS[k]) and the owners (KEYS[k + 1]). ARGV[a]
-- interval, ARGV[a + 1] its prefix, ARGV[a + 3 .. a + 6] two owner fields with their values.
local function countFact(a, k)
  local prefix, grainsEnd, counted = ARGV[a + 1], a + 7 + tonumber(ARGV[a + 7]), {}
  local function count(grain, field)
    redis.call('HINCRBY', prefix .. 'g:' .. grain, field, 1)
    counted[#counted + 1] = grain
  end
  for i = a + 8, grainsEnd do count(ARGV[i], ARGV[a + 2]) end
  for i = grainsEnd + 1, #ARGV, 2 do count(ARGV[i], ARGV[i + 1]) end
  if #counted > 0 then redis.call('SADD', prefix .. 'grains', unpack(counted)) end
  redis.call('ZADD', KEYS[k], 'NX', ARGV[a], ARGV[a])
  redis.call('HSET', KEYS[k + 1], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6])
end
