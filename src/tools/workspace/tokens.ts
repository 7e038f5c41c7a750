/**
 * Token counting with a real tokenizer: js-tiktoken's o200k_base encoding (GPT-4o family), loaded lazily once per
 * process (the rank table is ~2 MB of JS). Special-token text such as "<|endoftext|>" in a file is counted as plain
 * text instead of throwing, since workspace files are data, not prompts.
 */
import type { Tiktoken, TiktokenBPE } from 'js-tiktoken/lite';

export const TOKENIZER = 'o200k_base' as const;
export type TokenizerName = typeof TOKENIZER;

let encoder: Tiktoken | undefined;

function getEncoder(): Tiktoken {
  if (encoder === undefined) {
    // Loaded on first use; the "js-tiktoken/ranks/*" subpath is only reachable through the package's exports map,
    // which the project's moduleResolution ("node") does not read, hence the typed require.
    const { Tiktoken: TiktokenClass } = require('js-tiktoken/lite') as typeof import('js-tiktoken/lite');
    const ranks = require('js-tiktoken/ranks/o200k_base') as TiktokenBPE | { default: TiktokenBPE };
    encoder = new TiktokenClass('default' in ranks ? ranks.default : ranks);
  }
  return encoder;
}

export function encodeTokens(text: string): number[] {
  return getEncoder().encode(text, [], []);
}

export function countTokens(text: string): number {
  return text === '' ? 0 : encodeTokens(text).length;
}

export function decodeTokens(tokens: number[]): string {
  return getEncoder().decode(tokens);
}
