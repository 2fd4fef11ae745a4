import type { MutationContext } from "@svc/functions";

/** One cart line priced and checked against the product's current state. */
export interface PricedLine {
  readonly cartItemId: string;
  readonly productId: string;
  readonly productName: string;
  readonly quantity: number;
  readonly unitPriceCents: number;
  readonly stockLeft: number;
}

/** Every cart line of `ownerId`, read with the hook's (admin) rights. */
export async function readCart(
  db: MutationContext["db"],
  ownerId: string,
): Promise<{ id: string; productId: string; quantity: number }[]> {
  const lines: { id: string; productId: string; quantity: number }[] = [];
  let cursor: string | null = null;
  do {
    const page = await db.query("CartItem", {
      where: { ownerId },
      limit: 100,
      ...(cursor !== null && { cursor }),
    });
    for (const row of page.rows) {
      lines.push({ id: row.id, productId: String(row.productId), quantity: Number(row.quantity) });
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  // One lock order for every checkout, so two of them never wait on each other in a cycle.
  return lines.sort((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0));
}

/**
 * Locks the product row, then checks the line against it. The lock is a
 * write of `lastOrderedAt`: on Postgres a second checkout of the same
 * product waits here until the first commits, and the row it gets back
 * carries the stock the first one left, so two buyers cannot both take the
 * last unit. (SQLite runs one write transaction at a time anyway.)
 */
export async function priceLine(
  ctx: Pick<MutationContext, "db" | "error">,
  line: { id: string; productId: string; quantity: number },
  now: string,
): Promise<PricedLine> {
  const product = await ctx.db.update("Product", line.productId, { lastOrderedAt: now });
  const name = String(product.name);
  if (product.active !== true) {
    return ctx.error(
      "PRODUCT_UNAVAILABLE",
      `"${name}" (product ${product.id}) is no longer sold.`,
      409,
    );
  }
  const stock = Number(product.stock);
  if (stock < line.quantity) {
    return ctx.error(
      "OUT_OF_STOCK",
      `Only ${stock} of "${name}" (product ${product.id}) left; the cart asks for ${line.quantity}.`,
      409,
    );
  }
  return {
    cartItemId: line.id,
    productId: product.id,
    productName: name,
    quantity: line.quantity,
    unitPriceCents: Number(product.priceCents),
    stockLeft: stock - line.quantity,
  };
}
