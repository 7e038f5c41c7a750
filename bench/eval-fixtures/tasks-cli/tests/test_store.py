from tasks_cli.store import Task, TaskStore


def test_tasks_survive_a_reopen(tmp_path):
    path = tmp_path / "tasks.json"
    TaskStore(path).add(Task(1, "renew contract", "2026-06-30"))
    assert TaskStore(path).all() == [Task(1, "renew contract", "2026-06-30")]


def test_next_id_follows_the_highest():
    store = TaskStore.__new__(TaskStore)
    store._tasks = [Task(4, "a"), Task(9, "b")]
    assert store.next_id() == 10
