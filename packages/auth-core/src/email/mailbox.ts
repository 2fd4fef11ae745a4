import { hasControlCharacter } from "../delivery/env-values.js";

/** A sender split into its address and optional display name. */
export interface Mailbox {
  readonly address: string;
  readonly name?: string;
}

// Loose on purpose, like normalizeEmail: one @, no whitespace or the
// characters that delimit mailboxes in a header. A dot in the domain is not
// required, so `auth@localhost` works in development.
const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+$/;
const NAMED = /^(.*?)\s*<([^<>]*)>$/;
const MAX_ADDRESS_LENGTH = 254;

function isAddress(value: string): boolean {
  return value.length <= MAX_ADDRESS_LENGTH && ADDRESS.test(value);
}

/**
 * Parses `auth@example.com` or `Example <auth@example.com>` (the name may be
 * double-quoted). Returns undefined for anything else, including values with
 * control characters, which could smuggle extra headers into a provider
 * that builds MIME from them.
 */
export function parseMailbox(value: string): Mailbox | undefined {
  const text = value.trim();
  if (hasControlCharacter(text)) return undefined;
  if (isAddress(text)) return { address: text };
  const match = NAMED.exec(text);
  if (match === null) return undefined;
  const address = match[2]?.trim() ?? "";
  const name = (match[1] ?? "").trim().replace(/^"(.*)"$/, "$1");
  if (!isAddress(address) || name === "" || /[<>"]/.test(name)) return undefined;
  return { address, name };
}
