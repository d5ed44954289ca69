/**
 * A real SMTP server on loopback (`smtp-server`) for the mail tests, in the three setups of
 * issue 8: implicit TLS (a "465-style" listener: TLS from the first byte), STARTTLS, and plain.
 * It records what a test asserts on: the EHLO name, whether the session was encrypted, the login
 * and each received message. Certificates come from test/fixtures/smtp (generate.sh).
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'smtp');
const fixture = (name: string) => readFileSync(join(FIXTURES, name));

/** The test CA (PEM) the mail client is told to trust. */
export const TEST_CA = fixture('ca.crt');

export type SmtpSetup = 'implicit_tls' | 'starttls' | 'plain';

export interface ReceivedMail {
  mailFrom: string;
  rcptTo: string[];
  /** EHLO/HELO name the client sent. */
  ehlo: string;
  /** The session was encrypted (implicit TLS or after STARTTLS). */
  secure: boolean;
  /** TLS protocol, e.g. `TLSv1.3`; null on a cleartext session. */
  tlsProtocol: string | null;
  /** The logged-in user, null when the client did not log in. */
  user: string | null;
  raw: string;
}

export interface AuthAttempt {
  method: string;
  username: string | undefined;
  password: string | null | undefined;
  secure: boolean;
  ehlo: string;
}

export interface SmtpTestServer {
  port: number;
  received: ReceivedMail[];
  auths: AuthAttempt[];
  /** Connection errors the server saw (failed TLS handshakes). */
  errors: Error[];
  close(): Promise<void>;
}

export interface SmtpTestServerOptions {
  /** Credentials the server accepts; without them logging in is optional. */
  username?: string;
  password?: string;
  /** `untrusted`: a self-signed certificate no CA of the client vouches for. */
  cert?: 'trusted' | 'untrusted';
  /** A hostile server that echoes the submitted password in its refusal. */
  echoPasswordOnFailure?: boolean;
}

export async function startSmtpServer(
  setup: SmtpSetup,
  opts: SmtpTestServerOptions = {},
): Promise<SmtpTestServer> {
  const received: ReceivedMail[] = [];
  const auths: AuthAttempt[] = [];
  const certName = opts.cert === 'untrusted' ? 'untrusted' : 'server';
  const server = new SMTPServer({
    secure: setup === 'implicit_tls',
    key: fixture(`${certName}.key`),
    cert: fixture(`${certName}.crt`),
    // The plain setup is a server without STARTTLS that still takes a login over cleartext.
    ...(setup === 'plain' ? { disabledCommands: ['STARTTLS'] } : {}),
    allowInsecureAuth: setup === 'plain',
    authOptional: opts.username === undefined,
    authMethods: ['PLAIN', 'LOGIN'],
    disableReverseLookup: true,
    logger: false,
    banner: 'algodesk test SMTP',
    onAuth(auth, session, cb) {
      auths.push({
        method: auth.method,
        username: auth.username,
        password: auth.password,
        secure: session.secure,
        ehlo: session.hostNameAppearsAs,
      });
      if (auth.username === opts.username && auth.password === opts.password) {
        return cb(null, { user: auth.username });
      }
      const message = opts.echoPasswordOnFailure
        ? `Authentication failed for ${auth.username} with password ${auth.password}`
        : 'Authentication credentials invalid';
      return cb(Object.assign(new Error(message), { responseCode: 535 }));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          ehlo: session.hostNameAppearsAs,
          secure: session.secure,
          tlsProtocol: session.tlsOptions ? session.tlsOptions.version : null,
          user: typeof session.user === 'string' ? session.user : null,
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        cb();
      });
    },
  });
  // Failed handshakes (the untrusted-certificate cases) end in server-side socket errors.
  const errors: Error[] = [];
  server.on('error', (err) => errors.push(err));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    received,
    auths,
    errors,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Header value (unfolded) of a raw message. */
export function header(raw: string, name: string): string | undefined {
  const head = raw.split(/\r?\n\r?\n/)[0] ?? '';
  const unfolded = head.replace(/\r?\n[ \t]+/g, ' ');
  const line = unfolded.split(/\r?\n/).find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

/** A port on loopback with nothing listening (bound, then released). */
export async function refusedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', () => resolve()));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}
