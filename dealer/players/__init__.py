"""Players: the club's member list and the names of the pairs of an event.

Pure Python, no storage: what a member is, how a national number is written,
how a name is searched, and how a club's member CSV is read. The tables and
their functions are in :mod:`dealer.store.players`.

===============================================  ===================================
:mod:`~dealer.players.names`                     a member, a national number, search keys
:mod:`~dealer.players.members_csv`               reading a member list CSV (any header a
                                                 club uses; UTF-8, UTF-16, Latin-1)
===============================================  ===================================
"""

from dealer.players.members_csv import ImportProblem, MemberCsv, read_members_csv
from dealer.players.names import (
    EMAIL_MAX,
    NAME_MAX,
    NUMBER_MAX,
    SCHEME_MAX,
    SCHEMES,
    MemberIn,
    PlayerError,
    PlayerName,
    check_email,
    check_name,
    check_number,
    check_scheme,
    clean_name,
    national_id,
    pair_label,
    parse_choice,
    search_key,
)

__all__ = ["EMAIL_MAX", "NAME_MAX", "NUMBER_MAX", "SCHEMES", "SCHEME_MAX", "ImportProblem",
           "MemberCsv", "MemberIn", "PlayerError", "PlayerName", "check_email", "check_name", "check_number",
           "check_scheme", "clean_name", "national_id", "pair_label", "parse_choice",
           "read_members_csv", "search_key"]
