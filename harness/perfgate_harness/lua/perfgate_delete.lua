#!/usr/bin/env sysbench
-- Deletes one row by primary key and inserts it back with new k, c and pad, as two autocommit
-- statements: DELETE FROM sbtestN WHERE id = ?; INSERT INTO sbtestN (id, k, c, pad) VALUES (...).
--
-- sysbench's oltp_delete only deletes, so its tables empty as rounds go by: later rounds time
-- deletes of rows that are already gone (a lookup that finds nothing), and the faster side empties
-- its tables sooner. Putting each row back keeps every round deleting rows that exist.
-- Each thread owns the ids congruent to its number modulo --threads: no other thread can delete or
-- insert the same id between the two statements, which would make the insert a duplicate key.

-- perfgate_common.lua sits beside this script, which sysbench's module path does not include
package.path = debug.getinfo(1, "S").source:match("^@(.*/)") .. "?.lua;" .. package.path
require("perfgate_common")

function prepare_statements()
   assert(sysbench.opt.table_size >= sysbench.opt.threads,
          string.format("--table-size=%d: expected at least --threads (%d), one id per thread",
                        sysbench.opt.table_size, sysbench.opt.threads))
   prepare_for_each_table("deletes")
   prepare_for_each_table("inserts")
   -- this thread's ids: first, first + threads, first + 2 * threads, ... up to table_size
   first_owned_id = sysbench.tid % sysbench.opt.threads + 1
   owned_ids = math.floor((sysbench.opt.table_size - first_owned_id) / sysbench.opt.threads) + 1
end

function event()
   local t = perfgate.random_table()
   local id = first_owned_id + sysbench.opt.threads * (sysbench.rand.default(1, owned_ids) - 1)
   param[t].deletes[1]:set(id)
   stmt[t].deletes:execute()
   param[t].inserts[1]:set(id)
   param[t].inserts[2]:set(perfgate.random_id())
   param[t].inserts[3]:set(get_c_value())
   param[t].inserts[4]:set(get_pad_value())
   stmt[t].inserts:execute()
end
