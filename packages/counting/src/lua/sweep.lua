-- Deletes at most ARGV[5] of the folds applied before ARGV[1] (ms), and the counted-once sets of the hours
-- before ARGV[3].
-- KEYS: [1] applied folds, [2] hours with counted-once sets.
-- ARGV: [1] applied cutoff ms, [2] fold base prefix, [3] hour cutoff, [4] counted-once base prefix,
--       [5] most folds to delete.
-- Returns the number of folds deleted.

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
return #folds
