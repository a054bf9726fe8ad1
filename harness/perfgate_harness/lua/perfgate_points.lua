#!/usr/bin/env sysbench
-- Point lookups as one IN-list select: SELECT <columns> FROM sbtestN [FORCE INDEX (...)] WHERE
-- <id|k> IN (...). random-points, hot-points, points-covered-pk/si, points-notcovered-pk/si and
-- their planned kin differ only in the options.

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

sysbench.cmdline.options.points = {"Number of values in the IN () list", 100}
sysbench.cmdline.options.points_on = {"Column the IN () list matches: id (PRIMARY) or k (k_N)", "k"}
sysbench.cmdline.options.points_columns = {"Select list", "id, k, c, pad"}
sysbench.cmdline.options.points_hot = {"Send the same values every time: the --points values after the " ..
                                       "middle of the table (table_size / 2 + 1, + 2, ...)", false}
sysbench.cmdline.options.force_index = perfgate.force_index_option

function prepare_statements()
   perfgate.require_choice("points-on", sysbench.opt.points_on, {"id", "k"})
   assert(sysbench.opt.points >= 1, "--points must be at least 1")
   perfgate.prepare_on_each_table("points", function(t)
      return string.format("SELECT %s FROM sbtest%d%s WHERE %s IN (%s)",
                           sysbench.opt.points_columns, t, perfgate.index_hint(sysbench.opt.points_on, t),
                           sysbench.opt.points_on, perfgate.placeholders(sysbench.opt.points))
   end, sysbench.opt.points)
   if sysbench.opt.points_hot then
      local first = math.floor(sysbench.opt.table_size / 2) + 1
      local room = sysbench.opt.table_size - first + 1
      assert(sysbench.opt.points <= room,
             string.format("--points=%d with --points-hot: expected at most %d, the ids from the middle " ..
                           "of the table (%d) to its end", sysbench.opt.points, room, first))
      -- bound once: the parameters keep their values from one execution to the next
      for t = 1, sysbench.opt.tables do
         for i = 1, sysbench.opt.points do
            param[t].points[i]:set(first + i - 1)
         end
      end
   end
end

function event()
   local t = perfgate.random_table()
   if sysbench.opt.points_hot then
      stmt[t].points:execute()
   else
      -- k values are drawn from the same 1..table_size range as ids at prepare time
      perfgate.execute_with_random_ids(t, "points", sysbench.opt.points)
   end
end
