-- Remembers a fact of a test allocation (sandbox) without counting it, so that a test confirmation
-- answers `first_confirmation` as a live one would.
-- KEYS: [1] the hour's set of test facts.
-- ARGV: [1] allocation id, [2] set ttl ms.
-- Returns 1 the first time, 0 after.

local added = redis.call('SADD', KEYS[1], ARGV[1])
if added == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return added
