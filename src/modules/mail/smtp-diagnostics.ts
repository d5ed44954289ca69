/**
 * `POST /auth/debug-smtp`: staged diagnostics of the saved mail settings, each stage timed.
 *
 * Design: a hand-rolled probe walks the connection one step at a time with node:dns, node:net and
 * node:tls, because nodemailer's `verify()` reports only the first failure of the whole
 * conversation and gives no per-step timings. The stages, in the order they run:
 * - implicit TLS (port 465): resolve → connect → tls → greeting → ehlo → auth
 * - STARTTLS (other ports, smtp_use_tls): resolve → connect → greeting → ehlo → tls → auth
 * - plain (smtp_use_tls false): resolve → connect → greeting → ehlo → (tls skipped) → auth
 * The probe uses the same TLS options as sending (mail-transport.ts: verification on, TLS ≥ 1.2,
 * the configured name checked), and never sends a credential. The `auth` stage is nodemailer's
 * `verify()` with the sending options — the very client that sends mail, so "auth ok" means
 * sending can log in; its time includes that fresh connection. A stage that fails stops the
 * probe; the later ones are reported as skipped. Every detail is redacted like mail errors.
 */
import { withDeadline } from '../../platform/deadline.js';
import { lookup as dnsLookup } from 'node:dns/promises';
import { connect as netConnect, isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { createTransport } from 'nodemailer';
import { redact, secretForms } from './mail-errors.js';
import { ehloName, type MailSettings } from './mail-settings.service.js';
import {
  DEFAULT_TIMEOUTS,
  dialTarget,
  securityMode,
  smtpTransportOptions,
  tlsOptions,
  type MailConnectOptions,
} from './mail-transport.js';
import type { DebugSmtpResponse, DiagnosticStage } from './mail.schema.js';

type StageName = DiagnosticStage['stage'];

/** Bound on one server reply; a server that talks more is not an SMTP server. */
const MAX_REPLY_BYTES = 64 * 1024;

interface Reply {
  code: number;
  lines: string[];
}

/** Reads SMTP replies (`250-…` continuation lines, `250 …` last line) from one socket. */
class ReplyReader {
  private buffer = '';
  private lines: string[] = [];
  private readonly replies: Reply[] = [];
  private waiter: { resolve: (r: Reply) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;
  private readonly onData = (chunk: Buffer) => this.push(chunk.toString('latin1'));
  private readonly onError = (err: Error) => this.fail(err);
  private readonly onClose = () => this.fail(new Error('The server closed the connection'));

  constructor(readonly socket: Socket) {
    socket.on('data', this.onData);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
  }

  /** Stops reading (before the socket is handed to TLS). */
  detach(): void {
    this.socket.off('data', this.onData);
    this.socket.off('error', this.onError);
    this.socket.off('close', this.onClose);
  }

  read(timeoutMs: number): Promise<Reply> {
    const ready = this.replies.shift();
    if (ready) return Promise.resolve(ready);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiter = undefined;
        reject(new Error(`No reply from the server within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiter = {
        resolve: (r) => (clearTimeout(timer), resolve(r)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      };
    });
  }

  private push(text: string): void {
    this.buffer += text;
    if (this.buffer.length > MAX_REPLY_BYTES) return this.fail(new Error('The server reply is too long'));
    let i: number;
    while ((i = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, i).replace(/\r$/, '');
      this.buffer = this.buffer.slice(i + 1);
      const m = /^(\d{3})([ -]?)(.*)$/.exec(line);
      if (!m) return this.fail(new Error('The server answered something that is not SMTP'));
      this.lines.push(m[3] ?? '');
      if (m[2] !== '-') {
        const reply = { code: Number(m[1]), lines: this.lines };
        this.lines = [];
        if (this.waiter) {
          const w = this.waiter;
          this.waiter = undefined;
          w.resolve(reply);
        } else this.replies.push(reply);
      }
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = undefined;
      w.reject(err);
    }
  }
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string, onTimeout?: () => void): Promise<T> {
  return withDeadline(p, ms, () => new Error(`${what} took longer than ${ms} ms`), onTimeout);
}

function tcpConnect(host: string, port: number, timeoutMs: number): Promise<Socket> {
  const socket = netConnect({ host, port });
  return withTimeout(
    new Promise<Socket>((resolve, reject) => {
      socket.once('connect', () => (socket.off('error', reject), resolve(socket)));
      socket.once('error', reject);
    }),
    timeoutMs,
    'Connecting',
    () => socket.destroy(),
  );
}

function tlsUpgrade(socket: Socket, server: string, opts: MailConnectOptions, timeoutMs: number) {
  const secure = tlsConnect({ socket, ...tlsOptions(server, opts) });
  // A second error after a failed handshake (a reset) must not go unhandled.
  secure.on('error', () => undefined);
  return withTimeout(
    new Promise<TLSSocket>((resolve, reject) => {
      secure.once('secureConnect', () => (secure.off('error', reject), resolve(secure)));
      secure.once('error', reject);
    }),
    timeoutMs,
    'The TLS handshake',
    () => secure.destroy(),
  );
}

function describeTls(s: TLSSocket, server: string): string {
  const cert = s.getPeerCertificate();
  const cn = (v: unknown) => (typeof v === 'string' ? v : Array.isArray(v) ? String(v[0]) : '?');
  return (
    `${s.getProtocol() ?? 'TLS'} ${s.getCipher().name}; certificate for ${server} verified ` +
    `(subject CN=${cn(cert.subject?.CN)}, issuer CN=${cn(cert.issuer?.CN)}, expires ${cert.valid_to})`
  );
}

/** A failure's text for a stage: its code and message, redacted. */
function describeError(err: unknown, secrets: readonly string[]): string {
  const e = err as { code?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const code = typeof e?.code === 'string' && !message.includes(e.code) ? `${e.code}: ` : '';
  return redact(`${code}${message}`, secrets) || 'Failed';
}

const round = (ms: number) => Math.round(ms * 10) / 10;

/** Runs the stages against the settings; never throws (a failure is a failed stage). */
export async function runSmtpDiagnostics(
  s: MailSettings,
  opts: MailConnectOptions,
): Promise<DebugSmtpResponse> {
  const started = performance.now();
  const secrets = secretForms(s.username, s.password);
  const mode = securityMode(s);
  const target = dialTarget(s, opts);
  const connectMs = opts.connectionTimeoutMs ?? DEFAULT_TIMEOUTS.connectionTimeoutMs;
  const replyMs = opts.greetingTimeoutMs ?? DEFAULT_TIMEOUTS.greetingTimeoutMs;
  const stages: DiagnosticStage[] = [];
  let failed = false;

  const stage = async (name: StageName, fn: () => Promise<string>): Promise<void> => {
    if (failed) {
      stages.push({ stage: name, result: 'skipped', ms: 0, detail: 'Not run: an earlier stage failed.' });
      return;
    }
    const t0 = performance.now();
    try {
      const detail = await fn();
      stages.push({
        stage: name,
        result: 'ok',
        ms: round(performance.now() - t0),
        detail: redact(detail, secrets),
      });
    } catch (err) {
      failed = true;
      stages.push({
        stage: name,
        result: 'failed',
        ms: round(performance.now() - t0),
        detail: describeError(err, secrets),
      });
    }
  };
  const skip = (name: StageName, detail: string) => {
    if (failed) detail = 'Not run: an earlier stage failed.';
    stages.push({ stage: name, result: 'skipped', ms: 0, detail });
  };

  let address = target.host;
  let socket: Socket | undefined;
  let reader: ReplyReader | undefined;
  let extensions: string[] = [];
  const name = ehloName(s.heloName, s.server);
  const command = async (line: string, expect: number, what: string): Promise<Reply> => {
    reader!.socket.write(`${line}\r\n`);
    const reply = await reader!.read(replyMs);
    if (reply.code !== expect) {
      throw new Error(`${what} refused: ${reply.code} ${reply.lines.join(' ')}`);
    }
    return reply;
  };
  const ehlo = async (): Promise<string> => {
    const reply = await command(`EHLO ${name}`, 250, `EHLO ${name}`);
    extensions = reply.lines.slice(1).map((l) => l.trim().toUpperCase());
    return `EHLO ${name} accepted; the server offers: ${extensions.join(', ') || 'no extensions'}`;
  };
  const upgrade = async (): Promise<string> => {
    reader!.detach();
    // The TLS socket reports the transport's failures; this keeps a late one from going unhandled.
    socket!.on('error', () => undefined);
    const secure = await tlsUpgrade(socket!, s.server, opts, replyMs);
    socket = secure;
    reader = new ReplyReader(secure);
    return describeTls(secure, s.server);
  };

  try {
    await stage('resolve', async () => {
      if (isIP(target.host) !== 0) return `${target.host} is an IP address: nothing to resolve`;
      const found = await withTimeout(dnsLookup(target.host, { all: true }), connectMs, 'Resolving');
      if (found.length === 0) throw new Error(`${target.host} has no address`);
      address = found[0]!.address;
      return `${target.host} → ${found.map((a) => a.address).join(', ')}`;
    });
    await stage('connect', async () => {
      socket = await tcpConnect(address, target.port, connectMs);
      reader = new ReplyReader(socket);
      return `TCP connection to ${address} port ${target.port}`;
    });
    if (mode === 'implicit_tls') await stage('tls', upgrade);
    await stage('greeting', async () => {
      const reply = await reader!.read(replyMs);
      const text = `${reply.code} ${reply.lines.join(' ')}`;
      if (reply.code !== 220) throw new Error(`The server's greeting is not 220: ${text}`);
      return text;
    });
    await stage('ehlo', ehlo);
    if (mode === 'starttls') {
      await stage('tls', async () => {
        if (!extensions.includes('STARTTLS')) {
          throw new Error('The server does not offer STARTTLS, and smtp_use_tls requires it');
        }
        await command('STARTTLS', 220, 'STARTTLS');
        const described = await upgrade();
        await ehlo();
        return `STARTTLS: ${described}`;
      });
    } else if (mode === 'plain') {
      skip('tls', 'smtp_use_tls is off: the connection stays unencrypted (STARTTLS is not attempted).');
    }
  } finally {
    if (socket && !socket.destroyed) {
      socket.end('QUIT\r\n');
      const s2 = socket;
      setTimeout(() => s2.destroy(), 1000).unref();
    }
  }

  if (!s.username) skip('auth', 'No username set: mail is sent without logging in.');
  else {
    await stage('auth', async () => {
      const mechanisms = extensions
        .find((e) => e.startsWith('AUTH'))
        ?.slice(5)
        .trim();
      const transport = createTransport(smtpTransportOptions(s, opts));
      try {
        await transport.verify();
      } finally {
        transport.close();
      }
      return (
        `Login as ${s.username} accepted (server mechanisms: ${mechanisms || 'none advertised'}; ` +
        'checked with the sending client on a fresh connection)'
      );
    });
  }

  return {
    status: 'success',
    ok: !failed,
    server: s.server,
    port: s.port,
    security: mode,
    stages,
    total_ms: round(performance.now() - started),
  };
}
