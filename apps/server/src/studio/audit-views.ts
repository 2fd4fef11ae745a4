import type { AuditEvent } from "@svc/auth-core";
import type { SafeHTML } from "./html.js";

/** An audit event's data as the audit page shows it, when the studio knows its kind; else undefined. */
export function auditDataCell(_event: AuditEvent): SafeHTML | undefined {
  return undefined;
}
