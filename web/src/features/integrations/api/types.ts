/**
 * The shapes of the integrations area, read from the server's own route schemas
 * (docs/rules/web.md#typed-api): a changed answer breaks the console's type-check, not a page.
 */
import type { Answer } from '../../../api/client';
import type { paths } from '../../../api/openapi';

/** The JSON body a route takes, as its schema states it. */
export type RequestBody<P extends keyof paths, M extends 'post' | 'put'> =
  paths[P] extends Record<M, { requestBody: { content: { 'application/json': infer B } } }> ? B : never;

/** A credential answer without its `status`: what the page shows once. */
type Credentials<A> = Omit<A, 'status'>;

export type Scanner = Answer<'/scanner/api/scanners'>['data'][number];
export type ScannerDelivery = Answer<'/scanner/api/scanners/{id}/deliveries'>['data'][number];
/** The webhook id and URL a scanner's creation or rotation issues (docs/rules/scanner.md#scanner-webhook-id). */
export type ScannerIssued = Credentials<Answer<'/scanner/api/scanners/{id}/rotate', 'post'>>;
export type ScannerInput = RequestBody<'/scanner/api/scanners', 'post'>;

export type Flow = Answer<'/flow/api/flows'>['data'][number];
export type FlowRun = Answer<'/flow/api/flows/{id}/runs'>['data'][number];
export type NodeOutcome = NonNullable<FlowRun['nodes']>[number];
/** The token, URL and secret a flow's creation or rotation issues (docs/rules/flow.md#flow-webhook). */
export type FlowIssued = Credentials<Answer<'/flow/api/flows/{id}/rotate', 'post'>>;
export type FlowInput = RequestBody<'/flow/api/flows', 'post'>;

/** Credentials just issued, with the name of the source they belong to. */
export type Named<I> = I & { name: string };
