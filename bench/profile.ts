/**
 * Where a server's time went: `tsx bench/profile.ts <file.cpuprofile> [--skip <s>] [--top <n>]
 * [--callers <text>] [--inclusive]`, for the profiles `BENCH_SERVER_NODE_ARGS="--cpu-prof
 * --cpu-prof-dir=…"` writes (bench/README.md, "Profiling a bench"). Prints the busy time (idle
 * samples left out), the self time by package or source file, then by function; `--skip` drops
 * the first seconds (start-up, set-up, the baseline's first rounds); `--callers` prints the call
 * paths that lead to the functions whose name or location holds the text; `--inclusive` prints
 * the time spent in each of the service's own functions and below them.
 *
 * Where its memory went, the same way: a `.heapprofile` that lib/alloc-profile.mjs writes (bytes
 * allocated by each function, those the GC has collected since included) in place of the CPU
 * profile; `--skip` does not apply to it.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}
/** A sampling heap profile: a tree of frames, each with the bytes sampled in it. */
interface HeapNode {
  id: number;
  callFrame: ProfileNode['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    skip: { type: 'string', default: '0' },
    top: { type: 'string', default: '30' },
    callers: { type: 'string' },
    depth: { type: 'string', default: '8' },
    inclusive: { type: 'boolean', default: false },
  },
});
// Piped into `head`: a closed stdout ends the run quietly.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});
const file = positionals[0];
if (file === undefined) {
  process.stderr.write(
    'usage: tsx bench/profile.ts <file.cpuprofile|file.heapprofile> [--skip <s>] [--top <n>] [--callers <text> [--depth <n>]] [--inclusive]\n',
  );
  process.exit(1);
}
const parsed = JSON.parse(readFileSync(file, 'utf8')) as Profile | { head: HeapNode };
const heap = 'head' in parsed;
const top = Number(values.top);
const skipUs = Number(values.skip) * 1e6;

/** A heap profile's tree as a CPU profile's flat nodes, with each node's bytes. */
function flatten(head: HeapNode): { nodes: ProfileNode[]; bytes: Map<number, number> } {
  const nodes: ProfileNode[] = [];
  const bytes = new Map<number, number>();
  const stack = [head];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    nodes.push({ id: n.id, callFrame: n.callFrame, children: n.children.map((c) => c.id) });
    if (n.selfSize > 0) bytes.set(n.id, n.selfSize);
    stack.push(...n.children);
  }
  return { nodes, bytes };
}
const flat = heap ? flatten(parsed.head) : undefined;
const nodes = flat?.nodes ?? (parsed as Profile).nodes;
const byId = new Map(nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);

/** `node_modules/<package>`, `node:<module>`, `src/<area>/<file>` or the native marker. */
function origin(url: string): string {
  if (url === '') return '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  const src = /dist\/(src\/.*)$/.exec(url);
  return src ? src[1]! : url;
}
function label(n: ProfileNode): string {
  const { functionName, url, lineNumber } = n.callFrame;
  return `${functionName || '(anonymous)'} ${origin(url)}:${lineNumber + 1}`;
}

/** Per node, its own weight: µs busy in a CPU profile, bytes in a heap profile. */
let selfById = new Map<number, number>();
let busy = 0;
let idle = 0;
if (flat) {
  selfById = flat.bytes;
  for (const b of selfById.values()) busy += b;
} else {
  const profile = parsed as Profile;
  let elapsed = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0;
    elapsed += dt;
    if (elapsed < skipUs) continue;
    const id = profile.samples[i]!;
    if (byId.get(id)!.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    busy += dt;
    selfById.set(id, (selfById.get(id) ?? 0) + dt);
  }
}

const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)}%`;
function print(title: string, totals: Map<string, number>): void {
  console.log(`-- ${title}`);
  for (const [k, t] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(t)}  ${k}`);
}
function add(m: Map<string, number>, k: string, t: number): void {
  m.set(k, (m.get(k) ?? 0) + t);
}

const what = heap ? 'allocated' : 'time';
console.log(
  heap
    ? `allocated ${(busy / 2 ** 20).toFixed(1)} MB (sampled)`
    : `busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms (after ${values.skip} s)`,
);
/** The labels of a node and its callers, innermost first. */
function chainOf(id: number): string[] {
  const chain: string[] = [];
  for (let cur: number | undefined = id; cur !== undefined; cur = parentOf.get(cur))
    chain.push(label(byId.get(cur)!));
  return chain;
}
if (values.inclusive) {
  // Each of the service's functions counted once per sample, however deep it recurses.
  const inclusive = new Map<string, number>();
  for (const [id, t] of selfById)
    for (const l of new Set(chainOf(id).filter((c) => / src\//.test(c)))) add(inclusive, l, t);
  print(`${what} in and below each of the service's functions`, inclusive);
} else if (values.callers !== undefined) {
  const needle = values.callers;
  const paths = new Map<string, number>();
  for (const [id, t] of selfById) {
    const chain = chainOf(id);
    const at = chain.findIndex((l) => l.includes(needle));
    if (at >= 0) add(paths, chain.slice(at, at + Number(values.depth)).join('\n        <- '), t);
  }
  print(`call paths into "${needle}"`, paths);
} else {
  const byOrigin = new Map<string, number>();
  const byFunction = new Map<string, number>();
  for (const [id, t] of selfById) {
    const n = byId.get(id)!;
    add(byOrigin, origin(n.callFrame.url), t);
    add(byFunction, label(n), t);
  }
  print(`self ${what} by origin`, byOrigin);
  print(`self ${what} by function`, byFunction);
}
