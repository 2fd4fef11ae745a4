import { type Manifest, parseManifest } from "@svc/schema";

const fields = [
  { name: "title", type: "string" },
  { name: "tenantId", type: "string" },
  { name: "n", type: "int" },
  // Case 3: the server's clock just before the write (ms, performance.timeOrigin-based).
  { name: "sentAt", type: "float" },
] as const;

/**
 * The fan-out server's app: `Feed` every signed-in user may read (cases 1
 * and 3: the policy runs and admits), `TenantFeed` readable within the
 * caller's tenant (case 2: half of the subscribers see each row), `Idle`
 * for the idle subscriptions of case 4.
 */
export const fanoutManifest: Manifest = parseManifest({
  manifest_version: 1,
  name: "fanout-bench",
  version: "0",
  entities: [
    { name: "Feed", fields: [...fields] },
    { name: "TenantFeed", fields: [...fields] },
    { name: "Idle", fields: [{ name: "title", type: "string" }] },
  ],
  policies: [
    { name: "signed in", entity: "Feed", allowRead: "auth.userId != null" },
    {
      name: "own tenant",
      entity: "TenantFeed",
      allowRead: "auth.tenantId != null && auth.tenantId == data.tenantId",
    },
    { name: "signed in", entity: "Idle", allowRead: "auth.userId != null" },
  ],
});
