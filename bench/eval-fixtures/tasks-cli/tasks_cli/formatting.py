"""Plain-text table of tasks for the terminal."""


def format_task_table(tasks) -> str:
    rows = [("ID", "DUE", "DONE", "TITLE")]
    rows += [(str(t.id), t.due or "-", "x" if t.done else "", t.title) for t in tasks]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row[:3])) + "  " + row[3] for row in rows]
    return "\n".join(line.rstrip() for line in lines)
