-- The publisher a key belongs to, if it is that publisher's current key of its kind, or (a live key) its
-- previous key, which keeps working until its expiry (a rolling deploy; the reader compares the expiry
-- with its clock).
-- KEYS: [1] the key's entry.
-- ARGV: [1] publisher entry prefix, [2] the key's hash, [3] the publisher entry's field that must hold it
--       (keyHash for a live key, testKeyHash for a test key).
-- Returns {publisherId, status, ownerAccountId, type, previousKeyExpiresAt or ''}, or nil (unknown key,
-- or neither current nor previous).

local id = redis.call('HGET', KEYS[1], 'publisherId')
if not id then return false end
local entry = redis.call('HMGET', ARGV[1] .. id, ARGV[3], 'status', 'ownerAccountId', 'type', 'previousKeyHash', 'previousKeyExpiresAt')
if entry[1] == ARGV[2] then return {id, entry[2], entry[3], entry[4], ''} end
if ARGV[3] == 'keyHash' and entry[5] == ARGV[2] and entry[6] and entry[6] ~= '' then
  return {id, entry[2], entry[3], entry[4], entry[6]}
end
return false
