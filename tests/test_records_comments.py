"""Records keep their comments and annotations through a read and a write, records
for one viewer keep their ``{takes ...}`` comments, and a visitor walks a large file
reading only the headers of the records it skips (issue #9)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from svoi_kozyri.records import (
    SKIP,
    GameRecord,
    RecordError,
    RecordVisitor,
    filter_records,
    parse_record,
    read_headers,
    split_records,
    visit_records,
    write_record,
    write_records,
)
from test_records import dealt_hand, play

ANNOTATED = """[Event "Notes"]
[Players "2"]
[Owners "SH/DC"]
[Position "SH/DC 6S9H/7STD8D - A free - - 0"]
[Result "loser B"]

{a short open ending}
1. A: lead 6S ! {the only way}
2. B: beat 7S lead 8D ?! ; hopeless already
3. A: beat 9H $4
loser B {A wins}
"""


def test_comments_and_annotations_survive_a_read_and_a_write() -> None:
    rec = parse_record(ANNOTATED)
    assert rec.comments == {
        0: ["a short open ending"],
        1: ["the only way"],
        2: ["hopeless already"],
        3: ["A wins"],
    }
    assert rec.annotations == {1: "!", 2: "?!", 3: "$4"}
    text = write_record(rec)
    again = parse_record(text)
    assert again.comments == rec.comments and again.annotations == rec.annotations
    assert write_record(again) == text
    assert again == rec


def test_glued_annotation_is_read() -> None:
    rec = parse_record(ANNOTATED.replace("lead 6S !", "lead 6S!"))
    assert rec.annotations[1] == "!" and str(rec.moves[0][1]) == "lead 6S"


def test_a_comment_holding_a_brace_is_written_as_a_line_comment() -> None:
    rec = parse_record(ANNOTATED)
    rec.comments[1] = ["a } brace"]
    assert parse_record(write_record(rec)).comments[1] == ["a } brace"]


def test_viewer_records_keep_their_pickup_comments() -> None:
    state = play(dealt_hand(11), 11)
    full = GameRecord.from_state(state)
    assert any(m.is_pickup for _, m in full.moves)
    viewer_text = write_record(full, viewer=0)
    takes = viewer_text.count("{takes ")
    assert takes > 0
    rewritten = write_record(parse_record(viewer_text))
    assert rewritten.count("{takes ") == takes
    assert rewritten == viewer_text


def _session(tmp_path: Path, hands: int) -> Path:
    recs = []
    for i in range(hands):
        state = play(dealt_hand(100 + i), 100 + i)
        recs.append(GameRecord.from_state(state, Event="Big", Hand=str(i + 1)))
    path = tmp_path / "big.skr"
    write_records(path, recs)
    return path


def test_split_records_finds_every_record(tmp_path: Path) -> None:
    path = _session(tmp_path, 6)
    chunks = list(split_records(path.read_text(encoding="utf-8")))
    assert len(chunks) == 6
    assert all(chunk.lstrip().startswith("[Event") for _, chunk in chunks)


def test_visitor_skips_without_parsing(tmp_path: Path) -> None:
    path = _session(tmp_path, 40)
    assert [h["Hand"] for h in read_headers(path)] == [str(i + 1) for i in range(40)]
    some = filter_records(path, lambda tags: tags["Hand"] in ("3", "17"))
    assert [r.tags["Hand"] for r in some] == ["3", "17"]
    t0 = time.perf_counter()
    read_headers(path)
    skipping = time.perf_counter() - t0
    t0 = time.perf_counter()
    filter_records(path, lambda tags: True)
    parsing = time.perf_counter() - t0
    assert skipping * 5 < parsing  # skipped records cost a line scan, not a replay


def test_visitor_result_and_errors_name_file_lines(tmp_path: Path) -> None:
    class Count(RecordVisitor):
        def __init__(self) -> None:
            self.n = 0

        def headers(self, tags: dict[str, str], line: int) -> bool:
            return tags.get("Hand") != "2" or SKIP

        def record(self, rec: GameRecord) -> None:
            self.n += 1

        def result(self) -> object:
            return self.n

    path = _session(tmp_path, 3)
    assert visit_records(path, Count()) == 2
    text = path.read_text(encoding="utf-8")
    third = text.rindex("[Event")
    line = text[:third].count("\n") + 1
    broken = text[:third] + text[third:].replace("lead", "leed", 1)
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(RecordError, match=r"line \d+") as info:
        visit_records(path, Count())
    number = int(str(info.value).split("line ")[1].split(",")[0].split(":")[0])
    assert number > line
