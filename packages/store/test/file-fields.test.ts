import { describe, expect, it, vi } from "vitest";
import { adminAuth } from "../src/index.js";
import { databases, expectStoreError, useStore } from "./fixture.js";
import { testManifest } from "./manifests.js";

const manifest = testManifest("files", [
  {
    name: "Doc",
    fields: [
      { name: "title", type: "string" },
      { name: "attachment", type: "file", optional: true },
    ],
  },
]);

const FILE_A = "a".repeat(40);
const FILE_B = "b".repeat(40);

describe.each(databases)("file fields on $name", (database) => {
  const fixture = useStore(database, { manifest });

  it("stores a file id and refuses a value that is not one", async () => {
    const { store } = fixture();
    const doc = await store.transaction(adminAuth, (db) =>
      db.insert("Doc", { title: "x", attachment: FILE_A }),
    );
    expect((await store.reader(adminAuth).get("Doc", doc.id))?.attachment).toBe(FILE_A);
    await expectStoreError(
      store.transaction(adminAuth, (db) => db.insert("Doc", { title: "y", attachment: "../x" })),
      "INVALID_FIELD",
    );
  });

  it("runs the registered check on new and changed file ids only, refusing with its message", async () => {
    const { store } = fixture();
    const check = vi.fn(async ({ fileId }: { fileId: string }) =>
      fileId === FILE_B ? "That file is not yours." : null,
    );
    const unregister = store.onFileReference(check);
    const doc = await store.transaction(adminAuth, (db) =>
      db.insert("Doc", { title: "x", attachment: FILE_A }),
    );
    expect(check).toHaveBeenCalledTimes(1);
    expect(check.mock.calls[0]?.[0]).toMatchObject({
      fileId: FILE_A,
      entity: "Doc",
      field: "attachment",
    });
    // Unchanged file ids are not checked again (a collaborator may save the row).
    await store.transaction(adminAuth, (db) =>
      db.update("Doc", doc.id, { title: "renamed", attachment: FILE_A }),
    );
    expect(check).toHaveBeenCalledTimes(1);
    const error = await expectStoreError(
      store.transaction(adminAuth, (db) => db.update("Doc", doc.id, { attachment: FILE_B })),
      "INVALID_REFERENCE",
    );
    expect(error.message).toBe("That file is not yours.");
    unregister();
    await store.transaction(adminAuth, (db) => db.update("Doc", doc.id, { attachment: FILE_B }));
    expect(check).toHaveBeenCalledTimes(2);
  });
});
