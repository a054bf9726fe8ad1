import pytest

from perfgate_harness import schedule


def test_rounds_interleave_abba():
    assert schedule.round_order(4) == [
        (0, "base"), (0, "head"), (1, "head"), (1, "base"), (2, "base"), (2, "head"), (3, "head"), (3, "base")]


def test_extension_rounds_continue_index_and_pattern():
    assert schedule.round_order(2, first_round=3) == [(3, "head"), (3, "base"), (4, "base"), (4, "head")]


def test_each_side_gets_each_position_equally_often():
    order = schedule.round_order(6)
    firsts = [order[i][1] for i in range(0, len(order), 2)]
    assert firsts.count("base") == firsts.count("head") == 3


def test_eta():
    assert schedule.eta_seconds(rounds_left=4, seconds=7, warmups_left=2, warmup_seconds=3) == 4 * 7 + 2 * 3 + 6
    assert schedule.eta_seconds(0, 7, 0, 3) == 0


def test_a_chain_alternates_abc_cba():
    sides = ("base", "head", "head2")
    assert schedule.round_order(2, sides=sides) == [
        (0, "base"), (0, "head"), (0, "head2"), (1, "head2"), (1, "head"), (1, "base")]


def test_in_a_chain_every_side_sits_at_the_same_mean_position_over_two_rounds():
    sides = ("base", "head", "head2", "head3")
    order = schedule.round_order(4, sides=sides)
    position = {side: sum(i for i, (_, s) in enumerate(order) if s == side) / 4 for side in sides}
    assert len(set(position.values())) == 1
    # Every head's rounds share their index with one base round: paired within the same round.
    assert all(sum(1 for index, s in order if s == side and index == k) == 1 for side in sides for k in range(4))


def test_rounds_in_turn_are_groups_of_one_in_abba_order():
    assert schedule.round_groups(2) == [[(0, "base")], [(0, "head")], [(1, "head")], [(1, "base")]]


def test_sides_together_measure_every_side_of_one_index_at_once():
    for way in ("together", "alternating"):
        assert schedule.round_groups(3, first_round=2, side_schedule=way) == [
            [(2, "base"), (2, "head")], [(3, "base"), (3, "head")], [(4, "base"), (4, "head")]]
        chain = ("base", "head", "head2")
        assert schedule.round_groups(1, sides=chain, side_schedule=way) == [[(0, "base"), (0, "head"), (0, "head2")]]
    with pytest.raises(ValueError, match="side schedule 'both'; expected one of in-turn, together, alternating"):
        schedule.round_groups(1, side_schedule="both")


def test_an_alternating_group_takes_every_side_s_round_of_wall_time():
    assert schedule.group_wall_seconds("alternating", 2, 2) == 4
    assert schedule.group_wall_seconds("together", 2, 2) == 2
    assert schedule.group_wall_seconds("in-turn", 2, 1) == 2


def test_warmups_run_at_once_unless_the_rounds_run_in_turn():
    # Rounds in turn have the machine to themselves, and so do their warm-ups; with the sides
    # together or alternating a warm-up (discarded) shares it.
    assert [schedule.warmups_together(s) for s in schedule.SIDE_SCHEDULES] == [False, True, True]
