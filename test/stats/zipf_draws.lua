#!/usr/bin/env sysbench
-- Draws values with perfgate_zipf.lua inside sysbench's own LuaJIT, as the update-zipf
-- microbenchmark does, and prints "value count" for every value drawn (test_zipf.py reads it).
-- --source=uniform draws sysbench.rand.uniform instead: the control a skew test must reject.

sysbench.cmdline.options = {
   lua_dir = {"Folder holding perfgate_zipf.lua", ""},
   n = {"Values are drawn from 1..n", 1000},
   exponent = {"Zipf exponent s", 0.8},
   draws = {"Number of values drawn", 100000},
   source = {"zipf or uniform", "zipf"},
}

local function draw()
   package.path = sysbench.opt.lua_dir .. "/?.lua;" .. package.path
   local zipf = require("perfgate_zipf")
   local n = sysbench.opt.n
   local next_value
   if sysbench.opt.source == "zipf" then
      next_value = zipf.sampler(n, sysbench.opt.exponent, sysbench.rand.uniform_double)
   elseif sysbench.opt.source == "uniform" then
      next_value = function() return sysbench.rand.uniform(1, n) end
   else
      error("--source=" .. tostring(sysbench.opt.source) .. ": expected zipf or uniform")
   end
   local counts = {}
   for _ = 1, sysbench.opt.draws do
      local v = next_value()
      counts[v] = (counts[v] or 0) + 1
   end
   local out = {}
   for v, c in pairs(counts) do
      out[#out + 1] = string.format("%d %d", v, c)
   end
   io.write(table.concat(out, "\n"), "\n")
end

sysbench.cmdline.commands = {draw = {draw}}
