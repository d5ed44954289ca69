/**
 * The administrator's mail settings (docs/rules/mail.md#smtp-settings-form): read with the
 * profile's data (other users get none), saved — the password sent once and never answered
 * (docs/rules/mail.md#password-never-shown) —, a test message and the staged diagnostics.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { profileKeys } from './keys';

type ProfileData = Answer<'/auth/profile-data'>;
export type MailView = NonNullable<ProfileData['data']['smtp']>;
export type MailDiagnosis = Answer<'/auth/debug-smtp', 'post'>;
type SavedMail = Answer<'/auth/smtp-config', 'post'>;
/** The form's fields as sent: a blank port goes as typed, for the server to name; no password keeps the stored one. */
export interface MailSettingsBody {
  smtp_server: string;
  smtp_port: number | '';
  smtp_username: string;
  smtp_use_tls: boolean;
  smtp_from_email: string;
  smtp_helo_hostname: string;
  smtp_password?: string;
}

export function useProfileData() {
  return useQuery({
    queryKey: profileKeys.data(),
    queryFn: () => api<ProfileData>('GET', '/auth/profile-data'),
  });
}

/** Saves the settings: the stored ones (without the password) show at once, then are read again. */
export function useSaveMailMutation(after?: AfterChange<SavedMail, MailSettingsBody>) {
  const queryClient = useQueryClient();
  const refresh = useRefreshAfter([profileKeys.data()]);
  return useMutation({
    mutationFn: (body: MailSettingsBody) => api<SavedMail>('POST', '/auth/smtp-config', body),
    onSuccess: async (saved, body) => {
      await after?.onSuccess?.(saved, body);
      queryClient.setQueryData<ProfileData>(profileKeys.data(), (old) =>
        old ? { ...old, data: { ...old.data, smtp: saved.smtp } } : old,
      );
      await refresh(saved, body);
    },
  });
}

export function useTestMailMutation() {
  return useMutation({
    mutationFn: (recipient: string) =>
      api<Answer<'/auth/test-smtp', 'post'>>('POST', '/auth/test-smtp', { recipient }),
  });
}

/** Resolves, connects, negotiates TLS, greets and signs in, stage by stage: a question, nothing changes. */
export function useMailDiagnosticsMutation() {
  return useMutation({ mutationFn: () => api<MailDiagnosis>('POST', '/auth/debug-smtp') });
}
