/** Whether the screen is a phone's (docs/rules/web.md#phone-width): lists become cards, dialogs fill it. */
import { useMediaQuery } from '@mantine/hooks';

export const usePhone = () => useMediaQuery('(max-width: 36em)') ?? false;
