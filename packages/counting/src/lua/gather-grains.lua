-- Adds the grains of one fold to a set, for the folder to walk in chunks; one fold a call, so that no
-- call holds Redis long.
-- KEYS: [1] the set of gathered grains.
-- ARGV: [1] fold base prefix, [2] the fold's sequence number, [3] ms the set lives.
-- Returns the number of grains gathered so far.

local count = redis.call('SUNIONSTORE', KEYS[1], KEYS[1], ARGV[1] .. ARGV[2] .. ':grains')
if count > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return count
