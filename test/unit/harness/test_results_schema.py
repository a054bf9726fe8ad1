"""The results schema is what keeps a failed benchmark from being read as a measurement."""
import copy
import json

from perfgate_harness import schema


def real_results(fixture_text, name="tiny-ahi.json"):
    return json.loads(fixture_text("results", name))


IO_FIELDS = ("read_kb_per_query", "write_kb_per_query", "device_reads_per_query", "device_read_kb_per_query",
             "device_write_kb_per_query")
MEMORY_FIELDS = ("rss_before_bytes", "rss_bytes", "hwm_bytes", "memory_growth_per_query")


def test_real_results_are_valid(fixture_text):
    # Results written before I/O was sampled stay valid: the I/O fields are optional.
    for name in ("tiny-ahi.json", "tiny-quick.json", "io-tiny/results.json"):
        assert schema.schema_errors("results", real_results(fixture_text, name)) == []


def test_every_round_of_a_real_run_has_every_metric(fixture_text):
    # 10.11.18 against 10.11.19, point-query and update-index, 3 rounds of 3 s on this runner,
    # written before memory was sampled.
    results = real_results(fixture_text, "io-tiny/results.json")
    assert results["status"] == "ok"
    for side in ("base", "head"):
        assert results["sides"][side]["io_device"] == {"name": "vda", "dev": "254:0"}
    for bench in results["benchmarks"]:
        assert bench["status"] == "ok" and bench["command"].startswith("sysbench ")
        for r in bench["rounds"]:
            assert set(r) == set(schema.load_schema("results")["$defs"]["round"]["properties"]) - set(MEMORY_FIELDS)
            assert r["qps"] > 0 and r["cpu_per_query_us"] > 0 and r["cs_per_query"] > 0
            assert all(r[k] >= 0 for k in IO_FIELDS)
            # The tables fit the buffer pool: point selects write nothing; every update writes.
            if bench["name"] == "point-query":
                assert r["write_kb_per_query"] == 0
            else:
                assert r["write_kb_per_query"] > 0


def test_a_negative_or_text_io_figure_is_refused(fixture_text):
    results = real_results(fixture_text, "io-tiny/results.json")
    results["benchmarks"][0]["rounds"][0]["write_kb_per_query"] = -1
    assert schema.schema_errors("results", results) == [
        "benchmarks[0].rounds[0].write_kb_per_query: -1 is less than the minimum of 0"]
    results["benchmarks"][0]["rounds"][0]["write_kb_per_query"] = "12"
    assert len(schema.schema_errors("results", results)) == 1


def test_an_error_benchmark_must_say_why(fixture_text):
    results = real_results(fixture_text)
    bench = results["benchmarks"][0]
    bench["status"] = "error"
    bench["rounds"] = []
    assert any("'error' is a required property" in p for p in schema.schema_errors("results", results))
    bench["error"] = {"side": "base", "step": "round", "message": "base server killed by signal SIGKILL"}
    assert schema.schema_errors("results", results) == []


def test_an_ok_benchmark_cannot_carry_an_error_or_lack_rounds(fixture_text):
    results = real_results(fixture_text)
    bad = copy.deepcopy(results)
    bad["benchmarks"][0]["error"] = {"message": "x"}
    assert schema.schema_errors("results", bad)
    bad = copy.deepcopy(results)
    bad["benchmarks"][0]["rounds"] = []
    assert schema.schema_errors("results", bad)


def test_round_without_a_metric_is_refused(fixture_text):
    results = real_results(fixture_text)
    del results["benchmarks"][0]["rounds"][0]["cs_per_query"]
    assert schema.schema_errors("results", results) == [
        "benchmarks[0].rounds[0]: 'cs_per_query' is a required property"]
    results["benchmarks"][0]["rounds"][0]["cs_per_query"] = 1.0
    results["benchmarks"][0]["rounds"][0]["cycles"] = 5
    assert schema.schema_errors("results", results) == [
        "benchmarks[0].rounds[0]: Additional properties are not allowed ('cycles' was unexpected)"]
