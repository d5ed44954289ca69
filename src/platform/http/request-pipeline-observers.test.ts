/**
 * The request pipeline's observers: several modules observe every request (the traffic and error
 * logs, the metrics); each added observer is told after those before it, and one alone is called
 * directly (no wrapper on the hot path).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { RequestPipeline, type RequestObserver, type RouteConfig } from './request-pipeline.js';

const req = { id: 'r1' } as FastifyRequest;
const reply = {} as FastifyReply;

function recorder(name: string, calls: string[]): RequestObserver {
  return {
    ended: (r, _reply, status, route) => calls.push(`${name} ended ${r.id} ${status} ${route?.url}`),
  };
}

describe('request pipeline observers', () => {
  it('one observer added is the observer itself', () => {
    const p = new RequestPipeline();
    const only = recorder('a', []);
    p.observe(only);
    expect(p.observer).toBe(only);
  });

  it('each observer added is told of the end, in the order added', () => {
    const p = new RequestPipeline();
    const calls: string[] = [];
    p.observe(recorder('a', calls));
    p.observe(recorder('b', calls));
    p.observe(recorder('c', calls));
    p.observer.ended(req, reply, 404, { url: '/x/:id' } as RouteConfig);
    expect(calls).toEqual(['a ended r1 404 /x/:id', 'b ended r1 404 /x/:id', 'c ended r1 404 /x/:id']);
  });

  it('with none added, the observer does nothing', () => {
    const p = new RequestPipeline();
    expect(() => {
      p.observer.ended(req, reply, 200, undefined);
    }).not.toThrow();
  });
});
