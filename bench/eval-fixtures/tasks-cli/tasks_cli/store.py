"""Tasks persisted as one JSON file; every change rewrites the file atomically."""

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path


class TaskNotFound(KeyError):
    pass


@dataclass
class Task:
    id: int
    title: str
    due: str | None = None  # ISO date, YYYY-MM-DD
    done: bool = False


class TaskStore:
    def __init__(self, path: Path):
        self.path = path
        self._tasks = self._load()

    @classmethod
    def open_default(cls) -> "TaskStore":
        return cls(Path(os.environ.get("TASKS_FILE", Path.home() / ".tasks.json")))

    def _load(self) -> list[Task]:
        if not self.path.exists():
            return []
        return [Task(**raw) for raw in json.loads(self.path.read_text(encoding="utf-8"))]

    def _save(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps([asdict(t) for t in self._tasks], indent=2), encoding="utf-8")
        tmp.replace(self.path)

    def all(self) -> list[Task]:
        return list(self._tasks)

    def next_id(self) -> int:
        return max((t.id for t in self._tasks), default=0) + 1

    def add(self, task: Task) -> Task:
        self._tasks.append(task)
        self._save()
        return task

    def mark_done(self, task_id: int) -> Task:
        for task in self._tasks:
            if task.id == task_id:
                task.done = True
                self._save()
                return task
        raise TaskNotFound(task_id)
