/**
 * Stands in for `tsx/esm/api` in the edge bundle: @svc/functions' file
 * loader imports it, and the edge never loads function files from disk
 * (the build bundles them).
 */
export function tsImport(): never {
  throw new Error("svc edge: function files are bundled at build time, never loaded from disk");
}
