"""``python -m harness.security rules [--section NAME]``: every rule with its source and case counts."""

from __future__ import annotations

import argparse

from harness.rules.listing import rules, table


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m harness.security", description=__doc__)
    sub = ap.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("rules", help="list every rule with its source and case counts")
    listing.add_argument("--section", choices=sorted({r.section for r in rules()}), help="only this rule set")
    args = ap.parse_args()
    print(table(args.section))


if __name__ == "__main__":
    main()
