#!/usr/bin/env python3
"""Latency of one 4 KiB write + fsync on the disk of a folder, the floor under every durable
commit of the history store (InnoDB with innodb_flush_log_at_trx_commit=1, SQLite in WAL mode
at a checkpoint): a webhook's acknowledgement waits for at least one of them.

    python3 bench/fsync-latency.py [--dir /var/lib/perfgate] [--count 300]
"""
import argparse
import os
import tempfile
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="a folder on the disk to probe")
    parser.add_argument("--count", type=int, default=300, help="fsyncs to time (at least 100)")
    args = parser.parse_args()
    if args.count < 100:
        parser.error(f"--count {args.count}: expected at least 100 for a p99")
    if not os.path.isdir(args.dir):
        parser.error(f"--dir {args.dir}: not a folder")
    fd, path = tempfile.mkstemp(prefix="fsync-probe-", dir=args.dir)
    millis = []
    try:
        for i in range(args.count):
            os.pwrite(fd, b"x" * 4096, (i % 16) * 4096)
            start = time.perf_counter()
            os.fsync(fd)
            millis.append((time.perf_counter() - start) * 1000)
    finally:
        os.close(fd)
        os.unlink(path)
    millis.sort()
    at = lambda q: millis[min(len(millis) - 1, int(q * len(millis)))]
    load = os.getloadavg()[0]
    print(f"{args.dir}: {len(millis)} fsyncs of 4 KiB: p50 {at(0.5):.1f} ms, p90 {at(0.9):.1f} ms, "
          f"p99 {at(0.99):.1f} ms, max {millis[-1]:.1f} ms (load average {load:.1f})")


if __name__ == "__main__":
    main()
