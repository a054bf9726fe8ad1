#!/usr/bin/env sysbench
-- The adaptive hash index write mix: each event is one autocommit statement, a primary-key
-- point select, or with probability update_percent an update of the same shape as
-- oltp_update_index (k, an indexed column) or oltp_update_non_index (c, not indexed).

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

sysbench.cmdline.options.update_percent = {"Share of events that update instead of select, in percent", 0}
sysbench.cmdline.options.update = {"Column updated: index (k) or nonindex (c)", "index"}

local c_template = "###########-###########-###########-###########-###########-" ..
   "###########-###########-###########-###########-###########"

function prepare_statements()
   perfgate.require_choice("update", sysbench.opt.update, {"index", "nonindex"})
   local share = tonumber(sysbench.opt.update_percent)
   assert(share ~= nil and share >= 0 and share <= 100, "--update-percent must be a number from 0 to 100")
   -- basis points, so fractional percentages such as 0.5 work
   update_share = math.floor(share * 100 + 0.5)
   perfgate.prepare_on_each_table("select", function(t)
      return string.format("SELECT c FROM sbtest%d WHERE id = ?", t)
   end, 1)
   for t = 1, sysbench.opt.tables do
      if sysbench.opt.update == "index" then
         stmt[t].update = con:prepare(string.format("UPDATE sbtest%d SET k = k + 1 WHERE id = ?", t))
         param[t].update = {stmt[t].update:bind_create(sysbench.sql.type.INT)}
      else
         stmt[t].update = con:prepare(string.format("UPDATE sbtest%d SET c = ? WHERE id = ?", t))
         param[t].update = {stmt[t].update:bind_create(sysbench.sql.type.CHAR, 120),
                            stmt[t].update:bind_create(sysbench.sql.type.INT)}
      end
      stmt[t].update:bind_param(unpack(param[t].update))
   end
end

function event()
   local t = perfgate.random_table()
   local id = perfgate.random_id()
   if update_share > 0 and sysbench.rand.uniform(1, 10000) <= update_share then
      if sysbench.opt.update == "index" then
         param[t].update[1]:set(id)
      else
         param[t].update[1]:set_rand_str(c_template)
         param[t].update[2]:set(id)
      end
      stmt[t].update:execute()
   else
      param[t].select[1]:set(id)
      stmt[t].select:execute()
   end
end
