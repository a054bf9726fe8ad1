#!/usr/bin/env sysbench
-- One update of many rows by primary key: UPDATE sbtestN SET k = k + 1 WHERE id IN (...).

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

sysbench.cmdline.options.points = {"Number of ids in the IN () list", 100}

function prepare_statements()
   assert(sysbench.opt.points >= 1, "--points must be at least 1")
   perfgate.prepare_on_each_table("update_inlist", function(t)
      return string.format("UPDATE sbtest%d SET k = k + 1 WHERE id IN (%s)", t,
                           perfgate.placeholders(sysbench.opt.points))
   end, sysbench.opt.points)
end

function event()
   local t = perfgate.random_table()
   perfgate.execute_with_random_ids(t, "update_inlist", sysbench.opt.points)
end
