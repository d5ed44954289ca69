/**
 * `GET /admin/api/system/report?format=md|txt`: the snapshot, the error summary, the top error
 * groups and the last errors as one file an operator can attach to a support request. Built
 * only from the snapshot (which holds no secret values) and the error log (redacted as the logs
 * are); capped at {@link REPORT_MAX_BYTES}.
 */
import type { ErrorGroup, ErrorLogView, ErrorStats } from '../observability/error-log.service.js';
import type { SystemSnapshot } from './system-snapshot.js';

export type ReportFormat = 'md' | 'txt';

/** Largest report (UTF-8 bytes); the rest is cut with a note. */
export const REPORT_MAX_BYTES = 256 * 1024;
/** Last errors and groups rendered, and stack lines kept per error. */
export const REPORT_LAST_ERRORS = 25;
export const REPORT_GROUPS = 10;
const STACK_LINES = 12;

export interface ReportInput {
  generatedAt: number;
  snapshot: SystemSnapshot;
  stats: ErrorStats;
  groups: ErrorGroup[];
  errors: ErrorLogView[];
}

/** `algodesk-report-20260105T040000Z.md`: the generation time, sortable, safe in any file system. */
export function reportFileName(at: number, format: ReportFormat): string {
  const stamp = new Date(at)
    .toISOString()
    .replace(/\.\d+Z$/, 'Z')
    .replace(/[-:]/g, '');
  return `algodesk-report-${stamp}.${format}`;
}

/** Flattens a section into `key.sub: value` lines (arrays of objects by index). */
export function flatten(value: unknown, prefix = ''): [string, string][] {
  if (value === null || typeof value !== 'object') return [[prefix, value === null ? '—' : String(value)]];
  const out: [string, string][] = [];
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
  if (entries.length === 0) return [[prefix, Array.isArray(value) ? '(none)' : '{}']];
  for (const [k, v] of entries) out.push(...flatten(v, prefix ? `${prefix}.${k}` : k));
  return out;
}

const SECTIONS = ['host', 'runtime', 'hardware', 'build', 'config', 'brokers', 'databases', 'time'] as const;

/** Markdown table cell: pipes escaped, one line. */
const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

const stackHead = (stack: string | null) =>
  stack ? stack.split('\n').slice(0, STACK_LINES).join('\n') : null;

function errorLines(e: ErrorLogView): string[] {
  const where = [
    e.module,
    e.request.method && e.request.path ? `${e.request.method} ${e.request.path}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
  return [
    `${e.time}  ${e.level.toUpperCase()}  [${e.origin}]${where ? `  ${where}` : ''}`,
    `  ${e.message}`,
    ...(e.exception ? [`  ${e.exception}`] : []),
    ...(e.request.id ? [`  request id: ${e.request.id}`] : []),
    ...(e.url ? [`  page: ${e.url}`] : []),
  ];
}

function renderMarkdown(r: ReportInput): string {
  const out: string[] = [
    '# algodesk system report',
    '',
    `Generated ${new Date(r.generatedAt).toISOString()} (${r.snapshot.time.ist}). Mode: **${r.snapshot.mode}**.`,
    '',
  ];
  for (const name of SECTIONS) {
    out.push(`## ${name}`, '', '| key | value |', '|---|---|');
    for (const [k, v] of flatten(r.snapshot[name])) out.push(`| ${cell(k)} | ${cell(v)} |`);
    out.push('');
  }
  const s = r.stats;
  out.push(
    '## error summary',
    '',
    `Total ${s.total} (fatal ${s.by_level.fatal}, error ${s.by_level.error}, warn ${s.by_level.warn}; ` +
      `server ${s.by_origin.server}, client ${s.by_origin.client}). Last hour ${s.last_hour}, last 24 h ${s.last_24h}. ` +
      `Dropped ${s.dropped}.`,
    '',
    '## top error groups',
    '',
  );
  if (r.groups.length === 0) out.push('(none)');
  else {
    out.push('| count | level | module | last seen | message |', '|---|---|---|---|---|');
    for (const g of r.groups)
      out.push(
        `| ${g.count} | ${g.level} | ${cell(g.module ?? '—')} | ${g.last_seen} | ${cell(g.pattern)} |`,
      );
  }
  out.push('', `## last ${r.errors.length} errors`, '');
  if (r.errors.length === 0) out.push('(none)');
  for (const e of r.errors) {
    out.push(...errorLines(e).map((l, i) => (i === 0 ? `- ${l.trim()}` : `  ${l.trim()}`)));
    const stack = stackHead(e.stack);
    if (stack) out.push('', '  ```', ...stack.split('\n').map((l) => `  ${l.replace(/`/g, "'")}`), '  ```');
    out.push('');
  }
  return out.join('\n');
}

function renderText(r: ReportInput): string {
  const out: string[] = [
    'ALGODESK SYSTEM REPORT',
    `generated: ${new Date(r.generatedAt).toISOString()} (${r.snapshot.time.ist})`,
    `mode: ${r.snapshot.mode}`,
    '',
  ];
  for (const name of SECTIONS) {
    out.push(`[${name}]`);
    for (const [k, v] of flatten(r.snapshot[name])) out.push(`${k} = ${v}`);
    out.push('');
  }
  const s = r.stats;
  out.push(
    '[errors]',
    `total = ${s.total}`,
    `fatal = ${s.by_level.fatal}`,
    `error = ${s.by_level.error}`,
    `warn = ${s.by_level.warn}`,
    `server = ${s.by_origin.server}`,
    `client = ${s.by_origin.client}`,
    `last_hour = ${s.last_hour}`,
    `last_24h = ${s.last_24h}`,
    `dropped = ${s.dropped}`,
    '',
    '[top error groups]',
  );
  if (r.groups.length === 0) out.push('(none)');
  for (const g of r.groups)
    out.push(`${g.count}x ${g.level} ${g.module ?? '-'}: ${g.pattern} (last ${g.last_seen})`);
  out.push('', `[last ${r.errors.length} errors]`);
  if (r.errors.length === 0) out.push('(none)');
  for (const e of r.errors) {
    out.push(...errorLines(e));
    const stack = stackHead(e.stack);
    if (stack) out.push(...stack.split('\n').map((l) => `    ${l}`));
    out.push('');
  }
  return out.join('\n');
}

/** The opening and closing line of a stack block in the Markdown report. */
const FENCE = '  ```';

/**
 * Cuts `text` to at most `max` UTF-8 bytes (on a character boundary), ending with a visible
 * note. Per-field caps (message and exception 2,000 characters, stack 16,000, path 2,048) still
 * let 25 errors exceed the report's cap several times over, so this cut is what bounds the file.
 * In Markdown a stack block left open by the cut is closed first, so the note renders as text.
 */
export function capBytes(text: string, max: number, format: ReportFormat = 'txt'): string {
  if (Buffer.byteLength(text) <= max) return text;
  const note = `\n\n[report truncated at ${Math.round(max / 1024)} KiB]\n`;
  const reserve = Buffer.byteLength(note) + (format === 'md' ? FENCE.length + 1 : 0);
  let cut = Buffer.from(text)
    .subarray(0, max - reserve)
    .toString('utf8');
  if (cut.endsWith('\uFFFD')) cut = cut.slice(0, -1);
  if (format === 'md' && cut.split('\n').filter((l) => l === FENCE).length % 2 === 1) cut += `\n${FENCE}`;
  return cut + note;
}

export function renderReport(r: ReportInput, format: ReportFormat, maxBytes = REPORT_MAX_BYTES): string {
  return capBytes(format === 'md' ? renderMarkdown(r) : renderText(r), maxBytes, format);
}
