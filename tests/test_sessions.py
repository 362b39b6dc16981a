"""Multi-session events (issue 14, part 4): the core's combined ranking
(:mod:`dealer.events.sessions`) and the store's sessions of one event."""

from __future__ import annotations

import pytest
from test_store import db_url, pg_server  # noqa: F401  (fixtures)

from dealer.events.model import EventError
from dealer.events.sessions import check_units, combine
from dealer.store import Store
from dealer.store import results as rs


def test_percentages_are_averaged_each_session_counting_equally() -> None:
    s1 = {"": {"A1": 62.5, "A2": 37.5, "A3": 50.0, "A4": 50.0}}
    s2 = {"": {"A1": 41.0, "A2": 59.0, "A3": 50.0, "A4": 55.0}}
    out = combine([s1, s2], "%")[""]
    assert [(c.place, c.pair, c.score) for c in out] == [
        ("1", "A4", 52.5), ("2", "A1", 51.75), ("3", "A3", 50.0), ("4", "A2", 48.25)]
    assert out[0].sessions == (50.0, 55.0) and out[0].played == 2


def test_imps_and_vps_are_summed_and_ties_share_a_place() -> None:
    s1 = {"": {"A1": 12.0, "A2": -12.0, "A3": 4.0}}
    s2 = {"": {"A1": -4.0, "A2": 20.0, "A3": 4.0}}
    out = combine([s1, s2], "IMPs")[""]
    assert [(c.place, c.pair, c.score) for c in out] == [
        ("1=", "A1", 8.0), ("1=", "A2", 8.0), ("1=", "A3", 8.0)]


def test_a_pair_missing_a_session_is_listed_unplaced_after_the_ranked() -> None:
    s1 = {"NS": {"A1 NS": 70.0, "A2 NS": 30.0}, "EW": {"A1 EW": 50.0}}
    s2 = {"NS": {"A1 NS": 40.0}, "EW": {"A1 EW": 50.0, "A2 EW": 60.0}}
    out = combine([s1, s2], "%")
    assert [(c.place, c.pair, c.played) for c in out["NS"]] == [("1", "A1 NS", 2),
                                                                ("", "A2 NS", 1)]
    assert out["NS"][1].sessions == (30.0, None)
    assert [(c.place, c.pair) for c in out["EW"]] == [("1", "A1 EW"), ("", "A2 EW")]


def test_sessions_in_different_units_cannot_be_combined() -> None:
    with pytest.raises(EventError, match="different units"):
        check_units(["%", "IMPs"])
    with pytest.raises(EventError, match="at least one session"):
        combine([], "%")


def test_the_store_groups_sessions_and_refuses_a_mix_of_scorings() -> None:
    with Store.open("sqlite://") as st:
        one = rs.create_club_event(st, "Championship", tables=3)
        two = rs.create_club_event(st, "Championship", tables=3)
        three = rs.create_club_event(st, "Championship", tables=3)
        imps = rs.create_club_event(st, "Butler", tables=3, scoring="butler")
        assert [c.id for c, _ in rs.sessions(st, one)] == [one]  # alone until joined
        rs.join(st, two, one, who="td")
        rs.join(st, three, two, who="td")  # continuing any session joins its event
        assert [c.id for c, _ in rs.sessions(st, three)] == [one, two, three]
        assert [c.id for c, _ in rs.sessions(st, one)] == [one, two, three]
        with pytest.raises(rs.EntryError, match="scored in % and this one in IMPs") as exc:
            rs.join(st, imps, one, who="td")
        assert exc.value.field == "continues"
        with pytest.raises(rs.EntryError, match="itself"):
            rs.join(st, one, one, who="td")
        with pytest.raises(rs.EntryError, match="no event 99"):
            rs.join(st, two, 99, who="td")
        rs.join(st, two, None, who="td")
        assert [c.id for c, _ in rs.sessions(st, one)] == [one, three]
        assert [a.action for a in rs.audit_log(st)][-1] == "leave-group"


def test_publication_and_sessions_on_both_backends(db_url: str) -> None:  # noqa: F811
    """Publish, take back, publish after the period, and a two-session group: the same on
    SQLite and PostgreSQL (timestamps with time zones, the group's updates)."""
    from datetime import UTC, datetime, timedelta
    with Store.open(db_url) as st:
        one = rs.create_club_event(st, "Two sessions", tables=3)
        two = rs.create_club_event(st, "Two sessions", tables=3)
        rs.join(st, two, one, who="td")
        assert [c.id for c, _ in rs.sessions(st, two)] == [one, two]
        at = rs.publish(st, one, who="td")
        assert rs.published_event(st, one) is not None and rs.published_event(st, two) is None
        assert rs.publish(st, one, who="td") == at  # again: the period keeps its start
        rs.unpublish(st, one, who="td")
        assert rs.published_events(st) == []
        long_ago = datetime.now(UTC) - timedelta(hours=2)
        rs.publish(st, one, who="td", at=long_ago)
        with pytest.raises(rs.EntryError, match="correction period ended") as exc:
            rs.unpublish(st, one, who="td")
        assert exc.value.field == "published"
        with pytest.raises(rs.EntryError, match="not published"):
            rs.unpublish(st, two, who="td")
        assert [c.id for c, _ in rs.published_events(st)] == [one]
        assert [a.action for a in rs.audit_log(st, one)] == ["publish", "unpublish", "publish"]
        assert [a.action for a in rs.audit_log(st, two)] == ["join-group"]
