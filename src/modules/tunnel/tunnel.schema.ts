import { Type, type Static } from 'typebox';

/** `GET /api/config/host`: where webhook senders reach the service. */
export const HostConfigResponse = Type.Object({
  /** `HOST_SERVER`, the configured public base URL (no trailing slash). */
  host_server: Type.String(),
  /** The tunnel's public URL while it is up, else null. Webhook URLs use `public_url ?? host_server`. */
  public_url: Type.Union([Type.String(), Type.Null()]),
  /** True when `HOST_SERVER` is this machine (localhost, loopback): senders on the internet cannot reach it. */
  is_localhost: Type.Boolean(),
});
export type HostConfigResponse = Static<typeof HostConfigResponse>;
