"""The order of measured rounds: interleaved A B B A so that drift hits both sides alike."""

SIDES = ("base", "head")


def round_order(rounds: int, first_round: int = 0) -> list[tuple[int, str]]:
    """(round index, side) pairs; the A B / B A alternation follows the round index, so an
    extension run (first_round > 0) continues the pattern of the run it extends."""
    order = []
    for index in range(first_round, first_round + rounds):
        pair = SIDES if index % 2 == 0 else SIDES[::-1]
        order.extend((index, side) for side in pair)
    return order


def eta_seconds(rounds_left: int, seconds: float, warmups_left: int, warmup_seconds: float,
                overhead_seconds: float = 1.0) -> int:
    """Time still to measure: remaining timed runs plus a small per-run start-up cost."""
    runs = rounds_left + warmups_left
    return round(rounds_left * seconds + warmups_left * warmup_seconds + runs * overhead_seconds)
