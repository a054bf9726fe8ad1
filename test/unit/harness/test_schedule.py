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
