-- Zipf-distributed integers: k in 1..n with probability proportional to k^-s.
--
-- sysbench 1.0.20 has no zipfian --rand-type (later releases have one, exponent 0.8 by
-- default). This draws by rejection-inversion (W. Hörmann and G. Derflinger, "Rejection-
-- inversion to generate variates from monotone discrete distributions", ACM TOMACS 6(3),
-- 1996): exact, constant memory and constant expected time, where an inverse-CDF table would
-- hold n numbers per thread (80 MB per thread for a table of 10M rows).
--
-- The method: integer k owns the interval [k - 1/2, k + 1/2] of the continuous density
-- x^-s, whose area is at least k^-s because x^-s is convex. A point drawn from that density
-- by inverting its integral H is kept when it falls in the last k^-s of its interval's area,
-- so each k is returned with weight exactly k^-s. The interval of k = 1 is cut to area 1, so
-- k = 1 is never rejected. Nearly every draw is kept; the loop rarely turns twice.
--
-- Plain Lua 5.1 (sysbench runs LuaJIT 2.1): no sysbench calls, the uniform source is passed in.

local zipf = {}

-- log(1 + x) / x and (exp(x) - 1) / x. Near x = 0 (exponent s near 1) the direct forms lose
-- every digit, and Lua 5.1 has neither log1p nor expm1, so short series take over there.
local function log1p_over_x(x)
   if math.abs(x) < 1e-4 then
      return 1 - x * (1 / 2 - x * (1 / 3 - x / 4))
   end
   return math.log(1 + x) / x
end

local function expm1_over_x(x)
   if math.abs(x) < 1e-4 then
      return 1 + x * (1 / 2 + x * (1 / 6 + x / 24))
   end
   return (math.exp(x) - 1) / x
end

-- Returns a function that draws one value per call. `uniform` returns a number in [0, 1)
-- (sysbench.rand.uniform_double, so --rand-seed and per-thread streams apply).
function zipf.sampler(n, s, uniform)
   assert(type(n) == "number" and n >= 1 and n == math.floor(n),
          string.format("zipf: n = %s; expected a whole number >= 1", tostring(n)))
   assert(type(s) == "number" and s > 0,
          string.format("zipf: exponent %s; expected a number > 0", tostring(s)))
   local one_minus_s = 1 - s

   -- H(x) = integral of t^-s from 1 to x, and its inverse
   local function H(x)
      local log_x = math.log(x)
      return log_x * expm1_over_x(one_minus_s * log_x)
   end
   local function H_inverse(y)
      return math.exp(y * log1p_over_x(one_minus_s * y))
   end

   local low = H(1.5) - 1   -- the interval of k = 1 has area 1 = 1^-s
   local high = H(n + 0.5)
   local floor = math.floor

   return function()
      while true do
         local u = high + uniform() * (low - high)
         local k = floor(H_inverse(u) + 0.5)
         -- rounding at the ends of the range can step one past them
         if k < 1 then
            k = 1
         elseif k > n then
            k = n
         end
         if u >= H(k + 0.5) - k ^ -s then
            return k
         end
      end
   end
end

return zipf
