-- Writes a publisher's entry with its keys' entries, and removes those of its revoked keys, unless the
-- same database incarnation already wrote a newer version (equal versions rewrite).
-- KEYS: [1] publisher entry, [2] the current key's entry (the publisher entry when none), [3] the current
--       test key's entry (likewise), [4] the previous live key's entry (likewise), [5 ..] entries of revoked keys.
-- ARGV: [1] incarnation, [2] version, [3] status, [4] ownerAccountId, [5] type, [6] publisherId,
--       [7] keyHash or '', [8] testKeyHash or '', [9] previousKeyHash or '', [10] previousKeyExpiresAt
--       (milliseconds since the epoch) or ''.
-- Returns 1 when written, 0 when a newer version was there and nothing changed.

local stored = redis.call('HMGET', KEYS[1], 'incarnation', 'version')
if stored[1] == ARGV[1] and (tonumber(stored[2]) or 0) > tonumber(ARGV[2]) then return 0 end
for i = 5, #KEYS do
  if redis.call('HGET', KEYS[i], 'publisherId') == ARGV[6] then redis.call('DEL', KEYS[i]) end
end
redis.call('HSET', KEYS[1], 'incarnation', ARGV[1], 'version', ARGV[2], 'status', ARGV[3], 'ownerAccountId', ARGV[4], 'type', ARGV[5],
  'keyHash', ARGV[7], 'testKeyHash', ARGV[8], 'previousKeyHash', ARGV[9], 'previousKeyExpiresAt', ARGV[10])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[2], 'publisherId', ARGV[6]) end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[3], 'publisherId', ARGV[6]) end
if ARGV[9] ~= '' then redis.call('HSET', KEYS[4], 'publisherId', ARGV[6]) end
return 1
