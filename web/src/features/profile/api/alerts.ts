/**
 * The user's order alerts (docs/rules/alerts.md#alert-credentials) and the WhatsApp sender of
 * the notify API (docs/rules/alerts.md#notify-api): read, changed (a credential sent once, then
 * only said to be set) and tried with a test alert.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import type { AfterChange } from '../../../api/refresh';
import { profileKeys } from './keys';

type AlertsAnswer = Answer<'/settings/alerts'>;
export type AlertView = AlertsAnswer['settings'];
export type AlertTest = Answer<'/settings/alerts/test', 'post'>;
/** A change: only what it names; a credential set to null is removed. */
export type AlertPatch = Partial<{
  telegram_enabled: boolean;
  telegram_bot_token: string | null;
  telegram_chat_id: string | null;
  slack_enabled: boolean;
  slack_webhook_url: string | null;
  notify_on: AlertView['notify_on'];
  whatsapp_access_token: string | null;
  whatsapp_phone_number_id: string | null;
  whatsapp_own_number: string | null;
}>;

export function useAlertSettings() {
  return useQuery({
    queryKey: profileKeys.alerts(),
    queryFn: () => api<AlertsAnswer>('GET', '/settings/alerts'),
  });
}

/** Saves a change; the answer's settings are shown at once. */
export function useSaveAlertsMutation(after?: AfterChange<Answer<'/settings/alerts', 'post'>, AlertPatch>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (patch: AlertPatch) =>
      api<Answer<'/settings/alerts', 'post'>>('POST', '/settings/alerts', patch),
    onSuccess: async (saved, patch) => {
      await after?.onSuccess?.(saved, patch);
      queryClient.setQueryData(profileKeys.alerts(), { status: 'success', settings: saved.settings });
    },
  });
}

/** Sends a test alert to every channel switched on. */
export function useTestAlertMutation() {
  return useMutation({ mutationFn: () => api<AlertTest>('POST', '/settings/alerts/test') });
}
