-- What MongoDB does not hold yet of every grain `cp:<campaign>:<publisher>` (the report's finest grain),
-- with the owners of its campaign and publisher: the grains are found in the grain lists of the open
-- intervals and of the pending and kept folds, so the caller needs not know them.
-- KEYS: [1] open intervals, [2] pending folds, [3] applied folds, [4] owners, [5] the last fold's number,
--       [6] the highest fold swept.
-- ARGV: [1] interval base prefix, [2] fold base prefix.
-- Returns {above, through} as read-unfolded.lua does, then {number, grain, {field, value, ...},
-- campaign owner or false, publisher owner or false} per `cp:` grain of an open interval or a kept fold.

local pending = redis.call('ZRANGE', KEYS[2], 0, -1)
local applied = redis.call('ZRANGE', KEYS[3], 0, -1)
local through = tonumber(redis.call('GET', KEYS[5]) or '0')
local above = math.min(through, tonumber(redis.call('GET', KEYS[6]) or '0'))
local out = {{above, through}}
local owners = {}
local function ownerOf(field)
  if owners[field] == nil then owners[field] = redis.call('HGET', KEYS[4], field) end
  return owners[field]
end
local function collect(seq, prefix)
  for _, grain in ipairs(redis.call('SMEMBERS', prefix .. 'grains')) do
    local campaign, publisher = string.match(grain, '^cp:(%d+):(%d+)$')
    if campaign then
      local fields = redis.call('HGETALL', prefix .. 'g:' .. grain)
      if #fields > 0 then table.insert(out, {seq, grain, fields, ownerOf('c:' .. campaign), ownerOf('p:' .. publisher)}) end
    end
  end
end
for _, interval in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  collect(math.max(tonumber(interval), through + 1), ARGV[1] .. interval .. ':')
end
for _, seq in ipairs(pending) do collect(tonumber(seq), ARGV[2] .. seq .. ':') end
for _, seq in ipairs(applied) do collect(tonumber(seq), ARGV[2] .. seq .. ':') end
return out
