/**
 * The error table (platform/errors.ts): each code is answered with the status of its row, and
 * errors are built by the rows' factories only, so the status of a code is chosen in one place.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from './errors.js';
import { AppError, brokerHttpError, ERRORS, type ErrorKind } from './errors.js';

const SRC = join(import.meta.dirname, '..');
const SELF = relative(SRC, import.meta.filename);

/** Codes answered with a second status, each where a rule says so (their own rows). */
const SECOND_STATUS: Record<string, number[]> = {
  // docs/rules/auth.md#consent-needs-fresh-code: 403 when the session's code is not fresh.
  totp_required: [400, 403],
  // The login step (POST /auth/login/totp) is not authenticated yet: 401.
  invalid_totp: [400, 401],
  totp_replayed: [400, 401],
  // The mailed link opened (GET /auth/reset-password-email/:token) names nothing: 404, as its page.
  invalid_reset_token: [400, 404],
};

const kinds = Object.keys(ERRORS) as ErrorKind[];

describe('errors are built by the factories of the table', () => {
  it('no source file outside platform/errors.ts constructs an AppError itself', () => {
    const call = /\bnew\s+AppError\s*\(/g;
    const found: string[] = [];
    for (const file of readdirSync(SRC, { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file === SELF || file === join('platform', 'errors.ts')) continue;
      const text = readFileSync(join(SRC, file), 'utf8');
      for (const m of text.matchAll(call))
        found.push(`src/${file}:${text.slice(0, m.index).split('\n').length}`);
    }
    expect(found, 'use the factory of the code (platform/errors.ts), not a status of your own').toEqual([]);
  });

  it('every row has a factory of its name that answers with its status and code', () => {
    const factories = errors as unknown as Record<string, (message?: string) => AppError>;
    for (const kind of kinds) {
      expect(typeof factories[kind], kind).toBe('function');
      const e = factories[kind]!('why');
      expect(e, kind).toBeInstanceOf(AppError);
      expect({ status: e.statusCode, code: e.code, message: e.message }, kind).toEqual({
        status: ERRORS[kind].status,
        code: ERRORS[kind].code,
        message: 'why',
      });
    }
  });

  it('every status is an error status', () => {
    for (const kind of kinds) {
      expect(ERRORS[kind].status, kind).toBeGreaterThanOrEqual(400);
      expect(ERRORS[kind].status, kind).toBeLessThan(600);
    }
  });
});

describe('a code has one status, but where a rule gives it a second', () => {
  it('lists the codes answered with two statuses', () => {
    const statuses = new Map<string, Set<number>>();
    for (const kind of kinds) {
      const { code, status } = ERRORS[kind];
      statuses.set(code, (statuses.get(code) ?? new Set()).add(status));
    }
    const several = Object.fromEntries(
      [...statuses].filter(([, s]) => s.size > 1).map(([code, s]) => [code, [...s].sort()]),
    );
    expect(several).toEqual(SECOND_STATUS);
  });

  it('names each code in one row of its own (the row of the code whose factory is its name)', () => {
    const camel = (code: string) => code.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
    const own = new Set(kinds.filter((kind) => camel(ERRORS[kind].code) === kind).map((k) => ERRORS[k].code));
    const codes = new Set(kinds.map((kind) => ERRORS[kind].code));
    // rate_limited's factory keeps its older name, tooManyRequests.
    expect([...codes].filter((code) => !own.has(code))).toEqual(['rate_limited']);
  });
});

describe("a broker's HTTP error keeps its status (docs/rules/market-data.md#broker-failures)", () => {
  it.each([
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
    [429, 'rate_limited'],
    [400, 'bad_request'],
    [422, 'bad_request'],
    [500, 'broker_unreachable'],
    [503, 'broker_unreachable'],
  ])('%i is answered with its status and the code %s', (status, code) => {
    const e = brokerHttpError(status, 'upstream said no');
    expect({ status: e.statusCode, code: e.code, message: e.message }).toEqual({
      status,
      code,
      message: 'upstream said no',
    });
  });
});
