/**
 * The local agents' MCP server (docs/rules/mcp.md#mcp-local): `algodesk mcp` speaks MCP over
 * stdio to a desktop assistant on the same machine and forwards each tool call to the running
 * algodesk (`POST /mcp/local/call` with the user's API key), which runs and audits it. The
 * process holds no database and starts no jobs: a second algodesk beside the server would.
 */
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildMcpServer } from './mcp-server.js';

export interface StdioOptions {
  /** The running algodesk's base URL. */
  url: string;
  apikey: string;
  input: Readable;
  output: Writable;
  version: string;
}

/** Serves the tools over stdio until the input ends. */
export async function serveStdio(o: StdioOptions): Promise<void> {
  const endpoint = `${o.url.replace(/\/+$/, '')}/mcp/local/call`;
  const server = buildMcpServer({
    version: o.version,
    async call(tool, args) {
      let res: Response;
      try {
        res = await fetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apikey: o.apikey, tool, arguments: args }),
        });
      } catch (err) {
        return {
          status: 502,
          body: {
            status: 'error',
            message: `algodesk at ${o.url} cannot be reached (${(err as Error).message})`,
          },
        };
      }
      const body = (await res.json().catch(() => ({ status: 'error', message: `HTTP ${res.status}` }))) as {
        status?: string;
        http_status?: number;
        result?: unknown;
      };
      return res.ok && body.status === 'success'
        ? { status: body.http_status ?? 500, body: body.result }
        : { status: res.status, body };
    },
  });
  const done = new Promise<void>((resolve) => o.input.once('end', resolve));
  await server.connect(new StdioServerTransport(o.input, o.output));
  await done;
  await server.close();
}

/**
 * Reads the first line of `input` (the API key, `--apikey-stdin`) and gives back a stream of
 * everything after it (the MCP messages).
 */
export async function firstLine(input: Readable): Promise<{ line: string; rest: Readable }> {
  const rest = new PassThrough();
  let buffered = Buffer.alloc(0);
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const nl = buffered.indexOf(10);
      if (nl < 0) {
        if (buffered.length > 4096) fail(new Error('the first line of the input (the API key) is over 4 KB'));
        return;
      }
      input.off('data', onData);
      input.off('end', onEnd);
      const line = buffered.subarray(0, nl).toString('utf8').replace(/\r$/, '').trim();
      rest.write(buffered.subarray(nl + 1));
      input.pipe(rest);
      resolve({ line, rest });
    };
    const onEnd = () => fail(new Error('the input ended before the API key line'));
    const fail = (err: Error) => {
      input.off('data', onData);
      input.off('end', onEnd);
      reject(err);
    };
    input.on('data', onData);
    input.once('end', onEnd);
  });
}
