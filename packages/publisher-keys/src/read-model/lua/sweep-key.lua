-- Deletes a key entry that is not its publisher's current live, previous live or test key.
-- KEYS: [1] key entry.
-- ARGV: [1] publisher entry prefix, [2] the key's hash.
-- Returns 1 when deleted, 0 when kept.

local id = redis.call('HGET', KEYS[1], 'publisherId')
if id then
  local current = redis.call('HMGET', ARGV[1] .. id, 'keyHash', 'testKeyHash', 'previousKeyHash')
  if current[1] == ARGV[2] or current[2] == ARGV[2] or current[3] == ARGV[2] then return 0 end
end
redis.call('DEL', KEYS[1])
return 1
