/**
 * Permanent step failures raised by `executeStep` (all PLAN-008 StepFailedErrors with retryable = false, so the
 * activity fails at once instead of retrying), and the PLAN-006 refusal of a workspace root the worker does not
 * allow. The class name becomes the ApplicationFailure type.
 */
import { InvalidInputError, StepFailedError } from '../domain/errors';

/**
 * PLAN-006 (never retried): a run's workspace_root is not inside any of the folders the worker's configuration
 * allows (PLANNER_WORKSPACE_ROOTS), compared by real path. Raised by the planning activities, the workspace tool
 * and executeStep before any file is read.
 */
export class WorkspaceRootNotAllowedError extends InvalidInputError {
  override readonly name = 'WorkspaceRootNotAllowedError';
  constructor(root: string, real: string | undefined, allowed: readonly string[]) {
    super(
      `workspace_root ${root}${real !== undefined && real !== root ? ` (really ${real})` : ''} is not inside a workspace root this worker allows (${allowed.join(', ') || 'none'})`,
      'Name a workspace_root inside one of the allowed folders, or have the operator add the folder to PLANNER_WORKSPACE_ROOTS (a path list, default PLANNER_WORKSPACE_ROOT) on the workers.',
      { workspace_root: root, ...(real !== undefined ? { real_path: real } : {}), allowed_roots: [...allowed] },
    );
  }
}

/** The step names a tool this worker does not serve (it was routed to the wrong task queue, or catalogs drifted). */
export class UnknownToolError extends StepFailedError {
  override readonly name = 'UnknownToolError';
  constructor(tool: string, served: readonly string[], queues: readonly string[]) {
    super(
      `tool "${tool}" is not served by this worker (task queue ${queues.join(', ') || '(none)'}; tools: ${served.join(', ') || '(none)'})`,
      {
        retryable: false,
        hint: "Route the step to the task queue of the tool's catalog entry, or start a worker that serves the tool.",
        details: { tool, served: [...served], task_queues: [...queues] },
      },
    );
  }
}

/** The resolved params do not match the tool's schema. */
export class StepParamsError extends StepFailedError {
  override readonly name = 'StepParamsError';
  readonly issues: readonly string[];
  constructor(tool: string, issues: readonly string[]) {
    super(`params of tool "${tool}" are invalid:\n${issues.join('\n')}`, {
      retryable: false,
      hint: 'Fix the params listed (path: message); a template may have resolved to a value of the wrong type.',
      details: { tool, issues: [...issues] },
    });
    this.issues = issues;
  }
}

/** A file param points outside the workspace root: lexically, or once symlinks are followed (`real` says where). */
export class PathOutsideWorkspaceError extends StepFailedError {
  override readonly name = 'PathOutsideWorkspaceError';
  constructor(tool: string, param: string, value: string, root: string, real?: string) {
    super(
      `param "${param}" of tool "${tool}" is outside the workspace ${root}: ${value}${real !== undefined ? ` (resolves to ${real})` : ''}`,
      {
        retryable: false,
        hint: 'Use paths inside the workspace root; ".." and symlinks are followed to where they really lead.',
        details: { tool, param, path: value, workspace_root: root, ...(real !== undefined ? { real_path: real } : {}) },
      },
    );
  }
}

/**
 * A file or folder opened inside a root turned out to lie outside every allowed root (a symlink, perhaps swapped in
 * after the path was checked): the descriptor was closed unread.
 */
export class OpenedOutsideRootError extends StepFailedError {
  override readonly name = 'OpenedOutsideRootError';
  constructor(value: string, real: string) {
    super(`${value} was opened but leads outside the allowed roots (to ${real}); it was not read`, {
      retryable: false,
      hint: 'Use paths inside the workspace root; ".." and symlinks are followed to where they really lead.',
      details: { path: value, real_path: real },
    });
  }
}

/** The tool returned data that does not match its declared result schema: a bug in the tool, not worth retrying. */
export class ToolResultError extends StepFailedError {
  override readonly name = 'ToolResultError';
  constructor(tool: string, issues: readonly string[]) {
    super(
      `tool "${tool}" returned a result that does not match its result schema:\n${issues.slice(0, 20).join('\n')}`,
      {
        retryable: false,
        hint: 'The tool implementation is broken; fix it or re-plan without it.',
        details: { tool, issues: issues.slice(0, 50) },
      },
    );
  }
}
