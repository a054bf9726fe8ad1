#!/usr/bin/env sysbench
-- One range select: SELECT <columns> FROM sbtestN WHERE <id|k> BETWEEN ? AND ? + range_size - 1.
-- range-covered-pk/si and range-notcovered-pk/si differ only in the options.

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

sysbench.cmdline.options.range_on = {"Column the range is on: id (PRIMARY) or k (k_N)", "id"}
sysbench.cmdline.options.range_columns = {"Select list (an aggregate, so one row is returned)", "count(id)"}

function prepare_statements()
   perfgate.require_choice("range-on", sysbench.opt.range_on, {"id", "k"})
   perfgate.prepare_on_each_table("range", function(t)
      return string.format("SELECT %s FROM sbtest%d %s WHERE %s BETWEEN ? AND ?",
                           sysbench.opt.range_columns, t, perfgate.index_hint(sysbench.opt.range_on, t),
                           sysbench.opt.range_on)
   end, 2)
end

function event()
   local t = perfgate.random_table()
   local first = perfgate.random_id()
   param[t].range[1]:set(first)
   param[t].range[2]:set(first + sysbench.opt.range_size - 1)
   stmt[t].range:execute()
end
