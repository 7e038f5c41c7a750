"""Entry point: parses the command line and runs one command."""

import argparse
import sys

from .commands import add, done, list as list_command
from .store import TaskStore


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tasks", description="A small command-line to-do list")
    commands = parser.add_subparsers(dest="command", required=True)

    add_parser = commands.add_parser("add", help="add a task")
    add_parser.add_argument("title")
    add_parser.add_argument("--due", help="due date: YYYY-MM-DD, today, tomorrow or a weekday")

    list_parser = commands.add_parser("list", help="list the open tasks, soonest due first")
    list_parser.add_argument("--all", action="store_true", help="include done tasks")

    done_parser = commands.add_parser("done", help="mark a task as done")
    done_parser.add_argument("task_id", type=int)
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    store = TaskStore.open_default()
    if args.command == "add":
        return add.run_add(store, args.title, args.due)
    if args.command == "list":
        return list_command.run_list(store, show_all=args.all, out=sys.stdout)
    if args.command == "done":
        return done.run_done(store, args.task_id)
    return 2


if __name__ == "__main__":
    sys.exit(main())
