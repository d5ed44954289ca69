import { notFound } from '../../platform/errors.js';
import type { App } from '../../platform/http/types.js';
import type { RateLimitHook } from '../../platform/http/rate-limit.js';
import type { SessionGuard } from '../auth/session.guard.js';
import type { BanRow } from './bans.repository.js';
import {
  BanBody,
  BanHostResponse,
  BanResponse,
  ClearedResponse,
  DataResponse,
  HostBody,
  IpBody,
  LimitQuery,
  LoginActivityResponse,
  MessageResponse,
  OkResponse,
  SessionIdBody,
  SessionsResponse,
  SettingsBody,
  SettingsResponse,
  StatsResponse,
} from './security.schema.js';
import { ErrorBody } from '../../platform/http/error-body.js';
import { isInternal, normaliseIp } from '../../platform/client-ip.js';
import { badRequest } from '../../platform/errors.js';
import type { Clock } from '../../platform/clock.js';
import { normaliseHost, type TrafficLogService } from '../observability/traffic.service.js';
import type { LoginActivityRepository } from '../auth/login-activity.repository.js';
import type { SessionsService } from '../auth/sessions.service.js';
import type { BanService } from './ban.service.js';
import type { SecuritySettingsService } from './security-settings.service.js';
import type { TrackersService } from './trackers.service.js';

/** What "recent traffic" means for ban-host. */
const RECENT_TRAFFIC_MS = 86_400_000;

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());

function banView(b: BanRow) {
  return {
    ip: b.ip,
    reason: b.reason,
    ban_count: b.ban_count,
    created_by: b.created_by,
    created_at: iso(b.created_at),
    expires_at: iso(b.expires_at),
    permanent: b.expires_at === null,
  };
}

