from ..due import parse_due_date
from ..store import Task, TaskStore


def run_add(store: TaskStore, title: str, due_text) -> int:
    title = title.strip()
    if not title:
        print("tasks add: the title must not be empty")
        return 2
    due = parse_due_date(due_text) if due_text else None
    task = store.add(Task(id=store.next_id(), title=title, due=due))
    print(f"added task {task.id}: {task.title}")
    return 0
