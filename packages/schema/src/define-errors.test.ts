import { describe, expect, expectTypeOf, it } from "vitest";
import { commonError, commonErrorCodes, commonErrors } from "./common-errors.js";
import { defineErrors } from "./define-errors.js";
import { isWireError, toErrorResponse } from "./wire-error.js";

const shopErrorCodes = {
  ...commonErrors("AUTH_REQUIRED", "INVALID_JSON"),
  ...commonError("ADMIN_REQUIRED", "Only the shop's owner may do this."),
  OUT_OF_STOCK: { status: 409, message: "The item is out of stock." },
} as const;

class ShopError extends defineErrors("ShopError", shopErrorCodes) {}

const localErrorCodes = {
  ...commonErrors("NOT_FOUND"),
  BAD_CONFIG: { status: undefined, message: "The shop is misconfigured." },
} as const;

class LocalError extends defineErrors("LocalError", localErrorCodes) {}

describe("defineErrors", () => {
  it("makes wire errors with the table's status and message", () => {
    const error = new ShopError("OUT_OF_STOCK");
    expect(error).toBeInstanceOf(ShopError);
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: "ShopError",
      code: "OUT_OF_STOCK",
      status: 409,
      message: "The item is out of stock.",
      expose: true,
    });
    expect(isWireError(error)).toBe(true);
    expect(ShopError.name).toBe("ShopError");
    expect(ShopError.codes).toBe(shopErrorCodes);
  });

  it("composes common codes with their common status and message", () => {
    expect(new ShopError("AUTH_REQUIRED")).toMatchObject({
      status: 401,
      message: commonErrorCodes.AUTH_REQUIRED.message,
    });
    expect(new ShopError("INVALID_JSON").message).toBe(commonErrorCodes.INVALID_JSON.message);
  });

  it("keeps a package's own wording of a common code, with the common status", () => {
    expect(new ShopError("ADMIN_REQUIRED")).toMatchObject({
      status: commonErrorCodes.ADMIN_REQUIRED.status,
      message: "Only the shop's owner may do this.",
    });
  });

  it("takes message, status, details, headers and cause from the throw site", () => {
    const cause = new Error("underneath");
    const error = new ShopError("OUT_OF_STOCK", {
      message: "Only 2 left.",
      status: 410,
      details: { left: 2 },
      headers: { "Retry-After": "5" },
      cause,
    });
    expect(error).toMatchObject({ message: "Only 2 left.", status: 410, cause });
    expect(toErrorResponse(error)).toEqual({
      status: 410,
      body: { left: 2, error: { code: "OUT_OF_STOCK", message: "Only 2 left." } },
      headers: { "Retry-After": "5" },
      internal: false,
    });
  });

  it("makes local errors (no status) that are never sent to a client", () => {
    const error = new LocalError("BAD_CONFIG");
    expect(error).toMatchObject({ status: undefined, expose: false });
    expect(isWireError(error)).toBe(false);
    expect(toErrorResponse(error).internal).toBe(true);
    expect(new LocalError("NOT_FOUND").expose).toBe(true);
  });

  it("refuses a code its table does not have", () => {
    expect(() => new ShopError("toString" as "OUT_OF_STOCK")).toThrow(
      "ShopError: unknown error code toString",
    );
  });

  it("create gives the code its literal type and an instance of the subclass", () => {
    const error = ShopError.create("OUT_OF_STOCK", { details: { left: 0 } });
    expect(error).toBeInstanceOf(ShopError);
    expect(error.details).toEqual({ left: 0 });
    expectTypeOf(error.code).toEqualTypeOf<"OUT_OF_STOCK">();
    expectTypeOf(error.status).toEqualTypeOf<number>();
    expectTypeOf(error.expose).toEqualTypeOf<true>();
    expectTypeOf(new ShopError("AUTH_REQUIRED").code).toEqualTypeOf<
      "AUTH_REQUIRED" | "INVALID_JSON" | "ADMIN_REQUIRED" | "OUT_OF_STOCK"
    >();
    expectTypeOf(new LocalError("BAD_CONFIG").status).toEqualTypeOf<number | undefined>();
    // @ts-expect-error: not a code of the table.
    expect(() => ShopError.create("NO_SUCH_CODE")).toThrow();
  });
});

describe("commonErrorCodes", () => {
  it.each(Object.entries(commonErrorCodes))("%s is an UPPER_SNAKE wire error", (code, entry) => {
    expect(code).toMatch(/^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/);
    expect(entry.status).toBeGreaterThanOrEqual(400);
    expect(entry.status).toBeLessThanOrEqual(599);
    expect(entry.message).toMatch(/\.$/);
  });

  it("commonErrors picks only the named codes", () => {
    expect(commonErrors("ROUTE_NOT_FOUND", "RATE_LIMITED")).toEqual({
      ROUTE_NOT_FOUND: commonErrorCodes.ROUTE_NOT_FOUND,
      RATE_LIMITED: commonErrorCodes.RATE_LIMITED,
    });
  });
});
