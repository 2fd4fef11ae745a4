// Small readers for the deployment recipes in deploy/ (systemd units,
// environment files, Dockerfile, nginx and Caddy configuration) and for
// the fenced blocks of the docs that show them. Each reader is strict
// about what the recipes use and throws on what it does not understand,
// so a malformed recipe fails the test instead of reading as empty.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

/** The repository root. */
export const REPO_ROOT = resolve(import.meta.dirname, "../../..");

/** A file of `deploy/`, as text. */
export function readRecipe(name: string): string {
  return readFileSync(resolve(REPO_ROOT, "deploy", name), "utf8");
}

/** A systemd unit: each section's settings in order (a key may repeat). */
export type Unit = ReadonlyMap<string, readonly (readonly [string, string])[]>;

/** Parses a systemd unit file: `[Section]` headers, `Key=Value` lines, `#`/`;` comments, `\` continuations. */
export function parseUnit(text: string): Unit {
  const sections = new Map<string, [string, string][]>();
  let current: [string, string][] | undefined;
  const lines = text.replace(/\\\n/g, " ").split("\n");
  lines.forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) return;
    const header = /^\[([A-Za-z]+)\]$/.exec(line);
    if (header?.[1] !== undefined) {
      current = [];
      sections.set(header[1], current);
      return;
    }
    const setting = /^([A-Za-z][A-Za-z0-9]*)=(.*)$/.exec(line);
    if (setting?.[1] === undefined || setting[2] === undefined || current === undefined) {
      throw new Error(`line ${index + 1}: not a unit setting: ${raw}`);
    }
    current.push([setting[1], setting[2].trim()]);
  });
  return sections;
}

/** Every value of `key` in `section`. */
export function unitValues(unit: Unit, section: string, key: string): string[] {
  return (unit.get(section) ?? []).filter(([name]) => name === key).map(([, value]) => value);
}

/** The one value of `key` in `section`; throws when absent or repeated. */
export function unitValue(unit: Unit, section: string, key: string): string {
  const values = unitValues(unit, section, key);
  if (values.length !== 1 || values[0] === undefined) {
    throw new Error(`[${section}] ${key}: expected one value, found ${values.length}`);
  }
  return values[0];
}

/** Parses an environment file of `KEY=value` lines (as systemd's `EnvironmentFile=` reads them). */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const match = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (match?.[1] === undefined || match[2] === undefined) {
      throw new Error(`line ${index + 1}: not KEY=value: ${raw}`);
    }
    if (match[1] in env) throw new Error(`line ${index + 1}: ${match[1]} set twice`);
    env[match[1]] = match[2];
  });
  return env;
}

/** One Dockerfile instruction, continuation lines joined. */
export interface DockerInstruction {
  readonly keyword: string;
  readonly args: string;
  readonly line: number;
}

/** Parses a Dockerfile into instructions (comments and blank lines dropped). */
export function parseDockerfile(text: string): DockerInstruction[] {
  const instructions: DockerInstruction[] = [];
  let pending: { text: string; line: number } | undefined;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (pending === undefined && (line === "" || line.startsWith("#"))) return;
    const continued = line.endsWith("\\");
    const part = continued ? line.slice(0, -1).trim() : line;
    pending =
      pending === undefined
        ? { text: part, line: index + 1 }
        : { text: `${pending.text} ${part}`, line: pending.line };
    if (continued) return;
    const match = /^([A-Z]+)\s+(.*)$/.exec(pending.text);
    if (match?.[1] === undefined || match[2] === undefined) {
      throw new Error(`line ${pending.line}: not an instruction: ${pending.text}`);
    }
    instructions.push({ keyword: match[1], args: match[2].trim(), line: pending.line });
    pending = undefined;
  });
  if (pending !== undefined) throw new Error("the Dockerfile ends inside a continuation");
  return instructions;
}

