import { execFile } from "node:child_process";
import { dirname } from "node:path";
import { promisify } from "node:util";
import { type Manifest, parseManifest, SchemaError } from "@svc/schema";
import { ConfigError } from "../config.js";
import { loadManifestFile } from "../manifest-file.js";

const run = promisify(execFile);

/** A manifest read by a `svc policy` command, and where it came from. */
export interface ManifestSource {
  readonly manifest: Manifest;
  /** As given: a path, or `git:<ref>:<path>`. */
  readonly label: string;
  /** The directory files beside the manifest are looked for in (a git source: its working-tree path's). */
  readonly dir: string;
}

// A ref git accepts and nothing that could read as an option.
const GIT_REF = /^[A-Za-z0-9_][A-Za-z0-9_./@{}~^-]{0,199}$/;

/** Parses manifest text; a problem is a `ConfigError` naming `label`. */
export function parseManifestText(text: string, label: string): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(
      "SVC_MANIFEST",
      `${label} is not valid JSON: ${(error as Error).message}`,
    );
  }
  try {
    return parseManifest(json);
  } catch (error) {
    if (error instanceof SchemaError)
      throw new ConfigError("SVC_MANIFEST", `${label}: ${error.message}`);
    throw error;
  }
}

/**
 * Reads a manifest from a path or from git: `git:<ref>:<path>` is the file
 * at `<path>` (relative to the repository root, as `git show` takes it) in
 * commit `<ref>`, e.g. `git:origin/main:svc.json`.
 */
export async function readManifestSource(
  spec: string,
  cwd = process.cwd(),
): Promise<ManifestSource> {
  if (!spec.startsWith("git:")) {
    return { manifest: await loadManifestFile(spec), label: spec, dir: dirname(spec) };
  }
  const rest = spec.slice(4);
  const colon = rest.indexOf(":");
  const ref = colon < 0 ? "" : rest.slice(0, colon);
  const path = colon < 0 ? "" : rest.slice(colon + 1);
  if (!GIT_REF.test(ref) || path === "" || path.startsWith("-")) {
    throw new ConfigError(
      "SVC_MANIFEST",
      `${spec}: expected git:<ref>:<path>, e.g. git:main:svc.json`,
    );
  }
  let text: string;
  try {
    ({ stdout: text } = await run("git", ["show", `${ref}:${path}`], {
      cwd,
      maxBuffer: 16 * 1024 * 1024,
    }));
  } catch (error) {
    const detail = String((error as { stderr?: unknown }).stderr ?? "")
      .trim()
      .split("\n")[0];
    throw new ConfigError("SVC_MANIFEST", `cannot read ${spec}: ${detail || "git show failed"}`);
  }
  return { manifest: parseManifestText(text, spec), label: spec, dir: dirname(path) };
}
