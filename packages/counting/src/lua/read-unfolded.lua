-- What MongoDB may not hold yet, for some grains (none named: every `cp:` grain, with its owners).
-- KEYS: [1] open intervals, [2] pending folds, [3] applied folds, [4] owners, [5] the last fold's number.
-- ARGV: [1] interval base prefix, [2] fold base prefix, [3] number of owner fields, [4 .. 3 + ARGV[3]]
--       the owner fields, then the grains up to the end of ARGV.
-- Returns {owner values}, then {number, grain, {field, value, ...}[, campaign owner, platform owner]} per
-- grain of an open interval (numbered as its fold will be at least) and of a pending or kept fold.

local ownerCount = tonumber(ARGV[3])
local owners = {}
if ownerCount > 0 then owners = redis.call('HMGET', KEYS[4], unpack(ARGV, 4, 3 + ownerCount)) end
local named = #ARGV > 3 + ownerCount
local through = tonumber(redis.call('GET', KEYS[5]) or '0')
local out = {owners}
local function collect(seq, prefix)
  local grains = named and {unpack(ARGV, 4 + ownerCount)} or redis.call('SMEMBERS', prefix .. 'grains')
  for _, grain in ipairs(grains) do
    local campaign, publisher = string.match(grain, '^cp:(%d+):(%d+)$')
    if named or campaign then
      local fields = redis.call('HGETALL', prefix .. 'g:' .. grain)
      if #fields > 0 then
        local part = {seq, grain, fields}
        if not named then
          part[4] = redis.call('HGET', KEYS[4], 'c:' .. campaign)
          part[5] = redis.call('HGET', KEYS[4], 'p:' .. publisher)
        end
        table.insert(out, part)
      end
    end
  end
end
for _, interval in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  collect(math.max(tonumber(interval), through + 1), ARGV[1] .. interval .. ':')
end
for _, key in ipairs({KEYS[2], KEYS[3]}) do
  for _, seq in ipairs(redis.call('ZRANGE', key, 0, -1)) do collect(tonumber(seq), ARGV[2] .. seq .. ':') end
end
return out
