-- The publisher a key belongs to, if it is that publisher's current key of its kind.
-- KEYS: [1] the key's entry.
-- ARGV: [1] publisher entry prefix, [2] the key's hash, [3] the publisher entry's field that must hold it
--       (keyHash for a live key, testKeyHash for a test key).
-- Returns {publisherId, status, ownerAccountId, type}, or nil (unknown key, or no longer current).

local id = redis.call('HGET', KEYS[1], 'publisherId')
if not id then return false end
local entry = redis.call('HMGET', ARGV[1] .. id, ARGV[3], 'status', 'ownerAccountId', 'type')
if entry[1] ~= ARGV[2] then return false end
return {id, entry[2], entry[3], entry[4]}
