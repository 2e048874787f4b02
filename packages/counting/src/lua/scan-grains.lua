-- A step of SSCAN through the gathered grains, renewing the set's life.
-- KEYS: [1] the set of gathered grains.
-- ARGV: [1] cursor, [2] about how many members, [3] ms the set lives.
-- Returns SSCAN's {next cursor, members}, or nil when the set is gone.

if redis.call('PEXPIRE', KEYS[1], ARGV[3]) == 0 then return false end
return redis.call('SSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
