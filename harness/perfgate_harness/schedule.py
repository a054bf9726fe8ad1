"""The order of measured rounds: interleaved A B B A so that drift hits both sides alike, or
every side's round of one index at the same time."""

SIDES = ("base", "head")


def round_order(rounds: int, first_round: int = 0, sides: tuple = SIDES) -> list[tuple[int, str]]:
    """(round index, side) pairs; the A B / B A alternation follows the round index, so an
    extension run (first_round > 0) continues the pattern of the run it extends.

    A chain (base, head, head2, ...) alternates the same way, A B C / C B A: over each two
    rounds every side sits at the same mean position, so a linear drift of the machine moves
    every side alike and every head's ratio to the base is paired within one round index."""
    order = []
    for index in range(first_round, first_round + rounds):
        group = sides if index % 2 == 0 else sides[::-1]
        order.extend((index, side) for side in group)
    return order


# How the rounds of one index share the machine (plan measure.side_schedule): one after the
# other; every side's sysbench at once; every side up at once, taking turns in slices of 50 ms.
SIDE_SCHEDULES = ("in-turn", "together", "alternating")


def round_groups(rounds: int, first_round: int = 0, sides: tuple = SIDES, side_schedule: str = "in-turn") -> list[list[tuple[int, str]]]:
    """The rounds as groups measured in one go: one round per group, interleaved as round_order
    says; or (together, alternating) every side's round of one index in one group, so that the
    machine's changes of speed (a VM's CPU shares them out from one moment to the next) hit the
    sides of a pair alike instead of adding to its spread."""
    if side_schedule not in SIDE_SCHEDULES:
        raise ValueError(f"side schedule {side_schedule!r}; expected one of {', '.join(SIDE_SCHEDULES)}")
    if side_schedule != "in-turn":
        return [[(index, side) for side in sides] for index in range(first_round, first_round + rounds)]
    return [[pair] for pair in round_order(rounds, first_round, sides)]


def warmups_together(side_schedule: str) -> bool:
    """Whether every side's warm-up runs at once. A warm-up is discarded: it only brings each
    server back to the benchmark's state (pages, plans, purge) before its timed rounds. Only
    rounds in turn need the machine to themselves; with the sides alternating or together the
    warm-ups run at once, which halves their wall time (a quick run's: 21 s to 11 s)."""
    return side_schedule != "in-turn"


def group_wall_seconds(side_schedule: str, seconds: float, sides_in_group: int) -> float:
    """Wall time of one group of rounds: alternating sides each run `seconds` in turns."""
    return seconds * sides_in_group if side_schedule == "alternating" else seconds


def eta_seconds(rounds_left: int, seconds: float, warmups_left: int, warmup_seconds: float,
                overhead_seconds: float = 1.0) -> int:
    """Time still to measure: remaining timed runs plus a small per-run start-up cost."""
    runs = rounds_left + warmups_left
    return round(rounds_left * seconds + warmups_left * warmup_seconds + runs * overhead_seconds)


def rounds_eta(plan, groups_left_here: int, later: list) -> int:
    """Time still to measure of the timed rounds: `groups_left_here` groups of the benchmark
    being measured, then every benchmark of `later` whole (its warm-ups and planned rounds).
    Time passes per group of rounds (one round, or every side's round of one index)."""
    sides = len(plan.sides)
    grouped = plan.side_schedule != "in-turn"
    groups_per_benchmark = plan.rounds * (1 if grouped else sides)
    group_seconds = group_wall_seconds(plan.side_schedule, plan.seconds, sides)
    warmups = (1 if warmups_together(plan.side_schedule) else sides) if plan.warmup_seconds > 0 else 0
    return eta_seconds(groups_left_here + groups_per_benchmark * len(later), group_seconds,
                       warmups * len(later), plan.warmup_seconds)


# Wall time of one instruction window (or warm-up) as measured on a 2-core runner: 50-100M
# connection instructions under callgrind (thresholds/benchmarks.yml), three vgdb calls and the
# purge drain, both sides at once (docs/measurements.md, "`make demo`": the instruction windows).
INSTRUCTION_WINDOW_SECONDS = 2.5


def instruction_eta(benchmarks_left: int, windows: int) -> int:
    """Time still to count: a warm-up and `windows` windows per benchmark, both sides at once."""
    return round(benchmarks_left * (windows + 1) * INSTRUCTION_WINDOW_SECONDS)
