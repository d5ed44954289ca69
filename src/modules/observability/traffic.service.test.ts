import { describe, expect, it, vi } from 'vitest';
import { FakeClock } from '../../platform/clock.js';
import type { NewTrafficRow, TrafficRepository } from './traffic.repository.js';
import { endpointGroup, normaliseHost, TrafficLogService, trafficPath } from './traffic.service.js';

describe('endpointGroup', () => {
  it('is the route pattern, parameters kept as written', () => {
    expect(endpointGroup('POST', '/api/v1/ping', '/api/v1/ping')).toBe('/api/v1/ping');
    expect(endpointGroup('GET', '/security/api/data', '/security/api/data')).toBe('/security/api/data');
    expect(endpointGroup('GET', '/users/:id', '/users/42')).toBe('/users/:id');
  });

  it('never contains the token of a webhook route, whatever the client sent', () => {
    for (const path of ['/strategy/webhook/SECRETTOKEN123', '/strategy/webhook/[redacted]']) {
      const g = endpointGroup('POST', '/strategy/webhook/:token', path);
      expect(g).toBe('/strategy/webhook/:token');
      expect(g).not.toContain('SECRET');
    }
  });

  it('puts every unmatched request in one bucket, so client paths cannot grow the group list', () => {
    for (const path of ['/nothing', '/strategy/webhook/SECRETTOKEN123', '/' + 'a'.repeat(5000), ''])
      expect(endpointGroup('GET', undefined, path)).toBe('(unmatched)');
    expect(endpointGroup('GET', '', '/x')).toBe('(unmatched)');
  });

  it('is capped at 64 characters (the column width)', () => {
    const long = '/very' + '/long'.repeat(30);
    expect(endpointGroup('GET', long, long)).toHaveLength(64);
    expect(long.startsWith(endpointGroup('GET', long, long))).toBe(true);
  });
});

