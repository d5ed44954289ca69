import { Ajv } from 'ajv';
import { describe, expect, it, vi } from 'vitest';
import { SchemaCompilers } from './schema-compilers.js';

const schema = { type: 'object', properties: { qty: { type: 'integer' } }, required: ['qty'] };

describe('route schemas are compiled once per process, on first use', () => {
  it('compiles nothing until a request needs it, then each schema once, also given as another object', () => {
    const compile = vi.spyOn(Ajv.prototype, 'compile');
    try {
      const c = new SchemaCompilers();
      // A schema Ajv refuses: building the app does not compile it, its first request would.
      const broken = c.validator({ schema: { type: 'no-such-type' }, httpPart: 'body' });
      const v = c.validator({ schema, httpPart: 'body' });
      const again = c.validator({ schema: structuredClone(schema), httpPart: 'body' });
      expect(compile).not.toHaveBeenCalled();
      expect(v({ qty: 1 })).toBe(true);
      expect(again({ qty: 2 })).toBe(true);
      expect(v({ qty: 3 })).toBe(true);
      expect(compile).toHaveBeenCalledTimes(1);
      expect(() => broken({})).toThrow(/schema is invalid/);
    } finally {
      compile.mockRestore();
    }
    const c = new SchemaCompilers();
    const s = c.serializer({ schema });
    c.validator({ schema: { type: 'no-such-type' }, httpPart: 'querystring' });
    // compileAll compiles what was handed out and not used: the refusal comes out there.
    expect(() => c.compileAll()).toThrow(/schema is invalid/);
    expect(c.serializer({ schema: structuredClone(schema) })({ qty: 5, secret: 'x' })).toBe('{"qty":5}');
    expect(s({ qty: 6 })).toBe('{"qty":6}');
  });

  it("carries a refusal's errors, as Fastify reads them off the function it was given", () => {
    const v = new SchemaCompilers().validator({ schema, httpPart: 'body' });
    expect(v({})).toBe(false);
    expect(v.errors?.[0]).toMatchObject({ keyword: 'required', params: { missingProperty: 'qty' } });
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
