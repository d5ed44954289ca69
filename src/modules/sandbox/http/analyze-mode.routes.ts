/**
 * The mode switch (spec "Analyzer / live mode", "Session routes: mode switch"):
 * `GET /settings/analyze-mode` for any logged-in user, `POST /settings/analyze-mode/<mode>` for
 * the administrator (CSRF), `<mode>` 0 = Live, 1 = Analyze, anything else 400.
 */
import { Type } from 'typebox';
import { ErrorBody } from '../../../platform/http/error-body.js';
import type { SessionGuard } from '../../auth/session.guard.js';
import type { RateLimitHook } from '../../../platform/http/rate-limit.js';
import type { App } from '../../../platform/http/types.js';
import { badRequest } from '../../../platform/errors.js';
import type { AnalyzeModeService } from '../service/analyze-mode.service.js';

const ModeResponse = Type.Object({
  status: Type.Literal('success'),
  analyze_mode: Type.Boolean(),
  mode: Type.Union([Type.Literal('analyze'), Type.Literal('live')]),
  message: Type.Optional(Type.String()),
});

export function analyzeModeRoutes(
  app: App,
  deps: { mode: AnalyzeModeService; guard: SessionGuard; rateLimit: RateLimitHook },
): void {
  const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody };
  const view = () => ({
    status: 'success' as const,
    analyze_mode: deps.mode.analyze,
    mode: deps.mode.analyze ? ('analyze' as const) : ('live' as const),
  });
  app.get(
    '/settings/analyze-mode',
    {
      preHandler: deps.guard(),
      schema: {
        summary: 'The trading mode (live or analyze)',
        tags: ['sandbox'],
        response: { 200: ModeResponse, ...errors },
      },
    },
    () => view(),
  );
  app.post(
    '/settings/analyze-mode/:mode',
    {
      onRequest: deps.rateLimit,
      preHandler: deps.guard({ admin: true }),
      schema: {
        summary: 'Switch between live (0) and analyze (1) mode',
        tags: ['sandbox'],
        params: Type.Object({ mode: Type.String({ maxLength: 16 }) }),
        response: { 200: ModeResponse, ...errors },
      },
    },
    async (req) => {
      const m = req.params.mode;
      if (m !== '0' && m !== '1') throw badRequest('mode must be 0 (Live) or 1 (Analyze)');
      await deps.mode.set(m === '1');
      return { ...view(), message: m === '1' ? 'Switched to Analyze mode' : 'Switched to Live mode' };
    },
  );
}
