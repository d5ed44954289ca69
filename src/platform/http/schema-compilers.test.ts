import { describe, expect, it } from 'vitest';
import { SchemaCompilers } from './schema-compilers.js';

const schema = { type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'] };

describe('route schemas are compiled once per process', () => {
  it('gives back the same validator and serializer for the same schema, also as another object', () => {
    const c = new SchemaCompilers();
    const v = c.validator({ schema, httpPart: 'body' });
    expect(c.validator({ schema: structuredClone(schema), httpPart: 'body' })).toBe(v);
    const s = c.serializer({ schema });
    expect(c.serializer({ schema: structuredClone(schema) })).toBe(s);
    expect(s({ qty: 5, secret: 'x' })).toBe('{"qty":5}');
  });

  it('keeps bodies as sent and coerces query strings, each with its own compiled function', () => {
    const c = new SchemaCompilers();
    const body = c.validator({ schema, httpPart: 'body' });
    const query = c.validator({ schema, httpPart: 'querystring' });
    expect(query).not.toBe(body);
    expect(body({ qty: '5' })).toBe(false);
    const q = { qty: '5' };
    expect(query(q)).toBe(true);
    expect(q.qty).toBe(5);
  });
});
