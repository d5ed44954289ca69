import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, maskUrl } from './logger.js';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { lines, stream };
}

describe('logs never carry secrets', () => {
  it('redacts secret keys at the top level and inside the usual containers', () => {
    const { lines, stream } = capture();
    const log = createLogger('info', stream);
    log.info(
      {
        apikey: 'AK-1',
        body: { password: 'PW-2' },
        data: { token: 'TK-3' },
        req: { headers: { cookie: 'c=CK-4' } },
      },
      'x',
    );
    log.info(
      { config: { smtp_password: 'SP-5' }, secret: 'S-6', headers: { authorization: 'Bearer B-7' } },
      'y',
    );
    const text = lines.join('');
    for (const s of ['AK-1', 'PW-2', 'TK-3', 'CK-4', 'SP-5', 'S-6', 'B-7']) expect(text).not.toContain(s);
    expect(text).toContain('[redacted]');
  });
  it('masks webhook tokens and query strings in URLs', () => {
    expect(maskUrl('/strategy/webhook/abcDEF123?x=1')).toBe('/strategy/webhook/[redacted]');
    expect(maskUrl('/flow/webhook/tok/SBIN')).toBe('/flow/webhook/[redacted]/SBIN');
    expect(maskUrl('/api/v1/ping?apikey=secret')).toBe('/api/v1/ping');
    expect(maskUrl('/auth/reset-password-email/abc_DEF-123')).toBe('/auth/reset-password-email/[redacted]');
  });
  it('masks a token whatever the shape of the path around it', () => {
    const t = 'tok_9f8e7d6c5b4a';
    for (const url of [
      `//strategy/webhook/${t}`,
      `/strategy//webhook/${t}`,
      `/x/../strategy/webhook/${t}/more`,
      `/STRATEGY/WEBHOOK/${t}`,
      `/strategy%2Fwebhook%2F${t}`,
      `/strategy/webhook%3F${t}`,
      `/scanner/webhook/${t}`,
    ])
      expect(maskUrl(url), url).not.toContain(t);
    expect(maskUrl(`/strategy%2Fwebhook%2F${t}%zz`)).not.toContain(t);
    expect(maskUrl('/bad%zzescape')).toBe('/bad%zzescape');
  });
  it('masks the token of a near miss (a 404 echoes the path) and any segment that looks like a credential', () => {
    const t = 'Qm9iJ3Mgd2ViaG9vayB0b2tlbiBoZXJl';
    expect(maskUrl(`/strategy/webhooks/${t}`)).toBe('/strategy/webhooks/[redacted]');
    expect(maskUrl(`/Strategy/WebHook-v2/${t}/x`)).toBe('/Strategy/WebHook-v2/[redacted]/x');
    expect(maskUrl(`/scanner/hook/${t}`)).toBe('/scanner/hook/[redacted]');
    expect(maskUrl(`/anything/${t}`)).toBe('/anything/[redacted]');
    expect(maskUrl(`/${'a'.repeat(64)}`)).toBe('/[redacted]');
    // Ordinary paths stay readable.
    expect(maskUrl('/api/v1/placesmartorder')).toBe('/api/v1/placesmartorder');
    expect(maskUrl('/strategy/42/settings')).toBe('/strategy/42/settings');
  });
});
