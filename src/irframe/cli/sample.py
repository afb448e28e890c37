"""``irframe sample LOG -n 40 --by segment -o golden_queries.tsv``: a golden set's queries from a log."""

from __future__ import annotations

import argparse
import io
import sys
from typing import TYPE_CHECKING

from irframe.cli._common import SubParsers, _common, _mapping, shown, write_table

if TYPE_CHECKING:
    import polars as pl

__all__ = ["add_parser", "cmd_sample"]


def add_parser(sub: SubParsers) -> None:
    """Register ``irframe sample``."""
    p = sub.add_parser(
        "sample",
        parents=[_common()],
        help="sample a golden set's queries from a log: proportional to traffic, a floor per segment",
        description=(
            "Choose N queries from a query log (one row per issued query, or per query with a "
            "--weight count): each segment gets its traffic share of N, at least --min-per-segment, "
            "rounded by largest remainder; within a segment queries are drawn proportional to "
            "traffic (or uniformly), reproducibly for a --seed. Prints each segment's share in "
            "the log and in the sample."
        ),
        epilog=(
            "LOG is a parquet, CSV, TSV or JSON-lines table (by extension, else a CSV/TSV header), "
            "or - for standard input. Without -o the sample goes to standard output as TSV and the "
            "segment table to standard error."
        ),
    )
    p.add_argument("log", metavar="LOG", help="the query log: a table with a query_id column")
    p.add_argument("-n", type=int, required=True, metavar="N", help="queries to choose")
    p.add_argument("--by", action="append", default=[], metavar="COLUMN", help="segment column (repeatable)")
    p.add_argument(
        "--min-per-segment", type=int, default=1, metavar="K", help="floor per segment (default: 1)"
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the draw (default: 0)")
    p.add_argument("--weight", metavar="COLUMN", help="traffic per row (default: every row counts 1)")
    p.add_argument(
        "--within",
        choices=("traffic", "uniform"),
        default="traffic",
        help="within a segment, choose proportional to traffic (default) or uniformly",
    )
    p.add_argument(
        "--query-col", default="query_id", metavar="COLUMN", help="query id column (default: query_id)"
    )
    p.add_argument(
        "--map", type=_mapping, action="append", default=[], metavar="SRC=DST", help="rename a column"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the sample there (TSV, CSV, parquet, jsonl)")
    p.add_argument("--segments", metavar="FILE", help="also write the segments table there")
    p.set_defaults(func=cmd_sample)


def read_log(path: str, mapping: dict[str, str], query_col: str) -> pl.DataFrame:
    """A log table: by extension, else a CSV/TSV (header sniffed; tab by default)."""
    import polars as pl

    from irframe.io import read_table
    from irframe.io.sniff import read_bytes, sniff_table
    from irframe.io.tables import detect_format

    fmt = None if path == "-" else detect_format(path)
    if fmt is not None:
        return read_table(path, columns=mapping or None, format=fmt)
    data = read_bytes(path)
    first = data[: data.find(b"\n")] if b"\n" in data else data
    sep = sniff_table(data[:65536]) or ("\t" if b"\t" in first or b"," not in first else ",")
    header = pl.read_csv(io.BytesIO(data), separator=sep, n_rows=0).columns
    ids = {c for c in header if mapping.get(c, c) == query_col}
    df = pl.read_csv(
        io.BytesIO(data),
        separator=sep,
        infer_schema_length=10_000,
        schema_overrides=dict.fromkeys(ids, pl.String),
    )
    return df.rename({k: v for k, v in mapping.items() if k in df.columns})


def cmd_sample(args: argparse.Namespace) -> int:
    """Run ``irframe sample``."""
    from irframe import sample_queries

    log = read_log(args.log, dict(args.map), args.query_col)
    result = sample_queries(
        log,
        args.n,
        by=args.by or None,
        min_per_segment=args.min_per_segment,
        seed=args.seed,
        weight=args.weight,
        within=args.within,
        query_col=args.query_col,
    )
    if args.segments:
        write_table(result.segments, args.segments)
    if args.output:
        write_table(result.queries, args.output)
        sys.stdout.write(shown(result.to_text()) + "\n")
        if not args.quiet:
            print(f"irframe: wrote {args.output} ({result.n} queries)", file=sys.stderr)
    else:
        sys.stdout.write(result.queries.write_csv(separator="\t"))
        if not args.quiet:
            print(shown(result.to_text()), file=sys.stderr)
    return 0