/** `/security/*`: administrator session, CSRF on every POST (the guard's rule). */
export function securityRoutes(
  app: App,
  deps: {
    bans: BanService;
    trackers: TrackersService;
    securitySettings: SecuritySettingsService;
    sessions: SessionsService;
    loginActivity: LoginActivityRepository;
    traffic: TrafficLogService;
    guard: SessionGuard;
    rateLimit: RateLimitHook;
    clock: Clock;
  },
): void {
  const { bans, trackers, securitySettings, sessions, loginActivity, traffic } = deps;
  const admin = { onRequest: deps.rateLimit, preHandler: deps.guard({ admin: true }) };
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };

  app.post(
    '/security/ban',
    {
      ...admin,
      schema: {
        summary: 'Ban an IP address',
        tags: ['security'],
        body: BanBody,
        response: { 200: BanResponse, ...errors },
      },
    },
    async (req) => {
      const b = req.body;
      const row = await bans.ban({
        ip: b.ip,
        reason: b.reason?.trim() || 'Manual ban',
        durationHours: b.duration_hours ?? 24,
        permanent: b.permanent ?? false,
        force: b.force ?? false,
        by: req.session!.username,
      });
      req.log.warn(
        { ip: row.ip, by: req.session!.username, permanent: row.expires_at === null },
        'IP banned manually',
      );
      return { status: 'success' as const, message: `${row.ip} banned`, ban: banView(row) };
    },
  );

  // A host name bans every client whose recent traffic (24 h) carried that Host header; an
  // address bans itself. Loopback and internal clients are reported as skipped, never banned.
  app.post(
    '/security/ban-host',
    {
      ...admin,
      schema: {
        summary: 'Ban the addresses seen with a host name',
        tags: ['security'],
        body: HostBody,
        response: { 200: BanHostResponse, ...errors },
      },
    },
    async (req) => {
      const host = normaliseHost(req.body.host);
      if (host === undefined) {
        throw badRequest('host must be a valid host name or IP address', {
          host: ['must be a valid host name or IP address'],
        });
      }
      const asIp = normaliseIp(host.replace(/^\[|\]$/g, ''));
      const candidates = asIp ? [asIp] : await traffic.ipsForHost(host, deps.clock.now() - RECENT_TRAFFIC_MS);
      const banned: string[] = [];
      const skipped: Array<{ ip: string; reason: string }> = [];
      for (const ip of candidates) {
        if (isInternal(ip)) {
          skipped.push({ ip, reason: 'loopback or internal address' });
          continue;
        }
        await bans.ban({
          ip,
          reason: `Host ${host}`,
          durationHours: 0,
          permanent: true,
          force: false,
          by: req.session!.username,
        });
        banned.push(ip);
      }
      req.log.warn({ host, banned: banned.length, by: req.session!.username }, 'IPs banned by host');
      return { status: 'success' as const, host, banned, skipped };
    },
  );

  app.post(
    '/security/unban',
    {
      ...admin,
      schema: {
        summary: 'Lift a ban',
        tags: ['security'],
        body: IpBody,
        response: { 200: MessageResponse, ...errors },
      },
    },
    async (req) => {
      if (!(await bans.unban(req.body.ip))) throw notFound(`${req.body.ip} is not banned`);
      return { status: 'success' as const, message: `${req.body.ip} unbanned` };
    },
  );

  app.post(
    '/security/clear-404',
    {
      ...admin,
      schema: {
        summary: "Clear an address's 404 tracker",
        tags: ['security'],
        body: IpBody,
        response: { 200: ClearedResponse, ...errors },
      },
    },
    async (req) => {
      const cleared = await trackers.clear('404', req.body.ip);
      return { status: 'success' as const, cleared };
    },
  );

  app.get(
    '/security/api/data',
    {
      ...admin,
      schema: {
        summary: 'Active bans, trackers and settings',
        tags: ['security'],
        response: { 200: DataResponse, ...errors },
      },
    },
    async () => {
      const [active, t404, tKeys, settings] = await Promise.all([
        bans.listActive(),
        trackers.list('404'),
        trackers.list('apikey'),
        securitySettings.get(),
      ]);
      const view = (t: (typeof t404)[number], items: string) => ({
        ip: t.ip,
        count: t.count,
        [items]: t.items,
        first_seen: iso(t.first_seen),
        last_seen: iso(t.last_seen),
      });
      return {
        status: 'success' as const,
        bans: active.map(banView),
        error_404_tracker: t404.map((t) => view(t, 'paths')),
        invalid_api_key_tracker: tKeys.map((t) => view(t, 'key_digests')),
        settings,
      };
    },
  );

  app.get(
    '/security/stats',
    {
      ...admin,
      schema: {
        summary: 'Ban and tracker counts',
        tags: ['security'],
        response: { 200: StatsResponse, ...errors },
      },
    },
    async () => {
      const [counts, t404, tKeys, s] = await Promise.all([
        bans.countActive(),
        trackers.list('404', 100_000),
        trackers.list('apikey', 100_000),
        securitySettings.get(),
      ]);
      const ips = new Set([...t404.map((t) => t.ip), ...tKeys.map((t) => t.ip)]);
      // "Near a threshold": at least 80% of the current threshold, computed from the settings.
      const near = new Set([
        ...t404.filter((t) => t.count >= 0.8 * s.security_404_threshold).map((t) => t.ip),
        ...tKeys.filter((t) => t.count >= 0.8 * s.security_api_threshold).map((t) => t.ip),
      ]);
      return {
        status: 'success' as const,
        total_bans: counts.total,
        permanent_bans: counts.permanent,
        temporary_bans: counts.total - counts.permanent,
        suspicious_ips: ips.size,
        near_threshold_ips: near.size,
      };
    },
  );

  app.post(
    '/security/settings',
    {
      ...admin,
      schema: {
        summary: 'Update the security settings',
        tags: ['security'],
        body: SettingsBody,
        response: { 200: SettingsResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      settings: await securitySettings.update(req.body),
    }),
  );

  app.get(
    '/security/api/login-activity',
    {
      ...admin,
      schema: {
        summary: 'Recent login attempts',
        tags: ['security'],
        querystring: LimitQuery,
        response: { 200: LoginActivityResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: (await loginActivity.recent(req.query.limit ?? 200)).map((r) => ({
        ts: iso(r.ts),
        ip: r.ip,
        username: r.username,
        success: r.success,
        user_agent: r.user_agent,
      })),
    }),
  );

  app.post(
    '/security/api/login-activity/clear',
    {
      ...admin,
      schema: {
        summary: 'Clear the login activity',
        tags: ['security'],
        response: { 200: ClearedResponse, ...errors },
      },
    },
    async () => ({
      status: 'success' as const,
      cleared: await loginActivity.clear(),
    }),
  );

  app.get(
    '/security/api/active-sessions',
    {
      ...admin,
      schema: {
        summary: "Every user's active sessions",
        tags: ['security'],
        response: { 200: SessionsResponse, ...errors },
      },
    },
    async (req) => ({
      status: 'success' as const,
      data: (await sessions.listActive()).map((s) => ({
        id: s.id,
        user: s.username,
        ip: s.ip,
        user_agent: s.user_agent,
        created_at: iso(s.created_at),
        last_seen_at: iso(s.last_seen_at),
        current: s.id === req.session!.sessionId,
      })),
    }),
  );

  app.post(
    '/security/api/active-sessions/revoke',
    {
      ...admin,
      schema: {
        summary: 'Revoke a session',
        tags: ['security'],
        body: SessionIdBody,
        response: { 200: OkResponse, ...errors },
      },
    },
    async (req) => {
      if (!(await sessions.revokeById(req.body.id))) throw notFound('No such session');
      return { status: 'success' as const };
    },
  );
}
