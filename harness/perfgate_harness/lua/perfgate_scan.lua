#!/usr/bin/env sysbench
-- A full table scan that returns nothing: every row is read and tested, none is sent.

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

function prepare_statements()
   perfgate.prepare_on_each_table("scan", function(t)
      return string.format("SELECT count(*) FROM sbtest%d WHERE length(c) < 0", t)
   end, 0)
end

function event()
   stmt[perfgate.random_table()].scan:execute()
end
