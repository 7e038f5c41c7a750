/**
 * Tool catalogs by name: what `PlanningRequest.tool_catalog` refers to. Built-in packs register here; MCP servers
 * add theirs at worker start.
 */
import { InvalidInputError } from '../domain/errors';
import type { ToolSpec } from '../domain/tool-spec';
import { WASTE_CATALOG } from './waste/catalog';

export const DEFAULT_CATALOG = 'waste';

export class ToolCatalogs {
  private readonly catalogs = new Map<string, ToolSpec[]>();

  register(name: string, tools: ToolSpec[]): this {
    this.catalogs.set(name, tools);
    return this;
  }

  names(): string[] {
    return [...this.catalogs.keys()].sort();
  }

  get(name: string): ToolSpec[] {
    const tools = this.catalogs.get(name);
    if (!tools) {
      throw new InvalidInputError(`unknown tool catalog "${name}"`, `Use one of: ${this.names().join(', ') || '(none registered)'}.`);
    }
    return tools;
  }
}

export function builtInCatalogs(): ToolCatalogs {
  return new ToolCatalogs().register(DEFAULT_CATALOG, WASTE_CATALOG);
}
