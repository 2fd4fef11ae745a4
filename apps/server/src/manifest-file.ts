import { readFile } from "node:fs/promises";
import { type Manifest, parseManifest, SchemaError } from "@svc/schema";
import { ConfigError } from "./config.js";

/** Reads and validates the manifest file; any problem is a `ConfigError` on `SVC_MANIFEST`. */
export async function loadManifestFile(path: string): Promise<Manifest> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const reason = (error as { code?: unknown }).code === "ENOENT" ? "no such file" : "unreadable";
    throw new ConfigError("SVC_MANIFEST", `cannot read ${path}: ${reason}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError("SVC_MANIFEST", `${path} is not valid JSON: ${(error as Error).message}`);
  }
  try {
    return parseManifest(json);
  } catch (error) {
    if (error instanceof SchemaError)
      throw new ConfigError("SVC_MANIFEST", `${path}: ${error.message}`);
    throw error;
  }
}
