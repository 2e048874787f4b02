-- Counts a fact every time (filtered visits, a website placement's impressions).
-- KEYS: [1] open intervals, [2] owners.
-- ARGV: countFact's from 1.
-- Returns 1.

-- uses: count-fact.lua

countFact(1, 1)
return 1
