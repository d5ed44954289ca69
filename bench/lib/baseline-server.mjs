/**
 * The baseline of every bench: a bare `node:http` server doing the least any JSON endpoint must
 * do (read the body, JSON.parse it, send fixed JSON bytes), so that the ratio against it shows
 * what the service's own stack costs. Plain JavaScript, started with `node` (no tsx).
 *
 * Usage: node baseline-server.mjs <spec.json>, where the spec is
 * {"port", "method", "paths", "status", "contentType", "body"} (every path in `paths` answered
 * alike). Listens on 127.0.0.1 only and
 * prints "baseline is running at http://127.0.0.1:<port>" on stderr once it listens.
 */
import { Buffer } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const specFile = process.argv[2];
if (specFile === undefined) {
  process.stderr.write('usage: node baseline-server.mjs <spec.json>\n');
  process.exit(1);
}
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
const answer = Buffer.from(spec.body, 'utf8');
const paths = new Set(spec.paths);
const answerHeaders = { 'content-type': spec.contentType, 'content-length': answer.length };

const server = createServer((req, res) => {
  if (req.method !== spec.method || !paths.has(req.url)) {
    res.writeHead(404).end();
    return;
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      if (text.length > 0) JSON.parse(text);
    } catch {
      res.writeHead(400).end();
      return;
    }
    res.writeHead(spec.status, answerHeaders).end(answer);
  });
});

server.listen(spec.port, '127.0.0.1', () => {
  process.stderr.write(`baseline is running at http://127.0.0.1:${spec.port}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
