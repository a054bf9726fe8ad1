#!/usr/bin/env sysbench
-- Point lookups as one IN-list select: SELECT <columns> FROM sbtestN WHERE <id|k> IN (...).
-- random-points, points-covered-pk/si and points-notcovered-pk/si differ only in the options.

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

sysbench.cmdline.options.points = {"Number of values in the IN () list", 100}
sysbench.cmdline.options.points_on = {"Column the IN () list matches: id (PRIMARY) or k (k_N)", "k"}
sysbench.cmdline.options.points_columns = {"Select list", "id, k, c, pad"}

function prepare_statements()
   perfgate.require_choice("points-on", sysbench.opt.points_on, {"id", "k"})
   assert(sysbench.opt.points >= 1, "--points must be at least 1")
   perfgate.prepare_on_each_table("points", function(t)
      return string.format("SELECT %s FROM sbtest%d %s WHERE %s IN (%s)",
                           sysbench.opt.points_columns, t, perfgate.index_hint(sysbench.opt.points_on, t),
                           sysbench.opt.points_on, perfgate.placeholders(sysbench.opt.points))
   end, sysbench.opt.points)
end

function event()
   local t = perfgate.random_table()
   -- k values are drawn from the same 1..table_size range as ids at prepare time
   perfgate.execute_with_random_ids(t, "points", sysbench.opt.points)
end
