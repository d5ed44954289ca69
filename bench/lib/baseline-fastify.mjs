/**
 * The `--baseline fastify` baseline: the same fixed answer as baseline-server.mjs, from a bare
 * Fastify (the framework algodesk is built on) with no plugin, hook, logger or schema. Its JSON
 * body parser is Fastify's default, the one algodesk uses. Measured against it, a ratio shows
 * what algodesk adds above its framework, where against the `node:http` baseline it shows what
 * the framework and algodesk together add. Plain JavaScript, started with `node` (no tsx).
 *
 * Usage: node baseline-fastify.mjs <spec.json> (the spec of baseline-server.mjs). Listens on
 * 127.0.0.1 only and prints "baseline is running at http://127.0.0.1:<port>" on stderr.
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const specFile = process.argv[2];
if (specFile === undefined) {
  process.stderr.write('usage: node baseline-fastify.mjs <spec.json>\n');
  process.exit(1);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
const answer = Buffer.from(spec.body, 'utf8');

const app = Fastify({ logger: false });
for (const url of spec.paths)
  app.route({
    method: spec.method,
    url,
    handler: (_req, reply) => {
      reply.code(spec.status).header('content-type', spec.contentType).send(answer);
    },
  });
await app.listen({ port: spec.port, host: '127.0.0.1' });
process.stderr.write(`baseline is running at http://127.0.0.1:${spec.port}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
