#!/usr/bin/env sysbench
-- One range select: SELECT <columns> FROM sbtestN [FORCE INDEX (...)] WHERE <id|k> BETWEEN ? AND
-- ? + range_size - 1 [ORDER BY <id|k> LIMIT n]. range-covered-pk/si, range-notcovered-pk/si and
-- their planned kin differ only in the options.

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

sysbench.cmdline.options.range_on = {"Column the range is on: id (PRIMARY) or k (k_N)", "id"}
sysbench.cmdline.options.range_columns = {"Select list (an aggregate, so one row is returned, unless --range-limit)", "count(id)"}
sysbench.cmdline.options.range_limit = {"ORDER BY the range's column LIMIT this many rows; 0: no ORDER BY", 0}
sysbench.cmdline.options.force_index = perfgate.force_index_option

function prepare_statements()
   perfgate.require_choice("range-on", sysbench.opt.range_on, {"id", "k"})
   assert(sysbench.opt.range_limit >= 0, "--range-limit must be 0 or more")
   local order = ""
   if sysbench.opt.range_limit > 0 then
      order = string.format(" ORDER BY %s LIMIT %d", sysbench.opt.range_on, sysbench.opt.range_limit)
   end
   perfgate.prepare_on_each_table("range", function(t)
      return string.format("SELECT %s FROM sbtest%d%s WHERE %s BETWEEN ? AND ?%s",
                           sysbench.opt.range_columns, t, perfgate.index_hint(sysbench.opt.range_on, t),
                           sysbench.opt.range_on, order)
   end, 2)
end

function event()
   perfgate.execute_random_range("range")
end
