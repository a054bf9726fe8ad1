"""When the history list counts as drained where the server has no wait for it (MySQL)."""
from perfgate_harness import callgrind


def test_an_empty_history_is_drained_at_once():
    assert callgrind.drained([5, 0], 0.2)
    assert not callgrind.drained([], 0.2)


def test_a_history_that_stopped_moving_is_drained_once_it_held_still_long_enough():
    still = int(callgrind.SETTLED_SECONDS / 0.2) + 1  # polls that span SETTLED_SECONDS
    assert callgrind.drained([300, 120] + [41] * still, 0.2)  # MySQL 9.7 idles at 41
    assert not callgrind.drained([300, 120] + [41] * (still - 1), 0.2)
    assert not callgrind.drained([300, 250, 200, 150, 100, 50, 41, 41], 0.2), "still moving a moment ago"


class _Observer:
    """Counters that the workload and each history poll move; the drain polls 2, 7, 3, 9, 4 times."""

    def __init__(self):
        self.state = {"Handler_read_rnd_next": 0, "Handler_update": 0}
        self.polls = iter([2, 7, 3, 9, 4, 6, 5])

    def counters(self):
        return dict(self.state)

    def poll(self, n):
        self.state["Handler_read_rnd_next"] += 341 * n  # INNODB_METRICS scanned per poll

    def drain(self):
        n = next(self.polls)
        self.poll(n)
        return n

    def rows(self, sql):
        self.poll(1)

    def poll_cost(self, polls=10):
        from perfgate_harness.explain_counters import Observer
        return Observer.poll_cost(self, polls)


def test_the_drains_polls_are_taken_off_by_their_number_so_a_window_counts_only_its_events():
    from perfgate_harness.explain_counters import counter_windows
    obs = _Observer()

    def run_events(n):
        obs.state["Handler_update"] += n
        return {"queries": n}
    out = counter_windows(obs, run_events, 200, 2)
    for w in out["windows"]:
        assert w["deltas"] == {"Handler_read_rnd_next": 0, "Handler_update": 200}, w


def test_purge_is_drained_once_before_the_windows_and_once_after_each():
    from perfgate_harness.explain_counters import counter_windows
    obs = _Observer()
    obs.polls = iter([1] * 20)
    drains = []
    plain = obs.drain
    obs.drain = lambda: drains.append(1) or plain()
    counter_windows(obs, lambda n: {"queries": n}, 200, 3)
    assert len(drains) == 2 + 1 + 3  # two empty windows, one before the first, one after each
