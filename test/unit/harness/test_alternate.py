"""The alternating rounds' slice loop, with stand-ins for the clock, the counters and the
signals: who runs when, what is counted, and that nothing is left frozen."""
import pytest

from perfgate_harness import alternate


class Machine:
    """Two sides whose servers answer `rate[name]` queries a second while thawed; a side's
    client ends after it ran `budget` seconds."""

    def __init__(self, rate, budget=1.0, own=1):
        self.now = 0.0
        self.rate = rate
        self.budget = budget
        self.own = own
        self.running = {name: True for name in rate}  # all run at once until frozen
        self.ran = {name: 0.0 for name in rate}
        self.counter = {name: 0 for name in rate}
        self.log = []

    def sleep(self, seconds):
        for name, running in self.running.items():
            if running and self.ran[name] < self.budget:
                self.ran[name] += seconds
                self.counter[name] += round(self.rate[name] * seconds)
        self.now += seconds

    def count(self, name):
        def read():
            assert self.running[name], f"{name} read while frozen"
            self.counter[name] += self.own
            return self.counter[name]
        return read

    def freeze(self, side):
        self.running[side.name] = False
        side.frozen = True
        self.log.append(("freeze", side.name))

    def thaw(self, side):
        self.running[side.name] = True
        side.frozen = False
        self.log.append(("thaw", side.name))

    def finished(self, name):
        return self.ran[name] >= self.budget

    def sides(self):
        made = {}
        for name in self.rate:
            side = alternate.Side(server_pid=0, count=self.count(name), client_pid=1)
            side.name = name
            made[name] = side
        return made


def run(machine, **kw):
    sides = machine.sides()
    for side in sides.values():
        side.own = alternate.own_statements(side.count)
    tallies = alternate.run_slices(sides, ready=lambda: True, finished=machine.finished, clock=lambda: machine.now,
                                   sleep=machine.sleep, freeze=machine.freeze, thaw=machine.thaw, settle_seconds=0.0, **kw)
    return tallies, sides


def test_the_sides_take_turns_and_each_is_counted_at_its_own_rate():
    machine = Machine({"base": 1000.0, "head": 800.0}, budget=0.5)
    tallies, sides = run(machine, slice_seconds=0.05)
    assert tallies["base"].qps == pytest.approx(1000.0)
    assert tallies["head"].qps == pytest.approx(800.0)   # the counter's own readings are taken off
    thawed = [name for what, name in machine.log if what == "thaw"]
    assert thawed[:4] == ["base", "head", "base", "head"]
    assert not any(side.frozen for side in sides.values())


def test_a_slice_in_which_a_client_ended_is_not_counted():
    machine = Machine({"base": 1000.0, "head": 1000.0}, budget=0.12)   # ends in its third slice
    tallies, _ = run(machine, slice_seconds=0.05)
    assert tallies["base"].slices == 2 and tallies["head"].slices == 2
    assert tallies["base"].seconds == pytest.approx(0.10)


def test_every_side_is_thawed_when_the_loop_is_left_by_an_error():
    machine = Machine({"base": 1000.0, "head": 1000.0}, budget=1.0)
    sides = machine.sides()
    calls = {"n": 0}

    def failing_count():
        calls["n"] += 1
        if calls["n"] > 3:
            raise ConnectionError("server gone")
        return 0
    sides["head"].count = failing_count
    with pytest.raises(ConnectionError):
        alternate.run_slices(sides, ready=lambda: True, finished=machine.finished, clock=lambda: machine.now,
                             sleep=machine.sleep, freeze=machine.freeze, thaw=machine.thaw, settle_seconds=0.0)
    assert all(machine.running.values()) and not any(side.frozen for side in sides.values())


def test_nothing_is_frozen_or_counted_when_a_client_never_starts():
    machine = Machine({"base": 1000.0, "head": 1000.0})
    sides = machine.sides()
    tallies = alternate.run_slices(sides, ready=lambda: False, finished=lambda name: True, sleep=machine.sleep,
                                   freeze=machine.freeze, thaw=machine.thaw, settle_seconds=0.0)
    assert machine.log == [] and all(t.qps is None for t in tallies.values())


def test_a_counter_that_moves_unevenly_on_an_idle_server_is_refused():
    values = iter([10, 11, 13])
    with pytest.raises(alternate.CounterError, match=r"moved by \[1, 2\]"):
        alternate.own_statements(lambda: next(values))


def state(pid, wanted):
    """The process's state once it is `wanted` (signals land asynchronously), or as it is
    after two seconds."""
    import time
    deadline = time.monotonic() + 2
    while True:
        now = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        if now == wanted or time.monotonic() > deadline:
            return now
        time.sleep(0.01)


def test_freeze_and_thaw_stop_and_continue_the_real_processes():
    import subprocess
    server = subprocess.Popen(["sleep", "30"])
    client = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        side = alternate.Side(server_pid=server.pid, count=lambda: 0, client_pid=client.pid)
        alternate.freeze(side)
        assert (state(server.pid, "T"), state(client.pid, "T"), side.frozen) == ("T", "T", True)
        alternate.thaw(side)
        assert (state(server.pid, "S"), state(client.pid, "S"), side.frozen) == ("S", "S", False)
        client.kill()
        client.wait()
        alternate.freeze(side)   # a client that has exited is no error
        assert state(server.pid, "T") == "T"
        alternate.thaw(side)
    finally:
        for proc in (server, client):
            proc.kill()
            proc.wait()


class _Cursor:
    def __init__(self, rows):
        self.rows = rows

    def execute(self, statement):
        assert statement == "SHOW GLOBAL STATUS LIKE 'Questions'"

    def fetchone(self):
        return self.rows.pop(0) if self.rows else None


class _Connection:
    def __init__(self, rows):
        self.rows = rows

    def cursor(self):
        return _Cursor(self.rows)


def test_the_query_counter_reads_questions_and_a_server_without_it_is_a_counter_error():
    from perfgate_harness.rounds import _questions
    assert _questions(_Connection([("Questions", "41")]))() == 41
    # A server whose status has no such row (a fork that dropped it, a proxy): a named error
    # the round reports, not a crash of the harness.
    with pytest.raises(alternate.CounterError, match="no 'Questions' row; --sides alternating needs it .*--sides in-turn"):
        _questions(_Connection([]))()
