-- The fields of some grains in some folds.
-- KEYS: none.
-- ARGV: [1] fold base prefix, [2] number of folds n, [3 .. 2 + n] the folds' numbers, then the grains.
-- Returns {grain, fold, {field, value, ...}} for each grain counted in a fold.

local folds = tonumber(ARGV[2])
local out = {}
for g = 3 + folds, #ARGV do
  for f = 3, 2 + folds do
    local fields = redis.call('HGETALL', ARGV[1] .. ARGV[f] .. ':g:' .. ARGV[g])
    if #fields > 0 then table.insert(out, {ARGV[g], tonumber(ARGV[f]), fields}) end
  end
end
return out
