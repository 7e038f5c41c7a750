from ..store import TaskStore, TaskNotFound


def run_done(store: TaskStore, task_id: int) -> int:
    try:
        task = store.mark_done(task_id)
    except TaskNotFound:
        print(f"tasks done: there is no task {task_id}")
        return 1
    print(f"done: {task.title}")
    return 0
