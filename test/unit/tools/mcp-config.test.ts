import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { InvalidInputError } from '../../../src/domain/errors';
import {
  isStdioServer,
  loadPlannerConfig,
  parsePlannerConfig,
  parsePlannerConfigText,
} from '../../../src/tools/mcp/config';

describe('planner.config.json', () => {
  test("parses stdio and Streamable HTTP servers in Claude Desktop's format, with defaults", () => {
    const config = parsePlannerConfig({
      mcpServers: {
        files: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'],
          env: { DEBUG: '1' },
          cwd: '/srv',
        },
        bare: { command: 'my-server' },
        search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer x' }, timeout_ms: 5000 },
      },
    });
    expect(config.mcpServers.files).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/data'],
      env: { DEBUG: '1' },
      cwd: '/srv',
    });
    expect(config.mcpServers.bare).toEqual({ command: 'my-server', args: [], env: {} });
    expect(config.mcpServers.search).toEqual({
      url: 'https://mcp.example.com/mcp',
      headers: { Authorization: 'Bearer x' },
      timeout_ms: 5000,
    });
    expect(isStdioServer(config.mcpServers.files!)).toBe(true);
    expect(isStdioServer(config.mcpServers.search!)).toBe(false);
  });

  test('no mcpServers means none', () => {
    expect(parsePlannerConfig({})).toEqual({ mcpServers: {} });
  });

  test.each([
    ['a server with neither command nor url', { mcpServers: { x: {} } }, /mcpServers\.x/],
    ['a non-http url', { mcpServers: { x: { url: 'ftp://host/mcp' } } }, /mcpServers\.x/],
    ['args that are not strings', { mcpServers: { x: { command: 'a', args: [1] } } }, /mcpServers\.x/],
    ['both command and url', { mcpServers: { x: { command: 'a', url: 'https://h/mcp' } } }, /mcpServers\.x/],
    ['a bad server name', { mcpServers: { 'bad name!': { command: 'a' } } }, /server names/],
    ['mcpServers not an object', { mcpServers: [] }, /mcpServers/],
  ])('%s → InvalidInputError with a hint', (_what, value, message) => {
    const err = (() => {
      try {
        parsePlannerConfig(value);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(err).toMatchObject({ code: 'PLAN-006', hint: expect.stringContaining('"mcpServers"') });
    expect((err as Error).message).toMatch(message);
  });

  test('text that is not JSON → InvalidInputError', () => {
    expect(() => parsePlannerConfigText('{ mcpServers: ', 'x.json')).toThrow(/x.json is not valid JSON/);
  });

  test('a missing file is no servers unless it is required; a present file is parsed', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cfg-'));
    const file = path.join(dir, 'planner.config.json');
    expect(loadPlannerConfig(file)).toEqual({ mcpServers: {} });
    expect(() => loadPlannerConfig(file, { required: true })).toThrow(InvalidInputError);
    writeFileSync(file, JSON.stringify({ mcpServers: { files: { command: 'node', args: ['server.js'] } } }));
    expect(loadPlannerConfig(file).mcpServers.files).toEqual({ command: 'node', args: ['server.js'], env: {} });
  });
});
