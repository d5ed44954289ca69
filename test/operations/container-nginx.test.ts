/**
 * deploy/nginx.conf, the proxy of compose.yaml's profile scale, checked without a Docker daemon:
 * the file compose.yaml mounts, routing to both instances, the WebSocket upgrade, and its headers
 * replayed against the real client-address resolution (a client spoofing every proxy header gets
 * its own address). compose.yaml itself: container-compose.test.ts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { describe, expect, it } from 'vitest';
import { resolveClientIp } from '../../src/platform/client-ip.js';
import { defaults, read, scaleInstances, services } from '../helpers/container-files.js';

describe('deploy/nginx.conf', () => {
  const mount = services.proxy!.volumes!.find((v) => v.includes('/etc/nginx/'))!;
  const [source, target] = mount.split(':');
  const conf = read(source!);
  /** The config without comments, as `directive args;` and braces. */
  const code = conf.replace(/#.*$/gm, '');
  const block = (head: RegExp): string => {
    const m = head.exec(code);
    expect(m, String(head)).not.toBeNull();
    let depth = 0;
    for (let i = m!.index + m![0].length - 1; i < code.length; i++) {
      if (code[i] === '{') depth++;
      else if (code[i] === '}' && --depth === 0) return code.slice(m!.index + m![0].length, i);
    }
    throw new Error(`unclosed ${String(head)}`);
  };
  const server = block(/\bserver\s*\{/);
  /** The server block's own directives (its location blocks removed). */
  const serverLevel = server.replace(/location[^{]*\{[^}]*\}/g, '');
  const setHeaders = new Map(
    [...serverLevel.matchAll(/proxy_set_header\s+(\S+)\s+([^;]*);/g)].map((m) => [
      m[1]!.toLowerCase(),
      m[2]!.trim(),
    ]),
  );

  it('is the file compose.yaml mounts into the nginx image, read-only', () => {
    expect(source).toBe('./deploy/nginx.conf');
    expect(target).toBe('/etc/nginx/conf.d/default.conf');
    expect(mount.endsWith(':ro')).toBe(true);
  });

  it('routes every request to both instances on the port they listen on', () => {
    const servers = [...block(/\bupstream\s+algodesk\s*\{/).matchAll(/^\s*server\s+(\S+)/gm)].map(
      (m) => m[1],
    );
    expect(servers).toEqual(scaleInstances.map(([name]) => `${name}:${defaults.port}`));
    const locations = [...server.matchAll(/location\s+([^{]*)\{([^}]*)\}/g)];
    expect(locations.map((l) => l[1]!.trim())).toContain('/');
    for (const [, where, body] of locations) {
      expect(body, `location ${where}`).toMatch(/proxy_pass\s+http:\/\/algodesk;/);
      // A location with a proxy_set_header of its own would drop every server-level one.
      expect(body, `location ${where}`).not.toContain('proxy_set_header');
    }
    const listen = /^\s*listen\s+(\d+);/m.exec(server)![1];
    expect(services.proxy!.ports![0]!.endsWith(`:${listen}`)).toBe(true);
    expect(services.proxy!.healthcheck!.test.join(' ')).toContain(`127.0.0.1:${listen}/`);
  });

  it('forwards the WebSocket upgrade and the Host the live socket checks its Origin against', () => {
    expect(setHeaders.get('host')).toBe('$http_host');
    expect(setHeaders.get('upgrade')).toBe('$http_upgrade');
    expect(setHeaders.get('connection')).toBe('$connection_upgrade');
    expect(code).toMatch(/map\s+\$http_upgrade\s+\$connection_upgrade/);
  });

  it('sets the client address from the connection: a client spoofing every proxy header gets its own address', () => {
    // The headers resolveClientIp reads, from its own source, so a header added there is checked here.
    const list = /const PROXY_HEADERS = \[([^\]]*)\]/.exec(read('src/platform/client-ip.ts'));
    const names = [...list![1]!.matchAll(/'([a-z-]+)'/g)].map((m) => m[1]!);
    expect(names).toContain('x-forwarded-for');
    for (const name of names) expect(['$remote_addr', '""'], name).toContain(setHeaders.get(name));
    expect(setHeaders.get('x-forwarded-for')).toBe('$remote_addr');

    const client = '198.51.100.7';
    const spoofed: IncomingHttpHeaders = Object.fromEntries(names.map((n) => [n, '203.0.113.66']));
    spoofed['x-forwarded-for'] = '203.0.113.66, 10.0.0.1';
    // nginx passes the client's headers on, except those it sets (an empty value drops the header).
    const forwarded: IncomingHttpHeaders = { ...spoofed };
    for (const [name, value] of setHeaders) {
      if (value === '""') delete forwarded[name];
      else if (value === '$remote_addr') forwarded[name] = client;
    }
    expect(resolveClientIp('172.18.0.5', forwarded, true)).toBe(client);
    // Without the proxy's rewriting the spoof would have won: the check above is not vacuous.
    expect(resolveClientIp('172.18.0.5', spoofed, true)).toBe('203.0.113.66');
  });
});