/** The `KEY=value` pairs of an `ENV` instruction (values without spaces or quotes). */
export function parseDockerEnv(args: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of args.split(/\s+/)) {
    const match = /^([A-Z][A-Z0-9_]*)=([^\s"']+)$/.exec(pair);
    if (match?.[1] === undefined || match[2] === undefined) {
      throw new Error(`ENV: expected KEY=value pairs, got ${pair}`);
    }
    env[match[1]] = match[2];
  }
  return env;
}

/** A directive of an nginx configuration: its words and, for a block, its directives. */
export interface NginxDirective {
  readonly name: string;
  readonly args: readonly string[];
  readonly block?: readonly NginxDirective[];
}

/** Parses nginx configuration syntax: words, quoted strings, `;`, `{ }`, `#` comments. */
export function parseNginx(text: string): NginxDirective[] {
  const tokens: string[] = [];
  const pattern = /\s+|#[^\n]*|'([^']*)'|"([^"]*)"|([{};])|([^\s{};'"#]+)/y;
  let at = 0;
  while (at < text.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(text);
    if (match === null) throw new Error(`nginx: cannot read at offset ${at}`);
    at = pattern.lastIndex;
    if (match[1] !== undefined) tokens.push(`'${match[1]}'`);
    else if (match[2] !== undefined) tokens.push(`"${match[2]}"`);
    else if (match[3] !== undefined) tokens.push(match[3]);
    else if (match[4] !== undefined) tokens.push(match[4]);
  }
  let position = 0;
  const readBlock = (nested: boolean): NginxDirective[] => {
    const directives: NginxDirective[] = [];
    const words: string[] = [];
    while (position < tokens.length) {
      const token = tokens[position++] as string;
      if (token === ";" || token === "{") {
        const [name, ...args] = words.splice(0);
        if (name === undefined) throw new Error(`nginx: ${token} without a directive`);
        directives.push(token === ";" ? { name, args } : { name, args, block: readBlock(true) });
      } else if (token === "}") {
        if (!nested || words.length > 0) throw new Error("nginx: unexpected }");
        return directives;
      } else {
        words.push(token);
      }
    }
    if (nested || words.length > 0) throw new Error("nginx: unterminated block or directive");
    return directives;
  };
  return readBlock(false);
}

/** A line of a Caddyfile: its words and, when it opens a block, the block's lines. */
export interface CaddyDirective {
  readonly name: string;
  readonly args: readonly string[];
  readonly block?: readonly CaddyDirective[];
}

/** Parses a Caddyfile: one directive per line, `{` at a line's end opens a block, `}` alone closes it. */
export function parseCaddyfile(text: string): CaddyDirective[] {
  const lines = text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
  let position = 0;
  const readBlock = (nested: boolean): CaddyDirective[] => {
    const directives: CaddyDirective[] = [];
    while (position < lines.length) {
      const line = lines[position++] as string;
      if (line === "}") {
        if (!nested) throw new Error("Caddyfile: unexpected }");
        return directives;
      }
      const words = (line.match(/"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^"|"$/g, ""));
      const opens = words.at(-1) === "{";
      if (opens) words.pop();
      if (words.some((word) => word === "{" || word === "}")) {
        throw new Error(`Caddyfile: braces must end a line or stand alone: ${line}`);
      }
      const [name, ...args] = words;
      if (name === undefined) throw new Error(`Caddyfile: empty directive: ${line}`);
      directives.push(opens ? { name, args, block: readBlock(true) } : { name, args });
    }
    if (nested) throw new Error("Caddyfile: unterminated block");
    return directives;
  };
  return readBlock(false);
}

/** A fenced block of a markdown page. */
export interface FencedBlock {
  readonly lang: string;
  readonly flags: readonly string[];
  readonly code: string;
  readonly line: number;
}

/** The ``` fenced blocks of a markdown text. */
export function fencedBlocks(markdown: string): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  let open: { lang: string; flags: string[]; line: number; lines: string[] } | undefined;
  markdown.split("\n").forEach((line, index) => {
    if (open === undefined) {
      const fence = /^```(\S*)\s*(.*)$/.exec(line);
      if (fence !== null) {
        open = {
          lang: fence[1] ?? "",
          flags: (fence[2] ?? "").split(/\s+/).filter((flag) => flag !== ""),
          line: index + 1,
          lines: [],
        };
      }
    } else if (/^```\s*$/.test(line)) {
      blocks.push({
        lang: open.lang,
        flags: open.flags,
        line: open.line,
        code: open.lines.join("\n"),
      });
      open = undefined;
    } else {
      open.lines.push(line);
    }
  });
  if (open !== undefined) throw new Error("a fenced block is not closed");
  return blocks;
}
