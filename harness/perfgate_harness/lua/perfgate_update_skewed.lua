#!/usr/bin/env sysbench
-- oltp_update_non_index's statement, UPDATE sbtestN SET c = ? WHERE id = ?, with ids that are
-- not uniform. --ids=one always updates id 1 of the table drawn (update-one: one row per table
-- takes every update of that table). --ids=zipf draws ids from a Zipf distribution over
-- 1..table_size, P(id) proportional to id^-s with s = --zipf-exponent, id 1 the most frequent
-- (update-zipf). update-one and update-zipf differ only in the options.

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")
local zipf = require("perfgate_zipf")

sysbench.cmdline.options.ids = {"Ids updated: one (always id 1) or zipf", "zipf"}
-- 0.8 is the default of the zipfian --rand-type of sysbench releases after 1.0.20
sysbench.cmdline.options.zipf_exponent = {"Exponent s of the Zipf distribution of ids, P(id) ~ id^-s", 0.8}

function prepare_statements()
   perfgate.require_choice("ids", sysbench.opt.ids, {"one", "zipf"})
   prepare_for_each_table("non_index_updates")
   if sysbench.opt.ids == "zipf" then
      local s = tonumber(sysbench.opt.zipf_exponent)
      assert(s ~= nil and s > 0, "--zipf-exponent=" .. tostring(sysbench.opt.zipf_exponent) .. ": expected a number > 0")
      next_id = zipf.sampler(sysbench.opt.table_size, s, sysbench.rand.uniform_double)
   else
      next_id = function() return 1 end
   end
end

function event()
   local t = perfgate.random_table()
   param[t].non_index_updates[1]:set(get_c_value())
   param[t].non_index_updates[2]:set(next_id())
   stmt[t].non_index_updates:execute()
end
