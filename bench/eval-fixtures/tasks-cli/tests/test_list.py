import io

from tasks_cli.commands.list import run_list, sort_by_due_date
from tasks_cli.store import Task, TaskStore


def make_store(tmp_path, tasks):
    store = TaskStore(tmp_path / "tasks.json")
    for task in tasks:
        store.add(task)
    return store


def test_lists_open_tasks_soonest_due_first(tmp_path):
    store = make_store(tmp_path, [Task(1, "later", "2026-07-01"), Task(2, "sooner", "2026-06-12"), Task(3, "whenever")])
    out = io.StringIO()
    assert run_list(store, show_all=False, out=out) == 0
    titles = [line.split()[-1] for line in out.getvalue().splitlines()[1:]]
    assert titles == ["sooner", "later", "whenever"]


def test_done_tasks_only_with_all(tmp_path):
    store = make_store(tmp_path, [Task(1, "open"), Task(2, "finished", done=True)])
    out = io.StringIO()
    run_list(store, show_all=False, out=out)
    assert "finished" not in out.getvalue()


def test_sort_keeps_undated_tasks_in_order():
    tasks = [Task(2, "b"), Task(1, "a")]
    assert [t.id for t in sort_by_due_date(tasks)] == [1, 2]
