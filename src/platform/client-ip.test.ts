import { describe, expect, it } from 'vitest';
import { isInternal, isLoopback, normaliseIp, resolveClientIp } from './client-ip.js';

describe('client IP with TRUST_PROXY_HEADERS=false: only the peer counts', () => {
  it('ignores every proxy header, however plausible', () => {
    const headers = {
      'cf-connecting-ip': '1.1.1.1',
      'true-client-ip': '2.2.2.2',
      'x-real-ip': '3.3.3.3',
      'x-forwarded-for': '4.4.4.4',
      'x-client-ip': '5.5.5.5',
    };
    expect(resolveClientIp('203.0.113.9', headers, false)).toBe('203.0.113.9');
  });
});

describe('client IP with TRUST_PROXY_HEADERS=true: headers in the spec order', () => {
  const all = {
    'cf-connecting-ip': '1.1.1.1',
    'true-client-ip': '2.2.2.2',
    'x-real-ip': '3.3.3.3',
    'x-forwarded-for': '4.4.4.4, 10.0.0.1',
    'x-client-ip': '5.5.5.5',
  };
  const peer = '10.0.0.2';
  it('takes each header in turn when the ones before it are absent', () => {
    const order = [
      'cf-connecting-ip',
      'true-client-ip',
      'x-real-ip',
      'x-forwarded-for',
      'x-client-ip',
    ] as const;
    const expected = ['1.1.1.1', '2.2.2.2', '3.3.3.3', '4.4.4.4', '5.5.5.5'];
    order.forEach((_, i) => {
      const headers = Object.fromEntries(
        Object.entries(all).filter(([k]) => !order.slice(0, i).includes(k as never)),
      );
      expect(resolveClientIp(peer, headers, true)).toBe(expected[i]);
    });
  });
  it('uses the first X-Forwarded-For entry only', () => {
    expect(resolveClientIp(peer, { 'x-forwarded-for': ' 198.51.100.7 ,1.2.3.4' }, true)).toBe('198.51.100.7');
  });
  it('skips garbage instead of trusting it, then falls back to the peer', () => {
    expect(resolveClientIp(peer, { 'cf-connecting-ip': 'evil', 'x-real-ip': '9.9.9.9' }, true)).toBe(
      '9.9.9.9',
    );
    expect(resolveClientIp(peer, { 'x-forwarded-for': 'unknown, 1.2.3.4' }, true)).toBe(peer);
    expect(resolveClientIp(peer, { 'x-real-ip': '1' }, true)).toBe(peer);
    expect(resolveClientIp(peer, {}, true)).toBe(peer);
  });
});

describe('addresses are normalised', () => {
  it('maps IPv4-mapped IPv6 to IPv4 and compacts IPv6', () => {
    expect(normaliseIp('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseIp('::FFFF:192.0.2.1')).toBe('192.0.2.1');
    expect(normaliseIp('::ffff:192.0.2.300')).toBeUndefined();
    expect(normaliseIp('2001:0DB8:0000:0000:0000:0000:0000:0001')).toBe('2001:db8::1');
    expect(normaliseIp('[2001:db8::1]')).toBe('2001:db8::1');
    expect(normaliseIp('fe80::1%eth0')).toBe('fe80::1');
    expect(normaliseIp('300.1.1.1')).toBeUndefined();
    expect(normaliseIp('<script>')).toBeUndefined();
  });
  it('classifies loopback and internal ranges', () => {
    expect(isLoopback('127.0.0.5')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('127.255.255.254')).toBe(true);
    expect(isLoopback('::ffff:127.0.0.1')).toBe(true);
    for (const ip of ['128.0.0.1', '10.127.0.1', '8.8.8.8', '127.0.0.256', '::2', 'evil'])
      expect(isLoopback(ip), ip).toBe(false);
    for (const ip of [
      '10.1.2.3',
      '172.17.0.1',
      '192.168.1.1',
      '169.254.1.1',
      'fd00::1',
      'fe80::1',
      '100.64.0.1',
    ]) {
      expect(isInternal(ip), ip).toBe(true);
    }
    expect(isInternal('8.8.8.8')).toBe(false);
    expect(isInternal('2001:4860::8888')).toBe(false);
  });
});
