import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, warnCaptureOf } from '../../platform/logger.js';
import {
  cleanBlock,
  cleanLine,
  cleanUrl,
  entryFromClientReport,
  entryFromLogLine,
  fingerprint,
  normaliseMessage,
} from './error-record.js';
import { capBytes, flatten, reportFileName } from '../system/report.js';
import { gitCommit, parseOsRelease } from '../system/host-info.js';
import { safeUrl } from '../../platform/safe-url.js';

describe('fingerprint normalisation', () => {
  it('replaces numbers, hex ids, UUIDs, request ids and timestamps', () => {
    expect(normaliseMessage('order 12345 failed after 2.5 s')).toBe('order <n> failed after <n> s');
    expect(normaliseMessage('session 0x1f3a gone')).toBe('session <hex> gone');
    expect(normaliseMessage('digest 9f86d081884c7d65 unknown')).toBe('digest <hex> unknown');
    expect(normaliseMessage('run 3f2504e0-4f89-11d3-9a0c-0305e82c3301 stopped')).toBe('run <id> stopped');
    expect(normaliseMessage('request a1b2c3d4-1f failed')).toBe('request <id> failed');
    expect(normaliseMessage('at 2026-01-05T09:16:00.123Z and 2026-01-05 09:16:00+05:30')).toBe(
      'at <ts> and <ts>',
    );
    expect(normaliseMessage('tick at 09:16:00 late')).toBe('tick at <ts> late');
    expect(normaliseMessage('on 2026-01-05')).toBe('on <ts>');
  });
  it('keeps words, including hex-looking words without digits', () => {
    expect(normaliseMessage('deadbeef cafe feed')).toBe('deadbeef cafe feed');
    expect(normaliseMessage('  broker   timeout  ')).toBe('broker timeout');
  });
  it('gives repeats of one problem one fingerprint and different problems different ones', () => {
    const a = fingerprint('error', 'orders', 'order 17 failed: HTTP 502 at 2026-01-05T09:16:00Z');
    const b = fingerprint('error', 'orders', 'order 90210 failed: HTTP 503 at 2026-01-06T10:00:01Z');
    expect(a).toBe(b);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(fingerprint('warn', 'orders', 'order 17 failed: HTTP 502')).not.toBe(
      fingerprint('error', 'orders', 'order 17 failed: HTTP 502'),
    );
    expect(fingerprint('error', 'sandbox', 'x 1')).not.toBe(fingerprint('error', 'orders', 'x 1'));
    expect(fingerprint('error', null, 'order failed')).not.toBe(fingerprint('error', null, 'order placed'));
  });
});

describe('cleaning browser input', () => {
  it('strips control characters and bidi overrides; lines lose newlines, blocks keep them', () => {
    expect(cleanLine('a\u0000b\u001b[31mc\nd\u202Ee\u0085', 100)).toBe('a b [31mc d e');
    expect(cleanBlock('at x\r\n\tat y\u0007\u0000', 100)).toBe('at x\n\tat y');
  });
  it('caps lengths and marks the cut', () => {
    const s = cleanLine('x'.repeat(5000), 2000);
    expect(s).toHaveLength(2000);
    expect(s.endsWith('[truncated]')).toBe(true);
  });
  it('drops query strings and fragments of page URLs and masks tokens in paths', () => {
    expect(cleanUrl('https://h.example/orders?apikey=SECRET#x')).toBe('https://h.example/orders');
    expect(cleanUrl('https://h.example/auth/reset-password-email/TOKEN123')).toBe(
      'https://h.example/auth/reset-password-email/[redacted]',
    );
    expect(cleanUrl('/strategy/webhook/TOK?x=1')).toBe('/strategy/webhook/[redacted]');
  });
  it('refuses a message that is only control characters', () => {
    expect(entryFromClientReport({ message: '\u0000\u0001\n' }, 0, 1)).toBeUndefined();
    const e = entryFromClientReport({ message: 'boom', level: 'warning', user_agent: 'UA\u0000' }, 5, 1)!;
    expect(e).toMatchObject({
      level: 'warn',
      origin: 'client',
      message: 'boom',
      user_agent: 'UA',
      created_at: 5,
    });
  });
});

