-- Takes or renews the folder's lease.
-- KEYS: [1] the lease.
-- ARGV: [1] holder, [2] ms the lease lasts.
-- Returns 1 when ARGV[1] holds the lease now, 0 when another does.

if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
