"""A/A noise of a runner from one results.json in which both sides ran the same server:
per microbenchmark, the spread of round QPS and cpu/o and the range of paired ratios.

    python3 -m perfgate_harness.noise runs/noise/results.json
"""
import json
import statistics
import sys


def _spread(values: list[float]) -> dict:
    mean = statistics.fmean(values)
    return {"min": min(values), "max": max(values),
            "cv": statistics.stdev(values) / mean if len(values) > 1 and mean else 0.0}


def paired_ratios(rounds: list[dict], key: str) -> list[float]:
    """head / base of each round index present on both sides."""
    by_index = {}
    for r in rounds:
        by_index.setdefault(r["index"], {})[r["side"]] = r[key]
    return [pair["head"] / pair["base"] for _, pair in sorted(by_index.items())
            if pair.get("base") and pair.get("head") is not None]


def noise_rows(results: dict) -> list[dict]:
    """One row per measured benchmark; rounds of both sides pooled, since both ran one server."""
    rows = []
    for bench in results["benchmarks"]:
        if bench["status"] != "ok":
            continue
        rounds = bench["rounds"]
        cpu = [r["cpu_per_query_us"] for r in rounds if r["cpu_per_query_us"] is not None]
        qps_ratio = paired_ratios(rounds, "qps")
        cpu_ratio = paired_ratios(rounds, "cpu_per_query_us")
        rows.append({
            "name": bench["id"], "rounds": len(rounds),
            "qps": _spread([r["qps"] for r in rounds]),
            "cpu": _spread(cpu) if cpu else None,
            "qps_ratio": (min(qps_ratio), max(qps_ratio)) if qps_ratio else None,
            "cpu_ratio": (min(cpu_ratio), max(cpu_ratio)) if cpu_ratio else None,
        })
    return rows


def render_markdown(rows: list[dict]) -> str:
    out = ["| microbenchmark | rounds | QPS min–max | QPS CV | cpu/o µs min–max | cpu/o CV | paired QPS ratio | paired cpu/o ratio |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in rows:
        q, c = row["qps"], row["cpu"]
        cpu_cells = (f"{c['min']:.1f}–{c['max']:.1f}", f"{100 * c['cv']:.1f}%") if c else ("–", "–")
        qr = f"{row['qps_ratio'][0]:.2f}–{row['qps_ratio'][1]:.2f}" if row["qps_ratio"] else "–"
        cr = f"{row['cpu_ratio'][0]:.2f}–{row['cpu_ratio'][1]:.2f}" if row["cpu_ratio"] else "–"
        out.append(f"| {row['name']} | {row['rounds']} | {q['min']:.0f}–{q['max']:.0f} | {100 * q['cv']:.1f}% | "
                   f"{cpu_cells[0]} | {cpu_cells[1]} | {qr} | {cr} |")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        sys.stderr.write("usage: python3 -m perfgate_harness.noise <results.json>\n")
        return 2
    with open(argv[0], encoding="utf-8") as f:
        results = json.load(f)
    sys.stdout.write(render_markdown(noise_rows(results)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
