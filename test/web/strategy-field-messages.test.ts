import { describe, expect, it } from 'vitest';
import { fieldMessage } from '../../web/src/pages/strategy/field-messages.js';

describe('docs/rules/web.md#field-messages: the strategy wizard words the schema’s refusals for a person', () => {
  it('asks for an empty symbol, name or underlying instead of counting characters', () => {
    expect(fieldMessage('legs[0].symbol', 'Must NOT have fewer than 1 characters.')).toBe('Enter a symbol');
    expect(fieldMessage('name', 'Must NOT have fewer than 1 characters.')).toBe('Enter a name');
    expect(fieldMessage('legs[2].underlying', 'Missing data for required field.')).toBe(
      'Enter an underlying',
    );
    expect(fieldMessage('legs.1.exchange', 'Must NOT have fewer than 2 characters.')).toBe(
      'The exchange needs at least 2 characters',
    );
  });

  it('says the bounds of a number in words', () => {
    expect(fieldMessage('legs[0].quantity', 'Must be >= 1.')).toBe('The quantity must be at least 1');
    expect(fieldMessage('legs[0].strike_offset', 'Must be <= 50.')).toBe(
      'The strike offset must be at most 50',
    );
    expect(fieldMessage('legs[0].quantity', 'Must be integer.')).toBe('The quantity must be a whole number');
    expect(fieldMessage('legs[0].expiry_rank', 'Must be > 0.')).toBe('The expiry must be more than 0');
  });

  it('asks to choose among the allowed values, and for a leg when there is none', () => {
    expect(fieldMessage('product', 'Must be one of: MIS, CNC, NRML.')).toBe(
      'Choose a product: MIS, CNC, NRML',
    );
    expect(fieldMessage('legs', 'Must NOT have fewer than 1 items.')).toBe('Add a leg');
    expect(fieldMessage('ip_allowlist.3', 'Must NOT have more than 64 characters.')).toBe(
      'Each address is too long: at most 64 characters',
    );
  });

  it('leaves the service’s own sentences as they are', () => {
    const said = 'SBINN is not a contract on NSE in the master contract.';
    expect(fieldMessage('legs[0].symbol', said)).toBe(said);
    expect(fieldMessage('name', 'A strategy named "x" exists already.')).toBe(
      'A strategy named "x" exists already.',
    );
  });
});
