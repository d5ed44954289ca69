/**
 * The market calendar the administrator keeps (docs/rules/market.md): freeze quantities (with
 * NSE's CSV), holidays by year and each exchange's regular session, and the administration home's
 * counts. Every change refreshes every administration query (`adminKeys.all()`), as the pages did.
 */
import { queryOptions, useMutation, useQuery } from '@tanstack/react-query';
import { api, type Answer } from '../../../api/client';
import { useRefreshAfter, type AfterChange } from '../../../api/refresh';
import { adminKeys } from './keys';

export type FreezeEntry = Answer<'/admin/api/freeze'>['data'][number];
export type FreezeUpload = Answer<'/admin/api/freeze/upload', 'post'>;
/** A freeze quantity as the add and edit forms send it. */
export type FreezeBody = Pick<FreezeEntry, 'exchange' | 'symbol' | 'freeze_qty'>;
export type Holiday = Answer<'/admin/api/holidays'>['data'][number];
/** A special session as the add form sends it (`HH:MM` IST). */
export type HolidaySession = Pick<Holiday['open_exchanges'][number], 'exchange' | 'start_time' | 'end_time'>;
export interface HolidayBody {
  holiday_date: string;
  description: string;
  holiday_type: string;
  exchanges: string[];
  open_exchanges: HolidaySession[];
}
export type Timing = Answer<'/admin/api/timings'>['data'][number];
export type DateCheck = Answer<'/admin/api/timings/check', 'post'>['data'];
export type SessionOnDate = DateCheck['sessions'][number];

export const calendarQueries = {
  stats: () =>
    queryOptions({
      queryKey: adminKeys.stats(),
      queryFn: () => api<Answer<'/admin/api/stats'>>('GET', '/admin/api/stats'),
    }),
  freeze: () =>
    queryOptions({
      queryKey: adminKeys.freeze(),
      queryFn: () => api<Answer<'/admin/api/freeze'>>('GET', '/admin/api/freeze'),
    }),
  holidays: (year?: number) =>
    queryOptions({
      queryKey: adminKeys.holidays(year),
      queryFn: () =>
        api<Answer<'/admin/api/holidays'>>('GET', `/admin/api/holidays${year ? `?year=${year}` : ''}`),
    }),
  timings: () =>
    queryOptions({
      queryKey: adminKeys.timings(),
      queryFn: () => api<Answer<'/admin/api/timings'>>('GET', '/admin/api/timings'),
    }),
};

export const useAdminStats = () => useQuery(calendarQueries.stats());
export const useFreezeQuantities = () => useQuery(calendarQueries.freeze());
export const useHolidays = (year?: number) => useQuery(calendarQueries.holidays(year));
export const useTimings = () => useQuery(calendarQueries.timings());

/** The `onSuccess` of a calendar change: every administration query is asked again. */
const useRefreshAdmin = <T, V>(after?: AfterChange<T, V>) => useRefreshAfter([adminKeys.all()], after);

type SavedFreeze = Answer<'/admin/api/freeze', 'post'>;
/** Adds a freeze quantity, or — with `id` — changes that one. */
export function useSaveFreezeMutation(after?: AfterChange<SavedFreeze, { id?: number; body: FreezeBody }>) {
  return useMutation({
    mutationFn: ({ id, body }: { id?: number; body: FreezeBody }) =>
      id === undefined
        ? api<SavedFreeze>('POST', '/admin/api/freeze', body)
        : api<Answer<'/admin/api/freeze/{id}', 'put'>>('PUT', `/admin/api/freeze/${id}`, body),
    onSuccess: useRefreshAdmin(after),
  });
}

/** NSE's `qtyfreeze` CSV for one exchange: it replaces that exchange's whole list. */
export function useUploadFreezeMutation() {
  return useMutation({
    mutationFn: ({ exchange, file }: { exchange: string; file: File | null }) => {
      const form = new FormData();
      form.append('exchange', exchange);
      if (file) form.append('file', file, file.name);
      return api<FreezeUpload>('POST', '/admin/api/freeze/upload', form);
    },
    onSuccess: useRefreshAdmin(),
  });
}

export function useDeleteFreezeMutation(after?: AfterChange<unknown, number>) {
  return useMutation({
    mutationFn: (id: number) =>
      api<Answer<'/admin/api/freeze/{id}', 'delete'>>('DELETE', `/admin/api/freeze/${id}`),
    onSuccess: useRefreshAdmin(after),
  });
}

export function useAddHolidayMutation(
  after?: AfterChange<Answer<'/admin/api/holidays', 'post'>, HolidayBody>,
) {
  return useMutation({
    mutationFn: (body: HolidayBody) =>
      api<Answer<'/admin/api/holidays', 'post'>>('POST', '/admin/api/holidays', body),
    onSuccess: useRefreshAdmin(after),
  });
}

export function useDeleteHolidayMutation(after?: AfterChange<unknown, number>) {
  return useMutation({
    mutationFn: (id: number) =>
      api<Answer<'/admin/api/holidays/{id}', 'delete'>>('DELETE', `/admin/api/holidays/${id}`),
    onSuccess: useRefreshAdmin(after),
  });
}

/** One exchange's regular session (`HH:MM` IST); the server checks each time and names the field. */
export function useSaveTimingMutation(exchange: string) {
  return useMutation({
    mutationFn: (body: { start_time: string; end_time: string }) =>
      api<Answer<'/admin/api/timings/{exchange}', 'put'>>(
        'PUT',
        `/admin/api/timings/${encodeURIComponent(exchange)}`,
        body,
      ),
    onSuccess: useRefreshAdmin(),
  });
}

/** A date against the calendar (weekend, holiday, special session): a question, nothing changes. */
export function useCheckDateMutation() {
  return useMutation({
    mutationFn: (date: string) =>
      api<Answer<'/admin/api/timings/check', 'post'>>('POST', '/admin/api/timings/check', { date }),
  });
}
