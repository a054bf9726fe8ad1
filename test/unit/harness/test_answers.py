"""The harness's questions on stdout and the one-line answers it reads on stdin."""
import io
import json

import pytest

from perfgate_harness import progress


def test_an_answer_gives_its_rounds():
    assert progress.read_answer('{"benchmark": "point-query", "more_rounds": 1}\n', "point-query", 12) == 1
    assert progress.read_answer('{"more_rounds": 0, "benchmark": "point-query"}', "point-query", 12) == 0
    assert progress.read_answer('{"benchmark": "a", "more_rounds": 12}', "a", 12) == 12


def test_end_of_input_is_no_more_rounds():
    assert progress.read_answer("", "point-query", 12) == 0


@pytest.mark.parametrize("line", [
    "yes\n",
    "1\n",
    "[]\n",
    "{}\n",
    "\n",
    '{"benchmark": "scan_range=100", "more_rounds": 1}',   # another benchmark's answer
    '{"benchmark": "point-query", "more_rounds": 13}',     # beyond what was offered
    '{"benchmark": "point-query", "more_rounds": -1}',
    '{"benchmark": "point-query", "more_rounds": 1.0}',
    '{"benchmark": "point-query", "more_rounds": true}',
    '{"benchmark": "point-query", "more_rounds": "1"}',
    '{"benchmark": "point-query", "more_rounds": 1, "seconds": 60}',
    '{"benchmark": "point-query"}',
    '{"benchmark": "point-query", "more_rounds": 1}{"x": 1}',
    "\x00" * 10_000,
])
def test_an_answer_out_of_form_is_refused_by_name(line):
    with pytest.raises(progress.AnswerError) as e:
        progress.read_answer(line, "point-query", 12)
    message = str(e.value)
    assert message.startswith("answer on stdin ")
    assert '"more_rounds": <integer 0..12>' in message and '"point-query"' in message
    assert len(message) < 400  # a long line is cut, not echoed whole


def test_the_question_carries_the_record_and_reads_one_line(capsys):
    answers = io.StringIO('{"benchmark": "point-query", "more_rounds": 1}\n{"benchmark": "point-query", "more_rounds": 0}\n')
    record = {"id": "point-query", "rounds": [{"index": 0, "side": "base", "qps": 1.0}]}
    assert progress.ask_more_rounds("point-query", record, 5, answers) == 1
    assert progress.ask_more_rounds("point-query", record, 4, answers) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events == [{"event": "more_rounds?", "benchmark": "point-query", "most": 5, "record": record},
                      {"event": "more_rounds?", "benchmark": "point-query", "most": 4, "record": record}]
