/**
 * The Streamable HTTP transport: an MCP server made with the SDK, served over HTTP on 127.0.0.1 (stateless, one
 * transport per request), becomes a pack through `{ url, headers }`; the headers reach the server; structured and
 * JSON-text results map to step data; a tool error and an unknown tool are typed step failures.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import {
  createMcpPack,
  McpProtocolError,
  McpServerUnavailableError,
  McpToolError,
  type McpPack,
} from '../../src/tools/mcp';

let http: Server;
let url: string;
let pack: McpPack | undefined;
const seenAuth: (string | undefined)[] = [];

function mcpServer(): McpServer {
  const server = new McpServer({ name: 'http-test', version: '1.0.0' });
  server.registerTool(
    'get_shipments',
    {
      description: 'Shipments as JSON text',
      inputSchema: { limit: z.number().int() },
      annotations: { readOnlyHint: true },
    },
    async ({ limit }) => ({
      content: [{ type: 'text', text: JSON.stringify(Array.from({ length: limit }, (_, i) => ({ id: `s${i}` }))) }],
    }),
  );
  server.registerTool('fail', { description: 'Always fails', inputSchema: {} }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'boom' }],
  }));
  return server;
}

beforeAll(async () => {
  http = createServer((req, res) => {
    seenAuth.push(req.headers.authorization);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = mcpServer();
    res.on('close', () => void transport.close().then(() => server.close()));
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await pack?.close();
  await new Promise((resolve) => http.close(resolve));
});

test('a Streamable HTTP server becomes a pack; calls map results and errors', async () => {
  pack = await createMcpPack('remote', { url, headers: { Authorization: 'Bearer t0ken' } });
  expect(pack.tools.map((t) => [t.spec.name, t.spec.idempotent, t.spec.task_queue])).toEqual([
    ['get_shipments', true, 'durable-planner-tools-mcp-remote'],
    ['fail', false, 'durable-planner-tools-mcp-remote'],
  ]);
  expect(seenAuth.every((a) => a === 'Bearer t0ken')).toBe(true);

  expect(await pack.connection.callTool('get_shipments', { limit: 2 })).toEqual([{ id: 's0' }, { id: 's1' }]);
  await expect(pack.connection.callTool('fail', {})).rejects.toBeInstanceOf(McpToolError);
  const unknown = await pack.connection.callTool('nope', {}).catch((e: unknown) => e);
  // Newer SDK servers answer an unknown tool with isError; older ones with a JSON-RPC error. Both are typed.
  expect(unknown instanceof McpToolError || unknown instanceof McpProtocolError).toBe(true);
  expect((unknown as Error).message).toMatch(/nope/);
});

test('a URL where no server listens is a clear typed error', async () => {
  const err = await createMcpPack('nowhere', { url: 'http://127.0.0.1:9/mcp', headers: {} }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(McpServerUnavailableError);
  expect((err as Error).message).toMatch(/MCP server "nowhere" is unavailable \(cannot connect\)/);
});
