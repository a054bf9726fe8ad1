"""Command-line entry of the harness: `python3 -m perfgate_harness <command> ...`."""

import argparse
import json
import sys

from . import cli, fingerprint


def _fingerprint(args):
    json.dump(fingerprint.collect(data_dir=args.data_dir), sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="perfgate_harness")
    commands = parser.add_subparsers(dest="command", required=True)
    fp = commands.add_parser("fingerprint", help="print the machine fingerprint as JSON")
    fp.add_argument("--data-dir", help="folder whose filesystem and disk to record (default: current folder)")
    fp.set_defaults(handler=_fingerprint)
    cli.add_run_parser(commands)
    cli.add_explain_parser(commands)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
