"""A run is a sequence of phases (instruction windows, then timed rounds) over services they
share: the servers (fleet.py), the datadirs (datadirs.py), the journal of errors and warnings
(records.py) and each benchmark's workload (workload.py). A phase fills in the benchmarks'
records and may return a block of its own for results.json."""
from dataclasses import dataclass, field
from pathlib import Path

from .datadirs import Datadirs
from .ddl_workload import DdlWorkload, EmployeesTable
from .fleet import Fleet
from .plan import Benchmark, Plan
from .records import Journal
from .sysbench_workload import SysbenchTables, SysbenchWorkload
from .tpcc_workload import TpccWarehouses, TpccWorkload
from .workload import Dataset, Workload


def dataset_for(plan: Plan, client_log: Path) -> Dataset:
    """The tables the plan's workloads run on: the employees table of DDL statements, go-tpc's
    warehouses of TPC-C (a plan holds one kind only), else sysbench's."""
    group = plan.benchmarks[0].group if plan.benchmarks else None
    if group == "ddl":
        return EmployeesTable(plan)
    if group == "tpcc":
        return TpccWarehouses(plan, client_log)
    return SysbenchTables(plan, client_log)


@dataclass
class Services:
    plan: Plan
    out: Path
    journal: Journal
    fleet: Fleet
    datadirs: Datadirs
    client_log: Path  # every client's output, appended
    _workloads: dict = field(default_factory=dict)

    def workload(self, bench: Benchmark) -> Workload:
        """How `bench`'s statements reach a server: a DDL statement's own workload, go-tpc for
        TPC-C, else a sysbench script; an entry of another kind gets its own here."""
        if bench.id not in self._workloads:
            if bench.group == "ddl":
                workload = DdlWorkload(bench, self.datadirs, self.plan.rows)
            elif bench.group == "tpcc":
                workload = TpccWorkload(bench, self.plan, self.datadirs, self.client_log)
            else:
                workload = SysbenchWorkload(bench, self.plan, self.client_log)
            self._workloads[bench.id] = workload
        return self._workloads[bench.id]


class Phase:
    """One phase of a run; a new kind of measurement is a subclass, appended to `Run.phases`."""
    name = ""  # the key of its block in results.json

    def __init__(self, services: Services):
        self.services = services
        self.plan = services.plan
        self.fleet = services.fleet
        self.journal = services.journal

    @property
    def wanted(self) -> bool:
        """Whether the plan asks for this phase."""
        raise NotImplementedError

    def run(self, records: dict) -> dict | None:
        """Measures every benchmark into `records` (id -> record); its results block, or None."""
        raise NotImplementedError