describe('normaliseHost', () => {
  it('lower-cases, drops the port and one trailing dot', () => {
    expect(normaliseHost('Example.COM')).toBe('example.com');
    expect(normaliseHost('example.com:8443')).toBe('example.com');
    expect(normaliseHost('example.com.')).toBe('example.com');
    expect(normaliseHost('example.com:')).toBe('example.com');
    expect(normaliseHost('localhost:80')).toBe('localhost');
    expect(normaliseHost('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(normaliseHost('a-b.c0.example')).toBe('a-b.c0.example');
  });

  it('accepts IPv4 and bracketed IPv6 (canonical form), with or without a port', () => {
    expect(normaliseHost('203.0.113.7:3000')).toBe('203.0.113.7');
    expect(normaliseHost('[2001:DB8:0:0::1]:443')).toBe('[2001:db8::1]');
    expect(normaliseHost('[::1]')).toBe('[::1]');
  });

  it('refuses hostile and malformed values', () => {
    const bad = [
      undefined,
      '',
      ' ',
      'example.com ',
      'exa mple.com',
      'example.com:99999',
      'example.com:80:80',
      'example.com:http',
      'example..com',
      '.example.com',
      '-example.com',
      'example-.com',
      'ex_ample.com',
      'exämple.com',
      'example.com/evil',
      'user@example.com',
      'example.com\r\nX-Injected: 1',
      'example.com\u0000',
      '<script>alert(1)</script>',
      "'; drop table traffic_log; --",
      '%65xample.com',
      '300.1.1.1',
      '1.2.3',
      '01.2.3.4',
      '2001:db8::1',
      '[2001:db8::1',
      '[not-an-ip]',
      '[1.2.3.4]',
      '[fe80::1%eth0]',
      '[::1]x',
      '[::1]:99999',
      '.',
      ':80',
      'a'.repeat(64) + '.com',
      ('a'.repeat(63) + '.').repeat(4) + 'com',
      'x'.repeat(100_000),
    ];
    for (const h of bad) expect(normaliseHost(h), JSON.stringify(h?.slice(0, 80))).toBeUndefined();
  });

  it('never returns more than 255 characters', () => {
    const longest = ('a'.repeat(63) + '.').repeat(3) + 'a'.repeat(61); // 253 characters
    expect(normaliseHost(longest)).toBe(longest);
    expect(normaliseHost(longest + '.:65535')).toBe(longest);
    expect(normaliseHost(longest + 'a')).toBeUndefined();
  });
});

describe('trafficPath', () => {
  it('drops the query string and masks webhook tokens however they are spelled', () => {
    expect(trafficPath('/api/v1/ping?apikey=SECRETKEY')).toBe('/api/v1/ping');
    expect(trafficPath('/strategy/webhook/SECRETTOKEN123')).toBe('/strategy/webhook/[redacted]');
    expect(trafficPath('/strategy/webhook/SECRETTOKEN123/extra')).toBe('/strategy/webhook/[redacted]/extra');
    for (const url of [
      '/Strategy/WEBHOOK/SECRETTOKEN123',
      '/strategy/%77ebhook/SECRETTOKEN123',
      '/strategy/webhook%2FSECRETTOKEN123',
      '/strategy/webhook//SECRETTOKEN123',
      '/other/webhook/SECRETTOKEN123?x=1',
    ]) {
      expect(trafficPath(url), url).not.toContain('SECRETTOKEN123');
      expect(trafficPath(url), url).toMatch(/\/webhook\/\[redacted\]$/i);
    }
    expect(trafficPath('/strategy/webhook')).toBe('/strategy/webhook');
    expect(trafficPath('/settings/webhooks')).toBe('/settings/webhooks');
    expect(trafficPath('/bad%zzescape')).toBe('/bad%zzescape');
  });

  it('replaces control characters and caps at 512 characters', () => {
    expect(trafficPath('/a\u0000b\r\nc')).toBe('/a?b??c');
    expect(trafficPath('/' + 'ab/'.repeat(2000))).toHaveLength(512);
  });
});

describe('TrafficLogService (no database)', () => {
  const entry = (url: string) => ({
    ip: '203.0.113.7',
    method: 'GET',
    url,
    routeUrl: undefined,
    status: 404,
    durationMs: 1.234,
    host: 'localhost:80',
  });

  function fakeRepo(fail = false) {
    const batches: NewTrafficRow[][] = [];
    const repo = {
      insertMany: vi.fn(async (rows: NewTrafficRow[]) => {
        if (fail) throw new Error('database down');
        batches.push([...rows]);
      }),
    };
    return { batches, repo: repo as unknown as TrafficRepository };
  }

  it('records without I/O and writes normalised rows on flush', async () => {
    const { batches, repo } = fakeRepo();
    const clock = new FakeClock();
    const svc = new TrafficLogService(repo, clock, { warn: vi.fn() });
    svc.record({ ...entry('/strategy/webhook/SECRETTOKEN123?apikey=K'), method: 'UNSUBSCRIBE' });
    expect(batches).toEqual([]);
    expect(svc.pending).toBe(1);
    await svc.flush();
    expect(batches).toEqual([
      [
        {
          ts: clock.now(),
          ip: '203.0.113.7',
          method: 'UNSUBSCRIB',
          path: '/strategy/webhook/[redacted]',
          endpoint_group: '(unmatched)',
          status: 404,
          duration_ms: 1.23,
          host: 'localhost',
          user_id: null,
        },
      ],
    ]);
    expect(svc.pending).toBe(0);
  });

  it('keeps the newest entries when full and counts and reports the drops', async () => {
    const { batches, repo } = fakeRepo();
    const warn = vi.fn();
    const svc = new TrafficLogService(repo, new FakeClock(), { warn }, { maxBuffer: 3 });
    for (let i = 0; i < 5; i++) svc.record(entry(`/p${i}`));
    expect(svc.dropped).toBe(2);
    expect(svc.pending).toBe(3);
    await svc.flush();
    expect(batches[0]!.map((r) => r.path)).toEqual(['/p2', '/p3', '/p4']);
    expect(warn).toHaveBeenCalledWith({ dropped: 2 }, expect.stringContaining('dropped'));
    svc.record(entry('/p5'));
    await svc.flush();
    expect(batches[1]!.map((r) => r.path)).toEqual(['/p5']);
  });

  it('keeps every field and the order of thousands of entries as its buffer grows, then the newest when full', async () => {
    const { batches, repo } = fakeRepo();
    const clock = new FakeClock();
    const svc = new TrafficLogService(repo, clock, { warn: vi.fn() }, { maxBuffer: 3_000 });
    const n = 3_500;
    for (let i = 0; i < n; i++) {
      clock.advance(1);
      svc.record({
        ip: `10.0.${i % 7}.1`,
        method: i % 2 === 0 ? 'GET' : 'POST',
        url: `/p${i}`,
        routeUrl: i % 3 === 0 ? '/p:n' : undefined,
        status: 200 + (i % 5),
        durationMs: i / 8,
        host: i % 4 === 0 ? undefined : 'example.com',
        userId: i % 6 === 0 ? null : i,
      });
    }
    expect(svc.dropped).toBe(500);
    await svc.flush();
    const start = clock.now() - n + 1;
    expect(batches[0]).toEqual(
      Array.from({ length: 3_000 }, (_, k) => {
        const i = k + 500;
        return {
          ts: start + i,
          ip: `10.0.${i % 7}.1`,
          method: i % 2 === 0 ? 'GET' : 'POST',
          path: `/p${i}`,
          endpoint_group: i % 3 === 0 ? '/p:n' : '(unmatched)',
          status: 200 + (i % 5),
          duration_ms: Math.round((i / 8) * 100) / 100,
          host: i % 4 === 0 ? null : 'example.com',
          user_id: i % 6 === 0 ? null : i,
        };
      }),
    );
  });

  it('a failed write is logged and counted, and later flushes still run', async () => {
    const { repo } = fakeRepo(true);
    const warn = vi.fn();
    const svc = new TrafficLogService(repo, new FakeClock(), { warn });
    svc.record(entry('/a'));
    svc.record(entry('/b'));
    await expect(svc.flush()).resolves.toBeUndefined();
    expect(svc.failed).toBe(2);
    expect(warn).toHaveBeenCalledWith(expect.objectContaining({ lost: 2 }), 'traffic log write failed');
    svc.record(entry('/c'));
    await svc.flush();
    expect(svc.failed).toBe(3);
  });
});
