/**
 * Failures of MCP tools, all PLAN-008 StepFailedErrors so executeStep passes them to Temporal typed: a tool's own
 * error (`isError: true`), a protocol error and an oversized result are permanent; a server that cannot be reached
 * (after one restart) is retryable, so Temporal retries the step per its retry policy. `noEffect` tells the
 * idempotency ledger that the tool did not act (src/store/idempotency.ts).
 */
import { StepFailedError } from '../../domain/errors';

/** The MCP tool ran and reported an error (`isError: true`): its outcome is known (see once() in idempotency.ts). */
export class McpToolError extends StepFailedError {
  override readonly name = 'McpToolError';
  readonly noEffect = true;
  constructor(server: string, tool: string, message: string) {
    super(`MCP tool "${tool}" of server "${server}" failed: ${message}`, {
      retryable: false,
      hint: "Read the tool's message; fix the params (paths, ids) or re-plan with another tool.",
      details: { server, tool, error: message },
    });
  }
}

/** The server answered the call with a JSON-RPC error (unknown tool, invalid params, internal error). */
export class McpProtocolError extends StepFailedError {
  override readonly name = 'McpProtocolError';
  readonly noEffect = true;
  constructor(server: string, tool: string, code: number | undefined, message: string) {
    super(
      `MCP server "${server}" rejected the call to "${tool}"${code !== undefined ? ` (JSON-RPC ${code})` : ''}: ${message}`,
      {
        retryable: false,
        hint: "Check that the tool exists on the server and that its params match the tool's input schema.",
        details: { server, tool, ...(code !== undefined ? { code } : {}), error: message },
      },
    );
  }
}

/** The server could not be started or reached, or its connection died during the call. */
export class McpServerUnavailableError extends StepFailedError {
  override readonly name = 'McpServerUnavailableError';
  /** True when the request never reached the server (it could not be started or reached): the tool did not act. */
  readonly noEffect: boolean;
  constructor(
    server: string,
    what: string,
    message: string,
    options: { retryable: boolean; noEffect?: boolean; details?: Record<string, unknown>; cause?: unknown },
  ) {
    super(`MCP server "${server}" is unavailable (${what}): ${message}`, {
      retryable: options.retryable,
      hint: 'Check the server\'s "command"/"args" (or "url") in planner.config.json, and that it starts by hand.',
      details: { server, ...options.details },
      cause: options.cause,
    });
    this.noEffect = options.noEffect === true;
  }
}

/** The tool's result is larger than `max_result_bytes`: retrying gives the same result, so it is permanent. */
export class McpResultTooLargeError extends StepFailedError {
  override readonly name = 'McpResultTooLargeError';
  constructor(server: string, tool: string, bytes: number, max: number) {
    super(`MCP tool "${tool}" of server "${server}" returned ${bytes} bytes, over the limit of ${max} bytes`, {
      retryable: false,
      hint: 'Ask for less (a narrower query, a page, a limit), or raise "max_result_bytes" for this server in planner.config.json.',
      details: { server, tool, bytes, max_bytes: max },
    });
  }
}
