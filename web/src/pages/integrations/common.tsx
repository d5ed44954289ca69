/**
 * The copy line and the one-time display of credentials, kept here for the API key page
 * (web/src/pages/ApiKeyPage.tsx), which imports them from this path; they live with the webhook
 * pages' shared pieces in components/webhooks.
 */
export { CopyLine, ShownOnce } from '../../components/webhooks/credentials';
