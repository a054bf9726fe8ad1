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
