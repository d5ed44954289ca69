import { describe, expect, it } from 'vitest';
import { CREDENTIAL_PREFIX, issueCredential } from './credential.js';
import { auditPayload, redact } from './payload.js';

describe('audit payload redaction', () => {
  it.each(Object.entries(CREDENTIAL_PREFIX))(
    'masks a %s webhook credential in free text, whole or a piece of one, and keeps the text around it',
    (_source, prefix) => {
      const { value } = issueCredential(prefix);
      const piece = value.slice(0, 20);
      expect(redact(`see https://algo.example/hook/${value} now`)).toBe(
        'see https://algo.example/hook/[redacted] now',
      );
      expect(redact(`pasted ${piece} here`)).toBe('pasted [redacted] here');
      const stored = auditPayload({ note: [`${piece}`, { url: `x/${value}` }] });
      expect(stored).not.toContain(piece.slice(prefix.length));
      expect(JSON.parse(stored)).toEqual({ note: ['[redacted]', { url: 'x/[redacted]' }] });
    },
  );

  it('keeps ordinary text, symbols and numbers as they are', () => {
    expect(redact({ symbol: 'NIFTY28NOV2424000CE', qty: 75, note: 'long_entry at 10:15' })).toEqual({
      symbol: 'NIFTY28NOV2424000CE',
      qty: 75,
      note: 'long_entry at 10:15',
    });
  });
});
