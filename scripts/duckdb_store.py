#!/usr/bin/env python3
"""Reads a funnel store's views from DuckDB through its sqlite extension, the way
docs/store.md shows: the events per name (`event_log`) and the users per flow and state
(`journey_state`). Prints one JSON object.

Usage: duckdb_store.py STORE.sqlite
Needs `pip install duckdb-extension-sqlite-scanner` (DuckDB and its sqlite extension, for
machines that cannot run `INSTALL sqlite`); with network access, `INSTALL sqlite` does the same.
"""
import glob
import json
import os
import sys

import duckdb


def load_sqlite(con: duckdb.DuckDBPyConnection) -> None:
    """The extension from the PyPI package when it is installed, else DuckDB's own."""
    try:
        import duckdb_extension_sqlite_scanner as package
    except ImportError:
        con.execute("INSTALL sqlite; LOAD sqlite;")
        return
    found = glob.glob(os.path.join(os.path.dirname(package.__file__), "extensions", "*", "sqlite_scanner.duckdb_extension"))
    if not found:
        raise SystemExit("duckdb_extension_sqlite_scanner holds no extension file")
    con.execute(f"LOAD '{found[0]}'")


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    con = duckdb.connect(config={"allow_unsigned_extensions": "true"})
    load_sqlite(con)
    path = sys.argv[1].replace("'", "''")
    con.execute(f"ATTACH '{path}' AS store (TYPE sqlite, READ_ONLY)")
    events = con.execute("SELECT event, count(*) FROM store.event_log GROUP BY event ORDER BY event").fetchall()
    states = con.execute("""
        SELECT flow, coalesce(state, 'not_started'), count(*) FROM store.journey_state
        GROUP BY ALL ORDER BY ALL
        """).fetchall()
    print(json.dumps({
        "events": {name: n for name, n in events},
        "users": {f"{flow}/{state}": n for flow, state, n in states},
    }, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
