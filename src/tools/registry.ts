/**
 * Tool catalogs by name: what `PlanningRequest.tool_catalog` refers to. Built-in packs register here; MCP servers
 * add theirs at worker start.
 */
import { CatalogUnavailableError } from '../domain/errors';
import type { ClarificationLexicon } from '../domain/requirements';
import type { ToolRoute } from '../domain/routing';
import type { ToolSpec } from '../domain/tool-spec';
import { WASTE_CATALOG, WASTE_CLARIFICATIONS } from './waste/catalog';

export const DEFAULT_CATALOG = 'waste';

export class ToolCatalogs {
  private readonly catalogs = new Map<string, ToolSpec[]>();
  private readonly lexicons = new Map<string, ClarificationLexicon>();
  private readonly unavailable = new Map<string, { message: string; hint: string }>();

  /** `clarifications`: the pack's vague words and the options to offer for them (see ClarificationLexicon). */
  register(name: string, tools: ToolSpec[], clarifications: ClarificationLexicon = {}): this {
    this.catalogs.set(name, tools);
    this.lexicons.set(name, clarifications);
    this.unavailable.delete(name);
    return this;
  }

  /**
   * A catalog this worker knows but cannot serve now (its MCP server did not start): runs that name it get a
   * retryable CatalogUnavailableError, while every other catalog keeps serving.
   */
  markUnavailable(name: string, reason: { message: string; hint: string }): this {
    this.catalogs.delete(name);
    this.unavailable.set(name, reason);
    return this;
  }

  /** The clarification lexicon registered with a catalog; none for an unknown name. */
  clarifications(name: string): ClarificationLexicon {
    return this.lexicons.get(name) ?? {};
  }

  /** Routing facts for the named tools of a catalog; unknown names are left out (validation reports them). */
  routes(catalog: string, tools: readonly string[]): Record<string, ToolRoute> {
    const specs = this.get(catalog).filter((t) => tools.includes(t.name));
    return Object.fromEntries(
      specs.map((t) => [
        t.name,
        {
          queues: [t.task_queue],
          cost_per_call_usd: t.cost_per_call_usd,
          tokens_per_call: t.tokens_per_call,
          idempotent: t.idempotent,
        },
      ]),
    );
  }

  names(): string[] {
    return [...this.catalogs.keys()].sort();
  }

  get(name: string): ToolSpec[] {
    const tools = this.catalogs.get(name);
    if (!tools) {
      const down = this.unavailable.get(name);
      if (down)
        throw new CatalogUnavailableError(`tool catalog "${name}" is unavailable: ${down.message}`, down.hint, {
          catalog: name,
        });
      // Retryable: workers with different configs may share the planner queue; another one may serve the catalog.
      throw new CatalogUnavailableError(
        `unknown tool catalog "${name}"`,
        `Use one of: ${this.names().join(', ') || '(none registered)'}, or start a worker that serves "${name}".`,
        { catalog: name, known: this.names() },
      );
    }
    return tools;
  }
}

export function builtInCatalogs(): ToolCatalogs {
  return new ToolCatalogs().register(DEFAULT_CATALOG, WASTE_CATALOG, WASTE_CLARIFICATIONS);
}
