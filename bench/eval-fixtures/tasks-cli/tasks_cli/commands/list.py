from ..formatting import format_task_table
from ..store import TaskStore


def sort_by_due_date(tasks):
    """Soonest due first; tasks without a due date come last, in the order they were added."""
    return sorted(tasks, key=lambda t: (t.due is None, t.due or "", t.id))


def run_list(store: TaskStore, show_all: bool, out) -> int:
    tasks = store.all() if show_all else [t for t in store.all() if not t.done]
    if not tasks:
        out.write("no tasks\n")
        return 0
    out.write(format_task_table(sort_by_due_date(tasks)))
    out.write("\n")
    return 0
