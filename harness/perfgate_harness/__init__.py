"""perfgate harness: runs servers and sysbench, measures, writes results.json."""
