"""``python -m evals.harnesses list|build [ids|all]``: show harness specs, build their images."""

from __future__ import annotations

import argparse
import sys
import time

from evals.harnesses.image import ImageError, ensure_image
from evals.harnesses.spec import SpecError, broken_specs, load_specs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.harnesses")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list", help="list harness specs (id, API, dialect, image tag)")
    b = sub.add_parser("build", help="build harness images (cached by content hash)")
    b.add_argument("ids", nargs="?", default="all", help="comma-separated spec ids, or all")
    args = p.parse_args(argv)
    try:
        specs = load_specs()
        for name, error in broken_specs().items():  # reported; an error only when named below
            print(f"warning: skipped harness spec {name}: {error}", file=sys.stderr)
        if args.cmd == "list":
            for spec in specs.values():
                print(f"{spec.id:22} {spec.api:17} {spec.dialect:13} {spec.description}")
            return 0
        ids = list(specs) if args.ids == "all" else [i.strip() for i in args.ids.split(",") if i.strip()]
        for i in ids:
            if i in broken_specs():
                raise broken_specs()[i]
        unknown = [i for i in ids if i not in specs]
        if unknown:
            raise SpecError(f"unknown harness spec(s) {unknown}; valid: {', '.join(specs)}")
        for i in ids:
            t0 = time.monotonic()
            tag = ensure_image(specs[i], log=False)
            print(f"{tag}  ({time.monotonic() - t0:.1f} s)", flush=True)
    except (SpecError, ImageError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
