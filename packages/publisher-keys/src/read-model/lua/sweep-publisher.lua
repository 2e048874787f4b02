-- Deletes a publisher entry written by another database incarnation.
-- KEYS: [1] publisher entry.
-- ARGV: [1] the incarnation to keep.
-- Returns 1 when deleted, 0 when kept.

if redis.call('HGET', KEYS[1], 'incarnation') == ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
