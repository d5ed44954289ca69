import { describe, expect, it } from 'vitest';
import { brokerIds, getFormat, masterContractFormats } from './index.js';

describe('the importer registry lists one format per broker id', () => {
  it('finds formats by broker id', () => {
    expect(getFormat('zerodha')?.broker).toBe('zerodha');
    expect(getFormat('upstox')?.broker).toBe('upstox');
    expect(getFormat('fyers')?.broker).toBe('fyers');
    expect(getFormat('dhan')?.broker).toBe('dhan');
    expect(getFormat('angel')?.broker).toBe('angel');
    for (const [id, format] of Object.entries(masterContractFormats)) expect(format.broker).toBe(id);
  });

  it('lists the broker ids sorted', () => {
    expect(brokerIds()).toEqual(['angel', 'dhan', 'flattrade', 'fyers', 'shoonya', 'upstox', 'zerodha']);
  });

  it.each(['', 'Zerodha', 'angelone', 'constructor', '__proto__', 'toString'])(
    'has no format for %j',
    (id) => {
      expect(getFormat(id)).toBeUndefined();
    },
  );
});
