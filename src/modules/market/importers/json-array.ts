import { StringDecoder } from 'node:string_decoder';
import type { ContractInput } from './csv.js';

/** One element of a top-level JSON array with its 1-based position in the array. */
export interface JsonElement {
  index: number;
  value: unknown;
}

/** A single element may not exceed this; a string never closed would otherwise swallow the file. */
const MAX_ELEMENT_CHARS = 64 * 1024;

type State = 'start' | 'first' | 'next' | 'element' | 'end';

const BOM = 0xfeff;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function malformed(message: string): Error {
  return new Error(`malformed JSON: ${message}`);
}

/**
 * Streams the elements of a file holding one JSON array (`[{…},{…},…]`), in bounded memory: the
 * 100+ MB Angel One scrip master is never held whole. Elements come in batches (those completed by
 * one input chunk): one await per chunk rather than per element.
 *
 * Each element's extent is found by scanning (strings, escapes, nesting), then the element alone
 * is given to `JSON.parse`, so every value is exactly what `JSON.parse` makes of it.
 *
 * - Throws `not ${what}: …` before yielding anything when the input is empty (or blank) or does
 *   not start with `[` (after a BOM and whitespace).
 * - Rejects with `malformed JSON: …` when an element is not valid JSON, is empty (`[1,,2]`), exceeds
 *   64 Ki characters, the input ends before the closing `]`, or text follows it: past such a fault
 *   nothing can be trusted, so the caller must abort.
 * - An error of the input stream (truncated gzip, I/O) is rethrown unchanged.
 */
export async function* readJsonArrayBatches(
  input: ContractInput,
  what: string,
): AsyncGenerator<JsonElement[]> {
  const decoder = new StringDecoder('utf8');
  let state: State = 'start';
  /** Text not yet consumed: the element in progress, from its first character. */
  let buf = '';
  /** Where scanning resumes in `buf`. */
  let pos = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;
  let index = 0;
  let seen = 0;

  const scan = (batch: JsonElement[]): void => {
    const n = buf.length;
    let i = pos;
    let start = state === 'element' ? 0 : -1;
    const finish = (end: number) => {
      const text = buf.slice(start, end).trim();
      index += 1;
      if (text === '') throw malformed(`element ${index} is empty`);
      try {
        batch.push({ index, value: JSON.parse(text) as unknown });
      } catch (err) {
        throw malformed(`element ${index}: ${(err as Error).message}`);
      }
    };
    for (; i < n; i++) {
      const c = buf.charCodeAt(i);
      switch (state) {
        case 'start':
          if (isSpace(c) || (c === BOM && seen === 0)) break;
          if (c !== OPEN_BRACKET) {
            const head = buf.slice(i, i + 40).replace(/\s+/g, ' ');
            throw new Error(`not ${what}: not a JSON array (it starts with "${head}")`);
          }
          state = 'first';
          break;
        case 'first':
        case 'next':
          if (isSpace(c)) break;
          if (c === CLOSE_BRACKET) {
            if (state === 'next') throw malformed(`a comma before the closing ] after element ${index}`);
            state = 'end';
            break;
          }
          state = 'element';
          start = i;
          depth = 0;
          inString = false;
          escaped = false;
          i -= 1; // scan this character as part of the element
          break;
        case 'element':
          if (i - start > MAX_ELEMENT_CHARS) throw malformed(`element ${index + 1} is over 64 KiB`);
          if (inString) {
            if (escaped) escaped = false;
            else if (c === BACKSLASH) escaped = true;
            else if (c === QUOTE) inString = false;
          } else if (c === QUOTE) inString = true;
          else if (c === OPEN_BRACE || c === OPEN_BRACKET) depth += 1;
          else if (depth > 0 && (c === CLOSE_BRACE || c === CLOSE_BRACKET)) depth -= 1;
          else if (depth === 0 && c === COMMA) {
            finish(i);
            state = 'next';
            start = -1;
          } else if (depth === 0 && c === CLOSE_BRACKET) {
            finish(i);
            state = 'end';
            start = -1;
          } else if (depth === 0 && c === CLOSE_BRACE)
            throw malformed(`unbalanced } in element ${index + 1}`);
          break;
        case 'end':
          if (!isSpace(c)) throw malformed(`text after the closing ] of the array`);
          break;
      }
      seen += 1;
    }
    // Keep only the element in progress; everything before it is consumed.
    if (state === 'element') {
      buf = buf.slice(start);
      pos = n - start;
    } else {
      buf = '';
      pos = 0;
    }
  };

  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    buf += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    const batch: JsonElement[] = [];
    scan(batch);
    if (batch.length > 0) yield batch;
  }
  buf += decoder.end();
  const batch: JsonElement[] = [];
  scan(batch);
  if (batch.length > 0) yield batch;
  if (state === 'start') throw new Error(`not ${what}: the file is empty`);
  if (state !== 'end') throw malformed(`the input ends before the array is closed (truncated?)`);
}
