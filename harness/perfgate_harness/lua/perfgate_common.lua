-- Shared by perfgate's scripts: the sbtestN tables of sysbench's oltp_common (id, k, c, pad;
-- secondary index k_N), so one `prepare` serves every microbenchmark, plus helpers for
-- statements with many parameters.

require("oltp_common")

perfgate = {}

-- Integer parameters for an IN (...) list of `n` values.
function perfgate.placeholders(n)
   return string.rep("?, ", n - 1) .. "?"
end

-- Prepares `sql` (with %d for the table number, used again for FORCE INDEX) on every table,
-- binding `nparams` integer parameters; statements go where oltp_common's close_statements()
-- and reconnect hook expect them.
function perfgate.prepare_on_each_table(key, sql_for_table, nparams)
   for t = 1, sysbench.opt.tables do
      stmt[t][key] = con:prepare(sql_for_table(t))
      if nparams > 0 then
         param[t][key] = {}
         for p = 1, nparams do
            param[t][key][p] = stmt[t][key]:bind_create(sysbench.sql.type.INT)
         end
         stmt[t][key]:bind_param(unpack(param[t][key]))
      end
   end
end

function perfgate.random_table()
   return sysbench.rand.uniform(1, sysbench.opt.tables)
end

function perfgate.random_id()
   return sysbench.rand.default(1, sysbench.opt.table_size)
end

-- Runs the statement `key` of a random table over --range-size consecutive ids from a random
-- one (the BETWEEN ? AND ? of the range reads and the join).
function perfgate.execute_random_range(key)
   local t = perfgate.random_table()
   local first = perfgate.random_id()
   param[t][key][1]:set(first)
   param[t][key][2]:set(first + sysbench.opt.range_size - 1)
   stmt[t][key]:execute()
end

-- Runs the statement `key` of table t with each of its `n` IN-list parameters set to a random
-- id: the in-list selects and the in-list update draw their values the same way.
function perfgate.execute_with_random_ids(t, key, n)
   for i = 1, n do
      param[t][key][i]:set(perfgate.random_id())
   end
   stmt[t][key]:execute()
end

-- --force-index of the scripts that call perfgate.index_hint.
perfgate.force_index_option = {"FORCE INDEX on the predicate's index; off: no hint, the optimizer " ..
                               "chooses the plan", true}

-- The index hint after the table name: " FORCE INDEX (PRIMARY)" for id, " FORCE INDEX (k_N)"
-- for k. Small test tables tempt the optimizer into full scans for long IN lists; forcing the
-- index keeps the code path the microbenchmark is named after. With --force-index=off, "": the
-- rows that gate the optimizer's own choice (docs/suites.md#statements-the-optimizer-plans).
function perfgate.index_hint(column, t)
   if sysbench.opt.force_index == false then
      return ""
   end
   if column == "k" then
      return string.format(" FORCE INDEX (k_%d)", t)
   end
   return " FORCE INDEX (PRIMARY)"
end

function perfgate.require_choice(name, value, choices)
   for _, c in ipairs(choices) do
      if value == c then
         return
      end
   end
   error(string.format("--%s=%s: expected one of %s", name, tostring(value), table.concat(choices, ", ")))
end
