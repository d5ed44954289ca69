/**
 * The instrument master (docs/rules/web.md#account-pages): its status — followed every second
 * while an import runs or this tab sends a file —, the administrator's download, and the upload
 * of an instrument file (docs/rules/market.md#master-contract-upload).
 */
import { useMutation, useMutationState, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { accountKeys } from './keys';

export type ContractStatus = Answer<'/api/master-contract/status'>;
export type Uploaded = Answer<'/api/master-contract/upload', 'post'>;

/** What an upload sends: the file and its format. */
export interface UploadVariables {
  file: File;
  broker: string;
}

/** Whether an import runs ("pending" with no run is the never-imported state). */
export const importRunning = (s: ContractStatus | undefined) =>
  s !== undefined && s.import_id !== null && (s.status === 'downloading' || s.status === 'pending');

/** The sizes of the files this tab is uploading, while their answers have not come. */
export function useUploadsOnTheirWay(): number[] {
  return useMutationState({
    filters: { mutationKey: accountKeys.masterContractUpload(), status: 'pending' },
    select: (m) => (m.state.variables as UploadVariables | undefined)?.file.size ?? 0,
  });
}

/** The status; asked every second while an import runs or `following` (a file is on its way). */
export function useContractStatus(following: boolean) {
  return useQuery({
    queryKey: accountKeys.masterContract(),
    queryFn: () => api<ContractStatus>('GET', '/api/master-contract/status'),
    refetchInterval: (q) => (importRunning(q.state.data) || following ? 1_000 : false),
  });
}

/** Reads the status again (an upload's answer came). */
export function useRefreshContractStatus(): () => Promise<void> {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: accountKeys.masterContract() });
}

/** Starts the background download (answered 202 Accepted); the status is read again either way. */
export function useDownloadContractMutation() {
  const refresh = useRefreshContractStatus();
  return useMutation({
    mutationFn: (broker: string) =>
      api<Answer<'/api/master-contract/download', 'post'>>('POST', '/api/master-contract/download', {
        broker,
      }),
    onSettled: refresh,
  });
}

/** Sends a file as multipart/form-data; the answer comes once the import is done. */
export function useUploadContractMutation(onSettled: () => void) {
  return useMutation({
    mutationKey: accountKeys.masterContractUpload(),
    mutationFn: (v: UploadVariables) => {
      // The broker first: the server reads the form in order and needs the format before the file.
      const form = new FormData();
      form.append('broker', v.broker);
      form.append('file', v.file, v.file.name);
      return api<Uploaded>('POST', '/api/master-contract/upload', form);
    },
    onSettled,
  });
}
