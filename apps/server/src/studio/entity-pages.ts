import { type EntityDef, findEntity } from "@svc/schema";
import { adminAuth, type QueryOptions, type Row } from "@svc/store";
import type { Request, RequestHandler, Response, Router } from "express";
import { type RowFilter, renderEntityList, renderRowForm, renderRowsPage } from "./entity-views.js";
import { changedValues, insertValues, textFromValue, valueFromText } from "./form-values.js";
import { studioURL } from "./layout.js";
import { StudioError } from "./studio-errors.js";
import { checkCsrfToken, formField, queryParam, sendPage, sessionOf } from "./studio-http.js";
import { type StudioOptions, shownErrorOf } from "./studio-options.js";

const PAGE_SIZE = 50;

/** Fixed notices a redirect may ask for (`?done=`); nothing from the URL is echoed. */
const NOTICES: ReadonlyMap<string, string> = new Map([
  ["inserted", "Row inserted."],
  ["updated", "Row saved."],
  ["deleted", "Row deleted."],
]);

function entityOf(options: StudioOptions, req: Request): EntityDef {
  const entity = findEntity(options.store.manifest, String(req.params.entity));
  if (entity === undefined) throw new StudioError("NOT_FOUND", "The manifest has no such entity.");
  return entity;
}

/**
 * The list filter as store options: `field = value`, the value read by the
 * field's kind as the row form reads it (the store checks it, like the
 * entity API's `where`).
 */
function filterQuery(entity: EntityDef, filter: RowFilter): QueryOptions["where"] {
  if (filter.field === undefined || filter.value === undefined) return undefined;
  if (filter.field === "id") return { id: filter.value };
  const field = entity.fields.find((candidate) => candidate.name === filter.field);
  // An unknown name goes to the store as it is, which answers INVALID_QUERY.
  return {
    [filter.field]: field === undefined ? filter.value : valueFromText(field, filter.value),
  };
}

function textsOfRow(entity: EntityDef, row: Row): Record<string, string> {
  return Object.fromEntries(
    entity.fields.map((field) => [field.name, textFromValue(field, row[field.name])]),
  );
}

function textsOfForm(entity: EntityDef, req: Request): Record<string, string> {
  return Object.fromEntries(
    entity.fields.map((field) => [field.name, formField(req, field.name) ?? ""]),
  );
}

/** Answers a failed write with the form again, its values kept and the error shown. */
function resendForm(
  res: Response,
  input: { entity: EntityDef; id: string | undefined; texts: Record<string, string> },
  error: unknown,
): void {
  const shown = shownErrorOf(error);
  if (shown === null) throw error;
  sendPage(
    res,
    shown.status,
    renderRowForm({ ...input, error: shown.error, csrfToken: sessionOf(res).csrfToken }),
  );
}

/**
 * The entity pages: the list of entities, an entity's rows (store cursor
 * paging, a `field = value` filter), the insert form, a row's edit form and
 * its delete. Reads and writes go through the store with the admin token's
 * rights: policies do not apply, the store's validation does.
 */
export function registerEntityPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const { store } = options;

  router.get("/studio", ...signedIn, (_req, res) => {
    sendPage(res, 200, renderEntityList(store.manifest, sessionOf(res).csrfToken));
  });

  router.get("/studio/entities/:entity", ...signedIn, async (req, res) => {
    const entity = entityOf(options, req);
    const filter: RowFilter = { field: queryParam(req, "field"), value: queryParam(req, "value") };
    const cursor = queryParam(req, "cursor");
    const done = queryParam(req, "done");
    const csrfToken = sessionOf(res).csrfToken;
    try {
      const where = filterQuery(entity, filter);
      const page = await store.reader(adminAuth).query(entity.name, {
        limit: PAGE_SIZE,
        ...(where !== undefined && { where }),
        ...(cursor !== undefined && { cursor }),
      });
      sendPage(
        res,
        200,
        renderRowsPage({
          entity,
          rows: page.rows,
          filter,
          cursor,
          nextCursor: page.nextCursor,
          notice: done === undefined ? undefined : NOTICES.get(done),
          csrfToken,
        }),
      );
    } catch (error) {
      // A bad filter or cursor: the page with the store's error, no rows.
      const shown = shownErrorOf(error);
      if (shown === null) throw error;
      sendPage(
        res,
        shown.status,
        renderRowsPage({
          entity,
          rows: [],
          filter,
          cursor,
          nextCursor: null,
          error: shown.error,
          csrfToken,
        }),
      );
    }
  });

  router.get("/studio/entities/:entity/new", ...signedIn, (req, res) => {
    const entity = entityOf(options, req);
    sendPage(
      res,
      200,
      renderRowForm({ entity, id: undefined, texts: {}, csrfToken: sessionOf(res).csrfToken }),
    );
  });

  router.post("/studio/entities/:entity/new", ...signedIn, async (req, res) => {
    checkCsrfToken(req, res);
    const entity = entityOf(options, req);
    try {
      const data = insertValues(entity.fields, (name) => formField(req, name));
      const row = await store.transaction(adminAuth, (db) => db.insert(entity.name, data));
      res.redirect(
        303,
        studioURL(["entities", entity.name], { field: "id", value: row.id, done: "inserted" }),
      );
    } catch (error) {
      resendForm(res, { entity, id: undefined, texts: textsOfForm(entity, req) }, error);
    }
  });

  router.get("/studio/entities/:entity/rows/:id", ...signedIn, async (req, res) => {
    const entity = entityOf(options, req);
    const id = String(req.params.id);
    const row = await store.reader(adminAuth).get(entity.name, id);
    if (row === null) throw new StudioError("NOT_FOUND", `No ${entity.name} with that id.`);
    sendPage(
      res,
      200,
      renderRowForm({
        entity,
        id: row.id,
        texts: textsOfRow(entity, row),
        csrfToken: sessionOf(res).csrfToken,
      }),
    );
  });

  router.post("/studio/entities/:entity/rows/:id", ...signedIn, async (req, res) => {
    checkCsrfToken(req, res);
    const entity = entityOf(options, req);
    const id = String(req.params.id);
    try {
      await store.transaction(adminAuth, async (db) => {
        const current = await db.get(entity.name, id);
        if (current === null) throw new StudioError("NOT_FOUND", `No ${entity.name} with that id.`);
        const patch = changedValues(entity.fields, current, (name) => formField(req, name));
        if (Object.keys(patch).length > 0) await db.update(entity.name, id, patch);
      });
      // Back to the list, showing the saved row.
      res.redirect(
        303,
        studioURL(["entities", entity.name], { field: "id", value: id, done: "updated" }),
      );
    } catch (error) {
      resendForm(res, { entity, id, texts: textsOfForm(entity, req) }, error);
    }
  });

  router.post("/studio/entities/:entity/rows/:id/delete", ...signedIn, async (req, res) => {
    checkCsrfToken(req, res);
    const entity = entityOf(options, req);
    const id = String(req.params.id);
    await store.transaction(adminAuth, (db) => db.delete(entity.name, id));
    res.redirect(303, studioURL(["entities", entity.name], { done: "deleted" }));
  });
}
