/**
 * The wizard's field messages in words (docs/rules/web.md#field-messages): the server's schema
 * check words a refusal for programs ("Must NOT have fewer than 1 characters."); under a field of
 * the form it reads as what to do ("Enter a symbol"). The strategy service's own checks are
 * already sentences ("SBINN is not a contract on NSE in the master contract.") and pass as they are.
 */

interface FieldWords {
  /** The field with its article, as in "Enter a symbol". */
  noun: string;
  /** The field at the start of a sentence, as in "Quantity must be at least 1". */
  label: string;
  /** What filling it in is: typing (`Enter`) or choosing among options (`Choose`). */
  verb: 'Enter' | 'Choose';
}

/** The wizard's fields by the last part of the server's name (`legs[0].symbol` → `symbol`). */
const FIELDS: Record<string, FieldWords> = {
  name: { noun: 'a name', label: 'The name', verb: 'Enter' },
  kind: { noun: 'a kind', label: 'The kind', verb: 'Choose' },
  product: { noun: 'a product', label: 'The product', verb: 'Choose' },
  direction: { noun: 'a direction', label: 'The direction', verb: 'Choose' },
  legs: { noun: 'a leg', label: 'The legs', verb: 'Enter' },
  symbol: { noun: 'a symbol', label: 'The symbol', verb: 'Enter' },
  exchange: { noun: 'an exchange', label: 'The exchange', verb: 'Choose' },
  underlying: { noun: 'an underlying', label: 'The underlying', verb: 'Enter' },
  quantity: { noun: 'a quantity', label: 'The quantity', verb: 'Enter' },
  quantity_unit: { noun: 'a unit', label: 'The unit', verb: 'Choose' },
  side: { noun: 'a side', label: 'The side', verb: 'Choose' },
  leg_type: { noun: 'a leg type', label: 'The leg type', verb: 'Choose' },
  option_type: { noun: 'an option type', label: 'The option type', verb: 'Choose' },
  expiry_rank: { noun: 'an expiry', label: 'The expiry', verb: 'Choose' },
  strike_offset: { noun: 'a strike offset', label: 'The strike offset', verb: 'Enter' },
  ip_allowlist: { noun: 'an address', label: 'Each address', verb: 'Enter' },
};

/** The words of a field by the server's name of it (`legs[0].symbol`, `ip_allowlist.2`, `name`). */
function wordsOf(field: string): FieldWords {
  const parts = field.split(/[.[\]]+/).filter((p) => p !== '' && !/^\d+$/.test(p));
  const last = parts.at(-1) ?? field;
  // An item of the allowlist (`ip_allowlist.2`) is an address like the list's others.
  return FIELDS[last] ?? { noun: 'a value', label: 'The value', verb: 'Enter' };
}

const plural = (n: number, one: string, many: string) => (n === 1 ? one : many);

/**
 * The message to show under `field` for the server's `message`: a schema failure in words, any
 * other message unchanged.
 */
export function fieldMessage(field: string, message: string): string {
  const w = wordsOf(field);
  const text = message.trim();
  let m: RegExpExecArray | null;
  if (text === 'Missing data for required field.') return `${w.verb} ${w.noun}`;
  if ((m = /^Must NOT have fewer than (\d+) characters?\.?$/i.exec(text))) {
    const n = Number(m[1]);
    return n <= 1 ? `${w.verb} ${w.noun}` : `${w.label} needs at least ${n} characters`;
  }
  if ((m = /^Must NOT have more than (\d+) characters?\.?$/i.exec(text)))
    return `${w.label} is too long: at most ${m[1]} characters`;
  if ((m = /^Must NOT have fewer than (\d+) items?\.?$/i.exec(text))) {
    const n = Number(m[1]);
    return n <= 1 ? `Add ${w.noun}` : `Add at least ${n} of them`;
  }
  if ((m = /^Must NOT have more than (\d+) items?\.?$/i.exec(text)))
    return `At most ${m[1]} ${plural(Number(m[1]), 'is', 'are')} allowed`;
  if ((m = /^Must be (>=|<=|>|<) (-?\d+(?:\.\d+)?)\.?$/i.exec(text))) {
    const bound = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' }[m[1]!]!;
    return `${w.label} must be ${bound} ${m[2]}`;
  }
  if (/^Must be integer\.?$/i.test(text)) return `${w.label} must be a whole number`;
  if (/^Must be (number|string|boolean|array|object)\.?$/i.test(text)) return `${w.verb} ${w.noun}`;
  if ((m = /^Must be one of: (.*?)\.?$/i.exec(text))) return `${w.verb} ${w.noun}: ${m[1]}`;
  if (/^Must match (pattern|format)\b/i.test(text)) return `${w.label} is not written as expected`;
  return text;
}
