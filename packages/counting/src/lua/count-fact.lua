-- A function the counting scripts share; each names this file on a `-- uses:` line, and the loader puts it
-- before the script (Redis runs one chunk per script). Not a script of its own.

-- Adds 1 to field ARGV[a + 2] of the hash of each of the ARGV[a + 7] grains that follow, then 1 to the
-- field of each (grain, field) pair after them (the breakdown and hourly counts), notes every grain counted
-- in the interval's set (one SADD), and notes the interval among the open ones (KEYS[k]) and the owners
-- (KEYS[k + 1]). ARGV[a] interval, ARGV[a + 1] its prefix, ARGV[a + 2] field, ARGV[a + 3 .. a + 6] two
-- owner fields with their values, ARGV[a + 7] number of grains, the grains, then the pairs up to the end of ARGV.
local function countFact(a, k)
  local prefix = ARGV[a + 1]
  local grainsEnd = a + 7 + tonumber(ARGV[a + 7])
  local counted, seen = {}, {}
  local function count(grain, field)
    redis.call('HINCRBY', prefix .. 'g:' .. grain, field, 1)
    if not seen[grain] then
      seen[grain] = true
      counted[#counted + 1] = grain
    end
  end
  for i = a + 8, grainsEnd do count(ARGV[i], ARGV[a + 2]) end
  for i = grainsEnd + 1, #ARGV, 2 do count(ARGV[i], ARGV[i + 1]) end
  if #counted > 0 then redis.call('SADD', prefix .. 'grains', unpack(counted)) end
  redis.call('ZADD', KEYS[k], 'NX', ARGV[a], ARGV[a])
  redis.call('HSET', KEYS[k + 1], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6])
end
