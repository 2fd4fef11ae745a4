import { type EntityDef, findEntity } from "@svc/schema";
import { adminAuth, type QueryOptions, type Row } from "@svc/store";
import type { Request, RequestHandler, Response, Router } from "express";
import {
  COUNT_CAP,
  defaultOrder,
  type RowFilter,
  type RowOrder,
  renderEntityList,
  renderRowForm,
  renderRowsPage,
} from "./entity-views.js";
import { changedValues, insertValues, textFromValue, valueFromText } from "./form-values.js";
import { STUDIO_PATH, studioURL } from "./layout.js";
import { safeReturnPath } from "./sign-in-pages.js";
import { editEvent } from "./studio-audit.js";
import { StudioError } from "./studio-errors.js";
import {
  checkCsrfToken,
  cursorParam,
  formField,
  queryParam,
  sendPage,
  sessionOf,
} from "./studio-http.js";
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

/** The list's order from `sort` and `dir`, else the entity's default (newest first when it can). */
function orderOf(entity: EntityDef, req: Request): RowOrder {
  const field = queryParam(req, "sort", 128);
  const direction = queryParam(req, "dir", 8);
  if (direction !== undefined && direction !== "asc" && direction !== "desc") {
    throw new StudioError("INVALID_FORM", "The parameter dir must be asc or desc.");
  }
  if (field === undefined) {
    const fallback = defaultOrder(entity);
    return direction === undefined ? fallback : { ...fallback, direction };
  }
  return { field, direction: direction ?? "asc" };
}

/**
 * Where an inline edit returns: its list page (a studio path, as the
 * sign-in checks them) with the notice, or undefined when none was given.
 */
function inlineReturn(req: Request, done: string): string | undefined {
  const given = formField(req, "_return");
  if (given === undefined) return undefined;
  const path = safeReturnPath(given);
  const url = new URL(path, "http://studio.invalid");
  url.searchParams.set("done", done);
  return path === STUDIO_PATH ? undefined : `${url.pathname}${url.search}`;
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

/** Only the fields the form sent, as typed (a repeated field is left out). */
function textsOfSentForm(entity: EntityDef, req: Request): Record<string, string> {
  const body = (req.body ?? {}) as Record<string, unknown>;
  const texts: Record<string, string> = {};
  for (const field of entity.fields) {
    const value = body[field.name];
    if (typeof value === "string") texts[field.name] = value;
  }
  return texts;
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
 * rights: policies do not apply, the store's validation does. Each write
 * records a `StudioEdit` audit event in its own transaction.
 */
export function registerEntityPages(
  router: Router,
  options: StudioOptions,
  signedIn: readonly RequestHandler[],
): void {
  const { store, auth } = options;

  router.get("/studio", ...signedIn, async (_req, res) => {
    const counts = new Map<string, number>();
    await Promise.all(
      store.manifest.entities.map(async (entity) => {
        counts.set(entity.name, await store.count(adminAuth, entity.name, { max: COUNT_CAP }));
      }),
    );
    sendPage(res, 200, renderEntityList(store.manifest, counts, sessionOf(res).csrfToken));
  });

  router.get("/studio/entities/:entity", ...signedIn, async (req, res) => {
    const entity = entityOf(options, req);
    const filter: RowFilter = {
      field: queryParam(req, "field", 128),
      value: queryParam(req, "value"),
    };
    const cursor = cursorParam(req);
    const done = queryParam(req, "done");
    const order = orderOf(entity, req);
    const csrfToken = sessionOf(res).csrfToken;
    const page = { manifest: store.manifest, entity, filter, order, cursor, csrfToken };
    try {
      const where = filterQuery(entity, filter);
      const [rows, total] = await Promise.all([
        store.reader(adminAuth).query(entity.name, {
          limit: PAGE_SIZE,
          orderBy: order,
          ...(where !== undefined && { where }),
          ...(cursor !== undefined && { cursor }),
        }),
        store.count(adminAuth, entity.name, {
          max: COUNT_CAP,
          ...(where !== undefined && { where }),
        }),
      ]);
      sendPage(
        res,
        200,
        renderRowsPage({
          ...page,
          rows: rows.rows,
          total,
          nextCursor: rows.nextCursor,
          notice: done === undefined ? undefined : NOTICES.get(done),
        }),
      );
    } catch (error) {
      // A bad filter, sort or cursor: the page with the store's error, no rows.
      const shown = shownErrorOf(error);
      if (shown === null) throw error;
      sendPage(
        res,
        shown.status,
        renderRowsPage({
          ...page,
          rows: [],
          total: undefined,
          nextCursor: null,
          error: shown.error,
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
      // The audit event commits with the row, or neither does.
      const row = await store.frameworkTransaction(adminAuth, async ({ entities, db }) => {
        const inserted = await entities.insert(entity.name, data);
        await auth.recordOperatorAudit(
          editEvent(req, res, { action: "insert", entity, rowId: inserted.id, written: data }),
          db,
        );
        return inserted;
      });
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
      await store.frameworkTransaction(adminAuth, async ({ entities, db }) => {
        const current = await entities.get(entity.name, id);
        if (current === null) throw new StudioError("NOT_FOUND", `No ${entity.name} with that id.`);
        const patch = changedValues(entity.fields, current, (name) => formField(req, name));
        if (Object.keys(patch).length === 0) return;
        await entities.update(entity.name, id, patch);
        await auth.recordOperatorAudit(
          editEvent(req, res, {
            action: "update",
            entity,
            rowId: id,
            written: patch,
            before: current,
          }),
          db,
        );
      });
      // Back to the list: the page an inline edit came from, else the saved row.
      res.redirect(
        303,
        inlineReturn(req, "updated") ??
          studioURL(["entities", entity.name], { field: "id", value: id, done: "updated" }),
      );
    } catch (error) {
      // The row's form with what was typed; fields the form left out (an
      // inline edit sends one) keep their stored values.
      const stored = await store
        .reader(adminAuth)
        .get(entity.name, id)
        .catch(() => null);
      const texts = {
        ...(stored === null ? {} : textsOfRow(entity, stored)),
        ...textsOfSentForm(entity, req),
      };
      resendForm(res, { entity, id, texts }, error);
    }
  });

  router.post("/studio/entities/:entity/rows/:id/delete", ...signedIn, async (req, res) => {
    checkCsrfToken(req, res);
    const entity = entityOf(options, req);
    const id = String(req.params.id);
    await store.frameworkTransaction(adminAuth, async ({ entities, db }) => {
      await entities.delete(entity.name, id);
      await auth.recordOperatorAudit(
        editEvent(req, res, { action: "delete", entity, rowId: id }),
        db,
      );
    });
    res.redirect(303, studioURL(["entities", entity.name], { done: "deleted" }));
  });
}
