#!/usr/bin/env python3
"""The reference a data engineer would write instead of funnel: one DuckDB query straight
over the gzip NDJSON logs, computing the same headline figures as
`funnel report --flow FLOW --cohort COHORT --format json` (DESIGN.md definitions):
started, completed, time to complete p50/p90 (quantile_cont), drop-off per step of abandoned
users (idle window 24 h before as-of = latest event time).

Usage: duckdb_report.py --flow glp1 --cohort-key journeyStatus --cohort-value already_on_glp1 FILES_GLOB
Prints one JSON object. Used by scripts/bench; needs `pip install duckdb`.
"""
import argparse
import json
import sys

import duckdb


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--flow", required=True)
    ap.add_argument("--cohort-key")
    ap.add_argument("--cohort-value")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("glob")
    a = ap.parse_args()
    con = duckdb.connect()
    con.execute(f"SET threads = {a.threads}")
    cohort_filter = ""
    params = [a.glob, a.flow]
    if a.cohort_key:
        cohort_filter = """AND user_id IN (
            SELECT user_id FROM ev WHERE json_extract_string(properties, '$.' || ?) IS NOT NULL
            QUALIFY row_number() OVER (PARTITION BY user_id ORDER BY ts DESC) = 1
              AND json_extract_string(properties, '$.' || ?) = ?)"""
    sql = f"""
    WITH raw AS (
        SELECT * FROM read_json(?, format = 'newline_delimited', compression = 'gzip',
            columns = {{event_id: 'VARCHAR', event: 'VARCHAR', user_id: 'VARCHAR', ts: 'VARCHAR',
                        flow: 'VARCHAR', step: 'VARCHAR', properties: 'JSON'}}, ignore_errors = true)
    ),
    ev AS (
        SELECT * EXCLUDE (ts), CAST(ts AS TIMESTAMPTZ) AS ts FROM raw WHERE flow = ?
        QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY event_id) = 1
    ),
    as_of AS (SELECT max(ts) AS t FROM ev),
    users AS (
        SELECT user_id,
               min(ts) FILTER (WHERE event = 'onboarding.started') AS started_at,
               min(ts) FILTER (WHERE event = 'onboarding.completed') AS completed_at,
               max(ts) AS last_at,
               arg_max(step, ts) FILTER (WHERE event = 'onboarding.step_viewed') AS current_step
        FROM ev GROUP BY user_id
    ),
    sel AS (SELECT * FROM users WHERE started_at IS NOT NULL {cohort_filter})
    SELECT
        (SELECT count(*) FROM sel) AS started,
        (SELECT count(*) FROM sel WHERE completed_at IS NOT NULL) AS completed,
        (SELECT quantile_cont((epoch_us(completed_at) - epoch_us(started_at)) / 1e6, 0.5) FROM sel WHERE completed_at IS NOT NULL) AS p50,
        (SELECT quantile_cont((epoch_us(completed_at) - epoch_us(started_at)) / 1e6, 0.9) FROM sel WHERE completed_at IS NOT NULL) AS p90,
        (SELECT to_json(list({{step: current_step, dropped: n}} ORDER BY n DESC)) FROM (
            SELECT current_step, count(*) AS n FROM sel, as_of
            WHERE completed_at IS NULL AND last_at < as_of.t - INTERVAL 24 HOUR GROUP BY current_step)) AS dropoff
    """
    if a.cohort_key:
        params += [a.cohort_key, a.cohort_key, a.cohort_value]
    row = con.execute(sql, params).fetchone()
    out = {"started": row[0], "completed": row[1], "time_to_complete_seconds": {"p50": row[2], "p90": row[3]},
           "dropoff": json.loads(row[4]) if row[4] else []}
    json.dump(out, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
