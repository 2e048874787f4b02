-- What MongoDB does not hold yet, for some grains, and the owners asked for.
-- KEYS: [1] open intervals, [2] pending folds, [3] applied folds, [4] owners, [5] the last fold's number,
--       [6] the highest fold swept.
-- ARGV: [1] interval base prefix, [2] fold base prefix, [3] number of owner fields, [4 .. 3 + ARGV[3]]
--       the owner fields, then the grains up to the end of ARGV.
-- Returns {owner values}, {above, through}: every fold numbered above `above` up to `through`, the last
-- numbered, is pending or applied and still kept; then {number, grain, {field, value, ...}} per grain of
-- an open interval (the number its fold will have at least: the interval, or above the last fold) and of
-- a fold (pending or applied and kept).

local ownerCount = tonumber(ARGV[3])
local owners = {}
if ownerCount > 0 then owners = redis.call('HMGET', KEYS[4], unpack(ARGV, 4, 3 + ownerCount)) end
local pending = redis.call('ZRANGE', KEYS[2], 0, -1)
local applied = redis.call('ZRANGE', KEYS[3], 0, -1)
local through = tonumber(redis.call('GET', KEYS[5]) or '0')
local above = math.min(through, tonumber(redis.call('GET', KEYS[6]) or '0'))
local out = {owners, {above, through}}
local function collect(seq, prefix)
  for i = 4 + ownerCount, #ARGV do
    local fields = redis.call('HGETALL', prefix .. 'g:' .. ARGV[i])
    if #fields > 0 then table.insert(out, {seq, ARGV[i], fields}) end
  end
end
for _, interval in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  collect(math.max(tonumber(interval), through + 1), ARGV[1] .. interval .. ':')
end
for _, seq in ipairs(pending) do collect(tonumber(seq), ARGV[2] .. seq .. ':') end
for _, seq in ipairs(applied) do collect(tonumber(seq), ARGV[2] .. seq .. ':') end
return out
