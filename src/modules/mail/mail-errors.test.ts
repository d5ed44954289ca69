import { describe, expect, it } from 'vitest';
import { redact, sanitizeMailError, secretForms } from './mail-errors.js';
import { ehloName, isEmailAddress, isHostName } from './mail-settings.service.js';

describe('mail errors never carry the password', () => {
  const secrets = secretForms('user@example.com', 'pa55:word');

  it('cuts out the plain, base64, SASL PLAIN and URL-encoded forms', () => {
    const plainToken = Buffer.from('\u0000user@example.com\u0000pa55:word').toString('base64');
    const text = `535 bad pa55:word ${Buffer.from('pa55:word').toString('base64')} ${plainToken} pa55%3Aword`;
    expect(redact(text, secrets)).toBe('535 bad [redacted] [redacted] [redacted] [redacted]');
  });

  it('drops the command and response objects of a nodemailer error', () => {
    const err = Object.assign(new Error('Invalid login: 535 nope pa55:word'), {
      code: 'EAUTH',
      responseCode: 535,
      command: `AUTH PLAIN ${Buffer.from('\u0000u\u0000pa55:word').toString('base64')}`,
    });
    const safe = sanitizeMailError(err, secrets);
    expect(safe.message).toBe('The SMTP server refused the login: Invalid login: 535 nope [redacted]');
    expect(JSON.stringify({ ...safe, stack: safe.stack })).not.toContain('pa55');
    expect(safe.toLog()).toEqual({ code: 'EAUTH', responseCode: 535, message: safe.message });
  });

  it('bounds the length after redaction', () => {
    expect(redact('x'.repeat(1000), []).length).toBeLessThanOrEqual(301);
  });
});

describe('mail settings syntax', () => {
  it('host names and addresses', () => {
    for (const ok of ['smtp.gmail.com', 'localhost', 'mail-1.example.co.in', '192.0.2.1', '2001:db8::1']) {
      expect(isHostName(ok), ok).toBe(true);
    }
    for (const bad of [
      '',
      'smtp gmail.com',
      'smtp://x',
      '-a.com',
      'a..b',
      '1.2.3',
      'a_b.com',
      'x'.repeat(254),
    ]) {
      expect(isHostName(bad), bad).toBe(false);
    }
  });

  it('e-mail addresses are single, bare addresses', () => {
    expect(isEmailAddress('desk@example.com')).toBe(true);
    for (const bad of ['desk', 'Desk <desk@example.com>', 'a@b.com,c@d.com', 'a@b.com\r\nBcc: x@y.z']) {
      expect(isEmailAddress(bad), bad).toBe(false);
    }
  });

  it('the EHLO name falls back to the server; IPs become address literals', () => {
    expect(ehloName('desk.example.net', 'smtp.example.com')).toBe('desk.example.net');
    expect(ehloName(null, 'smtp.example.com')).toBe('smtp.example.com');
    expect(ehloName(null, '192.0.2.1')).toBe('[192.0.2.1]');
    expect(ehloName(null, '2001:db8::1')).toBe('[IPv6:2001:db8::1]');
  });
});
