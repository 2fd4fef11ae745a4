import { compilePolicies } from "@svc/policy-engine";
import { lintPolicies } from "@svc/policy-engine/analysis";
import type { Manifest } from "@svc/schema";

/**
 * The policy lint's errors and warnings as boot warnings (dev mode): one
 * line each, ending with where to read more. Notes (`info`) are left to
 * `svc policy lint`. Never throws: a lint failure must not stop a boot.
 */
export function policyLintWarnings(manifest: Manifest): string[] {
  try {
    return lintPolicies(compilePolicies(manifest))
      .filter((finding) => finding.level !== "info")
      .map(
        (finding) =>
          `policy lint: ${finding.level} ${finding.code}: ${finding.message}${finding.index === undefined ? "" : ` Index: ${JSON.stringify(finding.index.manifest)}.`} (svc policy lint)`,
      );
  } catch (error) {
    return [`policy lint could not run: ${(error as Error).message}`];
  }
}
