"""Tasks in both protocol eras: start a tool as a task, follow it, answer it, cancel it, see it.

``start_task(conn, tool, args)`` gives a :class:`TaskHandle` (``attach_task(conn, task_id)`` one
for a task started elsewhere); ``tasks_extension()`` is the client
extension a ``Client`` needs for 2026-07-28 servers to create tasks at all; ``task_support(tool)``
reads ``execution.taskSupport`` from ``tools/list``. The widget lives in :mod:`mcpnb.notebook.taskview`
and imports ipywidgets only when a view is made.
"""

from mcpnb.client.tasks.errors import (
    TaskCancelledError,
    TaskError,
    TaskExpiredError,
    TaskInputRequiredError,
    TaskRefusedError,
    TaskResultError,
    TaskTimeoutError,
)
from mcpnb.client.tasks.extension import elicitation_answerer, input_answerer, tasks_extension
from mcpnb.client.tasks.handle import Answer, TaskHandle
from mcpnb.client.tasks.registry import (
    TaskListing,
    TaskRegistry,
    attach_task,
    list_tasks,
    registry,
    server_tasks,
    start_task,
)
from mcpnb.client.tasks.state import TaskState, task_support
from mcpnb.client.tasks.wire import TASKS_EXTENSION, Peer

__all__ = [
    "TASKS_EXTENSION",
    "Answer",
    "Peer",
    "TaskCancelledError",
    "TaskError",
    "TaskExpiredError",
    "TaskHandle",
    "TaskInputRequiredError",
    "TaskListing",
    "TaskRefusedError",
    "TaskRegistry",
    "TaskResultError",
    "TaskState",
    "TaskTimeoutError",
    "attach_task",
    "elicitation_answerer",
    "input_answerer",
    "list_tasks",
    "registry",
    "server_tasks",
    "start_task",
    "task_support",
    "tasks_extension",
]