describe('server records from the log', () => {
  it('parses a pino line: level, module, message, exception, stack, request', () => {
    const line = JSON.stringify({
      level: 50,
      time: '2026-01-05T04:00:00.000Z',
      svc: 'algodesk',
      reqId: 'abcd1234-2',
      method: 'GET',
      url: '/a',
      module: 'orders',
      err: { type: 'TypeError', message: 'x is undefined', stack: 'TypeError: x\n    at f (a.js:1:1)' },
      password: '[redacted]',
      msg: 'unhandled error',
    });
    const e = entryFromLogLine(line, 7)!;
    expect(e).toMatchObject({
      created_at: 7,
      level: 'error',
      origin: 'server',
      module: 'orders',
      message: 'unhandled error',
      exception: 'TypeError: x is undefined',
      stack: 'TypeError: x\n    at f (a.js:1:1)',
      request_id: 'abcd1234-2',
      method: 'GET',
      path: '/a',
    });
    expect(JSON.parse(e.context!)).toEqual({ password: '[redacted]' });
  });
  it('ignores lines below warn and lines that are not JSON', () => {
    expect(entryFromLogLine('{"level":30,"msg":"x"}', 0)).toBeUndefined();
    expect(entryFromLogLine('not json', 0)).toBeUndefined();
  });
});

describe('the logger tee', () => {
  const sink = () => {
    const lines: string[] = [];
    return { lines, stream: new Writable({ write: (c, _e, cb) => (lines.push(String(c)), cb()) }) };
  };
  it('hands warn-and-above lines, redacted as written, to the capture (early lines too)', () => {
    const out = sink();
    const log = createLogger('info', out.stream);
    log.warn({ password: 'PW-1' }, 'early');
    log.info('not captured');
    const got: string[] = [];
    warnCaptureOf(log)!.attach((l) => got.push(l));
    log.error({ token: 'TK-2' }, 'later');
    expect(got).toHaveLength(2);
    expect(got.join('')).not.toMatch(/PW-1|TK-2/);
    expect(got[1]).toBe(out.lines[2]); // the very line the log received
  });
  it('captures warnings even when the log level is stricter, without writing them to the log', () => {
    const out = sink();
    const log = createLogger('error', out.stream);
    const got: string[] = [];
    warnCaptureOf(log)!.attach((l) => got.push(l));
    log.warn('w');
    log.info('i');
    expect(got).toHaveLength(1);
    expect(out.lines).toHaveLength(0);
  });
});

describe('report and snapshot helpers', () => {
  it('names the report file by its time', () => {
    expect(reportFileName(Date.UTC(2026, 0, 5, 4, 0, 7, 123), 'md')).toBe(
      'algodesk-report-20260105T040007Z.md',
    );
  });
  it('caps the report on a character boundary', () => {
    const s = capBytes('€'.repeat(1000), 1000);
    expect(Buffer.byteLength(s)).toBeLessThanOrEqual(1000);
    expect(s).toContain('[report truncated');
    expect(s).not.toContain('\uFFFD');
  });
  it('closes a Markdown stack block the cut left open, so the note is not inside it', () => {
    const md = ['- error', '', '  ```', ...Array.from({ length: 200 }, () => '  at frame'), '  ```'].join(
      '\n',
    );
    const s = capBytes(md, 2048, 'md');
    expect(Buffer.byteLength(s)).toBeLessThanOrEqual(2048);
    expect(s.endsWith('  ```\n\n[report truncated at 2 KiB]\n')).toBe(true);
    expect(capBytes(md, 2048, 'txt')).not.toMatch(/```\n\n\[report/);
  });
  it('flattens sections', () => {
    expect(flatten({ a: { b: 1, c: [{ d: null }] } })).toEqual([
      ['a.b', '1'],
      ['a.c.0.d', '—'],
    ]);
  });
  it('shows URLs without credentials or query', () => {
    expect(safeUrl('postgres://u:PW@db.example:5432/algo?sslmode=require', false)).toBe(
      'postgres://db.example:5432',
    );
    expect(safeUrl('https://u:PW@h.example/base?q=1')).toBe('https://h.example/base');
    expect(safeUrl(undefined)).toBeNull();
  });
  it('reads the distribution name and a git commit without running git', async () => {
    expect(parseOsRelease('NAME="Debian"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n')).toBe(
      'Debian GNU/Linux 12 (bookworm)',
    );
    expect(parseOsRelease(undefined)).toBeNull();
    const { mkdtempSync, writeFileSync, mkdirSync } = await import('node:fs');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join((await import('node:os')).tmpdir(), 'git-'));
    mkdirSync(join(dir, 'refs/heads'), { recursive: true });
    writeFileSync(join(dir, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(dir, 'packed-refs'), `${'a'.repeat(40)} refs/heads/main\n`);
    expect(await gitCommit(dir)).toBe('a'.repeat(40));
    writeFileSync(join(dir, 'refs/heads/main'), `${'b'.repeat(40)}\n`);
    expect(await gitCommit(dir)).toBe('b'.repeat(40));
  });
});
