#!/usr/bin/env sysbench
-- A join of two tables, with no index hint: the optimizer picks the join order and each table's
-- access. SELECT <columns> FROM sbtestN a JOIN sbtestM b ON b.<k|id> = a.<k|id>
-- WHERE a.id BETWEEN ? AND ? + range_size - 1, M the table after N (the first after the last).

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

sysbench.cmdline.options.join_on = {"Column the two tables are joined on: k (k_N) or id (PRIMARY)", "k"}
sysbench.cmdline.options.join_columns = {"Select list over a and b (an aggregate, so one row is returned)",
                                         "sum(length(b.c))"}

function prepare_statements()
   perfgate.require_choice("join-on", sysbench.opt.join_on, {"id", "k"})
   perfgate.prepare_on_each_table("join", function(t)
      return string.format("SELECT %s FROM sbtest%d a JOIN sbtest%d b ON b.%s = a.%s WHERE a.id BETWEEN ? AND ?",
                           sysbench.opt.join_columns, t, t % sysbench.opt.tables + 1,
                           sysbench.opt.join_on, sysbench.opt.join_on)
   end, 2)
end

function event()
   perfgate.execute_random_range("join")
end
